/**
 * Names a stack variable (or a secret provider's value) may not have (docs/security.md#what-an-edit-grant-can-reach). The
 * variables are laid over the compose program's environment, so a name that steers the program itself
 * would hand the stack's author the server: `PATH` picks which `docker` runs (as the server's user),
 * `LD_PRELOAD` loads a library into it, `DOCKER_HOST` deploys on another engine than the environment's,
 * `HOME`/`DOCKER_CONFIG` choose the CLI plugins and credential helpers that run, `COMPOSE_FILE` or
 * `COMPOSE_PROJECT_NAME` point compose at another stack's files or containers, `BUILDKIT_*` steers the
 * builder. Compose v1 is a Python program: `PYTHONPATH`, `PYTHONHOME`, `PYTHONWARNINGS`... load code
 * into it. Names are compared without regard to case, so no spelling slips past.
 */

/** Names refused whole. */
const REFUSED_NAMES = new Set(['PATH', 'HOME']);
/** Prefixes refused (`DOCKER` alone is allowed: only `DOCKER_*` names are the CLI's). */
const REFUSED_PREFIXES = ['LD_', 'DOCKER_', 'BUILDKIT_', 'COMPOSE_', 'PYTHON'] as const;
/** Names of a refused prefix that only choose among the stack's own services. */
const ALLOWED_COMPOSE_NAMES: readonly string[] = ['COMPOSE_PROFILES'];

/** The rule as a 400 states it. */
const REFUSED_NAMES_RULE =
  'PATH, HOME, LD_*, DOCKER_*, BUILDKIT_*, COMPOSE_* (but COMPOSE_PROFILES) and PYTHON* steer the compose program and are refused';

/** Whether a variable of this name would steer the compose program rather than the stack. */
export function isRefusedVariableName(name: string): boolean {
  const upper = name.toUpperCase();
  if (ALLOWED_COMPOSE_NAMES.includes(upper)) return false;
  if (REFUSED_NAMES.has(upper)) return true;
  return REFUSED_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** What a refusal says of a name (a 400 at save time, a failed run at deploy time). */
export const refusedVariableMessage = (where: string, name: string) =>
  `${where}: the variable name ${name} is refused (${REFUSED_NAMES_RULE})${
    name.toUpperCase() === 'COMPOSE_FILE'
      ? "; override files are named in a git stack's `files` list (compose is given them after composePath)"
      : ''
  }`;
