import type { FastifyReply } from 'fastify';
import type { Observer } from 'rxjs';
import { firstEvent } from '../../stacks/first-event.js';

/**
 * A server-sent events answer over a Fastify reply. The writer never buffers without bound: `ready()`
 * tells the producer to wait while the socket's buffer is full (it resolves on `drain`, or when the
 * client has gone), so a slow client holds up only its own feed — the producer's bounded queue (the
 * jobs module's subscriber queue) fills for it, and never the job or another client.
 */
export class EventStream {
  private readonly reply: FastifyReply;
  private ended = false;
  private pending = '';
  private readonly closeHandlers: Array<() => void> = [];
  /** Resolves once the stream is ended (by us) or the client has gone. */
  readonly closed: Promise<void>;

  constructor(reply: FastifyReply) {
    let markClosed: () => void = () => {};
    this.closed = new Promise<void>((resolve) => {
      markClosed = resolve;
    });
    this.closeHandlers.push(() => markClosed());
    this.reply = reply;
    // Fastify must not answer this request itself: the socket is ours from here on.
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    raw.flushHeaders();
    const closed = () => {
      if (this.ended) return;
      this.ended = true;
      for (const handler of this.closeHandlers) handler();
    };
    raw.on('close', closed);
    raw.on('error', closed);
  }

  /** Whether the stream still takes events (not ended by us, client still there). */
  get open(): boolean {
    return !this.ended;
  }

  /** Called once when the client goes away or the stream is ended. */
  onClose(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  /** Writes one event: `id:` (when given) and its data, one `data:` line per line of the text. */
  send(data: string, id?: number): void {
    this.write(eventFrame(data, id));
  }

  /**
   * Writes frames made by `eventFrame`: a string, or bytes shared by every client of the same events
   * (encoded once, written as they are). A string waits for the end of this turn of the event loop,
   * joined with the others of the turn, unless `now` (a batch a producer paces with `ready()`).
   */
  write(frames: string | Buffer, now = false): void {
    if (this.ended) return;
    if (typeof frames !== 'string' || now) {
      // Already a batch: keep the order with what is pending, then hand the shared bytes to the socket.
      this.flush();
      if (!this.reply.raw.destroyed) this.reply.raw.write(frames);
      return;
    }
    // Events sent in one turn of the event loop leave as one string in one write: a fast job sends
    // thousands per turn, and a write (a buffer for writev) each would cost more than all the rest.
    if (this.pending === '') process.nextTick(this.flush);
    this.pending += frames;
  }

  private readonly flush = (): void => {
    const text = this.pending;
    this.pending = '';
    if (text !== '' && !this.reply.raw.destroyed) this.reply.raw.write(text);
  };

  /** undefined when more may be written now; else a promise that settles when it may (or the client left). */
  ready(): Promise<void> | undefined {
    const raw = this.reply.raw;
    if (this.ended || !raw.writableNeedDrain) return undefined;
    return firstEvent(raw, ['drain', 'close']);
  }

  /**
   * Ends the answer (after whatever is written). With `graceMs`, a client that has not taken what was
   * written by then (one that stopped reading) is disconnected: its socket and buffer are let go.
   */
  end(graceMs?: number): void {
    if (this.ended) return;
    this.ended = true;
    this.flush();
    const raw = this.reply.raw;
    raw.end();
    if (graceMs !== undefined && !raw.writableFinished) {
      const timer = setTimeout(() => raw.destroy(), graceMs);
      timer.unref();
      raw.once('finish', () => clearTimeout(timer));
      raw.once('close', () => clearTimeout(timer));
    }
    for (const handler of this.closeHandlers) handler();
  }
}

/** One event as it goes on the wire: `id:` (when given), a `data:` line per line of the text, a blank line. */
export function eventFrame(data: string, id?: number): string {
  let frame = id !== undefined ? `id: ${id}\n` : '';
  for (const line of data.split('\n')) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/**
 * The observer an event-stream answer subscribes with. A throw in one of its handlers (a bug, a message
 * that cannot be framed) ends this one answer and is written on standard error under `what`; left to
 * RxJS it would be rethrown from a timer, where Node exits, and the answer would hang. An
 * error or completion without a handler of its own ends the answer.
 */
export function streamObserver<T>(
  stream: EventStream,
  what: string,
  handlers: { next: (value: T) => void; error?: (error: unknown) => void; complete?: () => void },
): Observer<T> {
  const guarded =
    <A extends unknown[]>(handler: (...args: A) => void) =>
    (...args: A): void => {
      try {
        handler(...args);
      } catch (error) {
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        process.stderr.write(`${what}: the event stream was ended: ${text}\n`);
        stream.end();
      }
    };
  return {
    next: guarded(handlers.next),
    error: guarded(handlers.error ?? (() => stream.end())),
    complete: guarded(handlers.complete ?? (() => stream.end())),
  };
}
