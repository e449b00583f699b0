/**
 * How an entity is answered: `summary` (handle, type, layer), `geometry` (plus the fields that place it,
 * and `text`/`value`), `full` (every property, `text`/`value`, and `bounds`). Points are always 3 numbers.
 */
import type { DetailLevel } from '../capabilities.js';
import { dictSet } from '../dict.js';
import { bounds } from '../geometry/index.js';
import { type Bounds, type GeometryContext, NO_BLOCKS } from '../geometry/types.js';
import type { Entity } from '../model.js';
import { follow } from './where.js';

export type EntityAnswer = Record<string, unknown>;

/** The fields of each type that `geometry` answers. */
export const GEOMETRY_FIELDS: Readonly<Record<Entity['type'], readonly string[]>> = {
  Line: ['start', 'end'],
  Circle: ['center', 'radius'],
  Arc: ['center', 'radius', 'start_angle', 'end_angle'],
  Text: ['value', 'position', 'height', 'rotation', 'align_point'],
  MText: ['value', 'position', 'height', 'width', 'rotation', 'attachment'],
  Point: ['location'],
  LwPolyline: ['vertices', 'closed', 'elevation'],
  Insert: ['name', 'position', 'scale', 'rotation'],
  Image: ['position', 'u_vector', 'v_vector', 'size'],
  Raw: ['dxf_type'],
};

/** A copy of plain JSON data, so an answer never shares arrays with the model. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) dictSet(out, k, cloneJson(v));
    return out as T;
  }
  return value;
}

/** The text an entity shows: Text and MText their value, every other entity null. */
export function entityText(entity: Entity): string | null {
  return entity.type === 'Text' || entity.type === 'MText' ? entity.value : null;
}

const answerBounds = (b: Bounds | undefined) => (b ? { min: [...b.min], max: [...b.max] } : null);

export function entityAnswer(
  entity: Entity,
  detail: DetailLevel,
  ctx: GeometryContext = NO_BLOCKS,
): EntityAnswer {
  if (detail === 'summary') return { handle: entity.handle, type: entity.type, layer: entity.layer };
  const text = entityText(entity);
  if (detail === 'full') {
    return { ...cloneJson(entity), text, value: text, bounds: answerBounds(bounds(entity, ctx)) };
  }
  const out: EntityAnswer = { handle: entity.handle, type: entity.type, layer: entity.layer };
  const record = entity as unknown as Record<string, unknown>;
  for (const field of GEOMETRY_FIELDS[entity.type]) {
    if (record[field] !== undefined) out[field] = cloneJson(record[field]);
  }
  out.text = text;
  out.value = text;
  return out;
}

/** What `get_selection` answers for each selected entity: handle, type, text, value, bounds. */
export function selectionAnswer(entity: Entity, ctx: GeometryContext = NO_BLOCKS): EntityAnswer {
  const text = entityText(entity);
  return {
    handle: entity.handle,
    type: entity.type,
    text,
    value: text,
    bounds: answerBounds(bounds(entity, ctx)),
  };
}

/**
 * Reads a pointer into an entity's `full` answer without building it: `bounds` is computed only when a
 * filter asks for it, `text`/`value` come from the entity.
 */
export function fieldReader(entity: Entity, ctx: GeometryContext): (tokens: readonly string[]) => unknown {
  let cachedBounds: ReturnType<typeof answerBounds> | undefined;
  return (tokens) => {
    const [head, ...rest] = tokens;
    if (head === undefined) return entityAnswer(entity, 'full', ctx);
    if (head === 'bounds') {
      cachedBounds ??= answerBounds(bounds(entity, ctx));
      return follow(cachedBounds, rest);
    }
    if (head === 'text' || (head === 'value' && entity.type !== 'Text' && entity.type !== 'MText')) {
      return follow(entityText(entity), rest);
    }
    return follow(entity, tokens);
  };
}
