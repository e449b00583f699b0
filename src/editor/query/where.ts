/**
 * `where` filters: `{ path, op, value }` with `path` a JSON pointer (RFC 6901) into the entity's full
 * answer (`/radius`, `/start/0`, `/bounds/min/1`, `/xdata/APP/0/value`; `/common/layer` is `/layer`). All
 * filters must hold.
 */
import { QUERY_OPERATORS, type QueryOperator } from '../capabilities.js';
import { QueryError } from './errors.js';

export interface WhereFilter {
  path: string;
  tokens: string[];
  op: QueryOperator;
  value: unknown;
}

/** Reads a field of the entity's full answer by pointer tokens; undefined when absent. */
type FieldReader = (tokens: readonly string[]) => unknown;

const OPERATORS: ReadonlySet<string> = new Set(QUERY_OPERATORS);

const invalid = (message: string): never => {
  throw new QueryError('invalid_where', message);
};

/** The reference tokens of a JSON pointer; `""` is the whole document. */
function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens = pointer.slice(1).split('/');
  // `~` must be followed by 0 (for ~) or 1 (for /).
  if (tokens.some((t) => /~(?![01])/.test(t))) return undefined;
  return tokens.map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Follows pointer tokens through plain JSON values. */
export function follow(value: unknown, tokens: readonly string[]): unknown {
  let current = value;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (current !== null && typeof current === 'object') {
      if (!Object.hasOwn(current, token)) return undefined;
      current = (current as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return current;
}

/** Validates `where`: an array of filters, or that array as JSON text. */
export function parseWhere(raw: unknown): WhereFilter[] {
  let list = raw;
  if (typeof raw === 'string') {
    try {
      list = JSON.parse(raw);
    } catch (error) {
      invalid(`where must be a JSON array: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (!Array.isArray(list))
    return invalid(`where must be an array of {path, op, value} filters, got ${JSON.stringify(list)}`);
  return list.map((item, i): WhereFilter => {
    const at = `where[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      return invalid(`${at} must be an object with path, op and value, got ${JSON.stringify(item)}`);
    }
    const { path, op, value } = item as Record<string, unknown>;
    if (typeof path !== 'string')
      return invalid(
        `${at}.path must be a JSON pointer string such as "/radius", got ${JSON.stringify(path)}`,
      );
    const tokens = pointerTokens(path);
    if (!tokens)
      return invalid(
        `${at}.path ${JSON.stringify(path)} is not a JSON pointer: it must start with "/" (e.g. "/radius", "/start/0")`,
      );
    if (typeof op !== 'string' || !OPERATORS.has(op)) {
      return invalid(`${at}.op must be one of ${QUERY_OPERATORS.join(', ')}, got ${JSON.stringify(op)}`);
    }
    const operator = op as QueryOperator;
    if (operator !== 'exists' && operator !== 'not_exists' && value === undefined) {
      return invalid(`${at}.value is required for op ${operator}`);
    }
    if (
      (operator === 'lt' || operator === 'lte' || operator === 'gt' || operator === 'gte') &&
      typeof value !== 'number' &&
      typeof value !== 'string'
    ) {
      return invalid(
        `${at}.value must be a number or a string for op ${operator}, got ${JSON.stringify(value)}`,
      );
    }
    if ((operator === 'starts_with' || operator === 'ends_with') && typeof value !== 'string') {
      return invalid(`${at}.value must be a string for op ${operator}, got ${JSON.stringify(value)}`);
    }
    if (operator === 'in' && !Array.isArray(value)) {
      return invalid(`${at}.value must be an array for op in, got ${JSON.stringify(value)}`);
    }
    return { path, tokens: commonAsTop(tokens), op: operator, value };
  });
}

/**
 * The reference editor serializes an entity's layer, colour, linetype... under `common` (its where
 * example is `/common/layer`); chronicle answers them at the top, so `/common/x` reads `/x`.
 */
const commonAsTop = (tokens: string[]) =>
  tokens.length > 1 && tokens[0] === 'common' ? tokens.slice(1) : tokens;

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every(
        (k) =>
          Object.hasOwn(b, k) &&
          jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return false;
}

/** Ordering of two numbers or two strings; undefined when they cannot be compared. */
function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/**
 * One filter on a value found at its path (undefined when absent). A missing value matches only
 * `not_exists` and `ne`; comparisons between a number and a string never match.
 */
function matches(filter: WhereFilter, actual: unknown): boolean {
  const { op, value } = filter;
  switch (op) {
    case 'exists':
      return actual !== undefined;
    case 'not_exists':
      return actual === undefined;
    case 'eq':
      return actual !== undefined && jsonEqual(actual, value);
    case 'ne':
      return !jsonEqual(actual, value);
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const c = compare(actual, value);
      if (c === undefined || Number.isNaN(c)) return false;
      return op === 'lt' ? c < 0 : op === 'lte' ? c <= 0 : op === 'gt' ? c > 0 : c >= 0;
    }
    case 'contains':
      if (typeof actual === 'string') return typeof value === 'string' && actual.includes(value);
      return Array.isArray(actual) && actual.some((v) => jsonEqual(v, value));
    case 'starts_with':
      return typeof actual === 'string' && actual.startsWith(value as string);
    case 'ends_with':
      return typeof actual === 'string' && actual.endsWith(value as string);
    case 'in':
      return actual !== undefined && (value as unknown[]).some((v) => jsonEqual(actual, v));
  }
}

export function allMatch(filters: readonly WhereFilter[], read: FieldReader): boolean {
  return filters.every((f) => matches(f, read(f.tokens)));
}
