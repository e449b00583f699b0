/**
 * A real image registry on loopback for the tests: Debian's `docker-registry` (the distribution
 * project's registry 2.8, the server Docker Hub's API is), started with a config of its own in a
 * temporary folder, on a port found free. dockerd pulls from and pushes to 127.0.0.0/8 over plain HTTP
 * without being told. `.ci/run` installs the package; without it `registryMissing` says why.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REGISTRY = '/usr/bin/docker-registry';
export const registryMissing = existsSync(REGISTRY)
  ? undefined
  : `${REGISTRY} is not installed (Debian package docker-registry; .ci/run installs it)`;

export interface Registry {
  /** `127.0.0.1:PORT`, the prefix of its image references. */
  host: string;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

export async function startRegistry(): Promise<Registry> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  await writeFile(
    join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log:',
      '  level: error',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir, 'data')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: ${host}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(REGISTRY, ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  // Ready once its API answers (the distribution API's base route).
  for (let attempt = 0; ; attempt++) {
    const answered = await fetch(`http://${host}/v2/`).then(
      (r) => r.ok,
      () => false,
    );
    if (answered) break;
    if (exited || attempt > 200) {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw new Error(`docker-registry did not answer on ${host}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    host,
    stop: async () => {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the docker CLI; throws with its stderr when it fails. */
export function dockerCli(...args: string[]): string {
  const r = spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}
