import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { assertBuilt, repoRoot } from '../cli/helpers.js';

const run = promisify(execFile);
const usageJs = join(repoRoot, 'dist', 'bench', 'process-usage.js');

/** What a new node process prints after importing `ownPeakRssMb` and running `script`. */
async function inChild(script: string): Promise<string> {
  assertBuilt();
  const { stdout } = await run(process.execPath, [
    '--input-type=module',
    '-e',
    `import { ownPeakRssMb } from ${JSON.stringify(usageJs)}; ${script}`,
  ]);
  return stdout;
}

describe('the benchmarks’ own peak RSS', () => {
  it('is the child’s, not the peak of the large process that spawned it', async () => {
    // The runner of `npm run bench` holds hundreds of MB by the time it spawns a measured child; Linux
    // hands that peak on to the child's maxRSS across fork and exec.
    const held = Buffer.alloc(300 * 1024 * 1024, 1);
    const childPeak = Number(await inChild('process.stdout.write(String(ownPeakRssMb()));'));
    expect(held[held.length - 1]).toBe(1);
    expect(childPeak).toBeGreaterThan(10);
    expect(childPeak).toBeLessThan(200);
  });

  it('grows with what the process itself touches', async () => {
    // In a process of its own: the test worker's peak is whatever its earlier tests left it at.
    const [before, after] = (
      await inChild(
        'const before = ownPeakRssMb(); const held = Buffer.alloc(200 * 1024 * 1024, 1); ' +
          'process.stdout.write(before + " " + (ownPeakRssMb() + held[0] - 1));',
      )
    )
      .split(' ')
      .map(Number);
    expect(after).toBeGreaterThanOrEqual((before as number) + 150);
  });
});
