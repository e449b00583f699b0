/**
 * DIMENSION as geometry: bounded by its geometry block (the dimension text with it), its stand-in a
 * reference to that block, transforms of its definition points as ezdxf's, and transform-then-inverse
 * giving its tags back within 1e-9.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bounds,
  documentContext,
  type Matrix,
  mirroring,
  rotation,
  scaling,
  transformEntity,
  translation,
} from '../../../src/editor/geometry/index.js';
import type { Entity, RawEntity } from '../../../src/editor/model.js';
import { documentOf, line, mtext, raw, round } from '../query/fixtures.js';

/** A rotated dimension from (0, 0) to (10, 0), its line at y 5, its block *D1. */
const DIM: Array<[number, string | number]> = [
  [5, 'DD'],
  [100, 'AcDbEntity'],
  [8, '0'],
  [100, 'AcDbDimension'],
  [2, '*D1'],
  [10, 10],
  [20, 5],
  [30, 0],
  [11, 5],
  [21, 6],
  [31, 0],
  [70, 32],
  [53, 0],
  [100, 'AcDbAlignedDimension'],
  [13, 0],
  [23, 0],
  [33, 0],
  [14, 10],
  [24, 0],
  [34, 0],
  [50, 0],
  [100, 'AcDbRotatedDimension'],
];
const dim = (rows = DIM) => raw('DIMENSION', rows, { handle: 'DD' });
const model = documentOf([], {
  '*D1': { entities: [line([0, 5, 0], [10, 5, 0]), mtext('10', [5, 6, 0], 1)] },
});
const ctx = documentContext(model);

const value = (e: Entity, code: number) => Number((e as RawEntity).tags.find((t) => t.code === code)?.value);
const MATRICES: Array<[string, Matrix, Matrix]> = [
  ['move', translation([3.5, -2, 1]), translation([-3.5, 2, -1])],
  ['rotate', rotation([1, 2], 37.5), rotation([1, 2], -37.5)],
  ['scale', scaling([1, 2, 0], -2.5), scaling([1, 2, 0], -0.4)],
  ['mirror', mirroring([0, 1], [2, 5]), mirroring([0, 1], [2, 5])],
];

describe('DIMENSION', () => {
  it('is bounded by its geometry block, dimension text included; without its block it has no bounds', () => {
    const b = round(bounds(dim(), ctx)) as { min: number[]; max: number[] };
    expect(b.min).toEqual([0, 5, 0]);
    // The text '10' of height 1 stands above the line (mtext attachment top left from 5, 6... its box).
    expect((b.max[1] as number) > 5).toBe(true);
    expect(bounds(dim())).toBeUndefined();
  });

  it('moves its world points by the matrix and its angles as directions', () => {
    const turned = transformEntity(dim(), rotation([0, 0], 90));
    expect(round([value(turned, 10), value(turned, 20), value(turned, 14), value(turned, 24)])).toEqual([
      -5, 10, 0, 10,
    ]);
    expect([value(turned, 50), value(turned, 53)]).toEqual([90, 90]);
    const mirrored = transformEntity(dim(), mirroring([0, 0], [0, 1]));
    expect(round([value(mirrored, 11), value(mirrored, 21), value(mirrored, 50)])).toEqual([-5, 6, 180]);
    // Other tags as they were, the input untouched.
    expect((turned as RawEntity).tags.filter((t) => t.code === 100)).toEqual(
      dim().tags.filter((t) => t.code === 100),
    );
    expect(value(dim(), 10)).toBe(10);
  });

  it('transform then the inverse transform gives its tags back within 1e-9', () => {
    const coord = fc.integer({ min: -100_000, max: 100_000 }).map((i) => i / 100);
    fc.assert(
      fc.property(
        coord,
        coord,
        fc.integer({ min: 0, max: 3599 }).map((i) => i / 10),
        fc.integer({ min: 0, max: 3 }),
        (x, y, angle, k) => {
          const rows = DIM.map(([c, v]): [number, string | number] =>
            c === 10 ? [c, x] : c === 20 ? [c, y] : c === 53 ? [c, angle] : [c, v],
          );
          const original = dim(rows);
          const [, there, back] = MATRICES[k] as (typeof MATRICES)[number];
          const again = transformEntity(transformEntity(original, there), back);
          for (const c of [10, 20, 11, 21, 13, 23, 14, 24]) {
            expect(Math.abs(value(again, c) - value(original, c))).toBeLessThanOrEqual(
              1e-9 * Math.max(1, Math.abs(value(original, c))),
            );
          }
          const turn = (value(again, 53) - angle + 360) % 360;
          expect(Math.min(turn, 360 - turn)).toBeLessThanOrEqual(1e-9);
        },
      ),
    );
  });
});
