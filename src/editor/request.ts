import { type EditorErrorCode, fail } from './errors.js';
import type { Point3 } from './model.js';

/** A protocol-1 request as the dispatcher receives it: a JSON object with `op` and the op's fields. */
export type EditorRequest = Record<string, unknown>;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Who sent a request, as far as the dispatcher's checks go. `files: false` — a web page of another
 * origin (docs/security.md#the-editor) — refuses every op that reads or writes a file (`origin_forbidden`);
 * callers that pass none (scripts, MCP, the viewer) may.
 */
export interface Caller {
  files: boolean;
  /** The page's origin, for the refusal's message. */
  origin?: string;
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A point of 2 or 3 finite numbers, as 3 numbers; `invalid_point` (or `code`) otherwise. */
export function point(value: unknown, field: string, code: EditorErrorCode = 'invalid_point'): Point3 {
  if (Array.isArray(value) && (value.length === 2 || value.length === 3) && value.every(finite)) {
    return [value[0] as number, value[1] as number, (value[2] as number | undefined) ?? 0];
  }
  return fail(code, `${field} must be an array of 2 or 3 finite numbers, got ${JSON.stringify(value)}`);
}

export function number(value: unknown, field: string, code: EditorErrorCode = 'invalid_property'): number {
  if (finite(value)) return value;
  return fail(code, `${field} must be a finite number, got ${JSON.stringify(value)}`);
}

export function positive(value: unknown, field: string, code: EditorErrorCode = 'invalid_property'): number {
  const n = number(value, field, code);
  if (n > 0) return n;
  return fail(code, `${field} must be greater than 0, got ${n}`);
}

export function string(value: unknown, field: string, code: EditorErrorCode = 'invalid_property'): string {
  if (typeof value === 'string') return value;
  return fail(code, `${field} must be a string, got ${JSON.stringify(value)}`);
}

/** An optional true/false field (`undefined` when absent); anything else is `invalid_request`. */
export function optionalFlag(value: unknown, field: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  return fail('invalid_request', `${field} must be true or false, got ${JSON.stringify(value)}`);
}

export function handleList(value: unknown, field = 'handles'): string[] {
  if (Array.isArray(value) && value.every((h) => typeof h === 'string')) {
    return value.map((h) => (h as string).toUpperCase());
  }
  return fail('invalid_handles', `${field} must be an array of handle strings, got ${JSON.stringify(value)}`);
}

/** A table name (layer, block, layout, group...): non-empty, no characters DXF names cannot hold. */
export function tableName(value: unknown, field: string, code: EditorErrorCode = 'invalid_name'): string {
  if (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= 255 &&
    !/[<>/\\":;?*|=`]/.test(value)
  ) {
    return value;
  }
  return fail(
    code,
    `${field} must be a name of 1 to 255 characters without <>/\\":;?*|=\`, got ${JSON.stringify(value)}`,
  );
}
