/**
 * The compose program's argument list and environment (CONTRACT.md). Pure: the caller passes the
 * process environment in, so the result depends on nothing else.
 */
import type { DeployOptions } from '../../streams/stacks.js';
import type { Environment, StackVariable } from './types.js';

export type ComposeOperation = 'up' | 'stop' | 'start' | 'restart' | 'down';

export interface ComposeTarget {
  /** The config's `compose.command`, e.g. `["docker", "compose"]`. */
  command: readonly string[];
  /** The stack name, used as the compose project name. */
  project: string;
  /** Absolute path of the stack's compose file. */
  composeFile: string;
}

/** The argv (program first) for `up` with the deploy options, or for another operation. */
export function composeArgv(
  target: ComposeTarget,
  operation: ComposeOperation,
  options?: DeployOptions,
): string[] {
  if (target.command.length === 0) throw new Error('compose.command is empty');
  const argv = [...target.command, '--project-name', target.project, '--file', target.composeFile, operation];
  if (operation === 'up') {
    argv.push('--detach', '--remove-orphans');
    if (options?.pull) argv.push('--pull', 'always');
    if (options?.build) argv.push('--build');
    if (options?.forceRecreate) argv.push('--force-recreate');
  }
  return argv;
}

/**
 * The child's environment: process env, then the stack's variables, then the provider's secrets, then
 * the environment's DOCKER_HOST; a later source wins. DOCKER_HOST comes last on purpose: a stack of an
 * environment must run against that environment's engine, whatever its variables say. Without a
 * dockerHost (the local environment) the process's own DOCKER_HOST, if any, stays.
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
  for (const v of variables) env[v.name] = v.value;
  for (const [k, v] of Object.entries(providerSecrets)) env[k] = v;
  if (environment?.dockerHost) env.DOCKER_HOST = environment.dockerHost;
  return env;
}
