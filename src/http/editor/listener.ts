import { createServer, type Server, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loopbackHost } from '../loopback-host.js';
import { type DirectRoute, directRouteOf, type RawAnswer } from './app.js';
import { IDLE_MS, MAX_BODY_BYTES, MAX_CONNECTIONS, MAX_HEAD_BYTES } from './limits.js';
import { REASONS } from './status.js';

const HEAD_END = Buffer.from('\r\n\r\n');

const CORS_AND_TRANSPORT =
  'Access-Control-Allow-Origin: *\r\n' +
  'Access-Control-Allow-Methods: GET, POST, PUT, DELETE, OPTIONS\r\n' +
  'Access-Control-Allow-Headers: Content-Type\r\n' +
  'Connection: close\r\n';

interface Head {
  method: string;
  target: string;
  host: string | undefined;
  /** The `Origin` header (several are joined by ", ", as Node joins them), undefined when absent. */
  origin: string | undefined;
  /** Declared body length as the spec reads it: unparsable = 0. */
  length: number;
}

/**
 * The request line and the two headers the transport reads. Only `Content-Length:` and
 * `content-length:` count (spec), the first one wins, and an unparsable value is 0 — so a
 * `Content-Length: abc` is answered normally rather than by Node's parser with its own 400.
 */
function parseHead(text: string): Head | undefined {
  const lines = text.split('\r\n');
  const match = /^([A-Za-z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? '');
  if (!match) return undefined;
  let host: string | undefined;
  let origin: string | undefined;
  let length: number | undefined;
  for (const line of lines.slice(1)) {
    if (length === undefined && (line.startsWith('Content-Length:') || line.startsWith('content-length:'))) {
      const value = line.slice('Content-Length:'.length).trim();
      length = /^\d+$/.test(value) ? Number(value) : 0;
    } else if (host === undefined && /^host:/i.test(line)) {
      host = line.slice(5).trim();
    } else if (/^origin:/i.test(line)) {
      const value = line.slice(7).trim();
      origin = origin === undefined ? value : `${origin}, ${value}`;
    }
  }
  return {
    method: (match[1] as string).toUpperCase(),
    target: match[2] as string,
    host,
    origin,
    length: length ?? 0,
  };
}

/**
 * A complete answer: status line, the spec's headers, and a JSON body (none for 204 or a null body), or
 * other bytes of their own type (the PNG of POST /capture).
 */
function answerBytes(status: number, body: string | Buffer, type = 'application/json'): Buffer {
  const head =
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Unknown'}\r\n` +
    `Content-Type: ${type}\r\n` +
    `Content-Length: ${typeof body === 'string' ? Buffer.byteLength(body) : body.length}\r\n${CORS_AND_TRANSPORT}\r\n`;
  // A JSON answer is written as one string into one buffer; other bytes (a PNG) are joined to the head.
  if (typeof body === 'string') return Buffer.from(head + body, 'utf8');
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** Closes a connection whose answer the kernel has (see the listener's `finish`). */
const closeAnswered = (socket: Socket) => socket.destroy();

const jsonBody = (status: number, body: Record<string, unknown>) =>
  JSON.stringify({ ...body, http_status: status });

/**
 * The editor's HTTP transport, in front of the Fastify app: one request per connection, read here so
 * that the spec's rules hold where Node's own parser would answer first (unparsable or repeated
 * Content-Length, bodies past the limit), then routed through `app.inject` and written back with
 * exactly the spec's headers. At most 8 connections (Node closes a further one unanswered), 15 s idle
 * read and write time-out, and 15 s in all for the request to arrive (head and declared body); neither
 * runs while the request is served. Loopback only, and the Host guard against DNS rebinding.
 */
export class EditorListener {
  private readonly server: Server;
  private readonly app: FastifyInstance;
  /** The editor app's direct path, when `app` is one: plain targets skip `app.inject`. */
  private readonly direct: DirectRoute | undefined;
  private port = 0;

  constructor(app: FastifyInstance) {
    this.app = app;
    this.direct = directRouteOf(app);
    this.server = createServer({ allowHalfOpen: false }, (socket) => this.serve(socket));
    this.server.maxConnections = MAX_CONNECTIONS;
  }

  /** Binds 127.0.0.1:`port` (0 = any free port); resolves with the effective port. */
  listen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.server.once('error', onError);
      this.server.listen({ host: '127.0.0.1', port }, () => {
        this.server.off('error', onError);
        const address = this.server.address();
        this.port = typeof address === 'object' && address ? address.port : port;
        resolve(this.port);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    // The idle limit alone let a client keep its slot for ever by sending a byte every few seconds (eight
    // such clients locked every caller out): the request must also arrive whole within IDLE_MS.
    const arrival = setTimeout(() => socket.destroy(), IDLE_MS);
    const arrived = () => clearTimeout(arrival);
    socket.once('close', arrived);
    socket.setTimeout(IDLE_MS);
    socket.on('timeout', () => socket.destroy());
    socket.on('error', () => socket.destroy());
    // Until the head is whole it is searched in one buffer (at most 64 KiB); body chunks are kept as
    // they come and joined once, so a 16 MiB body is not copied over and over while it arrives.
    let buffered: Buffer = Buffer.alloc(0);
    let head: Head | undefined;
    const bodyChunks: Buffer[] = [];
    let bodyBytes = 0;
    const onData = (chunk: Buffer) => {
      if (!head) {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf(HEAD_END);
        if (end === -1) {
          if (buffered.length > MAX_HEAD_BYTES) socket.destroy();
          return;
        }
        head = parseHead(buffered.subarray(0, end).toString('latin1'));
        if (!head) {
          finish(400, jsonBody(400, { ok: false, code: 'bad_request', error: 'malformed request line' }));
          return;
        }
        chunk = buffered.subarray(end + HEAD_END.length);
      }
      bodyChunks.push(chunk);
      bodyBytes += chunk.length;
      // A declared length over the limit is passed on with an empty body, and the body is not read.
      const wanted = head.length > MAX_BODY_BYTES ? 0 : head.length;
      if (bodyBytes < wanted) return;
      // Most bodies come in the head's packet: one chunk is used as it is, not copied.
      const whole =
        bodyChunks.length === 1 ? (bodyChunks[0] as Buffer) : Buffer.concat(bodyChunks, bodyBytes);
      const body = whole.subarray(0, wanted);
      readWhole = head.length <= MAX_BODY_BYTES;
      socket.off('data', onData);
      socket.pause();
      arrived();
      // No idle limit while the dispatcher works: an operation longer than it still gets its answer.
      socket.setTimeout(0);
      void this.answer(head, body).then((answer) =>
        finish(answer.status, answer.bytes ?? answer.body, answer.type),
      );
    };
    // Once the answer is with the kernel, a connection whose request was read whole is closed at once
    // rather than when the client's FIN arrives: the slot frees a round trip sooner, so a client's next
    // connection is not turned away at the limit. The kernel still delivers the answer, then FIN (a
    // close sends it as a shutdown would, so the answer is written and the socket closed, without the
    // stream's end and finish steps in between). With an unread body (over the limit) it ends its side
    // and waits for the client instead: closing over unread data sends RST, which can throw the answer
    // away before the client has read it.
    let readWhole = false;
    const finish = (status: number, text: string | Buffer, type?: string) => {
      socket.off('data', onData);
      arrived();
      if (socket.destroyed) return;
      // The idle limit again while the answer is written (spec: read and write).
      socket.setTimeout(IDLE_MS);
      const bytes = answerBytes(status, text, type);
      // Destroyed a tick after the write's callback, not in it: a socket destroyed inside the callback
      // makes Node 20's stream code build an ERR_STREAM_DESTROYED, stack and all, that nobody reads
      // (afterWrite then errorBuffer; 2% of the server's busy time in a POST /entities profile).
      if (readWhole) socket.write(bytes, () => process.nextTick(closeAnswered, socket));
      else socket.end(bytes);
    };
    socket.on('data', onData);
  }

  private async answer(head: Head, body: Buffer): Promise<RawAnswer> {
    if (!loopbackHost(head.host)) {
      const error = `Host ${JSON.stringify(head.host ?? '')} is not allowed: name this machine (127.0.0.1:${this.port}, localhost:${this.port} or [::1]:${this.port})`;
      return { status: 403, body: jsonBody(403, { ok: false, code: 'forbidden_host', error }) };
    }
    if (head.method === 'OPTIONS') return { status: 204, body: '' };
    if (!['GET', 'POST', 'PUT', 'DELETE'].includes(head.method)) {
      return {
        status: 405,
        body: jsonBody(405, {
          ok: false,
          code: 'method_not_allowed',
          error: `${head.method} not supported here`,
        }),
      };
    }
    try {
      const direct = this.direct?.(head.method, head.target, body, head.origin);
      if (direct) return await direct;
      const response = await this.app.inject({
        method: head.method as 'GET' | 'POST' | 'PUT' | 'DELETE',
        url: head.target,
        headers: {
          host: head.host ?? '',
          'content-type': 'application/octet-stream',
          ...(head.origin === undefined ? {} : { origin: head.origin }),
        },
        ...(body.length > 0 ? { payload: body } : {}),
      });
      const type = response.headers['content-type'];
      // JSON as text (the spec's headers say so); anything else (a PNG) as the bytes it is.
      if (typeof type === 'string' && !type.startsWith('application/json') && response.rawPayload.length > 0)
        return { status: response.statusCode, body: '', bytes: response.rawPayload, type };
      return { status: response.statusCode, body: response.payload };
    } catch (error) {
      return {
        status: 500,
        body: jsonBody(500, { ok: false, code: 'internal_error', error: (error as Error).message }),
      };
    }
  }
}
