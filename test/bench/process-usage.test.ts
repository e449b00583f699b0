import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ownPeakRssMb } from '../../bench/process-usage.js';
import { assertBuilt, repoRoot } from '../cli/helpers.js';

const run = promisify(execFile);
const usageJs = join(repoRoot, 'dist', 'bench', 'process-usage.js');

describe('the benchmarks’ own peak RSS', () => {
  it('is the child’s, not the peak of the large process that spawned it', async () => {
    assertBuilt();
    // The runner of `npm run bench` holds hundreds of MB by the time it spawns a measured child; Linux
    // hands that peak on to the child's maxRSS across fork and exec.
    const held = Buffer.alloc(300 * 1024 * 1024, 1);
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      `import { ownPeakRssMb } from ${JSON.stringify(usageJs)}; process.stdout.write(String(ownPeakRssMb()));`,
    ]);
    expect(held[held.length - 1]).toBe(1);
    const childPeak = Number(stdout);
    expect(childPeak).toBeGreaterThan(10);
    expect(childPeak).toBeLessThan(200);
  });

  it('grows with what the process itself touches', () => {
    const before = ownPeakRssMb();
    const held = Buffer.alloc(200 * 1024 * 1024, 1);
    expect(held[0]).toBe(1);
    expect(ownPeakRssMb()).toBeGreaterThanOrEqual(before + 150);
  });
});
