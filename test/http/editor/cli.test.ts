/**
 * `chronicle editor --http <port>` as a command (docs/operations.md#command-line): the
 * listening line, the loopback-only bind, a failed bind, bad `--http` values, `--data`, SIGTERM.
 */
import { existsSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { lines, runCli, tempDir } from '../../cli/helpers.js';
import { startGuiEditor } from '../viewer/helpers.js';
import { body, call, type EditorServer, LISTENING, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const started: EditorServer[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(3_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('listening', () => {
  it('reports the effective port of --http 0 on standard error: `editor listening on http://127.0.0.1:<port>`', async () => {
    const server = await startEditor();
    started.push(server);
    const line = lines(server.stderr()).find((l) => l.includes('listening on'));
    expect(line).toMatch(LISTENING);
    expect(server.port).toBeGreaterThan(0);
    const answer = await call(server.port, 'GET', '/api/v1/ready');
    expect(body(answer).ready).toBe(true);
  });

  it('binds 127.0.0.1 only: not ::1, not the machine’s other addresses', async () => {
    const server = started[0] ?? (await startEditor());
    if (!started.includes(server)) started.push(server);
    expect(await connects('127.0.0.1', server.port)).toBe(true);
    expect(await connects('::1', server.port), '::1').toBe(false);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && i.family === 'IPv4' && !i.internal)
      .map((i) => i?.address as string);
    for (const address of others) expect(await connects(address, server.port), address).toBe(false);
    if (others.length === 0) console.log('no non-loopback IPv4 address on this machine: only ::1 was tried');
  });
});

describe('a failed bind', () => {
  it('port already taken: one line on standard error naming the address and the reason, exit status 1', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const result = await runCli(['editor', '--http', String(port), '--store', 'memory:'], {
        timeoutMs: 20_000,
      });
      expect(result.code).toBe(1);
      const errorLines = lines(result.stderr);
      expect(errorLines, result.stderr).toHaveLength(1);
      expect(errorLines[0]).toContain(`127.0.0.1:${port}`);
      expect(errorLines[0]).toMatch(/EADDRINUSE|address already in use/i);
      expect(result.stderr).not.toMatch(/listening on/);
    } finally {
      blocker.close();
    }
  });
});

describe('bad command-line input: usage on standard error, exit status 2', () => {
  for (const args of [
    [],
    ['--http'],
    ['--http', 'abc'],
    ['--http', '65536'],
    ['--http', '-1'],
    ['--http', '80x'],
  ]) {
    it(`editor ${args.join(' ') || '(no --http)'}`, async () => {
      const result = await runCli(['editor', ...args, '--store', 'memory:'], { timeoutMs: 20_000 });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/usage/i);
      expect(result.stderr).not.toMatch(/listening on/);
    });
  }
});

describe('--data and SIGTERM', () => {
  it('serves over the LevelDB store of --data DIR, and SIGTERM ends it with status 0', async () => {
    const dir = await tempDir();
    const server = await startEditor(['--data', dir]);
    const created = await call(server.port, 'POST', '/api/v1/documents');
    expect(created.status).toBe(201);
    const state = await call(server.port, 'GET', '/api/v1/state');
    expect(body(state).document_id).toBe(body(created).document_id);
    const result = await server.stop();
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(dir, 'events'))).toBe(true);
  });
});

describe('the documents an editor starts with', () => {
  const documentsOf = async (port: number) =>
    (body(await call(port, 'GET', '/api/v1/state')).documents as Array<Record<string, unknown>>).map((d) => ({
      id: d.id,
      title: d.title,
      path: d.path,
    }));

  it('headless: one blank untitled drawing, entities go into it at once; with FILE: that file only', async () => {
    const headless = await startEditor();
    started.push(headless);
    expect(await documentsOf(headless.port)).toEqual([{ id: 1, title: 'Drawing1.dxf', path: null }]);
    const created = await call(headless.port, 'POST', '/api/v1/entities', {
      json: { entities: [{ type: 'Point', location: [1, 1] }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(body(created).document_id).toBe(1);

    const gui = await startGuiEditor();
    try {
      expect(await documentsOf(gui.server.port)).toEqual([{ id: 1, title: 'plan.dxf', path: gui.file }]);
    } finally {
      await gui.stop();
    }
  });
});
