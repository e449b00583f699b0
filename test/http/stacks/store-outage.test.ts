/**
 * PostgreSQL away for a moment mid-deploy (docs/operations.md#when-the-store-fails), over the real CLI on the PostgreSQL store:
 * chronicle reaches the database through a TCP proxy of the test's own, whose connections are dropped
 * (and new ones refused) while the deploy prints. The store fails, writes answer 503 `store_failed`, and
 * the next write the store takes clears it; the run's completion is tried again until the store takes
 * it, so the run is closed `failed` with the reason (its output was not all recorded), never left
 * `running`; deleting it is not refused as running; the next deploy works.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { type CuttableProxy, cuttableProxy } from '../../cuttable-proxy.js';
import { POSTGRES_URL, postgresSchemas, postgresUnavailable } from '../../store/postgres-helpers.js';
import {
  composeText,
  createStackDone,
  deploy,
  describeStacks,
  eventually,
  getRun,
  objectOf,
  q,
  type StacksServer,
  saveCompose,
  startStacks,
  waitJob,
  waitRun,
} from './helpers.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const unavailable = await postgresUnavailable();
const schemas = postgresSchemas('outage');
afterAll(() => schemas.dropAll());

const servers: StacksServer[] = [];
const proxies: CuttableProxy[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const proxy of proxies) await proxy.close();
});

describeStacks('PostgreSQL away for a moment mid-deploy', () => {
  if (unavailable !== undefined) {
    it.skip(`skipped: ${unavailable}`, () => undefined);
    console.log(`skipped: PostgreSQL outage mid-deploy: ${unavailable}`);
    return;
  }

  it('fails the store while it is away, clears with the next write it takes, and closes the run failed with the reason once it is back', async () => {
    const proxy = await cuttableProxy(new URL(POSTGRES_URL));
    proxies.push(proxy);
    const storeUrl = new URL(schemas.url());
    storeUrl.host = `127.0.0.1:${proxy.port}`;
    const server = await startStacks({ storeUrl: storeUrl.toString() });
    servers.push(server);
    const admin = server.as('admin');

    const first = await createStackDone(admin, 'web', null);
    expect(first.job.result).toMatchObject({ success: true });
    const gate = join(server.dataDir, 'gate');
    const after = Array.from({ length: 40 }, (_, i) => `after ${i + 1}`);
    await saveCompose(
      admin,
      'web',
      null,
      composeText({
        up: { lines: ['before 1', 'before 2', ...after], gate: { afterLines: 2, file: gate }, perLineMs: 25 },
      }),
    );
    const ack = await deploy(admin, 'web', null);
    const runId = ack.runId as number;
    // Its first lines are recorded before the database goes away.
    await eventually(async () => {
      const poll = objectOf(await admin.get(`/api/jobs/${ack.jobId}`));
      const lines = (poll.messages as Array<{ line?: string }>).map((m) => m.line);
      return lines.includes('before 2') ? true : undefined;
    }, 'the lines before the gate');

    proxy.cut();
    await writeFile(gate, '');
    // The deploy's next output meets the store away: the store is failed, writes answer 503.
    await eventually(
      async () => ((await admin.get('/api/health')).status === 503 ? true : undefined),
      'the failed store',
    );
    const health = objectOf(await admin.get('/api/health'));
    expect(health).toMatchObject({ error: 'store_failed' });
    expect(String(health.message)).toMatch(/tried again by the next write/);
    expect(server.stderr()).toMatch(
      /store: postgres:\/\/.* failed: .*writes are answered store_failed until it takes one again/,
    );
    const refused = await admin.post(`/api/stacks${q(null)}`, {
      name: 'other',
      compose: composeText({ lines: ['hi'] }),
      variables: [],
    });
    expect([refused.status, objectOf(refused).error]).toEqual([503, 'store_failed']);
    // Compose has ended meanwhile: its run's completion waits for the store, and the run is not
    // listed finished while it is away.
    await eventually(
      async () =>
        new RegExp(`run ${runId}: its completion is tried again until the store takes it`).test(
          server.stderr(),
        )
          ? true
          : undefined,
      'the completion waiting for the store',
    );
    expect((await getRun(admin, 'web', runId)).status).toBe('running');

    proxy.restore();
    // The completion is tried again until the store takes it: the run is closed failed, with the reason.
    const run = await waitRun(admin, 'web', runId, 120_000);
    expect(run.status).toBe('failed');
    expect(String(run.errorMessage)).toMatch(
      /^The deploy's output could not be recorded: .*the event store failed/,
    );
    expect(objectOf(await admin.get('/api/health'))).toEqual({ status: 'ok' });
    expect(server.stderr()).toMatch(/store: postgres:\/\/.* takes writes again/);
    const job = await waitJob(admin, ack.jobId, 120_000);
    expect(job.result).toMatchObject({ success: false });
    expect(String(job.result?.error)).toMatch(/could not be recorded/);

    // Not refused as running any more; later deploys work.
    const deleted = await admin.del(`/api/stacks/web/deploys/${runId}`);
    expect([deleted.status, objectOf(deleted)]).toEqual([200, { deleted: true, id: runId }]);
    await saveCompose(admin, 'web', null, composeText({ up: { lines: ['again'] } }));
    const next = await deploy(admin, 'web', null);
    expect(next.runId).toBeGreaterThan(runId);
    expect((await waitRun(admin, 'web', next.runId as number)).status).toBe('success');
  });
});
