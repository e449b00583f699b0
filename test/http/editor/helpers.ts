/**
 * Black-box client of `chronicle editor --http`: starts the built CLI as a child process, reads the
 * listening line from standard error, and talks to it over real sockets — `node:http` for ordinary
 * requests, raw `net` sockets where the test is about the bytes on the wire.
 */
import { rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  assertBuilt,
  type CliChild,
  type CliResult,
  listeningPort,
  startCli,
  tempDir,
  type Watched,
  watch,
} from '../../cli/helpers.js';
import { ezdxfAudit } from '../../editor/dispatcher/helpers.js';

export type Json = Record<string, unknown>;

export const LISTENING = /^editor listening on http:\/\/127\.0\.0\.1:(\d+)$/m;

export interface EditorServer {
  port: number;
  /** The server's process id (the command is spawned directly, without a shell). */
  pid: number;
  child: CliChild;
  stderr(): string;
  /** How the child ended (after `stop`, or on its own). */
  done: Promise<CliResult>;
  /** SIGTERM, then the exit (SIGKILL after a few seconds). */
  stop(): Promise<CliResult>;
}

/**
 * Starts `chronicle editor --http 0 --store memory:` (or with `args` instead of the store option);
 * `env`: the process's environment instead of the test's (e.g. NODE_OPTIONS with a small heap).
 */
export async function startEditor(
  args: readonly string[] = ['--store', 'memory:'],
  env?: NodeJS.ProcessEnv,
): Promise<EditorServer> {
  assertBuilt();
  const child = startCli(['editor', '--http', '0', ...args], env ? { env } : {});
  // A net for a server left running by a test that died, not a measure: a long test file on a loaded
  // machine has run past 120 s, and the net then killed the server under its remaining tests.
  const watched: Watched = watch(child, 600_000);
  const port = await listeningPort(child, watched, LISTENING, 'chronicle editor');
  const pid = child.pid;
  if (pid === undefined) throw new Error('the child has no pid');
  const done = watched.done;
  return {
    port,
    pid,
    child,
    stderr: watched.stderr,
    done,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        try {
          return await done;
        } finally {
          clearTimeout(timer);
        }
      }
      return done;
    },
  };
}

// ------------------------------------------------------------------------------------------------
// Answers
// ------------------------------------------------------------------------------------------------

export interface Answer {
  status: number;
  reason: string;
  /** Header names lower-cased, in the order received; repeated headers kept. */
  headers: Array<[string, string]>;
  body: Buffer;
  text: string;
  /** The body parsed as JSON when it is a JSON object, else undefined. */
  json: Json | undefined;
}

export function header(answer: Answer, name: string): string | undefined {
  return answer.headers.find(([n]) => n === name.toLowerCase())?.[1];
}

export function headersNamed(answer: Answer, name: string): string[] {
  return answer.headers.filter(([n]) => n === name.toLowerCase()).map(([, v]) => v);
}

/** The answer's JSON object body; throws (failing the test) when there is none. */
export function body(answer: Answer): Json {
  if (!answer.json) throw new Error(`expected a JSON object body, got ${answer.status} ${answer.text}`);
  return answer.json;
}

/** The value at a dotted path (`result.handles`, `entities.0.handle`), or undefined. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (current !== null && typeof current === 'object') current = (current as Json)[key];
    else return undefined;
  }
  return current;
}

const typed =
  <T>(check: (v: unknown) => boolean, what: string) =>
  (value: unknown, path: string): T => {
    const found = at(value, path);
    if (!check(found)) throw new Error(`${path}: expected ${what}, got ${JSON.stringify(found)}`);
    return found as T;
  };

export const str = typed<string>((v) => typeof v === 'string', 'a string');
export const num = typed<number>((v) => typeof v === 'number', 'a number');
export const arr = typed<unknown[]>((v) => Array.isArray(v), 'an array');
export const obj = typed<Json>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'an object');
export const strings = typed<string[]>(
  (v) => Array.isArray(v) && v.every((s) => typeof s === 'string'),
  'an array of strings',
);

function parseJsonObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------------
// node:http client
// ------------------------------------------------------------------------------------------------

export interface CallOptions {
  /** A value sent as JSON (Content-Type application/json). */
  json?: unknown;
  /** Bytes sent as they are. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** One request through `node:http` (no agent, so one connection per request). */
export function call(port: number, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const payload =
    options.raw !== undefined
      ? Buffer.from(options.raw)
      : options.json !== undefined
        ? Buffer.from(JSON.stringify(options.json))
        : undefined;
  const headers: Record<string, string> = { ...options.headers };
  if (payload) {
    if (options.json !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers, agent: false, timeout: options.timeoutMs ?? 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          const pairs: Array<[string, string]> = [];
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
            pairs.push([(res.rawHeaders[i] as string).toLowerCase(), res.rawHeaders[i + 1] as string]);
          resolve({
            status: res.statusCode ?? 0,
            reason: res.statusMessage ?? '',
            headers: pairs,
            body: bytes,
            text,
            json: parseJsonObject(text),
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in time`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A client bound to one server, remembering every answer (for the transport checks at the end). */
export class Client {
  readonly answers: Array<{ what: string; answer: Answer }> = [];
  constructor(readonly port: number) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const answer = await call(this.port, method, path, options);
    this.answers.push({ what: `${method} ${path}`, answer });
    return answer;
  }
  get = (path: string, options?: CallOptions) => this.call('GET', path, options);
  post = (path: string, json?: unknown, options: CallOptions = {}) =>
    this.call('POST', path, json === undefined ? options : { ...options, json });
  put = (path: string, json?: unknown, options: CallOptions = {}) =>
    this.call('PUT', path, json === undefined ? options : { ...options, json });
  del = (path: string, json?: unknown, options: CallOptions = {}) =>
    this.call('DELETE', path, json === undefined ? options : { ...options, json });
}

// ------------------------------------------------------------------------------------------------
// Raw sockets
// ------------------------------------------------------------------------------------------------

export interface RawExchange {
  /** Every byte the server sent. */
  data: Buffer;
  /** How the exchange ended: the server closed (or reset) the connection, or the wait ran out. */
  ended: 'closed' | 'timeout';
  error?: NodeJS.ErrnoException;
  /** Milliseconds from connecting to the end. */
  elapsedMs: number;
}

export interface RawOptions {
  timeoutMs?: number;
  /** Write each chunk after the previous one, with this pause between them. */
  pauseMs?: number;
}

/** Opens a socket, writes the chunks, and collects the bytes until the server closes it. */
export function rawExchange(
  port: number,
  chunks: ReadonlyArray<string | Buffer> | string | Buffer,
  options: RawOptions = {},
): Promise<RawExchange> {
  const list = typeof chunks === 'string' || Buffer.isBuffer(chunks) ? [chunks] : chunks;
  return new Promise<RawExchange>((resolve) => {
    const started = Date.now();
    const received: Buffer[] = [];
    const socket: Socket = connect({ host: '127.0.0.1', port });
    let error: NodeJS.ErrnoException | undefined;
    let settled = false;
    const finish = (ended: 'closed' | 'timeout') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        data: Buffer.concat(received),
        ended,
        ...(error ? { error } : {}),
        elapsedMs: Date.now() - started,
      });
    };
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs ?? 10_000);
    socket.on('data', (c: Buffer) => received.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e;
    });
    socket.on('close', () => finish('closed'));
    socket.on('connect', async () => {
      for (const [i, chunk] of list.entries()) {
        if (i > 0 && options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
        if (socket.destroyed) return;
        socket.write(chunk);
      }
    });
  });
}

/** The HTTP answers in a byte stream, in order (a second one would break one-request-per-connection). */
export function parseAnswers(data: Buffer): Answer[] {
  const out: Answer[] = [];
  let rest = data;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`an incomplete header block: ${JSON.stringify(rest.toString('latin1'))}`);
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const statusLine = lines[0] ?? '';
    const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine);
    if (!m) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
    const headers: Array<[string, string]> = lines.slice(1).map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    });
    const length = headers.find(([n]) => n === 'content-length')?.[1];
    const afterHead = rest.subarray(end + 4);
    const size = length === undefined ? afterHead.length : Number(length);
    const bytes = afterHead.subarray(0, size);
    const text = bytes.toString('utf8');
    out.push({
      status: Number(m[1]),
      reason: m[2] ?? '',
      headers,
      body: bytes,
      text,
      json: parseJsonObject(text),
    });
    rest = afterHead.subarray(size);
  }
  return out;
}

/** A request's bytes: request line, `Host` (unless given or null), the extra header lines, the body. */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  options: { host?: string | null; headers?: string[]; body?: string | Buffer; contentLength?: boolean } = {},
): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`];
  if (options.host !== null) lines.push(`Host: ${options.host ?? `127.0.0.1:${port}`}`);
  lines.push(...(options.headers ?? []));
  const payload = options.body === undefined ? Buffer.alloc(0) : Buffer.from(options.body);
  if (options.body !== undefined && options.contentLength !== false)
    lines.push(`Content-Length: ${payload.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}

/** Sends one raw request and parses what came back: exactly one answer is expected. */
export async function rawCall(
  port: number,
  bytes: ReadonlyArray<string | Buffer> | string | Buffer,
  options: RawOptions = {},
): Promise<{ answer: Answer; answers: Answer[]; exchange: RawExchange }> {
  const exchange = await rawExchange(port, bytes, options);
  const answers = parseAnswers(exchange.data);
  const [answer] = answers;
  if (!answer)
    throw new Error(`no answer (${exchange.ended}${exchange.error ? `, ${exchange.error.code}` : ''})`);
  return { answer, answers, exchange };
}

// ------------------------------------------------------------------------------------------------
// Transport checks
// ------------------------------------------------------------------------------------------------

export const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  503: 'Service Unavailable',
};

/** What the spec requires of every answer; an empty list when it all holds. */
export function transportProblems(answer: Answer): string[] {
  const problems: string[] = [];
  const expectHeader = (name: string, value: string) => {
    const got = headersNamed(answer, name);
    if (got.length !== 1 || got[0] !== value) problems.push(`${name}: ${JSON.stringify(got)} != ${value}`);
  };
  expectHeader('content-type', 'application/json');
  expectHeader('access-control-allow-origin', '*');
  expectHeader('access-control-allow-methods', 'GET, POST, PUT, DELETE, OPTIONS');
  expectHeader('access-control-allow-headers', 'Content-Type');
  expectHeader('connection', 'close');
  expectHeader('content-length', String(answer.body.length));
  if (REASONS[answer.status] !== answer.reason)
    problems.push(`reason phrase of ${answer.status}: ${JSON.stringify(answer.reason)}`);
  if (answer.status === 204) {
    if (answer.body.length !== 0) problems.push('204 with a body');
  } else if (!answer.json) {
    problems.push(`not a JSON object body: ${JSON.stringify(answer.text.slice(0, 200))}`);
  } else if (answer.json.http_status !== answer.status) {
    problems.push(`http_status ${JSON.stringify(answer.json.http_status)} != ${answer.status}`);
  }
  return problems;
}

// ------------------------------------------------------------------------------------------------
// Drawing data
// ------------------------------------------------------------------------------------------------

/** Creates entities in the active document through POST /entities; their handles, in order. */
export async function createEntities(client: Client, entities: Json[]): Promise<string[]> {
  const answer = await client.post('/api/v1/entities', { entities });
  if (answer.status !== 201) throw new Error(`POST /entities: ${answer.status} ${answer.text}`);
  return strings(body(answer), 'result.handles');
}

/** A blank document through POST /documents; its id. */
export async function newDocument(client: Client): Promise<number> {
  const answer = await client.post('/api/v1/documents');
  if (answer.status !== 201) throw new Error(`POST /documents: ${answer.status} ${answer.text}`);
  return num(body(answer), 'document_id');
}

/** An R12 DXF of `count` LINE entities (only an ENTITIES section): a slow `open`. */
export function linesDxf(count: number): string {
  const parts: string[] = ['0\nSECTION\n2\nENTITIES\n'];
  for (let i = 0; i < count; i++) parts.push(`0\nLINE\n8\n0\n10\n${i}\n20\n0\n11\n${i}\n21\n1\n`);
  parts.push('0\nENDSEC\n0\nEOF\n');
  return parts.join('');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The answer's body when its status is `status` (200 by default); else an error naming what came. */
export function okBody(answer: Answer, status = 200): Json {
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status} ${answer.text}`);
  return body(answer);
}

/** ezdxf's audit of a saved file finds nothing to fix. */
export async function expectAuditClean(file: string): Promise<void> {
  const audit = await ezdxfAudit(file);
  expect(audit.output).toContain('No errors found');
  expect(audit.code).toBe(0);
}

/**
 * A real editor CLI and a scratch directory for the tests of one file: started before them, stopped and
 * removed after. `client` and `dir` are there once its beforeAll has run; `save` saves the active
 * document into the directory and answers the file's path; `stop` and `start` (with CLI arguments) let a
 * test restart the editor, on its data directory say.
 */
export function editorForFile(): {
  readonly client: Client;
  readonly dir: string;
  save(name: string): Promise<string>;
  stop(): Promise<void>;
  start(args?: string[]): Promise<void>;
} {
  let server: EditorServer | undefined;
  let client: Client | undefined;
  let dir: string | undefined;
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  const start = async (args: string[] = []) => {
    await stop();
    server = await startEditor(args);
    client = new Client(server.port);
  };
  beforeAll(async () => {
    assertBuilt();
    dir = await tempDir();
    await start();
  });
  afterAll(async () => {
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is there once the file's beforeAll has run`);
    return value;
  };
  return {
    get client() {
      return ready(client, 'the client');
    },
    get dir() {
      return ready(dir, 'the scratch directory');
    },
    async save(name: string) {
      const file = join(ready(dir, 'the scratch directory'), name);
      okBody(await ready(client, 'the client').post('/api/v1/save', { path: file }));
      return file;
    },
    stop,
    start,
  };
}
