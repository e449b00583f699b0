/**
 * The attacks of a user holding `edit` on environment 1 against the other environments and the server,
 * on a real Docker engine with each Compose generation (docs/security.md#what-an-edit-grant-can-reach): a build context in
 * environment 2's stack whose `.env` becomes the Dockerfile (BuildKit and the classic builder both
 * quote its first line as an unknown instruction, so the run log held the password), the same through
 * a compose save, a file changed on disk behind chronicle's back, a symbolic link made by the user's own
 * container, a git repository reaching the stack's `git.json`, bind mounts of `/`, and privileged
 * containers. Each must be refused before compose runs; admins' stacks are not checked.
 */
import { lstat, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import {
  createStackDone,
  deployDone,
  eventually,
  expectStatus,
  type Json,
  objectOf,
  q,
  type StacksClient,
  serveEngineStacks,
  stackDir,
  USERS,
  waitJob,
  waitRun,
} from './helpers.js';

const LOCAL_ENGINE = 'unix:///var/run/docker.sock';
const PASSWORD = 'prod-db-password-4f1c9e';
const SLEEP = `["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`;

describeCompose('stacks security on a real engine', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`sec${compose.generation}`);
  let allowed: string;
  const suite = serveEngineStacks(compose.command, () => docker.cleanUp(), {
    environments: [
      // The folder bind mounts may come from is made before the server starts (beforeAll below).
      {
        id: 1,
        name: 'edge',
        dockerHost: LOCAL_ENGINE,
        security: { bindMounts: ['/tmp/chronicle-sec-allowed'] },
      },
      { id: 2, name: 'core', dockerHost: LOCAL_ENGINE },
    ],
    users: [USERS.admin, USERS.editor1],
  });
  const admin = (): StacksClient => suite.admin;
  const editor = (): StacksClient => suite.server.as('editor1');
  const prod = docker.stack('prod');

  beforeAll(async () => {
    allowed = '/tmp/chronicle-sec-allowed';
    await mkdir(allowed, { recursive: true });
    await writeFile(join(allowed, 'shared.txt'), 'shared\n');
    // Environment 2's production stack, with its password in its .env.
    const made = await createStackDone(admin(), prod, 2, {
      compose: `services:\n  db:\n    image: ${TEST_IMAGE}\n    command: ${SLEEP}\n`,
      variables: [{ name: 'DB_PASSWORD', value: PASSWORD, secret: true }],
    });
    await succeeded(admin(), prod, made.runId);
  }, 240_000);

  /** The attack: environment 2's `.env` as the Dockerfile of a build in its folder. */
  const thief = (context: string) =>
    `services:\n  web:\n    image: ${docker.image('thief')}\n    build:\n      context: ${context}\n      dockerfile: .env\n`;
  const refusedContext = (context: string) =>
    `The compose file breaks the security settings of environment 1: services.web.build.context: ${context} leaves the stack's folder (security.composePaths); services.web.build.dockerfile: .env leaves the stack's folder (security.composePaths)`;

  const succeeded = async (client: StacksClient, name: string, runId: number | null) => {
    const run = await waitRun(client, name, runId as number, 120_000);
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'success' });
  };

  /** Nothing of environment 2's password in anything environment 1's users can read. */
  const expectNoLeak = async (name: string, runId: number | null) => {
    if (runId !== null) {
      const log = await editor().get(`/api/stacks/${name}/deploys/${runId}/log${q(1)}`);
      expect(log.text).not.toContain(PASSWORD);
      expect(
        JSON.stringify(objectOf(await editor().get(`/api/stacks/${name}/deploys/${runId}`))),
      ).not.toContain(PASSWORD);
    }
    const images = await engine.listImages();
    expect(images.some((i) => (i.RepoTags ?? []).includes(docker.image('thief')))).toBe(false);
  };

  it("create: a build context in another environment's stack is refused with 400; nothing is made", async () => {
    const name = docker.stack('thief');
    const reply = await editor().post(`/api/stacks${q(1)}`, {
      name,
      compose: thief(`../../2/${prod}`),
      build: true,
    });
    expectStatus(reply, 400, 'create');
    expect(objectOf(reply).error).toBe(refusedContext(`../../2/${prod}`));
    expectStatus(await editor().get(`/api/stacks/${name}${q(1)}`), 404);
    await expectNoLeak(name, null);
  });

  it('compose save refuses it, keeping the file; a file changed on disk fails the deploy before compose runs', async () => {
    const name = docker.stack('saved');
    const benign = `services:\n  web:\n    image: ${TEST_IMAGE}\n    command: ${SLEEP}\n`;
    const made = await createStackDone(editor(), name, 1, { compose: benign });
    await succeeded(editor(), name, made.runId);
    const reply = await editor().put(`/api/stacks/${name}/compose${q(1)}`, {
      content: thief(`../../2/${prod}`),
      restart: true,
      build: true,
    });
    expectStatus(reply, 400, 'compose save');
    expect(objectOf(reply).error).toBe(refusedContext(`../../2/${prod}`));
    expect(objectOf(await editor().get(`/api/stacks/${name}${q(1)}`)).compose).toBe(benign);

    // The same text written into the folder by something else than chronicle.
    await writeFile(join(stackDir(suite.server.dataDir, 1, name), 'compose.yaml'), thief(`../../2/${prod}`));
    const { runId, job } = await deployDone(editor(), name, 1, { build: true });
    const run = await waitRun(editor(), name, runId as number, 120_000);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toBe(
      `${refusedContext(`../../2/${prod}`)} (checked because its compose file was changed outside chronicle)`,
    );
    expect(JSON.stringify(job).toLowerCase()).not.toContain(PASSWORD);
    await expectNoLeak(name, runId);
  }, 240_000);

  it("a symbolic link the stack's own container made is followed to where it leads", async () => {
    const name = docker.stack('linker');
    const target = join(suite.server.dataDir, 'stacks', '2', prod);
    const made = await createStackDone(editor(), name, 1, {
      compose: `services:\n  web:\n    image: ${TEST_IMAGE}\n    restart: "no"\n    volumes: ["./work:/work"]\n    command: ["/bin/busybox", "ln", "-s", "${target}", "/work/ctx"]\n`,
    });
    await succeeded(editor(), name, made.runId);
    const link = join(stackDir(suite.server.dataDir, 1, name), 'work', 'ctx');
    await eventually(
      async () => ((await lstat(link).catch(() => undefined))?.isSymbolicLink() ? true : undefined),
      'the link the container makes',
      60_000,
    );
    const reply = await editor().put(`/api/stacks/${name}/compose${q(1)}`, {
      content: thief('./work/ctx'),
      restart: true,
      build: true,
    });
    expectStatus(reply, 400, 'compose save');
    expect(objectOf(reply).error).toBe(refusedContext('./work/ctx'));
    await expectNoLeak(name, null);
  }, 240_000);

  it("a git repository cannot reach the stack's folder (git.json: credentials and webhook secret)", async () => {
    const repo = await makeRepo(await tempDir(), {
      'deploy/compose.yaml': `services:\n  web:\n    image: ${docker.image('thief')}\n    build:\n      context: ../..\n      dockerfile: git.json\n`,
    });
    const name = docker.stack('gitthief');
    const reply = await editor().post(`/api/git-stacks${q(1)}`, {
      name,
      repository: repo.bare,
      branch: 'main',
      composePath: 'deploy/compose.yaml',
      webhookSecret: 'webhook-secret-of-the-stack',
      deploy: true,
    });
    expectStatus(reply, 400, 'git create');
    expect(objectOf(reply).error).toBe(
      "The compose file breaks the security settings of environment 1: services.web.build.context: ../.. leaves the stack's folder (security.composePaths); services.web.build.dockerfile: git.json leaves the stack's folder (security.composePaths)",
    );
    expectStatus(await editor().get(`/api/stacks/${name}${q(1)}`), 404);

    // A clean first commit, then one that reaches out: the sync fails its run and keeps the old file.
    const clean = `services:\n  web:\n    image: ${TEST_IMAGE}\n    command: ${SLEEP}\n`;
    await repo.commit({ 'deploy/compose.yaml': clean });
    const created = await editor().post(`/api/git-stacks${q(1)}`, {
      name,
      repository: repo.bare,
      branch: 'main',
      composePath: 'deploy/compose.yaml',
    });
    expectStatus(created, 201, 'git create');
    await repo.commit({
      'deploy/compose.yaml': `services:\n  web:\n    image: ${docker.image('thief')}\n    build:\n      context: ../..\n      dockerfile: git.json\n`,
    });
    const synced = await editor().post(`/api/git-stacks/${name}/deploy${q(1)}`, {});
    expectStatus(synced, 202, 'git deploy');
    const ack = objectOf(synced) as Json;
    await waitJob(editor(), ack.jobId as string, 240_000);
    const run = await waitRun(editor(), name, ack.runId as number, 60_000);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toMatch(
      /^The compose file breaks the security settings of environment 1: services\.web\.build\.context: \.\.\/\.\. leaves the stack's folder \(security\.composePaths\); .* \(checked because its git settings were last written by editor1\)$/,
    );
    expect(objectOf(await editor().get(`/api/stacks/${name}${q(1)}`)).compose).toBe(clean);
    // Compose never ran: nothing was built from the stack's folder.
    await expectNoLeak(name, ack.runId as number);
  }, 480_000);

  it('bind mounts: `/` and the data folder never; a listed folder is mounted for real', async () => {
    for (const source of ['/', suite.server.dataDir, '/etc']) {
      const reply = await editor().post(`/api/stacks${q(1)}`, {
        name: docker.stack('binder'),
        compose: `services:\n  web:\n    image: ${TEST_IMAGE}\n    volumes: ["${source}:/host"]\n`,
      });
      expectStatus(reply, 400, source);
      expect(objectOf(reply).error).toMatch(/services\.web\.volumes\[0\]: .* \(security\.bindMounts/);
    }
    const name = docker.stack('shared');
    const made = await createStackDone(editor(), name, 1, {
      compose: `services:\n  web:\n    image: ${TEST_IMAGE}\n    volumes: ["${allowed}:/shared:ro"]\n    command: ${SLEEP}\n`,
    });
    await succeeded(editor(), name, made.runId);
    const [container] = await docker.containers(name);
    const info = await engine.getContainer(container?.Id as string).inspect();
    expect(info.HostConfig.Binds).toEqual([`${allowed}:/shared:ro`]);
  }, 240_000);

  it("privileged and cap_add: refused for the editor; an admin's stack gets them, and the editor may redeploy it unchanged", async () => {
    const privileged = `services:\n  web:\n    image: ${TEST_IMAGE}\n    privileged: true\n    command: ${SLEEP}\n`;
    const reply = await editor().post(`/api/stacks${q(1)}`, {
      name: docker.stack('priv'),
      compose: privileged,
    });
    expectStatus(reply, 400);
    expect(objectOf(reply).error).toBe(
      'The compose file breaks the security settings of environment 1: services.web.privileged: true gives the container the host: privileged containers are not allowed (security.privileged)',
    );
    // (This engine cannot start privileged containers at all: the admin's stack adds a capability.)
    const capable = `services:\n  web:\n    image: ${TEST_IMAGE}\n    cap_add: [NET_ADMIN]\n    command: ${SLEEP}\n`;
    const refused = await editor().post(`/api/stacks${q(1)}`, {
      name: docker.stack('cap'),
      compose: capable,
    });
    expectStatus(refused, 400);
    expect(objectOf(refused).error).toMatch(
      /services\.web\.cap_add: \["NET_ADMIN"\] adds kernel capabilities: not allowed \(security\.capAdd\)$/,
    );
    const name = docker.stack('admincap');
    const made = await createStackDone(admin(), name, 1, { compose: capable });
    await succeeded(admin(), name, made.runId);
    const [container] = await docker.containers(name);
    expect((await engine.getContainer(container?.Id as string).inspect()).HostConfig.CapAdd).toEqual([
      'NET_ADMIN',
    ]);
    // The admin wrote every part: the editor's deploy is not checked.
    const again = await deployDone(editor(), name, 1, { forceRecreate: true });
    await succeeded(editor(), name, again.runId);
    // Variables the editor sets would make it the editor's: refused while the file adds capabilities.
    const vars = await editor().put(`/api/stacks/${name}/variables${q(1)}`, {
      variables: [{ name: 'X', value: 'y', secret: false }],
    });
    expectStatus(vars, 400);
    expect(objectOf(vars).error).toMatch(/services\.web\.cap_add: .* \(security\.capAdd\)$/);
  }, 240_000);
});
