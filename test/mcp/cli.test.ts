/**
 * The command line of `chronicle editor --mcp`: standard output holds JSON-RPC messages only (read
 * byte for byte, not through a client that would skip a stray line), the end of standard input ends
 * the server with status 0 and its session recorded as ended, usage errors are status 2, an editor
 * that does not answer --attach is status 1.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { assertBuilt, cleanEnv, lines, mainJs, repoRoot, runCli, tempDir } from '../cli/helpers.js';

interface RawRun {
  stdout: string;
  stderr: string;
  code: number | null;
}

/**
 * Runs `chronicle editor --mcp <args>`, writes `messages` one per line once the server answered the
 * one before (so the log and the capture are there to print), then ends standard input.
 */
function rawSession(args: readonly string[], messages: readonly Record<string, unknown>[]): Promise<RawRun> {
  assertBuilt();
  const child = spawn(process.execPath, [mainJs, 'editor', '--mcp', ...args], {
    cwd: repoRoot,
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let sent = 0;
  const next = () => {
    const message = messages[sent++];
    if (message) child.stdin.write(`${JSON.stringify(message)}\n`);
    else child.stdin.end();
    // A notification has no answer: go on at once.
    if (message && message.id === undefined) next();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const before = stdout.split('\n').length;
    stdout += chunk;
    for (let i = before; i < stdout.split('\n').length; i++) next();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  next();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit; stdout ${stdout.slice(0, 500)} stderr ${stderr}`));
    }, 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('chronicle editor --mcp on the command line', () => {
  it('writes nothing but JSON-RPC messages on standard output; ends with standard input, status 0', async () => {
    const dir = await tempDir();
    try {
      const run = await rawSession(
        ['--data', dir],
        [
          initialize,
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          call(3, 'execute', {
            request: { op: 'entities_create', entities: [{ type: 'Circle', center: [0, 0], radius: 3 }] },
          }),
          call(4, 'capture', { width: 1024 }),
          call(5, 'execute', { request: { op: 'entities_delete', handles: ['FFFFF'] } }),
          call(6, 'read', { op: 'nothing' }),
          { jsonrpc: '2.0', id: 7, method: 'no/such/method' },
        ],
      );
      expect(run.code, run.stderr).toBe(0);
      const out = lines(run.stdout);
      expect(out).toHaveLength(7);
      const messages = out.map(
        (line) => JSON.parse(line) as { jsonrpc: string; id: number; error?: unknown },
      );
      expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
      expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(messages[6]?.error).toMatchObject({ code: -32601 });
      expect(run.stderr).toMatch(/^editor mcp: session [0-9a-f-]{36} on level:/m);
      // The session the server ran is in the log, ended.
      const events = await runCli(['events', '--data', dir, '--json'], { timeoutMs: 120_000 });
      expect(events.stdout).toContain('"type":"SessionEnded"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad command lines with status 2', async () => {
    const bad = [
      ['editor'],
      ['editor', '--mcp', '--http', '0'],
      ['editor', '--attach', 'http://127.0.0.1:9'],
      ['editor', '--mcp', '--attach', 'http://example.com:80'],
      ['editor', '--mcp', '--attach', 'http://127.0.0.1'],
      ['editor', '--mcp', '--attach', 'http://127.0.0.1:9/api/v1'],
      ['editor', '--mcp', '--attach', 'http://127.0.0.1:9', 'plan.dxf'],
      ['editor', '--mcp', '--attach', 'http://127.0.0.1:9', '--store', 'memory:'],
    ];
    // A net for a hung child, not a measure: eight CLI starts at once on a loaded machine are slow.
    const results = await Promise.all(bad.map((args) => runCli(args, { timeoutMs: 120_000 })));
    for (const [i, result] of results.entries()) {
      const args = bad[i] as string[];
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr.length, args.join(' ')).toBeGreaterThan(0);
    }
  });

  it('stops with status 1 when the editor to attach to does not answer', async () => {
    const result = await runCli(['editor', '--mcp', '--attach', 'http://127.0.0.1:9'], {
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/cannot attach to http:\/\/127\.0\.0\.1:9: .*did not answer/);
  });
});
