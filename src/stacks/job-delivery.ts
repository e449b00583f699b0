import type { Subscriber } from 'rxjs';
import type { JobMessage } from '../../streams/stacks.js';

/**
 * How a job's messages travel to its subscribers: in shared chunks, through one bounded queue per
 * subscriber. Bounds are in bytes of message text, not in messages: a line may be 16 bytes or 64 KiB,
 * and memory follows bytes.
 */

/** A message with its place among the job's messages (from 0): the SSE event id. */
export interface IndexedMessage {
  index: number;
  message: JobMessage;
}

/** Bytes of text a message holds (UTF-16 units: what it costs in memory, about). */
export function messageSize(message: JobMessage): number {
  switch (message.type) {
    case 'line':
      return message.line.length;
    case 'status':
      return message.status.length;
    case 'result': {
      let size = message.error?.length ?? 0;
      for (const line of message.output) size += line.length;
      return size;
    }
  }
}

/**
 * What a message costs beyond its text, about: its object, and its SSE frame (`id:`, `data:`, JSON) once
 * a client framed it. With it, a chunk's size follows its memory also for lines of a few bytes.
 */
export const MESSAGE_OVERHEAD = 64;

/**
 * Consecutive messages of a job, handed to every subscriber as one object: live messages of one turn of
 * the event loop (or one stored event in catch-up) travel together, so delivery costs per chunk, not per
 * message and subscriber. Consumers may memoize what they derive from a chunk (its SSE frames, say) by
 * its identity: a live chunk is the same object for every subscriber.
 */
export class JobChunk {
  /** Index of the first message. */
  readonly from: number;
  readonly messages: readonly JobMessage[];
  /** Bytes it holds, about: its messages' text and MESSAGE_OVERHEAD each. */
  readonly size: number;
  constructor(from: number, messages: readonly JobMessage[]) {
    this.from = from;
    this.messages = messages;
    let size = 0;
    for (const message of messages) size += messageSize(message) + MESSAGE_OVERHEAD;
    this.size = size;
  }

  /** Index after the last message. */
  get end(): number {
    return this.from + this.messages.length;
  }

  /** The messages from `index` on: this chunk itself when it starts there (or later). */
  tail(index: number): JobChunk {
    return index <= this.from ? this : new JobChunk(index, this.messages.slice(index - this.from));
  }
}

export interface MessagesOptions {
  /** Overrides the book's subscriberBufferBytes for this subscriber. */
  bufferBytes?: number;
  /**
   * Back-pressure from the consumer (an SSE response whose socket is full, say): called before each
   * chunk is delivered; a returned promise holds delivery until it settles. Meanwhile live messages
   * wait in the subscriber's bounded buffer; catch-up reads from the store simply pause.
   */
  ready?: () => Promise<void> | undefined;
}

/**
 * A subscriber whose live messages waiting for it passed its bound; resume with
 * `messages(id, lastIndex + 1)` (an SSE client: reconnect with `Last-Event-ID: lastIndex`).
 */
export class JobSubscriberTooSlowError extends Error {
  readonly lastIndex: number;
  constructor(bufferBytes: number, lastIndex: number) {
    super(
      `too slow: more than ${bufferBytes} bytes of this job's output waited for this client; resume from message ${lastIndex + 1}`,
    );
    this.name = 'JobSubscriberTooSlowError';
    this.lastIndex = lastIndex;
  }
}

/** Longest stretch one subscriber's delivery runs before yielding to the event loop (ms). */
const DRAIN_SLICE_MS = 4;

/**
 * One subscriber's delivery: chunks wait in a queue bounded by the bytes they hold, drained on later
 * turns of the event loop, so whoever pushes (the job, or the store's live feed) never waits for the
 * consumer. Pushing a chunk costs the same whatever its size.
 */
export class Delivery {
  private queue: JobChunk[] = [];
  private readIndex = 0;
  /** Bytes of the messages in the queue not handed over yet. */
  private waitingBytes = 0;
  private scheduled = false;
  private waiting = false;
  private started = false;
  private done = false;
  private completeWhenDrained = false;
  /** Index of the last message handed to the consumer. */
  lastIndex: number;
  /** Index of the last message queued or handed over: anything at or below it is a duplicate. */
  private lastTaken: number;

  constructor(
    private readonly subscriber: Subscriber<JobChunk>,
    private readonly bufferBytes: number,
    private readonly ready: MessagesOptions['ready'],
    fromIndex: number,
  ) {
    this.lastIndex = fromIndex - 1;
    this.lastTaken = fromIndex - 1;
  }

  get closed(): boolean {
    return this.done || this.subscriber.closed;
  }

  /** Queues live messages (those not taken yet); drops the subscriber when too many bytes wait. */
  push(chunk: JobChunk): void {
    if (this.closed || chunk.end - 1 <= this.lastTaken) return;
    const fresh = chunk.tail(this.lastTaken + 1);
    this.lastTaken = fresh.end - 1;
    this.queue.push(fresh);
    this.waitingBytes += fresh.size;
    if (this.waitingBytes > this.bufferBytes) {
      this.fail(new JobSubscriberTooSlowError(this.bufferBytes, this.lastIndex));
      return;
    }
    this.schedule();
  }

  /** Hands caught-up messages straight over (the caller pulls them at the consumer's pace). */
  emit(chunk: JobChunk): void {
    if (this.closed || chunk.messages.length === 0) return;
    this.lastIndex = chunk.end - 1;
    this.lastTaken = Math.max(this.lastTaken, this.lastIndex);
    this.subscriber.next(chunk);
    if (chunk.messages.at(-1)?.type === 'result') this.finish();
  }

  /** Waits until the consumer is ready for more, if it said it is not. */
  async pace(): Promise<void> {
    const wait = this.ready?.();
    if (wait) await wait;
  }

  /** Catch-up is over: queued messages start to flow (before, they only accumulate). */
  markStarted(): void {
    this.started = true;
    this.schedule();
  }

  /** Completes once everything queued has been delivered. */
  completeAfterQueue(): void {
    this.completeWhenDrained = true;
    this.schedule();
  }

  fail(error: unknown): void {
    if (this.closed) return;
    this.done = true;
    this.queue = [];
    this.subscriber.error(error);
  }

  finish(): void {
    if (this.closed) return;
    this.done = true;
    this.queue = [];
    this.subscriber.complete();
  }

  private schedule(): void {
    if (!this.started || this.scheduled || this.waiting || this.closed) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    // Deliver for a bounded slice of time, then yield: others (the job, other subscribers) get their turn.
    const until = performance.now() + DRAIN_SLICE_MS;
    while (this.readIndex < this.queue.length && !this.closed) {
      if (performance.now() >= until) {
        this.schedule();
        return;
      }
      const wait = this.ready?.();
      if (wait) {
        this.waiting = true;
        wait.then(
          () => {
            this.waiting = false;
            this.schedule();
          },
          (error: unknown) => this.fail(error),
        );
        return;
      }
      const chunk = this.queue[this.readIndex] as JobChunk;
      // Let go of it in the queue at once: a delivered chunk is the consumer's now.
      this.queue[this.readIndex] = EMPTY_CHUNK;
      this.readIndex += 1;
      this.waitingBytes -= chunk.size;
      this.emit(chunk);
    }
    if (this.closed) return;
    this.queue = [];
    this.readIndex = 0;
    if (this.completeWhenDrained) this.finish();
  }
}

const EMPTY_CHUNK = new JobChunk(0, []);
