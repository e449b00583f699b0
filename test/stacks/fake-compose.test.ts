/**
 * The fake compose program the black-box stacks tests run instead of `docker compose`: what it prints,
 * how it ends and what it logs must be exactly what those tests rely on.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fakeCompose = fileURLToPath(new URL('../fixtures/fake-compose.mjs', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function run(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Ran> {
  const started = Date.now();
  const child = spawn(process.execPath, [fakeCompose, ...args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd ?? tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

async function composeFile(text: string): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-compose-'));
  const file = join(dir, 'compose.yaml');
  await writeFile(file, text);
  return { dir, file };
}

const up = (file: string, project = 'demo') => [
  '--project-name',
  project,
  '--file',
  file,
  'up',
  '--detach',
  '--remove-orphans',
];

describe('fake compose without x-fake prints what docker compose prints', () => {
  it('up: network, then every service created, then every service started; exit 0', async () => {
    const { file } = await composeFile('services:\n  web:\n    image: nginx\n  db:\n    image: postgres\n');
    const ran = await run(up(file));
    expect(ran.code).toBe(0);
    expect(ran.stderr).toBe('');
    expect(ran.stdout.split('\n')).toEqual([
      ' Network demo_default  Creating',
      ' Network demo_default  Created',
      ' Container demo-web-1  Creating',
      ' Container demo-web-1  Created',
      ' Container demo-db-1  Creating',
      ' Container demo-db-1  Created',
      ' Container demo-web-1  Starting',
      ' Container demo-web-1  Started',
      ' Container demo-db-1  Starting',
      ' Container demo-db-1  Started',
      '',
    ]);
  });

  it('down and stop print their own states', async () => {
    const { file } = await composeFile('services:\n  web:\n    image: nginx\n');
    const down = await run(['--project-name', 'p', '--file', file, 'down']);
    expect(down.code).toBe(0);
    expect(down.stdout).toBe(
      [
        ' Container p-web-1  Stopping',
        ' Container p-web-1  Stopped',
        ' Container p-web-1  Removing',
        ' Container p-web-1  Removed',
        ' Network p_default  Removing',
        ' Network p_default  Removed',
        '',
      ].join('\n'),
    );
    const stop = await run(['--project-name', 'p', '--file', file, 'stop']);
    expect(stop.stdout).toBe(' Container p-web-1  Stopping\n Container p-web-1  Stopped\n');
  });

  it('reads a compose file that is JSON as a whole', async () => {
    const { file } = await composeFile(JSON.stringify({ services: { api: { image: 'x' } } }));
    const ran = await run(['--project-name', 'j', '--file', file, 'start']);
    expect(ran.stdout).toBe(' Container j-api-1  Starting\n Container j-api-1  Started\n');
  });
});

describe('fake compose with x-fake does what the compose file asks', () => {
  it('lines in order, repeated, then env values, then stderr; the exit code asked', async () => {
    const { file } = await composeFile(
      `services:\n  web:\n    image: nginx\nx-fake: ${JSON.stringify({
        lines: ['one', 'two'],
        repeat: 2,
        env: ['FAKE_A', 'FAKE_UNSET'],
        stderr: ['bad thing'],
        exit: 3,
      })}\n`,
    );
    const ran = await run(up(file), { env: { FAKE_A: 'alpha value' } });
    expect(ran.code).toBe(3);
    expect(ran.stdout).toBe('one\ntwo\none\ntwo\nFAKE_A=alpha value\nFAKE_UNSET=\n');
    expect(ran.stderr).toBe('bad thing\n');
  });

  it('a subcommand key wins over the direct keys', async () => {
    const { file } = await composeFile(
      `x-fake: ${JSON.stringify({ lines: ['any'], down: { lines: ['going down'], exit: 1 } })}\nservices:\n  a:\n    image: b\n`,
    );
    const down = await run(['--project-name', 'p', '--file', file, 'down']);
    expect([down.code, down.stdout]).toEqual([1, 'going down\n']);
    const ran = await run(up(file));
    expect([ran.code, ran.stdout]).toEqual([0, 'any\n']);
  });

  it('an x-fake with no lines prints nothing and exits 0', async () => {
    const { file } = await composeFile('x-fake: {}\nservices:\n  a:\n    image: b\n');
    const ran = await run(up(file));
    expect([ran.code, ran.stdout, ran.stderr]).toEqual([0, '', '']);
  });

  it('crlf line ends and a long line of the exact size', async () => {
    const { file } = await composeFile(
      `x-fake: ${JSON.stringify({ lines: ['a', 'b'], crlf: true, longLine: 100_000 })}\n`,
    );
    const ran = await run(up(file));
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(`a\r\nb\r\n${'x'.repeat(100_000)}\r\n`);
  });

  it('count: numbered lines padded to the width, before the other lines, every one of them', async () => {
    const { file } = await composeFile(
      `x-fake: ${JSON.stringify({ lines: ['after'], count: { lines: 30_000, width: 8 } })}\n`,
    );
    const ran = await run(up(file));
    expect(ran.code).toBe(0);
    const lines = ran.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(30_001);
    expect(lines.slice(0, 3)).toEqual(['0.......', '1.......', '2.......']);
    expect(lines[29_999]).toBe('29999...');
    expect(lines.at(-1)).toBe('after');
  });

  it('a large output arrives whole (the process waits for stdout before exiting)', async () => {
    const { file } = await composeFile(
      `x-fake: ${JSON.stringify({ lines: ['line of output'], repeat: 20_000 })}\n`,
    );
    const ran = await run(up(file));
    expect(ran.stdout.length).toBe(20_000 * 'line of output\n'.length);
  });

  it('sleepMs and perLineMs make it take that long', async () => {
    const { file } = await composeFile(
      `x-fake: ${JSON.stringify({ lines: ['a', 'b', 'c'], perLineMs: 150, sleepMs: 300 })}\n`,
    );
    const ran = await run(up(file));
    expect(ran.stdout).toBe('a\nb\nc\n');
    expect(ran.ms).toBeGreaterThanOrEqual(600);
  });

  it('perLineMs: lines arrive apart, not all at the end', async () => {
    const { file } = await composeFile(
      `x-fake: ${JSON.stringify({ lines: ['first', 'second'], perLineMs: 400 })}\n`,
    );
    const child = spawn(process.execPath, [fakeCompose, ...up(file)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const arrivals: Array<[string, number]> = [];
    const started = Date.now();
    child.stdout.setEncoding('utf8').on('data', (c: string) => arrivals.push([c, Date.now() - started]));
    await new Promise((resolve) => child.on('close', resolve));
    expect(arrivals.map(([c]) => c).join('')).toBe('first\nsecond\n');
    expect(arrivals.length).toBe(2);
    expect((arrivals[1]?.[1] ?? 0) - (arrivals[0]?.[1] ?? 0)).toBeGreaterThanOrEqual(300);
  });

  it('a multi-line x-fake is refused clearly (exit 14), not silently ignored', async () => {
    const { file } = await composeFile('x-fake:\n  lines: [a]\n');
    const ran = await run(up(file));
    expect(ran.code).toBe(14);
    expect(ran.stderr).toMatch(/x-fake must be one line of JSON/);
  });
});

describe('fake compose argument handling and its argv log', () => {
  it('appends one JSON line per call with argv and cwd', async () => {
    const { dir, file } = await composeFile('services:\n  web:\n    image: nginx\n');
    const log = join(dir, 'argv.log');
    await run(up(file), { env: { FAKE_COMPOSE_ARGV_LOG: log }, cwd: dir });
    await run(['--project-name', 'demo', '--file', file, 'down'], {
      env: { FAKE_COMPOSE_ARGV_LOG: log },
      cwd: dir,
    });
    const entries = (await readFile(log, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(entries).toEqual([
      { argv: up(file), cwd: dir },
      { argv: ['--project-name', 'demo', '--file', file, 'down'], cwd: dir },
    ]);
  });

  it('no --file: exit 2 with a message; a missing file: exit 14', async () => {
    const none = await run(['up']);
    expect([none.code, none.stderr]).toEqual([2, 'fake-compose: no --file given\n']);
    const missing = await run(['--file', join(tmpdir(), 'no-such-dir-x', 'compose.yaml'), 'up']);
    expect(missing.code).toBe(14);
    expect(missing.stderr).toMatch(/^fake-compose: cannot read /);
  });
});
