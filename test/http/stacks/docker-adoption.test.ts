/**
 * Adopting a compose project started by hand, on a real Docker engine with both Compose generations,
 * black-box over the CLI: the project is listed with its folder and files, adopting it makes a stack
 * whose first run is `adopted` (its containers left as they run, its `.env` as secret variables, a
 * relative bind mount kept on the project's own data), the stack then deploys like any other; only
 * admins may list or adopt, and a project whose files are gone is refused with nothing made.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  ensureTestImage,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import {
  arrayOf,
  expectStatus,
  type Json,
  objectOf,
  q,
  type StacksClient,
  type StacksServer,
  startStacks,
  USERS,
} from './helpers.js';

const COMPOSE = [
  '# started by hand',
  'services:',
  '  web:',
  `    image: ${TEST_IMAGE}`,
  '    environment:',
  `      GREETING: \${GREETING}`,
  `    command: ["sh", "-c", "echo $$GREETING > /data/greeting; trap 'exit 0' TERM; sleep 3600 & wait"]`,
  '    volumes:',
  '      - ./data:/data',
  '',
].join('\n');

/** Runs the generation's compose in `dir` as a person would in a terminal. */
function composeBy(compose: ComposeUnderTest, dir: string, project: string, ...args: string[]): void {
  const [program, ...prefix] = compose.command as [string, ...string[]];
  const r = spawnSync(program, [...prefix, '--project-name', project, ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`${compose.command.join(' ')} ${args.join(' ')}: ${r.stderr}`);
}

const inContainer = (container: string, ...command: string[]) =>
  spawnSync('docker', ['exec', container, ...command], { encoding: 'utf8', timeout: 60_000 }).stdout.trim();

describeCompose('adopting a compose project on a real Docker engine', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`adopt${compose.generation}`);
  const name = docker.stack('byhand');
  const gone = docker.stack('gone');
  let server: StacksServer;
  let admin: StacksClient;
  let dir = '';

  beforeAll(async () => {
    await ensureTestImage();
    dir = await tempDir();
    await mkdir(join(dir, 'project', 'data'), { recursive: true });
    await writeFile(join(dir, 'project', 'compose.yaml'), COMPOSE);
    await writeFile(join(dir, 'project', '.env'), 'GREETING=bonjour-adopted\nCOMPOSE_PROJECT_NAME=other\n');
    composeBy(compose, join(dir, 'project'), name, 'up', '-d');
    await mkdir(join(dir, 'gone'));
    await writeFile(join(dir, 'gone', 'compose.yaml'), COMPOSE.replace('./data', './d'));
    await writeFile(join(dir, 'gone', '.env'), 'GREETING=x-gone-value\n');
    composeBy(compose, join(dir, 'gone'), gone, 'up', '-d');
    await rm(join(dir, 'gone', 'compose.yaml'));
    server = await startStacks({
      config: { users: [USERS.admin, USERS.viewer], compose: { command: compose.command } },
    });
    admin = server.as('admin');
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    await docker.cleanUp();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  }, 120_000);

  const projectOf = async (project: string) =>
    arrayOf(await admin.get(`/api/engines/projects${q(null)}`)).find((p) => (p as Json).name === project) as
      | Json
      | undefined;

  it('lists a project started by hand, with its folder, files and containers; to admins only', async () => {
    const listed = await projectOf(name);
    expect(listed).toMatchObject({
      name,
      workingDir: join(dir, 'project'),
      configFiles: [join(dir, 'project', 'compose.yaml')],
      services: ['web'],
      running: 1,
    });
    expect(((listed?.containers ?? []) as Json[]).map((c) => [c.service, c.state])).toEqual([
      ['web', 'running'],
    ]);
    const viewer = server.as('viewer');
    expectStatus(await viewer.get(`/api/engines/projects${q(null)}`), 403);
    expectStatus(await viewer.post(`/api/engines/projects/${name}/adopt${q(null)}`, {}), 403);
    expect(await projectOf(name)).toBeDefined();
  });

  it('refuses a project whose compose file is gone, and makes nothing', async () => {
    const reply = await admin.post(`/api/engines/projects/${gone}/adopt${q(null)}`, {});
    expectStatus(reply, 422);
    expect(objectOf(reply).error).toContain(`${join(dir, 'gone', 'compose.yaml')} cannot be read`);
    expectStatus(await admin.get(`/api/stacks/${gone}${q(null)}`), 404);
    expect(await projectOf(gone)).toBeDefined();
  });

  it('adopts it: a stack whose first run is `adopted`, its containers left as they run', async () => {
    const before = (await docker.containers(name)).map((c) => c.Id);
    const reply = await admin.post(`/api/engines/projects/${name}/adopt${q(null)}`, {});
    expectStatus(reply, 201);
    const answer = objectOf(reply);
    // The file names a relative bind mount: compose merged it, the mount made absolute in the project.
    expect(answer).toMatchObject({ stack: name, environmentId: null, merged: true });
    expect(answer.warnings).toEqual([expect.stringContaining('COMPOSE_PROJECT_NAME')]);
    expect(await projectOf(name)).toBeUndefined();

    const stack = objectOf(await admin.get(`/api/stacks/${name}${q(null)}`));
    expect(stack.state).toBe('running');
    expect(stack.variables).toEqual([{ name: 'GREETING', secret: true, value: null }]);
    expect(stack.compose).toContain(join(dir, 'project', 'data'));
    expect(stack.compose).toContain(`\${GREETING}`);
    const runs = arrayOf(await admin.get(`/api/stacks/${name}/deploys${q(null)}`));
    expect(runs.map((r) => [(r as Json).status, (r as Json).trigger])).toEqual([['adopted', 'manual']]);
    const runId = (runs[0] as Json).id as number;
    const log = (await admin.get(`/api/stacks/${name}/deploys/${runId}/log${q(null)}`)).text;
    expect(log.split('\n')[0]).toBe(
      `Adopted the compose project ${name}, started from ${join(dir, 'project')} (${join(dir, 'project', 'compose.yaml')})`,
    );
    expect(log).toContain('GREETING');
    expect(log).not.toContain('bonjour-adopted');
    expect((await docker.containers(name)).map((c) => c.Id)).toEqual(before);
    // What it deployed is recorded, as for any run.
    const deployed = objectOf(await admin.get(`/api/stacks/${name}/deploys/${runId}/compose${q(null)}`));
    expect(deployed.compose).toBe(stack.compose);
    expectStatus(await admin.post(`/api/engines/projects/${name}/adopt${q(null)}`, {}), 409);
  });

  it('then deploys and stops like any stack, on the project’s own data', async () => {
    const deployed = objectOf(await admin.postJson(`/api/stacks/${name}/deploy${q(null)}`, {}));
    expect(deployed.success).toBe(true);
    const [container] = await docker.containers(name);
    expect(container?.State).toBe('running');
    const id = container?.Id as string;
    expect(inContainer(id, 'cat', '/data/greeting')).toBe('bonjour-adopted');
    const runs = arrayOf(await admin.get(`/api/stacks/${name}/deploys${q(null)}`));
    expect(runs.map((r) => (r as Json).status)).toEqual(['success', 'adopted']);
    expect(objectOf(await admin.postJson(`/api/stacks/${name}/stop${q(null)}`, {})).success).toBe(true);
    expect(objectOf(await admin.get(`/api/stacks/${name}${q(null)}`)).state).toBe('stopped');
  });
});
