import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  type EnvironmentId,
  RETENTION_STREAM_PREFIX,
  type ReconcileTrigger,
  type StacksEventMap,
} from '../streams/stacks.js';
import type { Projection } from './projection.js';

export const RETENTION_SCHEDULE_TYPE = 'deploy_run_retention' as const;

/** One run of the deploy-run retention schedule (docs/stacks.md#deploy-run-retention). */
export interface RetentionExecution {
  id: number;
  status: string;
  trigger: ReconcileTrigger;
  userId: string | null;
  startedAt: string;
  finishedAt: string | null;
  errorMessage: string | null;
  deletedRuns: number[];
  keptLastGood: number[];
  failures: Array<{ runId: number; error: string }>;
  /** The environment of each run named, as recorded (empty for executions recorded before it was). */
  runEnvironments: Array<{ runId: number; environmentId: EnvironmentId }>;
}

export interface RetentionExecutionsState {
  executions: Map<number, RetentionExecution>;
  maxExecutionId: number;
}

/**
 * The execution row, in the shape of the reconcile's (`GET /api/schedules/executions`), with only the
 * run ids `shows` lets through (a caller sees the runs of the environments it may view).
 */
export function toRetentionJson(e: RetentionExecution, shows: (runId: number) => boolean = () => true) {
  return {
    id: e.id,
    scheduleType: RETENTION_SCHEDULE_TYPE,
    scheduleId: 0 as const,
    entityName: RETENTION_SCHEDULE_TYPE,
    environmentId: null,
    status: e.status,
    trigger: e.trigger,
    errorMessage: e.errorMessage,
    startedAt: e.startedAt,
    finishedAt: e.finishedAt,
    details: {
      deletedRuns: e.deletedRuns.filter(shows),
      keptLastGood: e.keptLastGood.filter(shows),
      failed: e.failures.length,
      failures: e.failures.filter((f) => shows(f.runId)).map((f) => ({ ...f })),
      userId: e.userId,
    },
  };
}

export const retentionExecutions: Projection<RetentionExecutionsState> = {
  name: 'retention-executions',
  // 2: executions keep the environments of their runs.
  version: 2,
  initial: () => ({ executions: new Map(), maxExecutionId: 0 }),
  evolve(state, event: RecordedEvent) {
    if (!event.stream.startsWith(RETENTION_STREAM_PREFIX)) return state;
    if (event.type === 'RetentionStarted') {
      const d = event.data as StacksEventMap['RetentionStarted'];
      state.maxExecutionId = Math.max(state.maxExecutionId, d.execution_id);
      state.executions.set(d.execution_id, {
        id: d.execution_id,
        status: 'running',
        trigger: d.trigger,
        userId: d.user_id,
        startedAt: event.metadata.at,
        finishedAt: null,
        errorMessage: null,
        deletedRuns: [],
        keptLastGood: [],
        failures: [],
        runEnvironments: [],
      });
    } else if (event.type === 'RetentionCompleted') {
      const d = event.data as StacksEventMap['RetentionCompleted'];
      const e = state.executions.get(d.execution_id);
      if (!e) return state;
      e.status = d.status;
      e.finishedAt = event.metadata.at;
      e.errorMessage = d.error_message;
      e.deletedRuns = [...d.deleted_runs];
      e.keptLastGood = [...d.kept_last_good];
      e.failures = d.failures.map((f) => ({ runId: f.run_id, error: f.error }));
      e.runEnvironments = (d.run_environments ?? []).map((r) => ({
        runId: r.run_id,
        environmentId: r.environment_id,
      }));
    }
    return state;
  },
  snapshot: {
    save: (state) => ({
      executions: [...state.executions.values()] as unknown as Json,
      maxExecutionId: state.maxExecutionId,
    }),
    load: (json) => {
      const saved = json as unknown as { executions: RetentionExecution[]; maxExecutionId: number };
      return {
        executions: new Map(saved.executions.map((e) => [e.id, e])),
        maxExecutionId: saved.maxExecutionId,
      };
    },
  },
};
