/**
 * Builds and failures on a real Docker engine (docs/stacks.md#on-a-real-docker-engine), black-box over the CLI, on each Compose
 * generation: a build that prints a
 * secret, a pull of an image no registry has, a build step outliving `jobs.timeoutSeconds`, and
 * `kill -9` of chronicle during a real deploy.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  ensureTestImage,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import {
  createStack,
  createStackDone,
  dataOf,
  deployDone,
  ended,
  eventually,
  expectStatus,
  type Json,
  logLines,
  objectOf,
  openSse,
  type StacksServer,
  saveCompose,
  startStacks,
  TOKENS,
  USERS,
  waitJob,
  waitRun,
} from './helpers.js';

const STOPPED_RUN = 'The server stopped before this deploy finished';

/** A build context (a folder with this Dockerfile) outside the stack's folder. */
async function buildContext(dockerfile: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-build-'));
  await writeFile(join(dir, 'Dockerfile'), dockerfile);
  return dir;
}

/** Pids and command lines of the processes whose command line mentions `text`. */
function processesMentioning(text: string): string[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .filter((line) => line.includes(text) && !line.includes('ps -eo'))
    .map((line) => line.trim());
}

const sleeper = `command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`;

describeCompose('stacks on a real Docker engine: builds and failures', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`fail${compose.generation}`);
  const servers: StacksServer[] = [];
  const start = async (config: Json = {}, dataDir?: string) => {
    const server = await startStacks({
      config: { users: [USERS.admin], compose: { command: compose.command }, ...config },
      ...(dataDir === undefined ? {} : { dataDir }),
    });
    servers.push(server);
    return server;
  };
  beforeAll(() => ensureTestImage(), 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await docker.cleanUp();
  }, 120_000);

  it('build: true builds the image (imagesBuilt); a secret the build prints is *** in the job, the log and the SSE stream', async () => {
    const server = await start();
    const admin = server.as('admin');
    const secret = 'tok-7f3a9c-secret';
    // A step of its own (BuildKit would answer a step it ran before with `CACHED`, printing nothing).
    const context = await buildContext(
      `FROM ${TEST_IMAGE}\nARG TOKEN\nRUN echo "token is $TOKEN" && echo ${docker.prefix}-${Date.now()}\nCMD ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]\n`,
    );
    const name = docker.stack('built');
    const compose = `services:\n  app:\n    build:\n      context: ${context}\n      args:\n        TOKEN: \${TOKEN}\n    image: ${docker.image('built')}\n`;
    const ack = await createStack(admin, name, null, {
      compose,
      variables: [{ name: 'TOKEN', value: secret, secret: true }],
      build: true,
    });
    const sse = await openSse(server.port, `/api/jobs/${ack.jobId}/events`, TOKENS.admin);
    const job = await waitJob(admin, ack.jobId, 180_000);
    await ended(sse, 60_000);
    const run = await waitRun(admin, name, ack.runId as number);
    expect(run).toMatchObject({
      status: 'success',
      details: {
        options: { build: true },
        summary: { imagesBuilt: 1, containersCreated: 1, containersStarted: 1 },
      },
    });
    expect((await docker.containers(name)).map((c) => c.State)).toEqual(['running']);

    const jobLines = job.messages.filter((m) => m.type === 'line').map((m) => m.line as string);
    const logged = (await logLines(server.dataDir, null, ack.runId as number)) ?? [];
    const streamed = dataOf(sse)
      .filter((m) => m.type === 'line')
      .map((m) => m.line as string);
    for (const [where, lines] of [
      ['job', jobLines],
      ['log', logged],
      ['stream', streamed],
    ] as const) {
      // v1's classic builder prints the step's output as it is; v2's BuildKit as `#6 0.412 token is ***`.
      expect(
        lines.some((l) => /(?:^|\s)token is \*\*\*$/.test(l)),
        `${where}: ${lines.join('\n')}`,
      ).toBe(true);
      expect(lines.join('\n'), where).not.toContain(secret);
    }
    expect(streamed).toEqual(jobLines);
  }, 300_000);

  it('pull: true of an image no registry has: failed with the exit code and a redacted error; the running stack stays as it was', async () => {
    const server = await start();
    const admin = server.as('admin');
    const generation = compose.generation;
    const name = docker.stack('nopull');
    // A private registry's name is the secret here: compose's error names the registry it could not reach.
    const registry = 'team-secret-registry.invalid';
    const variables = [{ name: 'REGISTRY', value: registry, secret: true }];
    await createStackDone(admin, name, null, {
      compose: `services:\n  web:\n    image: ${TEST_IMAGE}\n    ${sleeper}\n`,
      variables,
    });
    const [before] = await docker.containers(name);
    expect(before?.State).toBe('running');

    await saveCompose(
      admin,
      name,
      null,
      `services:\n  web:\n    image: \${REGISTRY}/app:1\n    ${sleeper}\n`,
    );
    const pulled = await deployDone(admin, name, null, { pull: true });
    const run = await waitRun(admin, name, pulled.runId as number);
    expect(run.status).toBe('failed');
    const exitCode = (run.details as Json).exitCode as number;
    expect(exitCode).toBeGreaterThan(0);
    expect(pulled.job.result).toMatchObject({ success: false, exitCode });
    const error = run.errorMessage as string;
    expect(error).toMatch(new RegExp(`^Compose exited with code ${exitCode}`));
    expect(error).toContain('https://***/v2/');
    expect(error).not.toContain(registry);
    if (generation === 'v1')
      expect(error).toContain("up was not run: the stack's containers are as they were before this deploy");
    // What the engine shows: the container of the last good deploy, still running.
    expect((await docker.containers(name)).map((c) => [c.Id, c.State])).toEqual([[before?.Id, 'running']]);
    const stack = objectOf(await admin.get(`/api/stacks/${name}`));
    expect(stack).toMatchObject({ state: 'running', containers: [{ image: TEST_IMAGE, state: 'running' }] });
  }, 300_000);

  it('jobs.timeoutSeconds during a build step that sleeps: compose and its children killed, the run failed with the reason', async () => {
    const server = await start({ jobs: { timeoutSeconds: 15 } });
    const admin = server.as('admin');
    const context = await buildContext(`FROM ${TEST_IMAGE}\nRUN sleep 300\n`);
    const name = docker.stack('slow');
    const ack = await createStack(admin, name, null, {
      compose: `services:\n  app:\n    build: ${context}\n    image: ${docker.image('slow')}\n`,
      build: true,
    });
    await waitJob(admin, ack.jobId, 180_000);
    const run = await waitRun(admin, name, ack.runId as number);
    expect(run).toMatchObject({ status: 'failed' });
    expect(run.errorMessage).toMatch(/^Timed out after 15 s; compose was stopped/);
    const logged = (await logLines(server.dataDir, null, ack.runId as number)) ?? [];
    expect(
      logged.some((l) => l.includes('RUN sleep 300')),
      logged.join('\n'),
    ).toBe(true);
    // compose, and the docker build it started, are gone (the group is killed after a grace).
    await eventually(
      async () => (processesMentioning(context).length === 0 ? true : undefined),
      `no process of the build left: ${processesMentioning(context).join('; ')}`,
    );
    expect(await docker.containers(name)).toEqual([]);
  }, 300_000);

  it('kill -9 of chronicle during a real deploy: after a restart the run is closed, the stack answers its real state, and a new deploy works', async () => {
    const first = await start();
    const admin = first.as('admin');
    const context = await buildContext(`FROM ${TEST_IMAGE}\nRUN sleep 120\n`);
    const name = docker.stack('crash');
    const ack = await createStack(admin, name, null, {
      compose: `services:\n  app:\n    build: ${context}\n    image: ${docker.image('crash')}\n`,
      build: true,
    });
    // Under way for real: the build step runs.
    await eventually(
      async () => {
        const job = objectOf(await admin.get(`/api/jobs/${ack.jobId}`));
        const lines = (job.messages as Json[]).filter((m) => m.type === 'line').map((m) => m.line as string);
        return lines.some((l) => l.includes('RUN sleep 120')) ? true : undefined;
      },
      'the build step running',
      120_000,
    );
    // compose leads a process group of its own, so it may outlive the server (it may also die of its
    // closed pipes at its next write); either way the restart must leave none of it running.
    await first.kill9();

    const second = await start({}, first.dataDir);
    const again = second.as('admin');
    const closed = await waitRun(again, name, ack.runId as number, 120_000);
    expect(closed.status).toBe('failed');
    expect(closed.errorMessage).toMatch(new RegExp(`^${STOPPED_RUN}`));
    await eventually(
      async () => (processesMentioning(context).length === 0 ? true : undefined),
      'compose stopped',
    );

    // The stack answers what the engine shows (no container was made: the build never ended).
    const stack = objectOf(await again.get(`/api/stacks/${name}`));
    expect(stack).toMatchObject({ state: 'not deployed', stateReason: null, containers: [] });
    expect(await docker.containers(name)).toEqual([]);

    const fixed = await again.put(`/api/stacks/${name}/compose`, {
      content: `services:\n  app:\n    image: ${TEST_IMAGE}\n    ${sleeper}\n`,
      restart: true,
      forceRecreate: false,
    });
    expectStatus(fixed, 202, 'redeploy');
    const redeploy = objectOf(fixed);
    await waitJob(again, redeploy.jobId as string, 120_000);
    expect(await waitRun(again, name, redeploy.runId as number)).toMatchObject({
      status: 'success',
      details: { summary: { containersCreated: 1, containersStarted: 1 } },
    });
    expect(objectOf(await again.get(`/api/stacks/${name}`))).toMatchObject({ state: 'running' });
  }, 300_000);
});
