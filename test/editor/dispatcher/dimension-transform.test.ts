/**
 * entities_transform of DIMENSIONs on a real file (the corpus's dxfjs-dimensions.dxf, a rotated and a
 * radius dimension): their geometry blocks move with them, a copy gets a block of its own, undo gives
 * the drawing back, ezdxf audits the saved file clean and reads each copy's block where the copy is;
 * a capture draws each dimension from its block, its text in the capture's extents.
 */
import type { TestContext } from 'vitest';
import { describe, expect, it } from 'vitest';
import { decodePng, rgbAt } from '../capture/pixels.js';
import { corpusPath } from '../corpus/corpus.js';
import { ezdxfAudit, needEzdxf, python, type Reply, resultOf, withHarnessAndDir } from './helpers.js';

const FILE = corpusPath('dxfjs-dimensions.dxf');

type Fields = Record<string, unknown>;

const READ_BACK = `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = {}
for d in doc.modelspace().query("DIMENSION"):
    block = d.get_geometry_block()
    out[d.dxf.handle] = {
        "block": d.dxf.geometry,
        "defpoint": list(d.dxf.defpoint),
        "lines": [[list(x.dxf.start), list(x.dxf.end)] for x in block if x.dxftype() == "LINE"],
    }
json.dump(out, sys.stdout)
`;

async function entity(h: { raw(r: unknown): Promise<Reply> }, doc: number, handle: string): Promise<Fields> {
  const answer = await h.raw({
    protocol: 1,
    op: 'query',
    document_id: doc,
    handles: [handle],
    detail: 'full',
  });
  return (answer.entities as Fields[])[0] as Fields;
}

describe('transforming DIMENSIONs', () => {
  it('moves each block with its dimension, gives a copy its own block, and undo puts all back', async (ctx: TestContext) => {
    needEzdxf(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const doc = (await h.ok('open', { path: FILE })).document_id as number;
      const before = await entity(h, doc, '5C');
      expect(before).toMatchObject({ dimension_type: 'rotated', block: '*D1', defpoint: [90, 20, 0] });
      expect(before.bounds).toMatchObject({ min: [10, 10.625, 0] });
      const moved = await h.ok('entities_transform', {
        document_id: doc,
        handles: ['5C', '5E'],
        action: 'move',
        vector: [100, 0, 0],
      });
      expect(resultOf<{ affected: number; not_transformable: unknown[] }>(moved)).toMatchObject({
        affected: 2,
        not_transformable: [],
      });
      expect(await entity(h, doc, '5C')).toMatchObject({
        defpoint: [190, 20, 0],
        text_midpoint: [150, 21.875, 0],
      });
      // The block's dimension line (handle 53, 10,20 to 90,20) moved with it.
      expect(await entity(h, doc, '53')).toMatchObject({ start: [110, 20, 0], end: [190, 20, 0] });
      // (Its arrowheads are SOLIDs: they move once SOLID is transformed; the rest of its box has.)
      expect((await entity(h, doc, '5C')).bounds).toMatchObject({ max: [190, 23.125, 0] });

      const copied = resultOf<{ created: string[] }>(
        await h.ok('entities_transform', {
          document_id: doc,
          handles: ['5C'],
          action: 'copy',
          vector: [0, 50, 0],
        }),
      );
      const copy = await entity(h, doc, copied.created[0] as string);
      expect(copy.block).not.toBe('*D1');
      expect(String(copy.block)).toMatch(/^\*D\d+$/);
      expect(copy.bounds).toMatchObject({ max: [190, 73.125, 0] });
      // The original and its block stay where the move put them.
      expect(await entity(h, doc, '53')).toMatchObject({ start: [110, 20, 0] });

      const path = dir.path('dims.dxf');
      await h.ok('save', { document_id: doc, path });
      const audit = await ezdxfAudit(path);
      expect(audit.output).toMatch(/No errors found/);
      const back = await python<Record<string, { block: string; defpoint: number[]; lines: number[][][] }>>(
        READ_BACK,
        [path],
      );
      const mine = back[String(copy.handle)];
      expect(mine?.block).toBe(copy.block);
      expect(mine?.defpoint).toEqual([190, 70, 0]);
      expect(mine?.lines[0]).toEqual([
        [110, 70, 0],
        [190, 70, 0],
      ]);
      expect(back['5C']?.lines[0]).toEqual([
        [110, 20, 0],
        [190, 20, 0],
      ]);

      await h.ok('undo', { document_id: doc });
      await h.ok('undo', { document_id: doc });
      expect(await entity(h, doc, '5C')).toMatchObject({ defpoint: [90, 20, 0] });
      expect(await entity(h, doc, '53')).toMatchObject({ start: [10, 20, 0], end: [90, 20, 0] });
    });
  });

  it('capture draws a dimension from its block: its line and its text, in the extents', async () => {
    await withHarnessAndDir(async (h) => {
      const doc = (await h.ok('open', { path: FILE })).document_id as number;
      // 4 pixels a unit over 0..100 x 0..100 (drawing x, y at pixel 4x, 4(100 − y)).
      const shot = resultOf<{ data: string; skipped: Record<string, number> }>(
        await h.ok('capture', { document_id: doc, width: 400, window: [0, 0, 100, 100] }),
      );
      expect(shot.skipped.DIMENSION).toBeUndefined();
      const p = decodePng(Buffer.from(shot.data, 'base64'));
      const bright = (x: number, y: number) => {
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            const [r, g, b] = rgbAt(p, x + dx, y + dy);
            if (r > 100 && g > 100 && b > 100) return true;
          }
        return false;
      };
      // The rotated dimension's line at y 20 from x 10 to 90, its extension lines at x 10 and 90.
      for (const x of [20, 40, 60, 80]) expect(bright(4 * x, 4 * 80), `dimension line at x ${x}`).toBe(true);
      expect(bright(4 * 10, 4 * (100 - 15)), 'extension line').toBe(true);
      expect(bright(4 * 50, 4 * (100 - 30)), 'nothing between the circle and the text').toBe(false);
      // The radius dimension's line, 20..50 at y 70.
      expect(bright(4 * 35, 4 * 30)).toBe(true);
      // The text 80.0000 above the line (21.875 to 24.375 high, about 44 to 56 wide): some of it drawn.
      let text = 0;
      for (let y = 4 * (100 - 24.4); y <= 4 * (100 - 22); y++)
        for (let x = 4 * 42; x <= 4 * 58; x++) {
          const [r, g, b] = rgbAt(p, x, Math.round(y));
          if (r > 100 && g > 100 && b > 100) text++;
        }
      expect(text).toBeGreaterThan(10);
      // Without a window the extents hold the dimension text (above the lines at 0..10).
      const whole = resultOf<{ window: number[] }>(await h.ok('capture', { document_id: doc, width: 256 }));
      expect(whole.window[3]).toBeGreaterThan(100);
    });
  });
});
