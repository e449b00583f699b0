/**
 * Variables cannot steer the compose program (docs/security.md#what-an-edit-grant-can-reach): names such as PATH, LD_PRELOAD,
 * DOCKER_HOST or COMPOSE_FILE are refused with 400 when saved; one written into `.env` behind the API's
 * back fails the deploy before compose runs; DOCKER_HOST is always set for compose, the local
 * environment's too. Black-box over the CLI with the fake compose, called by name through a shim on
 * the server's PATH, as `docker compose` is.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import {
  composeText,
  createStack,
  createStackDone,
  deployDone,
  describeStacks,
  expectStatus,
  FAKE_COMPOSE,
  objectOf,
  q,
  serveStacks,
  stackDir,
  stacksConfig,
  waitRun,
} from './helpers.js';

const REFUSED = [
  'PATH',
  'HOME',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'DOCKER_HOST',
  'DOCKER_CONFIG',
  'DOCKER_CONTEXT',
  'docker_host',
  'BUILDKIT_PROGRESS',
  'COMPOSE_FILE',
  'COMPOSE_PROJECT_NAME',
  'PYTHONPATH',
];
const ALLOWED = ['COMPOSE_PROFILES', 'DOCKER', 'MY_PATH', 'HOMEPAGE', 'APP_DOCKER_HOST'];

describeStacks('variable names that steer the compose program', () => {
  let bin: string;
  let evil: string;
  const shared = serveStacks(async () => {
    const dir = await tempDir();
    bin = join(dir, 'bin');
    evil = join(dir, 'evil');
    await mkdir(bin);
    await mkdir(evil);
    // The compose command is a name found on PATH, as `docker` is.
    const shim = join(bin, 'compose-shim');
    await writeFile(shim, `#!/bin/sh\nexec '${process.execPath}' '${FAKE_COMPOSE}' "$@"\n`);
    await chmod(shim, 0o755);
    const impostor = join(evil, 'compose-shim');
    await writeFile(impostor, `#!/bin/sh\necho "impostor ran" >> '${join(evil, 'ran')}'\nexit 0\n`);
    await chmod(impostor, 0o755);
    const { DOCKER_HOST: _unset, ...env } = process.env;
    return {
      config: stacksConfig({ compose: { command: ['compose-shim'] } }),
      env: { ...env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    };
  });
  beforeAll(async () => {
    await createStackDone(shared.admin, 'plain', null, { compose: composeText() });
  });

  it('PUT variables refuses each name with 400 naming it; the stack keeps its variables', async () => {
    for (const name of REFUSED) {
      const reply = await shared.admin.put(`/api/stacks/plain/variables${q(null)}`, {
        variables: [
          { name: 'FINE', value: 'x', secret: false },
          { name, value: '/tmp/evil', secret: false },
        ],
      });
      expectStatus(reply, 400, name);
      expect(objectOf(reply).error).toBe(
        `variables[1].name: the variable name ${name} is refused (PATH, HOME, LD_*, DOCKER_*, BUILDKIT_*, COMPOSE_* (but COMPOSE_PROFILES) and PYTHON* steer the compose program and are refused)${
          // COMPOSE_FILE is what several compose files were given by: the answer says where they go now.
          name === 'COMPOSE_FILE'
            ? "; override files are named in a git stack's `files` list (compose is given them after composePath)"
            : ''
        }`,
      );
    }
    const stack = objectOf(await shared.admin.get(`/api/stacks/plain${q(null)}`));
    expect(stack.variables).toEqual([]);
  });

  it('names that only look alike are accepted', async () => {
    const reply = await shared.admin.put(`/api/stacks/plain/variables${q(null)}`, {
      variables: ALLOWED.map((name) => ({ name, value: 'web', secret: false })),
    });
    expectStatus(reply, 200);
    expect((objectOf(reply).variables as Array<{ name: string }>).map((v) => v.name)).toEqual(ALLOWED);
  });

  it('create refuses them too, and makes no stack', async () => {
    const reply = await shared.admin.post(`/api/stacks${q(1)}`, {
      name: 'hosted',
      compose: composeText(),
      variables: [{ name: 'DOCKER_HOST', value: 'unix:///tmp/evil.sock', secret: false }],
    });
    expectStatus(reply, 400);
    expect(objectOf(reply).error).toMatch(/^variables\[0\]\.name: the variable name DOCKER_HOST is refused/);
    expectStatus(await shared.admin.get(`/api/stacks/hosted${q(1)}`), 404);
  });

  it('a git stack refuses them before it fetches anything', async () => {
    const reply = await shared.admin.post(`/api/git-stacks${q(null)}`, {
      name: 'gitpath',
      repository: '/nonexistent/repository.git',
      branch: 'main',
      composePath: 'compose.yaml',
      variables: [{ name: 'LD_PRELOAD', value: '/tmp/evil.so', secret: true }],
    });
    expectStatus(reply, 400);
    expect(objectOf(reply).error).toMatch(/the variable name LD_PRELOAD is refused/);
  });

  it('PATH written into .env behind the API fails the deploy before any program runs', async () => {
    const admin = shared.admin;
    await createStackDone(admin, 'ondisk', null, { compose: composeText({ lines: ['up ran'] }) });
    const envFile = join(stackDir(shared.server.dataDir, null, 'ondisk'), '.env');
    await writeFile(envFile, `PATH="${evil}:${process.env.PATH ?? ''}"\n`);
    const { runId, job } = await deployDone(admin, 'ondisk', null);
    const run = await waitRun(admin, 'ondisk', runId as number);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toMatch(/^The stack's \.env: the variable name PATH is refused/);
    expect(job.result).toMatchObject({ success: false });
    await expect(readFile(join(evil, 'ran'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  describe('DOCKER_HOST is always set', () => {
    it('the local environment gets the default socket when the server has none', async () => {
      const { runId } = await createStackDone(shared.admin, 'localhost', null, {
        compose: composeText({ env: ['DOCKER_HOST'] }),
      });
      const lines = (await shared.admin.get(`/api/stacks/localhost/deploys/${runId}/log`)).text;
      expect(lines).toContain('DOCKER_HOST=unix:///var/run/docker.sock');
    });

    it("an environment gets its dockerHost, whatever the stack's own .env says", async () => {
      const ack = await createStack(shared.admin, 'edgehost', 1, {
        compose: composeText({ env: ['DOCKER_HOST'] }),
      });
      const run = await waitRun(shared.admin, 'edgehost', ack.runId as number);
      expect(run.status).toBe('success');
      const log = (await shared.admin.get(`/api/stacks/edgehost/deploys/${ack.runId}/log`)).text;
      expect(log).toContain('DOCKER_HOST=tcp://10.0.0.5:2375');
    });
  });
});
