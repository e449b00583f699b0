/**
 * The `query` operation over a document model and its spatial index. Spatial parameters (`bounds`,
 * `near` with a radius, `contains_point`, `intersections`) take their candidates from the index; `near`
 * without a radius walks the index nearest-first. Other filters (`type`, `layer`, `handles`, `where`)
 * narrow the candidates. Answers come in handle order (creation order), in the order given for
 * `handles`, or by distance for `near`; then `offset`/`limit` page them.
 *
 * The work is a generator that yields once per entity it looks at: `runQuery` runs it through at once,
 * `runQuerySliced` gives the event loop back between slices (and stops on `cancel`), so a query over
 * 100,000 entities never keeps `state`, `get_selection` or `cancel` from being answered.
 */
import { dictGet, dictHas, dictSet } from '../dict.js';
import { isLayoutBlockName } from '../dxf/entity-types.js';
import {
  bounds,
  type Closest,
  closestPoint,
  containsPoint,
  intersections as crossings,
  documentContext,
  type GeometryContext,
} from '../geometry/index.js';
import type { DxfDocumentModel, Entity, Point3 } from '../model.js';
import { named, sameName } from '../names.js';
import { runSliced, runThrough, type Tick, type Work } from '../slices.js';
import { type EntityAnswer, entityAnswer, fieldReader } from './answer.js';
import { QueryError } from './errors.js';
import { type ParsedQuery, parseQuery, type QueryRequest } from './request.js';
import { SpatialIndex, type Window } from './spatial-index.js';
import { allMatch } from './where.js';

interface QueryAnswer {
  entities: EntityAnswer[];
  /** All matches, before paging. */
  count: number;
  returned: number;
  /** Offset of the next page, null at the end. */
  next_offset: number | null;
  /** With `intersections`: every crossing point found, sorted by x then y. */
  points?: Point3[];
}

/**
 * The entities of the blocks the layouts insert (and the blocks those insert), by handle. Blocks nothing
 * inserts — a template's dimension arrowheads, a definition whose inserts were erased — are left out.
 */
export const insertedContents = (model: DxfDocumentModel): string[] =>
  runThrough(insertedContentsWork(model));

function* insertedContentsWork(model: DxfDocumentModel): Work<string[]> {
  const seen = new Set<string>();
  const out: string[] = [];
  // Depth first from the layouts, each block once.
  const visit = function* (name: string): Work<void> {
    if (seen.has(name)) return;
    seen.add(name);
    const block = named(model.blocks, name);
    if (!block || isLayoutBlockName(block.name)) return;
    for (const h of block.entities) {
      yield;
      const entity = dictGet(model.entities, h);
      if (!entity || !sameName(entity.space, block.name)) continue;
      out.push(h);
      if (entity.type === 'Insert') yield* visit(entity.name);
    }
  };
  for (const h of model.order) {
    yield;
    const entity = dictGet(model.entities, h);
    if (entity?.type === 'Insert') yield* visit(entity.name);
  }
  return out;
}

/** How many entities a plain `query` lists: those of the layouts and of the blocks they insert. */
export const listedCount = (model: DxfDocumentModel) => model.order.length + insertedContents(model).length;

/** Handles are uppercase hex without leading zeros: shorter is smaller, then text order. */
export function compareHandles(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function meet(a: Window | undefined, b: Window): Window {
  if (!a) return b;
  return {
    minX: Math.max(a.minX, b.minX),
    minY: Math.max(a.minY, b.minY),
    maxX: Math.min(a.maxX, b.maxX),
    maxY: Math.min(a.maxY, b.maxY),
  };
}

const around = (x: number, y: number, r: number): Window => ({
  minX: x - r,
  minY: y - r,
  maxX: x + r,
  maxY: y + r,
});

/** The window every spatial parameter's answer must touch, or undefined when none is given. */
function spatialWindow(q: ParsedQuery): Window | undefined {
  let window = q.window;
  if (q.near?.radius !== undefined) window = meet(window, around(q.near.x, q.near.y, q.near.radius));
  if (q.contains) window = meet(window, around(q.contains.x, q.contains.y, q.contains.tolerance));
  return window;
}

const touches = (a: Window, b: Window) =>
  a.minX <= b.maxX && a.maxX >= b.minX && a.minY <= b.maxY && a.maxY >= b.minY;

interface Match {
  entity: Entity;
  closest?: Closest;
  crossings?: Array<{ handle: string; points: Point3[] }>;
}

class QueryRun {
  private readonly closestCache = new Map<string, Closest | undefined>();
  readonly window: Window | undefined;

  constructor(
    readonly model: DxfDocumentModel,
    readonly index: SpatialIndex,
    readonly q: ParsedQuery,
    readonly ctx: GeometryContext,
  ) {
    this.window = spatialWindow(q);
  }

  entity(handle: string): Entity {
    const entity = dictGet(this.model.entities, handle);
    if (!entity) throw new QueryError('entity_absent', `no entity with handle ${handle}`);
    return entity;
  }

  /** type, layer and where. */
  keeps(e: Entity): boolean {
    const { types, layers, where } = this.q;
    if (
      types &&
      !types.has(e.type.toLowerCase()) &&
      !(e.type === 'Raw' && types.has(e.dxf_type.toLowerCase()))
    )
      return false;
    if (layers && !layers.has(e.layer.toLowerCase())) return false;
    return where.length === 0 || allMatch(where, fieldReader(e, this.ctx));
  }

  hasPlainFilters(): boolean {
    return this.q.types !== undefined || this.q.layers !== undefined || this.q.where.length > 0;
  }

  closest(e: Entity): Closest | undefined {
    const near = this.q.near;
    if (!near) return undefined;
    if (!this.closestCache.has(e.handle))
      this.closestCache.set(e.handle, closestPoint(e, [near.x, near.y], this.ctx));
    return this.closestCache.get(e.handle);
  }

  /**
   * The exact spatial tests. `fromIndex`: the candidate came from an index search of `this.window`, which
   * already settles `bounds` (a box that touches the meet of the windows touches each of them).
   */
  fitsSpace(e: Entity, fromIndex: boolean): boolean {
    const { q } = this;
    if (q.window && !fromIndex) {
      const box = this.boxOf(e);
      if (!box || !touches(q.window, box)) return false;
    }
    if (q.near?.radius !== undefined && !((this.closest(e)?.distance ?? Infinity) <= q.near.radius))
      return false;
    if (q.contains && !containsPoint(e, [q.contains.x, q.contains.y], q.contains.tolerance, this.ctx))
      return false;
    return true;
  }

  /** The indexed box, or the entity's bounds when it is not indexed (block contents). */
  boxOf(e: Entity): Window | undefined {
    const indexed = this.index.boxOf(e.handle);
    if (indexed) return indexed;
    const b = bounds(e, this.ctx);
    return b && { minX: b.min[0], minY: b.min[1], maxX: b.max[0], maxY: b.max[1] };
  }

  /** Candidates before the intersections step, each with whether it came from the index. */
  *candidates(): Work<Array<{ entity: Entity; fromIndex: boolean }>> {
    const { q, model } = this;
    if (q.handles) return q.handles.map((h) => ({ entity: this.entity(h), fromIndex: false }));
    if (this.window) {
      const w = this.window;
      if (w.minX > w.maxX || w.minY > w.maxY) return [];
      return this.index
        .search(w)
        .sort(compareHandles)
        .flatMap((h) => {
          const entity = dictGet(model.entities, h);
          return entity ? [{ entity, fromIndex: true }] : [];
        });
    }
    const all: Array<{ entity: Entity; fromIndex: boolean }> = [];
    for (const h of model.order) {
      yield;
      const entity = dictGet(model.entities, h);
      if (entity) all.push({ entity, fromIndex: false });
    }
    // The contents of the blocks the drawing inserts too, as the reference editor lists every entity (a
    // block's entities are in its own coordinates, so the spatial parameters above leave them out).
    for (const h of yield* insertedContentsWork(model)) {
      const entity = dictGet(model.entities, h);
      if (entity) all.push({ entity, fromIndex: false });
    }
    return all.sort((a, b) => compareHandles(a.entity.handle, b.entity.handle));
  }

  *matches(): Work<Match[]> {
    const out: Match[] = [];
    for (const { entity, fromIndex } of yield* this.candidates()) {
      yield;
      if (this.keeps(entity) && this.fitsSpace(entity, fromIndex)) out.push({ entity });
    }
    return out;
  }
}

/** Crossings of one entity with every other that passes the query, found through the index. */
function* crossingsOfOne(run: QueryRun, handle: string): Work<Match[]> {
  const target = run.entity(handle);
  const box = run.boxOf(target);
  const out: Match[] = [];
  let partners: Array<{ entity: Entity; fromIndex: boolean }>;
  if (run.q.handles) {
    partners = yield* run.candidates();
  } else {
    if (!box) return [];
    const w = run.window ? meet(run.window, box) : box;
    if (w.minX > w.maxX || w.minY > w.maxY) return [];
    partners = run.index
      .search(w)
      .sort(compareHandles)
      .flatMap((h) => {
        const entity = dictGet(run.model.entities, h);
        return entity ? [{ entity, fromIndex: run.window !== undefined }] : [];
      });
  }
  for (const { entity, fromIndex } of partners) {
    yield;
    if (entity.handle === handle || !run.keeps(entity) || !run.fitsSpace(entity, fromIndex)) continue;
    const points = crossings(entity, target, run.ctx);
    if (points.length > 0) out.push({ entity, crossings: [{ handle, points }] });
  }
  return out;
}

/** Crossings among the given entities, pairs found through a small index of their boxes. */
function* crossingsAmong(run: QueryRun, handles: string[]): Work<Match[]> {
  const entities = handles.map((h) => run.entity(h));
  const local = SpatialIndex.of(
    entities.map((e) => {
      const w = run.boxOf(e);
      return [e.handle, w && { min: [w.minX, w.minY, 0], max: [w.maxX, w.maxY, 0] }] as const;
    }),
  );
  const found = new Map<string, Array<{ handle: string; points: Point3[] }>>();
  for (const a of entities) {
    const box = local.boxOf(a.handle);
    if (!box) continue;
    for (const h of local.search(box)) {
      yield;
      if (compareHandles(h, a.handle) <= 0) continue;
      const b = dictGet(run.model.entities, h) as Entity;
      const points = crossings(a, b, run.ctx);
      if (points.length === 0) continue;
      found.set(a.handle, [...(found.get(a.handle) ?? []), { handle: b.handle, points }]);
      found.set(b.handle, [...(found.get(b.handle) ?? []), { handle: a.handle, points }]);
    }
  }
  return entities
    .filter((e) => found.has(e.handle) && run.keeps(e) && run.fitsSpace(e, false))
    .sort((a, b) => compareHandles(a.handle, b.handle))
    .map((entity) => ({
      entity,
      crossings: (found.get(entity.handle) ?? []).sort((x, y) => compareHandles(x.handle, y.handle)),
    }));
}

/** `near` alone: the first pages straight from the index's nearest-first walk. */
function* nearestMatches(run: QueryRun, x: number, y: number): Work<{ matches: Match[]; count: number }> {
  const need = run.q.offset + run.q.limit;
  const picked: Match[] = [];
  let last = -1;
  for (const n of run.index.nearest(x, y, {
    distance: (h) => {
      const entity = dictGet(run.model.entities, h);
      return entity && run.keeps(entity) ? run.closest(entity)?.distance : undefined;
    },
  })) {
    yield;
    // Past the page, but keep entities as far as the last one so ties page by handle.
    if (picked.length >= need && n.distance > last) break;
    const entity = dictGet(run.model.entities, n.handle) as Entity;
    picked.push({ entity, closest: run.closest(entity) });
    last = n.distance;
  }
  let count = run.index.size;
  if (run.hasPlainFilters()) {
    count = 0;
    for (const h of run.index.handles()) {
      yield;
      const entity = dictGet(run.model.entities, h);
      if (entity && run.keeps(entity)) count++;
    }
  }
  return { matches: picked, count };
}

const byDistance = (a: Match, b: Match) =>
  (a.closest?.distance ?? Infinity) - (b.closest?.distance ?? Infinity) ||
  compareHandles(a.entity.handle, b.entity.handle);

function pick(answer: EntityAnswer, fields: readonly string[]): EntityAnswer {
  const out: EntityAnswer = { handle: answer.handle };
  for (const f of fields) if (dictHas(answer, f)) dictSet(out, f, answer[f]);
  return out;
}

/**
 * Runs a `query` request. `index` must hold the boxes of the model's `order` entities (the document
 * projection keeps it so); `ctx` looks blocks up for Inserts. Throws QueryError with `invalid_query`,
 * `invalid_point`, `invalid_where` or `entity_absent`.
 */
export function runQuery(
  model: DxfDocumentModel,
  index: SpatialIndex,
  request: QueryRequest,
  ctx: GeometryContext = documentContext(model),
): QueryAnswer {
  return runThrough(queryWork(model, index, parseQuery(request), ctx));
}

/**
 * `runQuery` in slices: `tick` gives the event loop back between them and stops the query (`cancelled`)
 * once its signal is aborted. The request is checked before any work.
 */
export function runQuerySliced(
  model: DxfDocumentModel,
  index: SpatialIndex,
  request: QueryRequest,
  ctx: GeometryContext,
  tick: Tick,
): Promise<QueryAnswer> {
  return runSliced(queryWork(model, index, parseQuery(request), ctx), tick);
}

function* queryWork(
  model: DxfDocumentModel,
  index: SpatialIndex,
  q: ParsedQuery,
  ctx: GeometryContext,
): Work<QueryAnswer> {
  const run = new QueryRun(model, index, q, ctx);
  let matches: Match[];
  let count: number;
  const walkNearest =
    q.near !== undefined && q.near.radius === undefined && !q.handles && !run.window && !q.intersections;
  if (q.intersections) {
    matches =
      q.intersections.length === 1
        ? yield* crossingsOfOne(run, q.intersections[0] as string)
        : yield* crossingsAmong(run, q.intersections);
    count = matches.length;
  } else if (walkNearest && q.near) {
    ({ matches, count } = yield* nearestMatches(run, q.near.x, q.near.y));
  } else {
    matches = yield* run.matches();
    count = matches.length;
  }
  if (q.near) {
    // Entities without geometry have no distance: `near` leaves them out.
    for (const m of matches) {
      yield;
      m.closest ??= run.closest(m.entity);
    }
    matches = matches.filter((m) => m.closest !== undefined).sort(byDistance);
    if (!walkNearest) count = matches.length;
  }
  const page = matches.slice(q.offset, q.offset + q.limit);
  const entities: EntityAnswer[] = [];
  for (const m of page) {
    yield;
    const full = q.fields
      ? pick(entityAnswer(m.entity, 'full', ctx), q.fields)
      : entityAnswer(m.entity, q.detail, ctx);
    if (m.closest) {
      full.distance = m.closest.distance;
      full.closest_point = [...m.closest.point];
    }
    if (m.crossings) full.intersections = m.crossings;
    entities.push(full);
  }
  const answer: QueryAnswer = {
    entities,
    count,
    returned: entities.length,
    next_offset: q.offset + entities.length < count ? q.offset + entities.length : null,
  };
  if (q.intersections)
    answer.points = distinctPoints(matches.flatMap((m) => (m.crossings ?? []).flatMap((c) => c.points)));
  return answer;
}

function distinctPoints(points: Point3[]): Point3[] {
  const seen = new Map<string, Point3>();
  for (const p of points) {
    const key = `${p[0].toPrecision(12)},${p[1].toPrecision(12)}`;
    if (!seen.has(key)) seen.set(key, p);
  }
  return [...seen.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
