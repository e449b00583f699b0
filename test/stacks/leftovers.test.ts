/**
 * What a start does with the compose groups recorded by runs and jobs of other instances (docs/stacks.md#jobs-runs-and-how-compose-runs,
 * point 11), in process over a memory store: a group of another host is left alone and its stack stays
 * busy; one of an earlier boot of this host is known gone; a recorded id that now names another process
 * (another start time) is never signalled; a live instance's groups are never touched. The whole path
 * (kill -9, restart, the group stopped) is test/http/stacks/leftover-compose.test.ts.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deployRuns } from '../../projections/deploy-runs.js';
import { jobs } from '../../projections/jobs.js';
import { ProjectionRunner } from '../../projections/runtime.js';
import { groupMembers, groupOf, thisHost } from '../../src/stacks/compose/process-groups.js';
import { resolveStacksConfig } from '../../src/stacks/config/stacks-config.js';
import type { StackRef } from '../../src/stacks/contracts.js';
import { Instance } from '../../src/stacks/instances/instance.js';
import { INTERRUPTED_JOB_MESSAGE, JobBook } from '../../src/stacks/jobs/job-book.js';
import { INTERRUPTED_RUN_MESSAGE, RunBook } from '../../src/stacks/runs/run-book.js';
import { STACK_BUSY_MESSAGE, StacksService } from '../../src/stacks/stacks-service.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/types.js';
import type { ComposeGroup } from '../../streams/stacks.js';
import { tempDir } from './records-helpers.js';

const FAKE_COMPOSE = join(import.meta.dirname, '..', 'fixtures', 'fake-compose.mjs');
const OPTIONS = { pull: false, build: false, forceRecreate: false };
const COMPOSE = 'services:\n  web:\n    image: nginx:alpine\n';
const local = (name: string): StackRef => ({ name, environmentId: null });

let dataDir: string;
let store: EventStore;
let service: StacksService | undefined;
const sleepers: number[] = [];

beforeEach(async () => {
  dataDir = await tempDir('chronicle-leftovers-');
  store = await openStore('memory:');
});

afterEach(async () => {
  await service?.close();
  service = undefined;
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
  for (const pid of sleepers.splice(0))
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
});

async function open(): Promise<StacksService> {
  const { config } = resolveStacksConfig({
    users: [{ name: 'admin', token: 't-admin', admin: true }],
    compose: { command: [process.execPath, FAKE_COMPOSE] },
  });
  service = await StacksService.open({ store, dataDir, config });
  return service;
}

/** A real process group on this host (a detached sleeper), and its record. */
async function sleeper(): Promise<ComposeGroup> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  const pid = child.pid as number;
  sleepers.push(pid);
  return groupOf(pid) as ComposeGroup;
}

/**
 * A deploy run and a stop job of another server (`instance`), each with a recorded compose group, as a
 * server leaves them when it dies during them (nothing recorded after the group).
 */
async function leftBehind(instance: Instance, stack: string, runGroup: ComposeGroup, jobGroup: ComposeGroup) {
  const runsModel = new ProjectionRunner(store, deployRuns, { snapshotIntervalMs: 60_000 });
  const jobsModel = new ProjectionRunner(store, jobs, { snapshotIntervalMs: 60_000 });
  await Promise.all([runsModel.start(), jobsModel.start()]);
  const book = new RunBook(store, runsModel, {
    dataDir,
    budget: { budgetBytes: 1024 ** 3, remeasureBytes: 1024 ** 2 },
    instance,
  });
  const recorder = await book.start({
    jobId: '00000000-0000-4000-8000-000000000001',
    stack,
    environmentId: null,
    trigger: 'manual',
    userId: null,
    options: OPTIONS,
    composeHash: 'c',
    envHash: 'e',
  });
  await recorder.composeStarted(runGroup);
  const job = await new JobBook(store, jobsModel, { retentionHours: 24, instance }).start({
    kind: 'stop',
    stack: `${stack}-other`,
    environmentId: null,
    userId: null,
    runId: null,
  });
  job.composeStarted(jobGroup);
  while ((await store.streamRevision(`stack-job-${job.id}`)) !== 1)
    await new Promise((r) => setTimeout(r, 5));
  await Promise.all([runsModel.stop(), jobsModel.stop()]);
  return { runId: recorder.runId, jobId: job.id };
}

async function stackOf(s: StacksService, name: string) {
  await (
    await s.createAndStart(
      local(name),
      { compose: COMPOSE, variables: [], secretProvider: null },
      OPTIONS,
      'admin',
    )
  ).result;
}

describe.skipIf(thisHost() === null)('compose groups left by other instances, at start', () => {
  it('another host: the run and job stay open, their stacks busy (409), and nothing is signalled', async () => {
    const here = thisHost() as NonNullable<ReturnType<typeof thisHost>>;
    const real = await sleeper();
    // The same pid and start time as a live process here: only the host name differs.
    const there = { ...real, hostname: `${here.hostname}-elsewhere` };
    const dead = await Instance.join(store);
    const left = await leftBehind(dead, 'web', there, there);
    await dead.leave();
    const s = await open();
    expect(s.runs.get(left.runId)?.status).toBe('running');
    expect((await s.jobs.poll(left.jobId))?.status).toBe('running');
    await expect(s.deploy(local('web'), OPTIONS, 'admin')).rejects.toMatchObject({
      status: 409,
      message: STACK_BUSY_MESSAGE,
    });
    await expect(s.operate(local('web-other'), 'start', 'admin')).rejects.toMatchObject({ status: 409 });
    expect((await groupMembers(real.pgid)).length).toBe(1);
  });

  it('an earlier boot of this host, or an id that now names another process: closed at once, nothing signalled', async () => {
    const real = await sleeper();
    const earlierBoot = { ...real, boot_id: 'a-boot-before-the-last-reboot' };
    const reused = { ...real, start_ticks: real.start_ticks - 1 };
    const dead = await Instance.join(store);
    const left = await leftBehind(dead, 'web', earlierBoot, reused);
    await dead.leave();
    const s = await open();
    expect(s.runs.get(left.runId)).toMatchObject({ status: 'failed', errorMessage: INTERRUPTED_RUN_MESSAGE });
    expect((await s.jobs.poll(left.jobId))?.result).toMatchObject({
      success: false,
      error: INTERRUPTED_JOB_MESSAGE,
    });
    expect((await groupMembers(real.pgid)).length).toBe(1);
    // The stack is free.
    await stackOf(s, 'web');
    const started = await s.deploy(local('web'), OPTIONS, 'admin');
    expect(await started.result).toMatchObject({ success: true });
  });

  it("a live instance's groups are never touched, nor its run and job", async () => {
    const real = await sleeper();
    const alive = await Instance.join(store);
    const left = await leftBehind(alive, 'web', real, real);
    const s = await open();
    expect(s.runs.get(left.runId)?.status).toBe('running');
    expect((await s.jobs.poll(left.jobId))?.status).toBe('running');
    await new Promise((r) => setTimeout(r, 300));
    expect((await groupMembers(real.pgid)).length).toBe(1);
    await alive.leave();
  });
});
