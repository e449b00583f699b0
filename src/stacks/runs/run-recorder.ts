import {
  type DeployRun,
  deployRuns,
  evolveRun,
  isTerminalRunStatus,
} from '../../../projections/deploy-runs.js';
import {
  type ComposeGroup,
  type DeployOptions,
  type DeploySummary,
  type EnvironmentId,
  type NewStacksEvent,
  runStream,
  type StacksEventMap,
  stacksEvent,
  type Trigger,
} from '../../../streams/stacks.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import type { ComposeExit, Redactor } from '../contracts.js';
import { StacksError } from '../errors.js';
import type { Sealer } from '../output/keys.js';
import { type LogBudget, type LogSync, logPath, RunLogError, RunLogWriter } from './log-files.js';
import type { LogSource } from './log-reader.js';
import { untilRecorded } from './until-recorded.js';
import { WithheldLines } from './withheld-lines.js';

/**
 * What following a run's log reads: its file as it grows (see log-reader.ts), then the run's final
 * status.
 */
export interface LogFollow {
  source: LogSource;
  /** The run's status once it has ended (call it once `source` is complete). */
  status(): Promise<string>;
}

export const WITHHELD_ERROR_MESSAGE = 'Deploy failed (error output withheld by redaction)';

export interface RunStart {
  /** The job that runs this deploy (its stream is deleted with the run). */
  jobId: string;
  stack: string;
  environmentId: EnvironmentId;
  trigger: Trigger;
  userId: string | null;
  options: DeployOptions;
  composeHash: string;
  envHash: string;
  extra?: Record<string, string | number | boolean | null>;
  /** Its job waits for a compose slot (jobs/queue.ts): the run starts `queued` (RunQueued). */
  queued?: { ahead: number; limit: number };
}

export interface RunCompletion {
  success: boolean;
  /** The run of an adopted project (success is true): recorded `adopted`, not `success`. */
  adopted?: boolean;
  exit: ComposeExit;
  /** Set when someone cancelled the deploy (success is false): recorded `cancelled`, with who. */
  cancelledBy?: string | null;
  /** The failure as the caller saw it (unredacted: redacted here); derived from `exit` when absent. */
  error?: string;
  /** The redactor of this deploy, with any secrets a provider resolved after it returned. */
  redactor: Redactor;
  /** Parsed from the output; recorded only when compose printed at least one line. */
  summary?: DeploySummary;
  /**
   * Lines compose printed, withheld ones included (default: the lines given to `line()`): a run whose
   * every line was withheld still printed output, so its summary is known.
   */
  outputLines?: number;
  /**
   * Set when the output could not all be recorded elsewhere (its job's stream): the run is then
   * recorded `failed` with it, never `success` with part of its output.
   */
  outputError?: string;
}

/**
 * The completion as it may be recorded: one whose output or events could not all be recorded (its log
 * file, its job's stream, an event of its own stream) is `failed`, naming why, whatever compose did.
 */
function honestCompletion(completion: RunCompletion, lost: readonly string[]): RunCompletion {
  if (lost.length === 0) return completion;
  const why = lost.join('; ');
  if (completion.success) return { ...completion, success: false, adopted: false, error: why };
  const error = completion.error ?? describeFailure(completion.exit);
  return { ...completion, error: `${error} (${why})` };
}

/** What a failed compose run amounts to when the caller has no better words for it. */
export function describeFailure(exit: ComposeExit): string {
  if (exit.spawnError !== undefined) return `Could not start compose: ${exit.spawnError}`;
  if (exit.timedOut) return 'Deploy timed out; compose was stopped';
  if (exit.cancelled) return 'Deploy cancelled; compose was stopped';
  if (exit.exitCode !== null) return `Compose exited with code ${exit.exitCode}`;
  if (exit.signal !== null) return `Compose was killed by ${exit.signal}`;
  return 'Deploy failed';
}

/** The RunCompleted a completion records: exit code and error message as the spec wants them stored. */
export function completionEvent(
  runId: number,
  completion: RunCompletion,
  printedLines: number,
): StacksEventMap['RunCompleted'] {
  const { success, exit } = completion;
  const known = exit.exitCode !== null;
  const cancelled = !success && completion.cancelledBy !== undefined;
  let errorMessage: string | null = null;
  if (!success) {
    const redacted = completion.redactor.text(completion.error ?? describeFailure(exit)).trim();
    errorMessage = redacted.length > 0 ? redacted : WITHHELD_ERROR_MESSAGE;
  }
  return {
    run_id: runId,
    status: cancelled ? 'cancelled' : !success ? 'failed' : completion.adopted ? 'adopted' : 'success',
    // Unknown (a time-out, a cancel): a value consistent with the status (spec: details.exitCode).
    exit_code: known ? (exit.exitCode as number) : success ? 0 : 1,
    exit_code_known: known,
    error_message: errorMessage,
    ...(completion.summary && printedLines > 0 ? { summary: completion.summary } : {}),
    ...(cancelled ? { cancelled_by: completion.cancelledBy ?? null } : {}),
  };
}

/**
 * The completion as it is recorded: RunCompletedSealed, its error message sealed with the run's key;
 * RunCompleted (in clear) only for a run without a key (one whose key could not be made).
 */
function recordedCompletion(
  data: StacksEventMap['RunCompleted'],
  sealer: Sealer | undefined,
): NewStacksEvent {
  if (sealer === undefined) return stacksEvent('RunCompleted', data);
  const { error_message: error, ...clear } = data;
  return stacksEvent('RunCompletedSealed', {
    ...clear,
    error_sealed: error === null ? null : sealer.seal(error),
  });
}

/** Folds one run's stream; undefined when it has no run (never started, deleted, stream removed). */
export async function readRun(
  store: EventStore,
  runId: number,
): Promise<{ run: DeployRun | undefined; revision: number }> {
  const state = deployRuns.initial();
  let revision = -1;
  try {
    for await (const event of store.readStream(runStream(runId))) {
      evolveRun(state, event as Parameters<typeof evolveRun>[1]);
      revision = event.revision;
    }
  } catch (error) {
    if (error instanceof StreamDeletedError) return { run: undefined, revision };
    throw error;
  }
  return { run: state.runs.get(runId), revision };
}

/** The position of the run stream's last event (what the read model waits for). */
async function lastEventOf(store: EventStore, runId: number): Promise<{ position: number | undefined }> {
  for await (const event of store.readStream(runStream(runId), { direction: 'backwards', maxCount: 1 }))
    return { position: event.position };
  return { position: undefined };
}

/** What a run's recorder needs of the book that started it (run-book.ts). */
interface RecorderBook {
  readonly store: EventStore;
  readonly dataDir: string;
  readonly budget: LogBudget;
  readonly logSync: LogSync | undefined;
  get(runId: number): DeployRun | undefined;
  waitFor(position: number): Promise<void>;
  forget(recorder: RunRecorder): void;
}

/**
 * One deploy's record: lines go to its log file (within the environment's budget), and `complete`
 * records how it ended. Events of the run stream are appended one after the other, each at the
 * revision the previous one left, so nothing else can slip in between.
 */
export class RunRecorder {
  readonly runId: number;
  readonly environmentId: EnvironmentId;
  readonly logPath: string;
  private readonly book: RecorderBook;
  private readonly writer: RunLogWriter;
  /** Seals the error message with the run's key. */
  private readonly sealer: Sealer;
  private revision: number;
  /** The run stream's appends, in order. */
  private appends: Promise<void> = Promise.resolve();
  private appendError: unknown;
  private lines = 0;
  /** Where redaction withheld lines, recorded as they come (RunLinesWithheld). */
  private readonly withheldLines = new WithheldLines();
  /** A RunLinesWithheld waits among the appends (it takes every place that came meanwhile). */
  private withheldQueued = false;
  private completed: Promise<DeployRun> | undefined;
  private markEnded: (run: Promise<DeployRun>) => void = () => {};
  /** Resolves with the run once `complete` has recorded it. */
  private readonly ended = new Promise<DeployRun>((resolve) => {
    this.markEnded = (run) => resolve(run);
  });
  private logFailure: RunLogError | undefined;
  private completionTries = 0;

  constructor(
    book: RecorderBook,
    runId: number,
    environmentId: EnvironmentId,
    revision: number,
    sealer: Sealer,
  ) {
    this.book = book;
    this.sealer = sealer;
    this.runId = runId;
    this.environmentId = environmentId;
    this.revision = revision;
    this.logPath = logPath(book.dataDir, environmentId, runId);
    // Whoever follows the log hears how the run ended; a completion that failed is reported by complete().
    this.ended.catch(() => undefined);
    this.writer = new RunLogWriter(
      this.logPath,
      book.budget,
      (truncation) =>
        this.record(
          stacksEvent('RunTruncated', {
            run_id: runId,
            budget_bytes: truncation.budgetBytes,
            used_bytes: truncation.usedBytes,
          }),
        ),
      book.logSync,
    );
  }

  /** True once the budget cut this run's log. */
  get truncated(): boolean {
    return this.writer.truncated;
  }

  /** Set when the log file could not be written; the run is still recorded. */
  get logError(): RunLogError | undefined {
    return this.logFailure ?? this.writer.error;
  }

  /** Measures the environment's logs for the budget (before the first line). */
  measureLog(): Promise<void> {
    return this.writer.measure();
  }

  /** The log file as it is written, then the run's final status (what `GET .../log?follow=true` streams). */
  follow(): LogFollow {
    const writer = this.writer;
    return {
      source: {
        path: this.logPath,
        available: () => writer.writtenBytes,
        complete: () => writer.complete,
        changed: () => writer.written(),
      },
      status: async () => (await (this.completed ?? this.ended)).status,
    };
  }

  /** Bytes of output accepted but not in the log file yet. */
  get backlogBytes(): number {
    return this.writer.backlogBytes;
  }

  /** Of `backlogBytes`, the lines queued as `line()` was given them (the same strings as the job's). */
  get queuedLineBytes(): number {
    return this.writer.queuedLineChars;
  }

  /**
   * A redacted output line, for the log file. False once the environment's log budget is reached: the
   * line was dropped (and so will every later one be).
   */
  line(text: string): boolean {
    if (this.completed) throw new Error(`run ${this.runId} is complete: no line may follow`);
    this.lines += 1;
    return this.writer.line(text);
  }

  /**
   * An output line redaction withheld: its place among the log's lines is recorded as it comes, so a
   * reader following the log live sees the marker before the run ends. A new place is appended after
   * the appends before it, with every place that came meanwhile (one waiting at most, however fast the
   * lines come); lines that only add to the last place, or come past MAX_WITHHELD_PLACES places, are
   * counted with the next one, or the end. Past the budget nothing is recorded: the log ended with its
   * notice, and no later line has a place.
   */
  withheld(): void {
    if (this.completed) throw new Error(`run ${this.runId} is complete: no line may follow`);
    if (this.writer.truncated) return;
    if (this.withheldLines.add(this.writer.linesWritten) && !this.withheldQueued) {
      this.withheldQueued = true;
      this.record(() => {
        this.withheldQueued = false;
        return this.withheldEvent();
      });
    }
  }

  /** RunLinesWithheld with what changed since the last one, or undefined when nothing did. */
  private withheldEvent(): ReturnType<typeof stacksEvent> | undefined {
    const changes = this.withheldLines.changes();
    if (changes === undefined) return undefined;
    return stacksEvent('RunLinesWithheld', {
      run_id: this.runId,
      lines: changes.lines,
      ...(changes.from > 0 ? { from: changes.from } : {}),
      at: changes.at,
    });
  }

  /**
   * Records what the deploy learned about its source after the start (RunSourceResolved): details to
   * merge, and the hashes of the compose file and variables when the deploy rewrote them. Resolves once
   * it is in the read model; rejects when it could not be recorded (nor can the completion then).
   */
  async resolveSource(source: {
    extra?: Record<string, string | number | boolean | null>;
    composeHash?: string;
    envHash?: string;
  }): Promise<void> {
    if (this.completed) throw new Error(`run ${this.runId} is complete: its source is settled`);
    this.record(
      stacksEvent('RunSourceResolved', {
        run_id: this.runId,
        ...(source.extra ? { extra: { ...source.extra } } : {}),
        ...(source.composeHash !== undefined ? { compose_hash: source.composeHash } : {}),
        ...(source.envHash !== undefined ? { env_hash: source.envHash } : {}),
      }),
    );
    await this.appends;
    if (this.appendError) throw this.appendError;
  }

  /**
   * Records the process group compose runs in (RunComposeStarted): a restart after a crash stops a group
   * left running before the stack is free again. The append goes in order before the end; the promise
   * resolves once it is done and never rejects (a failed append fails the completion instead).
   */
  composeStarted(group: ComposeGroup): Promise<void> {
    if (this.completed) return Promise.resolve();
    this.record(stacksEvent('RunComposeStarted', { run_id: this.runId, group: { ...group } }));
    return this.appends;
  }

  /**
   * Records that the run's job holds a compose slot now (RunDequeued: `queued` becomes `running`).
   * Resolves once it is in the read model; rejects when it could not be recorded (nor can the
   * completion then).
   */
  async dequeued(): Promise<void> {
    if (this.completed) throw new Error(`run ${this.runId} is complete`);
    this.record(stacksEvent('RunDequeued', { run_id: this.runId }));
    await this.appends;
    if (this.appendError) throw this.appendError;
  }

  /**
   * Records the containers an interrupted compose left renamed that were removed before an `up`
   * (RunLeftoversRemoved; names redacted by the caller). Resolves once it is in the read model; rejects
   * when it could not be recorded (nor can the completion then).
   */
  async leftoversRemoved(containers: readonly string[]): Promise<void> {
    if (this.completed) throw new Error(`run ${this.runId} is complete`);
    this.record(stacksEvent('RunLeftoversRemoved', { run_id: this.runId, containers: [...containers] }));
    await this.appends;
    if (this.appendError) throw this.appendError;
  }

  /**
   * Records another part's event in the run's stream (deploy history's RunContentRecorded), in order
   * with the run's own; resolves with its position, rejects when it could not be recorded.
   */
  async note(event: ReturnType<typeof stacksEvent>): Promise<number> {
    if (this.completed) throw new Error(`run ${this.runId} is complete`);
    let position = 0;
    this.record(event, (at) => {
      position = at;
    });
    await this.appends;
    if (this.appendError) throw this.appendError;
    return position;
  }

  /** Resolves when every line so far is in the log file. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /**
   * Closes the log and records RunCompleted (`success` or `failed`). The log is durable (synced) before
   * the completion is appended, so a crash never leaves a completed run whose log is lost. A log that
   * could not be written does not stop the record (see `logError`). Resolves with the run as the read
   * model has it.
   */
  complete(completion: RunCompletion): Promise<DeployRun> {
    if (!this.completed) {
      this.completed = this.finish(completion);
      this.markEnded(this.completed);
    }
    return this.completed;
  }

  private async finish(completion: RunCompletion): Promise<DeployRun> {
    try {
      await this.writer.close();
    } catch (error) {
      if (!(error instanceof RunLogError)) throw error;
      this.logFailure = error;
    }
    // What the last RunLinesWithheld did not have yet (lines added to its last place, or past the places).
    this.record(() => this.withheldEvent());
    await this.appends;
    const lost: string[] = [];
    const logError = this.logError;
    if (logError) lost.push(`The deploy's output could not be recorded in its log file: ${logError.message}`);
    if (completion.outputError !== undefined)
      lost.push(`The deploy's output could not be recorded: ${completion.outputError}`);
    if (this.appendError)
      lost.push(`An event of the deploy could not be recorded: ${(this.appendError as Error).message}`);
    const data = completionEvent(
      this.runId,
      honestCompletion(completion, lost),
      completion.outputLines ?? this.lines,
    );
    const store = this.book.store;
    // Retried while a network store is away: the run must not stay `running` for good (nor its stack's
    // deletes be refused) because of a moment without the database.
    const position = await untilRecorded(
      store,
      () => this.appendCompletion(recordedCompletion(data, this.sealer)),
      (error) => {
        if (this.completionTries++ === 0)
          process.stderr.write(
            `stacks: run ${this.runId}: its completion is tried again until the store takes it (${error.reason})\n`,
          );
      },
    );
    if (position !== undefined) await this.book.waitFor(position);
    this.book.forget(this);
    const run = this.book.get(this.runId);
    if (!run) throw new StacksError('run_not_found', 'Run not found');
    return run;
  }

  /**
   * Appends the completion at the run stream's revision; its position, or undefined when the run had
   * ended already (a try whose answer was lost with the connection had recorded it).
   */
  private async appendCompletion(event: NewStacksEvent): Promise<number | undefined> {
    try {
      const { position } = await this.book.store.append(runStream(this.runId), [event], {
        expectedRevision: this.revision,
      });
      this.revision += 1;
      return position;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // An append whose answer was lost may have been recorded after all: the stream says.
      const { run, revision } = await readRun(this.book.store, this.runId);
      if (!run) throw new StacksError('run_not_found', 'Run not found');
      this.revision = revision;
      if (isTerminalRunStatus(run.status)) {
        const { position } = await lastEventOf(this.book.store, this.runId);
        return position;
      }
      return this.appendCompletion(event);
    }
  }

  /**
   * Appends an event after those before it; `event` may be a function that makes it when its turn comes
   * (undefined: nothing to append).
   */
  private record(
    event: ReturnType<typeof stacksEvent> | (() => ReturnType<typeof stacksEvent> | undefined),
    appended?: (position: number) => void,
  ): void {
    this.appends = this.appends.then(async () => {
      if (this.appendError) return;
      const made = typeof event === 'function' ? event() : event;
      if (made === undefined) return;
      try {
        const { position } = await this.book.store.append(runStream(this.runId), [made], {
          expectedRevision: this.revision,
        });
        this.revision += 1;
        appended?.(position);
        await this.book.waitFor(position);
      } catch (error) {
        this.appendError = error;
      }
    });
  }
}
