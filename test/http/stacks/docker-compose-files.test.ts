/**
 * Compose files as users write them, on both Compose generations: a file compose refuses is not saved
 * (422 with compose's message and the line), and a deploy of one (a hand edit, a required variable
 * since unset) fails with the same words before compose touches a container or a network; a stack
 * whose file on disk is broken can still be stopped and taken down, `down` takes the containers of a
 * profile that is no longer active, `pull` leaves built images alone, values with `$`, backslashes,
 * quotes and `#` reach the container exactly, a container whose start failed counts as created, and a
 * value too short to replace (`TAG=1`) withholds the lines holding it (on v2 every container line),
 * which saving it warns of.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import {
  createStackDone,
  deployDone,
  expectStatus,
  type Json,
  objectOf,
  serveEngineStacks,
  stackDir,
  waitRun,
} from './helpers.js';

const SLEEP = `["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`;
const service = (name: string, ...keys: string[]) =>
  [`  ${name}:`, `    image: ${TEST_IMAGE}`, `    command: ${SLEEP}`, ...keys.map((k) => `    ${k}`)].join(
    '\n',
  );
const composeOf = (...services: string[]) => `services:\n${services.join('\n')}\n`;

describeCompose('compose files as users write them', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`files${compose.generation}`);
  const suite = serveEngineStacks(compose.command, () => docker.cleanUp());
  const servicesOf = async (name: string) =>
    (await docker.containers(name)).map((c) => [c.Labels['com.docker.compose.service'], c.State]).sort();
  const operate = async (name: string, op: string) => {
    const reply = await suite.admin.postJson(`/api/stacks/${name}/${op}`);
    expectStatus(reply, 200, op);
    return objectOf(reply);
  };

  it('a file compose refuses is answered 422 with its message and line, and nothing changes', async () => {
    const admin = suite.admin;
    const name = docker.stack('checked');
    const good = composeOf(service('web', 'environment:', `  NEEDED: \${NEEDED:?NEEDED must be set}`));
    // The check runs with the stack's variables: a required one given is fine.
    const created = await createStackDone(admin, name, null, {
      compose: good,
      variables: [{ name: 'NEEDED', value: 'given', secret: false }],
    });
    expect(await waitRun(admin, name, created.runId as number, 120_000)).toMatchObject({ status: 'success' });

    const bad = composeOf(service('web', 'restart: false'));
    for (const restart of [false, true]) {
      const reply = await admin.put(`/api/stacks/${name}/compose`, { content: bad, restart });
      expectStatus(reply, 422, `restart: ${restart}`);
      const error = objectOf(reply).error as string;
      expect(error).toMatch(/^The compose file is invalid \(compose config\): /);
      expect(error).toMatch(/services\.web\.restart/);
      expect(error).toContain('(at line 5, column 5)');
      expect(error).not.toContain('.compose.check-');
    }
    expect(objectOf(await admin.get(`/api/stacks/${name}`)).compose).toBe(good);

    // A create whose file compose refuses makes nothing.
    const other = docker.stack('never');
    const refused = await admin.post('/api/stacks', { name: other, compose: bad, variables: [] });
    expectStatus(refused, 422, 'create');
    expectStatus(await admin.get(`/api/stacks/${other}`), 404, 'no stack');
    const required = await admin.post('/api/stacks', { name: other, compose: good, variables: [] });
    expectStatus(required, 422, 'a required variable missing');
    expect(objectOf(required).error).toContain('NEEDED must be set');
  }, 300_000);

  it("a deploy of a file compose refuses fails with compose's own message and touches nothing", async () => {
    const admin = suite.admin;
    const name = docker.stack('refused');
    const needed = service('web', 'environment:', `  NEEDED: \${NEEDED:?NEEDED must be set}`);
    const given = [{ name: 'NEEDED', value: 'given', secret: false }];
    const created = await createStackDone(admin, name, null, {
      compose: composeOf(needed),
      variables: given,
    });
    expect(await waitRun(admin, name, created.runId as number, 120_000)).toMatchObject({ status: 'success' });
    const engineHas = async () => ({
      containers: (await docker.containers(name)).map((c) => [c.Id, c.State]),
      networks: (await engine.listNetworks({ filters: { label: [`com.docker.compose.project=${name}`] } }))
        .map((n) => n.Id)
        .sort(),
    });
    const before = await engineHas();
    expect(before.containers).toEqual([[expect.any(String), 'running']]);
    const refusedDeploy = async () => {
      const deployed = await deployDone(admin, name, null, { forceRecreate: true });
      const run = await waitRun(admin, name, deployed.runId as number, 120_000);
      expect(run.status, JSON.stringify(run)).toBe('failed');
      expect(await engineHas()).toEqual(before);
      return run.errorMessage as string;
    };

    // Variables are not checked by compose when saved: the deploy is where a required one is missed.
    expectStatus(await admin.put(`/api/stacks/${name}/variables`, { variables: [] }), 200, 'no NEEDED');
    expect(await refusedDeploy()).toContain('NEEDED must be set');
    expectStatus(await admin.put(`/api/stacks/${name}/variables`, { variables: given }), 200, 'NEEDED again');

    // A file broken on disk (a hand edit) that would add a service and a network: compose refuses it
    // at deploy with the words its check at a save gives.
    const broken = `${composeOf(needed, service('extra', 'restart: false', 'networks: [side]'))}networks:\n  side: {}\n`;
    const saved = await admin.put(`/api/stacks/${name}/compose`, { content: broken, restart: false });
    expectStatus(saved, 422, 'the check at a save');
    const said = (objectOf(saved).error as string)
      .replace(/^The compose file is invalid \(compose config\): /, '')
      .replace(/ \(at line \d+, column \d+\)$/, '');
    const words = said.split('\n').at(-1)?.split(': ').at(-1) as string;
    expect(words).toMatch(/services\.extra\.restart/);
    await writeFile(join(stackDir(suite.server.dataDir, null, name), 'compose.yaml'), broken);
    expect(await refusedDeploy()).toContain(words);
  }, 300_000);

  it('a stack whose file on disk is broken still stops and goes down', async () => {
    const admin = suite.admin;
    const name = docker.stack('broken');
    const created = await createStackDone(admin, name, null, { compose: composeOf(service('web')) });
    expect(await waitRun(admin, name, created.runId as number, 120_000)).toMatchObject({ status: 'success' });
    // As a server before the check wrote it, or a hand edit.
    await writeFile(
      join(stackDir(suite.server.dataDir, null, name), 'compose.yaml'),
      composeOf(service('web', 'restart: false')),
    );

    const stopped = await operate(name, 'stop');
    expect(stopped, JSON.stringify(stopped)).toMatchObject({ success: true });
    expect(await servicesOf(name)).toEqual([['web', 'exited']]);
    const down = await operate(name, 'down');
    expect(down, JSON.stringify(down)).toMatchObject({ success: true });
    expect(await servicesOf(name)).toEqual([]);
  }, 300_000);

  it('down takes the containers of a profile that is no longer active', async () => {
    const admin = suite.admin;
    const name = docker.stack('profiles');
    const text = composeOf(service('web'), service('debug', 'profiles: [debug]'));
    const created = await createStackDone(admin, name, null, {
      compose: text,
      variables: [{ name: 'COMPOSE_PROFILES', value: 'debug', secret: false }],
    });
    expect(await waitRun(admin, name, created.runId as number, 120_000)).toMatchObject({ status: 'success' });
    expect(await servicesOf(name)).toEqual([
      ['debug', 'running'],
      ['web', 'running'],
    ]);
    expectStatus(await admin.put(`/api/stacks/${name}/variables`, { variables: [] }), 200, 'profile off');
    const again = await deployDone(admin, name, null);
    expect(await waitRun(admin, name, again.runId as number, 120_000)).toMatchObject({ status: 'success' });
    expect(await operate(name, 'down')).toMatchObject({ success: true });
    expect(await servicesOf(name)).toEqual([]);
  }, 300_000);

  it('pull: true of a stack whose service compose builds: nothing of it is pulled, the deploy succeeds', async () => {
    const admin = suite.admin;
    const name = docker.stack('built');
    const context = await mkdtemp(join(tmpdir(), 'chronicle-pull-build-'));
    await writeFile(join(context, 'Dockerfile'), `FROM ${TEST_IMAGE}\nCMD ${SLEEP}\n`);
    const text = composeOf(`  app:\n    build: ${context}\n    image: ${docker.image('built')}`);
    const created = await createStackDone(admin, name, null, { compose: text, build: true });
    expect(await waitRun(admin, name, created.runId as number, 120_000)).toMatchObject({ status: 'success' });
    const pulled = await deployDone(admin, name, null, { pull: true });
    const run = await waitRun(admin, name, pulled.runId as number, 120_000);
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'success', errorMessage: null });
    expect(await servicesOf(name)).toEqual([['app', 'running']]);
  }, 300_000);

  it("the stack's values reach the container exactly through env_file: .env and interpolation: $, \\, quotes, #", async () => {
    const admin = suite.admin;
    const name = docker.stack('values');
    const values = {
      WITH_DOLLAR: 'p$a\\ss"w\'o#rd $HOME end',
      NO_DOLLAR: 'a\\b "q" \'s #h',
      BACKSLASHES: 'c:\\\\share\\dir',
    };
    const created = await createStackDone(admin, name, null, {
      compose: composeOf(service('web', 'env_file: .env', 'environment:', `  INTERP: \${WITH_DOLLAR}`)),
      variables: Object.entries(values).map(([n, value]) => ({ name: n, value, secret: false })),
    });
    expect(await waitRun(admin, name, created.runId as number, 120_000)).toMatchObject({ status: 'success' });
    const [container] = await docker.containers(name);
    const env = new Map(
      ((await engine.getContainer(container?.Id as string).inspect()).Config.Env ?? []).map((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)] as const;
      }),
    );
    for (const [n, value] of Object.entries(values)) expect(env.get(n), n).toBe(value);
    expect(env.get('INTERP')).toBe(values.WITH_DOLLAR);
  }, 300_000);

  it('a container made whose start failed (its host port is taken) counts as created, not started', async () => {
    const admin = suite.admin;
    const name = docker.stack('port');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const created = await createStackDone(admin, name, null, {
        compose: composeOf(service('web', `ports: ["${port}:80"]`)),
      });
      const run = await waitRun(admin, name, created.runId as number, 120_000);
      expect(run.status).toBe('failed');
      expect(run.errorMessage).toContain('address already in use');
      expect(await servicesOf(name)).toEqual([['web', 'created']]);
      expect((run.details as Json).summary).toMatchObject({ containersCreated: 1, containersStarted: 0 });
    } finally {
      taken.close();
    }
  }, 300_000);

  it("a short non-secret value (TAG=1) withholds each line holding it; saving it warns of the last run's count", async () => {
    const admin = suite.admin;
    const name = docker.stack('tagged');
    const created = await createStackDone(admin, name, null, { compose: composeOf(service('web')) });
    const run1 = created.runId as number;
    expect(await waitRun(admin, name, run1, 120_000)).toMatchObject({ status: 'success' });
    const logOf = async (runId: number) => {
      const reply = await admin.get(`/api/stacks/${name}/deploys/${runId}/log`);
      expectStatus(reply, 200, `the log of run ${runId}`);
      return reply.text.split('\n').filter((line) => line.length > 0);
    };
    const lines = await logOf(run1);
    const holding = lines.filter((line) => line.includes('1'));
    // Every line naming the container holds `1` (v2 `…-web-1`, v1 `…_web_1`).
    const container = compose.generation === 'v2' ? `${name}-web-1` : `${name}_web_1`;
    expect(lines.filter((line) => line.includes(container)).length).toBeGreaterThan(0);
    expect(holding).toEqual(expect.arrayContaining(lines.filter((line) => line.includes(container))));

    const saved = await admin.put(`/api/stacks/${name}/variables`, {
      variables: [{ name: 'TAG', value: '1', secret: false }],
    });
    expectStatus(saved, 200, 'PUT variables');
    expect(objectOf(saved).warnings).toEqual([
      expect.objectContaining({ variable: 'TAG', withheldLines: holding.length, loggedLines: lines.length }),
    ]);

    const redeployed = await deployDone(admin, name, null, { forceRecreate: true });
    const run2 = redeployed.runId as number;
    expect(await waitRun(admin, name, run2, 120_000)).toMatchObject({ status: 'success' });
    // Its log holds no such line; on v1 (project `…filesv1-tagged`) every line held one: no log at all.
    const log2 = await admin.get(`/api/stacks/${name}/deploys/${run2}/log`);
    if (compose.generation === 'v1' && log2.status === 404)
      expect(objectOf(log2).error).toBe('Log not found');
    else expect((await logOf(run2)).filter((line) => line.includes('1'))).toEqual([]);
    const output = (redeployed.job.result as Json).output as string[];
    expect(output.filter((line) => line.includes('1'))).toEqual([]);
    expect(await servicesOf(name)).toEqual([['web', 'running']]);
  }, 300_000);
});
