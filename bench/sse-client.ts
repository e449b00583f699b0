/**
 * The SSE client of `npm run bench -- deploys`: reads `GET /api/jobs/{id}/events` (or the fan-out limit's
 * bare server) until the result message and checks what it got. Fifty of them read ten million events in
 * one benchmark, so the client parses only what it must, in place: a line's sequence number and emit time
 * are read from the front of its text without slicing or JSON.parse; the lines it checks for secrets are
 * parsed whole. Clients run in worker threads (bench/sse-client-worker.ts), so their reading does not
 * share one thread: 50 real clients would not share one machine either.
 */
import { request } from 'node:http';
import { createRedactor } from '../src/stacks/output/redaction.js';

/** A client that is cut off more often than this is counted as failed rather than retried for ever. */
const MAX_RECONNECTS = 20;
/** What every line message's JSON text starts with: `{"type":"line","line":"`. */
const LINE_PREFIX = '{"type":"line","line":"';

export const now = () => performance.timeOrigin + performance.now();

/** What one SSE client saw. */
export interface ClientResult {
  lines: number;
  /** Lines whose sequence number was not the next one expected (lost, repeated or reordered). */
  outOfOrder: number;
  /** Lines (or result output) holding a secret value. */
  leaks: number;
  /** Secret-bearing lines that arrived without `***` in them (redaction did not happen where it must). */
  unredacted: number;
  firstEmitMs: number;
  lastLineAt: number;
  reconnects: number;
  /** stdout -> this client, ms, one per line received. */
  latencies: Float64Array;
  result: { success: boolean; error?: string } | undefined;
  error?: string;
}

export interface ClientCheck {
  secrets: readonly string[];
  /** Check every line for secrets (else only the lines that held one: seq % 50 === 0). */
  checkEveryLine: boolean;
  expectedLines: number;
}

export interface ClientTarget {
  port: number;
  /** The request path, e.g. `/api/jobs/<id>/events`. */
  path: string;
  token: string;
}

export function sseClient(target: ClientTarget, check: ClientCheck): Promise<ClientResult> {
  const redactor = createRedactor(check.secrets);
  const leaking = (line: string) => redactor.line(line) !== line;
  const out: ClientResult = {
    lines: 0,
    outOfOrder: 0,
    leaks: 0,
    unredacted: 0,
    firstEmitMs: Number.NaN,
    lastLineAt: 0,
    reconnects: 0,
    latencies: new Float64Array(check.expectedLines),
    result: undefined,
  };
  let lastId: string | undefined;

  const onOther = (data: string) => {
    const message = JSON.parse(data) as {
      type: string;
      success?: boolean;
      error?: string;
      output?: string[];
    };
    if (message.type !== 'result') return;
    out.result = { success: message.success === true, ...(message.error ? { error: message.error } : {}) };
    for (const line of message.output ?? []) if (leaking(line)) out.leaks++;
    if (message.error && leaking(message.error)) out.leaks++;
  };

  /** One `data:` text: `text.slice(start, end)`, read in place. */
  const onData = (text: string, start: number, end: number, at: number) => {
    if (!text.startsWith(LINE_PREFIX, start)) return onOther(text.slice(start, end));
    // `<seq> <integer>.<fraction> ...`: both numbers read digit by digit, no slice, no Number().
    let i = start + LINE_PREFIX.length;
    let seq = 0;
    let c = text.charCodeAt(i);
    if (c < 48 || c > 57) seq = Number.NaN;
    for (; c >= 48 && c <= 57; c = text.charCodeAt(++i)) seq = seq * 10 + (c - 48);
    if (c !== 32) seq = Number.NaN;
    let stamp = 0;
    for (c = text.charCodeAt(++i); c >= 48 && c <= 57; c = text.charCodeAt(++i))
      stamp = stamp * 10 + (c - 48);
    if (c === 46) {
      let scale = 1;
      for (c = text.charCodeAt(++i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) {
        stamp = stamp * 10 + (c - 48);
        scale *= 10;
      }
      stamp /= scale;
    }
    if (seq !== out.lines) out.outOfOrder++;
    if (out.lines === 0) out.firstEmitMs = stamp;
    if (out.lines < out.latencies.length) out.latencies[out.lines] = at - stamp;
    out.lines++;
    out.lastLineAt = at;
    if (check.checkEveryLine || seq % 50 === 0) {
      const line = (JSON.parse(text.slice(start, end)) as { line: string }).line;
      if (leaking(line)) out.leaks++;
      if (seq % 50 === 0 && !line.includes('***')) out.unredacted++;
    }
  };

  /** Reads every whole event of `text`; returns where the unread rest starts. */
  const events = (text: string, at: number): number => {
    const n = text.length;
    let from = 0;
    // The last `id: ` value of this read, by position: sliced once per read, not per event.
    let idStart = -1;
    let idEnd = -1;
    while (from < n) {
      // The server's frames are `id: <n>\ndata: <one line>\n\n`: found with two scans for `\n`.
      if (text.startsWith('id: ', from)) {
        const nl = text.indexOf('\n', from + 4);
        if (nl === -1) break;
        if (text.startsWith('data: ', nl + 1)) {
          const end = text.indexOf('\n', nl + 7);
          if (end === -1 || end + 1 >= n) break;
          if (text.charCodeAt(end + 1) === 10) {
            idStart = from + 4;
            idEnd = nl;
            onData(text, nl + 7, end, at);
            from = end + 2;
            continue;
          }
        }
      }
      // Anything else the general way (fields split into lines).
      const end = text.indexOf('\n\n', from);
      if (end === -1) break;
      let data: string | undefined;
      for (const field of text.slice(from, end).split('\n')) {
        if (field.startsWith('id:')) {
          lastId = field.slice(3).trim();
          idStart = -1;
        } else if (field.startsWith('data:')) data = field.slice(field[5] === ' ' ? 6 : 5);
      }
      if (data !== undefined) onData(data, 0, data.length, at);
      from = end + 2;
    }
    if (idStart !== -1) lastId = text.slice(idStart, idEnd).trim();
    return from;
  };

  const connect = (resolve: (r: ClientResult) => void) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.path,
        agent: false,
        headers: {
          authorization: `Bearer ${target.token}`,
          accept: 'text/event-stream',
          ...(lastId === undefined ? {} : { 'last-event-id': lastId }),
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          out.error = `GET events answered ${res.statusCode}`;
          res.resume();
          res.on('end', () => resolve(out));
          return;
        }
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const text = rest === '' ? chunk : rest + chunk;
          const from = events(text, now());
          rest = from === text.length ? '' : text.slice(from);
        });
        res.on('end', () => {
          if (out.result !== undefined) return resolve(out);
          if (out.reconnects >= MAX_RECONNECTS) {
            out.error = `the stream ended before the result ${out.reconnects} times`;
            return resolve(out);
          }
          out.reconnects++;
          connect(resolve);
        });
      },
    );
    req.on('error', (error) => {
      out.error = error.message;
      resolve(out);
    });
    req.end();
  };
  return new Promise(connect);
}
