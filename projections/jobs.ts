import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  type ComposeGroup,
  type EnvironmentId,
  JOB_STREAM_PREFIX,
  type JobKind,
  type JobMessage,
  OUTPUT_SHREDDED,
  type StacksEventMap,
} from '../streams/stacks.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../streams/system.js';
import type { Projection } from './projection.js';

export type JobResult = Extract<JobMessage, { type: 'result' }>;

/**
 * One job as `GET /api/jobs/{id}` and the retention sweep need it (its messages stay in its stream,
 * sealed: the read model holds no output, so neither do its snapshots).
 */
export interface JobInfo {
  id: string;
  kind: JobKind;
  stack: string;
  environmentId: EnvironmentId;
  userId: string | null;
  runId: number | null;
  /** Messages so far: one per output line, per status and the result. */
  messages: number;
  status: 'running' | 'done';
  /**
   * True while the job waits for a compose slot (JobQueued, until JobDequeued or its result): its poll
   * answers `queued`. Absent in records of older builds.
   */
  queued?: boolean;
  /** Whether the result says success; null while running. The result itself is in the stream. */
  success: boolean | null;
  startedAt: string;
  finishedAt: string | null;
  /** The stacks instance that runs it (`metadata.instanceId`); absent in records of older builds. */
  instanceId?: string;
  /** The process group of its compose (JobComposeStarted; a recorded deploy's is its run's). */
  composeGroup?: ComposeGroup;
  /** Set once someone asked to cancel it (JobCancelRequested): who. A failed result then means cancelled. */
  cancelledBy?: string | null;
}

/**
 * Jobs by id. A Map: ids come from requests (`GET /api/jobs/{id}`), and on a plain object `constructor`
 * or `__proto__` would find Object.prototype's properties. Its snapshot keeps the JSON
 * shape of older builds (an object of jobs by id), so their snapshots still load.
 */
export interface JobsState {
  jobs: Map<string, JobInfo>;
}

const jobIdOfStream = (stream: string): string | undefined =>
  stream.startsWith(JOB_STREAM_PREFIX) ? stream.slice(JOB_STREAM_PREFIX.length) : undefined;

/** The result message a JobFinished event stands for (optional fields only when set). */
function resultMessage(data: StacksEventMap['JobFinished']): JobResult {
  return {
    type: 'result',
    success: data.success,
    ...(data.error !== undefined ? { error: data.error } : {}),
    ...(data.exitCode !== undefined ? { exitCode: data.exitCode } : {}),
    output: [...data.output],
  };
}

type JobEventType =
  | 'JobStarted'
  | 'JobOutput'
  | 'JobStatusReported'
  | 'JobFinished'
  | 'JobOutputSealed'
  | 'JobStatusSealed'
  | 'JobFinishedSealed';
type JobEvent = { [T in JobEventType]: RecordedEvent<T, StacksEventMap[T]> }[JobEventType];

const JOB_EVENT_TYPES = new Set<string>([
  'JobStarted',
  'JobOutput',
  'JobStatusReported',
  'JobFinished',
  'JobOutputSealed',
  'JobStatusSealed',
  'JobFinishedSealed',
]);

/**
 * Opens the sealed texts of one job (its key's scope, see streams/stacks.ts): undefined when the key is
 * gone, and the messages then read OUTPUT_SHREDDED, keeping their count and indexes.
 */
export type OpenText = (sealed: string) => string | undefined;

/** The sealed part of JobFinishedSealed. */
interface SealedResult {
  error?: string;
  output: string[];
}

/**
 * The messages one job event stands for, in order (JobStarted stands for none). The clear-text events
 * of older logs and the sealed ones give the same messages; `open` opens the sealed texts (an event of
 * a sealed kind without it is a bug, not output to show).
 */
export function messagesOf(event: RecordedEvent, open?: OpenText): JobMessage[] {
  if (!JOB_EVENT_TYPES.has(event.type)) return [];
  const e = event as JobEvent;
  const opened = (sealed: string) => {
    if (open === undefined) throw new Error(`${e.type} of ${e.stream} needs its key to be read`);
    return open(sealed);
  };
  switch (e.type) {
    case 'JobStarted':
      return [];
    case 'JobOutput':
      return e.data.lines.map((line) => ({ type: 'line', line }));
    case 'JobStatusReported':
      return [{ type: 'status', status: e.data.status }];
    case 'JobFinished':
      return [resultMessage(e.data)];
    case 'JobOutputSealed': {
      const text = opened(e.data.sealed);
      const lines = text === undefined ? undefined : (JSON.parse(text) as string[]);
      return Array.from({ length: e.data.count }, (_, i) => ({
        type: 'line' as const,
        line: lines === undefined ? OUTPUT_SHREDDED : (lines[i] ?? ''),
      }));
    }
    case 'JobStatusSealed':
      return [{ type: 'status', status: opened(e.data.sealed) ?? OUTPUT_SHREDDED }];
    case 'JobFinishedSealed': {
      const text = opened(e.data.sealed);
      const sealed: SealedResult =
        text === undefined ? { error: OUTPUT_SHREDDED, output: [] } : (JSON.parse(text) as SealedResult);
      return [
        resultMessage({
          job_id: e.data.job_id,
          success: e.data.success,
          ...(e.data.exitCode !== undefined ? { exitCode: e.data.exitCode } : {}),
          ...(sealed.error !== undefined ? { error: sealed.error } : {}),
          output: sealed.output,
        }),
      ];
    }
  }
}

/** How many messages one job event stands for, read without opening it (the counts are in clear). */
export function messageCountOf(event: RecordedEvent): number {
  if (!JOB_EVENT_TYPES.has(event.type)) return 0;
  const e = event as JobEvent;
  switch (e.type) {
    case 'JobStarted':
      return 0;
    case 'JobOutput':
      return e.data.lines.length;
    case 'JobOutputSealed':
      return e.data.count;
    case 'JobStatusReported':
    case 'JobStatusSealed':
    case 'JobFinished':
    case 'JobFinishedSealed':
      return 1;
  }
}

/** Finished jobs whose result is older than `cutoff` (ISO time): what retention deletes. */
export const jobsFinishedBefore = (state: JobsState, cutoff: string): JobInfo[] =>
  [...state.jobs.values()].filter((job) => job.finishedAt !== null && job.finishedAt < cutoff);

export const runningJobs = (state: JobsState): JobInfo[] =>
  [...state.jobs.values()].filter((job) => job.status === 'running');

export const jobs: Projection<JobsState> = {
  name: 'jobs',
  // 2: jobs know their instance. 3: jobs know their compose process group (JobComposeStarted).
  // 4: `success` instead of the result (no output in the read model); the sealed events.
  // 5: queued jobs (JobQueued, JobDequeued).
  // 6: jobs know who cancelled them (JobCancelRequested).
  version: 6,
  initial: () => ({ jobs: new Map() }),
  evolve(state, event) {
    if (event.stream === SYSTEM_STREAM && event.type === STREAM_DELETED) {
      // Retention and run deletion remove a job's stream: the job leaves the read model with it.
      const jobId = jobIdOfStream((event.data as StreamDeletedData).stream);
      if (jobId !== undefined) state.jobs.delete(jobId);
      return state;
    }
    if (
      (event.type === 'JobQueued' || event.type === 'JobDequeued') &&
      event.stream.startsWith(JOB_STREAM_PREFIX)
    ) {
      const job = state.jobs.get((event.data as StacksEventMap['JobDequeued']).job_id);
      if (job && job.status === 'running') job.queued = event.type === 'JobQueued';
      return state;
    }
    if (event.type === 'JobComposeStarted' && event.stream.startsWith(JOB_STREAM_PREFIX)) {
      const d = event.data as StacksEventMap['JobComposeStarted'];
      const job = state.jobs.get(d.job_id);
      if (job) job.composeGroup = { ...d.group };
      return state;
    }
    if (event.type === 'JobCancelRequested' && event.stream.startsWith(JOB_STREAM_PREFIX)) {
      const d = event.data as StacksEventMap['JobCancelRequested'];
      const job = state.jobs.get(d.job_id);
      if (job) job.cancelledBy = d.user_id;
      return state;
    }
    if (!event.stream.startsWith(JOB_STREAM_PREFIX) || !JOB_EVENT_TYPES.has(event.type)) return state;
    const e = event as JobEvent;
    if (e.type === 'JobStarted') {
      const d = e.data;
      state.jobs.set(d.job_id, {
        id: d.job_id,
        kind: d.kind,
        stack: d.stack,
        environmentId: d.environment_id,
        userId: d.user_id,
        runId: d.run_id,
        messages: 0,
        status: 'running',
        success: null,
        startedAt: e.metadata.at,
        finishedAt: null,
        ...(typeof e.metadata.instanceId === 'string' ? { instanceId: e.metadata.instanceId } : {}),
      });
      return state;
    }
    const job = state.jobs.get(e.data.job_id);
    if (!job) return state;
    switch (e.type) {
      case 'JobOutput':
        job.messages += e.data.lines.length;
        break;
      case 'JobStatusReported':
        job.messages += 1;
        break;
      case 'JobOutputSealed':
        job.messages += e.data.count;
        break;
      case 'JobStatusSealed':
        job.messages += 1;
        break;
      case 'JobFinished':
      case 'JobFinishedSealed':
        job.messages += 1;
        job.status = 'done';
        delete job.queued;
        job.success = e.data.success;
        job.finishedAt = e.metadata.at;
        break;
    }
    return state;
  },
  snapshot: {
    // `Object.entries` and `Object.fromEntries` keep every id as an own key, `__proto__` included.
    save: (state) => ({ jobs: Object.fromEntries(state.jobs) }) as unknown as Json,
    load: (json) => ({
      jobs: new Map(Object.entries((json as unknown as { jobs: Record<string, JobInfo> }).jobs)),
    }),
  },
};
