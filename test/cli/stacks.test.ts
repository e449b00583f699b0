/**
 * `chronicle stacks` as a process: the listening line, a failed bind, config errors, the generated admin
 * token, and a stop by SIGTERM during a deploy (exit 0, the run closed rather than left running).
 */

import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  deploy,
  eventually,
  objectOf,
  StacksClient,
  startStacks,
  withStacks,
} from '../http/stacks/helpers.js';
import { cleanEnv, composePath, lines, runCli, tempDir } from './helpers.js';

describe('chronicle stacks', () => {
  it('a port in use: one line on stderr and exit 1', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const dir = await tempDir();
      const result = await runCli(['stacks', '--port', String(port), '--data', dir], {
        timeoutMs: 20_000,
        env: cleanEnv({ PATH: await composePath() }),
      });
      expect(result.code).toBe(1);
      const errLines = lines(result.stderr).filter(
        (l) => !l.startsWith('stacks admin token:') && !l.startsWith('stacks compose:'),
      );
      expect(errLines).toHaveLength(1);
      expect(errLines[0]).toMatch(new RegExp(`^stacks: cannot listen on 127\\.0\\.0\\.1:${port}: `));
    } finally {
      blocker.close();
    }
  });

  it('a bad config file: the message and exit 2; a missing one too', async () => {
    const dir = await tempDir();
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ users: [{ name: 'a', token: 't', admin: true, bogus: 1 }] }));
    const wrong = await runCli(['stacks', '--port', '0', '--data', dir, '--config', bad]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/bogus/);
    const missing = await runCli([
      'stacks',
      '--port',
      '0',
      '--data',
      dir,
      '--config',
      join(dir, 'none.json'),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file/);
  });

  it('without a config file: an admin token printed once, which the API takes', async () => {
    const server = await startStacks({ config: null, env: { PATH: await composePath() } });
    try {
      const token = /^stacks admin token: (\S+)$/m.exec(server.stderr())?.[1];
      expect(token).toBeDefined();
      expect((await new StacksClient(server.port, token as string).get('/api/stacks')).status).toBe(200);
      expect((await new StacksClient(server.port, 'wrong').get('/api/stacks')).status).toBe(401);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  });

  it('without a config file, each start makes a new admin token: the one of the last start no longer works', async () => {
    const env = { PATH: await composePath() };
    const first = await startStacks({ config: null, env });
    const before = /^stacks admin token: (\S+)$/m.exec(first.stderr())?.[1] as string;
    expect((await first.stop()).code).toBe(0);
    const second = await startStacks({ config: null, dataDir: first.dataDir, env });
    try {
      const after = /^stacks admin token: (\S+)$/m.exec(second.stderr())?.[1] as string;
      expect(after).toBeDefined();
      expect(after).not.toBe(before);
      expect((await new StacksClient(second.port, after).get('/api/stacks')).status).toBe(200);
      expect((await new StacksClient(second.port, before).get('/api/stacks')).status).toBe(401);
    } finally {
      expect((await second.stop()).code).toBe(0);
    }
  });

  it('without compose.command: `docker compose` when it answers, else `docker-compose`, said on stderr', async () => {
    const v2 = `[ "$1 $2" = "compose version" ] && { echo "Docker Compose version v2.29.7"; exit 0; }; exit 1`;
    const noPlugin = `echo "docker: 'compose' is not a docker command." >&2; exit 1`;
    for (const [scripts, said] of [
      [{ docker: v2 }, 'stacks compose: docker compose 2.29.7 (v2, detected)'],
      [{ docker: noPlugin }, 'stacks compose: docker-compose 1.29.2 (v1, detected)'],
    ] as const) {
      const server = await startStacks({ config: null, env: { PATH: await composePath({ scripts }) } });
      try {
        expect(lines(server.stderr())).toContain(said);
      } finally {
        expect((await server.stop()).code).toBe(0);
      }
    }
  });

  it('without compose.command and with neither `docker compose` nor `docker-compose`: one line, exit 1', async () => {
    const dir = await tempDir();
    const path = await composePath({
      fake: false,
      scripts: { docker: 'echo "unknown command: docker compose" >&2; exit 1' },
    });
    const result = await runCli(['stacks', '--port', '0', '--data', dir], {
      timeoutMs: 20_000,
      env: cleanEnv({ PATH: path }),
    });
    expect(result.code).toBe(1);
    const said = lines(result.stderr).filter((l) => !l.startsWith('stacks admin token:'));
    expect(said).toEqual([
      'chronicle stacks: no compose program: `docker compose version` failed (unknown command: docker compose) and `docker-compose version` failed (docker-compose: not found); install Docker Compose or set compose.command in the config file',
    ]);
  });

  it('with compose.command: its version and generation on stderr', async () => {
    await withStacks(
      { env: { FAKE_COMPOSE_VERSION: 'docker-compose version 1.29.2, build fake' } },
      async (server) =>
        expect(lines(server.stderr())).toContainEqual(
          expect.stringMatching(
            /^stacks compose: \S+ \S+fake-compose\.mjs 1\.29\.2 \(v1, compose\.command\)$/,
          ),
        ),
    );
  });

  it('SIGTERM during a deploy: exit 0, and the run is closed failed, not left running', async () => {
    const server = await startStacks();
    const admin = server.as('admin');
    await createStackDone(admin, 'held', null, { compose: composeText({}) });
    await admin.put('/api/stacks/held/compose?env=null', {
      content: composeText({ lines: ['waiting'], sleepMs: 30_000 }),
      restart: false,
    });
    const { runId } = await deploy(admin, 'held', null);
    await eventually(async () => {
      const run = objectOf(await admin.get(`/api/stacks/held/deploys/${runId}`));
      return run.status === 'running' ? true : undefined;
    }, 'the run running');
    // Exit 0 of its own accord: stop() would SIGKILL a server still running after a few seconds
    // (compose sleeps for 30), and then there is no exit code.
    const result = await server.stop();
    expect(result.code).toBe(0);
    const again = await startStacks({ dataDir: server.dataDir });
    try {
      const run = objectOf(await again.as('admin').get(`/api/stacks/held/deploys/${runId}`));
      expect(run.status).toBe('failed');
      expect(run.errorMessage).toMatch(/stopped/);
    } finally {
      await again.stop();
    }
  }, 60_000);
});
