/**
 * Recorded deploy runs (spec: States and transitions, Endpoints rules 1-3, Which operations record a run,
 * Output redaction and log storage 2 and 5, Errors) over the real CLI with the fake compose program.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  argvCalls,
  arrayOf,
  composeText,
  createStackDone,
  deploy,
  deployDone,
  describeStacks,
  type Env,
  eventually,
  logLines,
  logPath,
  objectOf,
  q,
  saveCompose,
  serveStacks,
  stackDir,
  waitJob,
  waitRun,
} from './helpers.js';

const stacks = serveStacks();

const runIdsOf = async (name: string, query: string) => {
  const reply = await stacks.admin.get(`/api/stacks/${name}/deploys${query}`);
  expect(reply.status).toBe(200);
  return arrayOf(reply).map((run) => run.id as number);
};

describeStacks('deploy runs', () => {
  describe('a recorded deploy', () => {
    it('is `running` at once, with every field of the row, then `success` with exit code 0 and a summary', async () => {
      await createStackDone(stacks.admin, 'rec', 1, {
        compose: composeText({ lines: ['slow'], sleepMs: 1500 }),
      });
      const ack = await deploy(stacks.admin, 'rec', 1, { pull: true, build: false, forceRecreate: true });
      expect(typeof ack.runId).toBe('number');
      const runId = ack.runId as number;
      const reply = await stacks.admin.get(`/api/stacks/rec/deploys/${runId}`);
      expect(reply.status).toBe(200);
      const running = objectOf(reply);
      expect(running).toMatchObject({
        id: runId,
        scheduleType: 'stack_deploy',
        scheduleId: 0,
        entityName: 'rec',
        environmentId: 1,
        status: 'running',
        trigger: 'manual',
        errorMessage: null,
        finishedAt: null,
        jobId: ack.jobId,
      });
      expect(typeof running.startedAt).toBe('string');
      expect(Number.isNaN(Date.parse(running.startedAt as string))).toBe(false);
      expect(running.details).toMatchObject({
        options: { pull: true, build: false, forceRecreate: true },
        userId: 'admin',
        logFile: `${runId}.log`,
        truncated: false,
      });
      const details = running.details as Record<string, unknown>;
      expect(typeof details.composeHash).toBe('string');
      expect(typeof details.envHash).toBe('string');
      expect('summary' in details).toBe(false);
      expect('exitCode' in details).toBe(false);

      const first = await waitRun(stacks.admin, 'rec', runId);
      expect(first).toMatchObject({ status: 'success', details: { exitCode: 0 } });

      // The typical compose output (no x-fake) of two services.
      await saveCompose(stacks.admin, 'rec', 1, composeText(undefined, ['web', 'db']));
      const second = await deployDone(stacks.admin, 'rec', 1);
      const done = await waitRun(stacks.admin, 'rec', second.runId as number);
      expect(done).toMatchObject({ status: 'success', errorMessage: null, environmentId: 1 });
      expect(typeof done.finishedAt).toBe('string');
      expect(done.details).toMatchObject({
        exitCode: 0,
        options: { pull: false, build: false, forceRecreate: false },
        summary: {
          containersCreated: 2,
          containersStarted: 2,
          containersRecreated: 0,
          containersRemoved: 0,
        },
      });
      // Only what was seen: the fake printed container lines only, no pull or build line.
      expect(Object.keys((done.details as { summary: object }).summary)).not.toContain('imagesPulled');
    });

    it('a failing compose closes the run `failed` with its exit code and a redacted error message', async () => {
      await createStackDone(stacks.admin, 'fails', null, {
        compose: composeText({ lines: ['ok'] }),
        variables: [{ name: 'DB_PASSWORD', value: 'hunter2-very-secret', secret: true }],
      });
      await saveCompose(
        stacks.admin,
        'fails',
        null,
        composeText({
          lines: ['pulling'],
          stderr: ['Error: password hunter2-very-secret rejected'],
          exit: 17,
        }),
      );
      const { runId, job } = await deployDone(stacks.admin, 'fails', null);
      const run = await waitRun(stacks.admin, 'fails', runId as number);
      expect(run).toMatchObject({ status: 'failed', environmentId: null, details: { exitCode: 17 } });
      expect(typeof run.errorMessage).toBe('string');
      expect((run.errorMessage as string).length).toBeGreaterThan(0);
      expect(run.errorMessage).not.toContain('hunter2-very-secret');
      expect(job.result).toMatchObject({ success: false, exitCode: 17 });
      expect(JSON.stringify(job)).not.toContain('hunter2-very-secret');
    });

    it('has no summary when compose printed no line (unknown, not zero), and no log file', async () => {
      await createStackDone(stacks.admin, 'silent', 2, { compose: composeText({}) });
      const { runId } = await deployDone(stacks.admin, 'silent', 2);
      const run = await waitRun(stacks.admin, 'silent', runId as number);
      expect(run.status).toBe('success');
      expect('summary' in (run.details as object)).toBe(false);
      expect(existsSync(logPath(stacks.server.dataDir, 2, runId as number))).toBe(false);
      const log = await stacks.admin.get(`/api/stacks/silent/deploys/${runId}/log`);
      expect([log.status, log.value]).toEqual([404, { error: 'Log not found' }]);
    });

    it('the log file appears with the first line, holds the lines in order and never the result block', async () => {
      await createStackDone(stacks.admin, 'logged', 1, { compose: composeText({}) });
      // The deploy waits after its first line until the test has looked: it is still running then.
      const gate = join(stacks.server.dataDir, 'gate-logged');
      await saveCompose(
        stacks.admin,
        'logged',
        1,
        composeText({
          lines: ['one', 'two', 'three', 'four'],
          perLineMs: 100,
          gate: { afterLines: 1, file: gate },
        }),
      );
      const { runId } = await deploy(stacks.admin, 'logged', 1);
      const id = runId as number;
      const file = logPath(stacks.server.dataDir, 1, id);
      // The file is opened before its first line is written: wait for text, not for the file.
      const early = await eventually(
        async () => (existsSync(file) ? (await readFile(file, 'utf8')) || undefined : undefined),
        'the log file with a line',
      );
      expect(early.startsWith('one\n')).toBe(true);
      expect(early).not.toContain('four');
      expect((await stacks.admin.get(`/api/stacks/logged/deploys/${id}`)).value).toMatchObject({
        status: 'running',
      });
      await writeFile(gate, '');
      const run = await waitRun(stacks.admin, 'logged', id);
      expect(run.status).toBe('success');
      expect(await logLines(stacks.server.dataDir, 1, id)).toEqual(['one', 'two', 'three', 'four']);
      const log = await stacks.admin.get(`/api/stacks/logged/deploys/${id}/log`);
      expect(log.status).toBe(200);
      expect(log.headers.find(([n]) => n === 'content-type')?.[1]).toBe('text/plain; charset=utf-8');
      expect(log.text).toBe(await readFile(file, 'utf8'));
    });
  });

  describe('the list endpoint (rules 1 and 3)', () => {
    const ids: Record<string, number[]> = {};
    beforeAll(async () => {
      for (const env of [1, 2, null] as Env[]) {
        const key = String(env);
        const created = await createStackDone(stacks.admin, 'lst', env, {
          compose: composeText({ lines: ['x'] }),
        });
        ids[key] = [created.runId as number];
        if (env === 1)
          for (let i = 0; i < 2; i++)
            ids[key].push((await deployDone(stacks.admin, 'lst', env)).runId as number);
      }
      await createStackDone(stacks.admin, 'lst-other', 1, { compose: composeText({ lines: ['y'] }) });
    }, 60_000);

    it('lists that stack in that environment only, newest first', async () => {
      expect(await runIdsOf('lst', '?env=1')).toEqual([...(ids['1'] ?? [])].sort((a, b) => b - a));
      expect(await runIdsOf('lst', '?env=2')).toEqual(ids['2']);
      expect(await runIdsOf('lst', '?env=null')).toEqual(ids.null);
      expect(await runIdsOf('lst', '')).toEqual(ids.null);
      const items = arrayOf(await stacks.admin.get('/api/stacks/lst/deploys?env=1'));
      for (const item of items)
        expect(item).toMatchObject({ entityName: 'lst', environmentId: 1, scheduleType: 'stack_deploy' });
    });

    it('rule 1: an env that is neither omitted, null nor an integer answers 400', async () => {
      for (const bad of ['abc', '1.5', '', '1e3', '0x1', 'undefined', '1,2', '%201']) {
        const reply = await stacks.admin.get(`/api/stacks/lst/deploys?env=${bad}`);
        expect(reply.status, `env=${bad}`).toBe(400);
        expect(typeof objectOf(reply).error).toBe('string');
      }
    });

    it('an integer env that is no configured environment answers 404 Environment not found', async () => {
      const reply = await stacks.admin.get('/api/stacks/lst/deploys?env=99');
      expect([reply.status, reply.value]).toEqual([404, { error: 'Environment not found' }]);
    });

    it('rule 2: the single-run endpoints ignore env and use the run’s own environment', async () => {
      const run2 = ids['2']?.[0] as number;
      for (const query of ['?env=1', '?env=null', '', '?env=abc']) {
        const one = await stacks.admin.get(`/api/stacks/lst/deploys/${run2}${query}`);
        expect(one.status, query).toBe(200);
        expect(objectOf(one)).toMatchObject({ id: run2, environmentId: 2 });
        const log = await stacks.admin.get(`/api/stacks/lst/deploys/${run2}/log${query}`);
        expect([log.status, log.text], query).toEqual([200, 'x\n']);
      }
    });

    it('a run of another stack, or no run at all, is 404 Run not found on all three endpoints', async () => {
      const run1 = ids['1']?.[0] as number;
      for (const [method, suffix] of [
        ['GET', ''],
        ['GET', '/log'],
        ['DELETE', ''],
      ] as const) {
        for (const path of [
          `/api/stacks/lst-other/deploys/${run1}${suffix}`,
          `/api/stacks/lst/deploys/987654${suffix}`,
        ]) {
          const reply = await stacks.admin.call(method, path);
          expect([reply.status, reply.value], `${method} ${path}`).toEqual([404, { error: 'Run not found' }]);
        }
      }
      expect((await stacks.admin.get(`/api/stacks/lst/deploys/${run1}`)).status).toBe(200);
    });

    it('a runId that is not a positive integer is 400', async () => {
      for (const bad of ['abc', '0', '-1', '1.5', '1e2']) {
        const reply = await stacks.admin.get(`/api/stacks/lst/deploys/${bad}`);
        expect(reply.status, bad).toBe(400);
        expect(typeof objectOf(reply).error).toBe('string');
      }
    });
  });

  describe('DELETE of a run', () => {
    it('409 while running (log and row untouched), then 200; the log file, the row and the job are gone', async () => {
      await createStackDone(stacks.admin, 'del', 1, { compose: composeText({}) });
      await saveCompose(stacks.admin, 'del', 1, composeText({ lines: ['started'], sleepMs: 2500 }));
      const { runId, jobId } = await deploy(stacks.admin, 'del', 1);
      const id = runId as number;
      const file = logPath(stacks.server.dataDir, 1, id);
      await eventually(async () => (existsSync(file) ? true : undefined), 'the first line');
      const early = await stacks.admin.del(`/api/stacks/del/deploys/${id}`);
      expect([early.status, early.value]).toEqual([409, { error: 'Run is still running' }]);
      expect(await readFile(file, 'utf8')).toBe('started\n');
      expect(objectOf(await stacks.admin.get(`/api/stacks/del/deploys/${id}`))).toMatchObject({
        id,
        status: 'running',
      });

      await waitRun(stacks.admin, 'del', id);
      await waitJob(stacks.admin, jobId);
      const done = await stacks.admin.del(`/api/stacks/del/deploys/${id}`);
      expect([done.status, done.value]).toEqual([200, { deleted: true, id }]);
      expect(existsSync(file)).toBe(false);
      const gone = await stacks.admin.get(`/api/stacks/del/deploys/${id}`);
      expect([gone.status, gone.value]).toEqual([404, { error: 'Run not found' }]);
      const job = await stacks.admin.get(`/api/jobs/${jobId}`);
      expect([job.status, job.value]).toEqual([404, { error: 'Job not found' }]);
      expect(await runIdsOf('del', '?env=1')).not.toContain(id);
      const again = await stacks.admin.del(`/api/stacks/del/deploys/${id}`);
      expect([again.status, again.value]).toEqual([404, { error: 'Run not found' }]);
    });
  });

  describe('which operations record a run', () => {
    it('create, deploy and compose save with restart record one; save without restart and start/stop/restart/down do not', async () => {
      const env: Env = 2;
      const created = await createStackDone(stacks.admin, 'ops', env, {
        compose: composeText({ lines: ['c'] }),
      });
      expect(typeof created.runId).toBe('number');
      expect(await runIdsOf('ops', q(env))).toEqual([created.runId]);

      const deployed = await deployDone(stacks.admin, 'ops', env, {
        pull: true,
        build: true,
        forceRecreate: true,
      });
      expect(await runIdsOf('ops', q(env))).toEqual([deployed.runId, created.runId]);

      const plain = await stacks.admin.put(`/api/stacks/ops/compose${q(env)}`, {
        content: composeText({ lines: ['saved'] }),
        restart: false,
      });
      expect([plain.status, plain.value]).toEqual([200, { saved: true, composeHash: expect.any(String) }]);
      expect(await runIdsOf('ops', q(env))).toEqual([deployed.runId, created.runId]);

      const restart = await stacks.admin.put(`/api/stacks/ops/compose${q(env)}`, {
        content: composeText({ lines: ['saved and restarted'] }),
        restart: true,
      });
      expect(restart.status).toBe(202);
      const saved = objectOf(restart);
      expect(typeof saved.runId).toBe('number');
      await waitJob(stacks.admin, saved.jobId as string);
      const savedRun = await waitRun(stacks.admin, 'ops', saved.runId as number);
      // forceRecreate defaults to true on compose save-and-redeploy; pull and build to false.
      expect(savedRun).toMatchObject({
        status: 'success',
        details: { options: { pull: false, build: false, forceRecreate: true } },
      });
      expect(await logLines(stacks.server.dataDir, env, saved.runId as number)).toEqual([
        'saved and restarted',
      ]);

      for (const op of ['start', 'stop', 'restart', 'down']) {
        const reply = await stacks.admin.post(`/api/stacks/ops/${op}${q(env)}`, {});
        expect(reply.status, op).toBe(202);
        const ack = objectOf(reply);
        expect(ack.runId, op).toBeNull();
        const job = await waitJob(stacks.admin, ack.jobId as string);
        expect(job.result, op).toMatchObject({ success: true });
      }
      expect(await runIdsOf('ops', q(env))).toEqual([saved.runId, deployed.runId, created.runId]);

      // The compose command as the config gives it, in the stack's folder.
      const dir = stackDir(stacks.server.dataDir, env, 'ops');
      const file = join(dir, 'compose.yaml');
      const calls = (await argvCalls(stacks.server)).filter((c) => c.argv.includes(file));
      const base = ['--project-name', 'ops', '--file', file];
      // v2's `up` waits for its services for the job's time left (a second or so may have passed).
      const wait = ['--wait', '--wait-timeout', expect.stringMatching(/^3[0-9]{3}$/)];
      expect(calls.map((c) => c.argv)).toEqual([
        [...base, 'up', '--detach', '--remove-orphans', ...wait],
        [
          ...base,
          'up',
          '--detach',
          '--remove-orphans',
          '--pull',
          'always',
          '--build',
          '--force-recreate',
          ...wait,
        ],
        [...base, 'up', '--detach', '--remove-orphans', '--force-recreate', ...wait],
        [...base, 'start'],
        [...base, 'stop'],
        [...base, 'restart'],
        [...base, '--profile', '*', 'down'],
      ]);
      for (const c of calls) expect(c.cwd).toBe(dir);
    });
  });
});
