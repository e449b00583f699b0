import type { ScheduledTask } from 'node-cron';
import { distinctUntilChanged, map, type Observable, type Subscription } from 'rxjs';
import { type DeployHistoryState, settingsOf } from '../../../projections/deploy-history.js';
import { type DeployRun, isGoodRunStatus, isTerminalRunStatus } from '../../../projections/deploy-runs.js';
import {
  type RetentionExecution,
  type RetentionExecutionsState,
  retentionExecutions,
} from '../../../projections/retention-executions.js';
import { ProjectionRunner } from '../../../projections/runtime.js';
import type { GeneralSettings } from '../../../projections/settings.js';
import {
  type EnvironmentId,
  type ReconcileTrigger,
  retentionStream,
  stacksEvent,
} from '../../../streams/stacks.js';
import { WrongExpectedRevisionError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import type { StacksConfig } from '../contracts.js';
import { StacksError } from '../errors.js';
import { cronTask } from '../schedules/cron-task.js';
import { ScheduleLease } from '../schedules/lease.js';

/**
 * Deploy-run retention (docs/stacks.md#deploy-run-retention): per stack (`keepRuns`/`keepDays` of its history settings) or
 * per environment (config `retention`), a schedule like the reconcile's (settings
 * `deployRunRetentionCron`/`deployRunRetentionEnabled`, a manual run, execution rows) deletes runs
 * through the normal delete (log, job stream, output key, deploy contents no run needs any more).
 * Never a run that is not terminal, never the last successful run of a stack: a rollback needs it.
 */

interface RetentionPolicy {
  keepRuns: number | null;
  keepDays: number | null;
}

interface RetentionPlan {
  remove: number[];
  /** Runs a policy would remove that are kept because each is the last successful run of its stack. */
  keptLastGood: number[];
}

const DAY_MS = 86_400_000;

/**
 * Which runs go, stack by stack: a run past the newest `keepRuns` runs of its stack (all runs count,
 * running ones too), or finished more than `keepDays` days before `now`. Pure.
 */
export function planRetention(
  runs: Iterable<DeployRun>,
  policyOf: (run: DeployRun) => RetentionPolicy,
  now: number,
): RetentionPlan {
  const byStack = new Map<string, DeployRun[]>();
  for (const run of runs) {
    const key = `${run.environmentId ?? 'local'}/${run.stack}`;
    const list = byStack.get(key) ?? [];
    list.push(run);
    byStack.set(key, list);
  }
  const plan: RetentionPlan = { remove: [], keptLastGood: [] };
  for (const list of byStack.values()) {
    list.sort((a, b) => b.id - a.id);
    const policy = policyOf(list[0] as DeployRun);
    if (policy.keepRuns === null && policy.keepDays === null) continue;
    const lastGood = list.find((run) => isGoodRunStatus(run.status))?.id;
    list.forEach((run, index) => {
      if (!isTerminalRunStatus(run.status)) return;
      const tooMany = policy.keepRuns !== null && index >= policy.keepRuns;
      const at = Date.parse(run.finishedAt ?? run.startedAt);
      const tooOld = policy.keepDays !== null && now - at > policy.keepDays * DAY_MS;
      if (!tooMany && !tooOld) return;
      if (run.id === lastGood) plan.keptLastGood.push(run.id);
      else plan.remove.push(run.id);
    });
  }
  plan.remove.sort((a, b) => a - b);
  return plan;
}

interface RetentionHost {
  store: EventStore;
  config: StacksConfig;
  runs: { all(): Iterable<DeployRun>; deleteRun(runId: number, userId: string | null): Promise<unknown> };
  history: () => DeployHistoryState;
  settings: Observable<GeneralSettings>;
}

const MAX_ID_ATTEMPTS = 100;

export class Retention {
  readonly model: ProjectionRunner<RetentionExecutionsState>;
  private running: Promise<RetentionExecution> | undefined;
  private task: ScheduledTask | undefined;
  private subscription: Subscription | undefined;
  private readonly leadership: ScheduleLease;

  private constructor(private readonly host: RetentionHost) {
    this.model = new ProjectionRunner(host.store, retentionExecutions);
    this.leadership = new ScheduleLease(host.store, 'deploy_run_retention:schedule', 'retention', () => {
      this.subscription = this.host.settings
        .pipe(
          map((s) => (s.deployRunRetentionEnabled ? s.deployRunRetentionCron : null)),
          distinctUntilChanged(),
        )
        .subscribe((expression) => this.reschedule(expression));
    });
  }

  /** Its read model catches up in the background; a run waits for it. */
  static open(host: RetentionHost): Retention {
    const retention = new Retention(host);
    void retention.model.start().catch((error: unknown) => {
      process.stderr.write(`stacks: the retention read model could not start: ${(error as Error).message}\n`);
    });
    return retention;
  }

  /** The policy of a run's stack: its own settings where set, else its environment's. */
  policyOf(run: DeployRun): RetentionPolicy {
    const own = settingsOf(this.host.history(), run.environmentId, run.stack);
    const env = this.host.config.retention?.get(run.environmentId) ?? { keepRuns: null, keepDays: null };
    return { keepRuns: own.keepRuns ?? env.keepRuns, keepDays: own.keepDays ?? env.keepDays };
  }

  /** One run of the schedule; 409 while one runs. Resolves with its closed execution. */
  run(trigger: ReconcileTrigger, userId: string | null): Promise<RetentionExecution> {
    if (this.running)
      return Promise.reject(new StacksError('already_running', 'deploy_run_retention is already running'));
    this.running = this.execute(trigger, userId).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async execute(trigger: ReconcileTrigger, userId: string | null): Promise<RetentionExecution> {
    await this.model.waitFor(await this.host.store.headPosition());
    const id = await this.startExecution(trigger, userId);
    const deleted: number[] = [];
    const failures: Array<{ run_id: number; error: string }> = [];
    const environments: Array<{ run_id: number; environment_id: EnvironmentId }> = [];
    let plan: RetentionPlan = { remove: [], keptLastGood: [] };
    let error: string | null = null;
    try {
      const all = [...this.host.runs.all()];
      plan = planRetention(all, (run) => this.policyOf(run), Date.now());
      const named = new Set([...plan.remove, ...plan.keptLastGood]);
      for (const run of all)
        if (named.has(run.id)) environments.push({ run_id: run.id, environment_id: run.environmentId });
      for (const runId of plan.remove) {
        try {
          await this.host.runs.deleteRun(runId, userId);
          deleted.push(runId);
        } catch (failure) {
          failures.push({ run_id: runId, error: (failure as Error).message });
        }
      }
    } catch (failure) {
      error = (failure as Error).message;
    }
    const status = error !== null ? 'failed' : failures.length > 0 ? 'warning' : 'success';
    const { position } = await this.host.store.append(retentionStream(id), [
      stacksEvent('RetentionCompleted', {
        execution_id: id,
        status,
        error_message: error,
        deleted_runs: deleted,
        kept_last_good: plan.keptLastGood,
        failures,
        run_environments: environments,
      }),
    ]);
    await this.model.waitFor(position);
    const execution = this.model.state.executions.get(id);
    if (!execution)
      throw new StacksError('internal_error', `retention execution ${id} is missing from its read model`);
    return execution;
  }

  private async startExecution(trigger: ReconcileTrigger, userId: string | null): Promise<number> {
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const id = this.model.state.maxExecutionId + 1 + attempt;
      try {
        const { position } = await this.host.store.append(
          retentionStream(id),
          [stacksEvent('RetentionStarted', { execution_id: id, trigger, user_id: userId })],
          { expectedRevision: 'no_stream' },
        );
        await this.model.waitFor(position);
        return id;
      } catch (failure) {
        if (!(failure instanceof WrongExpectedRevisionError)) throw failure;
      }
    }
    throw new StacksError('ids_exhausted', 'could not allocate a retention execution id');
  }

  /** Follows the settings with a cron task once this instance holds the schedule's lease. */
  startSchedule(): Promise<void> {
    return this.leadership.take();
  }

  private reschedule(expression: string | null): void {
    void this.task?.destroy();
    this.task =
      expression === null
        ? undefined
        : cronTask(
            'deploy_run_retention',
            expression,
            () => this.run('cron', null),
            (line) => process.stderr.write(`${line}\n`),
          );
  }

  async close(): Promise<void> {
    this.leadership.stop();
    this.subscription?.unsubscribe();
    this.reschedule(null);
    await this.running?.catch(() => undefined);
    await this.leadership.release();
    await this.model.stop();
  }
}
