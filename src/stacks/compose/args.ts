/**
 * The compose program's argument lists and environment (docs/stacks.md#jobs-runs-and-how-compose-runs). Pure: the caller passes the
 * program and the process environment in, so the result depends on nothing else.
 *
 * Arguments differ by generation (checked against `docker-compose <cmd> --help` of 1.29.2 and
 * `docker compose <cmd> --help` of v2): v1 has no `up --pull`, so a deploy with `pull` runs
 * `pull` first and then `up` without it, and no `up --wait`. Every other flag used here (`--project-name`, `--file`,
 * `up --detach --remove-orphans --build --force-recreate`, `stop`, `start`, `restart`, `down`) is
 * the same in both. v1 given a flag it does not know prints its usage and exits 0, so a step whose
 * output holds compose's usage text has failed whatever its exit code (`isUsageLine`).
 */
import type { DeployOptions } from '../../../streams/stacks.js';
import type { Environment, StackVariable } from '../contracts.js';
import type { ComposeGeneration } from './program.js';
import { isRefusedVariableName, refusedVariableMessage } from './variable-names.js';

export type ComposeOperation = 'up' | 'stop' | 'start' | 'restart' | 'down';

export interface ComposeTarget {
  /** The compose command, e.g. `["docker", "compose"]` or `["docker-compose"]`. */
  command: readonly string[];
  /** Its generation: which arguments it takes. */
  generation: ComposeGeneration;
  /** The stack name, used as the compose project name. */
  project: string;
  /** Absolute path of the stack's compose file. */
  composeFile: string;
  /** Override files after it, in order (absolute paths). */
  overrides?: readonly string[];
  /**
   * The services v1's `pull` is given (stack/status.ts `pullableServices`: those with an image and no
   * build); none: no `pull` step. Undefined: `pull` of every service.
   */
  pullable?: readonly string[];
}

/** One compose invocation of an operation: its argv (program first) and its subcommand. */
export interface ComposeStep {
  subcommand: ComposeOperation | 'pull';
  argv: string[];
  /** Its own working directory (a fallback of a broken file, stacks-service.ts); the stack's by default. */
  cwd?: string;
}

/**
 * `stop`/`start`/`restart`/`down` of a project whose compose file compose refuses: v2 by the project's
 * name alone (it finds the containers by their labels; run where no compose file is, or it would load
 * one), v1 with the last file that deployed (`lastGood`), which it needs; undefined without one.
 */
export function fallbackStep(
  target: Omit<ComposeTarget, 'composeFile'>,
  operation: Exclude<ComposeOperation, 'up'>,
  places: { emptyDir: string; lastGood: string | undefined },
): ComposeStep | undefined {
  const base = [...target.command, '--project-name', target.project];
  if (target.generation === 'v2')
    return { subcommand: operation, argv: [...base, operation], cwd: places.emptyDir };
  if (places.lastGood === undefined) return undefined;
  return { subcommand: operation, argv: [...base, '--file', places.lastGood, operation] };
}

/**
 * The steps of an operation, in order: one, or `pull` then `up` for a v1 deploy with `pull`. v2's `up`
 * waits for its services (`--wait`: running, healthy where they have a health check) for at most
 * `waitSeconds` (the job's time left); v1 has no such flag, runs/deploy.ts asks the engine after its `up`.
 */
export function composeSteps(
  target: ComposeTarget,
  operation: ComposeOperation,
  options?: DeployOptions,
  waitSeconds = 0,
): ComposeStep[] {
  if (target.command.length === 0) throw new Error('compose.command is empty');
  const base = [
    ...target.command,
    '--project-name',
    target.project,
    '--file',
    target.composeFile,
    ...(target.overrides ?? []).flatMap((file) => ['--file', file]),
  ];
  // v2's `down` removes only the containers of the profiles active now; `*` takes those of every
  // profile, also one no longer active (v1's `down` removes them all anyway).
  if (operation === 'down' && target.generation === 'v2')
    return [{ subcommand: operation, argv: [...base, '--profile', '*', operation] }];
  if (operation !== 'up') return [{ subcommand: operation, argv: [...base, operation] }];
  const up = [...base, 'up', '--detach', '--remove-orphans'];
  const steps: ComposeStep[] = [];
  if (options?.pull) {
    if (target.generation === 'v2') up.push('--pull', 'always');
    else if (target.pullable === undefined) steps.push({ subcommand: 'pull', argv: [...base, 'pull'] });
    else if (target.pullable.length > 0)
      steps.push({ subcommand: 'pull', argv: [...base, 'pull', ...target.pullable] });
  }
  if (options?.build) up.push('--build');
  if (options?.forceRecreate) up.push('--force-recreate');
  if (target.generation === 'v2' && waitSeconds > 0) up.push('--wait', '--wait-timeout', String(waitSeconds));
  steps.push({ subcommand: 'up', argv: up });
  return steps;
}

/**
 * Whether a line is v2's `up --wait` giving up on a container (2.26: `container x-app-1 exited (3)`,
 * `container x-web-1 is unhealthy`, `application not healthy after 30s`): the services, not compose,
 * failed, and the engine decides (a one-shot that exited 0 is fine, which `--wait` does not know).
 */
export function isWaitFailureLine(line: string): boolean {
  return /^(?:container \S+ (?:exited \(-?\d+\)|is unhealthy)|application not healthy after \d+s)$/.test(
    line.trim(),
  );
}

/**
 * Whether a line is compose's `start` refusing a project that has no containers (after a `down`): v2's
 * `service "worker" has no container to start`, v1's `No containers to start` (1.29; `ERROR: ` before it in
 * some builds). runs/deploy.ts then
 * creates them with `up`.
 */
export function isNoContainerToStartLine(line: string): boolean {
  const text = line.trim();
  return (
    /^service "[^"]*" has no container to start$/.test(text) ||
    /^(?:ERROR: )?No containers to start$/.test(text)
  );
}

/**
 * Whether an output line is compose's usage text, printed when it did not accept its arguments: v1's
 * `Usage: up [options] ...` (a subcommand's) or `  docker-compose [-f <arg>...] ...` (the top level's,
 * under a bare `Usage:`), v2's `Usage:  docker compose up [OPTIONS] ...`. Only the step's own
 * subcommand counts: a build step's program may print a usage of its own (`Usage: npm <command>`).
 */
export function isUsageLine(line: string, subcommand: ComposeStep['subcommand']): boolean {
  if (/^\s+docker-compose \[-f <arg>\.\.\.\]/.test(line)) return true;
  const m = /^Usage:\s+(?:docker(?:-| )compose\s+)?(\S+)/.exec(line);
  return m !== null && m[1] === subcommand;
}

/** The engine of the local environment (and of an environment without `dockerHost`) without DOCKER_HOST. */
export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

/**
 * The child's environment: process env, then the stack's variables, then the provider's secrets, then
 * DOCKER_HOST; a later source wins. DOCKER_HOST is always set, last: the environment's `dockerHost`, else
 * the process's own, else the default socket, so compose runs against the engine the stack's status is
 * read from, whatever else says otherwise. A variable or secret whose name steers the program
 * (variable-names.ts) is refused here too: one written into `.env` behind the API's back, or printed by
 * a provider, must not reach the program either.
 */
export function composeEnv(
  processEnv: Readonly<Record<string, string | undefined>>,
  variables: readonly StackVariable[],
  providerSecrets: Readonly<Record<string, string>>,
  environment: Environment | null,
): Record<string, string> {
  // Without a prototype: `env.__proto__ = value` on a plain object would drop a variable of that name.
  const env: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(processEnv)) if (v !== undefined) env[k] = v;
  for (const v of variables) {
    if (isRefusedVariableName(v.name)) throw new Error(refusedVariableMessage("The stack's .env", v.name));
    env[v.name] = v.value;
  }
  for (const [k, v] of Object.entries(providerSecrets)) {
    if (isRefusedVariableName(k)) throw new Error(refusedVariableMessage('The secret provider', k));
    env[k] = v;
  }
  env.DOCKER_HOST = environment?.dockerHost || processEnv.DOCKER_HOST || DEFAULT_DOCKER_HOST;
  return env;
}
