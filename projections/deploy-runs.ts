import type { Json, RecordedEvent } from '../src/store/types.js';
import {
  type ComposeGroup,
  type DeployOptions,
  type DeploySummary,
  type EnvironmentId,
  EXECUTION_STREAM_PREFIX,
  OUTPUT_SHREDDED,
  RUN_STREAM_PREFIX,
  type StacksEventMap,
  TERMINAL_RUN_STATUSES,
  type Trigger,
} from '../streams/stacks.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../streams/system.js';
import type { Projection } from './projection.js';

/** One recorded deploy run (a `stack_deploy` schedule execution row), as its events made it. */
export interface DeployRun {
  id: number;
  stack: string;
  environmentId: EnvironmentId;
  /**
   * `queued` while its job waits for a compose slot, `running`, then `success` or `failed`; a free-text
   * column (spec), so typed as a string.
   */
  status: string;
  trigger: Trigger;
  userId: string | null;
  jobId: string;
  options: DeployOptions;
  composeHash: string;
  envHash: string;
  logFile: string;
  extra: Record<string, string | number | boolean | null>;
  startedAt: string;
  finishedAt: string | null;
  /** The error message when it is in clear (older logs, the server's own messages); else null. */
  errorMessage: string | null;
  /**
   * The error message sealed with the run's key (RunCompletedSealed): the read model holds no output, so
   * neither do its snapshots; `toRunJson` is given the opened text (`openError`).
   */
  errorSealed?: string;
  exitCode?: number;
  exitCodeKnown?: boolean;
  summary?: DeploySummary;
  truncated: boolean;
  /** Set by the log reconcile (RunLogMissing) when the run's log file is gone. */
  logMissing?: boolean;
  /** Of a `cancelled` run: who cancelled it (`details.cancelledBy`). */
  cancelledBy?: string | null;
  /** The stacks instance that ran it (`metadata.instanceId`); absent in records of older builds. */
  instanceId?: string;
  /** Containers an interrupted compose left renamed, removed before its `up` (RunLeftoversRemoved). */
  leftoversRemoved?: string[];
  /**
   * Output lines redaction withheld (RunLinesWithheld): how many, and after which log lines (0: before
   * the first), as runs of consecutive ones; absent when none was.
   */
  withheld?: RunWithheld;
  /** The process group of its compose (RunComposeStarted), once compose started; not part of the run JSON. */
  composeGroup?: ComposeGroup;
}

/** A run's withheld lines as its JSON gives them (`details.withheld`). */
interface RunWithheld {
  lines: number;
  at: Array<{ afterLine: number; lines: number }>;
}

export interface DeployRunsState {
  runs: Map<number, DeployRun>;
  /** Ids of deleted runs: they left the read model, but an id is never given out twice. */
  deleted: Set<number>;
  /** The highest run id ever started, deleted or not. */
  maxRunId: number;
}

/** The run JSON the run routes answer (list items and single run; `Run` in the OpenAPI document). */
export interface RunJson {
  id: number;
  scheduleType: 'stack_deploy';
  scheduleId: 0;
  entityName: string;
  environmentId: EnvironmentId;
  status: string;
  trigger: Trigger;
  errorMessage: string | null;
  startedAt: string;
  finishedAt: string | null;
  jobId: string;
  details: {
    options: DeployOptions;
    summary?: DeploySummary;
    exitCode?: number;
    composeHash: string;
    envHash: string;
    logFile: string;
    truncated: boolean;
    logMissing?: boolean;
    userId: string | null;
    cancelledBy?: string | null;
    leftoversRemoved?: string[];
    withheld?: RunWithheld;
    [extra: string]: unknown;
  };
}

export const isTerminalRunStatus = (status: string): boolean =>
  (TERMINAL_RUN_STATUSES as readonly string[]).includes(status);

/**
 * A run that left the stack as it should be: a successful deploy, or the run that recorded an adopted
 * project as it ran (what rollbacks go back to and retention keeps).
 */
export const isGoodRunStatus = (status: string): boolean => status === 'success' || status === 'adopted';

export const runIdOfStream = (stream: string): number | undefined => {
  if (!stream.startsWith(RUN_STREAM_PREFIX)) return undefined;
  const id = Number(stream.slice(RUN_STREAM_PREFIX.length));
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
};

/** The run's error message: in clear, or opened with `open` (undefined = its key is gone). */
export function openError(run: DeployRun, open: (sealed: string) => string | undefined): string | null {
  return run.errorSealed === undefined ? run.errorMessage : (open(run.errorSealed) ?? OUTPUT_SHREDDED);
}

/** The run JSON; `errorMessage` is the opened one when the run's is sealed (see `openError`). */
export function toRunJson(run: DeployRun, errorMessage: string | null = run.errorMessage): RunJson {
  return {
    id: run.id,
    scheduleType: 'stack_deploy',
    scheduleId: 0,
    entityName: run.stack,
    environmentId: run.environmentId,
    status: run.status,
    trigger: run.trigger,
    errorMessage,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    jobId: run.jobId,
    details: {
      // Extra details first, so a kind of deploy can never shadow the keys every run has.
      ...run.extra,
      options: { ...run.options },
      ...(run.summary ? { summary: { ...run.summary } } : {}),
      ...(run.exitCode !== undefined ? { exitCode: run.exitCode } : {}),
      composeHash: run.composeHash,
      envHash: run.envHash,
      logFile: run.logFile,
      truncated: run.truncated,
      ...(run.logMissing !== undefined ? { logMissing: run.logMissing } : {}),
      userId: run.userId,
      ...(run.cancelledBy !== undefined ? { cancelledBy: run.cancelledBy } : {}),
      ...(run.leftoversRemoved !== undefined ? { leftoversRemoved: [...run.leftoversRemoved] } : {}),
      ...(run.withheld !== undefined
        ? { withheld: { lines: run.withheld.lines, at: run.withheld.at.map((place) => ({ ...place })) } }
        : {}),
    },
  };
}

/** Runs of one stack in one environment (null matches only the local environment), newest first. */
export function runsOf(state: DeployRunsState, stack: string, environmentId: EnvironmentId): DeployRun[] {
  const found: DeployRun[] = [];
  for (const run of state.runs.values())
    if (run.stack === stack && run.environmentId === environmentId) found.push(run);
  return found.sort((a, b) => b.id - a.id);
}

/** Runs still `queued` or `running` (or any other non-terminal status): what a restart must close. */
export const unfinishedRuns = (state: DeployRunsState): DeployRun[] =>
  [...state.runs.values()].filter((run) => !isTerminalRunStatus(run.status)).sort((a, b) => a.id - b.id);

type RunEventType =
  | 'RunStarted'
  | 'RunSourceResolved'
  | 'RunComposeStarted'
  | 'RunQueued'
  | 'RunDequeued'
  | 'RunTruncated'
  | 'RunLeftoversRemoved'
  | 'RunLinesWithheld'
  | 'RunCompleted'
  | 'RunCompletedSealed'
  | 'RunDeleted'
  | 'RunLogMissing';
type RunEvent = {
  [T in RunEventType]: RecordedEvent<T, StacksEventMap[T]>;
}[RunEventType];

/**
 * Applies one event of a `deploy-run-*` stream to the state; pure apart from updating `state` in
 * place (see Projection). Shared by the projection and by readers that fold one run's stream.
 */
export function evolveRun(state: DeployRunsState, event: RunEvent): DeployRunsState {
  switch (event.type) {
    case 'RunStarted': {
      const d = event.data;
      state.maxRunId = Math.max(state.maxRunId, d.run_id);
      state.runs.set(d.run_id, {
        id: d.run_id,
        stack: d.stack,
        environmentId: d.environment_id,
        status: 'running',
        trigger: d.trigger,
        userId: d.user_id,
        jobId: d.job_id,
        options: { ...d.options },
        composeHash: d.compose_hash,
        envHash: d.env_hash,
        logFile: d.log_file,
        extra: { ...(d.extra ?? {}) },
        startedAt: event.metadata.at,
        finishedAt: null,
        errorMessage: null,
        truncated: false,
        ...(typeof event.metadata.instanceId === 'string' ? { instanceId: event.metadata.instanceId } : {}),
      });
      return state;
    }
    case 'RunSourceResolved': {
      const run = state.runs.get(event.data.run_id);
      if (!run) return state;
      const d = event.data;
      run.extra = { ...run.extra, ...(d.extra ?? {}) };
      if (d.compose_hash !== undefined) run.composeHash = d.compose_hash;
      if (d.env_hash !== undefined) run.envHash = d.env_hash;
      return state;
    }
    case 'RunComposeStarted': {
      const run = state.runs.get(event.data.run_id);
      if (run) run.composeGroup = { ...event.data.group };
      return state;
    }
    case 'RunQueued': {
      const run = state.runs.get(event.data.run_id);
      if (run && run.status === 'running') run.status = 'queued';
      return state;
    }
    case 'RunDequeued': {
      const run = state.runs.get(event.data.run_id);
      if (run && run.status === 'queued') run.status = 'running';
      return state;
    }
    case 'RunTruncated': {
      const run = state.runs.get(event.data.run_id);
      if (run) run.truncated = true;
      return state;
    }
    case 'RunLeftoversRemoved': {
      const run = state.runs.get(event.data.run_id);
      if (run) run.leftoversRemoved = [...(run.leftoversRemoved ?? []), ...event.data.containers];
      return state;
    }
    case 'RunLinesWithheld': {
      const run = state.runs.get(event.data.run_id);
      if (run) {
        // The places before `from` are those the run's earlier RunLinesWithheld gave.
        const from = event.data.from ?? 0;
        run.withheld = {
          lines: event.data.lines,
          at: [
            ...(from > 0 ? (run.withheld?.at ?? []).slice(0, from) : []),
            ...event.data.at.map((place) => ({ afterLine: place.after_line, lines: place.lines })),
          ],
        };
      }
      return state;
    }
    case 'RunCompleted':
    case 'RunCompletedSealed': {
      const run = state.runs.get(event.data.run_id);
      if (!run) return state;
      const d = event.data;
      run.status = d.status;
      run.finishedAt = event.metadata.at;
      if (event.type === 'RunCompleted') {
        run.errorMessage = event.data.error_message;
        delete run.errorSealed;
      } else {
        run.errorMessage = null;
        if (event.data.error_sealed === null) delete run.errorSealed;
        else run.errorSealed = event.data.error_sealed;
      }
      run.exitCode = d.exit_code;
      run.exitCodeKnown = d.exit_code_known;
      if (d.summary) run.summary = { ...d.summary };
      else delete run.summary;
      if (d.cancelled_by !== undefined) run.cancelledBy = d.cancelled_by;
      else delete run.cancelledBy;
      return state;
    }
    case 'RunDeleted':
      forget(state, event.data.run_id);
      return state;
    case 'RunLogMissing': {
      const run = state.runs.get(event.data.run_id);
      if (run) run.logMissing = true;
      return state;
    }
  }
}

function forget(state: DeployRunsState, runId: number): void {
  state.runs.delete(runId);
  state.deleted.add(runId);
  state.maxRunId = Math.max(state.maxRunId, runId);
}

const RUN_EVENT_TYPES = new Set([
  'RunStarted',
  'RunSourceResolved',
  'RunComposeStarted',
  'RunQueued',
  'RunDequeued',
  'RunTruncated',
  'RunLeftoversRemoved',
  'RunLinesWithheld',
  'RunCompleted',
  'RunCompletedSealed',
  'RunDeleted',
  'RunLogMissing',
]);

export const deployRuns: Projection<DeployRunsState> = {
  name: 'deploy-runs',
  // 2: runs know their instance. 3: RunSourceResolved (a git deploy's commit, known after the start).
  // 4: runs know their compose process group (RunComposeStarted). 5: RunCompletedSealed (errorSealed).
  // 6: queued runs (RunQueued, RunDequeued). 7: leftovers removed before `up` (RunLeftoversRemoved).
  // 8: where output lines were withheld (RunLinesWithheld).
  version: 8,
  initial: () => ({ runs: new Map(), deleted: new Set(), maxRunId: 0 }),
  evolve(state, event) {
    if (event.stream.startsWith(RUN_STREAM_PREFIX) && RUN_EVENT_TYPES.has(event.type))
      return evolveRun(state, event as RunEvent);
    // The reconcile records its flags in its own execution stream (see RunLogMissing).
    if (event.type === 'RunLogMissing' && event.stream.startsWith(EXECUTION_STREAM_PREFIX))
      return evolveRun(state, event as RunEvent);
    // Run streams are not deleted by the service (a RunDeleted keeps the id taken), but a stream an
    // operator deleted by hand must not leave a run behind that no longer has events.
    if (event.stream === SYSTEM_STREAM && event.type === STREAM_DELETED) {
      const runId = runIdOfStream((event.data as StreamDeletedData).stream);
      if (runId !== undefined) forget(state, runId);
    }
    return state;
  },
  snapshot: {
    save: (state) => ({
      runs: [...state.runs.values()] as unknown as Json,
      deleted: [...state.deleted],
      maxRunId: state.maxRunId,
    }),
    load: (json) => {
      const saved = json as unknown as { runs: DeployRun[]; deleted: number[]; maxRunId: number };
      return {
        runs: new Map(saved.runs.map((run) => [run.id, run])),
        deleted: new Set(saved.deleted),
        maxRunId: saved.maxRunId,
      };
    },
  },
};
