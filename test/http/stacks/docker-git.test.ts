/**
 * Git stacks of a real compose project on a real Docker engine, on both Compose generations: a
 * repository laid out as users have them (`deploy/compose.yaml` beside `deploy/app.env`, the project's
 * `deploy/.env` and a build context `deploy/app/`), pushed to a bare repository this test makes. Compose
 * must run in the checked-out tree, the folder of `composePath` its project directory: `env_file`, the
 * repository's `.env` and `build: ./app` all resolve there, and the stack's own variables win over the
 * repository's `.env`. What the container got is read from the engine.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, expect, it } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import { makeRepo, type TestRepo } from '../../stacks/git-repo.js';
import {
  expectStatus,
  type Json,
  objectOf,
  q,
  type StacksClient,
  serveEngineStacks,
  waitJob,
  waitRun,
} from './helpers.js';

const SLEEP = `["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`;

/** The environment the engine gave a container, as a map. */
async function containerEnv(id: string): Promise<Map<string, string>> {
  const info = await engine.getContainer(id).inspect();
  return new Map(
    (info.Config.Env ?? []).map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1)] as const;
    }),
  );
}

/** A file's text inside a running container. */
function catIn(id: string, path: string): string {
  const r = spawnSync('docker', ['exec', id, 'cat', path], { encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 ? r.stdout : `(cat failed: ${r.stderr.trim()})`;
}

describeCompose('git stacks of a real compose project', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`git${compose.generation}`);
  let repo: TestRepo & { first: string };
  const project = (image: string, marker: string): Record<string, string> => ({
    'deploy/compose.yaml': [
      'services:',
      '  app:',
      '    build: ./app',
      `    image: ${image}`,
      '    env_file: app.env',
      '    environment:',
      `      GREETING: \${GREETING:-unset}`,
      `      MODE: \${MODE:-unset}`,
      `    command: ${SLEEP}`,
      '',
    ].join('\n'),
    'deploy/compose.prod.yaml': [
      'services:',
      '  app:',
      '    environment:',
      '      MODE: production-override',
      '  extra:',
      `    image: ${TEST_IMAGE}`,
      `    command: ${SLEEP}`,
      '',
    ].join('\n'),
    'deploy/app.env': 'APP_COLOR=blue\n',
    'deploy/.env': 'GREETING=hello-from-the-repository\nMODE=from-the-repository\n',
    'deploy/app/Dockerfile': `FROM ${TEST_IMAGE}\nCOPY marker.txt /marker.txt\nRUN ["sh", "-c", "echo built > /built.txt"]\n`,
    'deploy/app/marker.txt': `${marker}\n`,
    'README.md': 'an application\n',
  });

  const suite = serveEngineStacks(compose.command, () => docker.cleanUp());
  beforeAll(async () => {
    repo = await makeRepo(await tempDir(), project(docker.image('app'), 'first commit'));
  });

  const admin = (): StacksClient => suite.admin;
  const deployed = async (reply: Awaited<ReturnType<StacksClient['post']>>, name: string): Promise<Json> => {
    expectStatus(reply, 202, 'git deploy');
    const ack = objectOf(reply);
    const job = await waitJob(admin(), ack.jobId as string, 240_000);
    const run = await waitRun(admin(), name, ack.runId as number, 60_000);
    return { ...run, job };
  };

  it('create-and-deploy runs compose in the checked-out tree: env_file, the repository .env, build: ./app; the stack variables win', async () => {
    const name = docker.stack('web');
    const run = await deployed(
      await admin().post(`/api/git-stacks${q(null)}`, {
        name,
        repository: repo.bare,
        branch: 'main',
        composePath: 'deploy/compose.yaml',
        variables: [{ name: 'MODE', value: 'from-the-stack', secret: false }],
        deploy: true,
      }),
      name,
    );
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'success', errorMessage: null });
    const containers = await docker.containers(name);
    expect(containers.map((c) => [c.Labels['com.docker.compose.service'], c.State])).toEqual([
      ['app', 'running'],
    ]);
    const id = containers[0]?.Id as string;
    const env = await containerEnv(id);
    expect(env.get('APP_COLOR')).toBe('blue');
    expect(env.get('GREETING')).toBe('hello-from-the-repository');
    expect(env.get('MODE')).toBe('from-the-stack');
    expect(catIn(id, '/marker.txt')).toBe('first commit\n');
    expect(catIn(id, '/built.txt')).toBe('built\n');

    // A new commit changes the build context: a git deploy checks it out and compose builds from it.
    await repo.commit({ 'deploy/app/marker.txt': 'second commit\n', 'deploy/app.env': 'APP_COLOR=green\n' });
    const again = await deployed(await admin().post(`/api/git-stacks/${name}/deploy${q(null)}`, {}), name);
    expect(again, JSON.stringify(again)).toMatchObject({ status: 'success' });
    // Not rebuilt by itself (the image exists): the env_file change recreates the container.
    const [next] = await docker.containers(name);
    expect(next?.State).toBe('running');
    expect((await containerEnv(next?.Id as string)).get('APP_COLOR')).toBe('green');

    // A redeploy of the first run checks its commit out again: its app.env is back.
    const back = await deployed(
      await admin().post(`/api/stacks/${name}/deploys/${run.id as number}/redeploy${q(null)}`, {}),
      name,
    );
    expect(back, JSON.stringify(back)).toMatchObject({
      status: 'success',
      details: { redeployOf: run.id, commit: repo.first },
    });
    const [again1] = await docker.containers(name);
    expect((await containerEnv(again1?.Id as string)).get('APP_COLOR')).toBe('blue');

    // Stop and down read the project from the tree too (v1 loads the env_file even for down).
    for (const op of ['stop', 'down']) {
      const reply = await admin().post(
        `/api/stacks/${name}/${op}`,
        {},
        { headers: { Accept: 'application/json' }, timeoutMs: 120_000 },
      );
      expectStatus(reply, 200, op);
      expect(objectOf(reply), op).toMatchObject({ success: true });
    }
    expect(await docker.containers(name)).toEqual([]);
  }, 600_000);

  it('several compose files: the overrides in `files` follow composePath, in order; a missing one is 422', async () => {
    const name = docker.stack('prod');
    const body = { name, repository: repo.bare, composePath: 'deploy/compose.yaml', deploy: true };
    const missing = await admin().post(`/api/git-stacks${q(null)}`, {
      ...body,
      files: ['deploy/missing.yaml'],
    });
    expectStatus(missing, 422, 'a missing override');
    expect(objectOf(missing).error).toMatch(/^Compose file deploy\/missing\.yaml not found in commit /);

    const run = await deployed(
      await admin().post(`/api/git-stacks${q(null)}`, { ...body, files: ['deploy/compose.prod.yaml'] }),
      name,
    );
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'success' });
    const services = (await docker.containers(name))
      .map((c) => [c.Labels['com.docker.compose.service'], c.State])
      .sort();
    expect(services).toEqual([
      ['app', 'running'],
      ['extra', 'running'],
    ]);
    const app = (await docker.containers(name)).find((c) => c.Labels['com.docker.compose.service'] === 'app');
    expect((await containerEnv(app?.Id as string)).get('MODE')).toBe('production-override');
    expect(objectOf(await admin().get(`/api/git-stacks/${name}${q(null)}`))).toMatchObject({
      composePath: 'deploy/compose.yaml',
      files: ['deploy/compose.prod.yaml'],
    });

    // Without the override the next deploy drops what only it added.
    const put = await admin().put(`/api/git-stacks/${name}${q(null)}`, { files: [], redeploy: true });
    const again = await deployed(put, name);
    expect(again, JSON.stringify(again)).toMatchObject({ status: 'success' });
    expect((await docker.containers(name)).map((c) => c.Labels['com.docker.compose.service'])).toEqual([
      'app',
    ]);
  }, 600_000);
});
