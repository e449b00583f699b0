/**
 * A real small file system for full-disk tests: a tmpfs of a given size the test mounts (the machine
 * runs the tests as root). Where mounting is not permitted the caller skips, saying why.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Writes a file of `bytes` zeros (what a test frees later to give space back). */
  fill(name: string, bytes: number): Promise<string>;
  unmount(): Promise<void>;
}

/** Mounts a tmpfs of `kib` KiB on a fresh directory; `{ unavailable }` with the reason when it cannot. */
export async function mountSmallDisk(kib: number): Promise<SmallDisk | { unavailable: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-small-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (mounted.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    return {
      unavailable: `cannot mount a ${kib} KiB tmpfs (needs root): ${(mounted.stderr || mounted.error?.message || '').trim()}`,
    };
  }
  return {
    dir,
    async fill(name, bytes) {
      const path = join(dir, name);
      await writeFile(path, Buffer.alloc(bytes));
      return path;
    },
    async unmount() {
      spawnSync('umount', ['-l', dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
