/**
 * Containers an interrupted compose left under a temporary name, removed before every `up`.
 *
 * Recreating a container, both generations hold two containers of one service for a moment, one of them
 * under the name `<12 hex digits>_<its name>`: Compose v2 (2.26) creates the new container as
 * `<old id[:12]>_<name>`, stops and removes the old one, then renames the new one; Compose v1 (1.29)
 * stops the old container, renames it `<its id[:12]>_<name>`, creates and starts the new one, then
 * removes the old. A compose stopped in between (a server killed during a deploy, whose compose a
 * restart stops: instances/interrupted-work.ts) leaves the renamed container behind, and the next `up` fails on it (v2:
 * `Conflict. The container name "/a39be9fcdc0a_builder-app-1" is already in use`, as it takes the same
 * temporary name again). The renamed container is the half of the swap that is not wanted: v2's is
 * the new one that never got its name, v1's the old one already stopped. Removing it leaves the
 * service as compose had it before (or without a container), which the `up` then recreates. Its
 * anonymous volumes are kept (not removed with it), as compose's own removal of the old one keeps them.
 */
import type Docker from 'dockerode';

const PROJECT_LABEL = 'com.docker.compose.project';
const SERVICE_LABEL = 'com.docker.compose.service';
/** Compose's temporary name: a container id's first 12 hex digits, `_`, the container's own name. */
const RENAMED_NAME = /^[0-9a-f]{12}_./;

export interface RenamedLeftover {
  id: string;
  name: string;
}

/** Of a project's containers as the engine lists them: those under compose's temporary name. */
export function renamedLeftovers(containers: readonly Docker.ContainerInfo[]): RenamedLeftover[] {
  const found: RenamedLeftover[] = [];
  for (const container of containers) {
    // A compose container always has its service; anything else is not compose's to clean.
    if (container.Labels?.[SERVICE_LABEL] === undefined) continue;
    const name = (container.Names?.[0] ?? '').replace(/^\//, '');
    if (RENAMED_NAME.test(name)) found.push({ id: container.Id, name });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

export interface RemovedLeftovers {
  /** Names of the containers removed. */
  removed: string[];
  /** Those the engine would not remove, with its reason. */
  failed: Array<{ name: string; reason: string }>;
}

/** The renamed leftovers of project `project` on an engine; rejects when the engine cannot list them. */
export async function findRenamedLeftovers(docker: Docker, project: string): Promise<RenamedLeftover[]> {
  const listed = await docker.listContainers({
    all: true,
    filters: { label: [`${PROJECT_LABEL}=${project}`] },
  });
  return renamedLeftovers(listed);
}

/** Removes leftovers (forced: v2's may have been started); `signal` ends the wait for the engine. */
export async function removeRenamedLeftovers(
  docker: Docker,
  leftovers: readonly RenamedLeftover[],
  signal: AbortSignal,
): Promise<RemovedLeftovers> {
  const result: RemovedLeftovers = { removed: [], failed: [] };
  for (const leftover of leftovers) {
    try {
      await docker.getContainer(leftover.id).remove({ force: true, abortSignal: signal });
      result.removed.push(leftover.name);
    } catch (error) {
      // Gone meanwhile: nothing is left to trip over, and this deploy removed nothing.
      if ((error as { statusCode?: number }).statusCode === 404) continue;
      result.failed.push({ name: leftover.name, reason: (error as Error).message });
    }
  }
  return result;
}

/** The output line of one removed leftover (run log and job). */
export const removedLine = (name: string) =>
  `Removed container ${name}: an interrupted compose left it renamed while recreating a service`;

/** The output line of one the engine would not remove; compose's `up` then fails on it. */
export const notRemovedLine = (name: string, reason: string) =>
  `Could not remove container ${name}, left renamed by an interrupted compose: ${reason}`;
