/**
 * What the transform-then-inverse property tests share: coordinates to draw points from (hundredths in
 * ±1000), each transform with the one that undoes it (a move, a turn, a negative scale, a mirror), and
 * closeness within 1e-9 of the larger magnitude.
 */
import fc from 'fast-check';
import { mirroring, rotation, scaling, translation } from '../../../src/editor/geometry/index.js';
import type { Point3 } from '../../../src/editor/model.js';

export const coord = fc.integer({ min: -100_000, max: 100_000 }).map((i) => i / 100);

/** Points in space, or in the plane z = 0 (`flat`). */
export const point = (flat = false) =>
  flat
    ? fc.tuple(coord, coord).map(([x, y]): Point3 => [x, y, 0])
    : fc.tuple(coord, coord, coord).map((p): Point3 => [p[0], p[1], p[2]]);

/** Each transform and its inverse. */
export const INVERSE_PAIRS = [
  [translation([3.5, -2, 1]), translation([-3.5, 2, -1])],
  [rotation([1, 2], 37.5), rotation([1, 2], -37.5)],
  [scaling([1, 2, 0], -2.5), scaling([1, 2, 0], -0.4)],
  [mirroring([0, 1], [2, 5]), mirroring([0, 1], [2, 5])],
] as const;

/** An index into INVERSE_PAIRS. */
export const pairIndex = fc.integer({ min: 0, max: INVERSE_PAIRS.length - 1 });

export const close = (a: readonly number[], b: readonly number[]) =>
  a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 1e-9 * Math.max(1, Math.abs(v)));
