/**
 * The compose projects an engine runs, as its containers' labels tell them: compose (both generations)
 * labels every container with its project, service, working dir and the compose files it was started
 * from. What the adoption of a project (adoption.ts) starts from.
 */
import { isAbsolute, join } from 'node:path';
import type Docker from 'dockerode';

const PROJECT_LABEL = 'com.docker.compose.project';
const SERVICE_LABEL = 'com.docker.compose.service';
const WORKING_DIR_LABEL = 'com.docker.compose.project.working_dir';
const CONFIG_FILES_LABEL = 'com.docker.compose.project.config_files';
/** Set by v2 for the `.env` (or `--env-file`) it read; v1 sets none. */
const ENVIRONMENT_FILE_LABEL = 'com.docker.compose.project.environment_file';

interface ProjectContainer {
  name: string;
  service: string | null;
  /** The engine's word: running, exited… */
  state: string;
}

export interface EngineProject {
  name: string;
  /** The folder compose ran in (the working_dir label of its newest container), null when unlabelled. */
  workingDir: string | null;
  /**
   * The compose files it was started from, in order: v2 labels absolute paths, v1 the paths as given
   * (`compose.yaml`), which are made absolute here against the working dir.
   */
  configFiles: string[];
  /** The environment files v2 read (its label); empty when none is labelled (v1 labels none). */
  environmentFiles: string[];
  services: string[];
  containers: ProjectContainer[];
  running: number;
}

const listLabel = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * Groups listed containers into projects, by name. The labels of a project's newest container win:
 * a project started again from other files says so on the containers it recreated.
 */
export function projectsOf(containers: readonly Docker.ContainerInfo[]): EngineProject[] {
  const newestFirst = [...containers].sort((a, b) => b.Created - a.Created);
  const projects = new Map<string, EngineProject>();
  for (const c of newestFirst) {
    const labels = c.Labels ?? {};
    const name = labels[PROJECT_LABEL];
    if (name === undefined || name === '') continue;
    let project = projects.get(name);
    if (!project) {
      const workingDir = labels[WORKING_DIR_LABEL] || null;
      const within = (f: string) => (isAbsolute(f) || workingDir === null ? f : join(workingDir, f));
      project = {
        name,
        workingDir,
        configFiles: listLabel(labels[CONFIG_FILES_LABEL]).map(within),
        environmentFiles: listLabel(labels[ENVIRONMENT_FILE_LABEL]).map(within),
        services: [],
        containers: [],
        running: 0,
      };
      projects.set(name, project);
    }
    const service = labels[SERVICE_LABEL] || null;
    if (service !== null && !project.services.includes(service)) project.services.push(service);
    project.containers.push({ name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''), service, state: c.State });
    if (c.State === 'running') project.running += 1;
  }
  for (const p of projects.values()) {
    p.services.sort();
    p.containers.sort((a, b) => a.name.localeCompare(b.name));
  }
  return [...projects.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Every compose project the engine holds a container of (running or not). */
export async function engineProjects(docker: Docker): Promise<EngineProject[]> {
  const listed = await docker.listContainers({ all: true, filters: { label: [PROJECT_LABEL] } });
  return projectsOf(listed);
}
