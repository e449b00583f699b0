/**
 * Output sealed with its run's (or job's) key, over a real store: nothing readable in the events,
 * everything readable through the books, nothing readable once the run is deleted; and logs written
 * before sealing (clear-text events) still read, rebuild and close as they did.
 */
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deployRuns } from '../../projections/deploy-runs.js';
import { jobs as jobsProjection } from '../../projections/jobs.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { Instance } from '../../src/stacks/instances/instance.js';
import { JobBook } from '../../src/stacks/jobs/job-book.js';
import { OutputKeys } from '../../src/stacks/output/keys.js';
import { createRedactor } from '../../src/stacks/output/redaction.js';
import { StreamDeletedError } from '../../src/store/errors.js';
import {
  jobKeyScope,
  jobStream,
  keyStream,
  OUTPUT_SHREDDED,
  runKeyScope,
  runStream,
  type StacksEventMap,
  stacksEvent,
} from '../../streams/stacks.js';
import { openRecords, type Records, readAllEvents, storeKinds } from './records-helpers.js';

const MARKER = 'marker-7f3a9c-output';

const runInput = (jobId: string) => ({
  jobId,
  stack: 'web',
  environmentId: null,
  trigger: 'manual' as const,
  userId: 'alice',
  options: { pull: false, build: false, forceRecreate: false },
  composeHash: 'ch',
  envHash: 'eh',
});

for (const kind of storeKinds) {
  describe(`sealed output over the ${kind} store`, () => {
    let records: Records;
    beforeEach(async () => {
      records = await openRecords(kind);
    });
    afterEach(async () => {
      await records.dispose();
    });

    /** A failed deploy whose every text holds the marker: lines, a status, the result, the error. */
    async function failedDeploy() {
      const recorder = await records.runs.start(runInput('job-s'));
      const job = await records.jobs.start({
        id: 'job-s',
        kind: 'deploy',
        stack: 'web',
        environmentId: null,
        userId: 'alice',
        runId: recorder.runId,
      });
      job.status(`status ${MARKER}`);
      for (let i = 0; i < 3; i++) job.line(`line ${i} ${MARKER}`);
      const result = await job.finish({ success: false, error: `failed: ${MARKER}`, exitCode: 2 });
      await recorder.complete({
        success: false,
        exit: { exitCode: 2, signal: null, timedOut: false, cancelled: false },
        error: `compose said ${MARKER}`,
        redactor: createRedactor([]),
      });
      return { recorder, job, result };
    }

    it('records no output in clear, reads it back through the key, and not after the run is deleted', async () => {
      const { recorder, job } = await failedDeploy();
      const runId = recorder.runId;
      const everything = JSON.stringify(await readAllEvents(records.store));
      expect(everything).not.toContain(MARKER);
      const jobTypes = (await readAllEvents(records.store, jobStream(job.id))).map((e) => e.type);
      expect(jobTypes).toEqual(['JobStarted', 'JobStatusSealed', 'JobOutputSealed', 'JobFinishedSealed']);
      const runTypes = (await readAllEvents(records.store, runStream(runId))).map((e) => e.type);
      expect(runTypes).toEqual(['RunStarted', 'RunCompletedSealed']);
      // What is not output stays in clear: the read model knows status, exit code, counts.
      expect(records.runs.get(runId)).toMatchObject({ status: 'failed', exitCode: 2, errorMessage: null });
      expect(records.jobs.info(job.id)).toMatchObject({ status: 'done', success: false, messages: 5 });

      const poll = await records.jobs.poll(job.id);
      expect(poll?.messages).toEqual([
        { type: 'status', status: `status ${MARKER}` },
        ...[0, 1, 2].map((i) => ({ type: 'line', line: `line ${i} ${MARKER}` })),
        {
          type: 'result',
          success: false,
          error: `failed: ${MARKER}`,
          exitCode: 2,
          output: [0, 1, 2].map((i) => `line ${i} ${MARKER}`),
        },
      ]);
      const streamed = await lastValueFrom(records.jobs.messages(job.id, 2).pipe(toArray()));
      expect(streamed.map((m) => m.index)).toEqual([2, 3, 4]);
      const run = records.runs.get(runId);
      expect(run && (await records.runs.json(run))).toMatchObject({ errorMessage: `compose said ${MARKER}` });

      const sealedError = (await readAllEvents(records.store, runStream(runId)))[1]?.data as
        | StacksEventMap['RunCompletedSealed']
        | undefined;
      await records.runs.deleteRun(runId, 'bob');
      await expect(readAllEvents(records.store, keyStream(runKeyScope(runId)))).rejects.toBeInstanceOf(
        StreamDeletedError,
      );
      // The sealed error stays in the run stream (an append-only log keeps it), unreadable: no book,
      // even a fresh one that never saw the key, opens it.
      const fresh = new OutputKeys(records.store);
      expect(
        (await fresh.opener(runKeyScope(runId))).open(sealedError?.error_sealed as string),
      ).toBeUndefined();
      expect(JSON.stringify(await readAllEvents(records.store))).not.toContain(MARKER);
    });

    it('a half-deleted run (key gone, record still there) reads as shredded, and its delete can be repeated', async () => {
      const { recorder } = await failedDeploy();
      await records.runs.keys.shred(runKeyScope(recorder.runId));
      const run = records.runs.get(recorder.runId);
      expect(run && (await records.runs.json(run))).toMatchObject({ errorMessage: OUTPUT_SHREDDED });
      const poll = await records.jobs.poll('job-s');
      expect(poll?.messages.slice(0, 2)).toEqual([
        { type: 'status', status: OUTPUT_SHREDDED },
        { type: 'line', line: OUTPUT_SHREDDED },
      ]);
      expect(poll?.messages).toHaveLength(5);
      expect(await records.runs.deleteRun(recorder.runId, 'bob')).toEqual({
        deleted: true,
        id: recorder.runId,
      });
    });

    it('a job without a run has a key of its own, which the retention sweep deletes with it', async () => {
      const job = await records.jobs.start({
        kind: 'stop',
        stack: 'web',
        environmentId: null,
        userId: 'a',
        runId: null,
      });
      job.line(`stopping ${MARKER}`);
      await job.finish({ success: true, exitCode: 0 });
      expect(JSON.stringify(await readAllEvents(records.store))).not.toContain(MARKER);
      expect((await records.jobs.poll(job.id))?.messages[0]).toEqual({
        type: 'line',
        line: `stopping ${MARKER}`,
      });
      await records.jobsModel.waitFor(await records.store.headPosition());
      expect(await records.jobs.sweep(new Date(Date.now() + 48 * 3_600_000))).toEqual([job.id]);
      await expect(readAllEvents(records.store, keyStream(jobKeyScope(job.id)))).rejects.toBeInstanceOf(
        StreamDeletedError,
      );
    });

    it('a log written before sealing still reads, rebuilds and closes its interrupted jobs in clear', async () => {
      const store = records.store;
      await store.append(runStream(1), [
        stacksEvent('RunStarted', {
          run_id: 1,
          job_id: 'old',
          stack: 'web',
          environment_id: null,
          trigger: 'manual',
          user_id: 'alice',
          options: { pull: false, build: false, forceRecreate: false },
          compose_hash: 'c',
          env_hash: 'e',
          log_file: '1.log',
        }),
        stacksEvent('RunCompleted', {
          run_id: 1,
          status: 'failed',
          exit_code: 4,
          exit_code_known: true,
          error_message: 'legacy failure',
        }),
      ]);
      await store.append(jobStream('old'), [
        stacksEvent('JobStarted', {
          job_id: 'old',
          kind: 'deploy',
          stack: 'web',
          environment_id: null,
          user_id: 'alice',
          run_id: 1,
        }),
        stacksEvent('JobStatusReported', { job_id: 'old', status: 'pulling' }),
        stacksEvent('JobOutput', { job_id: 'old', lines: ['a', 'b'] }),
        stacksEvent('JobFinished', { job_id: 'old', success: false, error: 'legacy failure', output: ['b'] }),
      ]);
      // A job of an older server that stopped half way, no key anywhere.
      const dead = await Instance.join(store);
      await store.append(jobStream('half'), [
        {
          ...stacksEvent('JobStarted', {
            job_id: 'half',
            kind: 'stop',
            stack: 'web',
            environment_id: null,
            user_id: null,
            run_id: null,
          }),
          metadata: { instanceId: dead.id },
        },
        stacksEvent('JobOutput', { job_id: 'half', lines: ['half way'] }),
      ]);
      await dead.leave();
      const head = await store.headPosition();
      await records.runsModel.waitFor(head);
      await records.jobsModel.waitFor(head);

      const run = records.runs.get(1);
      expect(run && (await records.runs.json(run))).toMatchObject({
        status: 'failed',
        errorMessage: 'legacy failure',
        details: { exitCode: 4 },
      });
      expect((await records.jobs.poll('old'))?.messages).toEqual([
        { type: 'status', status: 'pulling' },
        { type: 'line', line: 'a' },
        { type: 'line', line: 'b' },
        { type: 'result', success: false, error: 'legacy failure', output: ['b'] },
      ]);
      const rebuiltRuns = await rebuildProjection(store, deployRuns);
      expect(rebuiltRuns.state.runs.get(1)).toEqual(records.runs.get(1));
      const rebuiltJobs = await rebuildProjection(store, jobsProjection);
      expect(rebuiltJobs.state.jobs.get('old')).toEqual(records.jobs.info('old'));

      const next = new JobBook(store, records.jobsModel, {
        retentionHours: 24,
        instance: await Instance.join(store),
      });
      expect(await next.closeInterruptedJobs()).toEqual(['half']);
      expect((await readAllEvents(store, jobStream('half'))).at(-1)?.type).toBe('JobFinished');
      expect((await next.poll('half'))?.result).toMatchObject({ success: false, output: ['half way'] });
      // Deleting the old run works as before: no key to shred, the job stream and the record go.
      expect(await records.runs.deleteRun(1, 'bob')).toEqual({ deleted: true, id: 1 });
      expect(await records.jobs.poll('old')).toBeUndefined();
    });

    it('closes an interrupted job of today sealed, with its run key', async () => {
      const dead = await Instance.join(records.store);
      const book = new JobBook(records.store, records.jobsModel, { retentionHours: 24, instance: dead });
      const job = await book.start({
        kind: 'stop',
        stack: 'web',
        environmentId: null,
        userId: null,
        runId: null,
      });
      job.line(`half ${MARKER}`);
      await new Promise((r) => setTimeout(r, 50));
      await dead.leave();
      const next = new JobBook(records.store, records.jobsModel, {
        retentionHours: 24,
        instance: await Instance.join(records.store),
      });
      expect(await next.closeInterruptedJobs()).toEqual([job.id]);
      const events = await readAllEvents(records.store, jobStream(job.id));
      expect(events.at(-1)?.type).toBe('JobFinishedSealed');
      expect(JSON.stringify(events)).not.toContain(MARKER);
      expect((await next.poll(job.id))?.result).toMatchObject({ success: false, output: [`half ${MARKER}`] });
    });
  });
}
