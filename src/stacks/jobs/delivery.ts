import type { JobMessage } from '../../../streams/stacks.js';

/**
 * How a job's messages travel to its subscribers (jobs/subscription.ts): in shared chunks, counted in
 * bytes, not in messages: a line may be 16 bytes or 64 KiB, and memory follows bytes.
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
const MESSAGE_OVERHEAD = 64;

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
  /**
   * The chunk this one is a part of (a subscriber resuming inside a chunk takes its tail), when it is
   * one: a consumer may derive what it memoized for the whole (its frames) rather than do it again.
   */
  readonly whole: JobChunk | undefined;
  constructor(from: number, messages: readonly JobMessage[], whole?: JobChunk) {
    this.from = from;
    this.messages = messages;
    this.whole = whole;
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
    return index <= this.from ? this : this.slice(index, this.end);
  }

  /** The messages from `from` to `end` (exclusive, within this chunk): this chunk itself when all. */
  slice(from: number, end: number): JobChunk {
    if (from <= this.from && end >= this.end) return this;
    const whole = this.whole ?? this;
    return new JobChunk(from, whole.messages.slice(from - whole.from, end - whole.from), whole);
  }
}

export interface MessagesOptions {
  /** Overrides the book's liveQueueBytes for this subscriber. */
  liveQueueBytes?: number;
  /** Overrides the book's dropBehindBytes for this subscriber. */
  dropBehindBytes?: number;
  /** Overrides the book's stalledMs for this subscriber. */
  stalledMs?: number;
  /**
   * Back-pressure from the consumer (an SSE response whose socket is full, say): called before each
   * chunk is delivered; a returned promise holds delivery until it settles. Meanwhile live messages
   * wait in the subscriber's bounded queue, and past it are read from the store later.
   */
  ready?: () => Promise<void> | undefined;
}

/**
 * A subscriber that fell more than its bound behind the running job and took nothing for a while
 * (stalledMs); resume with `messages(id, lastIndex + 1)` (an SSE client: reconnect with
 * `Last-Event-ID: lastIndex`).
 */
export class JobSubscriberTooSlowError extends Error {
  readonly lastIndex: number;
  constructor(behindBytes: number, lastIndex: number) {
    super(
      `too slow: this client fell more than ${behindBytes} bytes behind the job's output; resume after message ${lastIndex}`,
    );
    this.name = 'JobSubscriberTooSlowError';
    this.lastIndex = lastIndex;
  }
}
