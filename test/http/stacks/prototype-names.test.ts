/**
 * Names that are properties of `Object.prototype` (`constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`, `valueOf`...) wherever a client, a config file or a compose line chooses a name, over
 * the real CLI: a compose line that once stopped the process, job ids, schedule
 * types, stack names, variable names, secret providers (and the keys they print), git stacks, settings
 * keys and config keys. Each such name is an ordinary name: found when it exists, 404 or 400 as any
 * unknown one when it does not, and never the server's end.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { signatureOf } from '../../../src/stacks/git/webhook.js';
import { runCli, tempDir } from '../../cli/helpers.js';
import { PROTOTYPE_NAMES } from '../../fuzz-names.js';
import { makeRepo } from '../../stacks/git-repo.js';
import {
  arrayOf,
  composeText,
  createStackDone,
  deployDone,
  describeStacks,
  expectStatus,
  type Json,
  logLines,
  objectOf,
  openSse,
  q,
  StacksClient,
  type StacksServer,
  serveStacks,
  stacksConfig,
  startStacks,
  TOKENS,
  USER_KINDS,
  waitJob,
  waitRun,
} from './helpers.js';

/** The names the issue lists, in the cases a path segment can carry them. */
const NAMES = PROTOTYPE_NAMES;
/** Stack names are lower case: these are legal ones that read as prototype names. */
const STACK_NAMES = ['constructor', 'tostring', 'valueof', 'hasownproperty'];

const linesOf = (messages: Json[]) => messages.filter((m) => m.type === 'line').map((m) => m.line);

/** The server still answers an ordinary request (and so did not die). */
async function expectServing(server: StacksServer, client: StacksClient): Promise<void> {
  const reply = await client.get('/api/settings/general');
  expectStatus(reply, 200, 'GET /api/settings/general after the prototype names');
  expect(server.child.exitCode).toBeNull();
}

describeStacks('Object.prototype names', () => {
  let providerDir: string;

  const stacks = serveStacks(async () => {
    providerDir = await tempDir();
    const provider = join(providerDir, 'provider.mjs');
    // JSON text, not an object literal: a literal's `__proto__:` would set a prototype, not a key.
    const printed =
      '{"__proto__": "from-provider-proto", "constructor": "from-provider-ctor", "PLAIN_KEY": "from-provider-plain"}';
    await writeFile(provider, `process.stdout.write(${JSON.stringify(printed)});\n`);
    return {
      config: stacksConfig({
        secretProviders: {
          constructor: { command: [process.execPath, provider] },
          toString: { command: [process.execPath, provider] },
        },
      }),
    };
  }, 30_000);

  it('compose lines naming prototype properties are counted as names, and the server keeps answering', async () => {
    const lines = [
      ...NAMES.map((name) => ` Container a ${name}`),
      ' Container constructor  Created',
      ' Container constructor  Started',
      ' Container __proto__  Recreated',
      ' Container __proto__  Started',
      ' Container valueOf  Removed',
      ' Image __proto__ Pulled',
      ' __proto__ Pulled',
      ' constructor Pulled',
      ' Service toString  Built',
      ' Network __proto__  Created',
      'hasOwnProperty valueOf toString',
    ];
    const { runId, job } = await createStackDone(stacks.admin, 'words', null, {
      compose: composeText({ lines }),
    });
    expect(job.result).toMatchObject({ success: true });
    expect(linesOf(job.messages)).toEqual(lines);
    const run = await waitRun(stacks.admin, 'words', runId as number);
    expect(run.status).toBe('success');
    expect((run.details as Json).summary).toEqual({
      containersCreated: 1,
      containersStarted: 2,
      containersRecreated: 1,
      containersRemoved: 1,
      imagesPulled: 2,
      imagesBuilt: 1,
      buildStepsCached: 0,
    });
    expect(await logLines(stacks.server.dataDir, null, runId as number)).toEqual(lines);
    // A second deploy of the same words: the stack was let go and the process is the same one.
    const again = await deployDone(stacks.admin, 'words', null);
    expect(again.job.result).toMatchObject({ success: true });
    await expectServing(stacks.server, stacks.admin);
  }, 120_000);

  it('GET /api/jobs/{name} and its events are 404 Job not found for every user', async () => {
    for (const name of NAMES) {
      for (const kind of USER_KINDS) {
        const reply = await stacks.server.as(kind).get(`/api/jobs/${name}`);
        expect(reply.status, `${kind} GET /api/jobs/${name}: ${reply.text}`).toBe(404);
        expect(reply.value).toEqual({ error: 'Job not found' });
      }
      const events = await openSse(stacks.server.port, `/api/jobs/${name}/events`, TOKENS.viewer);
      expect(events.status, `events of ${name}`).toBe(404);
      await events.closed;
      expect(JSON.parse(events.text())).toEqual({ error: 'Job not found' });
    }
    await expectServing(stacks.server, stacks.admin);
  }, 120_000);

  it('the schedule toggle and run answer 404 for a prototype name, as for any unknown type', async () => {
    for (const name of NAMES) {
      const toggle = await stacks.admin.post(`/api/schedules/${name}/1/toggle`);
      expect(toggle.status, `toggle ${name}: ${toggle.text}`).toBe(404);
      expect(toggle.value).toEqual({ error: `No schedule type ${JSON.stringify(name)}` });
      const run = await stacks.admin.post(`/api/schedules/${name}/run`);
      expect(run.status, `run ${name}`).toBe(404);
    }
    await expectServing(stacks.server, stacks.admin);
  }, 120_000);

  it('a stack named constructor (or tostring, valueof, hasownproperty) is created, deployed, listed and deleted', async () => {
    for (const env of [null, 1]) {
      for (const name of STACK_NAMES) {
        const created = await createStackDone(stacks.admin, name, env);
        expect(created.job.result, `${name} in ${env}`).toMatchObject({ success: true });
        const one = await stacks.admin.get(`/api/stacks/${name}${q(env)}`);
        expectStatus(one, 200, `GET stack ${name}`);
        expect(objectOf(one)).toMatchObject({ name, environmentId: env });
        const deployed = await deployDone(stacks.admin, name, env);
        expect(deployed.job.result).toMatchObject({ success: true });
        const runs = arrayOf(await stacks.admin.get(`/api/stacks/${name}/deploys${q(env)}`));
        expect(runs.map((r) => r.id)).toEqual([deployed.runId, created.runId]);
        const log = await stacks.admin.get(`/api/stacks/${name}/deploys/${deployed.runId}/log`);
        expectStatus(log, 200, `log of ${name}`);
        const variables = await stacks.admin.put(`/api/stacks/${name}/variables${q(env)}`, {
          variables: [{ name: 'A', value: '1', secret: false }],
        });
        expectStatus(variables, 200, `variables of ${name}`);
      }
      const listed = arrayOf(await stacks.admin.get(`/api/stacks${q(env)}`)).map((s) => s.name);
      for (const name of STACK_NAMES) expect(listed).toContain(name);
      for (const name of STACK_NAMES) {
        expectStatus(await stacks.admin.del(`/api/stacks/${name}${q(env)}`), 200, `DELETE ${name}`);
        expect((await stacks.admin.get(`/api/stacks/${name}${q(env)}`)).status).toBe(404);
      }
      const after = arrayOf(await stacks.admin.get(`/api/stacks${q(env)}`)).map((s) => s.name);
      for (const name of STACK_NAMES) expect(after).not.toContain(name);
    }
    await expectServing(stacks.server, stacks.admin);
  }, 120_000);

  it('variables named __proto__ and constructor reach compose like any other', async () => {
    const variables = NAMES.map((name, i) => ({ name, value: `variable-value-${i}`, secret: false }));
    const put = await createStackDone(stacks.admin, 'protovars', null, {
      compose: composeText({ env: [...NAMES] }),
      variables,
    });
    expect(put.job.result).toMatchObject({ success: true });
    // Every value is redacted (variables are, secret or not): `***` shows that it arrived.
    expect(linesOf(put.job.messages)).toEqual(NAMES.map((name) => `${name}=***`));
    const read = objectOf(await stacks.admin.get('/api/stacks/protovars'));
    expect((read.variables as Json[]).map((v) => v.name)).toEqual([...NAMES]);
    // Replaced by a set without them: gone from the stack and from the next deploy's environment.
    const replaced = await stacks.admin.put('/api/stacks/protovars/variables', {
      variables: [{ name: 'constructor', value: 'only-this-one', secret: true }],
    });
    expectStatus(replaced, 200, 'PUT variables');
    const next = await deployDone(stacks.admin, 'protovars', null);
    expect(linesOf(next.job.messages)).toEqual(
      NAMES.map((name) => `${name}=${name === 'constructor' ? '***' : ''}`),
    );
  }, 120_000);

  it('secret providers named constructor and toString resolve, and the keys they print reach compose', async () => {
    for (const provider of ['constructor', 'toString']) {
      const name = `provider-${provider.toLowerCase()}`;
      const done = await createStackDone(stacks.admin, name, null, {
        compose: composeText({
          env: ['__proto__', 'constructor', 'PLAIN_KEY'],
          lines: ['from-provider-proto'],
        }),
        secretProvider: provider,
      });
      expect(done.job.result, provider).toMatchObject({ success: true });
      expect(linesOf(done.job.messages)).toEqual([
        '***',
        '__proto__=***',
        'constructor=***',
        'PLAIN_KEY=***',
      ]);
    }
    for (const provider of ['__proto__', 'hasOwnProperty', 'valueOf']) {
      const reply = await stacks.admin.post('/api/stacks', {
        name: 'unknown-provider',
        compose: composeText(),
        secretProvider: provider,
      });
      expect(reply.status, `${provider}: ${reply.text}`).toBe(400);
      expect(reply.value).toEqual({ error: `Unknown secret provider ${JSON.stringify(provider)}` });
    }
    expect((await stacks.admin.get('/api/stacks/unknown-provider')).status).toBe(404);
  }, 120_000);

  it('settings keys named after prototype properties are unknown keys (400), and nothing changes', async () => {
    const before = objectOf(await stacks.admin.get('/api/settings/general'));
    for (const name of NAMES) {
      const body = `{${JSON.stringify(name)}: {"deployLogReconcileEnabled": false}, "deployLogReconcileCron": "0 4 * * *"}`;
      const reply = await stacks.admin.post('/api/settings/general', undefined, {
        raw: body,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(reply.status, `${name}: ${reply.text}`).toBe(400);
    }
    expect(objectOf(await stacks.admin.get('/api/settings/general'))).toEqual(before);
    await expectServing(stacks.server, stacks.admin);
  }, 120_000);

  it('environments named by a prototype word are a 400 in `env`', async () => {
    for (const name of NAMES) {
      const reply = await stacks.admin.get(`/api/stacks?env=${name}`);
      expect(reply.status, name).toBe(400);
    }
  }, 120_000);

  it('a git stack named constructor is created, deployed, webhooked with delivery ids named so, and read', async () => {
    const root = await tempDir();
    const repo = await makeRepo(root, { 'compose.yaml': composeText({ lines: ['git deploy'] }) });
    const secret = 'hook-secret-0123';
    const created = await stacks.admin.post('/api/git-stacks', {
      name: 'constructor',
      repository: repo.bare,
      webhookSecret: secret,
      deploy: true,
    });
    expectStatus(created, 202, 'create and deploy git stack constructor');
    const job = await waitJob(stacks.admin, objectOf(created).jobId as string);
    expect(job.result).toMatchObject({ success: true });
    const view = await stacks.admin.get('/api/git-stacks/constructor');
    expectStatus(view, 200, 'GET git stack constructor');
    expect(objectOf(view)).toMatchObject({ name: 'constructor', repository: repo.bare });
    expect(arrayOf(await stacks.admin.get('/api/git-stacks')).map((s) => s.name)).toContain('constructor');

    // Deliveries whose ids are prototype names: each deploys once, and a replay of one is ignored.
    const hook = new StacksClient(stacks.server.port, null);
    const deliver = (id: string) => {
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      return hook.call('POST', '/api/git-stacks/constructor/webhook', {
        raw: body,
        headers: {
          'Content-Type': 'application/json',
          'X-GitHub-Delivery': id,
          'X-Hub-Signature-256': signatureOf(secret, Buffer.from(body)),
        },
      });
    };
    for (const id of ['__proto__', 'constructor', 'toString']) {
      const delivered = await deliver(id);
      expectStatus(delivered, 202, `delivery ${id}`);
      const run = await waitRun(stacks.admin, 'constructor', objectOf(delivered).runId as number);
      expect(run).toMatchObject({ trigger: 'webhook', status: 'success' });
      const replayed = await deliver(id);
      expectStatus(replayed, 200, `replay of ${id}`);
      expect(objectOf(replayed)).toMatchObject({ ignored: true });
    }
    for (const name of STACK_NAMES.filter((n) => n !== 'constructor')) {
      expect((await stacks.admin.get(`/api/git-stacks/${name}`)).status, name).toBe(404);
      const deploy = await stacks.admin.post(`/api/git-stacks/${name}/deploy`, {});
      expect(deploy.status, `deploy ${name}`).toBe(404);
    }
    expectStatus(await stacks.admin.del('/api/stacks/constructor'), 200, 'DELETE git stack constructor');
    expect((await stacks.admin.get('/api/git-stacks/constructor')).status).toBe(404);
    await expectServing(stacks.server, stacks.admin);
  }, 120_000);
});

describeStacks('Object.prototype names in the config file', () => {
  it('a secret provider named __proto__ is refused at start with a message naming it (exit 2)', async () => {
    const dir = await tempDir();
    const file = join(dir, 'config.json');
    await writeFile(
      file,
      `{"users": [{"name": "admin", "token": "t-admin", "admin": true}], "secretProviders": {"__proto__": {"command": ["true"]}}}`,
    );
    const result = await runCli(['stacks', '--port', '0', '--data', dir, '--config', file], {
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('secretProviders["__proto__"]');
  }, 120_000);

  it('a stack whose provider left the config fails its deploy with Unknown secret provider', async () => {
    const dir = await tempDir();
    const provider = join(dir, 'provider.mjs');
    await writeFile(provider, `process.stdout.write('{}');\n`);
    const first = await startStacks({
      dataDir: dir,
      config: stacksConfig({ secretProviders: { constructor: { command: [process.execPath, provider] } } }),
    });
    try {
      const created = await createStackDone(first.as('admin'), 'orphaned', null, {
        secretProvider: 'constructor',
      });
      expect(created.job.result).toMatchObject({ success: true });
    } finally {
      await first.stop();
    }
    const second = await startStacks({ dataDir: dir, config: stacksConfig() });
    try {
      const admin = second.as('admin');
      const deployed = await deployDone(admin, 'orphaned', null);
      expect(deployed.job.result).toMatchObject({
        success: false,
        error: 'Unknown secret provider "constructor"',
      });
      const run = await waitRun(admin, 'orphaned', deployed.runId as number);
      expect(run).toMatchObject({ status: 'failed', errorMessage: 'Unknown secret provider "constructor"' });
      await expectServing(second, admin);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
