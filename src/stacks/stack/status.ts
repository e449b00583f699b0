/**
 * A stack's containers and state as the Docker engine shows them (docs/stacks.md#on-a-real-docker-engine): read from the Engine API
 * with dockerode, by the `com.docker.compose.project` label compose puts on every container it makes
 * (both generations; the project is the stack's name). The engine is the environment's `dockerHost`,
 * or for the local environment (and an environment without one) the process's own (`DOCKER_HOST`, else
 * the default socket), as for compose itself.
 *
 * This is the engine's live state, not a read model: it is outside the event log, asked when a stack is
 * read. Bounded: the engine has STATUS_TIMEOUT_MS for everything one answer needs; past it, or when it
 * cannot be reached, the stacks answer state `unknown` with the reason. An engine that failed is not
 * asked again for FAILURE_HOLD_MS (its stacks answer the same reason at once), so a dead engine does
 * not add its time-out to every list.
 */
import Docker from 'dockerode';
import { parse } from 'yaml';
import type { Environment } from '../contracts.js';
import { isCompletedOneShot } from '../engine/service-health.js';

const STATUS_TIMEOUT_MS = 2_000;
const FAILURE_HOLD_MS = 5_000;
const PROJECT_LABEL = 'com.docker.compose.project';
const SERVICE_LABEL = 'com.docker.compose.service';
const ONEOFF_LABEL = 'com.docker.compose.oneoff';
/** What the engine reports as StartedAt for a container that never started. */
const NEVER = '0001-01-01T00:00:00Z';

type StackState = 'running' | 'unhealthy' | 'partial' | 'stopped' | 'not deployed' | 'unknown';

interface ContainerPort {
  containerPort: number;
  protocol: string;
  hostIp: string | null;
  hostPort: number | null;
}

export interface ContainerStatus {
  service: string | null;
  name: string;
  /** The engine's word: created, running, paused, restarting, removing, exited, dead. */
  state: string;
  /** healthy, unhealthy or starting; null without a health check. */
  health: string | null;
  /** The exit code of a container that exited (or is dead); null for one that runs or never ran. */
  exitCode: number | null;
  /** The image as the compose file names it (`nginx:1.27`). */
  image: string;
  /** The image's id (`sha256:…`), which is the digest of its configuration. */
  imageId: string;
  /**
   * The registry digest (`nginx@sha256:…`) of the repository `image` names; null for an image no
   * registry gave (built, imported) or none of that repository.
   */
  imageDigest: string | null;
  ports: ContainerPort[];
  /** ISO time of its last start; null when it never started. */
  startedAt: string | null;
  /** ISO time it last stopped; null when it never did. */
  finishedAt: string | null;
  /** How often the engine restarted it (its restart policy). */
  restartCount: number;
}

/** What a container's inspection adds to its list entry. */
interface InspectedContainer {
  startedAt?: string;
  finishedAt?: string;
  health?: string;
  exitCode?: number;
  restartCount?: number;
  /** HostConfig.RestartPolicy.Name: `no` (or empty), `always`, `unless-stopped`, `on-failure`. */
  restartPolicy?: string;
}

export interface StackStatus {
  state: StackState;
  /** Why the state is `unknown`; null otherwise. */
  stateReason: string | null;
  /** Null when unknown. */
  containers: ContainerStatus[] | null;
}

/** The label of a container (an own key only: labels are the engine's JSON). */
const labelOf = (labels: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(labels, key) ? labels[key] : undefined;

/** The `services` mapping of a compose text, or undefined when the text cannot be read as one. */
function servicesOf(compose: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = parse(compose, { maxAliasCount: 10_000 });
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || !Object.hasOwn(value, 'services')) return undefined;
  const services = (value as { services: unknown }).services;
  if (services === null || typeof services !== 'object' || Array.isArray(services)) return undefined;
  return services as Record<string, unknown>;
}

const ownKey = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;

/**
 * The services a compose text declares one-shots: `restart: "no"` (or `on-failure`) said outright, or
 * depended on with `condition: service_completed_successfully`. Such a service that exited 0 has done
 * its work; any other that exited 0 was stopped, or stopped by itself when it should run. Pure.
 */
export function oneShotServices(compose: string): Set<string> {
  const out = new Set<string>();
  const services = servicesOf(compose);
  if (services === undefined) return out;
  for (const [name, service] of Object.entries(services)) {
    const restart = ownKey(service, 'restart');
    if (restart !== undefined && /^(?:no|on-failure(?::\d+)?)$/.test(String(restart))) out.add(name);
    const depends = ownKey(service, 'depends_on');
    if (depends === null || typeof depends !== 'object' || Array.isArray(depends)) continue;
    for (const [on, how] of Object.entries(depends as Record<string, unknown>))
      if (ownKey(how, 'condition') === 'service_completed_successfully') out.add(on);
  }
  return out;
}

/**
 * The services v1's `pull` may be given (merged over the base and its override files, in order): those
 * with an `image:` and no `build:` in any of the files — an image compose builds is in no registry, and
 * v1 would fail pulling it — that `up` starts (not behind a profile, unless `profiles` are active ones).
 * Undefined when the base text cannot be read (then `pull` is given no service names). Pure.
 */
export function pullableServices(
  texts: readonly string[],
  profiles: readonly string[] = [],
): string[] | undefined {
  const [base, ...overrides] = texts.map(servicesOf);
  if (base === undefined) return undefined;
  const merged = new Map<string, { image: boolean; build: boolean; profiles: string[] | undefined }>();
  for (const services of [base, ...overrides]) {
    for (const [name, service] of Object.entries(services ?? {})) {
      const known = merged.get(name) ?? { image: false, build: false, profiles: undefined };
      if (ownKey(service, 'image') !== undefined) known.image = true;
      if (ownKey(service, 'build') !== undefined) known.build = true;
      const listed = ownKey(service, 'profiles');
      if (Array.isArray(listed)) known.profiles = listed.map(String);
      merged.set(name, known);
    }
  }
  return [...merged]
    .filter(
      ([, s]) =>
        s.image && !s.build && (s.profiles === undefined || s.profiles.some((p) => profiles.includes(p))),
    )
    .map(([name]) => name);
}

/**
 * The services of a compose text that `up` starts (not those behind a profile, nor scaled to 0), or
 * undefined when the text cannot be read (then only the containers decide the state).
 */
export function startedServices(compose: string): string[] | undefined {
  const services = servicesOf(compose);
  if (services === undefined) return undefined;
  const out: string[] = [];
  for (const [name, service] of Object.entries(services as Record<string, unknown>)) {
    if (service !== null && typeof service === 'object') {
      if (Object.hasOwn(service, 'profiles')) continue;
      const deploy = Object.hasOwn(service, 'deploy') ? (service as { deploy: unknown }).deploy : undefined;
      if (deploy !== null && typeof deploy === 'object' && Object.hasOwn(deploy, 'replicas')) {
        if ((deploy as { replicas: unknown }).replicas === 0) continue;
      }
    }
    out.push(name);
  }
  return out;
}

/**
 * The stack's state from its containers: `not deployed` without any; `stopped` when none runs;
 * `unhealthy` when one that runs fails its health check; `running` when every container runs and every
 * service `up` starts has one running; `partial` otherwise. A one-shot that completed (`completed`: it
 * exited 0 under a policy that leaves it stopped, and the compose file says it is one, `oneShotServices`)
 * counts for its service and is not held against the stack: a migration that ran does not make it
 * `partial` for good.
 */
export function stackStateOf(
  containers: readonly ContainerStatus[],
  services: readonly string[] | undefined,
  completed: ReadonlySet<ContainerStatus> = new Set(),
): Exclude<StackState, 'unknown'> {
  if (containers.length === 0) return 'not deployed';
  const running = containers.filter((c) => c.state === 'running');
  if (running.length === 0) return 'stopped';
  if (running.some((c) => c.health === 'unhealthy')) return 'unhealthy';
  const settled = (c: ContainerStatus) => c.state === 'running' || completed.has(c);
  const missing = (services ?? []).some((s) => !containers.some((c) => c.service === s && settled(c)));
  return containers.every(settled) && !missing ? 'running' : 'partial';
}

/**
 * The repository an image reference names, spelled as the engine spells RepoDigests: `nginx:1.27` →
 * `nginx`, `docker.io/library/nginx` → `nginx`, `reg:5000/team/app:1` → `reg:5000/team/app`, a digest
 * reference `x@sha256:…` → `x`; undefined for an image id (`sha256:…`, a pinned service). Pure.
 */
export function repositoryOf(reference: string): string | undefined {
  if (/^(?:sha256:)?[0-9a-f]{64}$/.test(reference)) return undefined;
  let name = reference.split('@')[0] ?? reference;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > slash) name = name.slice(0, colon);
  return name.replace(/^(?:docker\.io|index\.docker\.io)\//, '').replace(/^library\//, '');
}

/**
 * The registry digest of the repository the container's image reference names, among the image's
 * RepoDigests (an image pulled from several repositories has one per repository); null when none is of
 * that repository (then a pin uses the image id). Pure.
 */
export function digestFor(reference: string, repoDigests: readonly string[] | undefined): string | null {
  const repository = repositoryOf(reference);
  if (repository === undefined) return null;
  return repoDigests?.find((d) => repositoryOf(d) === repository) ?? null;
}

/** One container as the answer shows it, from the engine's list entry and its inspection. */
export function containerStatusOf(
  listed: Docker.ContainerInfo,
  inspected: InspectedContainer | undefined,
  repoDigests: readonly string[] | undefined,
): ContainerStatus {
  const started = inspected?.startedAt;
  const finished = inspected?.finishedAt;
  return {
    service: labelOf(listed.Labels ?? {}, SERVICE_LABEL) ?? null,
    name: (listed.Names?.[0] ?? listed.Id).replace(/^\//, ''),
    state: listed.State,
    health: inspected?.health ?? null,
    exitCode:
      (listed.State === 'exited' || listed.State === 'dead') && started && started !== NEVER
        ? (inspected?.exitCode ?? null)
        : null,
    image: listed.Image,
    imageId: listed.ImageID,
    imageDigest: digestFor(listed.Image, repoDigests),
    ports: (listed.Ports ?? [])
      .map((p) => ({
        containerPort: p.PrivatePort,
        protocol: p.Type,
        hostIp: p.IP ?? null,
        hostPort: p.PublicPort ?? null,
      }))
      .sort((a, b) => a.containerPort - b.containerPort || (a.hostIp ?? '').localeCompare(b.hostIp ?? '')),
    startedAt: started && started !== NEVER ? started : null,
    finishedAt: finished && finished !== NEVER ? finished : null,
    restartCount: inspected?.restartCount ?? 0,
  };
}

/** How dockerode reaches a `dockerHost` (unix://, tcp://, ssh://), or why it cannot. */
export function engineOptions(dockerHost: string): Docker.DockerOptions | { error: string } {
  if (dockerHost.startsWith('unix://')) return { socketPath: dockerHost.slice('unix://'.length) };
  let url: URL;
  try {
    url = new URL(dockerHost);
  } catch {
    return { error: `dockerHost ${JSON.stringify(dockerHost)} is not a URL` };
  }
  if (url.protocol === 'tcp:')
    return { host: url.hostname, port: url.port || 2375, protocol: url.port === '2376' ? 'https' : 'http' };
  if (url.protocol === 'ssh:')
    return {
      host: url.hostname,
      port: url.port || 22,
      protocol: 'ssh',
      username: decodeURIComponent(url.username) || 'root',
      ...(process.env.SSH_AUTH_SOCK ? { sshOptions: { agent: process.env.SSH_AUTH_SOCK } } : {}),
    };
  return {
    error: `dockerHost ${JSON.stringify(dockerHost)}: the engine is reached over unix://, tcp:// or ssh://`,
  };
}

interface Engine {
  where: string;
  docker?: Docker;
  error?: string;
  /** The last failure and when it was, held for FAILURE_HOLD_MS. */
  failed?: { reason: string; at: number };
}

class EngineTimeout extends Error {}

/** Reads stacks' status from their engines; one per server. */
export class StackStatusReader {
  private readonly engines = new Map<string, Engine>();

  constructor(private readonly options: { timeoutMs?: number; holdMs?: number } = {}) {}

  private engineOf(environment: Environment | null): Engine {
    const dockerHost = environment?.dockerHost;
    const key = dockerHost ?? '';
    let engine = this.engines.get(key);
    if (!engine) {
      const timeout = this.options.timeoutMs ?? STATUS_TIMEOUT_MS;
      const where = dockerHost ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
      const options = dockerHost === undefined ? {} : engineOptions(dockerHost);
      engine =
        'error' in options
          ? { where, error: options.error }
          : { where, docker: new Docker({ ...options, timeout }) };
      this.engines.set(key, engine);
    }
    return engine;
  }

  /**
   * The engine client of an environment, or why there is none: a `dockerHost` dockerode cannot reach, or
   * a failure of the last FAILURE_HOLD_MS (`failed` notes one).
   */
  client(environment: Environment | null): { docker: Docker } | { error: string } {
    const engine = this.engineOf(environment);
    if (engine.error !== undefined) return { error: engine.error };
    const holdMs = this.options.holdMs ?? FAILURE_HOLD_MS;
    if (engine.failed && Date.now() - engine.failed.at < holdMs) return { error: engine.failed.reason };
    return { docker: engine.docker as Docker };
  }

  /** Notes that the engine of an environment failed to answer (held like a failed status read). */
  failed(environment: Environment | null, error: unknown): string {
    const engine = this.engineOf(environment);
    const reason = `The Docker engine (${engine.where}) cannot be reached: ${(error as Error).message}`;
    engine.failed = { reason, at: Date.now() };
    return reason;
  }

  /**
   * The status of each stack (by name) of one environment; `compose` gives the services `up` starts.
   * Never rejects: an engine that fails makes every stack `unknown` with the reason.
   */
  async statuses(
    environment: Environment | null,
    stacks: ReadonlyArray<{ name: string; compose?: string }>,
  ): Promise<Map<string, StackStatus>> {
    const engine = this.engineOf(environment);
    const unknown = (reason: string) =>
      new Map(
        stacks.map((s) => [s.name, { state: 'unknown' as const, stateReason: reason, containers: null }]),
      );
    if (stacks.length === 0) return new Map();
    if (engine.error !== undefined) return unknown(engine.error);
    const holdMs = this.options.holdMs ?? FAILURE_HOLD_MS;
    if (engine.failed && Date.now() - engine.failed.at < holdMs) return unknown(engine.failed.reason);
    const timeoutMs = this.options.timeoutMs ?? STATUS_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      const containers = await Promise.race([
        this.read(engine.docker as Docker, stacks.length === 1 ? stacks[0]?.name : undefined),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new EngineTimeout()), timeoutMs);
        }),
      ]);
      engine.failed = undefined;
      const out = new Map<string, StackStatus>();
      for (const stack of stacks) {
        const own = containers.byProject.get(stack.name) ?? [];
        const services = stack.compose === undefined ? undefined : startedServices(stack.compose);
        const oneShots = stack.compose === undefined ? new Set<string>() : oneShotServices(stack.compose);
        const done = new Set(
          own.filter((c) => containers.completed.has(c) && c.service !== null && oneShots.has(c.service)),
        );
        const state = stackStateOf(own, services, done);
        out.set(stack.name, { state, stateReason: null, containers: own });
      }
      return out;
    } catch (error) {
      const reason =
        error instanceof EngineTimeout
          ? `The Docker engine (${engine.where}) did not answer within ${timeoutMs / 1000} s`
          : `The Docker engine (${engine.where}) cannot be reached: ${(error as Error).message}`;
      engine.failed = { reason, at: Date.now() };
      return unknown(reason);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The compose containers on an engine (of one project, or of all), with their status, by project. */
  private async read(
    docker: Docker,
    project: string | undefined,
  ): Promise<{ byProject: Map<string, ContainerStatus[]>; completed: ReadonlySet<ContainerStatus> }> {
    const listed = await docker.listContainers({
      all: true,
      filters: { label: [project === undefined ? PROJECT_LABEL : `${PROJECT_LABEL}=${project}`] },
    });
    const services = listed.filter((c) => labelOf(c.Labels ?? {}, ONEOFF_LABEL) !== 'True');
    const [inspected, digests] = await Promise.all([
      Promise.all(
        services.map((c) =>
          docker
            .getContainer(c.Id)
            .inspect()
            .then(
              (info): InspectedContainer => ({
                startedAt: info.State.StartedAt,
                finishedAt: info.State.FinishedAt,
                health: info.State.Health?.Status,
                exitCode: info.State.ExitCode,
                restartCount: info.RestartCount,
                restartPolicy: info.HostConfig?.RestartPolicy?.Name ?? '',
              }),
              // Removed between the list and now: listed without these details.
              () => undefined,
            ),
        ),
      ),
      this.repoDigests(docker, [...new Set(services.map((c) => c.ImageID))]),
    ]);
    const out = new Map<string, ContainerStatus[]>();
    const completed = new Set<ContainerStatus>();
    services.forEach((c, i) => {
      const name = labelOf(c.Labels ?? {}, PROJECT_LABEL) ?? '';
      const list = out.get(name) ?? [];
      const status = containerStatusOf(c, inspected[i], digests.get(c.ImageID));
      if (isCompletedOneShot(status.state, status.exitCode ?? -1, inspected[i]?.restartPolicy ?? ''))
        completed.add(status);
      list.push(status);
      out.set(name, list);
    });
    for (const list of out.values()) list.sort((a, b) => a.name.localeCompare(b.name));
    // Exited 0 under a policy that leaves it stopped: a one-shot done, if the compose file says it is one.
    return { byProject: out, completed };
  }

  private async repoDigests(docker: Docker, ids: readonly string[]): Promise<Map<string, string[]>> {
    const found = await Promise.all(
      ids.map((id) =>
        docker
          .getImage(id)
          .inspect()
          .then(
            (image) => [id, image.RepoDigests ?? []] as const,
            () => [id, []] as const,
          ),
      ),
    );
    return new Map(found.map(([id, digests]) => [id, [...digests]]));
  }
}
