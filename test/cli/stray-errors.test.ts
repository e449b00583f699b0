/**
 * A process set up the way the `chronicle` command sets itself up (reportStrayErrors, first thing in
 * main.ts) outlives an error thrown in an RxJS subscriber — which RxJS rethrows from a timer — and a
 * promise rejection nobody handles, and says so on standard error (docs/operations.md#command-line). Without it, the same
 * script dies: that is what the command did before.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertBuilt, repoRoot, watch } from './helpers.js';

const strayErrorsJs = pathToFileURL(join(repoRoot, 'dist', 'src', 'cli', 'stray-errors.js')).href;

/** A consumer that throws on one line, fed from a timer, and a rejected promise nobody awaits. */
const script = (guarded: boolean) => `
import { Subject } from 'rxjs';
import { reportStrayErrors } from ${JSON.stringify(strayErrorsJs)};
${guarded ? 'reportStrayErrors();' : ''}
const lines = new Subject();
lines.subscribe((line) => {
  if (line === 'constructor') throw new Error('no state named ' + line);
  process.stdout.write('took ' + line + '\\n');
});
setTimeout(() => {
  lines.next('a');
  lines.next('constructor');
  lines.next('b');
  // Timers set after RxJS set its own (for the rethrow) with no shorter delay run after it, however
  // loaded the machine: without the guard the process is gone before these.
  setTimeout(() => {
    Promise.reject(new Error('nobody waits for this'));
    setTimeout(() => process.stdout.write('still alive\\n'), 50);
  }, 10);
}, 10);
`;

/** Runs `source` as an ES module with the repository as working folder ('rxjs' resolves as the build's). */
const run = (source: string) =>
  watch(
    spawn(process.execPath, ['--input-type=module', '-e', source], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    30_000,
  ).done;

describe('stray errors in the chronicle command', () => {
  it('a throw in a subscriber and an unhandled rejection are logged, and the process goes on', async () => {
    assertBuilt();
    const result = await run(script(true));
    expect(result.stdout).toBe('took a\ntook b\nstill alive\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'chronicle: an error escaped a stream consumer; the process goes on: Error: no state named constructor',
    );
    expect(result.stderr).toContain(
      'chronicle: a promise was rejected and nobody handled it; the process goes on: Error: nobody waits for this',
    );
  }, 30_000);

  it('without it, the same throw ends the process (what the command did before)', async () => {
    assertBuilt();
    const result = await run(script(false));
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('still alive');
    expect(result.stderr).toContain('no state named constructor');
  }, 30_000);
});
