/**
 * Load and crashes: 20 deploys of different stacks at once, every log complete and in
 * order; `kill -9` of the server during deploys, then a restart on the same data directory: every
 * acknowledged run is there, and the ones that were running are closed `failed`, not left running.
 */
import { afterAll, expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  deploy,
  deployDone,
  describeStacks,
  eventually,
  getRun,
  type Json,
  logLines,
  type StacksServer,
  saveCompose,
  stacksConfig,
  startStacks,
  waitJob,
  waitRun,
} from './helpers.js';

const servers: StacksServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

const linesOf = (stack: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${stack} line ${i}`);

describeStacks('load and crashes', () => {
  it('20 deploys of different stacks at once: every run succeeds, every log complete and in order', async () => {
    const server = await startStacks();
    servers.push(server);
    const admin = server.as('admin');
    const names = Array.from({ length: 20 }, (_, i) => `load-${i}`);
    const env = (i: number) => (i % 3 === 0 ? null : i % 3);
    for (const [i, name] of names.entries())
      await createStackDone(admin, name, env(i), { compose: composeText({}) });
    for (const [i, name] of names.entries())
      await saveCompose(admin, name, env(i), composeText({ lines: linesOf(name, 300), perLineMs: 2 }));

    const acks = await Promise.all(names.map((name, i) => deploy(admin, name, env(i))));
    const jobs = await Promise.all(acks.map((ack) => waitJob(admin, ack.jobId, 120_000)));
    for (const [i, name] of names.entries()) {
      const runId = acks[i]?.runId as number;
      const run = await waitRun(admin, name, runId);
      expect(run, name).toMatchObject({
        status: 'success',
        entityName: name,
        environmentId: env(i),
        details: { exitCode: 0 },
      });
      expect(await logLines(server.dataDir, env(i), runId), name).toEqual(linesOf(name, 300));
      const jobLines = jobs[i]?.messages.filter((m) => m.type === 'line').map((m) => m.line);
      expect(jobLines, name).toEqual(linesOf(name, 300));
    }
    expect(new Set(acks.map((a) => a.runId)).size).toBe(20);
  }, 180_000);

  it('kill -9 during deploys: after a restart every acknowledged run is there; running ones are failed', async () => {
    // Six compose slots: every deploy runs at once, so the kill lands in the middle of each of them.
    const first = await startStacks({ config: stacksConfig({ jobs: { maxConcurrent: 6 } }) });
    servers.push(first);
    const admin = first.as('admin');
    const names = Array.from({ length: 6 }, (_, i) => `crash-${i}`);
    const env = (i: number) => (i % 2 === 0 ? 1 : null);
    for (const [i, name] of names.entries())
      await createStackDone(admin, name, env(i), { compose: composeText({}) });
    const finished = await deployDone(admin, 'crash-0', 1);
    for (const [i, name] of names.entries())
      await saveCompose(admin, name, env(i), composeText({ lines: linesOf(name, 40), perLineMs: 250 }));

    const acks = await Promise.all(names.map((name, i) => deploy(admin, name, env(i))));
    const running: Json[] = [];
    for (const [i, name] of names.entries()) {
      const runId = acks[i]?.runId as number;
      // Wait for output to flow, so the kill lands in the middle of the run.
      await eventually(
        async () => ((await logLines(first.dataDir, env(i), runId))?.length ? true : undefined),
        `${name} output`,
      );
      running.push(await getRun(admin, name, runId));
    }
    for (const run of running) expect(run.status).toBe('running');
    await first.kill9();

    const second = await startStacks({ dataDir: first.dataDir });
    servers.push(second);
    const again = second.as('admin');
    for (const [i, name] of names.entries()) {
      const runId = acks[i]?.runId as number;
      const run = await getRun(again, name, runId);
      expect(run, name).toMatchObject({
        id: runId,
        status: 'failed',
        // Compose dies at its next write into the closed pipe; if it had not yet, the restart stopped it.
        errorMessage: expect.stringMatching(/^The server stopped before this deploy finished/),
        entityName: name,
        environmentId: env(i),
        details: { exitCode: 1 },
      });
      expect(typeof run.finishedAt).toBe('string');
      const logged = (await logLines(second.dataDir, env(i), runId)) ?? [];
      expect(logged.length).toBeGreaterThan(0);
      expect(logged).toEqual(linesOf(name, 40).slice(0, logged.length));
      const listed = await again.get(`/api/stacks/${name}/deploys${env(i) === null ? '' : `?env=${env(i)}`}`);
      expect(
        (listed.value as Json[]).map((r) => r.id),
        name,
      ).toContain(runId);
      // A closed run can be deleted now (it is terminal).
    }
    const before = await getRun(again, 'crash-0', finished.runId as number);
    expect(before).toMatchObject({ status: 'success', errorMessage: null });

    // The restarted server deploys again, with a new run id.
    await saveCompose(again, 'crash-1', null, composeText({ lines: ['after restart'] }));
    const after = await deployDone(again, 'crash-1', null);
    expect(after.runId as number).toBeGreaterThan(Math.max(...acks.map((a) => a.runId as number)));
    expect(await waitRun(again, 'crash-1', after.runId as number)).toMatchObject({ status: 'success' });
    const deleted = await again.del(`/api/stacks/crash-1/deploys/${acks[1]?.runId}`);
    expect([deleted.status, deleted.value]).toEqual([200, { deleted: true, id: acks[1]?.runId }]);
  }, 180_000);
});
