/**
 * Every stack operation on a real Docker engine (docs/stacks.md#on-a-real-docker-engine), black-box over the CLI, on each Compose
 * generation (`compose.command` picks it; test/docker-helpers.ts), and once with no compose.command,
 * where chronicle finds the compose of the machine itself. What each run records and what the API
 * answers is checked against what the engine shows.
 */
import { beforeAll, expect, it } from 'vitest';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  describeDocker,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import {
  arrayOf,
  createStack,
  createStackDone,
  deployDone,
  expectStatus,
  type Json,
  objectOf,
  type StacksClient,
  saveCompose,
  serveEngineStacks,
  USERS,
  waitJob,
  waitRun,
  withStacks,
} from './helpers.js';

/**
 * A stack of the test image's shell sleeping `seconds`; it exits on SIGTERM (a bare `sleep` as PID 1
 * would not, and every stop would wait out compose's 10 s grace).
 */
const sleeper = (seconds: number, services: readonly string[] = ['web']) =>
  `services:\n${services
    .map(
      (s) =>
        `  ${s}:\n    image: ${TEST_IMAGE}\n    command: ["sh", "-c", "trap 'exit 0' TERM; sleep ${seconds} & wait"]\n`,
    )
    .join('')}`;

describeDocker('stacks on a real Docker engine: the compose found', () => {
  it('says which compose runs the stacks on standard error (no compose.command: found at start)', async () => {
    await withStacks({ config: { users: [USERS.admin] } }, async (server) => {
      expect(server.stderr()).toMatch(
        /^stacks compose: (docker compose|docker-compose) \d+\.\d+\.\d+\S* \(v[12], detected\)$/m,
      );
    });
  });
});

describeCompose('stacks on a real Docker engine: operations', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`ops${compose.generation}`);
  const suite = serveEngineStacks(compose.command, () => docker.cleanUp());
  let admin: StacksClient;
  beforeAll(() => {
    admin = suite.admin;
  });

  const stackOf = async (name: string): Promise<Json> => {
    const reply = await admin.get(`/api/stacks/${name}`);
    expectStatus(reply, 200, `GET /api/stacks/${name}`);
    return objectOf(reply);
  };
  const engineState = async (name: string) =>
    (await docker.containers(name))
      .map((c) => ({ id: c.Id, state: c.State }))
      .sort((a, b) => a.id.localeCompare(b.id));
  const operate = async (name: string, op: string) => {
    const reply = await admin.post(`/api/stacks/${name}/${op}`, {});
    expectStatus(reply, 202, op);
    const job = await waitJob(admin, objectOf(reply).jobId as string, 120_000);
    expect(job.result, op).toMatchObject({ success: true, exitCode: 0 });
  };

  it('create-and-start, redeploys, stop, start, restart and down, as the engine shows them', async () => {
    const name = docker.stack('web');
    const created = await createStackDone(admin, name, null, { compose: sleeper(3600) });
    const first = await waitRun(admin, name, created.runId as number);
    expect(first).toMatchObject({
      status: 'success',
      errorMessage: null,
      details: {
        exitCode: 0,
        summary: { containersCreated: 1, containersStarted: 1, containersRecreated: 0, containersRemoved: 0 },
      },
    });
    const [up] = await docker.containers(name);
    expect(up?.State).toBe('running');

    // The stack answers what the engine shows.
    const stack = await stackOf(name);
    expect(stack).toMatchObject({ name, state: 'running', stateReason: null });
    expect(stack.containers).toEqual([
      {
        service: 'web',
        name: up?.Names[0]?.slice(1),
        state: 'running',
        health: null,
        exitCode: null,
        image: TEST_IMAGE,
        imageId: up?.ImageID,
        imageDigest: null,
        ports: [],
        startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        finishedAt: null,
        restartCount: 0,
      },
    ]);
    const listed = arrayOf(await admin.get('/api/stacks')).find((s) => s.name === name);
    expect(listed).toMatchObject({ state: 'running', stateReason: null, containers: stack.containers });

    // A changed compose file recreates the container.
    await saveCompose(admin, name, null, sleeper(3601));
    const changed = await deployDone(admin, name, null);
    expect(await waitRun(admin, name, changed.runId as number)).toMatchObject({
      status: 'success',
      details: { summary: { containersCreated: 0, containersRecreated: 1, containersStarted: 1 } },
    });
    const [recreated] = await docker.containers(name);
    expect(recreated?.Id).not.toBe(up?.Id);
    expect(recreated?.State).toBe('running');

    // Unchanged: left as it is; with forceRecreate: recreated anyway.
    const same = await deployDone(admin, name, null);
    expect(await waitRun(admin, name, same.runId as number)).toMatchObject({
      status: 'success',
      details: { summary: { containersCreated: 0, containersRecreated: 0, containersStarted: 0 } },
    });
    expect((await docker.containers(name))[0]?.Id).toBe(recreated?.Id);
    const forced = await deployDone(admin, name, null, { forceRecreate: true });
    expect(await waitRun(admin, name, forced.runId as number)).toMatchObject({
      status: 'success',
      details: {
        options: { forceRecreate: true },
        summary: { containersRecreated: 1, containersStarted: 1 },
      },
    });
    const [again] = await docker.containers(name);
    expect(again?.Id).not.toBe(recreated?.Id);

    await operate(name, 'stop');
    expect(await engineState(name)).toEqual([{ id: again?.Id, state: 'exited' }]);
    // Stopped by compose: its program ended on SIGTERM with 0.
    expect(await stackOf(name)).toMatchObject({
      state: 'stopped',
      containers: [{ state: 'exited', exitCode: 0, finishedAt: expect.stringMatching(/^\d{4}-/) }],
    });

    await operate(name, 'start');
    expect(await engineState(name)).toEqual([{ id: again?.Id, state: 'running' }]);
    const started = (await stackOf(name)) as { state: string; containers: Array<{ startedAt: string }> };
    expect(started.state).toBe('running');

    await operate(name, 'restart');
    expect(await engineState(name)).toEqual([{ id: again?.Id, state: 'running' }]);
    const restarted = (await stackOf(name)) as { containers: Array<{ startedAt: string }> };
    expect(Date.parse(restarted.containers[0]?.startedAt ?? '')).toBeGreaterThan(
      Date.parse(started.containers[0]?.startedAt ?? ''),
    );

    await operate(name, 'down');
    expect(await engineState(name)).toEqual([]);
    expect(await stackOf(name)).toMatchObject({ state: 'not deployed', stateReason: null, containers: [] });
  }, 300_000);

  it('a stack with one of two services stopped is partial', async () => {
    const name = docker.stack('pair');
    await createStackDone(admin, name, null, { compose: sleeper(3600, ['web', 'worker']) });
    const worker = (await docker.containers(name)).find(
      (c) => c.Labels['com.docker.compose.service'] === 'worker',
    );
    await docker.stopContainer(worker?.Id as string);
    const stack = await stackOf(name);
    expect(stack.state).toBe('partial');
    expect((stack.containers as Json[]).map((c) => [c.service, c.state])).toEqual([
      ['web', 'running'],
      ['worker', 'exited'],
    ]);
  }, 180_000);

  it('two stacks deploying at once, and 20 deploys in a row of one stack: every run recorded, in order', async () => {
    const [a, b] = [docker.stack('twin-a'), docker.stack('twin-b')];
    const acks = await Promise.all([
      createStack(admin, a, null, { compose: sleeper(3600) }),
      createStack(admin, b, null, { compose: sleeper(3600) }),
    ]);
    const jobs = await Promise.all(acks.map((ack) => waitJob(admin, ack.jobId, 120_000)));
    for (const job of jobs) expect(job.result).toMatchObject({ success: true });
    for (const [name, ack] of [
      [a, acks[0]],
      [b, acks[1]],
    ] as const) {
      expect(await waitRun(admin, name, ack?.runId as number)).toMatchObject({
        status: 'success',
        details: { summary: { containersCreated: 1, containersStarted: 1 } },
      });
      expect((await engineState(name)).map((c) => c.state)).toEqual(['running']);
    }

    const runIds: number[] = [acks[0]?.runId as number];
    for (let i = 0; i < 20; i++) {
      const deployed = await deployDone(admin, a, null, { forceRecreate: i % 5 === 0 });
      expect(deployed.job.result, `deploy ${i}`).toMatchObject({ success: true, exitCode: 0 });
      runIds.push(deployed.runId as number);
    }
    const runs = arrayOf(await admin.get(`/api/stacks/${a}/deploys`));
    expect(runs.map((r) => r.id)).toEqual([...runIds].reverse());
    expect(runs.every((r) => r.status === 'success')).toBe(true);
    expect((await engineState(a)).map((c) => c.state)).toEqual(['running']);
  }, 600_000);
});
