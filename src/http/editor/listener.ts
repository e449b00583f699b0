import { createServer, type Server, type Socket } from 'node:net';
import { loopbackHost } from '../loopback-host.js';
import { failureAnswer, type HttpAnswer, internalError, noContent } from './answer.js';
import type { EditorApp } from './app.js';
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

const headOf = (status: number, type: string, length: number) =>
  `HTTP/1.1 ${status} ${REASONS[status] ?? 'Unknown'}\r\n` +
  `Content-Type: ${type}\r\n` +
  `Content-Length: ${length}\r\n${CORS_AND_TRANSPORT}\r\n`;

/**
 * An answer's bytes: the status line, the spec's headers, and the JSON body with `http_status` added,
 * or the answer's own bytes and type (the PNG of POST /capture). Throws when the body cannot be
 * serialized.
 */
function answerBytes(answer: HttpAnswer): Buffer {
  if ('bytes' in answer) {
    return Buffer.concat([
      Buffer.from(headOf(answer.status, answer.type, answer.bytes.length), 'latin1'),
      answer.bytes,
    ]);
  }
  // A JSON answer is written as one string into one buffer.
  const text = JSON.stringify({ ...answer.body, http_status: answer.status });
  return Buffer.from(headOf(answer.status, 'application/json', Buffer.byteLength(text)) + text, 'utf8');
}

/** Closes a connection whose answer the kernel has (see the listener's `finish`). */
const closeAnswered = (socket: Socket) => socket.destroy();

/**
 * The editor's HTTP transport, in front of the editor app: one request per connection, read here so
 * that the spec's rules hold where Node's own parser would answer first (unparsable or repeated
 * Content-Length, bodies past the limit), answered by the app and written back with exactly the spec's
 * headers. At most 8 connections (Node closes a further one unanswered), 15 s idle read and write
 * time-out, and 15 s in all for the request to arrive (head and declared body); neither runs while the
 * request is served (limits.ts). Loopback only, and the Host guard against DNS rebinding.
 * Whatever is thrown on the way from a request to its bytes is answered 500 `internal_error` here, the
 * one place.
 */
export class EditorListener {
  private readonly server: Server;
  private readonly app: EditorApp;
  private port = 0;

  constructor(app: EditorApp) {
    this.app = app;
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
          finish(answerBytes(failureAnswer(400, 'bad_request', 'malformed request line')));
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
      void this.answer(head, body)
        .then(answerBytes)
        .catch((error: unknown) => answerBytes(internalError(error)))
        .then(finish);
    };
    // Once the answer is with the kernel, a connection whose request was read whole is closed at once
    // rather than when the client's FIN arrives: the slot frees a round trip sooner, so a client's next
    // connection is not turned away at the limit. The kernel still delivers the answer, then FIN (a
    // close sends it as a shutdown would, so the answer is written and the socket closed, without the
    // stream's end and finish steps in between). With an unread body (over the limit) it ends its side
    // and waits for the client instead: closing over unread data sends RST, which can throw the answer
    // away before the client has read it.
    let readWhole = false;
    const finish = (bytes: Buffer) => {
      socket.off('data', onData);
      arrived();
      if (socket.destroyed) return;
      // The idle limit again while the answer is written (spec: read and write).
      socket.setTimeout(IDLE_MS);
      // Destroyed a tick after the write's callback, not in it: a socket destroyed inside the callback
      // makes Node 20's stream code build an ERR_STREAM_DESTROYED, stack and all, that nobody reads
      // (afterWrite then errorBuffer; 2% of the server's busy time in a POST /entities profile).
      if (readWhole) socket.write(bytes, () => process.nextTick(closeAnswered, socket));
      else socket.end(bytes);
    };
    socket.on('data', onData);
  }

  /** The answer to a request read whole: the Host guard and the CORS preflight, then the app's. */
  private async answer(head: Head, body: Buffer): Promise<HttpAnswer> {
    if (!loopbackHost(head.host)) {
      const error = `Host ${JSON.stringify(head.host ?? '')} is not allowed: name this machine (127.0.0.1:${this.port}, localhost:${this.port} or [::1]:${this.port})`;
      return failureAnswer(403, 'forbidden_host', error);
    }
    if (head.method === 'OPTIONS') return noContent;
    return this.app.answer({ method: head.method, target: head.target, body, origin: head.origin });
  }
}
