import type { EnvironmentId } from '../../streams/stacks.js';
import { StacksError } from './errors.js';

/** The stack name rule; it also keeps a name from ever being a path (no `/`, `.`, `..`). */
export const STACK_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

// One spelling per number: no sign on zero, no leading zeros or `+`, no spaces, no exponent or fraction.
const INTEGER = /^(0|-?[1-9][0-9]*)$/;
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

const shown = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);

export function isStackName(value: unknown): value is string {
  return typeof value === 'string' && STACK_NAME_PATTERN.test(value);
}

/** What a 400 says of a value that is no stack name (the routes' schemas say the same). */
export function stackNameMessage(value: unknown): string {
  const what = typeof value === 'string' ? shown(value) : `a ${value === null ? 'null' : typeof value}`;
  return `Invalid stack name ${what}: it must match ^[a-z0-9][a-z0-9_-]{0,62}$ (lower-case letters, digits, - and _, at most 63 characters)`;
}

/** The stack name, or a 400 naming the rule. */
export function parseStackName(value: unknown): string {
  if (isStackName(value)) return value;
  throw new StacksError('invalid_id', stackNameMessage(value));
}

/** What a 400 says of an `env` query value that is neither `null` nor an integer. */
export const envMessage = (value: string) =>
  `Invalid env ${shown(value)}: expected an integer environment id or null`;

/** What a 400 says of a run id that is no positive integer. */
export const runIdMessage = (value: string) => `Invalid run id ${shown(value)}: expected a positive integer`;

/**
 * The `env` query parameter (spec rule 1): omitted or the literal `null` is the local environment; an
 * integer is that environment id; anything else is a 400 (omitting it never means "all environments").
 */
export function parseEnvParam(value: string | undefined): EnvironmentId {
  if (value === undefined || value === 'null') return null;
  if (INTEGER.test(value)) {
    const id = Number(value);
    if (Number.isSafeInteger(id)) return id;
  }
  throw new StacksError('invalid_id', envMessage(value));
}

/** A run id from a path: a positive integer, also the stem of the run's log file name. */
export function parseRunId(value: string): number {
  if (POSITIVE_INTEGER.test(value)) {
    const id = Number(value);
    if (Number.isSafeInteger(id)) return id;
  }
  throw new StacksError('invalid_id', runIdMessage(value));
}

/** An environment's folder under `<data>/stacks/`: its id, or `local` for the local environment. */
export const envFolder = (env: EnvironmentId) => (env === null ? 'local' : String(env));
