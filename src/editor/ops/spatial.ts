import type { Change } from '../../../streams/editor.js';
import { dictGet } from '../dict.js';
import { fail } from '../errors.js';
import {
  bounds,
  documentContext,
  type Matrix,
  measure,
  mirroring,
  rotation,
  scaling,
  transformEntity,
  translation,
} from '../geometry/index.js';
import { mlineStyleOf } from '../geometry/mline.js';
import { isTransformableRaw } from '../geometry/raw-kinds.js';
import type { Entity, Point3, RawEntity } from '../model.js';
import { documentIndexSliced } from '../query/document-index.js';
import { runQuerySliced, selectionAnswer } from '../query/index.js';
import type { QueryRequest } from '../query/request.js';
import { handleList, number, optionalFlag, point } from '../request.js';
import { slices } from '../slices.js';
import { entitiesOf } from './entities.js';
import { OwnedBlocks } from './owned-blocks.js';
import { StepBuilder, stepEvent } from './steps.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

const ACTIONS = ['move', 'copy', 'rotate', 'scale', 'mirror', 'array'] as const;
type Action = (typeof ACTIONS)[number];

/**
 * The matrix of a transform request: `vector` (move, copy), `center` + `angle` / `factor`, mirror
 * `points`. The reference editor's names are accepted too: `angle_deg` for `angle`, `axis` for `points`.
 */
function matrixOf(action: Exclude<Action, 'array'>, r: Record<string, unknown>): Matrix {
  const center = (): Point3 => {
    const given = r.center ?? r.base;
    return given === undefined ? [0, 0, 0] : point(given, 'center');
  };
  switch (action) {
    case 'move':
    case 'copy':
      return translation(point(r.vector, 'vector'));
    case 'rotate':
      return rotation(center(), number(r.angle ?? r.angle_deg, 'angle', 'invalid_transform'));
    case 'scale': {
      // Any factor but 0, as the reference editor's: a negative one also mirrors through the center.
      const factor = number(r.factor ?? r.scale, 'factor', 'invalid_factor');
      if (factor === 0) fail('invalid_factor', 'factor must not be 0');
      return scaling(center(), factor);
    }
    case 'mirror': {
      const line = r.points ?? r.line ?? r.axis;
      if (!Array.isArray(line) || line.length !== 2) {
        return fail('invalid_axis', 'mirror needs axis (or points): [p1, p2], two points on the mirror line');
      }
      const [p1, p2] = [point(line[0], 'axis[0]', 'invalid_axis'), point(line[1], 'axis[1]', 'invalid_axis')];
      if (p1[0] === p2[0] && p1[1] === p2[1])
        fail('invalid_axis', 'the two points of a mirror line must differ');
      return mirroring(p1, p2);
    }
  }
}

/** A whole number of rows or columns of an array, 1 to 100 (1 when absent). */
function arrayCount(value: unknown, field: string): number {
  if (value === undefined) return 1;
  if (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 100) return value as number;
  return fail(
    'invalid_transform',
    `${field} must be a whole number from 1 to 100, got ${JSON.stringify(value)}`,
  );
}

/** The translations of a rectangular `array`: one per cell but the first (the originals). */
function arrayMatrices(r: Record<string, unknown>): Matrix[] {
  const rows = arrayCount(r.rows, 'rows');
  const columns = arrayCount(r.columns, 'columns');
  const dy = r.row_spacing === undefined ? 0 : number(r.row_spacing, 'row_spacing', 'invalid_transform');
  const dx =
    r.column_spacing === undefined ? 0 : number(r.column_spacing, 'column_spacing', 'invalid_transform');
  const out: Matrix[] = [];
  for (let row = 0; row < rows; row++)
    for (let column = 0; column < columns; column++)
      if (row !== 0 || column !== 0) out.push(translation([column * dx, row * dy, 0]));
  return out;
}

/** An entity a transform leaves where it is, and why: the answer's `not_transformable` list. */
interface Untransformable {
  handle: string;
  type: string;
  reason: string;
}

/**
 * The entities the engine keeps as read (types it does not model) cannot be transformed: they are set
 * apart by type, so the others of the request still move.
 */
function untransformable(sources: readonly Entity[]): Untransformable[] {
  return sources.flatMap((e) =>
    e.type === 'Raw' && !isTransformableRaw(e)
      ? [
          {
            handle: e.handle,
            type: e.dxf_type,
            reason: `${e.dxf_type} is kept as read and cannot be transformed`,
          },
        ]
      : [],
  );
}

/**
 * `entities_transform`: move, copy (fresh handles, originals kept), rotate, scale, mirror (`copy: true`
 * keeps the originals) or array (`rows` x `columns` copies at `row_spacing` / `column_spacing`).
 * Entities that cannot be transformed never refuse the whole request: they stay where they are and are
 * listed in `not_transformable` while the rest moves, unless `atomic: true` asks for all or nothing (then
 * the request is refused `not_transformable` with that list and nothing changes).
 * `affected` counts the entities transformed; `created` lists the new handles (empty when none were made).
 */
function entitiesTransform(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  // No action is a move, as the reference editor takes it.
  const given = ctx.request.action === undefined ? 'move' : ctx.request.action;
  const action = (typeof given === 'string' ? given.toLowerCase() : given) as Action;
  if (!ACTIONS.includes(action))
    fail('invalid_action', `action must be one of ${ACTIONS.join(', ')}, got ${JSON.stringify(given)}`);
  const copies =
    action === 'copy' || action === 'array' || (action === 'mirror' && ctx.request.copy === true);
  const matrices = action === 'array' ? arrayMatrices(ctx.request) : [matrixOf(action, ctx.request)];
  const mirrtext = (doc.model.header.$MIRRTEXT?.[0]?.value.trim() ?? '0') === '1';
  const options = { mirrtext, mlineStyle: (e: RawEntity) => mlineStyleOf(doc.model.objects, e) };
  const atomic = optionalFlag(ctx.request.atomic, 'atomic') === true;
  const requested = entitiesOf(doc, [...new Set(handleList(ctx.request.handles))]);
  const blocked = untransformable(requested);
  if (atomic && blocked.length > 0) {
    fail(
      'not_transformable',
      `${blocked.map((b) => `${b.type} ${b.handle}`).join(', ')} cannot be transformed; with atomic: true nothing moved`,
      { not_transformable: blocked },
    );
  }
  const skipped = new Set(blocked.map((b) => b.handle));
  const sources = requested.filter((e) => !skipped.has(e.handle));
  const step = new StepBuilder(doc.model);
  const changes: Change[] = [];
  // A DIMENSION's geometry block and a table's block go with them (owned-blocks.ts).
  const ownedBlocks = new OwnedBlocks(doc.model, step, mirrtext);
  let created: string[] = [];
  if (copies) {
    const base = doc.model.order.length;
    for (const m of matrices) {
      const moved = sources.map((e) => ownedBlocks.ownCopy(e, transformEntity(e, m, options), m));
      const handles = step.handles(moved.length);
      moved.forEach((e, i) => {
        const handle = handles[i] as string;
        changes.push({
          kind: 'entity',
          key: handle,
          before: null,
          after: { ...e, handle },
          index: base + created.length + i,
        });
      });
      created = [...created, ...handles];
    }
  } else {
    const m = matrices[0] as Matrix;
    sources.forEach((source) => {
      // A dimension's block first: the spatial index bounds the dimension by it as its change applies.
      changes.push(...ownedBlocks.moveContents(source, m));
      changes.push({
        kind: 'entity',
        key: source.handle,
        before: source,
        after: transformEntity(source, m, options),
      });
    });
  }
  const result = {
    action,
    affected: sources.length,
    handles: copies ? created : sources.map((e) => e.handle),
    created,
    not_transformable: blocked,
  };
  // Nothing that can move: the answer says why, and the drawing (and its revision) stays as it was.
  if (changes.length === 0) return { events: [], result };
  step.push(...changes);
  return {
    events: [stepEvent('EntitiesTransformed', doc, 'entities_transform', step.build(), result)],
    result,
  };
}

/**
 * `query`, in slices: over 100,000 entities (their boxes indexed on the first one, every entity's full
 * detail, block contents) it takes a while, and `state`, `get_selection` and `cancel` are answered
 * meanwhile; `cancel` stops it (`cancelled`).
 */
async function query(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const tick = slices('the query', ctx.signal);
  const index = await documentIndexSliced(doc, tick);
  const answer = await runQuerySliced(
    doc.model,
    index,
    ctx.request as QueryRequest,
    documentContext(doc.model),
    tick,
  );
  return { events: [], fields: { ...answer } };
}

/** `get_selection`: passive — the same answer on every read until the selection changes. */
function getSelection(ctx: OpContext): OpOutcome {
  const id = ctx.request.document_id;
  const doc = typeof id === 'number' ? ctx.session.documents[String(id)] : ctx.doc;
  if (!doc) return fail('document_required', 'get_selection needs an open document');
  const context = documentContext(doc.model);
  const entities = doc.selection
    .map((h) => dictGet(doc.model.entities, h))
    .filter((e) => e !== undefined)
    .map((e) => selectionAnswer(e, context));
  return { events: [], result: { count: entities.length, entities } };
}

/**
 * `measure`: per entity (`handles`, else the selection) its type, world `bounds`, and for curves
 * `curve: { bounded, closed, length, area }` (area only when closed; null for entities that are not curves).
 */
function measureOp(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const handles = ctx.request.handles === undefined ? doc.selection : handleList(ctx.request.handles);
  const context = documentContext(doc.model);
  const measurements = entitiesOf(doc, handles).map((entity) => {
    const b = bounds(entity, context);
    const curve = measure(entity, context);
    return {
      handle: entity.handle,
      type: entity.type === 'Raw' ? entity.dxf_type : entity.type,
      bounds: b ? { min: [...b.min], max: [...b.max] } : null,
      curve: curve ? { bounded: true, ...curve } : null,
    };
  });
  return { events: [], fields: { measurements, count: measurements.length } };
}

export const spatialOps = {
  measure: { kind: 'read', document: 'required', run: measureOp },
  entities_transform: { kind: 'mutation', document: 'required', run: entitiesTransform },
  query: { kind: 'read', document: 'required', run: query, cancellable: true },
  // Immediate: a person picking in the viewer must see their selection while a slow operation runs.
  get_selection: { kind: 'immediate', document: 'none', run: getSelection },
} satisfies OpGroup;
