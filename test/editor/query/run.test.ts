import { describe, expect, it } from 'vitest';
import { EditorError } from '../../../src/editor/errors.js';
import { documentContext } from '../../../src/editor/geometry/index.js';
import type { Entity } from '../../../src/editor/model.js';
import { QueryError, type QueryRequest, runQuery, SpatialIndex } from '../../../src/editor/query/index.js';
import { circle, documentOf, insert, line, point, polyline, raw, round, text } from './fixtures.js';

function scene() {
  const base = line([0, 0, 0], [10, 0, 0], { layer: 'Walls' });
  const ring = circle([5, 5, 0], 2, { layer: 'Doors' });
  const hello = text('Hello', [20, 20, 0], 1, 0, { layer: 'Notes' });
  const far = point([100, 100, 0]);
  const square = polyline(
    [
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
    ],
    true,
    { layer: 'WALLS' },
  );
  const ref = insert('B', [50, 50, 0]);
  const hatch = raw('HATCH', [
    [10, 0],
    [20, 0],
    [30, 0],
    [10, 30],
    [20, 30],
    [10, 32],
    [20, 32],
  ]);
  const cross = line([5, -5, 0], [5, 20, 0]);
  const inBlock = circle([0, 0, 0], 1);
  const entities: Entity[] = [base, ring, hello, far, square, ref, hatch, cross];
  const model = documentOf(entities, { B: { entities: [inBlock] } });
  model.entities[far.handle] = { ...far, xdata: { 'MY/APP': [{ code: 1000, value: 'tagged' }] } };
  const index = SpatialIndex.ofModel(model, documentContext(model));
  const q = (request: QueryRequest) => runQuery(model, index, request);
  return { q, model, index, base, ring, hello, far, square, ref, hatch, cross, inBlock };
}

const handlesOf = (answer: { entities: Array<Record<string, unknown>> }) =>
  answer.entities.map((e) => e.handle);
const errorOf = (fn: () => unknown): QueryError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof QueryError) return error;
    throw error;
  }
  throw new Error('expected a QueryError');
};

describe('query: listing, detail, fields', () => {
  it('answers every model entity, and the contents of the blocks inserted, in handle order with geometry detail by default', () => {
    const s = scene();
    const answer = s.q({});
    expect(answer.count).toBe(9);
    expect(answer.returned).toBe(9);
    expect(answer.next_offset).toBeNull();
    expect(handlesOf(answer)).toEqual(
      [s.base, s.ring, s.hello, s.far, s.square, s.ref, s.hatch, s.cross, s.inBlock].map((e) => e.handle),
    );
    expect(answer.entities[0]).toEqual({
      handle: s.base.handle,
      type: 'Line',
      layer: 'Walls',
      start: [0, 0, 0],
      end: [10, 0, 0],
      text: null,
      value: null,
    });
    expect(answer.entities[2]).toEqual({
      handle: s.hello.handle,
      type: 'Text',
      layer: 'Notes',
      value: 'Hello',
      position: [20, 20, 0],
      height: 1,
      rotation: 0,
      text: 'Hello',
    });
    expect(answer.entities[6]).toMatchObject({ type: 'Raw', dxf_type: 'HATCH' });
  });

  it('lists the contents of blocks the layouts insert, nested ones too; not those of blocks nobody inserts', () => {
    const inner = point([1, 1, 0]);
    const nested = insert('INNER', [0, 0, 0]);
    const lonely = circle([0, 0, 0], 3);
    const ref = insert('OUTER', [10, 10, 0]);
    const model = documentOf([ref], {
      OUTER: { entities: [nested] },
      INNER: { entities: [inner] },
      ARROW: { entities: [lonely] },
    });
    const answer = runQuery(model, SpatialIndex.ofModel(model, documentContext(model)), {});
    expect(handlesOf(answer).sort()).toEqual([ref.handle, nested.handle, inner.handle].sort());
    // Handles still reach any entity; spatial parameters look at the layouts only.
    expect(
      runQuery(model, SpatialIndex.ofModel(model, documentContext(model)), { handles: [lonely.handle] })
        .count,
    ).toBe(1);
    expect(
      handlesOf(
        runQuery(model, SpatialIndex.ofModel(model, documentContext(model)), {
          bounds: [-100, -100, 100, 100],
        }),
      ),
    ).toEqual([ref.handle]);
  });

  it('summary: handle, type and layer only', () => {
    const s = scene();
    expect(s.q({ detail: 'summary', handles: [s.ring.handle] }).entities).toEqual([
      { handle: s.ring.handle, type: 'Circle', layer: 'Doors' },
    ]);
  });

  it('full: every property, text and value, bounds with 3-number points', () => {
    const s = scene();
    const [ring] = s.q({ detail: 'full', handles: [s.ring.handle] }).entities;
    expect(ring).toEqual({
      ...s.ring,
      text: null,
      value: null,
      bounds: { min: [3, 3, 0], max: [7, 7, 0] },
    });
    const [far] = s.q({ detail: 'full', handles: [s.far.handle] }).entities;
    expect(far).toMatchObject({
      xdata: { 'MY/APP': [{ code: 1000, value: 'tagged' }] },
      bounds: { min: [100, 100, 0] },
    });
    const [x] = s.q({ detail: 'full', handles: [s.hatch.handle] }).entities;
    expect(x).toMatchObject({ dxf_type: 'HATCH', bounds: { min: [30, 30, 0], max: [32, 32, 0] } });
  });

  it('answers never share arrays with the model', () => {
    const s = scene();
    const [base] = s.q({ detail: 'full', handles: [s.base.handle] }).entities;
    (base?.start as number[])[0] = 99;
    expect(s.base.start[0]).toBe(0);
  });

  it('fields pick from the full answer; handle is always there', () => {
    const s = scene();
    expect(s.q({ handles: [s.ring.handle], fields: ['radius', 'bounds', 'nonsense'] }).entities).toEqual([
      { handle: s.ring.handle, radius: 2, bounds: { min: [3, 3, 0], max: [7, 7, 0] } },
    ]);
    expect(s.q({ handles: [s.base.handle], fields: 'layer,start' }).entities).toEqual([
      { handle: s.base.handle, layer: 'Walls', start: [0, 0, 0] },
    ]);
  });

  it('refuses an unknown detail', () => {
    const s = scene();
    const error = errorOf(() => s.q({ detail: 'everything' }));
    expect(error).toBeInstanceOf(EditorError);
    expect(error.code).toBe('invalid_query');
    expect(error.message).toMatch(/detail must be one of geometry, summary, full/);
  });
});

describe('query: type, layer, handles', () => {
  it('type: case-insensitive, several, raw entities by their DXF name or as Raw', () => {
    const s = scene();
    expect(handlesOf(s.q({ type: 'line' }))).toEqual([s.base.handle, s.cross.handle]);
    expect(s.q({ type: 'Line,Circle' }).count).toBe(4);
    expect(s.q({ type: ['LWPOLYLINE', 'insert'] }).count).toBe(2);
    expect(handlesOf(s.q({ type: 'HATCH' }))).toEqual([s.hatch.handle]);
    expect(handlesOf(s.q({ type: 'Raw' }))).toEqual([s.hatch.handle]);
    expect(s.q({ type: 'Spline' }).count).toBe(0);
    expect(errorOf(() => s.q({ type: 3 })).code).toBe('invalid_query');
  });

  it('layer: case-insensitive like DXF layer names', () => {
    const s = scene();
    expect(handlesOf(s.q({ layer: 'walls' }))).toEqual([s.base.handle, s.square.handle]);
    expect(s.q({ layer: ['Doors', 'Notes'] }).count).toBe(2);
  });

  it('handles: in the order given, any case, block contents too; unknown ones are entity_absent', () => {
    const s = scene();
    expect(handlesOf(s.q({ handles: [s.cross.handle, s.base.handle.toLowerCase()] }))).toEqual([
      s.cross.handle,
      s.base.handle,
    ]);
    expect(handlesOf(s.q({ handles: `${s.inBlock.handle}` }))).toEqual([s.inBlock.handle]);
    const error = errorOf(() => s.q({ handles: ['FFFFFF'] }));
    expect(error.code).toBe('entity_absent');
    expect(error.message).toMatch(/FFFFFF/);
    expect(handlesOf(s.q({ handles: [s.base.handle, s.ring.handle], type: 'circle' }))).toEqual([
      s.ring.handle,
    ]);
  });
});

describe('query: paging', () => {
  it('offset and limit as numbers or the strings REST forwards', () => {
    const s = scene();
    const page = s.q({ offset: '1', limit: '2' });
    expect(page).toMatchObject({ count: 9, returned: 2, next_offset: 3 });
    expect(handlesOf(page)).toEqual([s.ring.handle, s.hello.handle]);
    expect(s.q({ offset: 7, limit: 2 })).toMatchObject({ returned: 2, next_offset: null });
    expect(s.q({ offset: 8, limit: 2 })).toMatchObject({ returned: 1, next_offset: null });
    expect(s.q({ offset: 50 })).toMatchObject({ count: 9, returned: 0, next_offset: null, entities: [] });
    expect(s.q({ limit: 0 })).toMatchObject({ count: 9, returned: 0, next_offset: 0 });
    expect(s.q({ limit: '10000' }).returned).toBe(9);
    expect(s.q({ limit: '', offset: null }).returned).toBe(9);
  });

  it('walks every page exactly once', () => {
    const s = scene();
    const seen: unknown[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = s.q({ offset, limit: 3 });
      seen.push(...handlesOf(page));
      offset = page.next_offset;
    }
    expect(seen).toEqual(handlesOf(s.q({})));
  });

  it.each([['10001'], [-1], ['-1'], [2.5], ['2.5'], ['abc'], [true], [[1]]])('refuses limit %j', (limit) => {
    expect(errorOf(() => scene().q({ limit })).code).toBe('invalid_query');
  });

  it('refuses a bad offset', () => {
    expect(errorOf(() => scene().q({ offset: 'x' })).code).toBe('invalid_query');
  });
});

describe('query: bounds window', () => {
  it('entities whose bounds touch the window, corners in any order', () => {
    const s = scene();
    expect(handlesOf(s.q({ bounds: [4, 4, 6, 6] }))).toEqual([
      s.ring.handle,
      s.square.handle,
      s.cross.handle,
    ]);
    expect(handlesOf(s.q({ bounds: [6, 6, 4, 4] }))).toEqual([
      s.ring.handle,
      s.square.handle,
      s.cross.handle,
    ]);
    expect(handlesOf(s.q({ bounds: ['49', '49', '51', '51'] }))).toEqual([s.ref.handle]);
    // A window on the line's edge touches it.
    expect(handlesOf(s.q({ bounds: [-1, -1, 0, 0], type: 'line' }))).toEqual([s.base.handle]);
    expect(s.q({ bounds: [1000, 1000, 2000, 2000] }).count).toBe(0);
  });

  it('combines with handles (checked on their bounds) and other filters', () => {
    const s = scene();
    expect(handlesOf(s.q({ bounds: [4, 4, 6, 6], handles: [s.ring.handle, s.far.handle] }))).toEqual([
      s.ring.handle,
    ]);
    expect(handlesOf(s.q({ bounds: [4, 4, 6, 6], layer: 'walls' }))).toEqual([s.square.handle]);
  });

  it('uses the index, not a scan: an entity the index does not hold is not found', () => {
    const s = scene();
    s.index.remove(s.ring.handle);
    expect(handlesOf(s.q({ bounds: [4, 4, 6, 6] }))).toEqual([s.square.handle, s.cross.handle]);
  });

  it.each([[[1, 2, 3]], [[1, 2, 3, 'x']], ['1,2,3,4,5'], [{ minX: 0 }]])('refuses bounds %j', (bounds) => {
    expect(errorOf(() => scene().q({ bounds })).code).toBe('invalid_point');
  });
});

describe('query: near', () => {
  it('[x, y]: every entity with geometry, nearest first, with distance and closest point', () => {
    const s = scene();
    const answer = s.q({ near: [5, 4] });
    expect(answer.count).toBe(8);
    expect(handlesOf(answer).slice(0, 3)).toEqual([s.cross.handle, s.ring.handle, s.base.handle]);
    expect(answer.entities[0]).toMatchObject({ distance: 0, closest_point: [5, 4, 0] });
    expect(round(answer.entities[1])).toMatchObject({ distance: 1, closest_point: [5, 3, 0] });
    expect(answer.entities[2]).toMatchObject({ distance: 4, closest_point: [5, 0, 0] });
    const distances = answer.entities.map((e) => e.distance as number);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
  });

  it('[x, y, radius]: only those within the radius', () => {
    const s = scene();
    expect(handlesOf(s.q({ near: [5, 4, 1] }))).toEqual([s.cross.handle, s.ring.handle]);
    expect(s.q({ near: '5,4,1' }).count).toBe(2);
    expect(s.q({ near: [5, 4, 0] }).count).toBe(1);
  });

  it('pages by distance, ties by handle, and counts what the other filters keep', () => {
    const s = scene();
    const all = handlesOf(s.q({ near: [5, 4] }));
    expect(handlesOf(s.q({ near: [5, 4], offset: 2, limit: 3 }))).toEqual(all.slice(2, 5));
    expect(s.q({ near: [5, 4], offset: 2, limit: 3 })).toMatchObject({ count: 8, next_offset: 5 });
    expect(s.q({ near: [5, 4], type: 'line', limit: 1 })).toMatchObject({
      count: 2,
      returned: 1,
      next_offset: 1,
    });
    expect(handlesOf(s.q({ near: [5, 4], handles: [s.far.handle, s.base.handle] }))).toEqual([
      s.base.handle,
      s.far.handle,
    ]);
    expect(handlesOf(s.q({ near: [5, 4], bounds: [0, 0, 10, 10] }))).toEqual([
      s.cross.handle,
      s.ring.handle,
      s.base.handle,
      s.square.handle,
    ]);
  });

  it.each([[[1]], [[1, 2, 3, 4]], [[1, 'y']], [[1, 2, -1]]])('refuses near %j', (near) => {
    expect(errorOf(() => scene().q({ near })).code).toBe('invalid_point');
  });
});

describe('query: contains_point', () => {
  it('inside closed entities, on open ones within the tolerance', () => {
    const s = scene();
    expect(handlesOf(s.q({ contains_point: [5, 5] }))).toEqual([
      s.ring.handle,
      s.square.handle,
      s.cross.handle,
    ]);
    expect(handlesOf(s.q({ contains_point: [2, 5] }))).toEqual([s.square.handle]);
    expect(handlesOf(s.q({ contains_point: [2, 0.5] }))).toEqual([s.square.handle]);
    expect(handlesOf(s.q({ contains_point: [2, 0.5, 1] }))).toEqual([s.base.handle, s.square.handle]);
    expect(handlesOf(s.q({ contains_point: [20.5, 20.5] }))).toEqual([s.hello.handle]);
    expect(handlesOf(s.q({ contains_point: [50, 51] }))).toEqual([s.ref.handle]);
  });

  it.each([[[1]], [[1, 2, -1]], [['a', 'b']]])('refuses contains_point %j', (contains_point) => {
    expect(errorOf(() => scene().q({ contains_point })).code).toBe('invalid_point');
  });
});

describe('query: intersections', () => {
  it('one handle: every entity it crosses, and where', () => {
    const s = scene();
    const answer = s.q({ intersections: [s.cross.handle] });
    expect(handlesOf(answer)).toEqual([s.base.handle, s.ring.handle, s.square.handle]);
    expect(round(answer.entities[1])).toMatchObject({
      intersections: [
        {
          handle: s.cross.handle,
          points: [
            [5, 3, 0],
            [5, 7, 0],
          ],
        },
      ],
    });
    expect(round(answer.points)).toEqual([
      [5, 0, 0],
      [5, 3, 0],
      [5, 7, 0],
      [5, 10, 0],
    ]);
    expect(handlesOf(s.q({ intersections: s.cross.handle, layer: 'walls' }))).toEqual([
      s.base.handle,
      s.square.handle,
    ]);
    expect(handlesOf(s.q({ intersections: s.cross.handle, bounds: [4, 9, 6, 11] }))).toEqual([
      s.square.handle,
    ]);
  });

  it('several handles: where they cross one another', () => {
    const s = scene();
    const answer = s.q({ intersections: [s.base.handle, s.ring.handle, s.cross.handle] });
    expect(handlesOf(answer)).toEqual([s.base.handle, s.ring.handle, s.cross.handle]);
    expect(answer.entities[0]).toMatchObject({
      intersections: [{ handle: s.cross.handle, points: [[5, 0, 0]] }],
    });
    expect(answer.entities[2]?.intersections).toHaveLength(2);
    expect(round(answer.points)).toEqual([
      [5, 0, 0],
      [5, 3, 0],
      [5, 7, 0],
    ]);
    expect(s.q({ intersections: [s.base.handle, s.far.handle] })).toMatchObject({ count: 0, points: [] });
  });

  it('refuses unknown handles and an empty list', () => {
    const s = scene();
    expect(errorOf(() => s.q({ intersections: ['ABCDEF'] })).code).toBe('entity_absent');
    expect(errorOf(() => s.q({ intersections: [] })).code).toBe('invalid_query');
    expect(errorOf(() => s.q({ intersections: [1] })).code).toBe('invalid_query');
  });
});

describe('query: where', () => {
  const where = (s: ReturnType<typeof scene>, path: string, op: string, value?: unknown) =>
    handlesOf(s.q({ where: [{ path, op, value }] }));

  it('eq, ne, lt, lte, gt, gte', () => {
    const s = scene();
    expect(where(s, '/radius', 'eq', 2)).toEqual([s.ring.handle]);
    expect(where(s, '/layer', 'ne', '0')).toEqual([
      s.base.handle,
      s.ring.handle,
      s.hello.handle,
      s.square.handle,
    ]);
    expect(where(s, '/start/0', 'lt', 5)).toEqual([s.base.handle]);
    expect(where(s, '/start/0', 'lte', 5)).toEqual([s.base.handle, s.cross.handle]);
    expect(where(s, '/start/1', 'gt', -5)).toEqual([s.base.handle]);
    expect(where(s, '/start/1', 'gte', -5)).toEqual([s.base.handle, s.cross.handle]);
    expect(where(s, '/layer', 'gt', 'V')).toEqual([s.base.handle, s.square.handle]);
    // A number and a string never compare.
    expect(where(s, '/radius', 'gt', '1')).toEqual([]);
    expect(where(s, '/start', 'eq', [5, -5, 0])).toEqual([s.cross.handle]);
  });

  it('contains, starts_with, ends_with, in', () => {
    const s = scene();
    expect(where(s, '/text', 'contains', 'ell')).toEqual([s.hello.handle]);
    expect(where(s, '/vertices', 'contains', { x: 10, y: 10, bulge: 0 })).toEqual([s.square.handle]);
    expect(where(s, '/layer', 'starts_with', 'Wa')).toEqual([s.base.handle]);
    expect(where(s, '/layer', 'ends_with', 'LLS')).toEqual([s.square.handle]);
    expect(where(s, '/type', 'in', ['Point', 'Insert'])).toEqual([s.far.handle, s.ref.handle]);
  });

  it('exists and not_exists; bounds, text and escaped pointers', () => {
    const s = scene();
    expect(where(s, '/radius', 'exists')).toEqual([s.ring.handle, s.inBlock.handle]);
    expect(where(s, '/radius', 'not_exists')).toHaveLength(7);
    expect(where(s, '/bounds/min/0', 'gte', 49)).toEqual([s.far.handle, s.ref.handle]);
    expect(where(s, '/bounds', 'eq', null)).toEqual([]);
    expect(where(s, '/text', 'eq', null)).toHaveLength(8);
    expect(where(s, '/xdata/MY~1APP/0/value', 'eq', 'tagged')).toEqual([s.far.handle]);
    expect(where(s, '/vertices/1/x', 'eq', 10)).toEqual([s.square.handle]);
    expect(where(s, '/vertices/01/x', 'eq', 10)).toEqual([]);
  });

  it('all filters must hold, together with the other parameters', () => {
    const s = scene();
    const filters = [
      { path: '/type', op: 'eq', value: 'Line' },
      { path: '/end/1', op: 'gt', value: 0 },
    ];
    expect(handlesOf(s.q({ where: filters }))).toEqual([s.cross.handle]);
    expect(handlesOf(s.q({ where: JSON.stringify(filters) }))).toEqual([s.cross.handle]);
    expect(handlesOf(s.q({ where: filters, bounds: [0, 0, 1, 1] }))).toEqual([]);
  });

  it.each([
    ['{', /where must be a JSON array: /],
    [{ path: '/a', op: 'eq', value: 1 }, /where must be an array/],
    [[1], /where\[0\] must be an object/],
    [[{ op: 'eq', value: 1 }], /where\[0\]\.path must be a JSON pointer/],
    [[{ path: 'radius', op: 'eq', value: 1 }], /is not a JSON pointer/],
    [[{ path: '/a~2', op: 'eq', value: 1 }], /is not a JSON pointer/],
    [[{ path: '/radius', op: 'like', value: 1 }], /where\[0\]\.op must be one of eq, ne, lt/],
    [[{ path: '/radius', op: 'eq' }], /value is required/],
    [[{ path: '/radius', op: 'lt', value: [1] }], /number or a string/],
    [[{ path: '/layer', op: 'starts_with', value: 1 }], /must be a string/],
    [[{ path: '/layer', op: 'in', value: 'Walls' }], /must be an array/],
  ])('refuses %j with invalid_where', (filter, message) => {
    const error = errorOf(() => scene().q({ where: filter }));
    expect(error.code).toBe('invalid_where');
    expect(error.message).toMatch(message);
  });
});
