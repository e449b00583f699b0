/**
 * MINSERT grids, an Insert's attributes and ATTDEFs as geometry: bounds that hold every cell and the
 * attribute text, transforms that carry the grid (a transformed grid is the grid of the transformed
 * reference), and transform-then-inverse giving the entity back within 1e-9.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyPoint,
  bounds,
  documentContext,
  type Matrix,
  mirroring,
  rotation,
  scaling,
  transformEntity,
  translation,
} from '../../../src/editor/geometry/index.js';
import { gridOffsets } from '../../../src/editor/geometry/minsert.js';
import type { DxfTag, Entity, InsertEntity, Point3, RawEntity } from '../../../src/editor/model.js';
import { documentOf, insert, line, raw, round } from '../query/fixtures.js';

const tags = (rows: Array<[number, string | number]>): DxfTag[] =>
  rows.map(([code, value]) => ({ code, value: String(value) }));

/** A MINSERT of `columns` x `rows` at the given spacing. */
function minsert(at: Point3, columns: number, rows: number, dx: number, dy: number, angle = 0): InsertEntity {
  return {
    ...insert('B', at, [1, 1, 1], angle),
    extra: tags([
      [70, columns],
      [71, rows],
      [44, dx],
      [45, dy],
    ]),
  };
}

const model = documentOf([], { B: { entities: [line([0, 0, 0], [1, 0, 0])] } });
const ctx = documentContext(model);
const box = (min: number[], max: number[]) => ({ min, max });

/** The world insertion point of every cell of a reference's grid. */
const cells = (e: InsertEntity): Point3[] =>
  gridOffsets(e).map((o): Point3 => [e.position[0] + o[0], e.position[1] + o[1], e.position[2] + o[2]]);

const MATRICES: Array<[string, Matrix, Matrix]> = [
  ['move', translation([3.5, -2, 1]), translation([-3.5, 2, -1])],
  ['rotate', rotation([1, 2], 37.5), rotation([1, 2], -37.5)],
  ['scale', scaling([1, 2, 0], -2.5), scaling([1, 2, 0], -0.4)],
  ['mirror', mirroring([0, 1], [2, 5]), mirroring([0, 1], [2, 5])],
];

const close = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 1e-9 * Math.max(1, Math.abs(v)));

describe('MINSERT', () => {
  it('is bounded by every cell of its grid, turned by its rotation and not scaled', () => {
    expect(round(bounds(minsert([0, 0, 0], 3, 2, 10, 5), ctx))).toEqual(box([0, 0, 0], [21, 5, 0]));
    // Turned a quarter: columns go up, rows to the left.
    expect(round(bounds(minsert([0, 0, 0], 3, 2, 10, 5, 90), ctx))).toEqual(box([-5, 0, 0], [0, 21, 0]));
    // Spacing 0 puts every cell on one another: one cell.
    expect(round(bounds(minsert([0, 0, 0], 4, 4, 0, 0), ctx))).toEqual(box([0, 0, 0], [1, 0, 0]));
    // The grid is not scaled with the block: twice as large a block, the same cell positions.
    const scaled = { ...minsert([0, 0, 0], 2, 1, 10, 0), scale: [2, 2, 2] as Point3 };
    expect(round(bounds(scaled, ctx))).toEqual(box([0, 0, 0], [12, 0, 0]));
  });

  it('a transformed grid is the grid of the transformed reference, mirror and negative scale too', () => {
    const original = minsert([4, -3, 0], 3, 2, 10, -5, 30);
    for (const [what, m] of MATRICES) {
      const moved = transformEntity(original, m) as InsertEntity;
      const expected = cells(original).map((p) => applyPoint(m, p));
      const actual = cells(moved);
      expect(actual.length, what).toBe(6);
      expected.forEach((p, i) => {
        expect(close(actual[i] as number[], p), `${what} cell ${i}`).toBe(true);
      });
    }
  });

  it('transform then the inverse transform gives the MINSERT back within 1e-9', () => {
    const coord = fc.integer({ min: -100_000, max: 100_000 }).map((i) => i / 100);
    fc.assert(
      fc.property(
        coord,
        coord,
        coord,
        coord,
        fc.integer({ min: 0, max: 3599 }).map((i) => i / 10),
        fc.integer({ min: 0, max: 3 }),
        (x, y, dx, dy, angle, k) => {
          const original = minsert([x, y, 0], 3, 4, dx, dy, angle);
          const [, there, back] = MATRICES[k] as (typeof MATRICES)[number];
          const again = transformEntity(transformEntity(original, there), back) as InsertEntity;
          const a = cells(again);
          cells(original).forEach((p, i) => {
            expect(close(a[i] as number[], p)).toBe(true);
          });
          expect(close(again.scale, original.scale)).toBe(true);
        },
      ),
    );
  });
});

const ATTRIB = (x: number, y: number, value: string, flags = 0) =>
  tags([
    [0, 'ATTRIB'],
    [5, `A${x}`],
    [100, 'AcDbEntity'],
    [8, '0'],
    [100, 'AcDbText'],
    [10, x],
    [20, y],
    [30, 0],
    [40, 1],
    [1, value],
    [100, 'AcDbAttribute'],
    [2, 'TAG'],
    [70, flags],
  ]);

/** Text heights of DejaVu Sans advances (units of which a capital is 1493 high), as text boxes measure them. */
const em = (units: number) => units / 1493;
/** A 1401, B 1405, C 1430, D 1577, E 1294. */
const ABCDE = em(1401 + 1405 + 1430 + 1577 + 1294);

describe("an Insert's attributes", () => {
  it('are in its bounds where they stand (visible ones), in every cell of a MINSERT', () => {
    const withText = {
      ...insert('B', [0, 0, 0]),
      attribs: [...ATTRIB(0, 10, 'ABCDE'), ...tags([[0, 'SEQEND']])],
    };
    // The line 0..1 and the text 0..4.83 (its 5 characters' advances) from y 10 to 11.
    expect(round(bounds(withText, ctx))).toEqual(round(box([0, 0, 0], [ABCDE, 11, 0])));
    const hidden = { ...withText, attribs: [...ATTRIB(0, 10, 'ABCDE', 1), ...tags([[0, 'SEQEND']])] };
    expect(round(bounds(hidden, ctx))).toEqual(box([0, 0, 0], [1, 0, 0]));
    const grid = { ...minsert([0, 0, 0], 2, 1, 20, 0), attribs: withText.attribs };
    expect(round(bounds(grid, ctx))).toEqual(round(box([0, 0, 0], [20 + ABCDE, 11, 0])));
  });
});

const ATTDEF: Array<[number, string | number]> = [
  [5, 'AD'],
  [100, 'AcDbEntity'],
  [8, '0'],
  [100, 'AcDbText'],
  [10, 2],
  [20, 3],
  [30, 0],
  [40, 2],
  [1, 'default'],
  [100, 'AcDbAttributeDefinition'],
  [3, 'Prompt'],
  [2, 'TAG'],
  [70, 0],
];

describe('ATTDEF', () => {
  it('is bounded by the text of its tag in a layout; in a block it is not drawn and not bounded', () => {
    const def = raw('ATTDEF', ATTDEF, { handle: 'AD' });
    // 'TAG': its advances (T 1251, A 1401, G 1587) × 2 wide, 2 tall.
    expect(round(bounds(def))).toEqual(round(box([2, 3, 0], [2 + 2 * em(1251 + 1401 + 1587), 5, 0])));
    const withDef = documentOf([], { D: { entities: [line([0, 0, 0], [1, 0, 0]), def] } });
    expect(round(bounds(insert('D', [0, 0, 0]), documentContext(withDef)))).toEqual(
      box([0, 0, 0], [1, 0, 0]),
    );
  });

  it('moves as its text does; transform then inverse gives its tags back within 1e-9', () => {
    const def = raw('ATTDEF', ATTDEF, { handle: 'AD' });
    const value = (e: Entity, code: number) =>
      Number((e as RawEntity).tags.find((t) => t.code === code)?.value);
    const moved = transformEntity(def, translation([10, 20, 0]));
    expect([value(moved, 10), value(moved, 20), value(moved, 40)]).toEqual([12, 23, 2]);
    expect(value(transformEntity(def, scaling([0, 0, 0], 3)), 40)).toBe(6);
    for (const [what, there, back] of MATRICES) {
      const again = transformEntity(transformEntity(def, there), back);
      const p = [value(again, 10), value(again, 20), value(again, 40)];
      expect(close(p, [2, 3, 2]), what).toBe(true);
    }
  });
});
