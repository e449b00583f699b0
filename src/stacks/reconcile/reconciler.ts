import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeployRunsState } from '../../../projections/deploy-runs.js';
import { isTerminalRunStatus } from '../../../projections/deploy-runs.js';
import {
  type ExecutionsState,
  type ReconcileExecution,
  unfinishedExecutions,
} from '../../../projections/executions.js';
import {
  type EnvironmentId,
  executionStream,
  type NewStacksEvent,
  type ReconcileTrigger,
  stacksEvent,
} from '../../../streams/stacks.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import { StacksError } from '../errors.js';
import type { ReadModel } from '../jobs/job-book.js';
import { isMissing } from '../missing-files.js';
import { DEPLOY_LOGS_DIR, environmentLogDir } from '../runs/log-files.js';
import {
  environmentOfFolder,
  type FolderListing,
  modifiedKey,
  planReconcile,
  RECONCILE_GRACE_MS,
  type ReconcileAction,
  RecordIndex,
  type RecordView,
  unmatchedLogNames,
} from './plan.js';

/**
 * The `deploy_log_reconcile` job: lists the log folders, plans (reconcile/plan.ts), deletes orphan
 * files and flags records, and records all of it as events of its own execution stream.
 *
 * Speed (bench/reconcile.ts): a folder is read once (`readdir`); only entries without a record are
 * stat'ed, as only their age matters; stats and unlinks go with bounded concurrency; every event (a
 * deletion, a flag, a failure) goes to the execution's own stream, up to BATCH per append, so a run
 * costs a few dozen fsyncs, not one per element.
 */

export const INTERRUPTED_RECONCILE_MESSAGE =
  'The server stopped before this reconcile finished; deletions of its last batch may not be recorded';
const STOPPED_RECONCILE_MESSAGE = 'The server was stopped during this reconcile';
export const RECONCILE_BUSY_MESSAGE = 'A deploy_log_reconcile is already running';
/**
 * Held by whichever process runs a reconcile, among every instance on the log: one at a time, and an
 * execution left `running` while no one holds it was cut off.
 */
const RECONCILE_LEASE = 'deploy_log_reconcile:run';

/** File-system calls in flight at once: enough to keep the disk busy, few enough not to run out of fds. */
const IO_CONCURRENCY = 64;
/** Elements handled between two appends of the execution's events (and between two abort checks). */
const BATCH = 2_000;
const MAX_ID_ATTEMPTS = 1_000;

interface ReconcilerOptions {
  store: EventStore;
  dataDir: string;
  runs: ReadModel<DeployRunsState>;
  executions: ReadModel<ExecutionsState>;
  graceMs?: number;
  now?: () => number;
  /** Hears how long each phase of a run took (ms): what the benchmark prints. */
  onPhase?: (phase: 'list' | 'stat' | 'delete' | 'flag' | 'close', ms: number) => void;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const isConflict = (error: unknown) =>
  error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError;

/** Runs `work` over `items` with at most `limit` in flight; resolves when all have settled. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * The actions taken round-robin from each environment's folder: an unlink holds its folder's lock, so
 * unlinks in flight together should be in different folders, or they wait for each other.
 */
export function interleaveByEnvironment<T extends { environmentId: EnvironmentId }>(
  actions: readonly T[],
): T[] {
  const queues = new Map<EnvironmentId, T[]>();
  for (const action of actions) {
    const queue = queues.get(action.environmentId);
    if (queue) queue.push(action);
    else queues.set(action.environmentId, [action]);
  }
  const lists = [...queues.values()];
  const out: T[] = [];
  for (let i = 0; out.length < actions.length; i++)
    for (const list of lists) if (i < list.length) out.push(list[i] as T);
  return out;
}

function recordViews(state: DeployRunsState): RecordView[] {
  const views: RecordView[] = [];
  for (const run of state.runs.values())
    views.push({
      id: run.id,
      environmentId: run.environmentId,
      terminal: isTerminalRunStatus(run.status),
      logMissing: run.logMissing === true,
    });
  return views;
}

/** What one run has done so far; what its ReconcileCompleted reports. */
type Tally = Pick<
  ReconcileExecution,
  'deletedFiles' | 'markedRecords' | 'failed' | 'keptFresh' | 'ignoredFiles' | 'environments'
>;

/** The execution stream of one running reconcile: its events go out in batches, in order. */
class ExecutionLog {
  private readonly stream: string;
  private revision: number;
  private pending: NewStacksEvent[] = [];
  lastPosition = 0;
  constructor(
    private readonly store: EventStore,
    readonly executionId: number,
    revision: number,
  ) {
    this.stream = executionStream(executionId);
    this.revision = revision;
  }
  add(event: NewStacksEvent): void {
    this.pending.push(event);
  }
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    const { position } = await this.store.append(this.stream, events, { expectedRevision: this.revision });
    this.revision += events.length;
    this.lastPosition = position;
  }
}

export class Reconciler {
  private readonly options: ReconcilerOptions;
  private running: Promise<ReconcileExecution> | undefined;
  private lastTried = 0;
  private readonly abort = new AbortController();

  constructor(options: ReconcilerOptions) {
    this.options = options;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Runs one reconcile and resolves with its closed execution row; 409 when one is already running in
   * this process or another instance on the log. Never rejects for what happened to files or records:
   * those close the row `warning` or `failed`. Rejects only when its start or its end could not be
   * recorded.
   */
  run(trigger: ReconcileTrigger, userId: string | null): Promise<ReconcileExecution> {
    if (this.abort.signal.aborted) throw new StacksError('server_stopping', 'The server is stopping');
    if (this.running) throw new StacksError('already_running', RECONCILE_BUSY_MESSAGE);
    const running = (async () => {
      const lease = await this.options.store.tryLease(RECONCILE_LEASE);
      if (!lease) throw new StacksError('already_running', RECONCILE_BUSY_MESSAGE);
      try {
        return await this.execute(trigger, userId);
      } finally {
        await lease.release();
      }
    })();
    this.running = running;
    const clear = () => {
      if (this.running === running) this.running = undefined;
    };
    running.then(clear, clear);
    return running;
  }

  /** Stops a running reconcile between two batches (it closes `failed`) and waits for it. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }

  /**
   * Closes every execution a stopped server left `running` as `failed`, with the reason; none while a
   * reconcile runs somewhere (another instance on the log holds the lease: the open one may be its).
   */
  async closeInterrupted(): Promise<number[]> {
    const closed: number[] = [];
    const unfinished = unfinishedExecutions(this.options.executions.state);
    if (unfinished.length === 0) return closed;
    const lease = await this.options.store.tryLease(RECONCILE_LEASE);
    if (!lease) return closed;
    try {
      await this.closeAll(unfinished, closed);
    } finally {
      await lease.release();
    }
    return closed;
  }

  private async closeAll(
    unfinished: ReturnType<typeof unfinishedExecutions>,
    closed: number[],
  ): Promise<void> {
    for (const execution of unfinished) {
      const revision = await this.options.store.streamRevision(executionStream(execution.id));
      if (revision === undefined) continue;
      try {
        const { position } = await this.options.store.append(
          executionStream(execution.id),
          [
            stacksEvent('ReconcileCompleted', {
              execution_id: execution.id,
              status: 'failed',
              error_message: INTERRUPTED_RECONCILE_MESSAGE,
              deleted_files: execution.deletedFiles,
              marked_records: execution.markedRecords,
              failed: execution.failed,
              kept_fresh: execution.keptFresh,
              ignored_files: execution.ignoredFiles,
              environments: execution.environments,
            }),
          ],
          { expectedRevision: revision },
        );
        await this.options.executions.waitFor(position);
        closed.push(execution.id);
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
  }

  private async open(trigger: ReconcileTrigger, userId: string | null): Promise<ExecutionLog> {
    const { store, executions } = this.options;
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const id = Math.max(executions.state.maxExecutionId, this.lastTried) + 1;
      this.lastTried = id;
      try {
        const { position, nextRevision } = await store.append(
          executionStream(id),
          [stacksEvent('ReconcileStarted', { execution_id: id, trigger, user_id: userId })],
          { expectedRevision: 'no_stream' },
        );
        await executions.waitFor(position);
        return new ExecutionLog(store, id, nextRevision - 1);
      } catch (error) {
        if (isConflict(error)) continue;
        throw error;
      }
    }
    throw new StacksError(
      'ids_exhausted',
      `could not allocate an execution id after ${MAX_ID_ATTEMPTS} attempts`,
    );
  }

  private async execute(trigger: ReconcileTrigger, userId: string | null): Promise<ReconcileExecution> {
    const log = await this.open(trigger, userId);
    const tally: Tally = {
      deletedFiles: 0,
      markedRecords: 0,
      failed: 0,
      keptFresh: 0,
      ignoredFiles: 0,
      environments: [],
    };
    let errorMessage: string | null = null;
    try {
      await this.reconcile(log, tally);
    } catch (error) {
      errorMessage = this.abort.signal.aborted ? STOPPED_RECONCILE_MESSAGE : errorText(error);
    }
    // What was done before a throw is still recorded, so the counts match the events.
    await log.flush().catch(() => undefined);
    const status = errorMessage !== null ? 'failed' : tally.failed > 0 ? 'warning' : 'success';
    log.add(
      stacksEvent('ReconcileCompleted', {
        execution_id: log.executionId,
        status,
        error_message: errorMessage,
        deleted_files: tally.deletedFiles,
        marked_records: tally.markedRecords,
        failed: tally.failed,
        kept_fresh: tally.keptFresh,
        ignored_files: tally.ignoredFiles,
        environments: tally.environments,
      }),
    );
    await log.flush();
    await this.options.executions.waitFor(log.lastPosition);
    const row = this.options.executions.state.executions.get(log.executionId);
    if (!row)
      throw new StacksError('internal_error', `execution ${log.executionId} is not in the read model`);
    return row;
  }

  private checkAbort(): void {
    if (this.abort.signal.aborted) throw new Error(STOPPED_RECONCILE_MESSAGE);
  }

  private fail(
    log: ExecutionLog,
    tally: Tally,
    env: EnvironmentId,
    element: { path: string } | { runId: number },
    error: unknown,
  ) {
    tally.failed += 1;
    log.add(
      stacksEvent('ReconcileElementFailed', {
        execution_id: log.executionId,
        environment_id: env,
        ...('path' in element ? { path: element.path } : { run_id: element.runId }),
        error: errorText(error),
      }),
    );
  }

  private async reconcile(log: ExecutionLog, tally: Tally): Promise<void> {
    const { dataDir, runs } = this.options;
    const relative = (env: EnvironmentId, name?: string) =>
      [DEPLOY_LOGS_DIR, env === null ? 'null' : String(env), ...(name === undefined ? [] : [name])].join('/');
    // Records before the listing decide what may be flagged; after it, what counts as an orphan (plan).
    let mark = performance.now();
    const phase = (name: Parameters<NonNullable<ReconcilerOptions['onPhase']>>[0]) => {
      const at = performance.now();
      this.options.onPhase?.(name, at - mark);
      mark = at;
    };
    const before = new RecordIndex(recordViews(runs.state));
    const folders = await this.listFolders(before);
    phase('list');
    for (const folder of folders)
      if (!folder.listed)
        this.fail(log, tally, folder.environmentId, { path: relative(folder.environmentId) }, folder.error);
    const after = new RecordIndex(recordViews(runs.state));
    // Only entries without a record are stat'ed: their age is all the plan needs of them.
    const modified = new Map<string, number>();
    const gone = new Set<string>();
    const toStat: Array<{ env: EnvironmentId; name: string }> = [];
    for (const folder of folders)
      if (folder.listed)
        for (const name of unmatchedLogNames(folder, after)) toStat.push({ env: folder.environmentId, name });
    for (let i = 0; i < toStat.length; i += BATCH) {
      this.checkAbort();
      await eachLimited(toStat.slice(i, i + BATCH), IO_CONCURRENCY, async ({ env, name }) => {
        try {
          const info = await lstat(join(environmentLogDir(dataDir, env), name));
          modified.set(modifiedKey(env, name), info.mtimeMs);
        } catch (error) {
          gone.add(modifiedKey(env, name));
          if (!isMissing(error)) this.fail(log, tally, env, { path: relative(env, name) }, error);
        }
      });
      await log.flush();
    }
    phase('stat');
    const plan = planReconcile({
      now: (this.options.now ?? Date.now)(),
      graceMs: this.options.graceMs ?? RECONCILE_GRACE_MS,
      folders: folders.map((f) =>
        gone.size === 0
          ? f
          : { ...f, names: f.names.filter((n) => !gone.has(modifiedKey(f.environmentId, n))) },
      ),
      modified,
      before,
      after,
    });
    tally.environments = plan.environments;
    tally.keptFresh = plan.keptFresh;
    tally.ignoredFiles = plan.ignored;
    const deletes = interleaveByEnvironment(plan.actions.filter((a) => a.kind === 'delete_file'));
    const marks = plan.actions.filter((a) => a.kind === 'mark_missing');
    for (let i = 0; i < deletes.length; i += BATCH) {
      this.checkAbort();
      await eachLimited(deletes.slice(i, i + BATCH), IO_CONCURRENCY, (action) =>
        this.deleteOrphan(log, tally, action as Extract<ReconcileAction, { kind: 'delete_file' }>, relative),
      );
      await log.flush();
    }
    phase('delete');
    // A flag is only an event: no run's stream is touched, so flags go out many per append.
    for (let i = 0; i < marks.length; i += BATCH) {
      this.checkAbort();
      for (const action of marks.slice(i, i + BATCH) as Array<
        Extract<ReconcileAction, { kind: 'mark_missing' }>
      >) {
        // Deleted or flagged since the plan: nothing to flag.
        const run = runs.state.runs.get(action.runId);
        if (!run || run.logMissing) continue;
        tally.markedRecords += 1;
        log.add(
          stacksEvent('RunLogMissing', {
            run_id: action.runId,
            environment_id: action.environmentId,
            log_file: action.logFile,
            execution_id: log.executionId,
          }),
        );
      }
      await log.flush();
    }
    await runs.waitFor(log.lastPosition);
    phase('flag');
  }

  private async deleteOrphan(
    log: ExecutionLog,
    tally: Tally,
    action: Extract<ReconcileAction, { kind: 'delete_file' }>,
    relative: (env: EnvironmentId, name?: string) => string,
  ): Promise<void> {
    const env = action.environmentId;
    // A run started since the plan under this id (ids above every record's, from a restored folder,
    // say) owns the file now.
    if (this.options.runs.state.runs.get(action.runId)?.environmentId === env) return;
    try {
      await unlink(join(environmentLogDir(this.options.dataDir, env), action.file));
    } catch (error) {
      if (!isMissing(error)) this.fail(log, tally, env, { path: relative(env, action.file) }, error);
      return;
    }
    tally.deletedFiles += 1;
    log.add(
      stacksEvent('OrphanLogDeleted', {
        execution_id: log.executionId,
        environment_id: env,
        file: action.file,
        modified_at: new Date(action.modifiedMs).toISOString(),
      }),
    );
  }

  /**
   * The log folders: every environment folder under `<data>/deploy-logs/` (other entries there are
   * left alone), plus the folders of environments that only have records (absent = empty).
   */
  private async listFolders(records: RecordIndex): Promise<Array<FolderListing & { error?: unknown }>> {
    const root = join(this.options.dataDir, DEPLOY_LOGS_DIR);
    const envs = new Map<string, EnvironmentId>();
    let entries: string[] = [];
    try {
      entries = await readdir(root);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    for (const name of entries) {
      const env = environmentOfFolder(name);
      if (env !== undefined) envs.set(name, env);
    }
    for (const env of records.environments()) envs.set(env === null ? 'null' : String(env), env);
    const folders: Array<FolderListing & { error?: unknown }> = [];
    await eachLimited([...envs.values()], 8, async (env) => {
      try {
        folders.push({
          environmentId: env,
          listed: true,
          names: await readdir(environmentLogDir(this.options.dataDir, env)),
        });
      } catch (error) {
        if (isMissing(error)) folders.push({ environmentId: env, listed: true, names: [] });
        // A folder that is a file, or may not be read: nothing of it is known.
        else folders.push({ environmentId: env, listed: false, names: [], error });
      }
    });
    return folders;
  }
}
