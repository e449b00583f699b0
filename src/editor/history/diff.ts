/**
 * What changed between two states of a document: entities (and layers, blocks, layouts, groups, header
 * variables) added, removed, and changed with each changed field's before and after.
 */
import { isDeepStrictEqual } from 'node:util';
import type { DocumentState } from '../../../projections/editor-session.js';
import { dictGet, dictHas } from '../dict.js';
import { compareHandles } from '../query/run.js';

interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

interface Changed {
  key: string;
  fields: FieldChange[];
}

interface RecordDiff<T> {
  added: T[];
  removed: T[];
  changed: Changed[];
}

interface DocumentDiff {
  entities: RecordDiff<unknown>;
  layers: RecordDiff<unknown>;
  blocks: RecordDiff<unknown>;
  layouts: RecordDiff<unknown>;
  groups: RecordDiff<unknown>;
  header: RecordDiff<unknown>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of two versions of one value that differ; a value that is not an object is one field, `value`. */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  if (!isPlainObject(before) || !isPlainObject(after)) {
    return isDeepStrictEqual(before, after) ? [] : [{ field: 'value', before, after }];
  }
  const out: FieldChange[] = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = dictGet(before, field);
    const b = dictGet(after, field);
    if (a === b || isDeepStrictEqual(a, b)) continue;
    out.push({ field, before: a ?? null, after: b ?? null });
  }
  return out;
}

/**
 * Two keyed collections compared key by key. Values evolve did not replace are the same object in
 * both states (checkpoints share them), so the deep comparison only runs on what a step touched.
 */
export function diffRecords<T>(
  before: Record<string, T>,
  after: Record<string, T>,
  order: (a: string, b: string) => number = (a, b) => (a < b ? -1 : a > b ? 1 : 0),
): RecordDiff<T> {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: Changed[] = [];
  for (const key of Object.keys(after)) if (!dictHas(before, key)) added.push(key);
  for (const key of Object.keys(before)) {
    if (!dictHas(after, key)) {
      removed.push(key);
      continue;
    }
    const a = dictGet(before, key);
    const b = dictGet(after, key);
    if (a === b) continue;
    const fields = fieldChanges(a, b);
    if (fields.length > 0) changed.push({ key, fields });
  }
  added.sort(order);
  removed.sort(order);
  changed.sort((x, y) => order(x.key, y.key));
  return {
    added: added.map((k) => dictGet(after, k) as T),
    removed: removed.map((k) => dictGet(before, k) as T),
    changed,
  };
}

export function diffDocuments(before: DocumentState, after: DocumentState): DocumentDiff {
  const a = before.model;
  const b = after.model;
  return {
    entities: diffRecords<unknown>(a.entities, b.entities, compareHandles),
    layers: diffRecords<unknown>(a.layers, b.layers),
    blocks: diffRecords<unknown>(a.blocks, b.blocks),
    layouts: diffRecords<unknown>(a.layouts, b.layouts),
    groups: diffRecords<unknown>(a.groups, b.groups),
    header: diffRecords<unknown>(headerRecords(a.header), headerRecords(b.header)),
  };
}

/** Header variables as records that name themselves, so an added or removed one says which it is. */
const headerRecords = (header: Record<string, unknown>): Record<string, { name: string; tags: unknown }> =>
  Object.fromEntries(Object.entries(header).map(([name, tags]) => [name, { name, tags }]));
