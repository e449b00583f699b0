/**
 * Deploy history (docs/stacks.md#deploy-history-what-each-run-deployed-diff-redeploy-rollback) over the real CLI with the fake compose program: what each run
 * deployed, the diff of two runs, redeploying an earlier run, auto-rollback, and no secret value in any
 * of their answers.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { lines, runCli } from '../../cli/helpers.js';
import {
  arrayOf,
  composeText,
  createStackDone,
  deploy,
  deployDone,
  describeStacks,
  eventually,
  expectStatus,
  type Json,
  logLines,
  objectOf,
  q,
  saveCompose,
  serveStacks,
  stackDir,
  startStacks,
  waitJob,
  waitRun,
} from './helpers.js';

const stacks = serveStacks();

const SECRET_1 = 'first-secret-value-81723';
const SECRET_2 = 'second-secret-value-5521';

const setVariables = async (name: string, variables: Json[]) =>
  expectStatus(
    await stacks.admin.put(`/api/stacks/${name}/variables${q(null)}`, { variables }),
    200,
    'PUT variables',
  );

describeStacks('deploy history', () => {
  describe('what each run deployed and the diff of two runs', () => {
    let run1: number;
    let run2: number;
    beforeAll(async () => {
      const created = await createStackDone(stacks.admin, 'hist', null, {
        compose: composeText({ lines: ['version one'] }),
        variables: [
          { name: 'DB_PASSWORD', value: SECRET_1, secret: true },
          { name: 'MODE', value: 'blue', secret: false },
          { name: 'OLD', value: 'going', secret: false },
        ],
      });
      run1 = created.runId as number;
      await saveCompose(
        stacks.admin,
        'hist',
        null,
        composeText({ lines: ['version two'] }, ['web', 'worker']),
      );
      await setVariables('hist', [
        { name: 'DB_PASSWORD', value: SECRET_2, secret: true },
        { name: 'MODE', value: 'green', secret: false },
        { name: 'NEW', value: 'here', secret: false },
      ]);
      run2 = (await deployDone(stacks.admin, 'hist', null, { pull: true })).runId as number;
      await waitRun(stacks.admin, 'hist', run2);
    }, 60_000);

    it('answers the compose text and the variables (secrets by name only) each run deployed', async () => {
      const c1 = objectOf(await stacks.admin.get(`/api/stacks/hist/deploys/${run1}/compose`));
      expect(c1.compose).toBe(composeText({ lines: ['version one'] }));
      const c2 = objectOf(await stacks.admin.get(`/api/stacks/hist/deploys/${run2}/compose`));
      expect(c2.compose).toBe(composeText({ lines: ['version two'] }, ['web', 'worker']));
      const v1 = objectOf(await stacks.admin.get(`/api/stacks/hist/deploys/${run1}/variables`));
      expect(v1).toEqual({
        runId: run1,
        secretProvider: null,
        variables: [
          { name: 'DB_PASSWORD', secret: true },
          { name: 'MODE', secret: false, value: 'blue' },
          { name: 'OLD', secret: false, value: 'going' },
        ],
      });
    });

    it('diffs the compose text, the variables by name, the options', async () => {
      const reply = await stacks.admin.get(`/api/stacks/hist/deploys/${run1}/diff?to=${run2}`);
      expectStatus(reply, 200, 'diff');
      const diff = objectOf(reply);
      expect(diff.from).toBe(run1);
      expect(diff.to).toBe(run2);
      const compose = diff.compose as { changed: boolean; patch: string };
      expect(compose.changed).toBe(true);
      expect(compose.patch).toContain(`--- run-${run1}/compose.yaml`);
      expect(compose.patch).toContain('+  worker:');
      expect(compose.patch).toMatch(/^-x-fake: .*version one/m);
      expect(compose.patch).toMatch(/^\+x-fake: .*version two/m);
      expect(diff.variables).toEqual({
        added: [{ name: 'NEW', secret: false, value: 'here' }],
        removed: [{ name: 'OLD', secret: false, value: 'going' }],
        changed: [
          { name: 'DB_PASSWORD', secret: true },
          { name: 'MODE', secret: false, from: 'blue', to: 'green' },
        ],
      });
      expect(diff.options).toEqual([{ name: 'pull', from: false, to: true }]);
      expect(diff.commit).toBeNull();
      expect(reply.text).not.toContain(SECRET_1);
      expect(reply.text).not.toContain(SECRET_2);
      // The same run on both sides: nothing changed.
      const same = objectOf(await stacks.admin.get(`/api/stacks/hist/deploys/${run2}/diff?to=${run2}`));
      expect(same.compose).toEqual({ changed: false, patch: '' });
      expect(same.variables).toEqual({ added: [], removed: [], changed: [] });
    });

    it('answers 400 without `to`, 404 for a run of another stack or none', async () => {
      expectStatus(await stacks.admin.get(`/api/stacks/hist/deploys/${run1}/diff`), 400);
      expectStatus(await stacks.admin.get(`/api/stacks/hist/deploys/${run1}/diff?to=99999`), 404);
      expectStatus(await stacks.admin.get(`/api/stacks/other/deploys/${run1}/compose`), 404);
      expectStatus(await stacks.admin.get(`/api/stacks/hist/deploys/abc/variables`), 400);
      expectStatus(
        await stacks.server.as('viewer').post(`/api/stacks/hist/deploys/${run1}/redeploy`, {}),
        403,
      );
    });

    it('redeploys run 1 after run 2 changed the compose: run 1 compose, today secret, a new manual run', async () => {
      const ack = objectOf(await stacks.admin.post(`/api/stacks/hist/deploys/${run1}/redeploy`, {}));
      const runId = ack.runId as number;
      await waitJob(stacks.admin, ack.jobId as string);
      const run = await waitRun(stacks.admin, 'hist', runId);
      expect(run.status).toBe('success');
      expect(run.trigger).toBe('manual');
      expect((run.details as Json).redeployOf).toBe(run1);
      expect((run.details as Json).options).toEqual({ pull: false, build: false, forceRecreate: false });
      // What compose was given: run 1's text, in the stack's folder.
      expect(await logLines(stacks.server.dataDir, null, runId)).toEqual(['version one']);
      expect(
        await readFile(join(stackDir(stacks.server.dataDir, null, 'hist'), 'compose.yaml'), 'utf8'),
      ).toBe(composeText({ lines: ['version one'] }));
      const vars = objectOf(await stacks.admin.get(`/api/stacks/hist/deploys/${runId}/variables`));
      expect(vars.variables).toEqual(
        objectOf(await stacks.admin.get(`/api/stacks/hist/deploys/${run1}/variables`)).variables,
      );
      // Today's secret value (SECRET_2), not run 1's: the diff says the secret changed.
      const diff = objectOf(await stacks.admin.get(`/api/stacks/hist/deploys/${run1}/diff?to=${runId}`));
      expect(diff.compose).toEqual({ changed: false, patch: '' });
      expect(diff.variables).toEqual({
        added: [],
        removed: [],
        changed: [{ name: 'DB_PASSWORD', secret: true }],
      });
      const stack = objectOf(await stacks.admin.get(`/api/stacks/hist${q(null)}`));
      expect(JSON.stringify(stack)).not.toContain(SECRET_1);
    });

    it('refuses (400, naming it) a redeploy whose secret the stack no longer has; nothing changes', async () => {
      const before = arrayOf(await stacks.admin.get(`/api/stacks/hist/deploys${q(null)}`)).length;
      await setVariables('hist', [{ name: 'MODE', value: 'green', secret: false }]);
      const reply = await stacks.admin.post(`/api/stacks/hist/deploys/${run1}/redeploy`, {});
      expectStatus(reply, 400);
      expect(objectOf(reply).error).toContain('DB_PASSWORD');
      expect(arrayOf(await stacks.admin.get(`/api/stacks/hist/deploys${q(null)}`)).length).toBe(before);
    });
  });

  describe('auto-rollback', () => {
    it('redeploys the last successful run once after a failed deploy, as its own run', async () => {
      const good = await createStackDone(stacks.admin, 'roll', null, {
        compose: composeText({ lines: ['good one'] }),
      });
      const settings = await stacks.admin.put(`/api/stacks/roll/history-settings${q(null)}`, {
        autoRollback: true,
      });
      expectStatus(settings, 200);
      expect(objectOf(settings)).toEqual({ autoRollback: true, keepRuns: null, keepDays: null });
      await saveCompose(stacks.admin, 'roll', null, composeText({ lines: ['bad one'], exit: 3 }));
      const failed = await deployDone(stacks.admin, 'roll', null);
      expect((await waitRun(stacks.admin, 'roll', failed.runId as number)).status).toBe('failed');
      const rollback = await eventually(async () => {
        const runs = arrayOf(await stacks.admin.get(`/api/stacks/roll/deploys${q(null)}`));
        const found = runs.find((r) => (r.details as Json).rollbackOf === failed.runId);
        return found && found.finishedAt !== null ? found : undefined;
      }, 'the rollback run');
      expect(rollback.status).toBe('success');
      expect((rollback.details as Json).redeployOf).toBe(good.runId);
      expect(await logLines(stacks.server.dataDir, null, rollback.id as number)).toEqual(['good one']);
      expect(
        await readFile(join(stackDir(stacks.server.dataDir, null, 'roll'), 'compose.yaml'), 'utf8'),
      ).toBe(composeText({ lines: ['good one'] }));
      // Exactly one rollback, and no further run after it.
      const runs = arrayOf(await stacks.admin.get(`/api/stacks/roll/deploys${q(null)}`));
      expect(runs.map((r) => r.id)).toEqual([rollback.id, failed.runId, good.runId]);
    });

    it('does not roll back without the setting, nor a stack with no successful run', async () => {
      await createStackDone(stacks.admin, 'noroll', null, {
        compose: composeText({ lines: ['x'], exit: 1 }),
      });
      expectStatus(
        await stacks.admin.put(`/api/stacks/noroll/history-settings${q(null)}`, { autoRollback: true }),
        200,
      );
      const failed = await deployDone(stacks.admin, 'noroll', null);
      await waitRun(stacks.admin, 'noroll', failed.runId as number);
      // A later deploy starts at once (no rollback holds the stack) and is the only newer run.
      const next = await deployDone(stacks.admin, 'noroll', null);
      const ids = arrayOf(await stacks.admin.get(`/api/stacks/noroll/deploys${q(null)}`)).map((r) => r.id);
      expect(ids).toEqual([next.runId, failed.runId, (failed.runId as number) - 1]);
    });

    it('validates the settings body', async () => {
      expectStatus(
        await stacks.admin.put(`/api/stacks/roll/history-settings${q(null)}`, { autoRollback: 'yes' }),
        400,
      );
      expectStatus(
        await stacks.admin.put(`/api/stacks/roll/history-settings${q(null)}`, { keepRuns: 0 }),
        400,
      );
      expectStatus(await stacks.admin.put(`/api/stacks/roll/history-settings${q(null)}`, { other: 1 }), 400);
      expectStatus(
        await stacks.admin.put(`/api/stacks/nostack/history-settings${q(null)}`, { keepRuns: 2 }),
        404,
      );
      expectStatus(
        await stacks.server.as('viewer').put(`/api/stacks/roll/history-settings${q(null)}`, {}),
        403,
      );
    });
  });

  describe('logs: download, range, search', () => {
    let runId: number;
    beforeAll(async () => {
      const created = await createStackDone(stacks.admin, 'logs', null, {
        compose: composeText({ lines: ['alpha line', 'Beta LINE', 'gamma'], repeat: 1000 }),
      });
      runId = created.runId as number;
      await waitRun(stacks.admin, 'logs', runId);
    }, 60_000);

    it('downloads with Content-Disposition', async () => {
      const reply = await stacks.admin.get(`/api/stacks/logs/deploys/${runId}/log?download=true`);
      expectStatus(reply, 200);
      expect(reply.headers.find(([name]) => name === 'content-disposition')?.[1]).toBe(
        `attachment; filename="logs-run-${runId}.log"`,
      );
      expect(reply.text.split('\n')).toHaveLength(3001);
    });

    it('answers a range of lines with the next line and the total', async () => {
      const page = objectOf(
        await stacks.admin.get(`/api/stacks/logs/deploys/${runId}/log?fromLine=2&limit=3`),
      );
      expect(page).toEqual({
        runId,
        fromLine: 2,
        limit: 3,
        lines: [
          { line: 2, text: 'Beta LINE' },
          { line: 3, text: 'gamma' },
          { line: 4, text: 'alpha line' },
        ],
        nextLine: 5,
        totalLines: 3000,
      });
      const end = objectOf(await stacks.admin.get(`/api/stacks/logs/deploys/${runId}/log?fromLine=2999`));
      expect(end.lines).toEqual([
        { line: 2999, text: 'Beta LINE' },
        { line: 3000, text: 'gamma' },
      ]);
      expect(end.nextLine).toBeNull();
    });

    it('searches plain text case-insensitively, paged', async () => {
      const page = objectOf(
        await stacks.admin.get(`/api/stacks/logs/deploys/${runId}/log?q=beta%20line&limit=2`),
      );
      expect(page.lines).toEqual([
        { line: 2, text: 'Beta LINE' },
        { line: 5, text: 'Beta LINE' },
      ]);
      expect(page.matches).toBe(1000);
      expect(page.nextLine).toBe(8);
      const next = objectOf(
        await stacks.admin.get(`/api/stacks/logs/deploys/${runId}/log?q=BETA&limit=1&fromLine=8`),
      );
      expect(next.lines).toEqual([{ line: 8, text: 'Beta LINE' }]);
      // Plain text, not a pattern.
      expect(objectOf(await stacks.admin.get(`/api/stacks/logs/deploys/${runId}/log?q=.*`)).matches).toBe(0);
    });

    it('refuses bad values with 400 and a run without a log with 404', async () => {
      for (const query of ['fromLine=0', 'limit=0', 'limit=10001', 'fromLine=x', 'q='])
        expectStatus(await stacks.admin.get(`/api/stacks/logs/deploys/${runId}/log?${query}`), 400, query);
      expectStatus(await stacks.admin.get(`/api/stacks/logs/deploys/99999/log?q=a`), 404);
    });
  });

  describe('retention', () => {
    it('keeps N runs per stack, never a running one nor the last successful one; deletes through the delete path', async () => {
      const good = await createStackDone(stacks.admin, 'ret', null, {
        compose: composeText({ lines: ['ok'] }),
      });
      await saveCompose(stacks.admin, 'ret', null, composeText({ lines: ['bad'], exit: 1 }));
      const failed: number[] = [];
      for (let i = 0; i < 3; i++) {
        const run = await deployDone(stacks.admin, 'ret', null);
        failed.push(run.runId as number);
      }
      // Another stack without a policy keeps everything.
      const other = await createStackDone(stacks.admin, 'ret-other', null);
      expectStatus(
        await stacks.admin.put(`/api/stacks/ret/history-settings${q(null)}`, { keepRuns: 1 }),
        200,
      );
      await saveCompose(stacks.admin, 'ret', null, composeText({ lines: ['slow'], sleepMs: 3000 }));
      const slow = await deploy(stacks.admin, 'ret', null);
      const reply = await stacks.admin.post('/api/schedules/deploy_run_retention/run', {});
      expectStatus(reply, 200, 'retention run');
      const row = objectOf(reply);
      expect(row).toMatchObject({
        scheduleType: 'deploy_run_retention',
        status: 'success',
        trigger: 'manual',
      });
      expect((row.details as Json).deletedRuns).toEqual(failed);
      expect((row.details as Json).keptLastGood).toEqual([good.runId]);
      const left = arrayOf(await stacks.admin.get(`/api/stacks/ret/deploys${q(null)}`)).map((r) => r.id);
      expect(left).toEqual([slow.runId, good.runId]);
      for (const id of failed) {
        expectStatus(await stacks.admin.get(`/api/stacks/ret/deploys/${id}`), 404);
        expect(await logLines(stacks.server.dataDir, null, id)).toBeNull();
      }
      expect(
        arrayOf(await stacks.admin.get(`/api/stacks/ret-other/deploys${q(null)}`)).map((r) => r.id),
      ).toEqual([other.runId]);
      await waitRun(stacks.admin, 'ret', slow.runId as number);
      const rows = objectOf(await stacks.admin.get('/api/schedules/executions?limit=500'))
        .executions as Json[];
      expect(rows.some((r) => r.scheduleType === 'deploy_run_retention' && r.id === row.id)).toBe(true);
      // The run is in the audit trail, with who asked for it.
      const trail = objectOf(await stacks.admin.get('/api/audit?type=schedule.run&limit=500'))
        .entries as Json[];
      expect(trail.filter((e) => (e.details as Json).scheduleType === 'deploy_run_retention')).toEqual([
        expect.objectContaining({
          type: 'schedule.run',
          user: 'admin',
          details: { scheduleType: 'deploy_run_retention', executionId: row.id, trigger: 'manual' },
        }),
      ]);
      // The rollback target is still there: its content too.
      expectStatus(await stacks.admin.get(`/api/stacks/ret/deploys/${good.runId}/compose`), 200);
    }, 60_000);

    it('is refused to a user without edit, and follows its settings', async () => {
      expectStatus(await stacks.server.as('viewer').post('/api/schedules/deploy_run_retention/run', {}), 403);
      const set = await stacks.admin.post('/api/settings/general', {
        deployRunRetentionCron: '0 4 * * *',
        deployRunRetentionEnabled: false,
      });
      expectStatus(set, 200);
      expect(objectOf(set)).toMatchObject({
        deployRunRetentionCron: '0 4 * * *',
        deployRunRetentionEnabled: false,
      });
      expectStatus(
        await stacks.admin.post('/api/settings/general', { deployRunRetentionCron: '61 * * * *' }),
        400,
      );
    });
  });

  it('keeps each distinct content once, sealed, and deletes it with the last run that refers to it', async () => {
    const own = await startStacks();
    try {
      const client = own.as('admin');
      const first = composeText({ lines: ['content one'] });
      const a = await createStackDone(client, 'shr', null, { compose: first });
      const b = await deployDone(client, 'shr', null);
      await saveCompose(client, 'shr', null, composeText({ lines: ['content two'] }));
      const c = await deployDone(client, 'shr', null);
      await waitRun(client, 'shr', c.runId as number);
      expectStatus(await client.del(`/api/stacks/shr/deploys/${a.runId}`), 200);
      // Run b deployed the same text: it is still there.
      expect(objectOf(await client.get(`/api/stacks/shr/deploys/${b.runId}/compose`)).compose).toBe(first);
      expectStatus(await client.del(`/api/stacks/shr/deploys/${b.runId}`), 200);
    } finally {
      await own.stop();
    }
    const printed = await runCli(['events', '--json', '--data', own.dataDir]);
    expect(printed.code, printed.stderr).toBe(0);
    const events = lines(printed.stdout).map((line) => JSON.parse(line) as { stream: string; type: string });
    // Two texts and one variable set were stored; the first text went with its last run (a, then b).
    const contents = events.filter((e) => e.type === 'DeployContentStored').map((e) => e.stream);
    expect(contents).toHaveLength(2);
    expect(
      events.filter((e) => e.type === 'StreamDeleted' && JSON.stringify(e).includes('deploy-content-')),
    ).toHaveLength(1);
    expect(
      events.filter((e) => e.type === 'StreamDeleted' && JSON.stringify(e).includes('key-content-')),
    ).toHaveLength(1);
    expect(printed.stdout).not.toContain('content one');
    expect(printed.stdout).not.toContain('content two');
  }, 60_000);

  it('never answers a secret value (property: random secrets through deploys, diffs, redeploys)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9_.:@-]{6,40}$/),
        fc.stringMatching(/^[A-Za-z0-9_.:@-]{6,40}$/),
        async (first, second) => {
          fc.pre(first !== second && !'services web nginx alpine image'.includes(first));
          n += 1;
          const name = `prop${n}`;
          const created = await createStackDone(stacks.admin, name, null, {
            compose: composeText({ lines: ['p'] }),
            variables: [{ name: 'TOKEN', value: first, secret: true }],
          });
          await setVariables(name, [{ name: 'TOKEN', value: second, secret: true }]);
          const later = await deployDone(stacks.admin, name, null);
          const redeployed = objectOf(
            await stacks.admin.post(`/api/stacks/${name}/deploys/${created.runId}/redeploy`, {}),
          );
          await waitJob(stacks.admin, redeployed.jobId as string);
          const answers = await Promise.all(
            [
              `/api/stacks/${name}/deploys${q(null)}`,
              `/api/stacks/${name}/deploys/${created.runId}/variables`,
              `/api/stacks/${name}/deploys/${created.runId}/compose`,
              `/api/stacks/${name}/deploys/${created.runId}/diff?to=${later.runId}`,
              `/api/stacks/${name}/deploys/${later.runId}/diff?to=${redeployed.runId}`,
              `/api/stacks/${name}/history-settings${q(null)}`,
            ].map((path) => stacks.admin.get(path)),
          );
          for (const answer of answers) {
            expect(answer.status).toBe(200);
            expect(answer.text).not.toContain(first);
            expect(answer.text).not.toContain(second);
          }
        },
      ),
      { numRuns: 4 },
    );
  }, 120_000);
});
