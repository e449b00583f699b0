/**
 * Whether a deploy's services came up: after `up`, every container it started must be running (and
 * healthy where it has a health check) or have completed as a one-shot; a container that exited non-zero
 * or turned unhealthy fails the run. Compose v1's `up -d` returns as soon as the containers are started,
 * and v2's `up --wait` stops at the first container that exits, one-shots included (`container x exited
 * (0)`), so the engine is asked until every container is settled (runs/deploy.ts decides when).
 *
 * `judge` is pure: one look at the containers gives ready, waiting or failed. `watchServices` asks the
 * engine (dockerode) until the answer is not `waiting` or the deadline passes.
 */
import type Docker from 'dockerode';

/** What the engine says of one container, as far as its judgement goes. */
export interface ContainerRun {
  name: string;
  service: string | null;
  /** The engine's state: created, running, paused, restarting, removing, exited, dead. */
  state: string;
  exitCode: number;
  /** healthy, unhealthy, starting; null without a health check. */
  health: string | null;
  /** HostConfig.RestartPolicy.Name: `no` (or empty), `always`, `unless-stopped`, `on-failure`. */
  restartPolicy: string;
  restartCount: number;
}

/** Why a container holds the deploy back or fails it, in words for the run's error. */
interface Verdict {
  container: ContainerRun;
  reason: string;
}

type Judgement =
  | { kind: 'ready' }
  | { kind: 'waiting'; pending: Verdict[] }
  | { kind: 'failed'; failed: Verdict[] };

/** Policies under which the engine starts a container again after it exited 0. */
const RESTARTS_AFTER_SUCCESS = new Set(['always', 'unless-stopped']);

const serviceOf = (c: ContainerRun) => c.service ?? c.name;

/**
 * A one-shot that completed (a migration, an init step): it exited 0 under a restart policy that leaves
 * it stopped. Pure.
 */
export const isCompletedOneShot = (state: string, exitCode: number, restartPolicy: string): boolean =>
  (state === 'exited' || state === 'dead') && exitCode === 0 && !RESTARTS_AFTER_SUCCESS.has(restartPolicy);

/**
 * One look at the containers an `up` started. `oneShots`: the services the compose file declares
 * one-shots (stack/status.ts `oneShotServices`); one of them that exited 0 is done, any other that
 * exited 0 stopped when it should run (as v2's `--wait` sees it too). Pure.
 */
export function judge(containers: readonly ContainerRun[], oneShots: ReadonlySet<string>): Judgement {
  const failed: Verdict[] = [];
  const pending: Verdict[] = [];
  for (const c of containers) {
    const what = `Service ${serviceOf(c)} (container ${c.name})`;
    switch (c.state) {
      case 'running':
        if (c.health === 'unhealthy') failed.push({ container: c, reason: `${what} is unhealthy` });
        else if (c.health === 'starting')
          pending.push({ container: c, reason: `${what} is still starting (health: starting)` });
        break;
      case 'paused':
        break;
      case 'exited':
      case 'dead':
        if (isCompletedOneShot(c.state, c.exitCode, c.restartPolicy) && oneShots.has(serviceOf(c))) break;
        if (c.exitCode === 0 && RESTARTS_AFTER_SUCCESS.has(c.restartPolicy))
          pending.push({ container: c, reason: `${what} exited with code 0 and is restarted` });
        else failed.push({ container: c, reason: `${what} exited with code ${c.exitCode}` });
        break;
      case 'restarting':
        pending.push({
          container: c,
          reason: `${what} keeps restarting (last exit code ${c.exitCode}, restarted ${c.restartCount} times)`,
        });
        break;
      default:
        pending.push({ container: c, reason: `${what} is ${c.state}, not running` });
    }
  }
  if (failed.length > 0) return { kind: 'failed', failed };
  if (pending.length > 0) return { kind: 'waiting', pending };
  return { kind: 'ready' };
}

/**
 * The text of a container's log as the Engine API gives it without a TTY: frames of an 8-byte header
 * (stream, three zero bytes, length big-endian) and the payload. Text that is not framed (a TTY
 * container) is taken as it is. Pure.
 */
export function demuxLog(buffer: Buffer): string {
  let at = 0;
  const parts: Buffer[] = [];
  while (at + 8 <= buffer.length) {
    const stream = buffer[at];
    if (
      (stream !== 1 && stream !== 2) ||
      buffer[at + 1] !== 0 ||
      buffer[at + 2] !== 0 ||
      buffer[at + 3] !== 0
    )
      return buffer.toString('utf8');
    const size = buffer.readUInt32BE(at + 4);
    parts.push(buffer.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return at === 0 && buffer.length > 0 ? buffer.toString('utf8') : Buffer.concat(parts).toString('utf8');
}

const PROJECT_LABEL = 'com.docker.compose.project';
const SERVICE_LABEL = 'com.docker.compose.service';
const ONEOFF_LABEL = 'com.docker.compose.oneoff';
/** How often the engine is asked while containers settle. */
const POLL_MS = 500;
/** Lines of a failed container's log its run's error shows. */
const LOG_TAIL_LINES = 5;

interface WatchOptions {
  /** Until when (ms since the epoch) the containers may settle. */
  deadline: number;
  /** Only these containers (names, as compose printed them); all of the project's when empty. */
  names: ReadonlySet<string>;
  /** The services the compose file declares one-shots (see `judge`). */
  oneShots: ReadonlySet<string>;
  /** Asked before each look: true stops the watch (the server is stopping). */
  stopped?: () => boolean;
  pollMs?: number;
}

/** What the watch found: ready, or the error text of the containers that failed or never settled. */
export type WatchResult = { ready: true } | { ready: false; error: string; timedOut: boolean };

/** The project's service containers as `judge` wants them (those `names` lists, when it lists any). */
async function look(docker: Docker, project: string, names: ReadonlySet<string>): Promise<ContainerRun[]> {
  const listed = await docker.listContainers({
    all: true,
    filters: { label: [`${PROJECT_LABEL}=${project}`] },
  });
  const ours = listed.filter((c) => c.Labels?.[ONEOFF_LABEL] !== 'True');
  const nameOf = (c: Docker.ContainerInfo) => (c.Names?.[0] ?? c.Id).replace(/^\//, '');
  const chosen = names.size === 0 ? ours : ours.filter((c) => names.has(nameOf(c)));
  const runs = await Promise.all(
    chosen.map(async (c): Promise<ContainerRun | undefined> => {
      const info = await docker
        .getContainer(c.Id)
        .inspect()
        .catch(() => undefined);
      if (!info) return undefined;
      return {
        name: nameOf(c),
        service: c.Labels?.[SERVICE_LABEL] ?? null,
        state: info.State.Status,
        exitCode: info.State.ExitCode,
        health: info.State.Health?.Status ?? null,
        restartPolicy: info.HostConfig.RestartPolicy?.Name ?? '',
        restartCount: info.RestartCount ?? 0,
      };
    }),
  );
  return runs.filter((r): r is ContainerRun => r !== undefined).sort((a, b) => a.name.localeCompare(b.name));
}

/** A failed container's last log lines, indented under its reason; nothing when the engine gives none. */
async function lastLines(docker: Docker, name: string): Promise<string[]> {
  try {
    const raw = (await docker
      .getContainer(name)
      .logs({ stdout: true, stderr: true, tail: LOG_TAIL_LINES, follow: false })) as unknown as Buffer;
    return demuxLog(Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw)))
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .slice(-LOG_TAIL_LINES);
  } catch {
    return [];
  }
}

/** The error text of a failed watch: each container's reason, then its last log lines. */
async function describe(docker: Docker, verdicts: readonly Verdict[]): Promise<string> {
  const blocks = await Promise.all(
    verdicts.map(async (v) => {
      const lines = await lastLines(docker, v.container.name);
      return lines.length === 0
        ? `${v.reason}`
        : `${v.reason}; its last log lines:\n${lines.map((l) => `  ${l}`).join('\n')}`;
    }),
  );
  return blocks.join('\n');
}

/**
 * Asks the engine until every container of the project that `up` started is ready, one fails, or the
 * deadline passes (then the ones not ready fail it, with their reason). Rejects only when the engine
 * cannot be asked at all.
 */
export async function watchServices(
  docker: Docker,
  project: string,
  options: WatchOptions,
): Promise<WatchResult> {
  const pollMs = options.pollMs ?? POLL_MS;
  for (;;) {
    const judgement = judge(await look(docker, project, options.names), options.oneShots);
    if (judgement.kind === 'ready') return { ready: true };
    if (judgement.kind === 'failed')
      return { ready: false, error: await describe(docker, judgement.failed), timedOut: false };
    const late = Date.now() + pollMs > options.deadline;
    if (late || options.stopped?.())
      return { ready: false, error: await describe(docker, judgement.pending), timedOut: late };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
