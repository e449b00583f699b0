import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deployRuns, toRunJson } from '../../projections/deploy-runs.js';
import { jobs as jobsProjection } from '../../projections/jobs.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { createRedactor } from '../../src/stacks/output/redaction.js';
import { budgetNotice, readLog } from '../../src/stacks/runs/log-files.js';
import { followLog as followLogFile, linesOf } from '../../src/stacks/runs/log-reader.js';
import { INTERRUPTED_RUN_MESSAGE, RunBook } from '../../src/stacks/runs/run-book.js';
import {
  completionEvent,
  type LogFollow,
  type RunStart,
  WITHHELD_ERROR_MESSAGE,
} from '../../src/stacks/runs/run-recorder.js';
import { WithheldLines } from '../../src/stacks/runs/withheld-lines.js';
import { jobStream, MAX_WITHHELD_PLACES, runStream } from '../../streams/stacks.js';
import { noExit, openRecords, type Records, readAllEvents, storeKinds } from './records-helpers.js';

const runInput = (over: Partial<RunStart> = {}): RunStart => ({
  jobId: 'job-1',
  stack: 'web',
  environmentId: null,
  trigger: 'manual',
  userId: 'alice',
  options: { pull: false, build: false, forceRecreate: true },
  composeHash: 'ch',
  envHash: 'eh',
  ...over,
});

const summary = {
  containersCreated: 1,
  containersStarted: 1,
  containersRecreated: 0,
  containersRemoved: 0,
  imagesPulled: 0,
  imagesBuilt: 0,
};

describe('completionEvent', () => {
  const redactor = createRedactor(['hunter22', 'abc']);
  it('stores the process exit code when known, else one consistent with the status', () => {
    expect(completionEvent(1, { success: true, exit: noExit, redactor }, 1)).toMatchObject({
      status: 'success',
      exit_code: 0,
      exit_code_known: true,
      error_message: null,
    });
    const timedOut = { exitCode: null, signal: 'SIGKILL' as const, timedOut: true, cancelled: false };
    expect(completionEvent(1, { success: false, exit: timedOut, redactor }, 1)).toMatchObject({
      status: 'failed',
      exit_code: 1,
      exit_code_known: false,
      error_message: 'Deploy timed out; compose was stopped',
    });
  });

  it('a cancelled deploy is stored `cancelled` with who cancelled it; a success stays a success', () => {
    const cancelled = { exitCode: null, signal: 'SIGTERM' as const, timedOut: false, cancelled: true };
    const error = 'Cancelled by admin; compose was stopped';
    expect(
      completionEvent(1, { success: false, exit: cancelled, error, cancelledBy: 'admin', redactor }, 1),
    ).toMatchObject({
      status: 'cancelled',
      exit_code: 1,
      exit_code_known: false,
      error_message: error,
      cancelled_by: 'admin',
    });
    const done = completionEvent(1, { success: true, exit: noExit, cancelledBy: 'admin', redactor }, 1);
    expect(done.status).toBe('success');
    expect('cancelled_by' in done).toBe(false);
  });

  it('redacts the error, and stores a placeholder when redaction withholds all of it', () => {
    const exit = { ...noExit, exitCode: 2 };
    expect(
      completionEvent(1, { success: false, exit, error: 'bad password hunter22\nok', redactor }, 1)
        .error_message,
    ).toBe('bad password ***\nok');
    expect(completionEvent(1, { success: false, exit, error: 'key abc', redactor }, 1).error_message).toBe(
      WITHHELD_ERROR_MESSAGE,
    );
    // A provider secret resolved after the deploy returned still redacts the stored error.
    expect(
      completionEvent(
        1,
        { success: false, exit, error: 'late-secret!', redactor: redactor.with(['late-secret!']) },
        1,
      ).error_message,
    ).toBe('***');
  });

  it('keeps the summary only when compose printed lines', () => {
    expect(completionEvent(1, { success: true, exit: noExit, redactor, summary }, 0)).not.toHaveProperty(
      'summary',
    );
    expect(completionEvent(1, { success: true, exit: noExit, redactor, summary }, 3).summary).toEqual(
      summary,
    );
  });
});

describe.each(storeKinds)('RunBook and RunRecorder over the %s store', (kind) => {
  let records: Records;
  beforeEach(async () => {
    records = await openRecords(kind);
  });
  afterEach(async () => {
    await records.dispose();
  });

  it('records a run from start to success, with its log', async () => {
    const recorder = await records.runs.start(runInput({ environmentId: 2 }));
    expect(recorder.runId).toBe(1);
    const running = records.runs.get(1);
    expect(running && toRunJson(running)).toMatchObject({
      id: 1,
      status: 'running',
      finishedAt: null,
      environmentId: 2,
      jobId: 'job-1',
      details: { logFile: '1.log', truncated: false, userId: 'alice' },
    });
    await recorder.flush();
    expect(existsSync(recorder.logPath)).toBe(false);
    recorder.line('Container web-1  Started');
    recorder.line('done');
    const run = await recorder.complete({
      success: true,
      exit: noExit,
      redactor: createRedactor([]),
      summary,
    });
    expect(toRunJson(run)).toMatchObject({
      status: 'success',
      errorMessage: null,
      details: { exitCode: 0, summary },
    });
    expect(run.finishedAt).not.toBeNull();
    expect(recorder.logPath.endsWith('/deploy-logs/2/1.log')).toBe(true);
    expect(await readLog(recorder.logPath)).toBe('Container web-1  Started\ndone\n');
    expect(() => recorder.line('late')).toThrow(/complete/);
    expect(records.runs.list('web', 2).map((r) => r.id)).toEqual([1]);
    expect(records.runs.list('web', null)).toEqual([]);
  });

  it('gives unique ids to concurrent starts, also from two books over one store', async () => {
    const { RunBook } = await import('../../src/stacks/runs/run-book.js');
    const other = new RunBook(records.store, records.runsModel, {
      dataDir: records.dataDir,
      budget: { budgetBytes: 1e9, remeasureBytes: 1e6 },
      instance: records.instance,
    });
    const started = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? other : records.runs).start(runInput({ jobId: `j${i}` })),
      ),
    );
    const ids = started.map((r) => r.runId).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    for (const r of started) expect(records.runs.get(r.runId)?.jobId).toBe(`j${started.indexOf(r)}`);
  });

  it('appends RunCompleted only after the log file and its folders are synced', async () => {
    const order: string[] = [];
    const target = records.store;
    // The store as the book sees it, telling which events are appended when.
    const store = new Proxy(target, {
      get(object, property) {
        if (property === 'append')
          return (...args: Parameters<typeof target.append>) => {
            for (const event of args[1]) order.push(event.type);
            return target.append(...args);
          };
        const value = Reflect.get(object, property, object);
        return typeof value === 'function' ? value.bind(object) : value;
      },
    });
    const book = new RunBook(store, records.runsModel, {
      dataDir: records.dataDir,
      budget: { budgetBytes: 1024 ** 3, remeasureBytes: 1024 ** 2 },
      instance: records.instance,
      logSync: {
        file: async () => {
          order.push('sync file');
        },
        directory: async (dir) => {
          order.push(`sync ${relative(records.dataDir, dir) || '.'}`);
        },
      },
    });
    const recorder = await book.start(runInput());
    recorder.line('one');
    recorder.line('two');
    await recorder.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
    expect(order).toEqual([
      'RunStarted',
      // The run's output key (its own stream), then its completion, sealed with it.
      'OutputKeyCreated',
      'sync file',
      'sync deploy-logs/null',
      'sync deploy-logs',
      'sync .',
      'RunCompletedSealed',
    ]);
  });

  it('cuts the log at a tiny budget: one notice, RunTruncated, details.truncated', async () => {
    await records.dispose();
    records = await openRecords(kind, { budget: { budgetBytes: 64, remeasureBytes: 16 } });
    const recorder = await records.runs.start(runInput());
    const kept = Array.from({ length: 100 }, (_, i) => recorder.line(`line ${String(i).padStart(2, '0')}`)); // 8 bytes each
    // Each line's fate is known when it is given: the job stops taking lines at the same one.
    expect(kept).toEqual([...Array(8).fill(true), ...Array(92).fill(false)]);
    const run = await recorder.complete({
      success: true,
      exit: noExit,
      redactor: createRedactor([]),
      summary,
    });
    const expected = Array.from({ length: 8 }, (_, i) => `line 0${i}\n`).join('');
    expect(await readLog(recorder.logPath)).toBe(`${expected}${budgetNotice(64)}\n`);
    expect(run.truncated).toBe(true);
    expect(toRunJson(run).details.truncated).toBe(true);
    const types = (await readAllEvents(records.store, runStream(run.id))).map((e) => e.type);
    expect(types).toEqual(['RunStarted', 'RunTruncated', 'RunCompletedSealed']);
  });

  it('records where lines were withheld (RunLinesWithheld), none past the budget; a rebuild agrees', async () => {
    await records.dispose();
    records = await openRecords(kind, { budget: { budgetBytes: 64, remeasureBytes: 16 } });
    const recorder = await records.runs.start(runInput());
    recorder.withheld();
    recorder.line('line 00');
    recorder.withheld();
    recorder.withheld();
    for (let i = 1; i < 12; i++) recorder.line(`line ${String(i).padStart(2, '0')}`); // past the budget at 8
    recorder.withheld();
    const run = await recorder.complete({
      success: true,
      exit: noExit,
      redactor: createRedactor([]),
      summary,
    });
    const withheld = {
      lines: 3,
      at: [
        { afterLine: 0, lines: 1 },
        { afterLine: 1, lines: 2 },
      ],
    };
    expect(toRunJson(run).details.withheld).toEqual(withheld);
    const types = (await readAllEvents(records.store, runStream(run.id))).map((e) => e.type);
    expect(types.filter((t) => t !== 'RunTruncated')).toEqual([
      'RunStarted',
      'RunLinesWithheld',
      'RunCompletedSealed',
    ]);
    const rebuilt = await rebuildProjection(records.store, deployRuns);
    expect(rebuilt.state.runs.get(run.id)).toEqual(run);
  });

  it('records withheld places as they come, each event from the first place that changed; a rebuild agrees', async () => {
    const recorder = await records.runs.start(runInput());
    const shown = (expected: unknown) =>
      expect.poll(() => records.runs.get(recorder.runId)?.withheld).toEqual(expected);
    recorder.line('one');
    recorder.withheld();
    // In the read model while the run runs: a log followed live shows the marker.
    await shown({ lines: 1, at: [{ afterLine: 1, lines: 1 }] });
    expect(records.runs.get(recorder.runId)?.status).toBe('running');
    recorder.withheld();
    recorder.line('two');
    recorder.withheld();
    await shown({
      lines: 3,
      at: [
        { afterLine: 1, lines: 2 },
        { afterLine: 2, lines: 1 },
      ],
    });
    recorder.withheld();
    const run = await recorder.complete({
      success: true,
      exit: noExit,
      redactor: createRedactor([]),
      summary,
    });
    const withheld = {
      lines: 4,
      at: [
        { afterLine: 1, lines: 2 },
        { afterLine: 2, lines: 2 },
      ],
    };
    expect(toRunJson(run).details.withheld).toEqual(withheld);
    const events = (await readAllEvents(records.store, runStream(run.id))).filter(
      (e) => e.type === 'RunLinesWithheld',
    );
    // The first place alone; then from it (it grew) with the new one; the end adds to the last one.
    expect(events.map((e) => e.data)).toEqual([
      { run_id: run.id, lines: 1, at: [{ after_line: 1, lines: 1 }] },
      {
        run_id: run.id,
        lines: 3,
        at: [
          { after_line: 1, lines: 2 },
          { after_line: 2, lines: 1 },
        ],
      },
      { run_id: run.id, lines: 4, from: 1, at: [{ after_line: 2, lines: 2 }] },
    ]);
    const rebuilt = await rebuildProjection(records.store, deployRuns);
    expect(rebuilt.state.runs.get(run.id)).toEqual(run);
  });

  it('lists at most MAX_WITHHELD_PLACES places of withheld lines, and counts every one', () => {
    const places = new WithheldLines();
    for (let line = 0; line < MAX_WITHHELD_PLACES + 5; line++) places.add(line);
    places.add(MAX_WITHHELD_PLACES + 4);
    expect(places.lines).toBe(MAX_WITHHELD_PLACES + 6);
    expect(places.at).toHaveLength(MAX_WITHHELD_PLACES);
    expect(places.at.at(-1)).toEqual({ after_line: MAX_WITHHELD_PLACES - 1, lines: 1 });
  });

  it('deletes a finished run: 409 while running; then log, job stream and record go', async () => {
    const job = await records.jobs.start({
      kind: 'deploy',
      stack: 'web',
      environmentId: null,
      userId: 'a',
      runId: 1,
    });
    const recorder = await records.runs.start(runInput({ jobId: job.id }));
    recorder.line('secret-free output');
    job.line('secret-free output');
    await recorder.flush();
    await expect(records.runs.deleteRun(recorder.runId, 'bob')).rejects.toMatchObject({
      status: 409,
      message: 'Run is still running',
    });
    expect(existsSync(recorder.logPath)).toBe(true);
    await job.finish({ success: true, exitCode: 0 });
    await recorder.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
    await expect(records.runs.deleteRun(recorder.runId, 'bob', 'other-stack')).rejects.toMatchObject({
      status: 404,
    });
    expect(await records.runs.deleteRun(recorder.runId, 'bob', 'web')).toEqual({ deleted: true, id: 1 });
    expect(existsSync(recorder.logPath)).toBe(false);
    expect(records.runs.get(1)).toBeUndefined();
    expect(await records.jobs.poll(job.id)).toBeUndefined();
    await expect(records.store.streamRevision(jobStream(job.id))).rejects.toThrow(/deleted/);
    const last = (await readAllEvents(records.store, runStream(1))).at(-1);
    expect(last).toMatchObject({ type: 'RunDeleted', data: { run_id: 1, user_id: 'bob' } });
    await expect(records.runs.deleteRun(1, 'bob')).rejects.toMatchObject({
      status: 404,
      message: 'Run not found',
    });
    // The id stays taken.
    expect((await records.runs.start(runInput())).runId).toBe(2);
  });

  it('closes runs a stopped server left running, never those of an instance still alive', async () => {
    const left = await records.runs.start(runInput());
    left.line('half way');
    await left.flush();
    const { RunBook } = await import('../../src/stacks/runs/run-book.js');
    const { Instance } = await import('../../src/stacks/instances/instance.js');
    const book = async () =>
      new RunBook(records.store, records.runsModel, {
        dataDir: records.dataDir,
        budget: { budgetBytes: 1e9, remeasureBytes: 1e6 },
        instance: await Instance.join(records.store),
      });
    // Another instance, while the one running the deploy is alive: leaves it alone.
    expect(await (await book()).closeInterruptedRuns()).toEqual([]);
    expect(records.runs.get(left.runId)?.status).toBe('running');
    // The server that ran it stopped (its instance lease let go): the next one closes it.
    await records.instance.leave();
    const next = await book();
    expect(await next.closeInterruptedRuns()).toEqual([left.runId]);
    expect(toRunJson(next.get(left.runId) as NonNullable<ReturnType<typeof next.get>>)).toMatchObject({
      status: 'failed',
      errorMessage: INTERRUPTED_RUN_MESSAGE,
      details: { exitCode: 1 },
    });
    expect(await next.closeInterruptedRuns()).toEqual([]);
    // The book that owns a running run does not close it.
    const mine = await next.start(runInput());
    expect(await next.closeInterruptedRuns()).toEqual([]);
    await mine.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
  });

  it('rebuilds from the log to the live state', async () => {
    const a = await records.runs.start(runInput());
    a.line('x');
    await a.complete({
      success: false,
      exit: { ...noExit, exitCode: 4 },
      error: 'bad',
      redactor: createRedactor([]),
    });
    const b = await records.runs.start(
      runInput({ stack: 'db', environmentId: 1, extra: { commit: 'c0ffee' } }),
    );
    await b.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
    await records.runs.deleteRun(a.runId, 'z');
    await records.runs.start(runInput());
    const job = await records.jobs.start({
      kind: 'stop',
      stack: 'web',
      environmentId: null,
      userId: null,
      runId: null,
    });
    job.line('stopping');
    await job.finish({ success: true, exitCode: 0 });
    await records.runsModel.waitFor(await records.store.headPosition());
    await records.jobsModel.waitFor(await records.store.headPosition());
    const runs = await rebuildProjection(records.store, deployRuns);
    expect(runs.state).toEqual(records.runsModel.state);
    expect(runs.state.maxRunId).toBe(3);
    const jobs = await rebuildProjection(records.store, jobsProjection);
    expect(jobs.state).toEqual(records.jobsModel.state);
  });

  it('follows a log from the first line, live, then ends with the status (also for a finished run)', async () => {
    const read = async (follow: LogFollow, from = 0) => {
      const lines: string[] = [];
      const ends: number[] = [];
      for await (const batch of followLogFile(follow.source, from, new Promise(() => {}))) {
        const got = linesOf(batch);
        lines.push(...got.lines);
        ends.push(...got.ends);
      }
      return { lines, ends, status: await follow.status() };
    };
    const recorder = await records.runs.start(runInput());
    for (let i = 0; i < 3_000; i++) recorder.line(`early ${i}`);
    await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < 100; i++) recorder.line(`queued ${i}`);
    const followed = read(records.runs.followLog(recorder.runId));
    for (let i = 0; i < 3_000; i++) {
      recorder.line(`late ${i}`);
      if (i % 500 === 0) await new Promise((r) => setImmediate(r));
    }
    await recorder.complete({
      success: false,
      exit: { ...noExit, exitCode: 1 },
      redactor: createRedactor([]),
    });
    const got = await followed;
    const file = (await readLog(recorder.logPath)) as string;
    expect(got.lines).toEqual(file.trimEnd().split('\n'));
    expect(got.lines).toHaveLength(6_100);
    expect(got.status).toBe('failed');
    // Each line's end is its byte offset in the file: where a reader resumes.
    expect(got.ends.at(-1)).toBe(Buffer.byteLength(file));
    expect(got.ends[9]).toBe(Buffer.byteLength(file.split('\n').slice(0, 10).join('\n')) + 1);
    const again = await read(records.runs.followLog(recorder.runId));
    expect(again).toEqual(got);
    const resumed = await read(records.runs.followLog(recorder.runId), got.ends[2_999]);
    expect(resumed.lines).toEqual(got.lines.slice(3_000));
    await expect(read(records.runs.followLog(recorder.runId), 3)).rejects.toThrow(/not the start of a line/);
    expect(() => records.runs.followLog(99)).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('still records the run when its log cannot be written: failed, saying why, never success with its output lost', async () => {
    await writeFile(join(records.dataDir, 'deploy-logs'), 'a file where the folder should be');
    const recorder = await records.runs.start(runInput());
    recorder.line('lost');
    const run = await recorder.complete({ success: true, exit: noExit, redactor: createRedactor([]) });
    expect(run.status).toBe('failed');
    expect(recorder.logError?.message).toMatch(/cannot write the run log/);
    expect(await records.runs.errorOf(run)).toMatch(
      /^The deploy's output could not be recorded in its log file: cannot write the run log/,
    );
  });

  it('records a run whose job output could not be recorded as failed, with the reason after its own error', async () => {
    const ok = await records.runs.start(runInput());
    const lost = await ok.complete({
      success: true,
      exit: noExit,
      redactor: createRedactor([]),
      outputError: 'ENOSPC: no space left on device',
    });
    expect(lost.status).toBe('failed');
    expect(await records.runs.errorOf(lost)).toBe(
      "The deploy's output could not be recorded: ENOSPC: no space left on device",
    );
    const failing = await records.runs.start(runInput());
    const both = await failing.complete({
      success: false,
      exit: { ...noExit, exitCode: 3 },
      redactor: createRedactor([]),
      outputError: 'ENOSPC: no space left on device',
    });
    expect(await records.runs.errorOf(both)).toBe(
      "Compose exited with code 3 (The deploy's output could not be recorded: ENOSPC: no space left on device)",
    );
  });
});
