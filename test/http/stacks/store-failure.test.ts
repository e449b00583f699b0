/**
 * A full disk (docs/operations.md#when-the-store-fails), over the real CLI on a small file system the test mounts: a deploy of
 * 400,000 lines fills it. The store fails at its first failed write: that deploy is never listed
 * `success`; writes answer 503 `store_failed` with the reason (also once space is back), reads go on,
 * stderr and `GET /api/health` say why; after a restart every run id answered before is kept and the
 * next run gets a new one.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { mountSmallDisk, type SmallDisk } from '../../small-disk.js';
import {
  composeText,
  createStack,
  createStackDone,
  describeStacks,
  eventually,
  getRun,
  objectOf,
  q,
  StacksClient,
  type StacksServer,
  stacksConfig,
  startStacks,
  waitJob,
  waitRun,
} from './helpers.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 60_000 });

const disk = await mountSmallDisk(24 * 1024);
afterAll(async () => {
  if (!('unavailable' in disk)) await disk.unmount();
});

const servers: StacksServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
});

async function start(dataDir: string): Promise<StacksServer> {
  const server = await startStacks({
    dataDir,
    config: stacksConfig(),
    // The fake compose's own argv log stays off the small disk: it is not what fills it.
    env: { FAKE_COMPOSE_ARGV_LOG: '' },
  });
  servers.push(server);
  return server;
}

if ('unavailable' in disk) {
  it.skip(`skipped: a full disk under the stacks server: ${disk.unavailable}`, () => undefined);
} else {
  describeStacks('a full disk under the stacks server', () => {
    it('fails the store: the deploy that filled it is not success, writes answer 503 store_failed until a restart, and no run id is handed out twice', async () => {
      const small = disk as SmallDisk;
      const dataDir = join(small.dir, 'data');
      await mkdir(dataDir);
      // Space to give back once the disk is full.
      const filler = await small.fill('filler', 2 * 1024 * 1024);
      let server = await start(dataDir);
      let admin = server.as('admin');

      const first = await createStackDone(admin, 'first', null);
      expect(first.job.result).toMatchObject({ success: true });
      expect((await getRun(admin, 'first', first.runId as number)).status).toBe('success');
      expect(objectOf(await admin.get('/api/health'))).toEqual({ status: 'ok' });

      const big = await createStack(admin, 'big', null, {
        compose: composeText({ count: { lines: 400_000, width: 60 } }),
      });
      const job = await waitJob(admin, big.jobId, 240_000);
      expect(job.result).toMatchObject({ success: false });

      // The store says why, on stderr and in the health answer (the reason only with a token).
      const health = await admin.get('/api/health');
      expect(health.status).toBe(503);
      const said = objectOf(health) as { error: string; message: string; reason: string };
      expect(said.error).toBe('store_failed');
      expect(said.message).toMatch(/until the server is restarted.*Failed since \d{4}-/);
      expect(said.reason).toMatch(/no space left on device/i);
      const anonymous = await new StacksClient(server.port, null).get('/api/health');
      expect(anonymous.status).toBe(503);
      expect(objectOf(anonymous)).toEqual({ error: 'store_failed', message: said.message });
      expect(server.stderr()).toMatch(
        /store: level:.* failed: .*no space left on device.*until the server is restarted/i,
      );

      // The run that filled the disk is never success with part of its output.
      const run = await getRun(admin, 'big', big.runId as number);
      expect(run.status).not.toBe('success');

      // Nothing more is acknowledged: writes answer 503 with the reason, also once space is back.
      const refusedWrite = async () => {
        const deploy = await admin.post(`/api/stacks/first/deploy${q(null)}`, {});
        expect(deploy.status).toBe(503);
        expect(objectOf(deploy)).toMatchObject({ error: 'store_failed', reason: said.reason });
        const created = await admin.post(`/api/stacks${q(null)}`, {
          name: 'third',
          compose: composeText({ lines: ['hi'] }),
          variables: [],
        });
        expect([created.status, objectOf(created).error]).toEqual([503, 'store_failed']);
      };
      await refusedWrite();
      await rm(filler);
      await refusedWrite();
      // Reads go on.
      const listed = await admin.get(`/api/stacks/first/deploys${q(null)}`);
      expect(listed.status).toBe(200);
      expect((listed.value as Array<{ id: number }>).map((r) => r.id)).toEqual([first.runId]);

      // A restart (space is back): the store takes writes again; both answered ids are kept, the big
      // run is closed and not success, and the next deploy gets an id of its own.
      await server.stop();
      server = await start(dataDir);
      admin = server.as('admin');
      expect(objectOf(await admin.get('/api/health'))).toEqual({ status: 'ok' });
      expect((await getRun(admin, 'first', first.runId as number)).status).toBe('success');
      const closed = await eventually(async () => {
        const again = await getRun(admin, 'big', big.runId as number);
        return again.status === 'running' ? undefined : again;
      }, 'the interrupted run closed');
      expect(closed.status).toBe('failed');
      const next = await admin.post(`/api/stacks/first/deploy${q(null)}`, {});
      expect(next.status).toBe(202);
      const nextRun = objectOf(next).runId as number;
      expect(nextRun).toBeGreaterThan(big.runId as number);
      expect((await waitRun(admin, 'first', nextRun)).status).toBe('success');
    });
  });
}
