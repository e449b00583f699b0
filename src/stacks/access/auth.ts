import { createHash, timingSafeEqual } from 'node:crypto';
import type { EnvironmentId } from '../../../streams/stacks.js';
import type { StackAction, StacksConfig, User } from '../contracts.js';

/**
 * Who a request is and what it may do: the users and grants of the config
 * (docs/security.md#who-can-do-what). Pure functions; routes call them and answer with the decision.
 *
 * `view` and `edit` are separate actions, as the spec lists them: a grant of `edit` alone does not let
 * its holder list or read runs. A config wanting both names both (`"actions": ["view", "edit"]`).
 * Admins pass every check.
 */

/** The permission resource this service checks. */
export const STACKS_RESOURCE = 'stacks';

export type AccessDecision = { ok: true } | { ok: false; status: 403; error: string };

const ALLOWED: AccessDecision = { ok: true };
const forbidden = (error: string): AccessDecision => ({
  ok: false,
  status: 403,
  error: `forbidden: ${error}`,
});

// Fixed-length digests make the comparison constant-time whatever the tokens' lengths.
const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The user whose token the `Authorization` header carries (`Bearer <token>`, the scheme in any case as
 * RFC 9110 says), or undefined. Every user's token is compared, in constant time, so neither timing nor
 * the order of users tells anything about a token.
 */
export function userByToken(config: StacksConfig, header: string | undefined): User | undefined {
  if (header === undefined) return undefined;
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) return undefined;
  const presented = digest(token);
  let found: User | undefined;
  for (const user of config.users) {
    if (timingSafeEqual(presented, digest(user.token)) && found === undefined) found = user;
  }
  return found;
}

const stacksGrants = (user: User) => user.grants.filter((g) => g.resource === STACKS_RESOURCE);

/** The global permission: some grant gives the action (whatever its environments). */
export function hasGlobal(user: User, action: StackAction): boolean {
  return user.admin || stacksGrants(user).some((g) => g.actions.includes(action));
}

/**
 * The permission scoped to an environment: a grant gives the action with that environment listed, or
 * `"*"`. A grant without an environment list gives the global permission only, never a
 * scoped one. The local environment (null) uses the global check, unless the config's
 * `localEnvironment` is `explicit`: then it is scoped like the others (a grant listing `null`, or `"*"`).
 */
export function hasScoped(user: User, action: StackAction, env: EnvironmentId): boolean {
  if (env === null && user.localEnvironment !== 'explicit') return hasGlobal(user, action);
  if (user.admin) return true;
  return stacksGrants(user).some(
    (g) =>
      g.actions.includes(action) &&
      g.environments !== undefined &&
      (g.environments === '*' || g.environments.includes(env)),
  );
}

/**
 * Whether the user has the action in the local environment only through the spec's rule (the global
 * check): not an admin, the config's default rule, some grant gives the action, and none lists `null`
 * or `"*"`. The config check warns of it and the page says so.
 */
export function localOnlyByRule(user: User, action: StackAction): boolean {
  if (user.admin || user.localEnvironment === 'explicit' || !hasGlobal(user, action)) return false;
  return !stacksGrants(user).some(
    (g) => g.actions.includes(action) && (g.environments === '*' || g.environments?.includes(null)),
  );
}

/** Whether the user may access a (numeric) environment at all. */
export function mayAccess(user: User, env: number): boolean {
  return user.admin || user.environmentAccess === '*' || user.environmentAccess.includes(env);
}

/** The first of the single-run checks: the permission in some grant, whatever its environments. */
export function checkGlobal(user: User, action: StackAction): AccessDecision {
  return hasGlobal(user, action) ? ALLOWED : forbidden(`needs the stacks ${action} permission`);
}

/** "environment 2", "the local environment". */
const envWords = (env: EnvironmentId) => (env === null ? 'the local environment' : `environment ${env}`);

/**
 * The single-run endpoints: the global permission first, then the same permission scoped to the run's
 * own environment (spec rule 2: never a caller-supplied `env`). A local run needs the global one only
 * (the spec's rule), or a grant listing `null` when the config's `localEnvironment` is `explicit`.
 */
export function checkRunAccess(user: User, action: StackAction, runEnv: EnvironmentId): AccessDecision {
  const global = checkGlobal(user, action);
  if (!global.ok) return global;
  if (!hasScoped(user, action, runEnv))
    return forbidden(`needs the stacks ${action} permission for ${envWords(runEnv)}`);
  return ALLOWED;
}

/**
 * The list endpoint and every stack route, for the `env` of the request: a numeric environment needs the
 * permission scoped to it and access to it; the local environment needs the permission in some grant
 * (or, with `localEnvironment: explicit`, in a grant listing `null` or `"*"`) and no access check.
 */
export function checkEnvAccess(user: User, action: StackAction, env: EnvironmentId): AccessDecision {
  if (env === null && user.localEnvironment !== 'explicit')
    return hasGlobal(user, action) ? ALLOWED : forbidden(`needs the stacks ${action} permission`);
  if (!hasScoped(user, action, env))
    return forbidden(`needs the stacks ${action} permission for ${envWords(env)}`);
  if (env === null) return ALLOWED;
  if (!mayAccess(user, env)) return forbidden(`no access to environment ${env}`);
  return ALLOWED;
}
