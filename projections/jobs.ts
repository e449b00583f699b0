import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  type ComposeGroup,
  type EnvironmentId,
  JOB_STREAM_PREFIX,
  type JobKind,
  type JobMessage,
  type StacksEventMap,
} from '../streams/stacks.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../streams/system.js';
import type { Projection } from './projection.js';

export type JobResult = Extract<JobMessage, { type: 'result' }>;

/** One job as `GET /api/jobs/{id}` and the retention sweep need it (its messages stay in its stream). */
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
  result: JobResult | null;
  startedAt: string;
  finishedAt: string | null;
  /** The stacks instance that runs it (`metadata.instanceId`); absent in records of older builds. */
  instanceId?: string;
  /** The process group of its compose (JobComposeStarted; a recorded deploy's is its run's). */
  composeGroup?: ComposeGroup;
}

/**
 * Jobs by id. A Map: ids come from requests (`GET /api/jobs/{id}`), and on a plain object `constructor`
 * or `__proto__` would find Object.prototype's properties (issue 15). Its snapshot keeps the JSON
 * shape of older builds (an object of jobs by id), so their snapshots still load.
 */
export interface JobsState {
  jobs: Map<string, JobInfo>;
}

export const jobIdOfStream = (stream: string): string | undefined =>
  stream.startsWith(JOB_STREAM_PREFIX) ? stream.slice(JOB_STREAM_PREFIX.length) : undefined;

/** The result message a JobFinished event stands for (optional fields only when set). */
export function resultMessage(data: StacksEventMap['JobFinished']): JobResult {
  return {
    type: 'result',
    success: data.success,
    ...(data.error !== undefined ? { error: data.error } : {}),
    ...(data.exitCode !== undefined ? { exitCode: data.exitCode } : {}),
    output: [...data.output],
  };
}

type JobEvent = {
  [T in 'JobStarted' | 'JobOutput' | 'JobStatusReported' | 'JobFinished']: RecordedEvent<
    T,
    StacksEventMap[T]
  >;
}['JobStarted' | 'JobOutput' | 'JobStatusReported' | 'JobFinished'];

const JOB_EVENT_TYPES = new Set(['JobStarted', 'JobOutput', 'JobStatusReported', 'JobFinished']);

/** The messages one job event stands for, in order (JobStarted stands for none). */
export function messagesOf(event: RecordedEvent): JobMessage[] {
  if (!JOB_EVENT_TYPES.has(event.type)) return [];
  const e = event as JobEvent;
  switch (e.type) {
    case 'JobStarted':
      return [];
    case 'JobOutput':
      return e.data.lines.map((line) => ({ type: 'line', line }));
    case 'JobStatusReported':
      return [{ type: 'status', status: e.data.status }];
    case 'JobFinished':
      return [resultMessage(e.data)];
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
  version: 3,
  initial: () => ({ jobs: new Map() }),
  evolve(state, event) {
    if (event.stream === SYSTEM_STREAM && event.type === STREAM_DELETED) {
      // Retention and run deletion remove a job's stream: the job leaves the read model with it.
      const jobId = jobIdOfStream((event.data as StreamDeletedData).stream);
      if (jobId !== undefined) state.jobs.delete(jobId);
      return state;
    }
    if (event.type === 'JobComposeStarted' && event.stream.startsWith(JOB_STREAM_PREFIX)) {
      const d = event.data as StacksEventMap['JobComposeStarted'];
      const job = state.jobs.get(d.job_id);
      if (job) job.composeGroup = { ...d.group };
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
        result: null,
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
      case 'JobFinished':
        job.messages += 1;
        job.status = 'done';
        job.result = resultMessage(e.data);
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
