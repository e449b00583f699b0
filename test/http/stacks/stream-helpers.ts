/**
 * What the big-output tests (docs/stacks.md#reading-output-polls-event-streams-and-memory) need beside helpers.ts: the server's memory as Linux
 * reports it in `/proc/<pid>/status`, clients that never read, and an SSE reader that counts and checks
 * millions of events as they arrive without keeping them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { TOKENS } from './helpers.js';

const MiB = 1024 * 1024;

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1];
  if (kib === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kib) * 1024;
}

/** The process's resident memory now, in bytes. */
export const rssOf = (pid: number) => statusField(pid, 'VmRSS');

/** Its peak resident memory since the last `resetPeak` (or its start), in bytes. */
export const peakOf = (pid: number) => statusField(pid, 'VmHWM');

/** Sets the peak back to the current resident memory (`/proc/<pid>/clear_refs`, Linux 4.0+). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/**
 * A GET whose answer is never read: the request is sent, then the socket is paused for good, so the
 * server's writes fill the socket buffers and stay there.
 */
export function stalledGet(port: number, path: string, token: string = TOKENS.admin): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** What an SSE reader saw: events by kind, the last `id:`, and the non-line events as parsed JSON. */
export interface SseTally {
  status: number;
  lines: number;
  /** Line events whose text was not the one `expectLine` gave for their place. */
  wrong: number;
  lastId: string | undefined;
  others: Array<Record<string, unknown>>;
  /** The stream was cut by this side (`stopAfter`). */
  stopped: boolean;
}

export interface SseReadOptions {
  lastEventId?: string;
  /** The expected text of the line event at this place (from 0, counting this connection's lines). */
  expectLine?: (index: number) => string;
  /** Close the connection once this many line events have arrived. */
  stopAfter?: number;
  /** Called once the answer's head has arrived (the request is being served). */
  onOpen?: () => void;
  /** Take nothing of the answer (its socket's buffers fill) until this settles. */
  pauseUntil?: Promise<unknown>;
}

/**
 * Reads an event stream to its end (or `stopAfter` lines), counting line events (`{"type":"line"}`) and
 * checking them against `expectLine`; other events are parsed and kept.
 */
export function readSse(port: number, path: string, options: SseReadOptions = {}): Promise<SseTally> {
  const tally: SseTally = { status: 0, lines: 0, wrong: 0, lastId: undefined, others: [], stopped: false };
  const headers: Record<string, string> = {
    Accept: 'text/event-stream',
    Authorization: `Bearer ${TOKENS.admin}`,
  };
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = options.lastEventId;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      tally.status = res.statusCode ?? 0;
      options.onOpen?.();
      let rest = '';
      const onEvent = (block: string) => {
        let id: string | undefined;
        let data = '';
        for (const field of block.split('\n')) {
          if (field.startsWith('id: ')) id = field.slice(4);
          else if (field.startsWith('data: ')) data += field.slice(6);
        }
        if (id !== undefined) tally.lastId = id;
        if (data.startsWith('{"type":"line"')) {
          const line = (JSON.parse(data) as { line: string }).line;
          if (options.expectLine && line !== options.expectLine(tally.lines)) tally.wrong += 1;
          tally.lines += 1;
          if (options.stopAfter !== undefined && tally.lines >= options.stopAfter && !tally.stopped) {
            tally.stopped = true;
            req.destroy();
            resolve(tally);
          }
        } else if (data !== '') tally.others.push(JSON.parse(data) as Record<string, unknown>);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (tally.stopped) return;
        const text = rest + chunk;
        let from = 0;
        for (;;) {
          const end = text.indexOf('\n\n', from);
          if (end === -1) break;
          onEvent(text.slice(from, end));
          if (tally.stopped) return;
          from = end + 2;
        }
        rest = text.slice(from);
      });
      res.on('end', () => resolve(tally));
      res.on('error', () => resolve(tally));
      if (options.pauseUntil) {
        res.pause();
        void options.pauseUntil.then(() => res.resume());
      }
    });
    req.on('error', (error) => (tally.stopped ? resolve(tally) : reject(error)));
    req.end();
  });
}

/** What a plain GET answered, counted as it came: its bytes, its lines, and where it ended. */
export interface CountedBody {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
  lines: number;
  /** The first and last bytes of the body (up to 200 each), as text. */
  head: string;
  tail: string;
}

/** A GET whose body is counted as it arrives, never kept (a body of tens of MB, several at once). */
export function countGet(port: number, path: string): Promise<CountedBody> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, agent: false, headers: { Authorization: `Bearer ${TOKENS.admin}` } },
      (res) => {
        const body: CountedBody = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          bytes: 0,
          lines: 0,
          head: '',
          tail: '',
        };
        let last = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          if (body.bytes < 200) body.head += chunk.subarray(0, 200 - body.bytes).toString('latin1');
          body.bytes += chunk.length;
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) body.lines += 1;
          last = Buffer.concat([last, chunk]).subarray(-200);
        });
        res.on('end', () => resolve({ ...body, tail: last.toString('latin1') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
