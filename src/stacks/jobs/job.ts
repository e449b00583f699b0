import type { JobResult } from '../../../projections/jobs.js';
import {
  type ComposeGroup,
  type EnvironmentId,
  type JobKind,
  type JobMessage,
  jobStream,
  type NewStacksEvent,
  stacksEvent,
} from '../../../streams/stacks.js';
import { StoreFailedError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import type { Sealer } from '../output/keys.js';
import { untilRecorded } from '../runs/until-recorded.js';
import { JobChunk, messageSize } from './delivery.js';
import { toEvents } from './events.js';
import type { JobSink, LiveJob } from './subscription.js';

/** What starts a job. */
export interface JobStart {
  /** Chosen by the caller when a run must name the job before it starts; a new UUID otherwise. */
  id?: string;
  kind: JobKind;
  stack: string;
  environmentId: EnvironmentId;
  userId: string | null;
  runId: number | null;
  /** It waits for a compose slot (jobs/queue.ts): JobQueued is appended with JobStarted. */
  queued?: { ahead: number; limit: number };
}

export interface JobOutcome {
  success: boolean;
  error?: string;
  exitCode?: number;
}

/** How a running job records and keeps its messages (JobBookOptions, with its defaults). */
interface JobLimits {
  /** Buffered messages are appended at the latest this long after the first of them arrived (ms). */
  flushIntervalMs: number;
  /** A buffer holding this many lines is appended without waiting for the interval. */
  batchLines: number;
  /** Bytes of the latest messages kept in memory for subscribers that join while it runs. */
  historyBytes: number;
  /** Lines of the result's `output` block (the tail of the job's output)... */
  outputLines: number;
  /** ...and at most this many bytes of them (at least the last line). */
  outputBytes: number;
}

/** The result's `output` block by default: its last lines, within its bytes (at least the last line). */
export const OUTPUT_TAIL = { lines: 200, bytes: 128 * 1024 } as const;

/**
 * Where the tail of `lines` within `limits` starts, and the bytes (UTF-16 units) it holds; `bytes` is
 * what all of `lines` holds, kept by the caller as lines come. Pure.
 */
function tailStart(
  lines: readonly string[],
  bytes: number,
  limits: { lines: number; bytes: number },
): { from: number; bytes: number } {
  let from = Math.max(0, lines.length - limits.lines);
  let kept = bytes;
  for (let i = 0; i < from; i++) kept -= (lines[i] as string).length;
  while (from < lines.length - 1 && kept > limits.bytes) {
    kept -= (lines[from] as string).length;
    from += 1;
  }
  return { from, bytes: kept };
}

/** The last lines of `lines` within `limits` (the last line at least), as a job's result keeps them. */
export function tailWithin(
  lines: readonly string[],
  limits: { lines: number; bytes: number } = OUTPUT_TAIL,
): string[] {
  const bytes = lines.reduce((sum, line) => sum + line.length, 0);
  return lines.slice(tailStart(lines, bytes, limits).from);
}

/** What a running job needs of its book. */
interface JobHome {
  readonly store: EventStore;
  /** Called once the job's last append is done. */
  forget(job: Job): void;
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

/**
 * A job running in this process: what it printed and how it ended, recorded in `stack-job-<id>`.
 * What it keeps in memory is bounded in bytes: the messages not recorded yet (`backlogBytes`, which its
 * producer holds back on), the latest `historyBytes` of published messages, and the result's tail.
 */
export class Job implements LiveJob {
  readonly id: string;
  readonly kind: JobKind;
  readonly stack: string;
  readonly environmentId: EnvironmentId;
  readonly runId: number | null;
  /** When it started (about its JobStarted): what a stack's Activity says of it. */
  readonly startedAt = new Date().toISOString();
  private readonly home: JobHome;
  private readonly limits: JobLimits;
  /** Seals every text the job records with its key (its run's, or its own). */
  private readonly sealer: Sealer;
  /** Messages accepted so far; the next message's index. */
  private count = 0;
  /** Messages the store holds (all before the in-flight and buffered ones). */
  private committed = 0;
  private inFlight: JobMessage[] = [];
  private inFlightBytes = 0;
  private buffer: JobMessage[] = [];
  private bufferBytes = 0;
  /** Events that stand for no message (JobComposeStarted, JobDequeued), appended with the next flush. */
  private bufferedEvents: NewStacksEvent[] = [];
  private bufferedLines = 0;
  private appending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushAfterAppend = false;
  /** The latest lines (for the result's output), within outputLines and outputBytes. */
  private tail: string[] = [];
  private tailBytes = 0;
  /** Output lines so far. */
  private lines = 0;
  private ended = false;
  /** Set once the log budget stopped the job's lines (see `budgetReached`). */
  private cut = false;
  private failure: JobRecordingError | undefined;
  private readonly sinks = new Set<JobSink>();
  /** Accepted messages not yet handed to the sinks: they leave together, once per turn of the event loop. */
  private unpublished: JobMessage[] = [];
  private unpublishedFrom = 0;
  /**
   * The latest published chunks (about historyBytes, and every one not recorded yet): a subscriber
   * catching up on a running job reads these shared chunks, not the store, so 50 clients joining late
   * cost one framing of each chunk, not 50.
   */
  private history: JobChunk[] = [];
  private historyHead = 0;
  private historyBytes = 0;
  /** When a subscriber last looked at the kept chunks (snapshot): a finished job keeps them while they do. */
  private lookedAt = 0;
  private revision: number;
  private done: Promise<JobResult> | undefined;
  /**
   * The failed result of a job whose end the store would not take (failed until a restart): kept here,
   * so a poll of this process answers it rather than `running` for good.
   */
  private unrecordedEnd: JobResult | undefined;

  constructor(
    home: JobHome,
    input: JobStart & { id: string },
    limits: JobLimits,
    revision: number,
    sealer: Sealer,
  ) {
    this.home = home;
    this.sealer = sealer;
    this.id = input.id;
    this.kind = input.kind;
    this.stack = input.stack;
    this.environmentId = input.environmentId;
    this.runId = input.runId;
    this.limits = limits;
    this.revision = revision;
  }

  /** Output lines so far. */
  get lineCount(): number {
    return this.lines;
  }

  /** Messages so far (lines, statuses, the result). */
  get messageCount(): number {
    return this.count;
  }

  get finished(): boolean {
    return this.ended;
  }

  /** Bytes of messages accepted but not recorded yet: what a producer lets drain before it gives more. */
  get backlogBytes(): number {
    return this.bufferBytes + this.inFlightBytes;
  }

  /** Set when an append failed: later messages were not recorded, and `finish` rejects with it. */
  get error(): JobRecordingError | undefined {
    return this.failure;
  }

  /** An output line, already redacted. */
  line(text: string): void {
    this.accept({ type: 'line', line: text });
    this.lines += 1;
    this.tail.push(text);
    this.tailBytes += text.length;
    if (this.tail.length >= this.limits.outputLines * 2 || this.tailBytes > this.limits.outputBytes * 2)
      this.trimTail();
  }

  /**
   * The run's log budget was reached: the job takes no more lines either, and says so once,
   * with `notice` as a status. Later calls change nothing.
   */
  budgetReached(notice: string): void {
    if (this.cut) return;
    this.cut = true;
    this.status(notice);
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

  /** The job holds a compose slot now (JobDequeued), recorded at once, in order with the messages. */
  dequeued(): void {
    if (this.ended || this.failure) return;
    this.bufferedEvents.push(stacksEvent('JobDequeued', { job_id: this.id }));
    if (this.appending) this.flushAfterAppend = true;
    else this.flush();
  }

  /**
   * Records that `userId` asked to cancel the job (JobCancelRequested), at once, in order with the
   * messages; the caller stops its compose.
   */
  cancelRequested(userId: string | null): void {
    if (this.ended || this.failure) return;
    this.bufferedEvents.push(stacksEvent('JobCancelRequested', { job_id: this.id, user_id: userId }));
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
      output: this.outputTail(),
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
    if (this.unrecordedEnd) return { from: this.committed, messages: [this.unrecordedEnd] };
    return { from: this.committed, messages: [...this.inFlight, ...this.buffer] };
  }

  /** Hands every chunk published from now on (accepted messages not published yet included) to `sink`. */
  attach(sink: JobSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /**
   * The published chunks kept in memory, from `historyFrom` on (every one the store does not hold yet,
   * and historyBytes more): earlier messages are in the store.
   */
  snapshot(): { historyFrom: number; history: readonly JobChunk[] } {
    this.lookedAt = performance.now();
    const history = this.history.slice(this.historyHead);
    return { historyFrom: history[0]?.from ?? this.unpublishedFrom, history };
  }

  /** The tail as the result's output: the last outputLines lines, within outputBytes (at least one). */
  outputTail(): string[] {
    this.trimTail();
    return [...this.tail];
  }

  private trimTail(): void {
    const { from, bytes } = tailStart(this.tail, this.tailBytes, {
      lines: this.limits.outputLines,
      bytes: this.limits.outputBytes,
    });
    if (from > 0) this.tail = this.tail.slice(from);
    this.tailBytes = bytes;
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
    this.bufferBytes += messageSize(message);
    if (message.type === 'line') this.bufferedLines += 1;
    if (message.type === 'result') return;
    if (this.bufferedLines >= this.limits.batchLines) {
      if (this.appending) this.flushAfterAppend = true;
      else this.flush();
    } else if (!this.timer && !this.appending) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.appending) this.flushAfterAppend = true;
        else this.flush();
      }, this.limits.flushIntervalMs);
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
    this.historyBytes += chunk.size;
    this.trimHistory();
  };

  /** Lets go of the oldest chunks beyond the bound, only those the store holds (catch-up reads them there). */
  private trimHistory(): void {
    const keep = this.limits.historyBytes;
    for (;;) {
      const oldest = this.history[this.historyHead];
      if (!oldest || this.historyBytes - oldest.size < keep || oldest.end > this.committed) break;
      this.historyBytes -= oldest.size;
      this.history[this.historyHead] = EMPTY_CHUNK;
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
    this.inFlightBytes = this.bufferBytes;
    this.buffer = [];
    this.bufferBytes = 0;
    this.bufferedLines = 0;
    let appended: Promise<{ nextRevision: number }>;
    try {
      const events = [...toEvents(this.id, this.inFlight, this.sealer), ...this.bufferedEvents];
      this.bufferedEvents = [];
      appended = this.home.store.append(jobStream(this.id), events, { expectedRevision: this.revision });
    } catch (error) {
      // Sealing threw (it is called from a timer too): the job fails as on a failed append.
      appended = Promise.reject(error);
    }
    // `appending` never rejects: nobody may be awaiting it (a timer's flush), and a failure is kept in
    // `failure` for `finish` to report.
    this.appending = appended
      .then(
        (done) => {
          this.revision = done.nextRevision - 1;
          this.committed += this.inFlight.length;
          this.inFlight = [];
          this.inFlightBytes = 0;
          this.trimHistory();
        },
        (error: unknown) => this.failed(error),
      )
      .finally(() => {
        this.appending = undefined;
        if (this.failure) return;
        if (this.ended || this.flushAfterAppend || this.bufferedLines >= this.limits.batchLines) {
          this.flushAfterAppend = false;
          this.flush();
        } else if (this.buffer.length > 0 && !this.timer) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.flush();
          }, this.limits.flushIntervalMs);
        }
      })
      .catch((error: unknown) => this.failed(error));
  }

  /** Nothing more can be recorded in order after a failed append: keep the job honest about it. */
  private failed(error: unknown): void {
    this.failure ??= new JobRecordingError(this.id, error);
    this.bufferedEvents = [];
    this.inFlightBytes = 0;
    this.buffer = [];
    this.bufferBytes = 0;
    this.bufferedLines = 0;
  }

  /**
   * Resolves once every message accepted so far is recorded, or recording failed (`error` says why):
   * what a deploy waits for before its run's completion, so a run whose output was lost is not `success`.
   */
  async recorded(): Promise<void> {
    for (;;) {
      if (this.appending) {
        await this.appending;
        continue;
      }
      if ((this.buffer.length > 0 || this.bufferedEvents.length > 0) && !this.failure) {
        this.flush();
        continue;
      }
      return;
    }
  }

  /**
   * After a failed append, the stream is ended with a failed result, so a poll does not show the job
   * running for good when the failure passed: tried until a network store takes it (a stream deleted
   * under the job, or a local store failed until a restart, refuse it: nothing more can be done, and
   * `finish` reports the failure).
   */
  private async recordFailure(): Promise<boolean> {
    const result: JobResult = {
      type: 'result',
      success: false,
      ...(this.failure ? { error: this.failure.message } : {}),
      output: this.outputTail(),
    };
    const store = this.home.store;
    try {
      await untilRecorded(store, () =>
        store.append(jobStream(this.id), toEvents(this.id, [result], this.sealer)),
      );
      return true;
    } catch (error) {
      // See above: the failure already on record is the one `finish` reports. A store that failed keeps
      // the end from polls too: this process answers it (a deleted stream has no job left to poll).
      if (!(error instanceof StoreFailedError)) return true;
      this.unrecordedEnd = result;
      return false;
    }
  }

  /** Resolves when everything accepted is recorded (or recording failed). */
  private async settle(): Promise<void> {
    await this.recorded();
    // A job whose end is on record is the store's to answer; one whose end is not stays known here.
    if (!this.failure || (await this.recordFailure())) this.home.forget(this);
    for (const sink of this.sinks) sink.completeAfterQueue();
    // Subscribers still catching up (they hold this job) take the kept chunks while they go on taking
    // them; once none has looked for FINISHED_IDLE_MS, the store serves whoever comes back: clients that
    // stopped reading do not keep a finished job's output in memory.
    this.lookedAt = performance.now();
    const letGo = () => {
      const idle = performance.now() - this.lookedAt;
      if (idle < FINISHED_IDLE_MS) {
        setTimeout(letGo, FINISHED_IDLE_MS - idle).unref();
        return;
      }
      this.history = [];
      this.historyHead = 0;
      this.historyBytes = 0;
    };
    setTimeout(letGo, FINISHED_IDLE_MS).unref();
  }
}

const EMPTY_CHUNK = new JobChunk(0, []);

/** How long a finished job keeps its latest chunks after a subscriber last looked at them (ms). */
const FINISHED_IDLE_MS = 1_000;
