/**
 * Settings, the deploy_log_reconcile schedule and its manual run, the per-item toggle, and the execution
 * history, over the real CLI (docs/stacks.md#limits-reconcile-settings-and-schedules; spec: Settings fields, Reconcile rules, Endpoints
 * rule 5, Authentication).
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open.js';
import { executionStream, stacksEvent } from '../../../streams/stacks.js';
import {
  createStackDone,
  deployDone,
  describeStacks,
  type Env,
  eventually,
  expectStatus,
  type Json,
  logPath,
  objectOf,
  StacksClient,
  serveStacks,
  sleep,
  startStacks,
  type UserKind,
} from './helpers.js';

/** The deploy-run retention schedule's settings (docs/stacks.md#deploy-run-retention), at their defaults here. */
const RETENTION_DEFAULTS = { deployRunRetentionCron: '30 3 * * *', deployRunRetentionEnabled: true };
const HOUR_AGO = new Date(Date.now() - 3_600_000);

async function orphan(dataDir: string, env: Env, name: string, modified: Date = HOUR_AGO): Promise<string> {
  const dir = join(dataDir, 'deploy-logs', env === null ? 'null' : String(env));
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  await writeFile(path, 'orphan\n');
  await utimes(path, modified, modified);
  return path;
}

interface Page {
  executions: Json[];
  total: number;
}

async function page(client: StacksClient, query = ''): Promise<Page> {
  const reply = await client.get(`/api/schedules/executions${query}`);
  expectStatus(reply, 200, `GET executions${query}`);
  return objectOf(reply) as unknown as Page;
}

const reconcileRows = (p: Page) => p.executions.filter((e) => e.scheduleType === 'deploy_log_reconcile');

describeStacks('settings, schedules and executions', () => {
  const stacks = serveStacks();

  describe('GET/POST /api/settings/general', () => {
    it('answers the defaults to every authenticated user, 401 without a token', async () => {
      for (const kind of ['admin', 'viewer', 'nogrant', 'noaccess'] as UserKind[]) {
        const reply = await stacks.server.as(kind).get('/api/settings/general');
        expect(reply.status).toBe(200);
        expect(reply.value).toEqual({
          deployLogReconcileCron: '0 3 * * *',
          deployLogReconcileEnabled: true,
          ...RETENTION_DEFAULTS,
        });
      }
      expect((await new StacksClient(stacks.server.port, null).get('/api/settings/general')).status).toBe(
        401,
      );
    });

    it('only an admin changes them (403 otherwise, nothing recorded)', async () => {
      for (const kind of ['viewer', 'editor1', 'noaccess', 'nogrant'] as UserKind[]) {
        const reply = await stacks.server
          .as(kind)
          .post('/api/settings/general', { deployLogReconcileEnabled: false });
        expect(reply.status).toBe(403);
        expect(objectOf(reply).error).toMatch(/admin/);
      }
      expect((await stacks.admin.get('/api/settings/general')).value).toMatchObject({
        deployLogReconcileEnabled: true,
      });
    });

    it('a partial body changes only its keys; unknown keys and bad values are 400 naming the problem', async () => {
      const bad = [
        [
          { deployLogReconcileCron: '61 * * * *' },
          /deployLogReconcileCron "61 \* \* \* \*" is not a valid cron expression: minute/,
        ],
        [{ deployLogReconcileCron: 'every day' }, /not a valid cron expression: expected 5 or 6 fields/],
        [{ deployLogReconcileEnabled: 'no' }, /deployLogReconcileEnabled must be a boolean/],
        [{ somethingElse: 1 }, /Unknown setting "somethingElse"/],
      ] as const;
      for (const [body, message] of bad) {
        const reply = await stacks.admin.post('/api/settings/general', body);
        expect(reply.status).toBe(400);
        expect(objectOf(reply).error).toMatch(message);
      }
      const changed = await stacks.admin.post('/api/settings/general', {
        deployLogReconcileCron: '0 4 * * *',
      });
      expect(changed.status).toBe(200);
      expect(changed.value).toEqual({
        deployLogReconcileCron: '0 4 * * *',
        deployLogReconcileEnabled: true,
        ...RETENTION_DEFAULTS,
      });
      expect((await stacks.server.as('viewer').get('/api/settings/general')).value).toEqual(changed.value);
      const back = await stacks.admin.post('/api/settings/general', { deployLogReconcileCron: '0 3 * * *' });
      expect(back.value).toEqual({
        deployLogReconcileCron: '0 3 * * *',
        deployLogReconcileEnabled: true,
        ...RETENTION_DEFAULTS,
      });
    });
  });

  describe('the manual run and the toggle', () => {
    it('admin or the stacks edit permission may run it; it deletes old orphans, keeps fresh ones and other files', async () => {
      for (const kind of ['viewer', 'viewer1', 'nogrant'] as UserKind[]) {
        const reply = await stacks.server.as(kind).post('/api/schedules/deploy_log_reconcile/run');
        expect(reply.status).toBe(403);
      }
      const old = await orphan(stacks.server.dataDir, 2, '7001.log');
      const fresh = await orphan(stacks.server.dataDir, null, '7002.log', new Date());
      const other = await orphan(stacks.server.dataDir, 2, 'README.txt');
      const reply = await stacks.server.as('editor1').post('/api/schedules/deploy_log_reconcile/run');
      expect(reply.status).toBe(200);
      const row = objectOf(reply);
      expect(row).toMatchObject({
        scheduleType: 'deploy_log_reconcile',
        scheduleId: 0,
        entityName: 'deploy_log_reconcile',
        environmentId: null,
        status: 'success',
        trigger: 'manual',
        errorMessage: null,
      });
      expect(typeof row.finishedAt).toBe('string');
      expect(row.details).toMatchObject({
        deletedFiles: 1,
        markedRecords: 0,
        failed: 0,
        keptFresh: 1,
        ignoredFiles: 1,
      });
      expect(existsSync(old)).toBe(false);
      expect(existsSync(fresh)).toBe(true);
      expect(existsSync(other)).toBe(true);
      await rm(fresh);
      // `noaccess` has edit everywhere (no environment access needed for a global schedule).
      expect(
        (await stacks.server.as('noaccess').post('/api/schedules/deploy_log_reconcile/run')).status,
      ).toBe(200);
    });

    it('runs even when the schedule is disabled', async () => {
      await stacks.admin.post('/api/settings/general', { deployLogReconcileEnabled: false });
      try {
        const reply = await stacks.admin.post('/api/schedules/deploy_log_reconcile/run');
        expect(reply.status).toBe(200);
        expect(objectOf(reply).status).toBe('success');
      } finally {
        await stacks.admin.post('/api/settings/general', { deployLogReconcileEnabled: true });
      }
    });

    it('an unknown schedule type to run is a 404', async () => {
      const reply = await stacks.admin.post('/api/schedules/backup/run');
      expect(reply.status).toBe(404);
      expect(objectOf(reply).error).toMatch(/backup/);
    });

    it('the toggle refuses deploy_log_reconcile (400), and stack_deploy; an unknown type is a 404', async () => {
      const refused = await stacks.admin.post('/api/schedules/deploy_log_reconcile/0/toggle');
      expect(refused.status).toBe(400);
      expect(objectOf(refused).error).toMatch(/deploy_log_reconcile cannot be paused or resumed per item/);
      expect((await stacks.admin.post('/api/schedules/stack_deploy/3/toggle')).status).toBe(400);
      const unknown = await stacks.admin.post('/api/schedules/nightly/1/toggle');
      expect(unknown.status).toBe(404);
      expect(objectOf(unknown).error).toMatch(/nightly/);
      // Nothing changed.
      expect((await stacks.admin.get('/api/settings/general')).value).toMatchObject({
        deployLogReconcileEnabled: true,
      });
    });
  });

  describe('reconcile and records', () => {
    it('a finished run whose file is gone is flagged details.logMissing (never deleted); its file present: not', async () => {
      await createStackDone(stacks.admin, 'flagged', 1);
      const lost = await deployDone(stacks.admin, 'flagged', 1);
      const keptRun = await deployDone(stacks.admin, 'flagged', 1);
      const lostId = lost.runId as number;
      await rm(logPath(stacks.server.dataDir, 1, lostId));
      const reply = await stacks.admin.post('/api/schedules/deploy_log_reconcile/run');
      expect(objectOf(reply).details).toMatchObject({ failed: 0 });
      expect((objectOf(reply).details as Json).markedRecords as number).toBeGreaterThanOrEqual(1);
      const flagged = objectOf(await stacks.admin.get(`/api/stacks/flagged/deploys/${lostId}`));
      expect(flagged.details).toMatchObject({ logMissing: true });
      expect(flagged.status).toBe('success');
      const kept = objectOf(await stacks.admin.get(`/api/stacks/flagged/deploys/${keptRun.runId}`));
      expect((kept.details as Json).logMissing).toBeUndefined();
    });
  });

  describe('GET /api/schedules/executions', () => {
    it('lists stack_deploy and reconcile rows newest first, paged, with total', async () => {
      await createStackDone(stacks.admin, 'listed', null);
      await deployDone(stacks.admin, 'listed', null);
      await stacks.admin.post('/api/schedules/deploy_log_reconcile/run');
      const all = await page(stacks.admin, '?limit=500');
      expect(all.total).toBe(all.executions.length);
      const starts = all.executions.map((e) => e.startedAt as string);
      expect([...starts].sort().reverse()).toEqual(starts);
      expect(all.executions[0]?.scheduleType).toBe('deploy_log_reconcile');
      const deployRow = all.executions.find((e) => e.entityName === 'listed');
      expect(deployRow).toMatchObject({ scheduleType: 'stack_deploy', environmentId: null });
      expect(deployRow?.details).toHaveProperty('logFile');
      expect(deployRow).toHaveProperty('errorMessage');
      // Pages of 2 cover the same list in the same order.
      const paged: Json[] = [];
      for (let offset = 0; offset < all.total; offset += 2) {
        const p = await page(stacks.admin, `?limit=2&offset=${offset}`);
        expect(p.total).toBe(all.total);
        expect(p.executions.length).toBeLessThanOrEqual(2);
        paged.push(...p.executions);
      }
      expect(paged.map((e) => [e.scheduleType, e.id])).toEqual(
        all.executions.map((e) => [e.scheduleType, e.id]),
      );
      expect((await page(stacks.admin, `?offset=${all.total}`)).executions).toEqual([]);
      // The default page is 50.
      expect((await page(stacks.admin)).executions.length).toBe(Math.min(50, all.total));
    });

    it('bad paging is a 400', async () => {
      for (const query of ['?limit=0', '?limit=501', '?limit=x', '?offset=-1', '?offset=1.5']) {
        const reply = await stacks.admin.get(`/api/schedules/executions${query}`);
        expect(reply.status, query).toBe(400);
        expect(typeof objectOf(reply).error).toBe('string');
      }
    });

    it('stack_deploy rows only of environments the caller may view; reconcile rows for everyone', async () => {
      await createStackDone(stacks.admin, 'seen1', 1);
      await createStackDone(stacks.admin, 'seen2', 2);
      const everything = await page(stacks.admin, '?limit=500');
      const envsOf = (p: Page) =>
        new Set(p.executions.filter((e) => e.scheduleType === 'stack_deploy').map((e) => e.environmentId));
      expect(envsOf(everything)).toEqual(new Set([null, 1, 2]));
      const viewer1 = await page(stacks.server.as('viewer1'), '?limit=500');
      expect(envsOf(viewer1)).toEqual(new Set([null, 1]));
      expect(reconcileRows(viewer1).length).toBe(reconcileRows(everything).length);
      const nogrant = await page(stacks.server.as('nogrant'), '?limit=500');
      expect(envsOf(nogrant)).toEqual(new Set());
      expect(nogrant.total).toBe(reconcileRows(everything).length);
      expect(reconcileRows(nogrant).length).toBeGreaterThan(0);
      // A reconcile row carries errorMessage and details to every authenticated user.
      expect(reconcileRows(nogrant)[0]).toHaveProperty('errorMessage');
      expect(reconcileRows(nogrant)[0]?.details).toHaveProperty('deletedFiles');
    });
  });

  describe('a settings change reschedules at once', () => {
    it('every second: cron rows appear; disabled: none do; back to daily', async () => {
      const before = reconcileRows(await page(stacks.admin, '?limit=500')).filter(
        (e) => e.trigger === 'cron',
      ).length;
      const set = await stacks.admin.post('/api/settings/general', { deployLogReconcileCron: '* * * * * *' });
      expect(set.status).toBe(200);
      await eventually(async () => {
        const rows = reconcileRows(await page(stacks.admin, '?limit=500')).filter(
          (e) => e.trigger === 'cron',
        );
        return rows.length > before && rows.some((e) => e.finishedAt !== null) ? true : undefined;
      }, 'a cron execution');
      await stacks.admin.post('/api/settings/general', { deployLogReconcileEnabled: false });
      // A tick already under way when the change landed may still finish: wait for it, then count.
      await sleep(1_200);
      const stopped = reconcileRows(await page(stacks.admin, '?limit=500')).length;
      await sleep(2_500);
      expect(reconcileRows(await page(stacks.admin, '?limit=500')).length).toBe(stopped);
      const reset = await stacks.admin.post('/api/settings/general', {
        deployLogReconcileCron: '0 3 * * *',
        deployLogReconcileEnabled: true,
      });
      expect(reset.value).toEqual({
        deployLogReconcileCron: '0 3 * * *',
        deployLogReconcileEnabled: true,
        ...RETENTION_DEFAULTS,
      });
    });
  });
});

describeStacks('reconcile across restarts', () => {
  it('settings survive a restart; a second manual run while one runs is a 409; kill -9 during a run leaves no row running', async () => {
    let server = await startStacks();
    try {
      const admin = server.as('admin');
      await admin.post('/api/settings/general', { deployLogReconcileCron: '0 5 * * *' });
      // Enough orphans that the run is still going when the second request lands.
      const dir = join(server.dataDir, 'deploy-logs', 'null');
      await mkdir(dir, { recursive: true });
      const names = Array.from({ length: 40_000 }, (_, i) => `${100_000 + i}.log`);
      for (let i = 0; i < names.length; i += 1_000)
        await Promise.all(
          names.slice(i, i + 1_000).map(async (name) => {
            await writeFile(join(dir, name), '');
            await utimes(join(dir, name), HOUR_AGO, HOUR_AGO);
          }),
        );
      // Its answer never comes (the server is killed): settled here so the rejection is expected.
      const first = admin.post('/api/schedules/deploy_log_reconcile/run').catch(() => undefined);
      await eventually(
        async () => (reconcileRows(await page(admin)).some((e) => e.status === 'running') ? true : undefined),
        'a running reconcile',
      );
      const second = await admin.post('/api/schedules/deploy_log_reconcile/run');
      expect(second.status).toBe(409);
      expect(objectOf(second).error).toMatch(/already running/);
      await server.kill9();
      await first;

      server = await startStacks({ dataDir: server.dataDir });
      const again = server.as('admin');
      expect((await again.get('/api/settings/general')).value).toEqual({
        deployLogReconcileCron: '0 5 * * *',
        deployLogReconcileEnabled: true,
        ...RETENTION_DEFAULTS,
      });
      const rows = reconcileRows(await page(again, '?limit=500'));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.status).not.toBe('running');
      const killed = rows.find((e) => e.trigger === 'manual');
      expect(['failed', 'success']).toContain(killed?.status);
      if (killed?.status === 'failed')
        expect(killed.errorMessage).toMatch(/server stopped before this reconcile finished/);
      // The next run finishes the job.
      const done = objectOf(await again.post('/api/schedules/deploy_log_reconcile/run'));
      expect(done.status).toBe('success');
      for (const name of names.slice(0, 100)) expect(existsSync(join(dir, name))).toBe(false);
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('an execution left `running` in the log is closed `failed` with the reason on start', async () => {
    let server = await startStacks();
    const dataDir = server.dataDir;
    await server.stop();
    const store = await openStore(`level:${join(dataDir, 'events')}`);
    await store.append(
      executionStream(1),
      [stacksEvent('ReconcileStarted', { execution_id: 1, trigger: 'cron', user_id: null })],
      { expectedRevision: 'no_stream' },
    );
    await store.close();
    server = await startStacks({ dataDir });
    try {
      const rows = reconcileRows(await page(server.as('nogrant')));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        id: 1,
        status: 'failed',
        trigger: 'cron',
        errorMessage: expect.stringMatching(/server stopped before this reconcile finished/),
      });
      expect(rows[0]?.finishedAt).not.toBeNull();
      const next = objectOf(await server.as('admin').post('/api/schedules/deploy_log_reconcile/run'));
      expect(next.id).toBe(2);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('SIGTERM with a cron task of every second: the server exits 0 on its own (no timer left)', async () => {
    const server = await startStacks();
    await server.as('admin').post('/api/settings/general', { deployLogReconcileCron: '* * * * * *' });
    await sleep(1_200);
    const result = await server.stop();
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
  }, 60_000);
});
