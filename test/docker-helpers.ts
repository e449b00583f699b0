/**
 * Tests on a real Docker engine (docs/stacks.md#on-a-real-docker-engine). Each suite:
 *
 * - needs a daemon (`docker info` answers) and a compose (`docker compose version` or `docker-compose
 *   version`); without them it skips and prints why — unless CHRONICLE_TEST_DOCKER=required (set by
 *   .ci/run, which installs and starts them), where a missing engine fails the suite instead;
 * - runs its images from TEST_IMAGE, a root file system holding the static busybox (Debian's
 *   `busybox-static`) imported under a stable tag once (no registry is reachable); it stays for the
 *   next run;
 * - names every stack (compose project) with its own prefix (`DockerRun.stack`), and at the end removes
 *   every container, network and image of those projects, and the images it tagged with the prefix.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import Docker from 'dockerode';
import { describe } from 'vitest';
import { BUSYBOX, ensureBusyboxImage } from '../bench/docker-image.js';

export const TEST_IMAGE = 'chronicle-test/busybox:1';
const PROJECT_LABEL = 'com.docker.compose.project';

type Availability = { available: true; compose: string } | { available: false; reason: string };

/** One Compose generation the real-engine suites run on: the `compose.command` that picks it. */
export interface ComposeUnderTest {
  generation: 'v1' | 'v2';
  command: string[];
  /** What its `version` printed (first line). */
  version: string;
}

function run(program: string, args: readonly string[]): { ok: boolean; output: string } {
  const r = spawnSync(program, args, { encoding: 'utf8', timeout: 60_000 });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() || String(r.error ?? '') };
}

function probe(): Availability {
  const info = run('docker', ['info', '--format', '{{.ServerVersion}}']);
  if (!info.ok)
    return { available: false, reason: `no Docker engine (\`docker info\`: ${info.output.split('\n')[0]})` };
  const v2 = run('docker', ['compose', 'version']);
  const v1 = v2.ok ? v2 : run('docker-compose', ['version']);
  if (!v1.ok)
    return { available: false, reason: 'neither `docker compose` nor `docker-compose` answers `version`' };
  if (!existsSync(BUSYBOX))
    return { available: false, reason: `${BUSYBOX} is missing (Debian's busybox-static)` };
  return { available: true, compose: v1.output.split('\n')[0] ?? '' };
}

export const docker = probe();
const required = process.env.CHRONICLE_TEST_DOCKER === 'required';

/** The commands of each generation, as `compose.command` names them. */
const GENERATION_COMMANDS: ReadonlyArray<readonly ['v1' | 'v2', string[]]> = [
  ['v2', ['docker', 'compose']],
  ['v1', ['docker-compose']],
];

/**
 * Which generations answer here: `docker compose version` (v2) and `docker-compose version` (v1, or a
 * v2 binary of that name, which then counts as neither: the matrix wants both generations).
 */
function probeGenerations(): { found: ComposeUnderTest[]; missing: string[] } {
  const found: ComposeUnderTest[] = [];
  const missing: string[] = [];
  for (const [generation, command] of GENERATION_COMMANDS) {
    const [program, ...args] = command as [string, ...string[]];
    const answer = run(program, [...args, 'version']);
    const line = answer.output.split('\n')[0] ?? '';
    const major = /compose version:?\s+v?(\d+)\./i.exec(line)?.[1];
    const is = major === undefined ? undefined : Number(major) <= 1 ? 'v1' : 'v2';
    if (answer.ok && is === generation) found.push({ generation, command, version: line });
    else missing.push(`${generation} (\`${command.join(' ')} version\`: ${line || 'no answer'})`);
  }
  return { found, missing };
}

const generations = docker.available ? probeGenerations() : { found: [], missing: [] };

/**
 * `describeDocker` once per Compose generation: the same tests on v2 and on v1, each suite given its
 * `compose.command` (title suffixed ` [compose v2]`). CHRONICLE_TEST_COMPOSE=v1 or v2 narrows it to one
 * (a quick local run); with CHRONICLE_TEST_DOCKER=required a generation that does not answer fails.
 */
export function describeCompose(name: string, body: (compose: ComposeUnderTest) => void): void {
  const only = process.env.CHRONICLE_TEST_COMPOSE;
  if (!docker.available) {
    describeDocker(name, () => body({ generation: 'v2', command: ['docker', 'compose'], version: '' }));
    return;
  }
  for (const [generation] of GENERATION_COMMANDS) {
    if (only !== undefined && only !== '' && only !== generation) continue;
    const title = `${name} [compose ${generation}]`;
    const compose = generations.found.find((c) => c.generation === generation);
    if (compose) {
      describe(title, () => body(compose));
      continue;
    }
    const why = generations.missing.find((m) => m.startsWith(generation)) ?? generation;
    if (required)
      throw new Error(
        `CHRONICLE_TEST_DOCKER=required but Compose ${why} does not answer: .ci/run installs both`,
      );
    console.log(`skipped: ${title}: Compose ${why} does not answer`);
    describe.skip(title, () => body({ generation, command: [], version: '' }));
  }
}

/** `describe` on the real engine; skipped with a printed reason without one (a failure where required). */
export function describeDocker(name: string, body: () => void): void {
  if (docker.available) {
    describe(name, body);
    return;
  }
  if (required)
    throw new Error(`CHRONICLE_TEST_DOCKER=required but ${docker.reason}: .ci/run should have started it`);
  console.log(`skipped: ${name}: ${docker.reason}`);
  describe.skip(name, body);
}

export const engine = new Docker();

/** Makes TEST_IMAGE when the engine does not have it (bench/docker-image.ts). */
export const ensureTestImage = () => ensureBusyboxImage(TEST_IMAGE);

/** The prefix of one test file's projects and images, and the clean-up of what they made. */
export class DockerRun {
  readonly prefix: string;

  constructor(label: string) {
    this.prefix = `ct${process.pid.toString(36)}${label}`.toLowerCase().replace(/[^a-z0-9]/g, '');
  }

  /** A stack name (= compose project) of this run. */
  stack(name: string): string {
    return `${this.prefix}-${name}`;
  }

  /** An image name of this run (removed at the end). */
  image(name: string): string {
    return `${this.prefix}-${name}:test`;
  }

  /** The containers of one project, as the engine lists them. */
  async containers(stack: string): Promise<Docker.ContainerInfo[]> {
    return engine.listContainers({ all: true, filters: { label: [`${PROJECT_LABEL}=${stack}`] } });
  }

  /** Stops one container behind compose's back (as a crash of its program would). */
  async stopContainer(id: string): Promise<void> {
    await engine.getContainer(id).stop({ t: 0 });
  }

  /** Removes the containers, networks and images of this run's projects. */
  async cleanUp(): Promise<void> {
    const mine = (project: string | undefined) => project?.startsWith(`${this.prefix}-`) === true;
    const containers = await engine.listContainers({ all: true, filters: { label: [PROJECT_LABEL] } });
    await Promise.all(
      containers
        .filter((c) => mine(c.Labels[PROJECT_LABEL]))
        .map((c) =>
          engine
            .getContainer(c.Id)
            .remove({ force: true, v: true })
            .catch(() => undefined),
        ),
    );
    const networks = await engine.listNetworks({ filters: { label: [PROJECT_LABEL] } });
    await Promise.all(
      networks
        .filter((n) => mine(n.Labels?.[PROJECT_LABEL]))
        .map((n) =>
          engine
            .getNetwork(n.Id)
            .remove()
            .catch(() => undefined),
        ),
    );
    const images = await engine.listImages();
    await Promise.all(
      images
        .filter((i) => (i.RepoTags ?? []).some((tag) => tag.startsWith(this.prefix)))
        .map((i) =>
          engine
            .getImage(i.Id)
            .remove({ force: true })
            .catch(() => undefined),
        ),
    );
  }
}

/** Writes a line into a running container's standard output, as its own program would. */
export function sayIn(container: string, text: string): void {
  const r = spawnSync('docker', ['exec', container, 'sh', '-c', `echo ${text} > /proc/1/fd/1`], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`docker exec failed: ${r.stderr}`);
}

/** The name of a service's container in a project (the first one), or '' when it has none. */
export async function containerOf(docker: DockerRun, stack: string, service: string): Promise<string> {
  const listed = await docker.containers(stack);
  return (listed.find((c) => c.Labels['com.docker.compose.service'] === service)?.Names[0] ?? '').slice(1);
}
