import {
  type DeployRun,
  type DeployRunsState,
  isTerminalRunStatus,
  openError,
  type RunJson,
  runsOf,
  toRunJson,
  unfinishedRuns,
} from '../../../projections/deploy-runs.js';
import {
  type EnvironmentId,
  jobStream,
  runKeyScope,
  runStream,
  type StacksEventMap,
  stacksEvent,
} from '../../../streams/stacks.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import { StacksError } from '../errors.js';
import type { Instance } from '../instances/instance.js';
import type { ReadModel } from '../jobs/job-book.js';
import { OutputKeys, type Sealer } from '../output/keys.js';
import { deleteLog, type LogBudget, type LogSync, logFileName, logPath } from './log-files.js';
import { type LogFollow, RunRecorder, type RunStart, readRun } from './run-recorder.js';

/** How often a follower looks again at a log another instance writes. */
const REMOTE_LOG_POLL_MS = 250;

export const INTERRUPTED_RUN_MESSAGE = 'The server stopped before this deploy finished';

/** How many times a start tries the next id when another start took it first. */
const MAX_ID_ATTEMPTS = 1_000;

const isConflict = (error: unknown) =>
  error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError;

export interface RunBookOptions {
  dataDir: string;
  budget: LogBudget;
  /** This process among the instances on the log: recorded with each run, asked before closing one. */
  instance: Instance;
  /** The output keys (shared with the job book); a book of its own by default. */
  keys?: OutputKeys;
  /** How a finished run's log is made durable before its completion is recorded (default: fsync). */
  logSync?: LogSync;
}

/**
 * The recorded deploy runs: starts runs (unique ids), reads them, deletes them, and closes the runs a
 * stopped server left `running`.
 */
export class RunBook {
  readonly store: EventStore;
  /** The keys run output is sealed with (each run's also seals its job's output). */
  readonly keys: OutputKeys;
  private readonly model: ReadModel<DeployRunsState>;
  private readonly options: RunBookOptions;
  /** The highest id this process tried, so concurrent starts do not all race for the same one. */
  private lastTried = 0;
  private readonly live = new Map<number, RunRecorder>();

  constructor(store: EventStore, model: ReadModel<DeployRunsState>, options: RunBookOptions) {
    this.store = store;
    this.model = model;
    this.options = options;
    this.keys = options.keys ?? new OutputKeys(store);
  }

  /**
   * Records RunStarted under the next free id (status `running`; `queued` with RunQueued in the same
   * append when its job waits for a slot); the run is in the read model when this resolves. Ids are unique because a run stream is created with `no_stream`: a start that loses
   * the race for an id tries the next one.
   */
  async start(input: RunStart): Promise<RunRecorder> {
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const runId = Math.max(this.model.state.maxRunId, this.lastTried) + 1;
      this.lastTried = runId;
      const data: StacksEventMap['RunStarted'] = {
        run_id: runId,
        job_id: input.jobId,
        stack: input.stack,
        environment_id: input.environmentId,
        trigger: input.trigger,
        user_id: input.userId,
        options: { ...input.options },
        compose_hash: input.composeHash,
        env_hash: input.envHash,
        log_file: logFileName(runId),
        ...(input.extra ? { extra: { ...input.extra } } : {}),
      };
      let appended: { position: number; nextRevision: number };
      const queued = input.queued
        ? [stacksEvent('RunQueued', { run_id: runId, ahead: input.queued.ahead, limit: input.queued.limit })]
        : [];
      try {
        appended = await this.store.append(
          runStream(runId),
          [stacksEvent('RunStarted', data), ...queued].map((event) => ({
            ...event,
            metadata: { instanceId: this.options.instance.id },
          })),
          { expectedRevision: 'no_stream' },
        );
      } catch (error) {
        if (isConflict(error)) continue;
        throw error;
      }
      await this.model.waitFor(appended.position);
      let sealer: Sealer;
      try {
        sealer = await this.keys.ensure(runKeyScope(runId));
      } catch (error) {
        // No key, no output may be recorded: the run closes at once rather than stay `running`.
        await this.closeWithoutKey(runId, appended.nextRevision - 1, error).catch(() => undefined);
        throw error;
      }
      const recorder = new RunRecorder(this, runId, input.environmentId, appended.nextRevision - 1, sealer);
      // The folder is measured before the first line, so each line's fate under the budget is known at once.
      await recorder.measureLog();
      this.live.set(runId, recorder);
      return recorder;
    }
    throw new StacksError('ids_exhausted', `could not allocate a run id after ${MAX_ID_ATTEMPTS} attempts`);
  }

  private async closeWithoutKey(runId: number, revision: number, cause: unknown): Promise<void> {
    const { position } = await this.store.append(
      runStream(runId),
      [
        stacksEvent('RunCompleted', {
          run_id: runId,
          status: 'failed',
          exit_code: 1,
          exit_code_known: false,
          error_message: `The run's output key could not be recorded: ${(cause as Error).message}`,
        }),
      ],
      { expectedRevision: revision },
    );
    await this.model.waitFor(position);
  }

  get(runId: number): DeployRun | undefined {
    return this.model.state.runs.get(runId);
  }

  /** The run's error message, opened with its key when it is sealed (read time: see OutputKeys). */
  async errorOf(run: DeployRun): Promise<string | null> {
    if (run.errorSealed === undefined) return run.errorMessage;
    const opener = await this.keys.opener(runKeyScope(run.id));
    return openError(run, opener.open);
  }

  /** The run JSON of the spec, its error message opened. */
  async json(run: DeployRun): Promise<RunJson> {
    return toRunJson(run, await this.errorOf(run));
  }

  /** Runs of a stack in one environment, newest first. */
  list(stack: string, environmentId: EnvironmentId): DeployRun[] {
    return runsOf(this.model.state, stack, environmentId);
  }

  logPathOf(run: Pick<DeployRun, 'id' | 'environmentId'>): string {
    return logPath(this.options.dataDir, run.environmentId, run.id);
  }

  /**
   * Deletes a finished run: its log file, its job's stream, its key (so what stays of its output in the
   * log — its sealed error message, sealed job events an engine keeps until a scavenge, any copy of the
   * log — can no longer be read), then RunDeleted. Each step tolerates having been done already, so a
   * delete that failed half way can be repeated. 404 when there is no such run (or it is of another
   * stack, when `stack` is given), 409 when it has not finished.
   */
  /**
   * What else a delete removes once RunDeleted is recorded (deploy history: the stored contents no run
   * refers to any more). A failure fails the delete's answer; repeating the delete is a 404, so the
   * next delete's call cleans up what this one left.
   */
  afterDelete?: (runId: number, position: number) => Promise<void>;

  async deleteRun(
    runId: number,
    userId: string | null,
    stack?: string,
  ): Promise<{ deleted: true; id: number }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { run, revision } = await readRun(this.store, runId);
      if (!run || (stack !== undefined && run.stack !== stack))
        throw new StacksError('run_not_found', 'Run not found');
      if (!isTerminalRunStatus(run.status)) throw new StacksError('run_running', 'Run is still running');
      await deleteLog(this.logPathOf(run));
      try {
        await this.store.deleteStream(jobStream(run.jobId));
      } catch (error) {
        if (!(error instanceof StreamDeletedError)) throw error;
      }
      await this.keys.shred(runKeyScope(runId));
      let position: number;
      try {
        ({ position } = await this.store.append(
          runStream(runId),
          [stacksEvent('RunDeleted', { run_id: runId, user_id: userId })],
          { expectedRevision: revision },
        ));
      } catch (error) {
        // Something was recorded for the run meanwhile (another delete, say): look again.
        if (isConflict(error)) continue;
        throw error;
      }
      await this.model.waitFor(position);
      await this.afterDelete?.(runId, position);
      return { deleted: true, id: runId };
    }
    throw new StacksError('run_changed', 'Run changed while it was being deleted; try again');
  }

  /**
   * Closes every run still `running` whose instance is gone (a server stopped or killed during the
   * deploy; never a run another live instance runs), except those in `hold` (their compose may still
   * run: see instances/interrupted-work.ts). Each is completed `failed` with a clear message, exit code unknown (stored
   * as 1). Returns their ids.
   */
  async closeInterruptedRuns(hold: ReadonlySet<number> = new Set()): Promise<number[]> {
    const closed: number[] = [];
    for (const stale of unfinishedRuns(this.model.state)) {
      if (this.live.has(stale.id) || hold.has(stale.id)) continue;
      if (await this.options.instance.isAlive(stale.instanceId)) continue;
      if (await this.closeInterruptedRun(stale.id)) closed.push(stale.id);
    }
    return closed;
  }

  /**
   * Completes one run of an instance that is gone as `failed` with `message`; false when it had ended
   * (or was deleted) meanwhile. The caller checked that its instance is gone.
   */
  async closeInterruptedRun(runId: number, message = INTERRUPTED_RUN_MESSAGE): Promise<boolean> {
    const { run, revision } = await readRun(this.store, runId);
    if (!run || isTerminalRunStatus(run.status)) return false;
    try {
      const { position } = await this.store.append(
        runStream(run.id),
        [
          stacksEvent('RunCompleted', {
            run_id: run.id,
            status: 'failed',
            exit_code: 1,
            exit_code_known: false,
            error_message: message,
          }),
        ],
        { expectedRevision: revision },
      );
      await this.model.waitFor(position);
      return true;
    } catch (error) {
      if (!isConflict(error)) throw error;
      return false;
    }
  }

  /** Whether this process runs the run now. */
  isLive(runId: number): boolean {
    return this.live.has(runId);
  }

  /**
   * Follows a run's log: its file as this process's recorder writes it while it runs here; otherwise
   * the file as it is, read again every REMOTE_LOG_POLL_MS while the run runs on another instance.
   * Throws a 404 StacksError when there is no such run.
   */
  followLog(runId: number): LogFollow {
    const recorder = this.live.get(runId);
    if (recorder) return recorder.follow();
    const run = this.get(runId);
    if (!run) throw new StacksError('run_not_found', 'Run not found');
    const status = () => this.get(runId)?.status ?? run.status;
    return {
      source: {
        path: this.logPathOf(run),
        available: () => undefined,
        complete: () => isTerminalRunStatus(status()),
        changed: () => new Promise((resolve) => setTimeout(resolve, REMOTE_LOG_POLL_MS)),
      },
      status: async () => status(),
    };
  }

  /** @internal */
  forget(recorder: RunRecorder): void {
    if (this.live.get(recorder.runId) === recorder) this.live.delete(recorder.runId);
  }

  /** @internal */
  waitFor(position: number): Promise<void> {
    return this.model.waitFor(position);
  }

  /** @internal */
  get budget(): LogBudget {
    return this.options.budget;
  }

  /** @internal */
  get logSync(): LogSync | undefined {
    return this.options.logSync;
  }

  /** @internal */
  get dataDir(): string {
    return this.options.dataDir;
  }
}
