/**
 * ACAD_TABLE as its block. The table is the one of ezdxf's examples_dxf/acad_table_simple.dxf (written by
 * AutoCAD 2013): its ACAD_TABLE entity (block *T1 at (105, 145), along (1, 0, 0), 3 × 3 cells) and its
 * *T1 block of 8 lines and 7 MTEXTs, as that file holds them, put by ezdxf into a file of its own without
 * the entity's proxy graphic and cell data (the geometry reads neither). It is bounded and found by every
 * query filter as its block, drawn in capture and plot, moved, rotated, scaled by −0.5 and mirrored —
 * ezdxf 0.18 has no transform for a table: the oracle maps its insertion point and direction and places
 * the block's lines by the same matrices (scripts/dxf-annotation-oracle.py) — and copied with a block of
 * its own.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import {
  applyPoint,
  compose,
  type Matrix,
  mirroring,
  rotation,
  scaling,
  translation,
} from '../../../src/editor/geometry/matrix.js';
import { tableContentMatrix, transformTable } from '../../../src/editor/geometry/table.js';
import type { RawEntity } from '../../../src/editor/model.js';
import { decodePng, pixelsWhere, reddish } from '../capture/pixels.js';
import { resultOf } from '../dispatcher/helpers.js';
import { differences, type Fields, oracle, STEPS } from './annotation-oracle.js';
import { typeBench } from './corpus.js';

const TABLE_BY_EZDXF = `
import sys, ezdxf
from ezdxf.lldxf.extendedtags import ExtendedTags
from ezdxf.entities import factory
doc = ezdxf.new("R2013")
blk = doc.blocks.new("*T1")
for a, b in [((0, 0), (456, 0)), ((0, -11), (456, -11)), ((0, -20), (456, -20)), ((0, -29), (456, -29)),
             ((0, 0), (0, -29)), ((456, 0), (456, -29)), ((152, -11), (152, -29)), ((304, -11), (304, -29))]:
    blk.add_line(a, b, dxfattribs={"color": 0, "linetype": "BYBLOCK", "lineweight": -2})
for x, y, h, w, t, ap in [(228, -5.5, 6, 453, "Title", 5), (76, -15.5, 4.5, 149, "1", 5),
                          (228, -15.5, 4.5, 149, "2", 5), (380, -15.5, 4.5, 149, "3", 5),
                          (76, -21.5, 4.5, 149, "4", 2), (228, -21.5, 4.5, 149, "5", 2),
                          (380, -21.5, 4.5, 149, "6", 2)]:
    blk.add_mtext(t, dxfattribs={"insert": (x, y), "char_height": h, "width": w, "attachment_point": ap, "color": 0})
record = doc.block_records.get("*T1").dxf.handle
text = "\\n".join(str(v) for v in [0, "ACAD_TABLE", 100, "AcDbEntity", 8, 0, 62, 1, 100, "AcDbBlockReference",
    2, "*T1", 10, 105.0, 20, 145.0, 30, 0.0, 100, "AcDbTable", 342, 0, 343, record, 11, 1.0, 21, 0.0, 31, 0.0,
    90, 22, 91, 3, 92, 3])
table = factory.load(ExtendedTags.from_text(text + "\\n"), doc)
doc.entitydb.add(table)
doc.modelspace().add_entity(table)
doc.saveas(sys.argv[1])
print("{}")
`;

const bench = typeBench();

type Queried = RawEntity & Fields & { bounds?: { min: number[]; max: number[] } };

const tables = (doc: number) => bench.ofType<Queried>(doc, 'ACAD_TABLE');

describe('ACAD_TABLE', () => {
  it('is its block: read, bounded, found by every query filter, drawn', async (ctx: TestContext) => {
    const doc = await bench.open(await bench.write(ctx, TABLE_BY_EZDXF, 'table.dxf'));
    const [table] = await tables(doc);
    expect(table).toMatchObject({
      block: '*T1',
      position: [105, 145, 0],
      direction: [1, 0, 0],
      rows: 3,
      columns: 3,
    });
    // The block's frame, 456 × 29 down from the insertion point (the texts are inside it).
    expect(table?.bounds).toEqual({ min: [105, 116, 0], max: [561, 145, 0] });
    const found = async (filter: Fields) =>
      (
        (await bench.h.ok('query', { document_id: doc, detail: 'summary', ...filter })).entities as Fields[]
      ).map((e) => e.handle);
    expect(await found({ bounds: [100, 110, 120, 150] })).toEqual([table?.handle]);
    expect(await found({ near: [257, 130, 0.5] })).toEqual([table?.handle]);
    expect(await found({ contains_point: [257, 130] })).toEqual([table?.handle]);
    const line = resultOf<{ handles: string[] }>(
      await bench.h.ok('entities_create', {
        document_id: doc,
        entities: [{ type: 'line', start: [200, 100], end: [200, 160] }],
      }),
    ).handles[0] as string;
    const crossing = await bench.h.ok('query', { document_id: doc, intersections: [line, table?.handle] });
    // It crosses the four row lines.
    expect(
      (crossing.points as number[][]).map(([, y]) => y).sort((a, b) => (a as number) - (b as number)),
    ).toEqual([116, 125, 134, 145]);
    // 2 pixels a unit over 95..575 × 100..160: the row lines and the walls in the table's colour.
    const shot = resultOf<{ data: string; skipped: Record<string, number> }>(
      await bench.h.ok('capture', { document_id: doc, width: 960, window: [95, 100, 575, 160] }),
    );
    expect(shot.skipped).toEqual({});
    const red = pixelsWhere(decodePng(Buffer.from(shot.data, 'base64')), reddish);
    const at = (x: number, y: number) =>
      red.some(([c, r]) => Math.abs(c - (x - 95) * 2) <= 1 && Math.abs(r - (160 - y) * 2) <= 1);
    expect([at(300, 145), at(300, 116), at(105, 130), at(561, 130), at(257, 120), at(230, 139)]).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    const pdf = resultOf<{ entities: number; skipped: Record<string, number> }>(
      await bench.h.ok('plot', { document_id: doc, path: bench.path('table.pdf') }),
    );
    expect([pdf.entities, pdf.skipped]).toEqual([2, {}]);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('is moved, rotated, scaled and mirrored with its block, as the oracle places it', async (ctx: TestContext) => {
    const path = await bench.write(ctx, TABLE_BY_EZDXF, 'table.dxf');
    const expected = await oracle(path, STEPS);
    expect(expected.map((e) => e.type)).toEqual(['ACAD_TABLE']);
    const doc = await bench.open(path);
    const handles = (await tables(doc)).map((e) => e.handle);
    for (const step of STEPS) {
      const answer = await bench.h.ok('entities_transform', { document_id: doc, handles, ...step });
      expect(resultOf<{ not_transformable: unknown[] }>(answer).not_transformable).toEqual([]);
    }
    const saved = bench.path('table-moved.dxf');
    await bench.h.ok('save', { document_id: doc, path: saved });
    await bench.h.ok('close', { document_id: doc, discard: true });
    expect(differences(expected, await oracle(saved))).toEqual([]);
  });

  it('is copied with a block of its own', async (ctx: TestContext) => {
    const doc = await bench.open(await bench.write(ctx, TABLE_BY_EZDXF, 'table.dxf'));
    const [table] = await tables(doc);
    const copied = resultOf<{ created: string[] }>(
      await bench.h.ok('entities_transform', {
        document_id: doc,
        handles: [table?.handle],
        action: 'copy',
        vector: [0, -100],
      }),
    ).created;
    const [, copy] = await tables(doc);
    expect(copy?.handle).toBe(copied[0]);
    expect(copy?.block).not.toBe('*T1');
    expect(copy?.bounds).toEqual({ min: [105, 16, 0], max: [561, 45, 0] });
    // Scaling the copy leaves the original's block alone.
    await bench.h.ok('entities_transform', {
      document_id: doc,
      handles: copied,
      action: 'scale',
      center: [105, 45],
      factor: 2,
    });
    const [original, scaled] = await tables(doc);
    expect(original?.bounds).toEqual({ min: [105, 116, 0], max: [561, 145, 0] });
    expect(scaled?.bounds).toEqual({ min: [105, -13, 0], max: [1017, 45, 0] });
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('transformed then transformed back is itself within 1e-9, its block’s remainder the identity', () => {
    const tag = (code: number, value: string | number) => ({ code, value: String(value) });
    const table: RawEntity = {
      type: 'Raw',
      dxf_type: 'ACAD_TABLE',
      handle: 'A1',
      space: '*Model_Space',
      layer: '0',
      color: 256,
      linetype: 'BYLAYER',
      lineweight: -1,
      tags: [
        tag(100, 'AcDbBlockReference'),
        tag(2, '*T1'),
        ...[10, 20, 30].map((c, i) => tag(c, [105, 145, 0.5][i] as number)),
        tag(100, 'AcDbTable'),
        ...[11, 21, 31].map((c, i) => tag(c, [0.6, 0.8, 0][i] as number)),
      ],
    };
    const steps: Array<[Matrix, Matrix]> = [
      [translation([12.5, -3.25, 4]), translation([-12.5, 3.25, -4])],
      [rotation([1, 2], 33), rotation([1, 2], -33)],
      [scaling([3, 4, 0], -0.5), scaling([3, 4, 0], -2)],
      [mirroring([0, 0], [1, 2]), mirroring([0, 0], [1, 2])],
    ];
    for (const [m, back] of steps) {
      const again = transformTable(transformTable(table, m), back);
      table.tags.forEach((t, i) => {
        const u = again.tags[i];
        const x = Number(t.value);
        if (Number.isFinite(x) && t.code !== 100 && t.code !== 2)
          expect(Math.abs(Number(u?.value) - x), `tag ${i}`).toBeLessThanOrEqual(
            1e-9 * Math.max(1, Math.abs(x)),
          );
        else expect(u?.value).toBe(t.value);
      });
      const there = tableContentMatrix(m, [0, 0, 0]);
      const home = tableContentMatrix(back, [0, 0, 0]);
      const k = there && home ? compose(there, home) : (there ?? home);
      const p = k ? applyPoint(k, [7, -3, 2]) : [7, -3, 2];
      expect(p.map((v, i) => Math.abs(v - ([7, -3, 2][i] as number)) < 1e-9)).toEqual([true, true, true]);
    }
  });
});
