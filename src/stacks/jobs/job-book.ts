import { randomUUID } from 'node:crypto';
import { Observable } from 'rxjs';
import {
  type JobInfo,
  type JobResult,
  type JobsState,
  jobsFinishedBefore,
  messageCountOf,
  runningJobs,
} from '../../../projections/jobs.js';
import {
  type JobMessage,
  jobKeyScope,
  jobOutputScope,
  jobStream,
  type KeyScope,
  stacksEvent,
} from '../../../streams/stacks.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import type { Instance } from '../instances/instance.js';
import { OutputKeys } from '../output/keys.js';
import { DEFAULT_POLL_LIMIT } from '../paging.js';
import { type IndexedMessage, type JobChunk, type MessagesOptions, messageSize } from './delivery.js';
import { isResultEvent, JobReader, readPaged, toEvents } from './events.js';
import { Job, type JobStart, OUTPUT_TAIL } from './job.js';
import { JobPages } from './pages.js';
import { JobSubscription } from './subscription.js';

export {
  type IndexedMessage,
  JobChunk,
  JobSubscriberTooSlowError,
  type MessagesOptions,
} from './delivery.js';
export { Job, type JobOutcome, JobRecordingError, type JobStart } from './job.js';

/** A projection the stacks parts read and wait on; `ProjectionRunner` is one. */
export interface ReadModel<State> {
  readonly state: State;
  /** Resolves once every event up to `position` has been applied. */
  waitFor(position: number): Promise<void>;
}

/** `GET /api/jobs/{id}`: a page of the job's messages (docs/stacks.md#reading-output-polls-event-streams-and-memory). */
export interface JobPoll {
  id: string;
  /** `queued` while it waits for a compose slot (config `jobs.maxConcurrent`). */
  status: 'queued' | 'running' | 'done';
  /** Index of the first message of the page. */
  from: number;
  messages: JobMessage[];
  /** Whether messages after this page exist now. */
  more: boolean;
  /** The `after` that asks for the next page: the index of the page's last message (else the one asked). */
  next: number | null;
  result: JobResult | null;
}

/** Which messages a poll answers: those after index `after` (from the first without it), up to `limit`. */
export interface PollPage {
  after?: number;
  limit?: number;
}

export { DEFAULT_POLL_LIMIT, MAX_POLL_LIMIT } from '../paging.js';
/** Bytes of message text a poll page holds at most (at least one message). */
export const POLL_PAGE_BYTES = 1024 * 1024;

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
   * Bytes of live messages a subscriber may have waiting (default 1 MiB); past it, it reads them from
   * the store later, at its own pace.
   */
  liveQueueBytes?: number;
  /**
   * Bytes a subscriber may fall behind the running job's output before it may be dropped (default
   * 16 MiB): it is dropped once it has also taken nothing for `stalledMs`.
   */
  dropBehindBytes?: number;
  /**
   * How long a subscriber past `dropBehindBytes` may take nothing before it is dropped (default 10 s).
   * One that reads, however slowly, reads what it is behind from the store at its own pace instead.
   */
  stalledMs?: number;
  /**
   * Bytes of the latest messages a running job keeps, shared, for subscribers that join late or fall
   * behind their live queue: they catch up from these chunks, framed once for all, rather than each
   * read, open and frame the store again. Per job, whatever its number of subscribers. The
   * default is 32 MiB, twice the drop bound: with 4 MiB (half a second of a fast deploy), 50 clients a
   * second or two behind a 200,000-line deploy read and framed its output twice more from the store, a
   * quarter of the server's CPU; with 16 MiB, the slowest of them, which are no longer dropped, still
   * did so on a loaded machine (a deploy's output framed 2.3 times over). Only a job that prints that
   * much keeps that much.
   */
  historyBytes?: number;
  /** Lines of the result's `output` block (the tail of the job's output). */
  outputLines?: number;
  /** Bytes of the result's `output` block at most (at least its last line). */
  outputBytes?: number;
  /** The output keys (shared with the run book); a book of its own by default. */
  keys?: OutputKeys;
  /**
   * Called as a job a stopped server left running is closed, before its result is appended (a stack
   * operation's Activity entry is recorded here, as a running one's is before its result).
   */
  onInterrupted?: (job: JobInfo, end: InterruptedEnd) => Promise<void>;
}

/** What is known of a job closed as interrupted: the error it gets, and its output as recorded. */
export interface InterruptedEnd {
  error: string;
  /** Output lines it recorded, and the last of them (at most `outputLines`). */
  lines: number;
  output: string[];
}

/** How far a subscriber may fall behind a running job before it is dropped (once stalled). */
const DROP_BEHIND_BYTES = 16 * 1024 * 1024;
/** What a running job keeps of its latest output for its subscribers (historyBytes). */
const HISTORY_BYTES = 32 * 1024 * 1024;

/** How long a subscriber past the drop bound may take nothing before it is dropped. */
const STALLED_MS = 10_000;

/** The result of a job whose server stopped before it finished. */
export const INTERRUPTED_JOB_MESSAGE = 'The server stopped before this job finished';

/**
 * Jobs of the stacks service over the event store: starts them, replays and streams their messages,
 * answers polls, closes the ones a stopped server left running, and deletes old ones.
 */
export class JobBook {
  readonly store: EventStore;
  /** The keys job output is sealed with. */
  readonly keys: OutputKeys;
  private readonly model: ReadModel<JobsState>;
  private readonly options: Required<Omit<JobBookOptions, 'keys' | 'onInterrupted'>>;
  private readonly onInterrupted: JobBookOptions['onInterrupted'];
  private readonly live = new Map<string, Job>();
  /** Stored events as their subscribers read them, shared by the subscribers of a job (JobPages). */
  private readonly pages: JobPages;

  constructor(store: EventStore, model: ReadModel<JobsState>, options: JobBookOptions) {
    this.store = store;
    this.model = model;
    const { keys, onInterrupted, ...rest } = options;
    this.keys = keys ?? new OutputKeys(store);
    this.onInterrupted = onInterrupted;
    this.pages = new JobPages(store);
    this.options = {
      flushIntervalMs: 10,
      batchLines: 1_000,
      liveQueueBytes: 512 * 1024,
      dropBehindBytes: DROP_BEHIND_BYTES,
      stalledMs: STALLED_MS,
      historyBytes: HISTORY_BYTES,
      outputLines: OUTPUT_TAIL.lines,
      outputBytes: OUTPUT_TAIL.bytes,
      ...rest,
    };
  }

  /**
   * Records JobStarted (after its key: its run's, made when the run started, or its own), and JobQueued
   * in the same append when it waits for a compose slot; the job is in the read model when this
   * resolves.
   */
  async start(input: JobStart): Promise<Job> {
    const full: JobStart & { id: string } = { ...input, id: input.id ?? randomUUID() };
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
        ...(full.queued
          ? [
              stacksEvent('JobQueued', {
                job_id: full.id,
                ahead: full.queued.ahead,
                limit: full.queued.limit,
              }),
            ]
          : []),
      ].map((event) => ({ ...event, metadata: { instanceId: this.options.instance.id } })),
      { expectedRevision: 'no_stream' },
    );
    const { flushIntervalMs, batchLines, historyBytes, outputLines, outputBytes } = this.options;
    const job = new Job(
      this,
      full,
      { flushIntervalMs, batchLines, historyBytes, outputLines, outputBytes },
      appended.nextRevision - 1,
      sealer,
    );
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

  /**
   * A page of CONTRACT's job poll (see JobPoll), or undefined when there is no such job (never was, or
   * deleted). The stored events before the page are skipped unopened (their message counts are in
   * clear); the store is read a few events at a time, and the page ends at `limit` messages or
   * POLL_PAGE_BYTES of text, so a poll costs the same memory whatever the job's size.
   */
  async poll(jobId: string, page: PollPage = {}): Promise<JobPoll | undefined> {
    const first = page.after === undefined ? 0 : page.after + 1;
    const limit = page.limit ?? DEFAULT_POLL_LIMIT;
    const local = this.live.get(jobId);
    // Taken before reading, so the store read and the in-memory part meet without gap or overlap.
    const pending = local?.uncommitted();
    const before = pending?.from ?? Number.POSITIVE_INFINITY;
    const messages: JobMessage[] = [];
    let bytes = 0;
    const full = () => messages.length >= limit || bytes >= POLL_PAGE_BYTES;
    const take = (message: JobMessage) => {
      messages.push(message);
      bytes += messageSize(message);
    };
    const reader = new JobReader(this.keys);
    let found = false;
    let more = false;
    let last: JobMessage | undefined;
    try {
      let index = 0;
      for await (const event of readPaged(this.store, jobStream(jobId))) {
        found = true;
        if (event.type === 'JobStarted') {
          await reader.messages(event);
          continue;
        }
        const end = Math.min(index + messageCountOf(event), before);
        if (end > index && full()) {
          more = true;
          break;
        }
        if (end > first) {
          const opened = await reader.messages(event);
          for (let i = Math.max(first, index); i < end && !more; i++) {
            if (full()) more = true;
            else take(opened[i - index] as JobMessage);
          }
          if (end === index + opened.length) last = opened.at(-1);
        } else if (end > index && isResultEvent(event)) {
          // Asked after the last message: the result is still answered.
          last = (await reader.messages(event)).at(-1);
        }
        index = end;
        if (index >= before || more) break;
      }
      if (pending) {
        for (
          let i = Math.max(first, pending.from);
          i < pending.from + pending.messages.length && !more;
          i++
        ) {
          if (full()) more = true;
          else take(pending.messages[i - pending.from] as JobMessage);
        }
        last = pending.messages.at(-1) ?? last;
      }
      // The page ended before the last message: the result, if any, is the stream's last event.
      if (found && more && !(pending && pending.messages.length > 0))
        last = await this.lastMessage(jobId, reader);
    } catch (error) {
      if (error instanceof StreamDeletedError) return undefined;
      throw error;
    }
    if (!found) return undefined;
    const result = last?.type === 'result' ? last : null;
    return {
      id: jobId,
      status: result ? 'done' : this.info(jobId)?.queued ? 'queued' : 'running',
      from: first,
      messages,
      more,
      next: messages.length > 0 ? first + messages.length - 1 : (page.after ?? null),
      result,
    };
  }

  /** The last message of the job's stream (its result once it has one). */
  private async lastMessage(jobId: string, reader: JobReader): Promise<JobMessage | undefined> {
    for await (const event of this.store.readStream(jobStream(jobId), {
      direction: 'backwards',
      from: 'end',
      maxCount: 1,
    }))
      return (await reader.messages(event)).at(-1);
    return undefined;
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
      const subscription = new JobSubscription(
        jobId,
        fromIndex,
        subscriber,
        {
          store: this.store,
          reader: new JobReader(this.keys),
          running: () => this.live.get(jobId),
          pages: this.pages,
          exists: () => this.info(jobId) !== undefined,
        },
        {
          liveQueueBytes: options.liveQueueBytes ?? this.options.liveQueueBytes,
          dropBehindBytes: options.dropBehindBytes ?? this.options.dropBehindBytes,
          stalledMs: options.stalledMs ?? this.options.stalledMs,
          ...(options.ready ? { ready: options.ready } : {}),
        },
      );
      subscription.start();
      return () => subscription.stop();
    });
  }

  /**
   * Closes the jobs a stopped server left running (no process of ours runs them), except those in
   * `hold` (their compose may still run: see instances/interrupted-work.ts): each gets a failed result, so polls and
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
    const info = this.info(jobId);
    if (info && this.onInterrupted)
      await this.onInterrupted(info, { error: message, lines: tail.count, output: tail.lines });
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
  ): Promise<{ finished: boolean; lines: string[]; count: number; scope: KeyScope | undefined }> {
    let lines: string[] = [];
    let count = 0;
    let finished = false;
    const reader = new JobReader(this.keys);
    for await (const event of this.store.readStream(jobStream(jobId))) {
      for (const message of await reader.messages(event)) {
        if (message.type === 'line') {
          lines.push(message.line);
          count += 1;
        }
        if (message.type === 'result') finished = true;
      }
      if (lines.length > this.options.outputLines * 2) lines = lines.slice(-this.options.outputLines);
    }
    return { finished, lines: lines.slice(-this.options.outputLines), count, scope: reader.scope };
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
