import type { Subscriber, Unsubscribable } from 'rxjs';
import { type JobMessage, jobStream } from '../../../streams/stacks.js';
import { StreamDeletedError } from '../../store/errors.js';
import type { EventStore, RecordedEvent } from '../../store/types.js';
import { StacksError } from '../errors.js';
import { JobChunk, JobSubscriberTooSlowError } from './delivery.js';
import type { JobReader } from './events.js';
import type { JobPages } from './pages.js';

/**
 * One subscriber of a job's messages (`JobBook.chunks`): it reads what is recorded from the store at its
 * own pace, then the running job's latest chunks from memory, then live chunks as they are published.
 *
 * Memory per subscriber is bounded whatever its speed: live chunks wait for it in a queue of at most
 * `liveQueueBytes`; past that it lets them go and reads from the store again (where they are, or in
 * the job's history until they are), so a slow or stalled client costs a page of the store and its
 * socket's buffer, never the job's output. Only a client that falls more than `dropBehindBytes` behind
 * the job *and* stalled, having taken nothing for `stalledMs`, is dropped (JobSubscriberTooSlowError,
 * resume from its last index). One that reads, however slowly, is never dropped: it costs a page of the
 * store, not the job's memory, and a drop would only make it start over (the slowest of 50
 * clients of a fast deploy, dropped and reconnecting, cost the server more CPU than all the rest).
 */

/** The running job a subscriber attaches to (see Job). */
export interface LiveJob {
  /** Adds a sink for every chunk published from now on; returns the detach. */
  attach(sink: JobSink): () => void;
  /** The published chunks kept in memory, from `historyFrom` on (earlier messages are in the store). */
  snapshot(): { historyFrom: number; history: readonly JobChunk[] };
}

/** What a running job hands its chunks to. */
export interface JobSink {
  push(chunk: JobChunk): void;
  /** The job's last chunk was published (its result). */
  completeAfterQueue(): void;
}

interface SubscriptionDeps {
  store: EventStore;
  reader: JobReader;
  /** The running job, when this process runs it (asked again on every pass). */
  running(): LiveJob | undefined;
  /** Stored events as their subscribers read them, shared (see JobPages). */
  pages: JobPages;
  /** Whether the job still exists (a deleted one's output is not served from memory either). */
  exists(): boolean;
}

interface SubscriptionLimits {
  liveQueueBytes: number;
  dropBehindBytes: number;
  /** How long a subscriber past `dropBehindBytes` may take nothing before it is dropped (ms). */
  stalledMs: number;
  /** Back-pressure from the consumer (see MessagesOptions.ready). */
  ready?: () => Promise<void> | undefined;
}

/** How long a subscriber waits before it reads the store again when it found nothing new there. */
const RETRY_MS = 10;

/** Longest stretch one subscriber's delivery runs before yielding to the event loop (ms). */
const DRAIN_SLICE_MS = 4;

const notFound = () => new StacksError('job_not_found', 'Job not found');

export class JobSubscription implements JobSink {
  /** Index of the last message handed to the consumer. */
  lastIndex: number;
  /** Index of the last message queued or handed over: anything at or below it is a duplicate. */
  private lastTaken: number;
  private mode: 'store' | 'live' | 'done' = 'store';
  private queue: JobChunk[] = [];
  private readIndex = 0;
  private queueBytes = 0;
  /** Bytes the job published since this subscriber attached that it has not taken yet (about). */
  private behindBytes = 0;
  /** When a chunk was last handed to the consumer (or the subscription started): its progress. */
  private tookAt = performance.now();
  private scheduled = false;
  private waiting = false;
  private completeWhenDrained = false;
  private detach: (() => void) | undefined;
  /**
   * The job this subscriber attached to while it ran here: once it has finished, its kept chunks (up to
   * its result) still serve this subscriber's catch-up from memory, as they did while it ran.
   */
  private attached: LiveJob | undefined;
  private storeFeed: Unsubscribable | undefined;
  /** The first stored event not read whole yet: its revision, and the index of its first message. */
  private cursor = { revision: 0, index: 0 };
  private lastPosition = 0;

  constructor(
    private readonly jobId: string,
    fromIndex: number,
    private readonly subscriber: Subscriber<JobChunk>,
    private readonly deps: SubscriptionDeps,
    private readonly limits: SubscriptionLimits,
  ) {
    this.lastIndex = fromIndex - 1;
    this.lastTaken = fromIndex - 1;
  }

  get closed(): boolean {
    return this.mode === 'done' || this.subscriber.closed;
  }

  start(): void {
    this.follow().catch((error: unknown) => this.fail(error));
  }

  /** Stops everything (the consumer unsubscribed, or the subscription ended). */
  stop(): void {
    this.mode = 'done';
    this.queue = [];
    this.detach?.();
    this.detach = undefined;
    this.attached = undefined;
    this.storeFeed?.unsubscribe();
    this.storeFeed = undefined;
  }

  /** A chunk the job published: queued while live; counted while this subscriber reads the store. */
  push(chunk: JobChunk): void {
    if (this.closed) return;
    if (this.mode !== 'live') {
      this.behindBytes += chunk.size;
      this.dropWhenStalled();
      return;
    }
    this.enqueue(chunk);
  }

  completeAfterQueue(): void {
    if (this.mode !== 'live') return;
    this.completeWhenDrained = true;
    this.schedule();
  }

  /**
   * Reads the store (and the running job's kept chunks) until this subscriber is where the live chunks
   * are, then goes live. Runs again whenever the live queue overflows.
   */
  private async follow(): Promise<void> {
    /** Whether to wait for the consumer before this pass (it takes kept chunks at its own pace). */
    let pacing = false;
    while (!this.closed) {
      const paced = pacing;
      pacing = false;
      if (paced) {
        await this.pace();
        if (this.closed) return;
      }
      const job = this.deps.running() ?? (this.deps.exists() ? this.attached : undefined);
      if (job !== undefined) {
        // Attached first, so nothing published while the store is read goes unseen (it is counted).
        this.detach ??= job.attach(this);
        this.attached = job;
        const { historyFrom, history } = job.snapshot();
        const next = this.lastTaken + 1;
        if (next < historyFrom) {
          const read = await this.fromStore(historyFrom);
          if (read === 'missing') return this.fail(notFound());
          if (read === 'ended') return;
          // The store had nothing more for now (its last append still landing): look again shortly.
          if (this.lastTaken + 1 === next) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        let kept = 0;
        for (const chunk of history) if (chunk.end > next) kept += chunk.size;
        if (kept <= this.limits.liveQueueBytes) {
          // In one synchronous step: the kept chunks, then whatever the job publishes next.
          this.goLive();
          for (const chunk of history) this.enqueue(chunk);
          return;
        }
        // More is kept than a live queue may hold: taken at the consumer's pace first, like the store, a
        // chunk after each wait, from a new look at the job: nothing of its kept chunks is held while
        // the consumer does not read (a stalled one costs none of the job's memory, which may let go).
        const chunk = paced ? history.find((c) => c.end > next) : undefined;
        if (chunk !== undefined) this.emit(chunk.tail(next));
        pacing = true;
        continue;
      }
      this.detach?.();
      this.detach = undefined;
      this.attached = undefined;
      const read = await this.fromStore(Number.POSITIVE_INFINITY);
      if (read === 'missing') return this.fail(notFound());
      if (read === 'ended' || this.closed) return;
      // It may have started here meanwhile (a restart of the same job id cannot happen: ids are new).
      if (this.deps.running()) continue;
      // Running in no process of ours (or closing): follow its stream in the store.
      await this.deps.reader.prime(this.deps.store, jobStream(this.jobId));
      if (this.closed) return;
      this.goLive();
      let index = this.cursor.index;
      this.storeFeed = this.deps.store
        .subscribe({ stream: jobStream(this.jobId), from: this.lastPosition + 1 })
        .subscribe({
          next: (event: RecordedEvent) => {
            let messages: JobMessage[];
            try {
              messages = this.deps.reader.later(event);
            } catch (error) {
              this.fail(error);
              return;
            }
            this.enqueue(new JobChunk(index, messages));
            index += messages.length;
            if (messages.at(-1)?.type === 'result') this.completeAfterQueue();
          },
          error: (error: unknown) => this.fail(error),
        });
      if (this.closed) this.storeFeed.unsubscribe();
      return;
    }
  }

  /**
   * Emits the stored messages from `lastTaken + 1` up to `before` (exclusive), pulling at the consumer's
   * pace, from the cursor on, through the book's shared pages of stored events (JobPages). 'ended' when
   * the result was handed over (or the consumer left), 'missing' when there is no such job, 'more'
   * otherwise.
   */
  private async fromStore(before: number): Promise<'ended' | 'missing' | 'more'> {
    let found = this.cursor.revision > 0;
    try {
      for (;;) {
        const { revision, index } = this.cursor;
        const next = this.lastTaken + 1;
        let stored = this.deps.exists() ? this.deps.pages.event(this.jobId, revision) : undefined;
        // Not read lately, or skipped unopened by a reader further on and needed now: read its page.
        if (stored === undefined || (stored.chunk === undefined && stored.index + stored.count > next)) {
          const page = await this.deps.pages.load({
            jobId: this.jobId,
            revision,
            index,
            reader: this.deps.reader,
            openFrom: next,
          });
          stored = page[0];
          if (stored === undefined) return found ? 'more' : 'missing';
        }
        found = true;
        this.lastPosition = stored.position;
        if (stored.chunk !== undefined) {
          const taken = await this.take(stored.chunk, before);
          if (taken !== 'next') return taken;
        }
        this.cursor = { revision: stored.revision + 1, index: stored.index + stored.count };
      }
    } catch (error) {
      if (error instanceof StreamDeletedError) return 'missing';
      throw error;
    }
  }

  /**
   * Hands over the part of a stored event's chunk this subscriber still needs, before `before`. 'next'
   * when the chunk was taken whole (go on), 'more' when it was cut at `before`, 'ended' after the result.
   */
  private async take(chunk: JobChunk, before: number): Promise<'ended' | 'more' | 'next'> {
    const { from: index, end: chunkEnd } = chunk;
    const end = Math.min(chunkEnd, before);
    const first = Math.max(index, this.lastTaken + 1);
    const result = end === chunkEnd && chunk.messages.at(-1)?.type === 'result';
    if (end > first) {
      await this.pace();
      if (this.closed) return 'ended';
      this.emit(chunk.slice(first, end));
    } else if (result) {
      // Resuming after the last message: nothing more will come.
      this.finish();
    }
    if (result || this.closed) return 'ended';
    return end < chunkEnd ? 'more' : 'next';
  }

  private goLive(): void {
    this.mode = 'live';
    this.behindBytes = 0;
    this.queue = [];
    this.readIndex = 0;
    this.queueBytes = 0;
  }

  /** Back to reading the store: the queue is let go (its chunks are in the store or the job's history). */
  private fallBehind(): void {
    this.mode = 'store';
    this.behindBytes = this.queueBytes;
    this.queue = [];
    this.readIndex = 0;
    this.queueBytes = 0;
    this.lastTaken = this.lastIndex;
    this.completeWhenDrained = false;
    this.storeFeed?.unsubscribe();
    this.storeFeed = undefined;
    if (this.dropWhenStalled()) return;
    // Not from inside the push that overflowed: the job goes on publishing meanwhile (counted).
    setImmediate(() => this.start());
  }

  /** Drops this subscriber when it is too far behind and has taken nothing for a while; true if so. */
  private dropWhenStalled(): boolean {
    const { dropBehindBytes, stalledMs } = this.limits;
    if (this.behindBytes <= dropBehindBytes || performance.now() - this.tookAt < stalledMs) return false;
    this.fail(new JobSubscriberTooSlowError(dropBehindBytes, this.lastIndex));
    return true;
  }

  private enqueue(chunk: JobChunk): void {
    if (this.mode !== 'live' || chunk.end - 1 <= this.lastTaken) return;
    const fresh = chunk.tail(this.lastTaken + 1);
    this.lastTaken = fresh.end - 1;
    this.queue.push(fresh);
    this.queueBytes += fresh.size;
    if (this.queueBytes > this.limits.liveQueueBytes) {
      this.fallBehind();
      return;
    }
    this.schedule();
  }

  /** Hands messages over; completes after the result. */
  private emit(chunk: JobChunk): void {
    if (this.closed || chunk.messages.length === 0) return;
    this.lastIndex = chunk.end - 1;
    this.lastTaken = Math.max(this.lastTaken, this.lastIndex);
    this.behindBytes = Math.max(0, this.behindBytes - chunk.size);
    this.tookAt = performance.now();
    this.subscriber.next(chunk);
    if (chunk.messages.at(-1)?.type === 'result') this.finish();
  }

  private async pace(): Promise<void> {
    const wait = this.limits.ready?.();
    if (wait) await wait;
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    this.stop();
    this.subscriber.error(error);
  }

  private finish(): void {
    if (this.closed) return;
    this.stop();
    this.subscriber.complete();
  }

  private schedule(): void {
    if (this.mode !== 'live' || this.scheduled || this.waiting) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    // Deliver for a bounded slice of time, then yield: others (the job, other subscribers) get their turn.
    const until = performance.now() + DRAIN_SLICE_MS;
    while (this.mode === 'live' && this.readIndex < this.queue.length && !this.closed) {
      if (performance.now() >= until) {
        this.schedule();
        return;
      }
      const wait = this.limits.ready?.();
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
      this.queueBytes -= chunk.size;
      this.emit(chunk);
    }
    if (this.mode !== 'live' || this.closed) return;
    this.queue = [];
    this.readIndex = 0;
    if (this.completeWhenDrained) this.finish();
  }
}

const EMPTY_CHUNK = new JobChunk(0, []);
