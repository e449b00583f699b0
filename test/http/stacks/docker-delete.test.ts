/**
 * Deleting a stack on a real Docker engine, on both Compose generations, black-box over the CLI: while
 * the engine has containers of the stack, DELETE is 409 and nothing changes; `down=true` runs `down` as
 * a job (its output kept) and then deletes, leaving no container or network of the project;
 * `keepContainers=true` deletes the files and leaves the containers running; a stack whose containers
 * are gone deletes as before.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  ensureTestImage,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import {
  createStackDone,
  type Json,
  objectOf,
  type StacksServer,
  startStacks,
  USERS,
  waitJob,
} from './helpers.js';

const COMPOSE = [
  'services:',
  '  web:',
  `    image: ${TEST_IMAGE}`,
  `    command: ["sh", "-c", "echo up; trap 'exit 0' TERM; sleep 3600 & wait"]`,
  '',
].join('\n');

describeCompose('deleting a stack on a real Docker engine', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`del${compose.generation}`);
  let server: StacksServer;

  beforeAll(async () => {
    await ensureTestImage();
    server = await startStacks({ config: { users: [USERS.admin], compose: { command: compose.command } } });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await docker.cleanUp();
  }, 120_000);

  const networksOf = async (project: string) =>
    engine.listNetworks({ filters: { label: [`com.docker.compose.project=${project}`] } });

  it('is 409 while the engine has containers of the stack, and changes nothing', async () => {
    const name = docker.stack('kept');
    await createStackDone(server.as('admin'), name, null, { compose: COMPOSE });
    expect((await docker.containers(name)).length).toBe(1);
    const reply = await server.as('admin').del(`/api/stacks/${name}?env=null`);
    expect([reply.status, reply.value]).toEqual([
      409,
      {
        error:
          'The engine has 1 container of this stack: delete with down=true to remove it first, or keepContainers=true to leave it running',
      },
    ]);
    expect((await server.as('admin').get(`/api/stacks/${name}?env=null`)).status).toBe(200);
    expect((await docker.containers(name)).map((c) => c.State)).toEqual(['running']);
  });

  it('down=true runs down as a job, then deletes: no container or network of the project is left', async () => {
    const name = docker.stack('gone');
    await createStackDone(server.as('admin'), name, null, { compose: COMPOSE });
    expect((await networksOf(name)).length).toBe(1);
    const reply = await server
      .as('admin')
      .del(`/api/stacks/${name}?env=null&down=true`, { timeoutMs: 120_000 });
    expect(reply.status).toBe(200);
    const answer = objectOf(reply);
    expect(answer).toEqual({ deleted: true, jobId: expect.any(String) });
    expect((await server.as('admin').get(`/api/stacks/${name}?env=null`)).status).toBe(404);
    expect(await docker.containers(name)).toEqual([]);
    expect(await networksOf(name)).toEqual([]);
    // The down's output is kept as any job's.
    const job = await waitJob(server.as('admin'), String(answer.jobId));
    expect(job.result).toMatchObject({ success: true });
    expect(JSON.stringify(job.messages)).toMatch(/Remov/);
  });

  it('keepContainers=true deletes the files and leaves the containers running', async () => {
    const name = docker.stack('orphan');
    await createStackDone(server.as('admin'), name, null, { compose: COMPOSE });
    const reply = await server.as('admin').del(`/api/stacks/${name}?env=null&keepContainers=true`);
    expect([reply.status, reply.value]).toEqual([200, { deleted: true }]);
    expect((await server.as('admin').get(`/api/stacks/${name}?env=null`)).status).toBe(404);
    expect((await docker.containers(name)).map((c) => c.State)).toEqual(['running']);
  });

  it('a stack whose containers are gone (after Down) deletes without a switch', async () => {
    const name = docker.stack('downed');
    await createStackDone(server.as('admin'), name, null, { compose: COMPOSE });
    const down = (await server.as('admin').postJson(`/api/stacks/${name}/down?env=null`)).value as Json;
    expect(down.success).toBe(true);
    expect(await docker.containers(name)).toEqual([]);
    const reply = await server.as('admin').del(`/api/stacks/${name}?env=null`);
    expect([reply.status, reply.value]).toEqual([200, { deleted: true }]);
  });
});
