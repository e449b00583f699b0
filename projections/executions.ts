import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  type EnvironmentId,
  EXECUTION_STREAM_PREFIX,
  type ReconcileTrigger,
  type StacksEventMap,
} from '../streams/stacks.js';
import type { Projection } from './projection.js';

/** The schedule type of the reconcile's execution rows. */
export const RECONCILE_SCHEDULE_TYPE = 'deploy_log_reconcile';

/** Element failures a row lists; `failed` still counts every one (a broken disk can fail 100,000). */
const MAX_LISTED_FAILURES = 100;

type ReconcileFailure = { path: string; error: string } | { runId: number; error: string };

/** One run of the `deploy_log_reconcile` schedule, as its events made it. */
export interface ReconcileExecution {
  id: number;
  /** `running`, then `success`, `warning` or `failed`. */
  status: string;
  trigger: ReconcileTrigger;
  userId: string | null;
  startedAt: string;
  finishedAt: string | null;
  errorMessage: string | null;
  deletedFiles: number;
  markedRecords: number;
  failed: number;
  keptFresh: number;
  ignoredFiles: number;
  environments: EnvironmentId[];
  failures: ReconcileFailure[];
}

export interface ExecutionsState {
  executions: Map<number, ReconcileExecution>;
  /** The highest execution id ever started: the next one is one more. */
  maxExecutionId: number;
}

/** The execution row JSON of `GET /api/schedules/executions` (the brief's pinned shape). */
export interface ReconcileExecutionJson {
  id: number;
  scheduleType: typeof RECONCILE_SCHEDULE_TYPE;
  scheduleId: 0;
  entityName: typeof RECONCILE_SCHEDULE_TYPE;
  environmentId: null;
  status: string;
  trigger: ReconcileTrigger;
  errorMessage: string | null;
  startedAt: string;
  finishedAt: string | null;
  details: {
    deletedFiles: number;
    markedRecords: number;
    failed: number;
    keptFresh: number;
    ignoredFiles: number;
    environments: EnvironmentId[];
    failures: ReconcileFailure[];
    userId: string | null;
  };
}

export function toExecutionJson(execution: ReconcileExecution): ReconcileExecutionJson {
  return {
    id: execution.id,
    scheduleType: RECONCILE_SCHEDULE_TYPE,
    scheduleId: 0,
    entityName: RECONCILE_SCHEDULE_TYPE,
    environmentId: null,
    status: execution.status,
    trigger: execution.trigger,
    errorMessage: execution.errorMessage,
    startedAt: execution.startedAt,
    finishedAt: execution.finishedAt,
    details: {
      deletedFiles: execution.deletedFiles,
      markedRecords: execution.markedRecords,
      failed: execution.failed,
      keptFresh: execution.keptFresh,
      ignoredFiles: execution.ignoredFiles,
      environments: [...execution.environments],
      failures: execution.failures.map((f) => ({ ...f })),
      userId: execution.userId,
    },
  };
}

/** Executions still `running`: what a restart must close. */
export const unfinishedExecutions = (state: ExecutionsState): ReconcileExecution[] =>
  [...state.executions.values()].filter((e) => e.finishedAt === null).sort((a, b) => a.id - b.id);

type ExecutionEventType =
  | 'ReconcileStarted'
  | 'OrphanLogDeleted'
  | 'RunLogMissing'
  | 'ReconcileElementFailed'
  | 'ReconcileCompleted';
type ExecutionEvent = {
  [T in ExecutionEventType]: RecordedEvent<T, StacksEventMap[T]>;
}[ExecutionEventType];
const EXECUTION_EVENT_TYPES = new Set<string>([
  'ReconcileStarted',
  'OrphanLogDeleted',
  'RunLogMissing',
  'ReconcileElementFailed',
  'ReconcileCompleted',
]);

/**
 * Applies one event of a `schedule-execution-*` stream. Counts grow event by event, so a running
 * execution shows its progress; ReconcileCompleted then sets the counts the run itself reports.
 */
function evolveExecution(state: ExecutionsState, event: ExecutionEvent): ExecutionsState {
  if (event.type === 'ReconcileStarted') {
    const d = event.data;
    state.maxExecutionId = Math.max(state.maxExecutionId, d.execution_id);
    state.executions.set(d.execution_id, {
      id: d.execution_id,
      status: 'running',
      trigger: d.trigger,
      userId: d.user_id,
      startedAt: event.metadata.at,
      finishedAt: null,
      errorMessage: null,
      deletedFiles: 0,
      markedRecords: 0,
      failed: 0,
      keptFresh: 0,
      ignoredFiles: 0,
      environments: [],
      failures: [],
    });
    return state;
  }
  const execution = state.executions.get(event.data.execution_id);
  if (!execution) return state;
  switch (event.type) {
    case 'OrphanLogDeleted':
      execution.deletedFiles += 1;
      break;
    case 'RunLogMissing':
      execution.markedRecords += 1;
      break;
    case 'ReconcileElementFailed': {
      const d = event.data;
      execution.failed += 1;
      if (execution.failures.length < MAX_LISTED_FAILURES)
        execution.failures.push(
          d.run_id !== undefined
            ? { runId: d.run_id, error: d.error }
            : { path: d.path ?? '', error: d.error },
        );
      break;
    }
    case 'ReconcileCompleted': {
      const d = event.data;
      execution.status = d.status;
      execution.finishedAt = event.metadata.at;
      execution.errorMessage = d.error_message;
      execution.deletedFiles = d.deleted_files;
      execution.markedRecords = d.marked_records;
      execution.failed = d.failed;
      execution.keptFresh = d.kept_fresh;
      execution.ignoredFiles = d.ignored_files;
      execution.environments = [...d.environments];
      break;
    }
  }
  return state;
}

export const reconcileExecutions: Projection<ExecutionsState> = {
  name: 'reconcile-executions',
  version: 1,
  initial: () => ({ executions: new Map(), maxExecutionId: 0 }),
  evolve(state, event) {
    if (event.stream.startsWith(EXECUTION_STREAM_PREFIX) && EXECUTION_EVENT_TYPES.has(event.type))
      return evolveExecution(state, event as ExecutionEvent);
    return state;
  },
  snapshot: {
    save: (state) => ({
      executions: [...state.executions.values()] as unknown as Json,
      maxExecutionId: state.maxExecutionId,
    }),
    load: (json) => {
      const saved = json as unknown as { executions: ReconcileExecution[]; maxExecutionId: number };
      return {
        executions: new Map(saved.executions.map((e) => [e.id, e])),
        maxExecutionId: saved.maxExecutionId,
      };
    },
  },
};
