/**
 * HATCH as geometry: boundary paths of lines, arcs, ellipse arcs, splines and bulged polylines bound it;
 * a pattern is its stored lines cut at the loops (islands left empty); transforms move every part, a
 * mirror running arcs the other way; transform-then-inverse gives the tags back within 1e-9.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hatchGeometry, patternSegments } from '../../../src/editor/geometry/hatch.js';
import {
  bounds,
  type Matrix,
  mirroring,
  rotation,
  scaling,
  transformEntity,
  translation,
} from '../../../src/editor/geometry/index.js';
import type { RawEntity } from '../../../src/editor/model.js';
import { raw, round } from '../query/fixtures.js';

type Rows = Array<[number, string | number]>;

const head: Rows = [
  [5, 'HH'],
  [100, 'AcDbEntity'],
  [8, '0'],
  [100, 'AcDbHatch'],
  [10, 0],
  [20, 0],
  [30, 0],
  [210, 0],
  [220, 0],
  [230, 1],
];

/** An edge path: from (0,0) a line to (10,0), a ccw half circle of radius 5 about (5,0) back to (0,0). */
const halfDisc: Rows = [
  [92, 1],
  [93, 2],
  [72, 1],
  [10, 0],
  [20, 0],
  [11, 10],
  [21, 0],
  [72, 2],
  [10, 5],
  [20, 0],
  [40, 5],
  [50, 0],
  [51, 180],
  [73, 1],
  [97, 0],
];

/** A square polyline path 20 x 20 with a bulged top edge, and a 2 x 2 island. */
const square = (x: number, y: number, size: number, bulge = 0): Rows => [
  [92, 3],
  [72, bulge ? 1 : 0],
  [73, 1],
  [93, 4],
  [10, x],
  [20, y],
  ...(bulge ? ([[42, 0]] as Rows) : []),
  [10, x + size],
  [20, y],
  ...(bulge ? ([[42, 0]] as Rows) : []),
  [10, x + size],
  [20, y + size],
  ...(bulge ? ([[42, bulge]] as Rows) : []),
  [10, x],
  [20, y + size],
  ...(bulge ? ([[42, 0]] as Rows) : []),
  [97, 0],
];

/** ANSI31 at scale 1: 45° lines 0.125 apart (the offset turned with them). */
const ANSI31: Rows = [
  [75, 0],
  [76, 1],
  [52, 0],
  [41, 1],
  [77, 0],
  [78, 1],
  [53, 45],
  [43, 0],
  [44, 0],
  [45, -0.0883883476483184],
  [46, 0.0883883476483184],
  [79, 0],
  [98, 1],
  [10, 1],
  [20, 1],
];

const hatch = (paths: Rows[], solid: boolean, trailer: Rows = ANSI31) =>
  raw(
    'HATCH',
    [
      ...head,
      [2, solid ? 'SOLID' : 'ANSI31'],
      [70, solid ? 1 : 0],
      [71, 0],
      [91, paths.length],
      ...paths.flat(),
      ...trailer,
    ],
    {
      handle: 'HH',
    },
  );

const MATRICES: Array<[string, Matrix, Matrix]> = [
  ['move', translation([3.5, -2, 1]), translation([-3.5, 2, -1])],
  ['rotate', rotation([1, 2], 37.5), rotation([1, 2], -37.5)],
  ['scale', scaling([1, 2, 0], -2.5), scaling([1, 2, 0], -0.4)],
  ['mirror', mirroring([0, 1], [2, 5]), mirroring([0, 1], [2, 5])],
];

describe('HATCH', () => {
  it('is bounded by its boundary: arcs to their extremes, bulges too', () => {
    const b = round(bounds(hatch([halfDisc], true))) as { min: number[]; max: number[] };
    expect(b.min.map((v) => Math.round(v * 1000) / 1000)).toEqual([0, 0, 0]);
    expect(b.max.map((v) => Math.round(v * 1000) / 1000)).toEqual([10, 5, 0]);
    // A bulge of 1 on the top edge (20 wide): a half circle of radius 10 above y 20.
    const bulged = round(bounds(hatch([square(0, 0, 20, 1)], true))) as { min: number[]; max: number[] };
    expect(Math.round(bulged.max[1] as number)).toBe(30);
  });

  it('a mirror runs an arc edge the other way, so the mirrored outline is the mirror image', () => {
    const mirrored = transformEntity(hatch([halfDisc], true), mirroring([0, 0], [1, 0]));
    const b = round(bounds(mirrored)) as { min: number[]; max: number[] };
    expect(b.min.map((v) => Math.round(v * 1000) / 1000)).toEqual([0, -5, 0]);
    expect(b.max.map((v) => Math.round(v * 1000) / 1000)).toEqual([10, 0, 0]);
    const turned = transformEntity(hatch([halfDisc], true), rotation([0, 0], 90));
    const t = round(bounds(turned)) as { min: number[]; max: number[] };
    expect(t.min.map((v) => Math.round(v * 1000) / 1000)).toEqual([-5, 0, 0]);
  });

  it('draws its pattern cut at the boundary, an island left empty', () => {
    const g = hatchGeometry(hatch([square(0, 0, 4), square(1, 1, 2)], false));
    const segments = patternSegments(g);
    // 45° lines 0.125 apart across a 4 x 4 square: about 2·4/0.125·√2/2 = 45 of them, the island cutting some.
    expect(segments.length).toBeGreaterThan(40);
    for (const [a, b] of segments) {
      for (const p of [a, b]) {
        expect(p[0] >= -1e-9 && p[0] <= 4 + 1e-9 && p[1] >= -1e-9 && p[1] <= 4 + 1e-9).toBe(true);
      }
      // No stroke through the island's inside (its middle point is not strictly inside 1..3).
      const mx = (a[0] + b[0]) / 2;
      const my = (a[1] + b[1]) / 2;
      expect(mx > 1 + 1e-6 && mx < 3 - 1e-6 && my > 1 + 1e-6 && my < 3 - 1e-6).toBe(false);
    }
  });

  it('transform then the inverse transform gives its tags back within 1e-9', () => {
    const coord = fc.integer({ min: -100_000, max: 100_000 }).map((i) => i / 100);
    fc.assert(
      fc.property(coord, coord, fc.integer({ min: 0, max: 3 }), (x, y, k) => {
        const original = hatch([square(x, y, 20, 0.5), halfDisc], false);
        const [, there, back] = MATRICES[k] as (typeof MATRICES)[number];
        const again = transformEntity(transformEntity(original, there), back) as RawEntity;
        original.tags.forEach((t, i) => {
          const a = Number(t.value);
          const b = Number(again.tags[i]?.value);
          expect(again.tags[i]?.code).toBe(t.code);
          if (!Number.isFinite(a)) {
            expect(again.tags[i]?.value).toBe(t.value);
            return;
          }
          // Angles may come back a turn apart.
          const d = [50, 51, 52, 53].includes(t.code)
            ? Math.abs(((a - b + 540) % 360) - 180)
            : Math.abs(a - b);
          expect(d, `tag ${i} (${t.code})`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(a)));
        });
      }),
    );
  });
});
