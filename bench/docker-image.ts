/**
 * A local image for runs on a real Docker engine, where no registry is reachable (NOTES.md): a root file
 * system holding the static busybox of Debian's `busybox-static`, imported under a stable tag when the
 * engine does not have it yet. Used by `npm run bench -- deploys` and the tests on the engine
 * (test/docker-helpers.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BUSYBOX = '/bin/busybox';

const hasImage = (tag: string) =>
  spawnSync('docker', ['image', 'inspect', tag], { stdio: 'ignore', timeout: 60_000 }).status === 0;

/** Makes `tag` when the engine does not have it; throws when it cannot. */
export async function ensureBusyboxImage(tag: string): Promise<void> {
  if (hasImage(tag)) return;
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing (Debian's busybox-static)`);
  const root = await mkdtemp(join(tmpdir(), 'chronicle-rootfs-'));
  try {
    await mkdir(join(root, 'bin'));
    await mkdir(join(root, 'tmp'));
    await copyFile(BUSYBOX, join(root, 'bin', 'busybox'));
    for (const applet of ['sh', 'sleep', 'echo', 'cat', 'true'])
      await symlink('busybox', join(root, 'bin', applet));
    const imported = spawnSync('sh', ['-c', `tar -C '${root}' -c . | docker import - '${tag}'`], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    // Another process may have imported it meanwhile: the tag is there either way.
    if (imported.status !== 0 && !hasImage(tag))
      throw new Error(`docker import of ${tag} failed: ${imported.stderr}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
