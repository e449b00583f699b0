/**
 * SOLID, TRACE, 3DFACE, XLINE and RAY as geometry: bounds, distances, containment, crossings, and their
 * transforms (through the OCS for SOLID and TRACE), with transform-then-inverse property tests.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bounds,
  containsPoint,
  distance,
  intersections,
  mirroring,
  rotation,
  scaling,
  transformEntity,
  translation,
} from '../../../src/editor/geometry/index.js';
import type {
  EntityCommon,
  Face3dEntity,
  Point3,
  RayEntity,
  SolidEntity,
  XLineEntity,
} from '../../../src/editor/model.js';
import { line, round } from '../query/fixtures.js';

const common: EntityCommon = {
  handle: 'A1',
  space: '*Model_Space',
  layer: '0',
  color: 256,
  linetype: 'BYLAYER',
  lineweight: -1,
};
type Corners = [Point3, Point3, Point3, Point3];
const solid = (corners: Corners, extrusion?: Point3): SolidEntity => ({
  ...common,
  type: 'Solid',
  corners,
  ...(extrusion ? { extrusion } : {}),
});
const face = (corners: Corners, invisible_edges = 0): Face3dEntity => ({
  ...common,
  type: 'Face3d',
  corners,
  invisible_edges,
});
const xline = (start: Point3, direction: Point3): XLineEntity => ({
  ...common,
  type: 'XLine',
  start,
  direction,
});
const ray = (start: Point3, direction: Point3): RayEntity => ({ ...common, type: 'Ray', start, direction });

// DXF's corner order: the outline of a square runs 0, 1, 3, 2.
const square = solid([
  [0, 0, 0],
  [4, 0, 0],
  [0, 4, 0],
  [4, 4, 0],
]);

describe('SOLID and TRACE', () => {
  it('bounds, inside and outline in DXF corner order (0, 1, 3, 2)', () => {
    expect(bounds(square)).toEqual({ min: [0, 0, 0], max: [4, 4, 0] });
    expect(containsPoint(square, [2, 2])).toBe(true);
    expect(containsPoint(square, [5, 2])).toBe(false);
    // The outline has no diagonal: the square's centre is 2 from its nearest edge.
    expect(distance(square, [2, 2])).toBe(2);
    expect(intersections(square, line([-1, 1, 0], [5, 1, 0]))).toEqual([
      [0, 1, 0],
      [4, 1, 0],
    ]);
  });

  it('reads its corners in its OCS: an extrusion of (0, 0, -1) mirrors x into the world', () => {
    const below = solid(square.corners, [0, 0, -1]);
    expect(bounds(below)).toEqual({ min: [-4, 0, 0], max: [0, 4, 0] });
  });

  it('transforms as ezdxf does: a mirror turns its extrusion over, a negative scale does not', () => {
    const mirrored = transformEntity(square, mirroring([0, 0], [0, 1])) as SolidEntity;
    expect(mirrored.extrusion).toEqual([0, 0, -1]);
    // The same corners in its new OCS (whose x is the world's -x): the same world square, mirrored.
    expect(round(mirrored.corners)).toEqual(round(square.corners));
    expect(bounds(mirrored)).toEqual({ min: [-4, 0, 0], max: [0, 4, 0] });
    const halfTurn = transformEntity(square, scaling([0, 0, 0], -1)) as SolidEntity;
    expect(halfTurn.extrusion).toBeUndefined();
    expect(round(bounds(halfTurn))).toEqual({ min: [-4, -4, 0], max: [0, 0, 0] });
    // Thickness follows the new extrusion.
    const thick = { ...square, extra: [{ code: 39, value: '2' }] };
    const flipped = transformEntity(thick, mirroring([0, 0], [0, 1])) as SolidEntity;
    expect(flipped.extra).toEqual([{ code: 39, value: '-2' }]);
  });
});

describe('3DFACE', () => {
  const tri = face([
    [0, 0, 0],
    [4, 0, 1],
    [0, 4, 2],
    [0, 4, 2],
  ]);

  it('bounds in 3D, outline 0, 1, 2, 3, and invisible edges left out of the outline', () => {
    expect(bounds(tri)).toEqual({ min: [0, 0, 0], max: [4, 4, 2] });
    expect(containsPoint(tri, [1, 1])).toBe(true);
    // Without its first edge (0 to 1) a line along y = 0 crosses only at the corners' other edges.
    const open = face(tri.corners, 1);
    expect(intersections(open, line([-1, 0.5, 0], [5, 0.5, 0])).length).toBe(2);
    expect(intersections(open, line([2, -1, 0], [2, 0.1, 0]))).toEqual([]);
    // z is the face's, interpolated along its edge.
    expect(intersections(tri, line([2, -1, 0], [2, 0.1, 0]))).toEqual([[2, 0, 0.5]]);
  });

  it('transforms its corners in the world', () => {
    const moved = transformEntity(tri, translation([1, 2, 3])) as Face3dEntity;
    expect(moved.corners[1]).toEqual([5, 2, 4]);
  });
});

describe('XLINE and RAY', () => {
  const diagonal = xline([0, 0, 0], [Math.SQRT1_2, Math.SQRT1_2, 0]);
  const east = ray([1, 1, 0], [1, 0, 0]);

  it('have no bounds; distance and containment are those of the infinite line', () => {
    expect(bounds(diagonal)).toBeUndefined();
    expect(bounds(east)).toBeUndefined();
    expect(distance(diagonal, [-100, -100])).toBeCloseTo(0, 9);
    expect(distance(diagonal, [1, 0])).toBeCloseTo(Math.SQRT1_2, 12);
    // A ray ends at its start.
    expect(distance(east, [-2, 1])).toBe(3);
    expect(distance(east, [1e6, 3])).toBe(2);
    expect(containsPoint(east, [500, 1])).toBe(true);
    expect(containsPoint(east, [0, 1])).toBe(false);
  });

  it('cross other entities and each other, a ray only ahead of its start', () => {
    expect(round(intersections(diagonal, line([5, 0, 0], [5, 10, 0])))).toEqual([[5, 5, 0]]);
    expect(intersections(east, line([-5, 0, 0], [-5, 10, 0]))).toEqual([]);
    expect(round(intersections(east, diagonal))).toEqual([[1, 1, 0]]);
    const far = ray([1000, 0, 0], [0, 1, 0]);
    expect(round(intersections(diagonal, far))).toEqual([[1000, 1000, 0]]);
  });

  it('transform as ezdxf does: the start mapped, the direction a unit vector again', () => {
    const turned = transformEntity(east, rotation([0, 0], 90)) as RayEntity;
    expect(round(turned)).toMatchObject({ start: [-1, 1, 0], direction: [0, 1, 0] });
    const scaled = transformEntity(east, scaling([0, 0, 0], 3)) as RayEntity;
    expect(scaled.direction).toEqual([1, 0, 0]);
    expect(scaled.start).toEqual([3, 3, 0]);
  });
});

describe('transform then the inverse transform gives them back within 1e-9', () => {
  const coord = fc.integer({ min: -100_000, max: 100_000 }).map((i) => i / 100);
  const pt = fc.tuple(coord, coord, coord).map((p): Point3 => [p[0], p[1], p[2]]);
  const matrices = [
    [translation([3.5, -2, 1]), translation([-3.5, 2, -1])],
    [rotation([1, 2], 37.5), rotation([1, 2], -37.5)],
    [scaling([1, 2, 0], -2.5), scaling([1, 2, 0], -0.4)],
    [mirroring([0, 1], [2, 5]), mirroring([0, 1], [2, 5])],
  ] as const;
  const close = (a: readonly number[], b: readonly number[]) =>
    a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 1e-9 * Math.max(1, Math.abs(v)));
  const extrusions: Point3[] = [
    [0, 0, 1],
    [0, 0, -1],
    [0.6, 0, 0.8],
  ];

  it('SOLID and TRACE, in any OCS', () => {
    fc.assert(
      fc.property(
        fc.tuple(pt, pt, pt, pt),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        (corners, x, k, trace) => {
          const extrusion = extrusions[x] as Point3;
          const original = { ...solid(corners, extrusion), type: trace ? 'Trace' : 'Solid' } as SolidEntity;
          const [there, back] = matrices[k] as (typeof matrices)[number];
          const again = transformEntity(transformEntity(original, there), back) as SolidEntity;
          expect(again.type).toBe(original.type);
          again.corners.forEach((c, i) => {
            expect(close(c, corners[i] as Point3)).toBe(true);
          });
          expect(close(again.extrusion ?? [0, 0, 1], extrusion)).toBe(true);
        },
      ),
    );
  });

  it('3DFACE, XLINE and RAY', () => {
    fc.assert(
      fc.property(fc.tuple(pt, pt, pt, pt), pt, fc.integer({ min: 0, max: 3 }), (corners, d, k) => {
        fc.pre(Math.hypot(...d) > 0);
        const [there, back] = matrices[k] as (typeof matrices)[number];
        const f = face(corners, 5);
        const fAgain = transformEntity(transformEntity(f, there), back) as Face3dEntity;
        fAgain.corners.forEach((c, i) => {
          expect(close(c, corners[i] as Point3)).toBe(true);
        });
        expect(fAgain.invisible_edges).toBe(5);
        const l = Math.hypot(...d);
        const unit: Point3 = [d[0] / l, d[1] / l, d[2] / l];
        for (const r of [xline(corners[0], unit), ray(corners[0], unit)]) {
          const again = transformEntity(transformEntity(r, there), back) as RayEntity;
          expect(close(again.start, r.start)).toBe(true);
          expect(close(again.direction, unit)).toBe(true);
        }
      }),
    );
  });
});
