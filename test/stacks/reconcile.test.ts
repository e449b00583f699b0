/**
 * The deploy-log reconcile over a real LevelDB store and real files (spec, Reconcile rules 1-4): the
 * matrix of orphans, missing files, running runs, an element that cannot be deleted, several
 * environments, other files; one run at a time; an execution a crash left running.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toRunJson } from '../../projections/deploy-runs.js';
import { type ExecutionsState, reconcileExecutions, toExecutionJson } from '../../projections/executions.js';
import { ProjectionRunner } from '../../projections/runtime.js';
import { StacksError } from '../../src/stacks/errors.js';
import { createRedactor } from '../../src/stacks/output/redaction.js';
import {
  INTERRUPTED_RECONCILE_MESSAGE,
  interleaveByEnvironment,
  RECONCILE_BUSY_MESSAGE,
  Reconciler,
} from '../../src/stacks/reconcile/reconciler.js';
import { environmentLogDir } from '../../src/stacks/runs/log-files.js';
import { type EnvironmentId, executionStream, runStream, stacksEvent } from '../../streams/stacks.js';
import { noExit, openRecords, type Records, readAllEvents } from './records-helpers.js';

const OPTIONS = { pull: false, build: false, forceRecreate: false };
// Whole seconds: utimes() keeps them exactly, so the recorded modification time can be compared.
const HOUR_AGO = new Date(Math.floor((Date.now() - 3_600_000) / 1000) * 1000);
const IS_ROOT = process.getuid?.() === 0;

let records: Records | undefined;
let executions: ProjectionRunner<ExecutionsState> | undefined;

afterEach(async () => {
  await executions?.stop();
  executions = undefined;
  await records?.dispose();
  records = undefined;
});

async function setup(reopen?: { dataDir: string; storeUrl: string }) {
  records = await openRecords('level', reopen ? { reopen } : {});
  executions = new ProjectionRunner(records.store, reconcileExecutions, { snapshotIntervalMs: 60_000 });
  await executions.start();
  const reconciler = new Reconciler({
    store: records.store,
    dataDir: records.dataDir,
    runs: records.runsModel,
    executions,
  });
  return { r: records, reconciler, executions };
}

/** Starts a run; with `lines` its log file exists; `finish` completes it. */
async function run(r: Records, env: EnvironmentId, opts: { lines?: number; finish?: boolean } = {}) {
  const recorder = await r.runs.start({
    jobId: `job-${Math.random()}`,
    stack: 'web',
    environmentId: env,
    trigger: 'manual',
    userId: 'admin',
    options: OPTIONS,
    composeHash: 'c',
    envHash: 'e',
  });
  for (let i = 0; i < (opts.lines ?? 0); i++) recorder.line(`line ${i}`);
  await recorder.flush();
  if (opts.finish ?? true)
    await recorder.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
  return recorder;
}

const logDir = (r: Records, env: EnvironmentId) => environmentLogDir(r.dataDir, env);

/** Writes a log-folder entry, with its modification time set. */
async function file(r: Records, env: EnvironmentId, name: string, modified: Date = HOUR_AGO) {
  await mkdir(logDir(r, env), { recursive: true });
  const path = join(logDir(r, env), name);
  await writeFile(path, 'orphan\n');
  await utimes(path, modified, modified);
  return path;
}

describe('deploy-log reconcile', () => {
  it('the matrix: old and fresh orphans, missing files, running runs, several environments, other files', async () => {
    const { r, reconciler } = await setup();
    const kept = await run(r, null, { lines: 2 }); // finished, with its file
    const gone = await run(r, 1, { lines: 2 }); // finished, its file removed below
    const silent = await run(r, 2); // finished, printed nothing: no file
    const runningWith = await run(r, 1, { lines: 1, finish: false });
    const runningWithout = await run(r, null, { finish: false });
    const { rm } = await import('node:fs/promises');
    await rm(gone.logPath);
    // Make the running run's file look old: a running run's file is never deleted, whatever its age.
    await utimes(runningWith.logPath, HOUR_AGO, HOUR_AGO);
    const oldNull = await file(r, null, '900.log');
    const old3 = await file(r, 3, '901.log');
    const fresh = await file(r, 1, '902.log', new Date());
    const notes = await file(r, null, 'notes.txt');
    const padded = await file(r, 3, '0903.log');
    const tmp = await file(r, 1, '904.log.tmp');
    await mkdir(join(r.dataDir, 'deploy-logs', 'not-an-env'), { recursive: true });
    await writeFile(join(r.dataDir, 'deploy-logs', 'not-an-env', '905.log'), 'x');

    const row = await reconciler.run('manual', 'admin');
    expect(row).toMatchObject({
      status: 'success',
      trigger: 'manual',
      userId: 'admin',
      errorMessage: null,
      deletedFiles: 2,
      markedRecords: 2,
      failed: 0,
      keptFresh: 1,
      ignoredFiles: 3,
      environments: [null, 1, 2, 3],
    });
    expect(existsSync(oldNull)).toBe(false);
    expect(existsSync(old3)).toBe(false);
    for (const path of [kept.logPath, runningWith.logPath, fresh, notes, padded, tmp])
      expect(existsSync(path)).toBe(true);
    expect(existsSync(join(r.dataDir, 'deploy-logs', 'not-an-env', '905.log'))).toBe(true);
    // Flagged: the finished runs without a file; never the running ones.
    const state = r.runsModel.state;
    expect(toRunJson(state.runs.get(gone.runId) as never).details.logMissing).toBe(true);
    expect(state.runs.get(silent.runId)?.logMissing).toBe(true);
    expect(state.runs.get(kept.runId)?.logMissing).toBeUndefined();
    expect(state.runs.get(runningWith.runId)?.logMissing).toBeUndefined();
    expect(state.runs.get(runningWithout.runId)?.logMissing).toBeUndefined();

    // The effects are events, all in the execution's own stream: deletions, flags, then the close.
    const own = await readAllEvents(r.store, executionStream(row.id));
    expect(own.map((e) => e.type)).toEqual([
      'ReconcileStarted',
      'OrphanLogDeleted',
      'OrphanLogDeleted',
      'RunLogMissing',
      'RunLogMissing',
      'ReconcileCompleted',
    ]);
    const deleted = own
      .filter((e) => e.type === 'OrphanLogDeleted')
      .map((e) => e.data as { environment_id: EnvironmentId; file: string; modified_at: string });
    expect(
      deleted.map((d) => [d.environment_id, d.file]).sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    ).toEqual([
      [null, '900.log'],
      [3, '901.log'],
    ]);
    expect(deleted[0]?.modified_at).toBe(HOUR_AGO.toISOString());
    const flags = own.filter((e) => e.type === 'RunLogMissing').map((e) => e.data);
    expect(flags).toContainEqual({
      run_id: gone.runId,
      environment_id: 1,
      log_file: `${gone.runId}.log`,
      execution_id: row.id,
    });
    // The run's own stream is untouched: the flag is the read model's, from the execution stream.
    expect((await readAllEvents(r.store, runStream(gone.runId))).map((e) => e.type)).toEqual([
      'RunStarted',
      'RunCompletedSealed',
    ]);

    // A second run finds nothing left to do: flags are not repeated.
    const again = await reconciler.run('cron', null);
    expect(again).toMatchObject({ status: 'success', deletedFiles: 0, markedRecords: 0, trigger: 'cron' });
    expect(again.id).toBe(row.id + 1);
    await kept.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
    await runningWith.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
    await runningWithout.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
  });

  it('an entry it may not delete fails alone: the rest is done and the row closes `warning`', async () => {
    const { r, reconciler } = await setup();
    // unlink() of a directory fails for every user, root included: a directory named like a run log.
    await mkdir(join(logDir(r, 1), '50.log'), { recursive: true });
    await utimes(join(logDir(r, 1), '50.log'), HOUR_AGO, HOUR_AGO);
    const other = await file(r, 1, '51.log');
    const elsewhere = await file(r, null, '52.log');
    const row = await reconciler.run('manual', 'admin');
    expect(row.status).toBe('warning');
    expect(row.deletedFiles).toBe(2);
    expect(row.failed).toBe(1);
    expect(row.failures).toEqual([
      { path: 'deploy-logs/1/50.log', error: expect.stringMatching(/EISDIR|EPERM/) },
    ]);
    expect(existsSync(other)).toBe(false);
    expect(existsSync(elsewhere)).toBe(false);
    expect(existsSync(join(logDir(r, 1), '50.log'))).toBe(true);
    const own = await readAllEvents(r.store, executionStream(row.id));
    expect(own.filter((e) => e.type === 'ReconcileElementFailed')).toHaveLength(1);
    expect(toExecutionJson(row).details).toMatchObject({ deletedFiles: 2, markedRecords: 0, failed: 1 });
  });

  if (IS_ROOT)
    console.log(
      'skipped: the read-only folder case: tests run as root here, and root may delete in a read-only folder (the 50.log directory case covers a failing element)',
    );
  it.skipIf(IS_ROOT)(
    'a read-only folder: its files fail, other folders are done (skipped as root: root may delete)',
    async () => {
      const { r, reconciler } = await setup();
      const locked = await file(r, 2, '60.log');
      const free = await file(r, null, '61.log');
      await chmod(logDir(r, 2), 0o555);
      try {
        const row = await reconciler.run('manual', null);
        expect(row.status).toBe('warning');
        expect(row.failed).toBe(1);
        expect(row.deletedFiles).toBe(1);
        expect(existsSync(locked)).toBe(true);
        expect(existsSync(free)).toBe(false);
      } finally {
        await chmod(logDir(r, 2), 0o755);
      }
    },
  );

  it('a log folder that cannot be listed fails that environment only, and flags none of its records', async () => {
    const { r, reconciler } = await setup();
    const finished = await run(r, 4); // no file; its folder is unreadable, so it must not be flagged
    await mkdir(join(r.dataDir, 'deploy-logs'), { recursive: true });
    await writeFile(join(r.dataDir, 'deploy-logs', '4'), 'a file where a folder should be');
    const orphan = await file(r, null, '70.log');
    const row = await reconciler.run('manual', null);
    expect(row.status).toBe('warning');
    expect(row.failures).toEqual([{ path: 'deploy-logs/4', error: expect.stringMatching(/ENOTDIR/) }]);
    expect(row.markedRecords).toBe(0);
    expect(r.runsModel.state.runs.get(finished.runId)?.logMissing).toBeUndefined();
    expect(existsSync(orphan)).toBe(false);
  });

  it('one reconcile at a time: a second run while one runs is a 409', async () => {
    const { r, reconciler } = await setup();
    for (let i = 0; i < 50; i++) await file(r, null, `${1000 + i}.log`);
    const first = reconciler.run('manual', null);
    let caught: unknown;
    try {
      void reconciler.run('cron', null);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StacksError);
    expect((caught as StacksError).status).toBe(409);
    expect((caught as StacksError).message).toBe(RECONCILE_BUSY_MESSAGE);
    expect((await first).deletedFiles).toBe(50);
    // Free again once it has ended.
    expect((await reconciler.run('manual', null)).status).toBe('success');
  });

  it('the run itself throwing (the log root is not a folder) closes the row `failed` with the error', async () => {
    const { r, reconciler } = await setup();
    await run(r, null);
    await writeFile(join(r.dataDir, 'deploy-logs'), 'not a folder');
    const row = await reconciler.run('manual', null);
    expect(row.status).toBe('failed');
    expect(row.errorMessage).toMatch(/ENOTDIR/);
    expect(row.finishedAt).not.toBeNull();
    expect(row.markedRecords).toBe(0);
  });

  it('an execution a crash left `running` is closed `failed` with the reason on the next start', async () => {
    const first = await setup();
    await first.r.store.append(
      executionStream(1),
      [stacksEvent('ReconcileStarted', { execution_id: 1, trigger: 'cron', user_id: null })],
      { expectedRevision: 'no_stream' },
    );
    await first.executions.waitFor(await first.r.store.headPosition());
    expect(first.executions.state.executions.get(1)?.status).toBe('running');
    const reopen = { dataDir: first.r.dataDir, storeUrl: first.r.storeUrl };
    await first.executions.stop();
    await first.r.stop();
    executions = undefined;
    const second = await setup(reopen);
    expect(await second.reconciler.closeInterrupted()).toEqual([1]);
    expect(second.executions.state.executions.get(1)).toMatchObject({
      status: 'failed',
      errorMessage: INTERRUPTED_RECONCILE_MESSAGE,
    });
    expect(second.executions.state.executions.get(1)?.finishedAt).not.toBeNull();
    // Ids go on after it.
    expect((await second.reconciler.run('manual', null)).id).toBe(2);
  });

  it('stop() during a run closes it `failed` (server stopping) and refuses new runs', async () => {
    const { r, reconciler } = await setup();
    for (let i = 0; i < 20; i++) await file(r, null, `${2000 + i}.log`);
    const started = reconciler.run('manual', null);
    await reconciler.stop();
    const row = await started;
    // Either it was stopped before its first batch, or it had already finished: never left running.
    expect(['failed', 'success']).toContain(row.status);
    if (row.status === 'failed') expect(row.errorMessage).toMatch(/stopped/);
    expect(row.finishedAt).not.toBeNull();
    expect(() => reconciler.run('manual', null)).toThrow(/stopping/);
    expect((await readdir(logDir(r, null))).length).toBe(20 - row.deletedFiles);
  });

  it('deletions are taken round-robin over the environments (unlinks in one folder wait for each other)', () => {
    const a = (environmentId: EnvironmentId, n: number) => ({ environmentId, n });
    expect(interleaveByEnvironment([a(null, 1), a(null, 2), a(null, 3), a(1, 4), a(2, 5), a(2, 6)])).toEqual([
      a(null, 1),
      a(1, 4),
      a(2, 5),
      a(null, 2),
      a(2, 6),
      a(null, 3),
    ]);
    expect(interleaveByEnvironment([])).toEqual([]);
  });
});
