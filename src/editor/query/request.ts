/** Validation of a `query` request as the dispatcher receives it (REST forwards offset/limit as strings). */
import { DETAIL_LEVELS, type DetailLevel, QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX } from '../capabilities.js';
import { QueryError } from './errors.js';
import type { Window } from './spatial-index.js';
import { parseWhere, type WhereFilter } from './where.js';

export interface QueryRequest {
  type?: unknown;
  layer?: unknown;
  handles?: unknown;
  detail?: unknown;
  fields?: unknown;
  offset?: unknown;
  limit?: unknown;
  bounds?: unknown;
  near?: unknown;
  contains_point?: unknown;
  intersections?: unknown;
  where?: unknown;
}

export interface ParsedQuery {
  /** Lower-case type names: modeled types, `raw`, or DXF names of raw entities (`hatch`). */
  types?: ReadonlySet<string>;
  /** Lower-case layer names (DXF layer names are case-insensitive). */
  layers?: ReadonlySet<string>;
  handles?: string[];
  detail: DetailLevel;
  fields?: string[];
  offset: number;
  limit: number;
  window?: Window;
  near?: { x: number; y: number; radius?: number };
  contains?: { x: number; y: number; tolerance: number };
  intersections?: string[];
  where: WhereFilter[];
}

/** Tolerance of `contains_point` when it has only x and y. */
const DEFAULT_CONTAINS_TOLERANCE = 1e-6;

const NUMBER_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A finite number, or its decimal text; undefined otherwise. */
function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && NUMBER_TEXT.test(value)) return Number(value);
  return undefined;
}

const present = (value: unknown) => value !== undefined && value !== null;

/** Names given as an array of strings or one comma-separated string. */
function names(value: unknown, name: string): string[] {
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) {
    throw new QueryError(
      'invalid_query',
      `${name} must be a string or an array of strings, got ${JSON.stringify(value)}`,
    );
  }
  return list.map((v) => v.trim()).filter((v) => v !== '');
}

function wholeNumber(value: unknown, name: string, fallback: number, max: number): number {
  if (!present(value) || value === '') return fallback;
  const n = toNumber(value);
  if (n === undefined || !Number.isInteger(n) || n < 0) {
    throw new QueryError(
      'invalid_query',
      `${name} must be a whole number of 0 or more, got ${JSON.stringify(value)}`,
    );
  }
  if (n > max) throw new QueryError('invalid_query', `${name} must be at most ${max}, got ${n}`);
  return n;
}

function numbers(value: unknown, name: string, counts: readonly number[], shape: string): number[] {
  const list = typeof value === 'string' ? value.split(',') : value;
  const parsed = Array.isArray(list) ? list.map(toNumber) : [];
  if (!Array.isArray(list) || !counts.includes(list.length) || parsed.some((n) => n === undefined)) {
    throw new QueryError(
      'invalid_point',
      `${name} must be ${shape} (finite numbers), got ${JSON.stringify(value)}`,
    );
  }
  return parsed as number[];
}

export function parseQuery(request: QueryRequest): ParsedQuery {
  const detail = present(request.detail) ? request.detail : 'geometry';
  if (typeof detail !== 'string' || !(DETAIL_LEVELS as readonly string[]).includes(detail)) {
    throw new QueryError(
      'invalid_query',
      `detail must be one of ${DETAIL_LEVELS.join(', ')}, got ${JSON.stringify(detail)}`,
    );
  }
  const query: ParsedQuery = {
    detail: detail as DetailLevel,
    offset: wholeNumber(request.offset, 'offset', 0, Number.MAX_SAFE_INTEGER),
    limit: wholeNumber(request.limit, 'limit', QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX),
    where: present(request.where) ? parseWhere(request.where) : [],
  };
  if (present(request.type)) query.types = new Set(names(request.type, 'type').map((t) => t.toLowerCase()));
  if (present(request.layer))
    query.layers = new Set(names(request.layer, 'layer').map((l) => l.toLowerCase()));
  if (present(request.handles))
    query.handles = [...new Set(names(request.handles, 'handles').map((h) => h.toUpperCase()))];
  if (present(request.fields)) query.fields = names(request.fields, 'fields');
  if (present(request.intersections)) {
    const handles = [...new Set(names(request.intersections, 'intersections').map((h) => h.toUpperCase()))];
    if (handles.length === 0)
      throw new QueryError('invalid_query', 'intersections must name at least one entity handle');
    query.intersections = handles;
  }
  if (present(request.bounds)) {
    const [x0, y0, x1, y1] = numbers(request.bounds, 'bounds', [4], '[minx, miny, maxx, maxy]') as [
      number,
      number,
      number,
      number,
    ];
    // Two opposite corners in any order.
    query.window = {
      minX: Math.min(x0, x1),
      minY: Math.min(y0, y1),
      maxX: Math.max(x0, x1),
      maxY: Math.max(y0, y1),
    };
  }
  if (present(request.near)) {
    const [x, y, radius] = numbers(request.near, 'near', [2, 3], '[x, y] or [x, y, radius]') as [
      number,
      number,
      number?,
    ];
    if (radius !== undefined && radius < 0)
      throw new QueryError('invalid_point', `near radius must be 0 or more, got ${radius}`);
    query.near = radius === undefined ? { x, y } : { x, y, radius };
  }
  if (present(request.contains_point)) {
    const [x, y, tolerance = DEFAULT_CONTAINS_TOLERANCE] = numbers(
      request.contains_point,
      'contains_point',
      [2, 3],
      '[x, y] or [x, y, tolerance]',
    ) as [number, number, number?];
    if (tolerance < 0)
      throw new QueryError('invalid_point', `contains_point tolerance must be 0 or more, got ${tolerance}`);
    query.contains = { x, y, tolerance };
  }
  return query;
}
