import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  type EnvironmentId,
  OPERATION_STREAM_PREFIX,
  type OperationStatus,
  type StackOperation,
  type StacksEventMap,
} from '../streams/stacks.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../streams/system.js';
import type { Projection } from './projection.js';

/**
 * A stack's Activity: the stack operations (start, stop, restart, down) that ended, from their
 * OperationRecorded events (streams `stack-operation-<jobId>`). They are jobs, not deploy runs: the
 * runs list never shows them. Their output stays sealed here; the routes open it at read time.
 */
export interface Operation {
  jobId: string;
  operation: StackOperation;
  stack: string;
  environmentId: EnvironmentId;
  userId: string | null;
  startedAt: string;
  finishedAt: string;
  status: OperationStatus;
  exitCode?: number;
  cancelledBy?: string | null;
  /** Lines it printed, and how many of the last ones are kept. */
  lines: number;
  keptLines: number;
  /** Sealed with the scope `operation-<jobId>`: the output (JSON of its lines) and the error. */
  sealed: string;
  sealedError?: string;
  /** Log position of its record: the order of the list. */
  position: number;
}

export interface StackActivityState {
  /** By stack key (`<env id or "local">/<name>`), oldest first. */
  stacks: Map<string, Operation[]>;
}

const activityKey = (environmentId: EnvironmentId, name: string) =>
  `${environmentId === null ? 'local' : environmentId}/${name}`;

/** The stack's operations, newest first. */
export function activityOf(
  state: StackActivityState,
  environmentId: EnvironmentId,
  name: string,
): Operation[] {
  return [...(state.stacks.get(activityKey(environmentId, name)) ?? [])].reverse();
}

export function findOperation(
  state: StackActivityState,
  environmentId: EnvironmentId,
  name: string,
  jobId: string,
): Operation | undefined {
  return state.stacks.get(activityKey(environmentId, name))?.find((o) => o.jobId === jobId);
}

function evolve(state: StackActivityState, event: RecordedEvent): StackActivityState {
  if (event.type === 'OperationRecorded' && event.stream.startsWith(OPERATION_STREAM_PREFIX)) {
    const d = event.data as unknown as StacksEventMap['OperationRecorded'];
    const key = activityKey(d.environment_id, d.stack);
    const list = state.stacks.get(key) ?? [];
    list.push({
      jobId: d.job_id,
      operation: d.operation,
      stack: d.stack,
      environmentId: d.environment_id,
      userId: d.user_id,
      startedAt: d.started_at,
      finishedAt: event.metadata.at,
      status: d.status,
      ...(d.exit_code !== undefined ? { exitCode: d.exit_code } : {}),
      ...(d.cancelled_by !== undefined ? { cancelledBy: d.cancelled_by } : {}),
      lines: d.lines,
      keptLines: d.kept_lines,
      sealed: d.sealed,
      ...(d.sealed_error !== undefined ? { sealedError: d.sealed_error } : {}),
      position: event.position,
    });
    state.stacks.set(key, list);
    return state;
  }
  // An operation past ACTIVITY_KEPT is deleted (its stream and key): it leaves the list.
  if (event.stream === SYSTEM_STREAM && event.type === STREAM_DELETED) {
    const stream = (event.data as unknown as StreamDeletedData).stream;
    if (!stream.startsWith(OPERATION_STREAM_PREFIX)) return state;
    const jobId = stream.slice(OPERATION_STREAM_PREFIX.length);
    for (const [key, list] of state.stacks) {
      const at = list.findIndex((o) => o.jobId === jobId);
      if (at < 0) continue;
      list.splice(at, 1);
      if (list.length === 0) state.stacks.delete(key);
      break;
    }
  }
  return state;
}

export const stackActivity: Projection<StackActivityState> = {
  name: 'stack-activity',
  version: 1,
  initial: () => ({ stacks: new Map() }),
  evolve,
  snapshot: {
    save: (state) => [...state.stacks.entries()] as unknown as Json,
    load: (json) => ({ stacks: new Map(json as unknown as Array<[string, Operation[]]>) }),
  },
};
