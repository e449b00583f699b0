import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  type EnvironmentId,
  JOB_STREAM_PREFIX,
  type JobKind,
  RUN_STREAM_PREFIX,
  type StacksEventMap,
  stackStream,
} from '../streams/stacks.js';
import type { Projection } from './projection.js';

/**
 * The audit trail (docs/stacks.md#audit-trail): who did what and when, one entry per event that records an act —
 * stack create/update/delete, variables (names only), deploys and their trigger, run deletions,
 * settings, webhook deliveries, notifications. Entries name no value of a variable: the events they come
 * from hold none. `id` is the event's position in the log, so entries sort as the log does.
 */
interface AuditEntry {
  id: number;
  at: string;
  type: string;
  user: string | null;
  stack: string | null;
  environmentId: EnvironmentId;
  details: Record<string, Json>;
}

export interface AuditState {
  /** Oldest first (log order). */
  entries: AuditEntry[];
  /** The stack and environment of each run, for the events that name only the run (RunDeleted). */
  runs: Map<number, { stack: string; environmentId: EnvironmentId }>;
  /** The variable names of each stack (stackStream), to tell added from removed ones. */
  variables: Map<string, string[]>;
  /** Jobs running (JobStarted until JobFinished), for the events that name only the job. */
  jobs: Map<string, RunningJob>;
}

interface RunningJob {
  kind: JobKind;
  stack: string;
  environmentId: EnvironmentId;
  runId: number | null;
  /** Whoever cancelled it, once someone did (JobCancelRequested). */
  cancelledBy?: string | null;
}

/** The jobs that are a stack operation of their own (no run): their start and end are audited. */
const OPERATIONS: ReadonlySet<JobKind> = new Set(['start', 'stop', 'restart', 'down']);

type Data<T extends keyof StacksEventMap> = StacksEventMap[T];

const who = (event: RecordedEvent, userId: string | null | undefined): string | null =>
  userId ?? (typeof event.metadata.userId === 'string' ? event.metadata.userId : null);

/** The start of a schedule's run (the reconcile's, the retention's), by whoever asked for it. */
const scheduleRun = (
  event: RecordedEvent,
  scheduleType: 'deploy_log_reconcile' | 'deploy_run_retention',
  d: Data<'ReconcileStarted'> | Data<'RetentionStarted'>,
): Omit<AuditEntry, 'id' | 'at'> => ({
  type: 'schedule.run',
  user: who(event, d.user_id),
  stack: null,
  environmentId: null,
  details: { scheduleType, executionId: d.execution_id, trigger: d.trigger },
});

function entryOf(state: AuditState, event: RecordedEvent): Omit<AuditEntry, 'id' | 'at'> | undefined {
  switch (event.type) {
    case 'StackCreated': {
      const d = event.data as Data<'StackCreated'>;
      state.variables.set(
        stackStream(d.environment_id, d.stack),
        d.variables.map((v) => v.name),
      );
      return {
        type: 'stack.created',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: { variables: d.variables.map((v) => v.name), secretProvider: d.secret_provider },
      };
    }
    case 'StackComposeSaved': {
      const d = event.data as Data<'StackComposeSaved'>;
      return {
        type: 'stack.compose_saved',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: { composeHash: d.compose_hash },
      };
    }
    case 'StackVariablesSet': {
      const d = event.data as Data<'StackVariablesSet'>;
      const key = stackStream(d.environment_id, d.stack);
      const before = state.variables.get(key) ?? [];
      const after = d.variables.map((v) => v.name);
      state.variables.set(key, after);
      return {
        type: 'stack.variables_changed',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: {
          variables: after,
          added: after.filter((n) => !before.includes(n)),
          removed: before.filter((n) => !after.includes(n)),
        },
      };
    }
    case 'StackDeleted': {
      const d = event.data as Data<'StackDeleted'>;
      state.variables.delete(stackStream(d.environment_id, d.stack));
      return {
        type: 'stack.deleted',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: {},
      };
    }
    case 'GitStackConfigured': {
      const d = event.data as Data<'GitStackConfigured'>;
      return {
        type: 'git_stack.configured',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: {
          repository: d.repository,
          branch: d.branch,
          composePath: d.compose_path,
          autoDeployCron: d.auto_deploy_cron,
        },
      };
    }
    case 'ContainerConsoleOpened':
    case 'ContainerConsoleClosed': {
      const d = event.data as Data<'ContainerConsoleOpened'> | Data<'ContainerConsoleClosed'>;
      const opened = event.type === 'ContainerConsoleOpened';
      return {
        type: opened ? 'console.opened' : 'console.closed',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: {
          container: d.container,
          consoleId: d.console_id,
          ...('command' in d ? { command: [...d.command] } : {}),
          ...('exit_code' in d ? { exitCode: d.exit_code } : {}),
        },
      };
    }
    case 'StackHistorySettingsSet': {
      const d = event.data as Data<'StackHistorySettingsSet'>;
      return {
        type: 'stack.history_settings_changed',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: { autoRollback: d.auto_rollback, keepRuns: d.keep_runs, keepDays: d.keep_days },
      };
    }
    case 'RunStarted': {
      if (!event.stream.startsWith(RUN_STREAM_PREFIX)) return undefined;
      const d = event.data as Data<'RunStarted'>;
      state.runs.set(d.run_id, { stack: d.stack, environmentId: d.environment_id });
      const extra = d.extra ?? {};
      return {
        type: 'deploy.started',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: {
          runId: d.run_id,
          trigger: d.trigger,
          options: { ...d.options },
          ...(extra.redeployOf !== undefined ? { redeployOf: extra.redeployOf } : {}),
          ...(extra.rollbackOf !== undefined ? { rollbackOf: extra.rollbackOf } : {}),
        },
      };
    }
    case 'RunCompleted':
    case 'RunCompletedSealed': {
      if (!event.stream.startsWith(RUN_STREAM_PREFIX)) return undefined;
      const d = event.data as Data<'RunCompletedSealed'>;
      const run = state.runs.get(d.run_id);
      return {
        type: 'deploy.finished',
        user: null,
        stack: run?.stack ?? null,
        environmentId: run?.environmentId ?? null,
        details: { runId: d.run_id, status: d.status, exitCode: d.exit_code },
      };
    }
    case 'RunDeleted': {
      const d = event.data as Data<'RunDeleted'>;
      const run = state.runs.get(d.run_id);
      state.runs.delete(d.run_id);
      return {
        type: 'run.deleted',
        user: who(event, d.user_id),
        stack: run?.stack ?? null,
        environmentId: run?.environmentId ?? null,
        details: { runId: d.run_id },
      };
    }
    case 'SettingsChanged': {
      const d = event.data as Data<'SettingsChanged'>;
      const { user_id: userId, ...changed } = d;
      return {
        type: 'settings.changed',
        user: who(event, userId),
        stack: null,
        environmentId: null,
        details: { ...changed },
      };
    }
    case 'GitWebhookDeliveryHandled': {
      const d = event.data as Data<'GitWebhookDeliveryHandled'>;
      return {
        type: 'webhook.delivery',
        user: null,
        stack: d.stack,
        environmentId: d.environment_id,
        details: { deliveryId: d.delivery_id, outcome: d.outcome, runId: d.run_id },
      };
    }
    case 'JobStarted': {
      if (!event.stream.startsWith(JOB_STREAM_PREFIX)) return undefined;
      const d = event.data as Data<'JobStarted'>;
      state.jobs.set(d.job_id, {
        kind: d.kind,
        stack: d.stack,
        environmentId: d.environment_id,
        runId: d.run_id,
      });
      if (!OPERATIONS.has(d.kind)) return undefined;
      return {
        type: 'operation.started',
        user: who(event, d.user_id),
        stack: d.stack,
        environmentId: d.environment_id,
        details: { operation: d.kind, jobId: d.job_id },
      };
    }
    case 'JobCancelRequested': {
      if (!event.stream.startsWith(JOB_STREAM_PREFIX)) return undefined;
      const d = event.data as Data<'JobCancelRequested'>;
      const job = state.jobs.get(d.job_id);
      if (job) job.cancelledBy = d.user_id;
      return {
        type: 'job.cancelled',
        user: who(event, d.user_id),
        stack: job?.stack ?? null,
        environmentId: job?.environmentId ?? null,
        details: { jobId: d.job_id, kind: job?.kind ?? null, runId: job?.runId ?? null },
      };
    }
    case 'JobFinished':
    case 'JobFinishedSealed': {
      if (!event.stream.startsWith(JOB_STREAM_PREFIX)) return undefined;
      const d = event.data as Data<'JobFinishedSealed'>;
      const job = state.jobs.get(d.job_id);
      state.jobs.delete(d.job_id);
      if (!job || !OPERATIONS.has(job.kind)) return undefined;
      const status = d.success ? 'success' : job.cancelledBy !== undefined ? 'cancelled' : 'failed';
      return {
        type: 'operation.finished',
        user: null,
        stack: job.stack,
        environmentId: job.environmentId,
        details: {
          operation: job.kind,
          jobId: d.job_id,
          status,
          ...(d.exitCode !== undefined ? { exitCode: d.exitCode } : {}),
        },
      };
    }
    case 'ReconcileStarted':
      return scheduleRun(event, 'deploy_log_reconcile', event.data as Data<'ReconcileStarted'>);
    case 'RetentionStarted':
      return scheduleRun(event, 'deploy_run_retention', event.data as Data<'RetentionStarted'>);
    case 'NotificationAttempted': {
      const d = event.data as Data<'NotificationAttempted'>;
      return {
        type: d.ok ? 'notification.sent' : 'notification.failed',
        user: null,
        stack: null,
        environmentId: null,
        details: {
          channel: d.channel,
          event: d.event,
          key: d.key,
          attempt: d.attempt,
          status: d.status,
          error: d.error,
        },
      };
    }
    default:
      return undefined;
  }
}

export const audit: Projection<AuditState> = {
  name: 'audit',
  // 2: the retention's runs are in the trail too (schedule.run), as the reconcile's always were.
  // 3: stack operations (start, stop, restart, down) and cancels of jobs.
  version: 3,
  initial: () => ({ entries: [], runs: new Map(), variables: new Map(), jobs: new Map() }),
  evolve(state, event) {
    const entry = entryOf(state, event);
    if (entry) state.entries.push({ id: event.position, at: event.metadata.at, ...entry });
    return state;
  },
  snapshot: {
    save: (state) => ({
      entries: state.entries as unknown as Json,
      runs: [...state.runs.entries()] as unknown as Json,
      variables: [...state.variables.entries()],
      jobs: [...state.jobs.entries()] as unknown as Json,
    }),
    load: (json) => {
      const saved = json as unknown as {
        entries: AuditEntry[];
        runs: Array<[number, { stack: string; environmentId: EnvironmentId }]>;
        variables: Array<[string, string[]]>;
        jobs?: Array<[string, RunningJob]>;
      };
      return {
        entries: saved.entries,
        runs: new Map(saved.runs),
        variables: new Map(saved.variables),
        jobs: new Map(saved.jobs ?? []),
      };
    },
  },
};

export interface AuditFilter {
  user?: string;
  stack?: string;
  /** Undefined: every environment; null: the local one. */
  environmentId?: EnvironmentId;
  /** Types, or prefixes ending in `.` (`deploy.` = every deploy type). */
  types?: string[];
  since?: string;
  until?: string;
}

const matchesType = (type: string, types: readonly string[]) =>
  types.some((t) => (t.endsWith('.') ? type.startsWith(t) : type === t));

/** The entries a filter keeps, newest first. Pure. */
export function* auditEntries(state: AuditState, filter: AuditFilter): Generator<AuditEntry> {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const e = state.entries[i] as AuditEntry;
    if (filter.user !== undefined && e.user !== filter.user) continue;
    if (filter.stack !== undefined && e.stack !== filter.stack) continue;
    if (filter.environmentId !== undefined && e.environmentId !== filter.environmentId) continue;
    if (filter.types && !matchesType(e.type, filter.types)) continue;
    if (filter.since !== undefined && e.at < filter.since) continue;
    if (filter.until !== undefined && e.at > filter.until) continue;
    yield e;
  }
}
