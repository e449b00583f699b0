import { StacksError } from './errors.js';

/**
 * Paging parameters of list routes (`limit`, `offset`): decimal integers in a range. Pure and free of
 * Node modules, so the routes' schemas (src/http/stacks/api) use it too.
 */

export const DEFAULT_EXECUTIONS_LIMIT = 50;
export const MAX_EXECUTIONS_LIMIT = 500;

/** Messages of a job poll's page when the caller gives no `limit`, and the most it may ask for. */
export const DEFAULT_POLL_LIMIT = 1_000;
export const MAX_POLL_LIMIT = 10_000;

const NON_NEGATIVE = /^(0|[1-9][0-9]*)$/;

/** What a 400 says of a paging parameter out of its range or not a decimal integer. */
export const pagingMessage = (name: string, text: unknown, min: number, max: number) =>
  `Invalid ${name} ${JSON.stringify(text)}: expected an integer from ${min} to ${max}`;

/** A paging parameter: absent = the fallback; otherwise a decimal integer in [min, max] (400 if not). */
export function pagingParam(raw: unknown, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (typeof text === 'string' && NON_NEGATIVE.test(text)) {
    const value = Number(text);
    if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  }
  throw new StacksError('invalid_query', pagingMessage(name, text, min, max));
}
