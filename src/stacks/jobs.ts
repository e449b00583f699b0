import { randomUUID } from 'node:crypto';
import { Observable, type Subscriber } from 'rxjs';
import {
  type JobInfo,
  type JobResult,
  type JobsState,
  jobsFinishedBefore,
  messagesOf,
  type OpenText,
  runningJobs,
} from '../../projections/jobs.js';
import {
  type ComposeGroup,
  type EnvironmentId,
  type JobKind,
  type JobMessage,
  jobKeyScope,
  jobOutputScope,
  jobStream,
  type KeyScope,
  type NewStacksEvent,
  type StacksEventMap,
  stacksEvent,
} from '../../streams/stacks.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../store/errors.js';
import type { EventStore, RecordedEvent } from '../store/types.js';
import { StacksError } from './errors.js';
import type { Instance } from './instances.js';
import { OutputKeys, type Sealer } from './output-keys.js';

/** A projection the stacks parts read and wait on; `ProjectionRunner` is one. */
export interface ReadModel<State> {
  readonly state: State;
  /** Resolves once every event up to `position` has been applied. */
  waitFor(position: number): Promise<void>;
}

/** A message with its place among the job's messages (from 0): the SSE event id. */
export interface IndexedMessage {
  index: number;
  message: JobMessage;
}

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
  constructor(from: number, messages: readonly JobMessage[]) {
    this.from = from;
    this.messages = messages;
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

/** `GET /api/jobs/{id}` (STACKS.md). */
export interface JobPoll {
  id: string;
  status: 'running' | 'done';
  messages: JobMessage[];
  result: JobResult | null;
}

export interface JobStart {
  /** Chosen by the caller when a run must name the job before it starts; a new UUID otherwise. */
  id?: string;
  kind: JobKind;
  stack: string;
  environmentId: EnvironmentId;
  userId: string | null;
  runId: number | null;
}

export interface JobOutcome {
  success: boolean;
  error?: string;
  exitCode?: number;
}

export interface JobBookOptions {
  /** Finished job streams older than this are deleted by `sweep`. */
  retentionHours: number;
  /** This process among the instances on the log: recorded with each job, asked before closing one. */
  instance: Instance;
  /** Buffered messages are appended at the latest this long after the first of them arrived (ms). */
  flushIntervalMs?: number;
  /** A buffer holding this many lines is appended without waiting for the interval. */
  batchLines?: number;
  /**
   * Messages a subscriber may have waiting before it is dropped as too slow. Waiting chunks are shared
   * by all subscribers, so a large bound costs memory once per job, not per subscriber.
   */
  subscriberBufferSize?: number;
  /** Lines of the result's `output` block (the tail of the job's output). */
  outputLines?: number;
  /** The output keys (shared with the run book); a book of its own by default. */
  keys?: OutputKeys;
}

export interface MessagesOptions {
  /** Overrides the book's subscriberBufferSize for this subscriber. */
  bufferSize?: number;
  /**
   * Back-pressure from the consumer (an SSE response whose socket is full, say): called before each
   * chunk is delivered; a returned promise holds delivery until it settles. Meanwhile live messages
   * wait in the subscriber's bounded buffer; catch-up reads from the store simply pause.
   */
  ready?: () => Promise<void> | undefined;
}

/** A subscriber whose buffer of waiting messages filled up; resume with `messages(id, lastIndex + 1)`. */
export class JobSubscriberTooSlowError extends Error {
  readonly lastIndex: number;
  constructor(bufferSize: number, lastIndex: number) {
    super(
      `job subscriber dropped: more than ${bufferSize} messages waited for it; resume from index ${lastIndex + 1}`,
    );
    this.name = 'JobSubscriberTooSlowError';
    this.lastIndex = lastIndex;
  }
}

/** The job's output could not be appended to its stream: later messages were not recorded. */
export class JobRecordingError extends Error {
  readonly jobId: string;
  constructor(jobId: string, cause: unknown) {
    super(`job ${jobId}: its output could not be recorded: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = 'JobRecordingError';
    this.jobId = jobId;
  }
}

/** The result of a job whose server stopped before it finished. */
export const INTERRUPTED_JOB_MESSAGE = 'The server stopped before this job finished';

/** Stored events kept as shared chunks (each up to a flush batch of lines): a few hundred thousand lines. */
const STORED_CHUNKS = 512;

/** Longest stretch one subscriber's delivery runs before yielding to the event loop (ms). */
const DRAIN_SLICE_MS = 4;
/** Characters of lines per JobOutput event: far below the store's 4 MiB event limit even when escaped. */
const MAX_OUTPUT_EVENT_CHARS = 256 * 1024;

const notFound = () => new StacksError(404, 'Job not found');

/**
 * One subscriber's delivery: chunks wait in a queue bounded by the messages they hold, drained on later
 * turns of the event loop, so whoever pushes (the job, or the store's live feed) never waits for the
 * consumer. Pushing a chunk costs the same whatever its size.
 */
class Delivery {
  private queue: JobChunk[] = [];
  private readIndex = 0;
  /** Messages in the queue not handed over yet. */
  private waitingMessages = 0;
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
    private readonly bufferSize: number,
    private readonly ready: MessagesOptions['ready'],
    fromIndex: number,
  ) {
    this.lastIndex = fromIndex - 1;
    this.lastTaken = fromIndex - 1;
  }

  get closed(): boolean {
    return this.done || this.subscriber.closed;
  }

  /** Queues live messages (those not taken yet); drops the subscriber when too many wait. */
  push(chunk: JobChunk): void {
    if (this.closed || chunk.end - 1 <= this.lastTaken) return;
    const fresh = chunk.tail(this.lastTaken + 1);
    this.lastTaken = fresh.end - 1;
    this.queue.push(fresh);
    this.waitingMessages += fresh.messages.length;
    if (this.waitingMessages > this.bufferSize) {
      this.fail(new JobSubscriberTooSlowError(this.bufferSize, this.lastIndex));
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
      const chunk = this.queue[this.readIndex++] as JobChunk;
      this.waitingMessages -= chunk.messages.length;
      this.emit(chunk);
    }
    if (this.closed) return;
    this.queue = [];
    this.readIndex = 0;
    if (this.completeWhenDrained) this.finish();
  }
}

/** A job running in this process: what it printed and how it ended, recorded in `stack-job-<id>`. */
export class Job {
  readonly id: string;
  readonly kind: JobKind;
  readonly stack: string;
  readonly environmentId: EnvironmentId;
  readonly runId: number | null;
  private readonly book: JobBook;
  private readonly options: Required<Omit<JobBookOptions, 'retentionHours' | 'instance' | 'keys'>>;
  /** Seals every text the job records with its key (its run's, or its own). */
  private readonly sealer: Sealer;
  /** Messages accepted so far; the next message's index. */
  private count = 0;
  /** Messages the store holds (all before the in-flight and buffered ones). */
  private committed = 0;
  private inFlight: JobMessage[] = [];
  private buffer: JobMessage[] = [];
  /** Events that stand for no message (JobComposeStarted), appended with the next flush. */
  private bufferedEvents: NewStacksEvent[] = [];
  private bufferedLines = 0;
  private appending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushAfterAppend = false;
  private tail: string[] = [];
  private ended = false;
  private failure: JobRecordingError | undefined;
  private readonly sinks = new Set<Delivery>();
  /** Accepted messages not yet handed to the sinks: they leave together, once per turn of the event loop. */
  private unpublished: JobMessage[] = [];
  private unpublishedFrom = 0;
  /**
   * The latest published chunks (about subscriberBufferSize messages, all of them recorded before they
   * are let go): a subscriber catching up on a running job reads these shared chunks, not the store, so
   * 50 clients joining late cost one framing of each chunk, not 50.
   */
  private history: JobChunk[] = [];
  private historyHead = 0;
  private historyMessages = 0;
  private revision: number;
  private done: Promise<JobResult> | undefined;

  constructor(
    book: JobBook,
    input: Required<JobStart>,
    options: Job['options'],
    revision: number,
    sealer: Sealer,
  ) {
    this.book = book;
    this.sealer = sealer;
    this.id = input.id;
    this.kind = input.kind;
    this.stack = input.stack;
    this.environmentId = input.environmentId;
    this.runId = input.runId;
    this.options = options;
    this.revision = revision;
  }

  /** Messages so far (lines, statuses, the result). */
  get messageCount(): number {
    return this.count;
  }

  get finished(): boolean {
    return this.ended;
  }

  /** Set when an append failed: later messages were not recorded, and `finish` rejects with it. */
  get error(): JobRecordingError | undefined {
    return this.failure;
  }

  /** An output line, already redacted. */
  line(text: string): void {
    this.accept({ type: 'line', line: text });
    this.tail.push(text);
    if (this.tail.length >= this.options.outputLines * 2)
      this.tail = this.tail.slice(-this.options.outputLines);
  }

  /** A progress status (spec, Events: `{status}`). */
  status(status: string): void {
    this.accept({ type: 'status', status });
  }

  /**
   * Records the process group compose runs in (JobComposeStarted), at once, in order with the messages:
   * a restart after a crash stops a group left running before the stack is free again.
   */
  composeStarted(group: ComposeGroup): void {
    if (this.ended || this.failure) return;
    this.bufferedEvents.push(stacksEvent('JobComposeStarted', { job_id: this.id, group: { ...group } }));
    if (this.appending) this.flushAfterAppend = true;
    else this.flush();
  }

  /**
   * Ends the job: appends what is buffered, then JobFinished with the last lines as `output`. Nothing
   * may follow it. Resolves with the result message once it is recorded.
   */
  finish(outcome: JobOutcome): Promise<JobResult> {
    if (this.done) return this.done;
    const result: JobResult = {
      type: 'result',
      success: outcome.success,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
      output: this.tail.slice(-this.options.outputLines),
    };
    this.accept(result);
    this.publish();
    this.ended = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.done = this.settle().then(() => {
      if (this.failure) throw this.failure;
      return result;
    });
    return this.done;
  }

  /** The messages the store does not hold yet, and the index of the first of them. */
  uncommitted(): { from: number; messages: JobMessage[] } {
    return { from: this.committed, messages: [...this.inFlight, ...this.buffer] };
  }

  /**
   * Starts live delivery to `sink` of every chunk published from now on (messages accepted but not
   * published yet included), and returns the published chunks kept in memory, from `historyFrom` on
   * (earlier messages are in the store).
   */
  attach(sink: Delivery): { detach: () => void; historyFrom: number; history: JobChunk[] } {
    this.sinks.add(sink);
    const history = this.history.slice(this.historyHead);
    return {
      detach: () => this.sinks.delete(sink),
      historyFrom: history[0]?.from ?? this.unpublishedFrom,
      history,
    };
  }

  private accept(message: JobMessage): void {
    if (this.ended) throw new Error(`job ${this.id} has finished: nothing may follow its result`);
    if (this.unpublished.length === 0) {
      this.unpublishedFrom = this.count;
      setImmediate(this.publish);
    }
    this.unpublished.push(message);
    this.count += 1;
    if (this.failure) return;
    this.buffer.push(message);
    if (message.type === 'line') this.bufferedLines += 1;
    if (message.type === 'result') return;
    if (this.bufferedLines >= this.options.batchLines) {
      if (this.appending) this.flushAfterAppend = true;
      else this.flush();
    } else if (!this.timer && !this.appending) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.appending) this.flushAfterAppend = true;
        else this.flush();
      }, this.options.flushIntervalMs);
    }
  }

  /** Hands the messages accepted since the last time to every sink, as one shared chunk. */
  private readonly publish = (): void => {
    if (this.unpublished.length === 0) return;
    const chunk = new JobChunk(this.unpublishedFrom, this.unpublished);
    this.unpublished = [];
    this.unpublishedFrom = chunk.end;
    for (const sink of this.sinks) sink.push(chunk);
    this.history.push(chunk);
    this.historyMessages += chunk.messages.length;
    this.trimHistory();
  };

  /** Lets go of the oldest chunks beyond the bound, only those the store holds (catch-up reads them there). */
  private trimHistory(): void {
    const keep = this.options.subscriberBufferSize;
    for (;;) {
      const oldest = this.history[this.historyHead];
      if (!oldest || this.historyMessages - oldest.messages.length < keep || oldest.end > this.committed)
        break;
      this.historyMessages -= oldest.messages.length;
      this.historyHead += 1;
    }
    if (this.historyHead > 1_024 && this.historyHead * 2 > this.history.length) {
      this.history = this.history.slice(this.historyHead);
      this.historyHead = 0;
    }
  }

  /** Appends the buffer (at most one append in flight; the next one waits for it). */
  private flush(): void {
    if ((this.buffer.length === 0 && this.bufferedEvents.length === 0) || this.appending || this.failure)
      return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight = this.buffer;
    this.buffer = [];
    this.bufferedLines = 0;
    const events = [...toEvents(this.id, this.inFlight, this.sealer), ...this.bufferedEvents];
    this.bufferedEvents = [];
    this.appending = this.book.store
      .append(jobStream(this.id), events, { expectedRevision: this.revision })
      .then(
        (appended) => {
          this.revision = appended.nextRevision - 1;
          this.committed += this.inFlight.length;
          this.inFlight = [];
          this.trimHistory();
        },
        (error: unknown) => {
          // Nothing more can be recorded in order after a failed append: keep the job honest about it.
          this.failure = new JobRecordingError(this.id, error);
          this.buffer = [];
          this.bufferedLines = 0;
        },
      )
      .finally(() => {
        this.appending = undefined;
        if (this.failure) return;
        if (this.ended || this.flushAfterAppend || this.bufferedLines >= this.options.batchLines) {
          this.flushAfterAppend = false;
          this.flush();
        } else if (this.buffer.length > 0 && !this.timer) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.flush();
          }, this.options.flushIntervalMs);
        }
      });
  }

  /**
   * After a failed append, one try to end the stream with a failed result, so a poll does not show the
   * job running for good when the failure passed (a stream deleted under the job, or a store still
   * broken, refuse it: nothing more can be done, and `finish` reports the failure).
   */
  private async recordFailure(): Promise<void> {
    const output = this.tail.slice(-this.options.outputLines);
    const result: JobResult = {
      type: 'result',
      success: false,
      ...(this.failure ? { error: this.failure.message } : {}),
      output,
    };
    try {
      await this.book.store.append(jobStream(this.id), toEvents(this.id, [result], this.sealer));
    } catch {
      // See above: the failure already on record is the one `finish` reports.
    }
  }

  /** Resolves when everything accepted is recorded (or recording failed). */
  private async settle(): Promise<void> {
    for (;;) {
      if (this.appending) {
        await this.appending;
        continue;
      }
      if ((this.buffer.length > 0 || this.bufferedEvents.length > 0) && !this.failure) {
        this.flush();
        continue;
      }
      break;
    }
    if (this.failure) await this.recordFailure();
    this.book.forget(this);
    for (const sink of this.sinks) sink.completeAfterQueue();
  }
}

/**
 * Consecutive lines become one JobOutput (bounded in lines and size); each status and the result its own
 * event. With a sealer (every job since sealing) the `…Sealed` events, their texts sealed; without one
 * (a job of an older log being closed) the clear-text ones.
 */
function toEvents(
  jobId: string,
  messages: readonly JobMessage[],
  sealer: Sealer | undefined,
): NewStacksEvent[] {
  const events: NewStacksEvent[] = [];
  let lines: string[] = [];
  let chars = 0;
  const flushLines = () => {
    if (lines.length > 0)
      events.push(
        sealer
          ? stacksEvent('JobOutputSealed', {
              job_id: jobId,
              count: lines.length,
              sealed: sealer.seal(JSON.stringify(lines)),
            })
          : stacksEvent('JobOutput', { job_id: jobId, lines }),
      );
    lines = [];
    chars = 0;
  };
  for (const message of messages) {
    if (message.type === 'line') {
      if (lines.length > 0 && chars + message.line.length > MAX_OUTPUT_EVENT_CHARS) flushLines();
      lines.push(message.line);
      chars += message.line.length;
      continue;
    }
    flushLines();
    if (message.type === 'status')
      events.push(
        sealer
          ? stacksEvent('JobStatusSealed', { job_id: jobId, sealed: sealer.seal(message.status) })
          : stacksEvent('JobStatusReported', { job_id: jobId, status: message.status }),
      );
    else if (sealer)
      events.push(
        stacksEvent('JobFinishedSealed', {
          job_id: jobId,
          success: message.success,
          ...(message.exitCode !== undefined ? { exitCode: message.exitCode } : {}),
          sealed: sealer.seal(
            JSON.stringify({
              ...(message.error !== undefined ? { error: message.error } : {}),
              output: message.output,
            }),
          ),
        }),
      );
    else
      events.push(
        stacksEvent('JobFinished', {
          job_id: jobId,
          success: message.success,
          ...(message.error !== undefined ? { error: message.error } : {}),
          ...(message.exitCode !== undefined ? { exitCode: message.exitCode } : {}),
          output: message.output,
        }),
      );
  }
  flushLines();
  return events;
}

/**
 * Reads a job's stored events as messages, opening the sealed ones: its first event, JobStarted, names
 * the key's scope (the job's run, or the job), whose key is then read once.
 */
class JobReader {
  private open: OpenText | undefined;
  /** The scope of the job's key, once JobStarted was read. */
  scope: KeyScope | undefined;
  constructor(private readonly keys: OutputKeys) {}

  async messages(event: RecordedEvent): Promise<JobMessage[]> {
    if (event.type === 'JobStarted') {
      const started = event.data as StacksEventMap['JobStarted'];
      this.scope = jobOutputScope(started.job_id, started.run_id);
      this.open = (await this.keys.opener(this.scope)).open;
    }
    return messagesOf(event, this.open);
  }

  /** An event after JobStarted was read (the store's live feed of a job). */
  later(event: RecordedEvent): JobMessage[] {
    return messagesOf(event, this.open);
  }
}

/**
 * Jobs of the stacks service over the event store: starts them, replays and streams their messages,
 * answers polls, closes the ones a stopped server left running, and deletes old ones.
 */
export class JobBook {
  readonly store: EventStore;
  /** The keys job output is sealed with. */
  readonly keys: OutputKeys;
  private readonly model: ReadModel<JobsState>;
  private readonly options: Required<Omit<JobBookOptions, 'keys'>>;
  private readonly live = new Map<string, Job>();
  /**
   * Whole stored events as chunks, by stream and revision, most recent last: subscribers catching up
   * over the same events (50 clients joining one deploy) then get the same chunk objects, so the SSE
   * route frames and encodes each once for all of them. Stored events never change, so an entry never
   * goes stale; a deleted stream is refused by the store before the cache is reached.
   */
  private readonly storedChunks = new Map<string, JobChunk>();

  constructor(store: EventStore, model: ReadModel<JobsState>, options: JobBookOptions) {
    this.store = store;
    this.model = model;
    const { keys, ...rest } = options;
    this.keys = keys ?? new OutputKeys(store);
    this.options = {
      flushIntervalMs: 10,
      batchLines: 1_000,
      subscriberBufferSize: 262_144,
      outputLines: 200,
      ...rest,
    };
  }

  /**
   * Records JobStarted (after its key: its run's, made when the run started, or its own); the job is in
   * the read model when this resolves.
   */
  async start(input: JobStart): Promise<Job> {
    const full: Required<JobStart> = { ...input, id: input.id ?? randomUUID() };
    const sealer = await this.keys.ensure(jobOutputScope(full.id, full.runId));
    const appended = await this.store.append(
      jobStream(full.id),
      [
        stacksEvent('JobStarted', {
          job_id: full.id,
          kind: full.kind,
          stack: full.stack,
          environment_id: full.environmentId,
          user_id: full.userId,
          run_id: full.runId,
        }),
      ].map((event) => ({ ...event, metadata: { instanceId: this.options.instance.id } })),
      { expectedRevision: 'no_stream' },
    );
    const { retentionHours: _, instance: __, ...jobOptions } = this.options;
    const job = new Job(this, full, jobOptions, appended.nextRevision - 1, sealer);
    this.live.set(job.id, job);
    await this.model.waitFor(appended.position);
    return job;
  }

  /** The job if it runs in this process. */
  running(jobId: string): Job | undefined {
    return this.live.get(jobId);
  }

  /** What the read model knows of a job (kind, stack, environment...), or undefined. */
  info(jobId: string): JobInfo | undefined {
    return this.model.state.jobs.get(jobId);
  }

  /**
   * `info`, but a job the read model does not know yet is looked for again once the model has caught up
   * with the log's head: with several instances on one log, a client may ask this one about a job another
   * instance started a moment ago.
   */
  async infoNow(jobId: string): Promise<JobInfo | undefined> {
    const known = this.info(jobId);
    if (known !== undefined) return known;
    await this.model.waitFor(await this.store.headPosition());
    return this.info(jobId);
  }

  /** @internal Called by a job when its last append is done. */
  forget(job: Job): void {
    if (this.live.get(job.id) === job) this.live.delete(job.id);
  }

  /** CONTRACT's job poll, or undefined when there is no such job (never was, or deleted). */
  async poll(jobId: string): Promise<JobPoll | undefined> {
    const local = this.live.get(jobId);
    // Taken before reading, so the store read and the in-memory part meet without gap or overlap.
    const pending = local?.uncommitted();
    const messages: JobMessage[] = [];
    const reader = new JobReader(this.keys);
    let found = false;
    try {
      for await (const event of this.store.readStream(jobStream(jobId))) {
        found = true;
        for (const message of await reader.messages(event)) {
          if (pending && messages.length >= pending.from) break;
          messages.push(message);
        }
      }
    } catch (error) {
      if (error instanceof StreamDeletedError) return undefined;
      throw error;
    }
    if (!found) return undefined;
    if (pending) messages.push(...pending.messages);
    const last = messages.at(-1);
    const result = last?.type === 'result' ? last : null;
    return { id: jobId, status: result ? 'done' : 'running', messages, result };
  }

  /**
   * The job's messages from `fromIndex` on: caught up from its stream, then live until the result, then
   * complete. Errors with 404 StacksError for an unknown job, and with JobSubscriberTooSlowError when
   * the subscriber lags more than its buffer (resume from `lastIndex + 1`).
   */
  messages(jobId: string, fromIndex = 0, options: MessagesOptions = {}): Observable<IndexedMessage> {
    return new Observable<IndexedMessage>((subscriber) =>
      this.chunks(jobId, fromIndex, options).subscribe({
        next: (chunk) => {
          chunk.messages.forEach((message, i) => {
            subscriber.next({ index: chunk.from + i, message });
          });
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
  }

  /**
   * `messages` in chunks of consecutive messages (a live chunk is one object for all subscribers), from
   * `fromIndex` on; the first chunk of a resumed subscriber may be the tail of a live one.
   */
  chunks(jobId: string, fromIndex = 0, options: MessagesOptions = {}): Observable<JobChunk> {
    return new Observable<JobChunk>((subscriber) => {
      const delivery = new Delivery(
        subscriber,
        options.bufferSize ?? this.options.subscriberBufferSize,
        options.ready,
        fromIndex,
      );
      const local = this.live.get(jobId);
      let detach: (() => void) | undefined;
      let storeFeed: { unsubscribe(): void } | undefined;
      if (local) {
        // Attach and snapshot in one synchronous step: the live feed starts right after the snapshot.
        const feed = local.attach(delivery);
        detach = feed.detach;
        const fromMemory = async () => {
          for (const chunk of feed.history) {
            if (chunk.end <= fromIndex) continue;
            await delivery.pace();
            if (delivery.closed) return;
            delivery.emit(chunk.tail(fromIndex));
          }
          delivery.markStarted();
        };
        const stored =
          fromIndex >= feed.historyFrom
            ? Promise.resolve({ found: true, sawResult: false })
            : this.catchUp(jobId, delivery, fromIndex, feed.historyFrom, new JobReader(this.keys));
        stored
          .then((end) => {
            if (end.sawResult) return;
            if (!end.found) delivery.fail(notFound());
            else return fromMemory();
          })
          .catch((error: unknown) => delivery.fail(error));
      } else {
        const reader = new JobReader(this.keys);
        this.catchUp(jobId, delivery, fromIndex, Number.POSITIVE_INFINITY, reader)
          .then((end) => {
            if (end.sawResult || delivery.closed) return;
            if (!end.found) {
              delivery.fail(notFound());
              return;
            }
            // Still running, in no process of ours (or closing): follow its stream in the store.
            delivery.markStarted();
            let index = end.nextIndex;
            storeFeed = this.store
              .subscribe({ stream: jobStream(jobId), from: end.lastPosition + 1 })
              .subscribe({
                next: (event: RecordedEvent) => {
                  let messages: JobMessage[];
                  try {
                    messages = reader.later(event);
                  } catch (error) {
                    delivery.fail(error);
                    return;
                  }
                  delivery.push(new JobChunk(index, messages).tail(fromIndex));
                  index += messages.length;
                  if (messages.at(-1)?.type === 'result') delivery.completeAfterQueue();
                },
                error: (error: unknown) => delivery.fail(error),
              });
            if (delivery.closed) storeFeed.unsubscribe();
          })
          .catch((error: unknown) => delivery.fail(error));
      }
      return () => {
        detach?.();
        storeFeed?.unsubscribe();
      };
    });
  }

  /** Emits the stored messages with fromIndex <= index < before, pulling at the consumer's pace. */
  /** The chunk of one whole stored event, shared by every subscriber that catches up over it. */
  private storedChunk(event: RecordedEvent, from: number, messages: JobMessage[]): JobChunk {
    const key = `${event.stream}@${event.revision}`;
    let chunk = this.storedChunks.get(key);
    if (chunk === undefined) {
      chunk = new JobChunk(from, messages);
      this.storedChunks.set(key, chunk);
      if (this.storedChunks.size > STORED_CHUNKS) {
        const oldest = this.storedChunks.keys().next().value;
        if (oldest !== undefined) this.storedChunks.delete(oldest);
      }
    }
    return chunk;
  }

  private async catchUp(
    jobId: string,
    delivery: Delivery,
    fromIndex: number,
    before: number,
    reader: JobReader,
  ): Promise<{ found: boolean; sawResult: boolean; nextIndex: number; lastPosition: number }> {
    let index = 0;
    let found = false;
    let lastPosition = 0;
    try {
      for await (const event of this.store.readStream(jobStream(jobId))) {
        found = true;
        lastPosition = event.position;
        const messages = await reader.messages(event);
        // One stored event (up to a flush batch of lines) is one chunk, cut to [fromIndex, before).
        const end = Math.min(index + messages.length, before);
        const sawResult = end === index + messages.length && messages.at(-1)?.type === 'result';
        const first = Math.max(index, fromIndex);
        if (end > first) {
          await delivery.pace();
          if (delivery.closed) return { found, sawResult: true, nextIndex: index, lastPosition };
          const whole = first === index && end === index + messages.length;
          delivery.emit(
            whole
              ? this.storedChunk(event, first, messages)
              : new JobChunk(first, messages.slice(first - index, end - index)),
          );
        } else if (sawResult) {
          // Resuming after the last message: nothing more will come.
          delivery.finish();
        }
        if (sawResult) return { found, sawResult: true, nextIndex: end, lastPosition };
        if (end < index + messages.length) return { found, sawResult: false, nextIndex: end, lastPosition };
        index = end;
      }
    } catch (error) {
      if (error instanceof StreamDeletedError)
        return { found: false, sawResult: false, nextIndex: 0, lastPosition };
      throw error;
    }
    return { found, sawResult: false, nextIndex: index, lastPosition };
  }

  /**
   * Closes the jobs a stopped server left running (no process of ours runs them), except those in
   * `hold` (their compose may still run: see leftovers.ts): each gets a failed result, so polls and
   * event streams end. Returns their ids.
   */
  async closeInterruptedJobs(
    message = INTERRUPTED_JOB_MESSAGE,
    hold: ReadonlySet<string> = new Set(),
  ): Promise<string[]> {
    const closed: string[] = [];
    for (const info of runningJobs(this.model.state)) {
      if (this.live.has(info.id) || hold.has(info.id)) continue;
      if (await this.options.instance.isAlive(info.instanceId)) continue;
      if (await this.closeInterruptedJob(info.id, message)) closed.push(info.id);
    }
    return closed;
  }

  /**
   * Gives one job of an instance that is gone a failed result with `message`; false when it had ended
   * (or was deleted) meanwhile. The caller checked that its instance is gone.
   */
  async closeInterruptedJob(jobId: string, message = INTERRUPTED_JOB_MESSAGE): Promise<boolean> {
    let revision: number | undefined;
    try {
      revision = await this.store.streamRevision(jobStream(jobId));
    } catch (error) {
      if (error instanceof StreamDeletedError) return false;
      throw error;
    }
    if (revision === undefined) return false;
    const tail = await this.tailOf(jobId);
    if (tail.finished) return false;
    // Sealed like the job's own events; a job of an older log (no key) is closed in clear like them.
    const sealer = tail.scope === undefined ? undefined : await this.keys.sealer(tail.scope);
    let appended: { position: number };
    try {
      appended = await this.store.append(
        jobStream(jobId),
        toEvents(jobId, [{ type: 'result', success: false, error: message, output: tail.lines }], sealer),
        { expectedRevision: revision },
      );
    } catch (error) {
      // Something was recorded for the job meanwhile (its end, or its stream deleted): the next look
      // decides again.
      if (error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError) return false;
      throw error;
    }
    await this.model.waitFor(appended.position);
    return true;
  }

  private async tailOf(
    jobId: string,
  ): Promise<{ finished: boolean; lines: string[]; scope: KeyScope | undefined }> {
    let lines: string[] = [];
    let finished = false;
    const reader = new JobReader(this.keys);
    for await (const event of this.store.readStream(jobStream(jobId))) {
      for (const message of await reader.messages(event)) {
        if (message.type === 'line') lines.push(message.line);
        if (message.type === 'result') finished = true;
      }
      if (lines.length > this.options.outputLines * 2) lines = lines.slice(-this.options.outputLines);
    }
    return { finished, lines: lines.slice(-this.options.outputLines), scope: reader.scope };
  }

  /**
   * Deletes the job's stream (its output goes with it) and, for a job without a run, its key (a run's
   * key goes with the run); a job already gone is fine.
   */
  async delete(jobId: string, runId: number | null): Promise<void> {
    try {
      await this.store.deleteStream(jobStream(jobId));
    } catch (error) {
      if (!(error instanceof StreamDeletedError)) throw error;
    }
    if (runId === null) await this.keys.shred(jobKeyScope(jobId));
  }

  /** Deletes finished jobs whose result is older than the retention; returns their ids. */
  async sweep(now: Date = new Date()): Promise<string[]> {
    const cutoff = new Date(now.getTime() - this.options.retentionHours * 3_600_000).toISOString();
    const swept: string[] = [];
    for (const info of jobsFinishedBefore(this.model.state, cutoff)) {
      if (this.live.has(info.id)) continue;
      await this.delete(info.id, info.runId);
      swept.push(info.id);
    }
    return swept;
  }
}
