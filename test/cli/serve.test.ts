/**
 * `chronicle serve`, black-box: the real CLI, both surfaces in one process over one LevelDB data dir.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  type CliChild,
  cleanEnv,
  composePath,
  lines,
  repoRoot,
  runCli,
  startCli,
  tempDir,
  until,
  type Watched,
  watch,
  withDataStore,
} from './helpers.js';

const fakeCompose = join(repoRoot, 'test', 'fixtures', 'fake-compose.mjs');
const ADMIN = 't-serve-admin';

beforeAll(() => assertBuilt());

const children: CliChild[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
});

async function configFile(dir: string): Promise<string> {
  const file = join(dir, 'config.json');
  await writeFile(
    file,
    JSON.stringify({
      users: [{ name: 'admin', token: ADMIN, admin: true }],
      compose: { command: [process.execPath, fakeCompose] },
    }),
  );
  return file;
}

const portOf = (stderr: string, surface: string) => {
  const m = new RegExp(`^${surface} listening on http://127\\.0\\.0\\.1:(\\d+)$`, 'm').exec(stderr);
  return m ? Number(m[1]) : undefined;
};

/**
 * Starts `chronicle serve` (or `npm start`) and waits for both listening lines, and for a line matching
 * each of `also` (in any order: lines written one after the other may arrive in separate reads).
 */
async function serve(
  child: CliChild,
  also: readonly RegExp[] = [],
): Promise<{ child: CliChild; watched: Watched; editor: number; stacks: number }> {
  children.push(child);
  const watched = watch(child, 60_000);
  await until(
    () =>
      portOf(watched.stderr(), 'editor') !== undefined &&
      portOf(watched.stderr(), 'stacks') !== undefined &&
      also.every((line) => line.test(watched.stderr())),
    `both listening lines${also.length > 0 ? ` and ${also.join(', ')}` : ''}; stderr so far: ${watched.stderr()}`,
    20_000,
  );
  return {
    child,
    watched,
    editor: portOf(watched.stderr(), 'editor') as number,
    stacks: portOf(watched.stderr(), 'stacks') as number,
  };
}

/** A port some other listener holds. */
async function takenPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('chronicle serve', { timeout: 30_000 }, () => {
  it('serves the editor and the stacks surfaces from one process over one LevelDB data dir; SIGTERM exits 0', async () => {
    const dir = await tempDir();
    const data = join(dir, 'data');
    const config = await configFile(dir);
    const s = await serve(
      startCli(['serve', '--data', data, '--editor-port', '0', '--stacks-port', '0', '--config', config]),
    );
    expect(s.editor).not.toBe(s.stacks);

    const ready = await fetch(`http://127.0.0.1:${s.editor}/api/v1/ready`);
    expect(ready.status).toBe(200);
    const created = await fetch(`http://127.0.0.1:${s.editor}/api/v1/documents`, { method: 'POST' });
    expect(created.status).toBe(201);

    const auth = { authorization: `Bearer ${ADMIN}` };
    expect((await fetch(`http://127.0.0.1:${s.stacks}/api/stacks`)).status).toBe(401);
    const deploy = await fetch(`http://127.0.0.1:${s.stacks}/api/stacks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ name: 'web', compose: 'services:\n  app:\n    image: nginx\n', variables: [] }),
    });
    const result = (await deploy.json()) as { success: boolean; runId: number };
    expect(deploy.status, JSON.stringify(result)).toBe(200);
    expect(result.success).toBe(true);
    const list = await fetch(`http://127.0.0.1:${s.stacks}/api/stacks`, { headers: auth });
    expect(list.status).toBe(200);
    expect(((await list.json()) as Array<{ name: string }>).map((x) => x.name)).toEqual(['web']);

    s.child.kill('SIGTERM');
    const ended = await s.watched.done;
    expect(ended.code, ended.stderr).toBe(0);

    // One store: the editor session's events and the deploy run's events are in the same log.
    const streams = await withDataStore(data, async (store) => {
      const names = new Set<string>();
      for await (const event of store.readAll()) names.add(event.stream);
      return [...names];
    });
    expect(streams.some((n) => n.startsWith('editor-session-'))).toBe(true);
    expect(streams).toContain(`deploy-run-${result.runId}`);
  });

  it('SIGINT also closes both surfaces and the store, exit 0', async () => {
    const dir = await tempDir();
    const s = await serve(
      startCli([
        'serve',
        '--data',
        join(dir, 'data'),
        '--editor-port',
        '0',
        '--stacks-port',
        '0',
        '--config',
        await configFile(dir),
      ]),
    );
    s.child.kill('SIGINT');
    expect((await s.watched.done).code).toBe(0);
    // The store was released: a second process can open the same data dir.
    await withDataStore(join(dir, 'data'), async () => undefined);
  });

  it('--stacks-host binds the stacks surface there (as in the container); the editor stays on loopback', async () => {
    const dir = await tempDir();
    const child = startCli([
      'serve',
      '--data',
      join(dir, 'data'),
      '--editor-port',
      '0',
      '--stacks-port',
      '0',
      '--stacks-host',
      '0.0.0.0',
      '--config',
      await configFile(dir),
    ]);
    children.push(child);
    const watched = watch(child, 30_000);
    await until(
      () =>
        /^stacks listening on http:\/\/0\.0\.0\.0:\d+$/m.test(watched.stderr()) &&
        portOf(watched.stderr(), 'editor') !== undefined,
      `both listening lines; stderr so far: ${watched.stderr()}`,
      20_000,
    );
    const port = Number(/^stacks listening on http:\/\/0\.0\.0\.0:(\d+)$/m.exec(watched.stderr())?.[1]);
    const list = await fetch(`http://127.0.0.1:${port}/api/stacks`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(list.status).toBe(200);
    child.kill('SIGTERM');
    expect((await watched.done).code).toBe(0);
  });

  for (const surface of ['editor', 'stacks'] as const) {
    it(`a ${surface} port already taken: one line naming ${surface} and the address, exit 1, store released`, async () => {
      const dir = await tempDir();
      const port = await takenPort();
      const result = await runCli([
        'serve',
        '--data',
        join(dir, 'data'),
        '--editor-port',
        surface === 'editor' ? String(port) : '0',
        '--stacks-port',
        surface === 'stacks' ? String(port) : '0',
        '--config',
        await configFile(dir),
      ]);
      expect(result.code, result.stderr).toBe(1);
      const failure = lines(result.stderr).filter((l) => !/listening on|^stacks compose: /.test(l));
      expect(failure, result.stderr).toHaveLength(1);
      expect(failure[0]).toMatch(new RegExp(`^${surface}: .*127\\.0\\.0\\.1:${port}`));
      expect(failure[0]).toMatch(/EADDRINUSE|address already in use/i);
      await withDataStore(join(dir, 'data'), async () => undefined);
    });
  }

  it('bad command-line input: usage, exit 2', async () => {
    const result = await runCli(['serve', '--editor-port', 'x', '--store', 'memory:']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/port/);
  });

  it('`npm start` serves both surfaces from a fresh data dir, with a generated admin token; Ctrl-C stops it', async () => {
    const dir = await tempDir();
    const data = join(dir, 'fresh');
    // Its own process group, as a terminal's foreground job: Ctrl-C reaches npm, its shell and chronicle.
    const child = spawn('npm', ['start', '--silent', '--', '--editor-port', '0', '--stacks-port', '0'], {
      cwd: repoRoot,
      // No compose.command: the fake compose is the `docker-compose` on its PATH (composePath).
      env: cleanEnv({ CHRONICLE_DATA: data, PATH: `${await composePath()}:/usr/bin:/bin` }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }) as CliChild;
    const group = child.pid as number;
    try {
      const tokenLine = /^stacks admin token: (\S+)$/m;
      const s = await serve(child, [tokenLine]);
      const token = tokenLine.exec(s.watched.stderr())?.[1];
      expect(token, s.watched.stderr()).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${s.editor}/api/v1/ready`)).status).toBe(200);
      const list = await fetch(`http://127.0.0.1:${s.stacks}/api/stacks`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual([]);
      process.kill(-group, 'SIGINT');
      const ended = await s.watched.done;
      // npm answers 130 for its own SIGINT; chronicle's part is that it closed the store (below).
      expect(ended.stderr).not.toMatch(/chronicle:|cannot/);
      await until(() => {
        try {
          process.kill(-group, 0);
          return false;
        } catch {
          return true;
        }
      }, 'every process of npm start to end');
      await withDataStore(data, async () => undefined);
    } finally {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
});
