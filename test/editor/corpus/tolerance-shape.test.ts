/**
 * TOLERANCE and SHAPE (kept as their tags) as geometry, in a file ezdxf writes (no real file in the
 * corpus holds either): a feature control frame drawn as its cells sized by its dimension style (DIMTXT
 * 2.5: rows 5 high) with their text, a shape as its insertion and size box (its glyph is in an SHX file
 * the drawing does not carry); both bounded and found by every query filter, drawn in a capture and a
 * plot, and moved, rotated, scaled by −0.5 and mirrored as ezdxf moves them (scripts/dxf-annotation-oracle.py,
 * within 1e-9 after a save read back by ezdxf); the inverse steps give their tags back.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import {
  type Matrix,
  mirroring,
  rotation,
  scaling,
  translation,
} from '../../../src/editor/geometry/matrix.js';
import { shapeBox, transformShapeEntity } from '../../../src/editor/geometry/shape-entity.js';
import { toleranceRows, transformTolerance } from '../../../src/editor/geometry/tolerance.js';
import type { RawEntity } from '../../../src/editor/model.js';
import { decodePng, pixelsWhere, reddish } from '../capture/pixels.js';
import { resultOf } from '../dispatcher/helpers.js';
import { differences, type Fields, oracle, STEPS } from './annotation-oracle.js';
import { typeBench } from './corpus.js';

const BY_EZDXF = `
import sys, ezdxf
doc = ezdxf.new("R2010")
style = doc.dimstyles.get("Standard")
style.dxf.dimtxt = 2.5
style.dxf.dimscale = 1
msp = doc.modelspace()
msp.new_entity("TOLERANCE", {"insert": (10, 20), "content": "{\\\\Fgdt;j}%%v0.5%%vA", "x_axis_vector": (1, 0, 0), "color": 1})
msp.new_entity("TOLERANCE", {"insert": (-30, 5, 1), "content": "{\\\\Fgdt;r}%%v%%c0.1%%vA^J{\\\\Fgdt;u}%%v0.02",
    "x_axis_vector": (0.6, 0.8, 0), "color": 3})
msp.add_shape("BOX", (50, 10), size=4, dxfattribs={"xscale": 2, "color": 1})
msp.add_shape("BOX", (70, -10, 2), size=3, dxfattribs={"rotation": 30, "xscale": 0.5, "thickness": 1.5,
    "extrusion": (0, 0, -1), "color": 3})
doc.saveas(sys.argv[1])
print("{}")
`;

const bench = typeBench();

type Queried = RawEntity & Fields & { bounds?: { min: number[]; max: number[] } };

const entities = (doc: number, type: string) => bench.ofType<Queried>(doc, type);

/** The width of a text cell: its text's advances at 2.5 high, plus half a text height each side. */
const cell = (units: number) => (units / 1493) * 2.5 + 2.5;
const WIDE_05 = cell(1303 + 651 + 1303);
const WIDE_A = cell(1401);

describe('TOLERANCE and SHAPE', () => {
  it('are read, bounded by what they draw and found by every query filter', async (ctx: TestContext) => {
    const doc = await bench.open(await bench.write(ctx, BY_EZDXF, 'fcf-shapes.dxf'));
    const [fcf, two] = await entities(doc, 'TOLERANCE');
    expect(fcf).toMatchObject({
      dimstyle: 'Standard',
      position: [10, 20, 0],
      x_axis: [1, 0, 0],
      rows: [[{ symbol: 'j' }, '0.5', 'A']],
      text: '{\\Fgdt;j}%%v0.5%%vA',
    });
    expect(two?.rows).toEqual([
      [{ symbol: 'r' }, '%%c0.1', 'A'],
      [{ symbol: 'u' }, '0.02'],
    ]);
    // Cells of one row 5 high about the insertion point: the symbol 5 wide, "0.5" and "A" their text's
    // width (DejaVu Sans's advances: 0 and 5 1303, . 651, A 1401 units, its capitals 1493 high, here 2.5) plus 2.5.
    expect(fcf?.bounds?.min).toEqual([10, 17.5, 0]);
    expect(fcf?.bounds?.max[0]).toBeCloseTo(10 + 5 + WIDE_05 + WIDE_A, 9);
    expect(fcf?.bounds?.max.slice(1)).toEqual([22.5, 0]);
    const [shape, turned] = await entities(doc, 'SHAPE');
    expect(shape).toMatchObject({ name: 'BOX', position: [50, 10, 0], size: 4, xscale: 2 });
    expect(shape?.bounds).toEqual({ min: [50, 10, 0], max: [58, 14, 0] });
    expect(turned?.bounds).not.toBeNull();

    const found = async (filter: Fields) =>
      (
        (await bench.h.ok('query', { document_id: doc, detail: 'summary', ...filter })).entities as Fields[]
      ).map((e) => e.handle);
    expect(await found({ bounds: [9, 16, 29, 23] })).toEqual([fcf?.handle]);
    expect(await found({ near: [29, 20, 1.5] })).toEqual([fcf?.handle]);
    expect(await found({ contains_point: [20, 19] })).toEqual([fcf?.handle]);
    expect(await found({ contains_point: [54, 12] })).toEqual([shape?.handle]);
    const line = resultOf<{ handles: string[] }>(
      await bench.h.ok('entities_create', {
        document_id: doc,
        entities: [{ type: 'line', start: [54, 0], end: [54, 20] }],
      }),
    ).handles[0] as string;
    const crossing = await bench.h.ok('query', { document_id: doc, intersections: [line, shape?.handle] });
    expect((crossing.points as number[][]).map(([x, y]) => [x, y])).toEqual([
      [54, 10],
      [54, 14],
    ]);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('are drawn: the frame’s cells and text, the shape’s box', async (ctx: TestContext) => {
    const doc = await bench.open(await bench.write(ctx, BY_EZDXF, 'fcf-shapes.dxf'));
    // 8 pixels a unit over 5..65 × 5..25.
    const shot = resultOf<{ data: string; skipped: Record<string, number> }>(
      await bench.h.ok('capture', { document_id: doc, width: 480, window: [5, 5, 65, 25] }),
    );
    expect(shot.skipped).toEqual({});
    const red = pixelsWhere(decodePng(Buffer.from(shot.data, 'base64')), reddish);
    const at = (x: number, y: number) =>
      red.some(([c, r]) => Math.abs(c - (x - 5) * 8) <= 1 && Math.abs(r - (25 - y) * 8) <= 1);
    // The frame's outline and its cell walls (x 15 and 22.95), the shape's box; not inside a cell's margin.
    expect([
      at(12, 22.5),
      at(12, 17.5),
      at(15, 20.5),
      at(15 + WIDE_05, 18),
      at(15 + WIDE_05 + WIDE_A, 21),
      at(54, 10),
      at(58, 12),
    ]).toEqual(Array(7).fill(true));
    expect([at(11, 20), at(54, 12), at(30, 20)]).toEqual([false, false, false]);
    // Text in the "0.5" cell.
    expect(
      red.some(([c, r]) => c > (16 - 5) * 8 && c < (21 - 5) * 8 && r > (25 - 21) * 8 && r < (25 - 19) * 8),
    ).toBe(true);
    const pdf = resultOf<{ entities: number; skipped: Record<string, number> }>(
      await bench.h.ok('plot', { document_id: doc, path: bench.path('fcf-shapes.pdf') }),
    );
    expect([pdf.entities, pdf.skipped]).toEqual([4, {}]);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('are transformed as ezdxf transforms them', async (ctx: TestContext) => {
    const path = await bench.write(ctx, BY_EZDXF, 'fcf-shapes.dxf');
    const expected = await oracle(path, STEPS);
    expect(expected.map((e) => e.type)).toEqual(['TOLERANCE', 'TOLERANCE', 'SHAPE', 'SHAPE']);
    const doc = await bench.open(path);
    const handles = [...(await entities(doc, 'TOLERANCE')), ...(await entities(doc, 'SHAPE'))].map(
      (e) => e.handle,
    );
    for (const step of STEPS) {
      const answer = await bench.h.ok('entities_transform', { document_id: doc, handles, ...step });
      expect(resultOf<{ not_transformable: unknown[] }>(answer).not_transformable).toEqual([]);
    }
    const saved = bench.path('fcf-shapes-moved.dxf');
    await bench.h.ok('save', { document_id: doc, path: saved });
    await bench.h.ok('close', { document_id: doc, discard: true });
    expect(differences(expected, await oracle(saved))).toEqual([]);
  });

  it('transformed then transformed back are themselves within 1e-9', () => {
    const common = { space: '*Model_Space', layer: '0', color: 256, linetype: 'BYLAYER', lineweight: -1 };
    const tag = (code: number, value: string | number) => ({ code, value: String(value) });
    const fcf: RawEntity = {
      ...common,
      type: 'Raw',
      dxf_type: 'TOLERANCE',
      handle: 'A1',
      tags: [
        tag(100, 'AcDbFcf'),
        tag(3, 'Standard'),
        ...[10, 20, 30].map((c, i) => tag(c, [3.5, -2, 1][i] as number)),
        tag(1, '{\\Fgdt;j}%%v0.5'),
        ...[11, 21, 31].map((c, i) => tag(c, [0.6, 0.8, 0][i] as number)),
        ...[210, 220, 230].map((c, i) => tag(c, [0, 0, 1][i] as number)),
      ],
    };
    const shape: RawEntity = {
      ...common,
      type: 'Raw',
      dxf_type: 'SHAPE',
      handle: 'A2',
      tags: [
        tag(100, 'AcDbShape'),
        tag(39, 1.5),
        ...[10, 20, 30].map((c, i) => tag(c, [7, 8.5, -1][i] as number)),
        tag(40, 3),
        tag(2, 'BOX'),
        tag(50, 33),
        tag(41, 0.75),
        ...[210, 220, 230].map((c, i) => tag(c, [0, 0, 1][i] as number)),
      ],
    };
    expect(toleranceRows('{\\Fgdt;j}%%v0.5')).toEqual([
      [
        { symbol: true, text: 'j' },
        { symbol: false, text: '0.5' },
      ],
    ]);
    expect(shapeBox(shape)).toHaveLength(1);
    const steps: Array<[Matrix, Matrix]> = [
      [translation([12.5, -3.25, 4]), translation([-12.5, 3.25, -4])],
      [rotation([1, 2], 33), rotation([1, 2], -33)],
      [scaling([3, 4, 0], -0.5), scaling([3, 4, 0], -2)],
      [mirroring([0, 0], [1, 2]), mirroring([0, 0], [1, 2])],
    ];
    const same = (a: RawEntity, b: RawEntity) =>
      a.tags.flatMap((t, i) => {
        const u = b.tags[i];
        if (!u || u.code !== t.code) return [`tag ${i}: code ${t.code}, got ${u?.code}`];
        const x = Number(t.value);
        if (!Number.isFinite(x) || t.code === 1 || t.code === 2 || t.code === 3 || t.code === 100)
          return t.value === u.value ? [] : [`tag ${i}: ${t.value} → ${u.value}`];
        // An angle comes back as the same direction, maybe a turn apart.
        const d = t.code === 50 ? ((((Number(u.value) - x) % 360) + 540) % 360) - 180 : Number(u.value) - x;
        return Math.abs(d) <= 1e-9 * Math.max(1, Math.abs(x))
          ? []
          : [`tag ${i} (${t.code}): ${x} → ${u.value}`];
      });
    for (const [m, back] of steps) {
      expect(same(fcf, transformTolerance(transformTolerance(fcf, m), back))).toEqual([]);
      expect(same(shape, transformShapeEntity(transformShapeEntity(shape, m), back))).toEqual([]);
    }
  });
});
