/**
 * SPLINE geometry: a NURBS evaluated with its knots and weights (a rational quadratic quarter circle is
 * a quarter circle), a fit-point spline through its points, bounds, distances, and transforms as
 * ezdxf's (points mapped, tangents and normal as directions), with transform then inverse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bounds,
  containsPoint,
  distance,
  mirroring,
  scaling,
  transformEntity,
} from '../../../src/editor/geometry/index.js';
import { splinePoints } from '../../../src/editor/geometry/spline.js';
import type { Point3, SplineEntity } from '../../../src/editor/model.js';
import { close, INVERSE_PAIRS, pairIndex, point } from './inverse-steps.js';

const spline = (over: Partial<SplineEntity>): SplineEntity => ({
  type: 'Spline',
  handle: '1',
  space: '*Model_Space',
  layer: '0',
  color: 256,
  linetype: 'BYLAYER',
  lineweight: -1,
  flags: 0,
  degree: 3,
  knots: [],
  control_points: [],
  fit_points: [],
  ...over,
});

// A quarter of the circle of radius 40 about the origin, as a rational quadratic NURBS.
const quarter = spline({
  degree: 2,
  flags: 4,
  knots: [0, 0, 0, 1, 1, 1],
  weights: [1, Math.SQRT1_2, 1],
  control_points: [
    [40, 0, 0],
    [40, 40, 0],
    [0, 40, 0],
  ],
});

describe('SPLINE geometry', () => {
  it('evaluates a NURBS: the rational quarter circle is on the circle everywhere', () => {
    const points = splinePoints(quarter);
    expect(points.length).toBeGreaterThan(10);
    for (const [x, y] of points) expect(Math.hypot(x, y)).toBeCloseTo(40, 9);
    expect(points[0]).toEqual([40, 0, 0]);
    expect(points[points.length - 1]).toEqual([0, 40, 0]);
    const b = bounds(quarter);
    expect(b?.min[0]).toBeCloseTo(0, 9);
    expect(b?.max[0]).toBeCloseTo(40, 9);
    expect(b?.max[1]).toBeCloseTo(40, 9);
    // The curve, not its control polygon: the corner control point is far from it.
    expect(distance(quarter, [40, 40])).toBeCloseTo(40 * Math.SQRT2 - 40, 2);
    expect(containsPoint(quarter, [40 * Math.SQRT1_2, 40 * Math.SQRT1_2], 0.01)).toBe(true);
  });

  it('a uniform cubic B-spline stays in its control points hull; one by fit points runs through them', () => {
    const cubic = spline({
      knots: [0, 0, 0, 0, 1, 2, 3, 3, 3, 3],
      control_points: [
        [0, 0, 0],
        [10, 20, 0],
        [20, -20, 0],
        [30, 20, 0],
        [40, -20, 0],
        [50, 0, 0],
      ],
    });
    const b = bounds(cubic);
    expect(b?.min[0]).toBe(0);
    expect(b?.max[0]).toBe(50);
    expect(b?.max[1]).toBeLessThan(20);
    expect(b?.min[1]).toBeGreaterThan(-20);
    const fit = spline({
      fit_points: [
        [0, 0, 0],
        [5, 5, 0],
        [10, 0, 0],
      ],
    });
    expect(bounds(fit)).toEqual({ min: [0, 0, 0], max: [10, 5, 0] });
    // A file's knots that do not fit its points: a clamped uniform vector instead.
    expect(bounds(spline({ ...cubic, knots: [0, 1] }))?.max[0]).toBe(50);
  });

  it('transforms as ezdxf does: points mapped, tangents and normal as directions', () => {
    const s = spline({
      ...quarter,
      fit_points: [[1, 2, 0]],
      start_tangent: [1, 0, 0],
      end_tangent: [0, 2, 0],
      extrusion: [0, 0, 1],
    });
    const mirrored = transformEntity(s, mirroring([0, 0], [0, 1])) as SplineEntity;
    expect(mirrored.control_points[1]).toEqual([-40, 40, 0]);
    expect(mirrored.fit_points).toEqual([[-1, 2, 0]]);
    expect(mirrored.start_tangent).toEqual([-1, 0, 0]);
    const scaled = transformEntity(s, scaling([0, 0, 0], 2)) as SplineEntity;
    // Directions scale too (ezdxf does not make them unit vectors again).
    expect(scaled.end_tangent).toEqual([0, 4, 0]);
    expect(scaled.extrusion).toEqual([0, 0, 2]);
    expect(scaled.weights).toEqual(quarter.weights);
    expect(scaled.knots).toEqual(quarter.knots);
  });

  it('transform then the inverse transform gives it back within 1e-9', () => {
    const pt = point();
    fc.assert(
      fc.property(fc.array(pt, { minLength: 4, maxLength: 8 }), pt, pairIndex, (cps, t, k) => {
        const original = spline({ control_points: cps, fit_points: [t], start_tangent: t });
        const [there, back] = INVERSE_PAIRS[k] as (typeof INVERSE_PAIRS)[number];
        const again = transformEntity(transformEntity(original, there), back) as SplineEntity;
        again.control_points.forEach((p, i) => {
          expect(close(p, cps[i] as Point3)).toBe(true);
        });
        expect(close(again.fit_points[0] as Point3, t)).toBe(true);
        expect(close(again.start_tangent as Point3, t)).toBe(true);
      }),
    );
  });
});
