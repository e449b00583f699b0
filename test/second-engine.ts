/**
 * A second Docker engine for the tests of environments with their own `dockerHost`: a dockerd of the
 * test's own, on a unix socket in a temporary folder with its own data root, exec root (and so its own
 * containerd) and pid file, without a bridge, iptables or forwarding (docs/stacks.md#on-a-real-docker-engine). It starts with no
 * image; `load` copies one from the machine's engine (`docker save | docker -H … load`). It can be
 * stopped and started again on the same folders (an engine that goes down and comes back), and
 * `remove` ends it for good: its containers removed, the daemon stopped, its folders deleted — also
 * when the test process exits without calling it (the daemon is killed then; its folders stay).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';

/** Why no second engine can be started here, or undefined. */
export function secondEngineMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'a second dockerd needs root';
  const which = spawnSync('sh', ['-c', 'command -v dockerd'], { encoding: 'utf8' });
  if (which.status !== 0) return 'no dockerd on PATH';
  return undefined;
}

const STOP_WAIT_MS = 60_000;

export class SecondEngine {
  /** The engine's address, as an environment's `dockerHost` names it. */
  readonly host: string;
  /** A client of it. */
  readonly docker: Docker;
  private daemon: ChildProcess | undefined;
  private readonly killOnExit = () => this.daemon?.kill('SIGKILL');

  private constructor(private readonly dir: string) {
    this.host = `unix://${join(dir, 'docker.sock')}`;
    this.docker = new Docker({ socketPath: join(dir, 'docker.sock') });
  }

  /** Makes the folders and starts the daemon; resolves once it answers. */
  static async start(): Promise<SecondEngine> {
    const engine = new SecondEngine(await mkdtemp(join(tmpdir(), 'ce2-')));
    process.on('exit', engine.killOnExit);
    await engine.up();
    return engine;
  }

  /** Starts the daemon (again) on the same folders; resolves once it answers. */
  async up(): Promise<void> {
    if (this.daemon !== undefined) return;
    const log = openSync(join(this.dir, 'dockerd.log'), 'a');
    const docker0 = docker0Addresses();
    const daemon = spawn(
      'dockerd',
      [
        '--host',
        this.host,
        '--data-root',
        join(this.dir, 'root'),
        '--exec-root',
        join(this.dir, 'exec'),
        '--pidfile',
        join(this.dir, 'docker.pid'),
        '--bridge=none',
        '--iptables=false',
        '--ip-forward=false',
        // Its own address pool, apart from the first engine's (.ci/run): both allocate from the same
        // host routes, and Docker's default pools hold only about 30 networks between them.
        '--default-address-pool',
        'base=10.211.0.0/16,size=24',
      ],
      { stdio: ['ignore', log, log] },
    );
    this.daemon = daemon;
    const exited = new Promise<never>((_, reject) =>
      daemon.once('exit', (code, signal) =>
        reject(new Error(`the second dockerd exited (${code ?? signal}): ${this.logTail()}`)),
      ),
    );
    exited.catch(() => undefined);
    const deadline = Date.now() + STOP_WAIT_MS;
    for (;;) {
      const answered = await Promise.race([
        this.docker.ping().then(
          () => true,
          () => false,
        ),
        exited,
      ]);
      if (answered) {
        restoreDocker0(docker0);
        return;
      }
      if (Date.now() > deadline) throw new Error(`the second dockerd did not answer: ${this.logTail()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Stops the daemon (SIGTERM, as a shutdown of the machine would; SIGKILL past a minute). */
  async down(): Promise<void> {
    const daemon = this.daemon;
    if (daemon === undefined) return;
    this.daemon = undefined;
    if (daemon.exitCode !== null || daemon.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => daemon.once('exit', () => resolve()));
    daemon.kill('SIGTERM');
    const timer = setTimeout(() => daemon.kill('SIGKILL'), STOP_WAIT_MS);
    await gone;
    clearTimeout(timer);
  }

  /** Copies an image of the machine's engine into this one. */
  load(image: string): void {
    const r = spawnSync('sh', ['-c', `docker save "$0" | docker -H "$1" load`, image, this.host], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (r.status !== 0) throw new Error(`loading ${image} into the second engine failed: ${r.stderr}`);
  }

  /** Ends the engine for good: its containers removed, the daemon stopped, its folders deleted. */
  async remove(): Promise<void> {
    if (this.daemon !== undefined) {
      const containers = await this.docker.listContainers({ all: true }).catch(() => []);
      await Promise.all(
        containers.map((c) =>
          this.docker
            .getContainer(c.Id)
            .remove({ force: true, v: true })
            .catch(() => undefined),
        ),
      );
      await this.down();
    }
    process.off('exit', this.killOnExit);
    await this.unmountLeftovers();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Unmounts what a daemon killed mid-way left mounted under its folders (else they cannot go). */
  private async unmountLeftovers(): Promise<void> {
    const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
    const under = mounts
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '')
      .filter((point) => point.startsWith(`${this.dir}/`))
      .sort((a, b) => b.length - a.length);
    for (const point of under) spawnSync('umount', ['-l', point]);
  }

  private logTail(): string {
    const r = spawnSync('tail', ['-5', join(this.dir, 'dockerd.log')], { encoding: 'utf8' });
    return r.stdout.trim();
  }
}

/** The host's docker0 addresses (the first engine's default bridge), as `ip` prints them. */
function docker0Addresses(): string[] {
  const out = spawnSync('ip', ['-o', '-4', 'addr', 'show', 'dev', 'docker0'], { encoding: 'utf8' });
  return [...(out.stdout ?? '').matchAll(/inet (\S+)/g)].map((m) => m[1] ?? '').filter(Boolean);
}

/**
 * A dockerd started with --bridge=none deletes the host's docker0 interface, which the first engine
 * still needs (BuildKit runs every RUN step on it: "could not find bridge docker0"). Put it back as
 * it was; the first engine finds it again by name.
 */
function restoreDocker0(addresses: string[]): void {
  if (addresses.length === 0 || docker0Addresses().length > 0) return;
  spawnSync('ip', ['link', 'add', 'docker0', 'type', 'bridge'], { stdio: 'ignore' });
  for (const address of addresses)
    spawnSync('ip', ['addr', 'add', address, 'dev', 'docker0'], { stdio: 'ignore' });
  spawnSync('ip', ['link', 'set', 'docker0', 'up'], { stdio: 'ignore' });
}
