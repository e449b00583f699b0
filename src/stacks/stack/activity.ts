import type { ProjectionRunner } from '../../../projections/runtime.js';
import {
  activityOf,
  findOperation,
  type Operation,
  type StackActivityState,
} from '../../../projections/stack-activity.js';
import {
  ACTIVITY_KEPT,
  type EnvironmentId,
  type OperationStatus,
  OUTPUT_SHREDDED,
  operationKeyScope,
  operationStream,
  type StackOperation,
  stacksEvent,
} from '../../../streams/stacks.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';
import { StacksError } from '../errors.js';
import { type Job, tailWithin } from '../jobs/job.js';
import type { Opener, OutputKeys } from '../output/keys.js';

/** One entry of a stack's Activity (`GET /api/stacks/{name}/activity`). */
interface ActivityEntry {
  jobId: string;
  operation: StackOperation;
  /** Who asked for it (null: a user without an id). */
  userId: string | null;
  startedAt: string;
  finishedAt: string;
  status: OperationStatus;
  /** Compose's exit code; null when unknown (a cancel, a time-out, a failure before compose ran). */
  exitCode: number | null;
  cancelledBy?: string | null;
  /** The redacted error of one that did not succeed; null otherwise. */
  error: string | null;
  /** Output lines it printed, and how many of the last ones are kept (`output`). */
  lines: number;
  keptLines: number;
}

/** One operation with its kept output (`GET /api/stacks/{name}/activity/{jobId}`). */
interface ActivityOutput extends ActivityEntry {
  output: string[];
}

const OPERATION_NOT_FOUND = 'Operation not found';

/** How one operation ended, as its Activity entry records it. */
interface OperationEnd {
  jobId: string;
  operation: StackOperation;
  stack: string;
  environmentId: EnvironmentId;
  userId: string | null;
  startedAt: string;
  /** Output lines it printed, and the last of them kept (already redacted). */
  lines: number;
  output: string[];
  success: boolean;
  error?: string;
  exitCode?: number;
  cancelledBy?: string | null;
}

/**
 * The stack operations (start, stop, restart, down) a stack's Activity keeps: each is recorded when its
 * job ends, before the job's result (so whoever sees the job done finds it here), in a stream of its own
 * that outlives the job's retention; a stack keeps the newest ACTIVITY_KEPT, older ones are deleted
 * with their key. The output kept is the job's result tail, already redacted.
 */
export class StackActivity {
  constructor(
    private readonly store: EventStore,
    private readonly keys: OutputKeys,
    readonly model: ProjectionRunner<StackActivityState>,
  ) {}

  /** Records how the operation `job`, run by this process, ended. */
  async record(
    job: Job,
    operation: StackOperation,
    userId: string | null,
    outcome: { success: boolean; error?: string; exitCode?: number; cancelledBy?: string | null },
  ): Promise<void> {
    await this.append({
      jobId: job.id,
      operation,
      stack: job.stack,
      environmentId: job.environmentId,
      userId,
      startedAt: job.startedAt,
      lines: job.lineCount,
      output: job.outputTail(),
      ...outcome,
    });
  }

  /**
   * Records an operation whose server stopped (or was killed) before it ended, as its restart closes its
   * job: failed with `error`, its output the tail its job's stream holds. False when it was recorded
   * already (another instance closed it first, or its own server recorded it before it went).
   */
  async recordInterrupted(end: Omit<OperationEnd, 'success' | 'exitCode' | 'cancelledBy'>): Promise<boolean> {
    try {
      await this.append({ ...end, output: tailWithin(end.output), success: false });
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError) return false;
      throw error;
    }
  }

  private async append(end: OperationEnd): Promise<void> {
    const sealer = await this.keys.ensure(operationKeyScope(end.jobId));
    const status: OperationStatus = end.success
      ? 'success'
      : end.cancelledBy !== undefined
        ? 'cancelled'
        : 'failed';
    const { position } = await this.store.append(
      operationStream(end.jobId),
      [
        stacksEvent('OperationRecorded', {
          job_id: end.jobId,
          operation: end.operation,
          stack: end.stack,
          environment_id: end.environmentId,
          user_id: end.userId,
          started_at: end.startedAt,
          status,
          ...(end.exitCode !== undefined ? { exit_code: end.exitCode } : {}),
          ...(status === 'cancelled' ? { cancelled_by: end.cancelledBy ?? null } : {}),
          lines: end.lines,
          kept_lines: end.output.length,
          sealed: sealer.seal(JSON.stringify(end.output)),
          ...(end.error !== undefined ? { sealed_error: sealer.seal(end.error) } : {}),
        }),
      ],
      { expectedRevision: 'no_stream' },
    );
    await this.model.waitFor(position);
    await this.prune(end.environmentId, end.stack);
  }

  /** The stack's operations, newest first, with what was done before this call. */
  async list(environmentId: EnvironmentId, stack: string): Promise<ActivityEntry[]> {
    await this.model.waitFor(await this.store.headPosition());
    const operations = activityOf(this.model.state, environmentId, stack);
    return Promise.all(operations.map(async (o) => entryOf(o, await this.openError(o))));
  }

  /** One operation with its kept output; 404 `Operation not found`. */
  async read(environmentId: EnvironmentId, stack: string, jobId: string): Promise<ActivityOutput> {
    await this.model.waitFor(await this.store.headPosition());
    const found = findOperation(this.model.state, environmentId, stack, jobId);
    if (!found) throw new StacksError('operation_not_found', OPERATION_NOT_FOUND);
    const opener = await this.keys.opener(operationKeyScope(found.jobId));
    const text = opener.open(found.sealed);
    const output = text === undefined ? [OUTPUT_SHREDDED] : (JSON.parse(text) as string[]);
    return { ...entryOf(found, errorOf(found, opener)), output };
  }

  /** Its error, opened alone: a list does not open every operation's output. */
  private async openError(operation: Operation): Promise<string | null> {
    return errorOf(operation, await this.keys.opener(operationKeyScope(operation.jobId)));
  }

  /** Past ACTIVITY_KEPT operations of the stack, the oldest go: their stream, then their key. */
  private async prune(environmentId: EnvironmentId, stack: string): Promise<void> {
    const operations = activityOf(this.model.state, environmentId, stack);
    for (const old of operations.slice(ACTIVITY_KEPT)) {
      try {
        await this.store.deleteStream(operationStream(old.jobId));
      } catch (error) {
        if (!(error instanceof StreamDeletedError)) throw error;
      }
      await this.keys.shred(operationKeyScope(old.jobId));
    }
  }
}

function errorOf(o: Operation, opener: Opener): string | null {
  if (o.status === 'success' || o.sealedError === undefined) return null;
  return opener.open(o.sealedError) ?? null;
}

function entryOf(o: Operation, error: string | null): ActivityEntry {
  return {
    jobId: o.jobId,
    operation: o.operation,
    userId: o.userId,
    startedAt: o.startedAt,
    finishedAt: o.finishedAt,
    status: o.status,
    exitCode: o.exitCode ?? null,
    ...(o.cancelledBy !== undefined ? { cancelledBy: o.cancelledBy } : {}),
    error,
    lines: o.lines,
    keptLines: o.keptLines,
  };
}
