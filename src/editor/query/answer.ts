/**
 * How an entity is answered: `summary` (handle, type, layer), `geometry` (plus the fields that place it,
 * and `text`/`value`), `full` (every property, `text`/`value`, and `bounds`). Points are always 3 numbers.
 */

import type { DetailLevel } from '../capabilities.js';
import { dictGet, dictHas, dictSet } from '../dict.js';
import { bounds } from '../geometry/index.js';
import { insertGrid } from '../geometry/minsert.js';
import { polylineReadout } from '../geometry/polyline.js';
import { type Bounds, type GeometryContext, NO_BLOCKS } from '../geometry/types.js';
import type { Entity } from '../model.js';
import { rawReadout, rawText } from '../raw-entities.js';
import { entityBounds } from './spatial-index.js';
import { follow } from './where.js';

export type EntityAnswer = Record<string, unknown>;

/** The fields of each type that `geometry` answers. */
const GEOMETRY_FIELDS: Readonly<Record<Entity['type'], readonly string[]>> = {
  Line: ['start', 'end'],
  Circle: ['center', 'radius'],
  Arc: ['center', 'radius', 'start_angle', 'end_angle'],
  Ellipse: ['center', 'major_axis', 'ratio', 'start_param', 'end_param', 'extrusion'],
  Text: ['value', 'position', 'height', 'rotation', 'align_point'],
  MText: ['value', 'position', 'height', 'width', 'rotation', 'attachment'],
  Point: ['location'],
  LwPolyline: ['vertices', 'closed', 'elevation'],
  Insert: ['name', 'position', 'scale', 'rotation'],
  Image: ['position', 'u_vector', 'v_vector', 'size'],
  Solid: ['corners', 'extrusion'],
  Trace: ['corners', 'extrusion'],
  Face3d: ['corners', 'invisible_edges'],
  XLine: ['start', 'direction'],
  Ray: ['start', 'direction'],
  Polyline: ['flags', 'elevation', 'extrusion'],
  Spline: [
    'degree',
    'flags',
    'control_points',
    'knots',
    'weights',
    'fit_points',
    'start_tangent',
    'end_tangent',
    'extrusion',
  ],
  Raw: ['dxf_type'],
};

/** A copy of plain JSON data, so an answer never shares arrays with the model. */
function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) dictSet(out, k, cloneJson(v));
    return out as T;
  }
  return value;
}

/** The text an entity shows: Text and MText their value, a MULTILEADER or TOLERANCE its content, others null. */
function entityText(entity: Entity): string | null {
  if (entity.type === 'Raw') return rawText(entity);
  return entity.type === 'Text' || entity.type === 'MText' ? entity.value : null;
}

const answerBounds = (b: Bounds | undefined) => (b ? { min: [...b.min], max: [...b.max] } : null);

/**
 * Fields an answer adds to the entity's own (the reference editor's read-out): an Insert's `block` (and a
 * MINSERT's `grid`: columns, rows and their spacing), an ATTDEF's `tag`/`position`/`height`, a
 * HATCH's `boundary`/`solid`/`pattern`, a SOLID's `corners`. Empty for other entities.
 */
function derivedFields(entity: Entity): Record<string, unknown> {
  if (entity.type === 'Insert') {
    const grid = insertGrid(entity);
    return grid ? { block: entity.name, grid } : { block: entity.name };
  }
  if (entity.type === 'Raw') return rawReadout(entity);
  if (entity.type === 'Polyline') return polylineReadout(entity);
  return {};
}

export function entityAnswer(
  entity: Entity,
  detail: DetailLevel,
  ctx: GeometryContext = NO_BLOCKS,
): EntityAnswer {
  if (detail === 'summary') return { handle: entity.handle, type: entity.type, layer: entity.layer };
  const text = entityText(entity);
  if (detail === 'full') {
    return {
      ...cloneJson(entity),
      ...derivedFields(entity),
      text,
      value: text,
      bounds: answerBounds(bounds(entity, ctx)),
    };
  }
  const out: EntityAnswer = { handle: entity.handle, type: entity.type, layer: entity.layer };
  const record = entity as unknown as Record<string, unknown>;
  for (const field of GEOMETRY_FIELDS[entity.type]) {
    if (record[field] !== undefined) out[field] = cloneJson(record[field]);
  }
  Object.assign(out, derivedFields(entity));
  out.text = text;
  out.value = text;
  return out;
}

/**
 * What `get_selection` answers for each selected entity: handle, type, text, value, bounds, and as the
 * reference editor does, layer and an Insert's `block` and `position` (null for other entities).
 */
export function selectionAnswer(entity: Entity, ctx: GeometryContext = NO_BLOCKS): EntityAnswer {
  const text = entityText(entity);
  const insert = entity.type === 'Insert';
  return {
    handle: entity.handle,
    type: entity.type,
    layer: entity.layer,
    text,
    value: text,
    // An Insert past the expansion limit answers no bounds: get_selection is always answered.
    bounds: answerBounds(entityBounds(entity, ctx)),
    block: insert ? entity.name : null,
    position: insert ? [...entity.position] : null,
  };
}

/**
 * Reads a pointer into an entity's `full` answer without building it: `bounds` is computed only when a
 * filter asks for it, `text`/`value` come from the entity.
 */
export function fieldReader(entity: Entity, ctx: GeometryContext): (tokens: readonly string[]) => unknown {
  let cachedBounds: ReturnType<typeof answerBounds> | undefined;
  let derived: Record<string, unknown> | undefined;
  return (tokens) => {
    const [head, ...rest] = tokens;
    if (head === undefined) return entityAnswer(entity, 'full', ctx);
    if (head === 'bounds') {
      cachedBounds ??= answerBounds(bounds(entity, ctx));
      return follow(cachedBounds, rest);
    }
    if (entity.type === 'Insert' || entity.type === 'Raw' || entity.type === 'Polyline') {
      derived ??= derivedFields(entity);
      if (dictHas(derived, head) && !dictHas(entity, head)) return follow(dictGet(derived, head), rest);
    }
    if (head === 'text' || (head === 'value' && entity.type !== 'Text' && entity.type !== 'MText')) {
      return follow(entityText(entity), rest);
    }
    return follow(entity, tokens);
  };
}
