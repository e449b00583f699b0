/**
 * Cancel of a running job (`POST /api/jobs/{id}/cancel`), black-box with the fake compose: the job's
 * compose process group is stopped (its grandchild too), the job ends with `Cancelled by <user>` and its
 * run `cancelled` with who; the stack's answer names the running job while it runs; the cancel needs
 * `edit` and is audited; an ended job answers 409. And Start after Down: a start that finds no container
 * runs `up` instead.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  argvCalls,
  composeText,
  createStackDone,
  deploy,
  describeStacks,
  eventually,
  type Json,
  objectOf,
  saveCompose,
  serveStacks,
  stacksConfig,
  waitJob,
  waitRun,
  withStacks,
} from './helpers.js';

const stacks = serveStacks();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-cancel-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pids a fake compose's marker file names for `what` (`start`, `exit`, `tick`). */
async function pidsIn(marker: string, what: string): Promise<number[]> {
  if (!existsSync(marker)) return [];
  const text = await readFile(marker, 'utf8');
  return [...text.matchAll(new RegExp(`^${what} (\\d+)$`, 'gm'))].map((m) => Number(m[1]));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describeStacks('cancel of a running job', () => {
  it('stops the process group of a deploy; the job and its run end cancelled, with who', async () => {
    const marker = join(dir, 'deploy.marker');
    const gate = join(dir, 'deploy.gate');
    await createStackDone(stacks.admin, 'cancelled', 1, { compose: composeText({}) });
    await saveCompose(
      stacks.admin,
      'cancelled',
      1,
      composeText({
        up: {
          lines: ['pulling', 'never printed'],
          gate: { afterLines: 1, file: gate },
          marker,
          grandchild: { tickMs: 50 },
        },
      }),
    );
    const { jobId, runId } = await deploy(stacks.admin, 'cancelled', 1);
    // Compose runs (its first line came) and its grandchild ticks.
    await eventually(async () => ((await pidsIn(marker, 'tick')).length > 0 ? true : undefined), 'a tick');
    const stack = objectOf(await stacks.admin.get('/api/stacks/cancelled?env=1'));
    expect(stack.job).toMatchObject({ id: jobId, kind: 'deploy', runId, userId: 'admin' });

    // A viewer may not cancel; an unknown job is 404.
    const viewer = stacks.server.as('viewer');
    const refused = await viewer.post(`/api/jobs/${jobId}/cancel`);
    expect(refused.status).toBe(403);
    expect((await stacks.admin.post('/api/jobs/no-such-job/cancel')).status).toBe(404);

    const reply = await stacks.admin.post(`/api/jobs/${jobId}/cancel`);
    expect([reply.status, reply.value]).toEqual([202, { jobId, runId, cancelledBy: 'admin' }]);
    const job = await waitJob(stacks.admin, jobId);
    expect(job.result).toMatchObject({ success: false, error: 'Cancelled by admin; compose was stopped' });
    expect(JSON.stringify(job.messages)).not.toContain('never printed');
    const run = await waitRun(stacks.admin, 'cancelled', runId as number);
    expect(run).toMatchObject({
      status: 'cancelled',
      errorMessage: 'Cancelled by admin; compose was stopped',
      details: { cancelledBy: 'admin', userId: 'admin' },
    });
    // Compose was killed (it never wrote its exit), and its whole group with it: the grandchild is gone.
    expect(await pidsIn(marker, 'exit')).toEqual([]);
    const ticking = await pidsIn(marker, 'tick');
    await eventually(async () => (ticking.every((pid) => !alive(pid)) ? true : undefined), 'the group gone');
    // No job runs now; the stack takes the next deploy; an ended job answers 409.
    expect(objectOf(await stacks.admin.get('/api/stacks/cancelled?env=1')).job).toBeNull();
    const again = await stacks.admin.post(`/api/jobs/${jobId}/cancel`);
    expect([again.status, again.value]).toEqual([409, { error: 'The job has ended' }]);
    await saveCompose(stacks.admin, 'cancelled', 1, composeText({ lines: ['deployed'] }));
    const next = await deploy(stacks.admin, 'cancelled', 1);
    expect((await waitJob(stacks.admin, next.jobId)).result).toMatchObject({ success: true });

    // Audited: who cancelled which job of which stack.
    const audit = objectOf(await stacks.admin.get('/api/audit?type=job.cancelled&stack=cancelled'));
    expect(audit.entries).toEqual([
      expect.objectContaining({
        type: 'job.cancelled',
        user: 'admin',
        stack: 'cancelled',
        environmentId: 1,
        details: { jobId, kind: 'deploy', runId },
      }),
    ]);
  });

  it('an editor of the environment cancels a stop; the stop ends cancelled (no run)', async () => {
    const gate = join(dir, 'stop.gate');
    await createStackDone(stacks.admin, 'stopping', 1, {
      compose: composeText({ stop: { lines: ['Stopping', 'Stopped'], gate: { afterLines: 1, file: gate } } }),
    });
    const reply = await stacks.server.as('editor1').post('/api/stacks/stopping/stop?env=1');
    const { jobId } = objectOf(reply) as { jobId: string };
    await eventually(async () => {
      const job = objectOf(await stacks.admin.get(`/api/jobs/${jobId}`));
      return JSON.stringify(job.messages).includes('Stopping') ? true : undefined;
    }, 'the stop printing');
    const cancel = await stacks.server.as('editor1').post(`/api/jobs/${jobId}/cancel`);
    expect([cancel.status, cancel.value]).toEqual([202, { jobId, runId: null, cancelledBy: 'editor1' }]);
    const job = await waitJob(stacks.admin, jobId);
    expect(job.result).toMatchObject({ success: false, error: 'Cancelled by editor1; compose was stopped' });
  });

  it('a queued job leaves the queue: compose never runs for it, its run ends cancelled', async () => {
    const gate = join(dir, 'queue.gate');
    await withStacks({ config: stacksConfig({ jobs: { maxConcurrent: 1 } }) }, async (server) => {
      const admin = server.as('admin');
      await createStackDone(admin, 'first', null, { compose: composeText({}) });
      await createStackDone(admin, 'second', null, { compose: composeText({}) });
      await saveCompose(
        admin,
        'first',
        null,
        composeText({ up: { lines: ['a', 'b'], gate: { afterLines: 1, file: gate } } }),
      );
      const holder = await deploy(admin, 'first', null);
      const waiting = await deploy(admin, 'second', null);
      await eventually(
        async () =>
          objectOf(await admin.get(`/api/jobs/${waiting.jobId}`)).status === 'queued' ? true : undefined,
        'the second deploy queued',
      );
      const before = (await argvCalls(server)).length;
      const reply = await admin.post(`/api/jobs/${waiting.jobId}/cancel`);
      expect(reply.status).toBe(202);
      const job = await waitJob(admin, waiting.jobId);
      expect(job.result).toMatchObject({ success: false, error: 'Cancelled by admin; compose was stopped' });
      expect(await waitRun(admin, 'second', waiting.runId as number)).toMatchObject({
        status: 'cancelled',
        details: { cancelledBy: 'admin' },
      });
      await writeFile(gate, '');
      expect((await waitJob(admin, holder.jobId)).result).toMatchObject({ success: true });
      // Compose ran for neither the cancelled job nor anything after it.
      const after = (await argvCalls(server)).slice(before);
      expect(after.filter((c) => c.argv.includes('second'))).toEqual([]);
    });
  });

  it('Start after Down: a start that finds no container runs up, which creates them', async () => {
    await createStackDone(stacks.admin, 'restarted', null, {
      compose: composeText({
        start: { stderr: ['service "web" has no container to start'], exit: 1 },
        up: { lines: [' Container restarted-web-1  Started'] },
      }),
    });
    const before = (await argvCalls(stacks.server)).length;
    const reply = await stacks.admin.postJson('/api/stacks/restarted/start?env=null');
    expect(reply.status).toBe(200);
    expect(objectOf(reply)).toMatchObject({ success: true, runId: null });
    const job = await waitJob(stacks.admin, (objectOf(reply) as Json).jobId as string);
    expect(job.messages).toContainEqual({
      type: 'status',
      status:
        'The stack has no containers to start (after a down): running compose up to create and start them',
    });
    expect(job.messages).toContainEqual({ type: 'line', line: ' Container restarted-web-1  Started' });
    const calls = (await argvCalls(stacks.server)).slice(before).map((c) => c.argv);
    const subcommands = calls.map((argv) => argv.find((a) => a === 'start' || a === 'up'));
    expect(subcommands).toEqual(['start', 'up']);
  });
});
