import { describe, expect, it } from 'vitest';
import {
  type DeployRun,
  type DeployRunsState,
  deployRuns,
  isTerminalRunStatus,
  openError,
  runsOf,
  toRunJson,
  unfinishedRuns,
} from '../../projections/deploy-runs.js';
import { findProjection } from '../../projections/index.js';
import { type JobsState, jobs, jobsFinishedBefore, messagesOf, runningJobs } from '../../projections/jobs.js';
import { loadState, saveState } from '../../projections/projection.js';
import type { RecordedEvent } from '../../src/store/types.js';
import { jobStream, OUTPUT_SHREDDED, runStream, type StacksEventMap } from '../../streams/stacks.js';
import { STREAM_DELETED, SYSTEM_STREAM } from '../../streams/system.js';
import { PROTOTYPE_NAMES } from '../fuzz-names.js';

const at = (position: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, position)).toISOString();
let position = 0;
const revisions = new Map<string, number>();

function event<T extends keyof StacksEventMap>(
  stream: string,
  type: T,
  data: StacksEventMap[T],
): RecordedEvent {
  position += 1;
  const revision = (revisions.get(stream) ?? -1) + 1;
  revisions.set(stream, revision);
  return { stream, revision, position, type, data, metadata: { at: at(position) } };
}

const deleted = (stream: string): RecordedEvent => {
  position += 1;
  return {
    stream: SYSTEM_STREAM,
    revision: 0,
    position,
    type: STREAM_DELETED,
    data: { stream, lastRevision: 0 },
    metadata: { at: at(position) },
  };
};

const started = (runId: number, stack = 'web', env: number | null = null, extra?: Record<string, string>) =>
  event(runStream(runId), 'RunStarted', {
    run_id: runId,
    job_id: `job-${runId}`,
    stack,
    environment_id: env,
    trigger: 'manual',
    user_id: 'alice',
    options: { pull: true, build: false, forceRecreate: false },
    compose_hash: 'c1',
    env_hash: 'e1',
    log_file: `${runId}.log`,
    ...(extra ? { extra } : {}),
  });

const foldRuns = (events: RecordedEvent[], from: DeployRunsState = deployRuns.initial()) =>
  events.reduce((s, e) => deployRuns.evolve(s, e), from);

describe('the deploy-runs projection', () => {
  it('records a started run as running, with the pinned run JSON', () => {
    const e = started(1, 'web', 3, { commit: 'abc' });
    const state = foldRuns([e]);
    expect(state.maxRunId).toBe(1);
    const run = state.runs.get(1);
    expect(run).toBeDefined();
    expect(toRunJson(run as NonNullable<typeof run>)).toEqual({
      id: 1,
      scheduleType: 'stack_deploy',
      scheduleId: 0,
      entityName: 'web',
      environmentId: 3,
      status: 'running',
      trigger: 'manual',
      errorMessage: null,
      startedAt: e.metadata.at,
      finishedAt: null,
      jobId: 'job-1',
      details: {
        commit: 'abc',
        options: { pull: true, build: false, forceRecreate: false },
        composeHash: 'c1',
        envHash: 'e1',
        logFile: '1.log',
        truncated: false,
        userId: 'alice',
      },
    });
  });

  it('marks truncation and completion (status, exit code, error, summary, finishedAt)', () => {
    const summary = {
      containersCreated: 1,
      containersStarted: 2,
      containersRecreated: 0,
      containersRemoved: 0,
      imagesPulled: 1,
      imagesBuilt: 0,
    };
    const done = event(runStream(2), 'RunCompleted', {
      run_id: 2,
      status: 'failed',
      exit_code: 3,
      exit_code_known: true,
      error_message: 'boom',
      summary,
    });
    const state = foldRuns([
      started(2),
      event(runStream(2), 'RunTruncated', { run_id: 2, budget_bytes: 10, used_bytes: 12 }),
      done,
    ]);
    const json = toRunJson(state.runs.get(2) as NonNullable<ReturnType<typeof state.runs.get>>);
    expect(json).toMatchObject({ status: 'failed', errorMessage: 'boom', finishedAt: done.metadata.at });
    expect(json.details).toMatchObject({ truncated: true, exitCode: 3, summary });
    expect(isTerminalRunStatus(json.status)).toBe(true);
  });

  it('merges a resolved source into the details and takes its hashes; a run it does not know is ignored', () => {
    const state = foldRuns([
      started(30, 'web', null, { source: 'git', branch: 'main' }),
      event(runStream(30), 'RunSourceResolved', { run_id: 30, extra: { branch: 'main', commit: 'abc' } }),
      event(runStream(30), 'RunSourceResolved', { run_id: 30, compose_hash: 'c2', env_hash: 'e2' }),
      event(runStream(31), 'RunSourceResolved', { run_id: 31, extra: { commit: 'zzz' } }),
      event(runStream(30), 'RunCompleted', {
        run_id: 30,
        status: 'failed',
        exit_code: 1,
        exit_code_known: false,
        error_message: 'Could not fetch main',
      }),
    ]);
    expect(state.runs.has(31)).toBe(false);
    const json = toRunJson(state.runs.get(30) as NonNullable<ReturnType<typeof state.runs.get>>);
    expect(json.status).toBe('failed');
    expect(json.details).toMatchObject({
      source: 'git',
      branch: 'main',
      commit: 'abc',
      composeHash: 'c2',
      envHash: 'e2',
      logFile: '30.log',
    });
    // A resolved source never shadows a key every run has.
    const shadow = foldRuns([
      started(32),
      event(runStream(32), 'RunSourceResolved', { run_id: 32, extra: { composeHash: 'x', logFile: 'y' } }),
    ]);
    const details = toRunJson(shadow.runs.get(32) as NonNullable<ReturnType<typeof shadow.runs.get>>).details;
    expect(details).toMatchObject({ composeHash: 'c1', logFile: '32.log' });
  });

  it('lists the leftovers removed before each `up` in the details, in order; a run with none has no such key', () => {
    const state = foldRuns([
      started(35),
      started(36),
      event(runStream(35), 'RunLeftoversRemoved', { run_id: 35, containers: ['0123456789ab_web-app-1'] }),
      event(runStream(35), 'RunLeftoversRemoved', { run_id: 35, containers: ['ba9876543210_web-db-1'] }),
      event(runStream(37), 'RunLeftoversRemoved', { run_id: 37, containers: ['ffffffffffff_x'] }),
    ]);
    expect(state.runs.has(37)).toBe(false);
    const json = toRunJson(state.runs.get(35) as DeployRun);
    expect(json.details.leftoversRemoved).toEqual(['0123456789ab_web-app-1', 'ba9876543210_web-db-1']);
    expect('leftoversRemoved' in toRunJson(state.runs.get(36) as DeployRun).details).toBe(false);
    // Kept through a snapshot.
    const again = loadState(deployRuns, JSON.parse(JSON.stringify(saveState(deployRuns, state))));
    expect(toRunJson(again.runs.get(35) as DeployRun).details.leftoversRemoved).toHaveLength(2);
  });

  it('takes a sealed completion like a clear one; the error stays sealed until a reader opens it', () => {
    const state = foldRuns([
      started(40),
      event(runStream(40), 'RunCompletedSealed', {
        run_id: 40,
        status: 'failed',
        exit_code: 3,
        exit_code_known: true,
        error_sealed: 'c2VhbGVk',
      }),
      started(41),
      event(runStream(41), 'RunCompleted', {
        run_id: 41,
        status: 'failed',
        exit_code: 1,
        exit_code_known: false,
        error_message: 'in clear, from an older log',
      }),
    ]);
    const sealed = state.runs.get(40) as DeployRun;
    expect(sealed).toMatchObject({
      status: 'failed',
      exitCode: 3,
      errorMessage: null,
      errorSealed: 'c2VhbGVk',
    });
    // The snapshot (stored in the log) holds the sealed text, never the opened one.
    expect(JSON.stringify(deployRuns.snapshot?.save(state))).toContain('c2VhbGVk');
    expect(openError(sealed, (text) => (text === 'c2VhbGVk' ? 'opened' : undefined))).toBe('opened');
    expect(openError(sealed, () => undefined)).toBe(OUTPUT_SHREDDED);
    expect(toRunJson(sealed, 'opened').errorMessage).toBe('opened');
    expect(toRunJson(sealed).errorMessage).toBeNull();
    const clear = state.runs.get(41) as DeployRun;
    expect(openError(clear, () => 'never asked')).toBe('in clear, from an older log');
    expect(toRunJson(clear).errorMessage).toBe('in clear, from an older log');
  });

  it('leaves no summary on a run that printed nothing (unknown, never zero)', () => {
    const state = foldRuns([
      started(3),
      event(runStream(3), 'RunCompleted', {
        run_id: 3,
        status: 'success',
        exit_code: 0,
        exit_code_known: true,
        error_message: null,
      }),
    ]);
    const json = toRunJson(state.runs.get(3) as NonNullable<ReturnType<typeof state.runs.get>>);
    expect('summary' in json.details).toBe(false);
    expect(json.details.exitCode).toBe(0);
  });

  it('drops a deleted run from the read model but keeps its id taken', () => {
    const state = foldRuns([
      started(4),
      started(5),
      event(runStream(5), 'RunDeleted', { run_id: 5, user_id: 'bob' }),
    ]);
    expect([...state.runs.keys()]).toEqual([4]);
    expect(state.deleted.has(5)).toBe(true);
    expect(state.maxRunId).toBe(5);
  });

  it('forgets a run whose stream was deleted by hand, and ignores other streams', () => {
    const state = foldRuns([started(6), deleted(runStream(6)), deleted(jobStream('x')), started(7)]);
    expect([...state.runs.keys()]).toEqual([7]);
    expect(state.deleted.has(6)).toBe(true);
  });

  it('lists a stack in one environment newest first; null matches only the local environment', () => {
    const state = foldRuns([
      started(10, 'web', null),
      started(11, 'web', 1),
      started(12, 'web', null),
      started(13, 'db', null),
    ]);
    expect(runsOf(state, 'web', null).map((r) => r.id)).toEqual([12, 10]);
    expect(runsOf(state, 'web', 1).map((r) => r.id)).toEqual([11]);
    expect(unfinishedRuns(state).map((r) => r.id)).toEqual([10, 11, 12, 13]);
  });

  it('survives a snapshot round trip', () => {
    const state = foldRuns([
      started(20),
      started(21),
      event(runStream(21), 'RunDeleted', { run_id: 21, user_id: null }),
    ]);
    const json = JSON.parse(JSON.stringify(deployRuns.snapshot?.save(state)));
    const loaded = deployRuns.snapshot?.load(json) as DeployRunsState;
    expect(loaded.runs.get(20)).toEqual(state.runs.get(20));
    expect(loaded.deleted.has(21)).toBe(true);
    expect(loaded.maxRunId).toBe(21);
  });

  it('is registered for chronicle rebuild', () => {
    expect(findProjection('deploy-runs')).toBe(deployRuns);
    expect(findProjection('jobs')).toBe(jobs);
  });
});

const foldJobs = (events: RecordedEvent[], from: JobsState = jobs.initial()) =>
  events.reduce((s, e) => jobs.evolve(s, e), from);

const jobStarted = (id: string) =>
  event(jobStream(id), 'JobStarted', {
    job_id: id,
    kind: 'deploy',
    stack: 'web',
    environment_id: 2,
    user_id: 'alice',
    run_id: 9,
  });

describe('the jobs projection', () => {
  it('follows a job from start to result, counting its messages', () => {
    const finished = event(jobStream('a'), 'JobFinished', {
      job_id: 'a',
      success: false,
      error: 'bad',
      exitCode: 2,
      output: ['l2'],
    });
    const state = foldJobs([
      jobStarted('a'),
      event(jobStream('a'), 'JobOutput', { job_id: 'a', lines: ['l1', 'l2'] }),
      event(jobStream('a'), 'JobStatusReported', { job_id: 'a', status: 'pulling' }),
    ]);
    expect(state.jobs.get('a')).toMatchObject({
      status: 'running',
      messages: 3,
      success: null,
      runId: 9,
      environmentId: 2,
    });
    expect(runningJobs(state).map((j) => j.id)).toEqual(['a']);
    foldJobs([finished], state);
    expect(state.jobs.get('a')).toMatchObject({
      status: 'done',
      messages: 4,
      finishedAt: finished.metadata.at,
      success: false,
    });
    expect(jobsFinishedBefore(state, '9999').map((j) => j.id)).toEqual(['a']);
    expect(jobsFinishedBefore(state, finished.metadata.at)).toEqual([]);
  });

  it('forgets a job whose stream was deleted', () => {
    const state = foldJobs([jobStarted('b'), jobStarted('c'), deleted(jobStream('b'))]);
    expect([...state.jobs.keys()]).toEqual(['c']);
  });

  it('counts sealed messages without their key, and opens them with it', () => {
    const state = foldJobs([
      jobStarted('s'),
      event(jobStream('s'), 'JobStatusSealed', { job_id: 's', sealed: 'st' }),
      event(jobStream('s'), 'JobOutputSealed', { job_id: 's', count: 2, sealed: 'li' }),
      event(jobStream('s'), 'JobFinishedSealed', { job_id: 's', success: true, exitCode: 0, sealed: 're' }),
    ]);
    expect(state.jobs.get('s')).toMatchObject({ status: 'done', messages: 4, success: true });
    const opened: Record<string, string> = {
      st: 'pulling',
      li: JSON.stringify(['x', 'y']),
      re: JSON.stringify({ output: ['y'] }),
    };
    const open = (sealed: string) => opened[sealed];
    expect(
      messagesOf(event(jobStream('s'), 'JobOutputSealed', { job_id: 's', count: 2, sealed: 'li' }), open),
    ).toEqual([
      { type: 'line', line: 'x' },
      { type: 'line', line: 'y' },
    ]);
    expect(
      messagesOf(
        event(jobStream('s'), 'JobFinishedSealed', { job_id: 's', success: true, exitCode: 0, sealed: 're' }),
        open,
      ),
    ).toEqual([{ type: 'result', success: true, exitCode: 0, output: ['y'] }]);
    // Its key gone: as many messages as recorded, each saying so.
    const gone = () => undefined;
    expect(
      messagesOf(event(jobStream('s'), 'JobOutputSealed', { job_id: 's', count: 2, sealed: 'li' }), gone),
    ).toEqual([
      { type: 'line', line: OUTPUT_SHREDDED },
      { type: 'line', line: OUTPUT_SHREDDED },
    ]);
    expect(
      messagesOf(
        event(jobStream('s'), 'JobFinishedSealed', { job_id: 's', success: false, sealed: 're' }),
        gone,
      ),
    ).toEqual([{ type: 'result', success: false, error: OUTPUT_SHREDDED, output: [] }]);
    // A sealed event read without any opener is a bug, never shown as output.
    expect(() => messagesOf(event(jobStream('s'), 'JobStatusSealed', { job_id: 's', sealed: 'st' }))).toThrow(
      /needs its key/,
    );
  });

  it('turns events into messages in order', () => {
    expect(messagesOf(event(jobStream('d'), 'JobOutput', { job_id: 'd', lines: ['x', 'y'] }))).toEqual([
      { type: 'line', line: 'x' },
      { type: 'line', line: 'y' },
    ]);
    expect(messagesOf(jobStarted('d'))).toEqual([]);
    expect(
      messagesOf(event(jobStream('d'), 'JobFinished', { job_id: 'd', success: true, output: [] })),
    ).toEqual([{ type: 'result', success: true, output: [] }]);
  });

  it('knows no job by a prototype name, keeps jobs with such ids, and snapshots them', () => {
    const empty = jobs.initial();
    for (const name of PROTOTYPE_NAMES) expect(empty.jobs.get(name), name).toBeUndefined();
    const ids = ['__proto__', 'constructor', 'toString'];
    const state = foldJobs([...ids.map(jobStarted), deleted(jobStream('toString'))]);
    expect([...state.jobs.keys()]).toEqual(['__proto__', 'constructor']);
    expect(state.jobs.get('__proto__')).toMatchObject({ id: '__proto__', status: 'running' });
    // Through JSON, as a snapshot is stored; the shape is the one older builds wrote (jobs by id).
    const json = JSON.parse(JSON.stringify(saveState(jobs, state))) as { jobs: Record<string, unknown> };
    expect(Object.keys(json.jobs)).toEqual(['__proto__', 'constructor']);
    const loaded = loadState(jobs, json);
    expect([...loaded.jobs.entries()]).toEqual([...state.jobs.entries()]);
    expect(loaded.jobs.get('hasOwnProperty')).toBeUndefined();
  });
});
