/**
 * Environments on engines of their own, for real, on both Compose generations: the machine's engine is
 * the local environment's, and a second dockerd started by the test (test/second-engine.ts) is
 * environment 1's `dockerHost`. A stack of the same name in both (the same compose project name on
 * two engines): each deploys on its own engine, its status, containers, logs and live changes come
 * from its own engine only, and stopping or taking down one never touches the other. An engine that
 * goes down makes its stacks `unknown` with the reason while the other's stay as they are, and comes
 * back by itself: status, the engine list and the event stream, without a restart of chronicle; a deploy
 * meanwhile fails with compose's reason and leaves the other engine alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  ensureTestImage,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import { SecondEngine, secondEngineMissing } from '../../second-engine.js';
import {
  arrayOf,
  createStackDone,
  dataOf,
  type Env,
  eventually,
  expectStatus,
  type Json,
  objectOf,
  openSse,
  q,
  type SseStream,
  type StacksClient,
  type StacksServer,
  startStacks,
  TOKENS,
  USERS,
  waitRun,
} from './helpers.js';

const SLEEP = `["sh", "-c", "echo $$WHERE is up; trap 'exit 0' TERM; sleep 3600 & wait"]`;

/** One sleeping service that prints where it runs; `restart` for the engine's own restarts. */
const composeOf = (service: string, image: string, where: string) =>
  [
    'services:',
    `  ${service}:`,
    `    image: ${image}`,
    '    restart: unless-stopped',
    '    environment:',
    `      WHERE: ${where}`,
    `    command: ${SLEEP}`,
    '',
  ].join('\n');

const PROJECT_LABEL = 'com.docker.compose.project';
const SERVICE_LABEL = 'com.docker.compose.service';

/** Without a second engine (not root, no dockerd) the suite skips, but fails where engines are required. */
const missing = secondEngineMissing();
const skip = missing !== undefined && process.env.CHRONICLE_TEST_DOCKER !== 'required';
if (skip) console.log(`skipped: environments on two engines: ${missing}`);
const describeTwo: typeof describeCompose = skip
  ? (title, body) => describe.skip(title, () => body({ generation: 'v2', command: [], version: '' }))
  : describeCompose;

describeTwo('environments on two engines', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`two${compose.generation}`);
  const name = docker.stack('twin');
  /** Environment 1's image: a tag only the second engine has (no pull could find it). */
  const secondOnly = docker.image('second');
  let second: SecondEngine;
  let server: StacksServer;
  let admin: StacksClient;
  let changes: SseStream;
  /** The run that created environment 1's stack. */
  let edgeRun = 0;

  beforeAll(async () => {
    if (missing !== undefined) throw new Error(`cannot start a second Docker engine: ${missing}`);
    await ensureTestImage();
    second = await SecondEngine.start();
    second.load(TEST_IMAGE);
    const [repo = '', tag = ''] = secondOnly.split(':');
    await second.docker.getImage(TEST_IMAGE).tag({ repo, tag });
    server = await startStacks({
      config: {
        environments: [{ id: 1, name: 'edge', dockerHost: second.host }],
        users: [USERS.admin],
        compose: { command: [...compose.command] },
      },
    });
    admin = server.as('admin');
    changes = await openSse(server.port, '/api/events', TOKENS.admin);
    await eventually(
      async () => (engineChanges('connected', 1).length > 0 ? true : undefined),
      "environment 1's engine stream",
    );
  }, 240_000);
  afterAll(async () => {
    changes?.close();
    await server?.stop();
    await second?.remove();
    await docker.cleanUp();
  }, 180_000);

  /** The `kind: "engine"` changes of an environment seen so far. */
  const engineChanges = (type: string, environmentId: Env) =>
    dataOf(changes).filter(
      (c) => c.kind === 'engine' && c.type === type && c.environmentId === environmentId,
    );
  /** The `kind: "container"` changes of the twin seen so far. */
  const containerChanges = () => dataOf(changes).filter((c) => c.kind === 'container' && c.stack === name);

  /** The services of the twin's containers on one engine, with their state, as that engine lists them. */
  const onEngine = async (which: 'machine' | 'second') => {
    const client = which === 'machine' ? engine : second.docker;
    const listed = await client.listContainers({
      all: true,
      filters: { label: [`${PROJECT_LABEL}=${name}`] },
    });
    return listed.map((c) => [c.Labels[SERVICE_LABEL], c.State]).sort();
  };

  const stackOf = async (env: Env) => {
    const reply = await admin.get(`/api/stacks/${name}${q(env)}`);
    expectStatus(reply, 200, `GET the twin of ${env}`);
    return objectOf(reply);
  };
  const servicesOf = (stack: Json) =>
    ((stack.containers as Json[] | null) ?? []).map((c) => [c.service, c.state]).sort();

  const act = async (env: Env, action: string) => {
    const reply = await admin.postJson(`/api/stacks/${name}/${action}${q(env)}`);
    expectStatus(reply, 200, `${action} of the twin of ${env}`);
    expect(objectOf(reply), `${action} of ${env}`).toMatchObject({ success: true });
  };

  it('a stack of the same name deploys in each environment on its own engine', async () => {
    const local = await createStackDone(admin, name, null, {
      compose: composeOf('front', TEST_IMAGE, 'machine'),
    });
    const edge = await createStackDone(admin, name, 1, { compose: composeOf('back', secondOnly, 'second') });
    for (const [env, created] of [
      [null, local],
      [1, edge],
    ] as const) {
      const run = await waitRun(admin, name, created.runId as number, 240_000);
      expect(run, `the run of ${env}`).toMatchObject({ status: 'success', environmentId: env });
    }
    expect(await onEngine('machine')).toEqual([['front', 'running']]);
    expect(await onEngine('second')).toEqual([['back', 'running']]);
    edgeRun = edge.runId as number;
    // The images a run records are its own engine's.
    const imageId = (await second.docker.getImage(secondOnly).inspect()).Id;
    const images = await admin.get(`/api/stacks/${name}/deploys/${edgeRun}/images${q(1)}`);
    expectStatus(images, 200, "the images of environment 1's run");
    expect(objectOf(images).images).toEqual([
      { service: 'back', image: secondOnly, imageId, repoDigest: null },
    ]);
  }, 300_000);

  it("each stack's status, list row, containers and logs come from its own engine", async () => {
    const local = await stackOf(null);
    const edge = await stackOf(1);
    expect([local.state, servicesOf(local)]).toEqual(['running', [['front', 'running']]]);
    expect([edge.state, servicesOf(edge)]).toEqual(['running', [['back', 'running']]]);
    const listed = arrayOf(await admin.get(`/api/stacks${q(1)}`));
    expect(listed.find((s) => s.name === name)).toMatchObject({ state: 'running' });
    expect(((listed.find((s) => s.name === name)?.containers as Json[]) ?? []).map((c) => c.service)).toEqual(
      ['back'],
    );

    const front = (local.containers as Json[])[0]?.name as string;
    const back = (edge.containers as Json[])[0]?.name as string;
    const logs = async (env: Env, container: string) =>
      admin.get(`/api/stacks/${name}/containers/${container}/logs${q(env)}`);
    expect((await logs(1, back)).text).toBe('second is up\n');
    expect((await logs(null, front)).text).toBe('machine is up\n');
    // The other engine's container is not the stack's, whatever its project label says.
    for (const [env, other] of [
      [1, front],
      [null, back],
    ] as const) {
      const reply = await logs(env, other);
      expectStatus(reply, 404, `the logs of ${other} asked of ${env}`);
      expect(objectOf(reply).error).toBe('Container not found');
    }
    const whole = await admin.get(`/api/stacks/${name}/logs${q(1)}`);
    expect(whole.text).toBe(`${back} | second is up\n`);
  });

  it("stopping one environment's stack stops its own containers only; the changes name its environment", async () => {
    const before = containerChanges().length;
    await act(1, 'stop');
    expect(await onEngine('second')).toEqual([['back', 'exited']]);
    expect(await onEngine('machine')).toEqual([['front', 'running']]);
    expect((await stackOf(1)).state).toBe('stopped');
    expect((await stackOf(null)).state).toBe('running');
    const stopped = await eventually(async () => {
      const seen = containerChanges()
        .slice(before)
        .filter((c) => c.type === 'die');
      return seen.length > 0 ? seen : undefined;
    }, 'the die of the stopped container');
    expect(stopped[0]).toMatchObject({ environmentId: 1, service: 'back' });
    await act(1, 'start');
    expect(await onEngine('second')).toEqual([['back', 'running']]);
    // Every change of the twin so far came from its own engine's container.
    for (const change of containerChanges())
      expect([change.environmentId, change.service], JSON.stringify(change)).toEqual(
        change.environmentId === 1 ? [1, 'back'] : [null, 'front'],
      );
  }, 180_000);

  it('an engine that is down makes its stacks unknown with the reason, and comes back by itself', async () => {
    await second.down();
    const edge = await eventually(async () => {
      const stack = await stackOf(1);
      return stack.state === 'unknown' ? stack : undefined;
    }, "environment 1's stack to be unknown");
    expect(edge.containers).toBeNull();
    expect(edge.stateReason).toContain(`The Docker engine (${second.host})`);
    expect((await stackOf(null)).state).toBe('running');
    const engines = arrayOf(await admin.get('/api/engines'));
    expect(engines.find((e) => e.environmentId === 1)).toMatchObject({ reachable: false });
    expect(engines.find((e) => e.environmentId === null)).toMatchObject({ reachable: true });
    await eventually(
      async () => (engineChanges('disconnected', 1).length > 0 ? true : undefined),
      'the disconnection of environment 1',
    );
    expect(engineChanges('disconnected', null)).toEqual([]);
    // A deploy meanwhile fails with compose's own reason; the other environment's stack runs on.
    const failed = await admin.postJson(`/api/stacks/${name}/deploy${q(1)}`);
    expectStatus(failed, 500, 'a deploy on the engine that is down (a failed job)');
    expect(objectOf(failed)).toMatchObject({ success: false });
    const runs = arrayOf(await admin.get(`/api/stacks/${name}/deploys${q(1)}`));
    const last = runs.reduce((a, b) => ((a.id as number) > (b.id as number) ? a : b));
    expect(last.status).toBe('failed');
    // Both generations name the engine as the status does (v1's own words are a Python traceback).
    expect(last.errorMessage).toContain(`The Docker engine (${second.host}) cannot be reached`);
    expect(objectOf(failed).error).toContain(`The Docker engine (${second.host}) cannot be reached`);
    if (compose.generation === 'v2')
      expect(last.errorMessage).toContain(`Cannot connect to the Docker daemon at ${second.host}`);
    else expect(last.errorMessage).toContain('Error while fetching server API version');
    expect(await onEngine('machine')).toEqual([['front', 'running']]);

    const connectedBefore = engineChanges('connected', 1).length;
    await second.up();
    // The container comes back with its engine (restart: unless-stopped), and so does the stack.
    const back = await eventually(
      async () => {
        const stack = await stackOf(1);
        return stack.state === 'running' ? stack : undefined;
      },
      "environment 1's stack to run again",
      60_000,
    );
    expect([back.stateReason, servicesOf(back)]).toEqual([null, [['back', 'running']]]);
    await eventually(
      async () => (engineChanges('connected', 1).length > connectedBefore ? true : undefined),
      "environment 1's engine stream again",
      60_000,
    );
    const engines2 = arrayOf(await admin.get('/api/engines'));
    expect(engines2.find((e) => e.environmentId === 1)).toMatchObject({ reachable: true });
  }, 240_000);

  it('a redeploy of a recorded run asks its own engine for the image: nothing pinned, nothing recreated', async () => {
    const before = ((await stackOf(1)).containers as Json[]).map((c) => [c.name, c.startedAt]);
    const reply = await admin.post(`/api/stacks/${name}/deploys/${edgeRun}/redeploy${q(1)}`);
    expectStatus(reply, 202, "the redeploy of environment 1's run");
    const run = await waitRun(admin, name, objectOf(reply).runId as number, 240_000);
    expect(run).toMatchObject({ status: 'success', environmentId: 1, details: { redeployOf: edgeRun } });
    expect(run.details as Json).not.toHaveProperty('pinnedImages');
    const after = ((await stackOf(1)).containers as Json[]).map((c) => [c.name, c.startedAt]);
    expect(after).toEqual(before);
  }, 240_000);

  it("a redeploy and a down of one environment's stack leave the other's containers as they are", async () => {
    const redeploy = await admin.postJson(`/api/stacks/${name}/deploy${q(1)}`, { forceRecreate: true });
    expectStatus(redeploy, 200, 'the redeploy of environment 1');
    expect(objectOf(redeploy)).toMatchObject({ success: true });
    const front = (await stackOf(null)).containers as Json[];
    await act(1, 'down');
    expect(await onEngine('second')).toEqual([]);
    expect(await onEngine('machine')).toEqual([['front', 'running']]);
    expect((await stackOf(1)).state).toBe('not deployed');
    const local = await stackOf(null);
    expect(local.state).toBe('running');
    // Not recreated either: the same container, started once.
    expect((local.containers as Json[]).map((c) => [c.name, c.startedAt])).toEqual(
      front.map((c) => [c.name, c.startedAt]),
    );
  }, 240_000);
});
