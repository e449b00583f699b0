/**
 * The stacks service in process, over a memory store and the fake compose program: what is awkward to
 * reach over HTTP — one job per stack, a provider re-run at completion, close() during a deploy, the
 * start-up closing what a stopped server left running, the keyed envHash.
 */
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deployRuns } from '../../projections/deploy-runs.js';
import { jobs } from '../../projections/jobs.js';
import { ProjectionRunner } from '../../projections/runtime.js';
import { resolveStacksConfig } from '../../src/stacks/config/stacks-config.js';
import type { StackRef } from '../../src/stacks/contracts.js';
import { StacksError } from '../../src/stacks/errors.js';
import { Instance } from '../../src/stacks/instances/instance.js';
import { JobBook } from '../../src/stacks/jobs/job-book.js';
import { INTERRUPTED_RUN_MESSAGE, RunBook } from '../../src/stacks/runs/run-book.js';
import { envHash, loadHashKey } from '../../src/stacks/stack/store.js';
import {
  SERVER_STOPPING_MESSAGE,
  STACK_BUSY_MESSAGE,
  StacksService,
  type StartedJob,
} from '../../src/stacks/stacks-service.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/types.js';
import { tempDir } from './records-helpers.js';

const FAKE_COMPOSE = join(import.meta.dirname, '..', 'fixtures', 'fake-compose.mjs');
const OPTIONS = { pull: false, build: false, forceRecreate: false };

const compose = (fake?: Record<string, unknown>) =>
  `services:\n  web:\n    image: nginx:alpine\n${fake ? `x-fake: ${JSON.stringify(fake)}\n` : ''}`;

let dataDir: string;
let store: EventStore;
let service: StacksService | undefined;

async function open(extra: Record<string, unknown> = {}) {
  const { config } = resolveStacksConfig({
    environments: [{ id: 1, name: 'edge' }],
    users: [{ name: 'admin', token: 't-admin', admin: true }],
    compose: { command: [process.execPath, FAKE_COMPOSE] },
    ...extra,
  });
  service = await StacksService.open({ store, dataDir, config });
  return service;
}

const local = (name: string): StackRef => ({ name, environmentId: null });

async function created(s: StacksService, ref: StackRef, text: string, more: Record<string, unknown> = {}) {
  const started = await s.createAndStart(
    ref,
    { compose: text, variables: [], secretProvider: null, ...more },
    OPTIONS,
    'admin',
  );
  await started.result;
  return started;
}

beforeEach(async () => {
  dataDir = await tempDir('chronicle-service-');
  store = await openStore('memory:');
});

afterEach(async () => {
  await service?.close();
  service = undefined;
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('stacks service', () => {
  it('a deploy records a run and a job; the run carries the keyed envHash, not a plain sha256', async () => {
    const s = await open();
    const ref = local('web');
    const variables = [{ name: 'PIN', value: '1234', secret: true }];
    await created(s, ref, compose({ up: { lines: ['one', 'two'] } }), { variables });
    const started = await s.deploy(ref, OPTIONS, 'admin');
    const result = await started.result;
    expect(result).toMatchObject({ success: true, exitCode: 0, output: ['one', 'two'] });
    const run = s.runs.get(started.runId as number);
    expect(run).toMatchObject({ status: 'success', jobId: started.jobId, stack: 'web' });
    const key = await loadHashKey(dataDir);
    expect(run?.envHash).toBe(envHash(key, variables));
    const plain = createHash('sha256')
      .update(JSON.stringify([['PIN', '1234']]))
      .digest('hex');
    expect(run?.envHash).not.toBe(plain);
    expect(await readFile(s.runs.logPathOf(run as NonNullable<typeof run>), 'utf8')).toBe('one\ntwo\n');
  });

  it('a stack is free as soon as its run or job is seen finished: no 409 for a moment after', async () => {
    const s = await open();
    const ref = local('again');
    await created(s, ref, compose({ up: { lines: ['x'] } }));
    for (let round = 0; round < 5; round++) {
      const started = await s.deploy(ref, OPTIONS, 'admin');
      // What a client sees first: the job's result message (SSE, poll), before the service's promise.
      await lastValueFrom(s.jobs.messages(started.jobId));
      const next = await s.deploy(ref, OPTIONS, 'admin');
      await next.result;
    }
  });

  it('one job at a time per stack: a second operation while one runs is 409, and allowed after', async () => {
    const s = await open();
    const ref = local('busy');
    await created(s, ref, compose({ up: { lines: ['x'], sleepMs: 800 } }));
    const first = await s.deploy(ref, OPTIONS, 'admin');
    for (const attempt of [
      () => s.deploy(ref, OPTIONS, 'admin'),
      () => s.operate(ref, 'stop', 'admin'),
      () => s.saveCompose(ref, compose(), true, OPTIONS, 'admin'),
      () => s.deleteStack(ref, 'admin'),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ status: 409, message: STACK_BUSY_MESSAGE });
    }
    await expect(
      s.createAndStart(ref, { compose: compose(), variables: [], secretProvider: null }, OPTIONS, 'admin'),
    ).rejects.toMatchObject({ status: 409, message: 'Stack already exists' });
    // Another stack is not held up.
    const other = await created(s, local('other'), compose({ up: { lines: ['o'] } }));
    expect(await other.result).toMatchObject({ success: true });
    expect((await first.result).success).toBe(true);
    const again = await s.operate(ref, 'stop', 'admin');
    expect(again.runId).toBeNull();
    expect((await again.result).success).toBe(true);
  });

  it('start/stop/restart/down are jobs without runs; compose save without restart neither', async () => {
    const s = await open();
    const ref = local('ops');
    await created(s, ref, compose());
    const before = s.runs.list('ops', null).length;
    for (const op of ['start', 'stop', 'restart', 'down'] as const) {
      const started = await s.operate(ref, op, 'admin');
      expect(started.runId).toBeNull();
      expect((await started.result).success).toBe(true);
    }
    expect(await s.saveCompose(ref, compose(), false, OPTIONS, 'admin')).toEqual({
      saved: true,
      composeHash: expect.any(String),
    });
    expect(s.runs.list('ops', null).length).toBe(before);
  });

  it('the provider is run again at completion: a value it gives only then still redacts the stored error', async () => {
    const counter = join(dataDir, 'calls');
    const provider = join(dataDir, 'provider.mjs');
    // First call: one secret; later calls: a second one too (rotated in the meantime, say).
    await writeFile(
      provider,
      `import { existsSync, writeFileSync } from 'node:fs';
const first = !existsSync(${JSON.stringify(counter)});
writeFileSync(${JSON.stringify(counter)}, 'x');
const out = { EARLY_KEY: 'early-secret-value' };
if (!first) out.LATE_KEY = 'late-secret-value';
process.stdout.write(JSON.stringify(out));
`,
    );
    const s = await open({ secretProviders: { vault: { command: [process.execPath, provider] } } });
    const ref = local('late');
    const text = compose({
      up: {
        env: ['EARLY_KEY'],
        stderr: ['failing with late-secret-value and early-secret-value'],
        exit: 3,
      },
    });
    const started = await created(s, ref, text, { secretProvider: 'vault' });
    const result = await started.result;
    expect(result.success).toBe(false);
    expect(result.exitCode).toBe(3);
    // The line was redacted with the values known when it was printed...
    expect(result.output).toContain('EARLY_KEY=***');
    // ...and the error with the values the provider gives at completion as well.
    expect(result.error).toContain('Compose exited with code 3');
    expect(result.error).not.toContain('late-secret-value');
    expect(result.error).not.toContain('early-secret-value');
    const run = s.runs.get(started.runId as number);
    expect(run?.status).toBe('failed');
    const error = run && (await s.runs.errorOf(run));
    expect(error).not.toContain('late-secret-value');
    expect(error).toContain('***');
  });

  it('a provider that fails fails the job and closes its run, without quoting the provider output', async () => {
    const provider = join(dataDir, 'bad.mjs');
    await writeFile(provider, `process.stdout.write('not json secret-ish'); process.exit(0);\n`);
    const s = await open({ secretProviders: { vault: { command: [process.execPath, provider] } } });
    const started = await created(s, local('bad'), compose(), { secretProvider: 'vault' });
    const result = await started.result;
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/secret provider/);
    expect(result.error).not.toContain('secret-ish');
    expect(s.runs.get(started.runId as number)?.status).toBe('failed');
  });

  it('a provider missing from the config is 400 at create', async () => {
    const s = await open();
    await expect(
      s.createAndStart(
        local('x'),
        { compose: compose(), variables: [], secretProvider: 'nope' },
        OPTIONS,
        'a',
      ),
    ).rejects.toBeInstanceOf(StacksError);
  });

  it('an environment that is not configured is 404 Environment not found', async () => {
    const s = await open();
    await expect(s.deploy({ name: 'w', environmentId: 9 }, OPTIONS, 'a')).rejects.toMatchObject({
      status: 404,
      message: 'Environment not found',
    });
  });

  it('close() during a deploy stops compose; the run closes failed with the reason, the job with a result', async () => {
    const s = await open();
    const ref = local('slow');
    await created(s, ref, compose());
    await s.saveCompose(ref, compose({ up: { lines: ['waiting'], sleepMs: 30_000 } }), false, OPTIONS, 'a');
    const started: StartedJob = await s.deploy(ref, OPTIONS, 'admin');
    await new Promise((r) => setTimeout(r, 300));
    await s.close();
    service = undefined;
    // Compose sleeps for 30 s: a close that waited for it would end the job with success.
    const result = await started.result;
    expect(result).toMatchObject({ success: false, error: SERVER_STOPPING_MESSAGE });
    expect('exitCode' in result).toBe(false);
    // A new service over the same store finds the run closed, not running.
    const s2 = await open();
    const run = s2.runs.get(started.runId as number);
    expect(run).toMatchObject({ status: 'failed' });
    expect(run && (await s2.runs.json(run))).toMatchObject({ errorMessage: SERVER_STOPPING_MESSAGE });
    await expect(s2.deploy(ref, OPTIONS, 'admin')).resolves.toBeDefined();
  });

  it('at start, runs and jobs a stopped server left running are closed failed', async () => {
    // A run started by "another server" that died: recorded RunStarted, nothing after.
    const model = new ProjectionRunner(store, deployRuns, { snapshotIntervalMs: 60_000 });
    await model.start();
    const dead = await Instance.join(store);
    const book = new RunBook(store, model, {
      dataDir,
      budget: { budgetBytes: 1024 ** 3, remeasureBytes: 1024 ** 2 },
      instance: dead,
    });
    const recorder = await book.start({
      jobId: '00000000-0000-4000-8000-000000000000',
      stack: 'dead',
      environmentId: null,
      trigger: 'manual',
      userId: null,
      options: OPTIONS,
      composeHash: 'c',
      envHash: 'e',
    });
    await model.stop();
    const jobsModel = new ProjectionRunner(store, jobs, { snapshotIntervalMs: 60_000 });
    await jobsModel.start();
    const job = await new JobBook(store, jobsModel, { retentionHours: 24, instance: dead }).start({
      kind: 'stop',
      stack: 'dead',
      environmentId: null,
      userId: null,
      runId: null,
    });
    job.line('half way');
    // The line is on record (a job appends its output every few ms) before that server "stops".
    while ((await store.streamRevision(`stack-job-${job.id}`)) !== 1)
      await new Promise((r) => setTimeout(r, 5));
    await jobsModel.stop();
    // That server is gone: its instance lease is free.
    await dead.leave();
    const s = await open();
    expect(await s.jobs.poll(job.id)).toMatchObject({
      status: 'done',
      result: { success: false, error: 'The server stopped before this job finished' },
    });
    expect(s.runs.get(recorder.runId)).toMatchObject({
      status: 'failed',
      errorMessage: INTERRUPTED_RUN_MESSAGE,
    });
  });
});
