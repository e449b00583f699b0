import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCompose } from '../../src/stacks/compose/runner.js';
import type { ComposeInvocation, OutputLine } from '../../src/stacks/contracts.js';

const dir = mkdtempSync(join(tmpdir(), 'chronicle-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = (name: string, body: string) => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};
const node = (path: string, extra: Partial<ComposeInvocation> = {}): ComposeInvocation => ({
  argv: [process.execPath, path],
  cwd: dir,
  env: { PATH: process.env.PATH ?? '' },
  timeoutMs: 10_000,
  ...extra,
});

/** True while the process exists and is not a zombie (a zombie is dead, only not yet reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('runCompose', () => {
  it('splits stdout and stderr into lines, gives the exit code, and completes lines before exit resolves', async () => {
    const p = script(
      'out.mjs',
      `process.stdout.write('a\\nb\\r\\npart');
       process.stderr.write('err1\\n');
       setTimeout(() => { process.stdout.write('ial\\nlast'); process.exitCode = 3; }, 50);`,
    );
    const run = runCompose(node(p));
    const seen: OutputLine[] = [];
    let completedBeforeExit = false;
    run.lines.subscribe({ next: (l) => seen.push(l), complete: () => (completedBeforeExit = true) });
    const exit = await run.exit;
    expect(completedBeforeExit).toBe(true);
    expect(exit).toEqual({ exitCode: 3, signal: null, timedOut: false, cancelled: false });
    expect(seen.filter((l) => l.stream === 'stdout').map((l) => l.line)).toEqual([
      'a',
      'b',
      'partial',
      'last',
    ]);
    expect(seen.filter((l) => l.stream === 'stderr').map((l) => l.line)).toEqual(['err1']);
  });

  it('passes cwd and env, and runs no shell', async () => {
    const p = script(
      'env.mjs',
      `console.log(process.cwd()); console.log(process.env.SECRET_X); console.log(process.argv[2]);`,
    );
    const run = runCompose({
      ...node(p),
      argv: [process.execPath, p, '$(echo hi); `id`'],
      env: { SECRET_X: 'v 1' },
    });
    const lines = await firstValueFrom(run.lines.pipe(toArray()));
    expect(lines.map((l) => l.line)).toEqual([dir, 'v 1', '$(echo hi); `id`']);
    expect((await run.exit).exitCode).toBe(0);
  });

  it('replays lines to a first subscriber that comes after the end; a later one gets only completion', async () => {
    const p = script('late.mjs', `for (let i = 0; i < 1000; i++) console.log('line ' + i);`);
    const run = runCompose(node(p));
    await run.exit;
    const first = await firstValueFrom(run.lines.pipe(toArray()));
    expect(first).toHaveLength(1000);
    expect(first[999]).toEqual({ stream: 'stdout', line: 'line 999' });
    expect(await firstValueFrom(run.lines.pipe(toArray()))).toEqual([]);
  });

  it('a second subscriber during the run gets the lines after it subscribed (multicast, hot)', async () => {
    // The program prints `two` only once the test has subscribed again (a file appears): no timing.
    const go = join(dir, 'go-multicast');
    const p = script(
      'slow.mjs',
      `import { existsSync } from 'node:fs';
       console.log('one');
       const wait = setInterval(() => { if (existsSync(${JSON.stringify(go)})) { clearInterval(wait); console.log('two'); } }, 10);`,
    );
    const run = runCompose(node(p));
    const a: string[] = [];
    const b: string[] = [];
    run.lines.subscribe((l) => a.push(l.line));
    while (a.length === 0) await new Promise((r) => setTimeout(r, 10));
    run.lines.subscribe((l) => b.push(l.line));
    writeFileSync(go, '');
    await run.exit;
    expect(a).toEqual(['one', 'two']);
    expect(b).toEqual(['two']);
  });

  it('a program that does not exist resolves exit with spawnError and never throws', async () => {
    const run = runCompose(node('x', { argv: [join(dir, 'no-such-compose'), 'up'] }));
    const lines = await firstValueFrom(run.lines.pipe(toArray()));
    const exit = await run.exit;
    expect(lines).toEqual([]);
    expect(exit.spawnError).toMatch(/ENOENT/);
    expect(exit.exitCode).toBeNull();
    run.cancel(); // harmless after the end
  });

  it('a missing working directory and an empty argv are spawn errors too', async () => {
    const a = await runCompose(node(script('ok.mjs', ''), { cwd: join(dir, 'gone') })).exit;
    expect(a.spawnError).toMatch(/ENOENT/);
    const b = await runCompose(node('x', { argv: [] })).exit;
    expect(b.spawnError).toMatch(/empty/);
  });

  it('a time-out kills the whole process tree, also a grandchild that ignores SIGTERM', async () => {
    const grandchild = script(
      'grandchild.mjs',
      `process.on('SIGTERM', () => {}); console.log('grandchild ' + process.pid); setInterval(() => {}, 1000);`,
    );
    const parent = script(
      'parent.mjs',
      `import { spawn } from 'node:child_process';
       spawn(process.execPath, [${JSON.stringify(grandchild)}], { stdio: 'inherit' });
       setInterval(() => {}, 1000);`,
    );
    // A drain longer than the test may run: the exit comes from the SIGKILL after the grace, or never.
    // The time-out leaves node room to start the grandchild (on a loaded machine 500 ms did not).
    const run = runCompose(node(parent, { timeoutMs: 5_000 }), { killGraceMs: 300, drainMs: 600_000 });
    const lines: string[] = [];
    run.lines.subscribe((l) => lines.push(l.line));
    const exit = await run.exit;
    expect(exit).toMatchObject({ exitCode: null, timedOut: true, cancelled: false });
    const gpid = Number(lines.find((l) => l.startsWith('grandchild '))?.split(' ')[1]);
    expect(gpid).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(gpid)).toBe(false);
  });

  it('a time-out escalates to SIGKILL when the child itself ignores SIGTERM', async () => {
    // Ignored from the shell's first line on (and across the exec): a node script installs its handler
    // only once node has started, which on a loaded machine came after the time-out.
    const run = runCompose(
      { ...node(''), argv: ['/bin/sh', '-c', "trap '' TERM; echo up; exec sleep 600"], timeoutMs: 1_000 },
      { killGraceMs: 300 },
    );
    const exit = await run.exit;
    expect(exit).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: true });
  });

  it('cancel() kills the tree and resolves with cancelled', async () => {
    const p = script('long.mjs', `console.log('started'); setInterval(() => {}, 1000);`);
    const run = runCompose(node(p));
    const first = await firstValueFrom(run.lines);
    expect(first.line).toBe('started');
    run.cancel();
    const exit = await run.exit;
    expect(exit).toMatchObject({ exitCode: null, signal: 'SIGTERM', cancelled: true, timedOut: false });
  });

  it('a descendant that keeps the pipes open after the child exited does not hold the run forever', async () => {
    // The holder keeps the pipes open for longer than the test may run: the exit comes after the
    // drain time, or never.
    const holder = script('holder.mjs', `setTimeout(() => {}, 600_000);`);
    const p = script(
      'leaves.mjs',
      `import { spawn } from 'node:child_process';
       const c = spawn(process.execPath, [${JSON.stringify(holder)}], { stdio: 'inherit', detached: true });
       c.unref(); console.log('holder ' + c.pid); console.log('bye');`,
    );
    const run = runCompose(node(p), { drainMs: 300 });
    const lines: string[] = [];
    run.lines.subscribe((l) => lines.push(l.line));
    try {
      const exit = await run.exit;
      expect(exit.exitCode).toBe(0);
      expect(lines).toContain('bye');
    } finally {
      const pid = Number(lines.find((l) => l.startsWith('holder '))?.split(' ')[1]);
      if (pid > 0) process.kill(pid, 'SIGKILL');
    }
  });

  it('pause() holds the output (the child waits on its pipe), also past the drain time after its exit; resume() gets all of it', async () => {
    // Its last lines go to the pipe while the reader is paused, and then it exits: they must wait for
    // resume(), not be cut off with the pipe once the drain time has passed.
    const p = script(
      'paused.mjs',
      `console.log('pause now');
       setTimeout(() => { let s = ''; for (let i = 0; i < 1000; i++) s += 'tail ' + i + '\\n'; process.stdout.write(s); }, 200);`,
    );
    const run = runCompose(node(p), { drainMs: 100 });
    const lines: string[] = [];
    run.lines.subscribe((l) => {
      lines.push(l.line);
      if (l.line === 'pause now') {
        run.pause?.();
        setTimeout(() => run.resume?.(), 800);
      }
    });
    const exit = await run.exit;
    expect(exit.exitCode).toBe(0);
    expect(lines).toEqual(['pause now', ...Array.from({ length: 1000 }, (_, i) => `tail ${i}`)]);
  });

  it('carries 50,000 lines without loss or reordering', async () => {
    const p = script(
      'many.mjs',
      `let s=''; for (let i = 0; i < 50000; i++) s += 'Container web-' + i + '  Started\\n'; process.stdout.write(s);`,
    );
    const run = runCompose(node(p));
    const lines = await firstValueFrom(run.lines.pipe(toArray()));
    expect(lines).toHaveLength(50000);
    expect(lines.every((l, i) => l.line === `Container web-${i}  Started`)).toBe(true);
  });
});
