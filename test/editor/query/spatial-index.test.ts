import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bounds, documentContext } from '../../../src/editor/geometry/index.js';
import { SpatialIndex } from '../../../src/editor/query/spatial-index.js';
import { fuzzName } from '../fuzz-names.js';
import { circle, documentOf, insert, line, point, polyline, raw } from './fixtures.js';

const b = (x0: number, y0: number, x1: number, y1: number) => ({
  min: [x0, y0, 0] as [number, number, number],
  max: [x1, y1, 0] as [number, number, number],
});

describe('SpatialIndex', () => {
  it('inserts, updates and removes by handle; search finds touching boxes', () => {
    const index = new SpatialIndex();
    index.set('A', b(0, 0, 1, 1));
    index.set('B', b(5, 5, 6, 6));
    expect(index.size).toBe(2);
    expect(index.search({ minX: 1, minY: 1, maxX: 2, maxY: 2 })).toEqual(['A']);
    index.set('A', b(10, 10, 11, 11));
    expect(index.search({ minX: 0, minY: 0, maxX: 2, maxY: 2 })).toEqual([]);
    expect(index.search({ minX: 9, minY: 9, maxX: 12, maxY: 12 })).toEqual(['A']);
    expect(index.boxOf('A')).toEqual({ minX: 10, minY: 10, maxX: 11, maxY: 11 });
    expect(index.remove('A')).toBe(true);
    expect(index.remove('A')).toBe(false);
    expect(index.has('A')).toBe(false);
    expect(index.size).toBe(1);
    // Bounds of undefined (no extent) take an entity out.
    index.set('B', undefined);
    expect(index.size).toBe(0);
    expect(index.search({ minX: -100, minY: -100, maxX: 100, maxY: 100 })).toEqual([]);
  });

  it('builds from a model: the order entities that have bounds, inserts through their blocks', () => {
    const model = documentOf(
      [line([0, 0, 0], [1, 1, 0]), raw('XLINE', []), polyline([]), insert('B', [100, 100, 0])],
      { B: { entities: [circle([0, 0, 0], 1)] } },
    );
    const index = SpatialIndex.ofModel(model, documentContext(model));
    expect(index.size).toBe(2);
    const [l, , , ins] = model.order;
    expect(index.search({ minX: 99.5, minY: 99.5, maxX: 99.6, maxY: 99.6 })).toEqual([ins]);
    expect(index.search({ minX: 0.5, minY: 0.5, maxX: 0.5, maxY: 0.5 })).toEqual([l]);
    const moved = { ...point([7, 7, 0]), handle: l as string };
    index.setEntity(moved);
    expect(index.search({ minX: 7, minY: 7, maxX: 7, maxY: 7 })).toEqual([l]);
  });

  it('nearest: lazily by exact distance, with a radius and an exclusion', () => {
    const entities = [circle([0, 0, 0], 10), point([3, 0, 0]), line([20, -5, 0], [20, 5, 0])];
    const byHandle = new Map(entities.map((e) => [e.handle, e]));
    const index = SpatialIndex.of(entities.map((e) => [e.handle, bounds(e)] as const));
    const exact = (h: string) => {
      const e = byHandle.get(h);
      if (!e) return undefined;
      if (e.type === 'Circle') return Math.abs(Math.hypot(1 - e.center[0], 0 - e.center[1]) - e.radius);
      return e.type === 'Point' ? Math.hypot(1 - e.location[0], 0 - e.location[1]) : 19;
    };
    // The circle's box holds (1, 0) but its outline is 9 away: the point (2 away) comes first.
    expect([...index.nearest(1, 0, { distance: exact })].map((n) => [n.handle, n.distance])).toEqual([
      [entities[1]?.handle, 2],
      [entities[0]?.handle, 9],
      [entities[2]?.handle, 19],
    ]);
    expect([...index.nearest(1, 0, { distance: exact, maxDistance: 9 })]).toHaveLength(2);
    expect([
      ...index.nearest(1, 0, { distance: (h) => (h === entities[1]?.handle ? undefined : exact(h)) }),
    ]).toHaveLength(2);
    expect([...new SpatialIndex().nearest(0, 0)]).toEqual([]);
  });

  it('agrees with a scan through random inserts, moves and removals', () => {
    const box = fc
      .tuple(fc.integer({ min: -100, max: 100 }), fc.integer({ min: -100, max: 100 }), fc.nat(20), fc.nat(20))
      .map(([x, y, w, h]) => b(x, y, x + w, y + h));
    // Handles, and names of Object.prototype members (the index must key by own entries only).
    const key = fuzzName(fc.integer({ min: 0, max: 30 }).map((n) => n.toString(16).toUpperCase()));
    const op = fc.oneof(
      fc.tuple(fc.constant('set' as const), key, box),
      fc.tuple(fc.constant('remove' as const), key, box),
    );
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 80 }),
        box,
        fc.integer({ min: -100, max: 100 }),
        fc.integer({ min: -100, max: 100 }),
        (ops, query, px, py) => {
          const index = new SpatialIndex();
          const truth = new Map<string, ReturnType<typeof b>>();
          for (const [kind, h, bx] of ops) {
            if (kind === 'set') {
              index.set(h, bx);
              truth.set(h, bx);
            } else {
              index.remove(h);
              truth.delete(h);
            }
          }
          const w = { minX: query.min[0], minY: query.min[1], maxX: query.max[0], maxY: query.max[1] };
          const scan = [...truth]
            .filter(
              ([, t]) => t.min[0] <= w.maxX && t.max[0] >= w.minX && t.min[1] <= w.maxY && t.max[1] >= w.minY,
            )
            .map(([h]) => h);
          const dist = (t: ReturnType<typeof b>) =>
            Math.hypot(Math.max(t.min[0] - px, 0, px - t.max[0]), Math.max(t.min[1] - py, 0, py - t.max[1]));
          const nearest = [...index.nearest(px, py)].map((n) => n.distance);
          const sorted = [...truth.values()].map(dist).sort((x, y) => x - y);
          return (
            index.size === truth.size &&
            index.search(w).sort().join() === scan.sort().join() &&
            nearest.length === sorted.length &&
            nearest.every((d, i) => Math.abs(d - (sorted[i] ?? Infinity)) < 1e-9)
          );
        },
      ),
    );
  });
});
