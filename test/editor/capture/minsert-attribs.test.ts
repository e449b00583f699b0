/**
 * A MINSERT, its attributes and an ATTDEF drawn by capture, pixel by pixel on a small hand-checked
 * drawing (10 pixels a unit): a red circle of radius 1 in each of the 3 x 2 cells at 10 units, the
 * attribute's green text under each, the ATTDEF's blue tag where it stands; the block's own ATTDEF is
 * not drawn. Plot and the viewer draw from the same scene (plot/scene.ts).
 */
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readDxf } from '../../../src/editor/dxf/index.js';
import { plotScene } from '../../../src/editor/plot/scene.js';
import { dxfText, resultOf, withHarnessAndDir } from '../dispatcher/helpers.js';
import { decodePng, type Picture, reddish, rgbAt } from './pixels.js';

const DRAWING = dxfText([
  [0, 'SECTION'],
  [2, 'BLOCKS'],
  [0, 'BLOCK'],
  [8, '0'],
  [2, 'B'],
  [70, 2],
  [10, 0],
  [20, 0],
  [30, 0],
  [0, 'CIRCLE'],
  [8, '0'],
  [62, 1],
  [10, 0],
  [20, 0],
  [30, 0],
  [40, 1],
  [0, 'ATTDEF'],
  [8, '0'],
  [62, 5],
  [10, 0],
  [20, 3],
  [30, 0],
  [40, 2],
  [1, ''],
  [3, 'Prompt'],
  [2, 'HIDDEN'],
  [70, 0],
  [0, 'ENDBLK'],
  [8, '0'],
  [0, 'ENDSEC'],
  [0, 'SECTION'],
  [2, 'ENTITIES'],
  [0, 'INSERT'],
  [8, '0'],
  [66, 1],
  [2, 'B'],
  [10, 0],
  [20, 0],
  [30, 0],
  [70, 3],
  [71, 2],
  [44, 10],
  [45, 10],
  [0, 'ATTRIB'],
  [8, '0'],
  [62, 3],
  [10, -1],
  [20, -4],
  [30, 0],
  [40, 2],
  [1, 'WW'],
  [2, 'HIDDEN'],
  [70, 0],
  [0, 'SEQEND'],
  [8, '0'],
  [0, 'ATTDEF'],
  [8, '0'],
  [62, 5],
  [10, 4],
  [20, 20],
  [30, 0],
  [40, 2],
  [1, ''],
  [3, 'Prompt'],
  [2, 'TAGX'],
  [70, 0],
  [0, 'ENDSEC'],
  [0, 'EOF'],
]);

const green = ([r, g, b]: readonly number[]) =>
  (g as number) > (r as number) + 80 && (g as number) > (b as number) + 80;
const blue = ([r, g, b]: readonly number[]) =>
  (b as number) > (r as number) + 80 && (b as number) > (g as number) + 80;

/** Whether any pixel of the box x0..x1, y0..y1 (pixels, inclusive) passes `test`. */
function anyIn(p: Picture, x0: number, y0: number, x1: number, y1: number, test: (rgb: number[]) => boolean) {
  for (let y = Math.max(0, y0); y <= Math.min(p.height - 1, y1); y++)
    for (let x = Math.max(0, x0); x <= Math.min(p.width - 1, x1); x++) if (test(rgbAt(p, x, y))) return true;
  return false;
}

/** Window -5..35 x -10..25 at 10 pixels a unit: drawing x, y at pixel (x + 5)·10, (25 − y)·10. */
const WINDOW = [-5, -10, 35, 25];
const px = (x: number) => Math.round((x + 5) * 10);
const py = (y: number) => Math.round((25 - y) * 10);

describe('capture of a MINSERT with attributes and an ATTDEF', () => {
  it('draws the block and its attribute in every cell, the layout ATTDEF, not the block one', async () => {
    await withHarnessAndDir(async (h, dir) => {
      await writeFile(dir.path('grid.dxf'), DRAWING);
      const opened = await h.ok('open', { path: dir.path('grid.dxf') });
      const doc = opened.document_id as number;
      const result = resultOf<{
        data: string;
        width: number;
        height: number;
        skipped: Record<string, number>;
      }>(await h.ok('capture', { document_id: doc, width: 400, window: WINDOW }));
      expect([result.width, result.height]).toEqual([400, 350]);
      expect(result.skipped).toEqual({});
      const p = decodePng(Buffer.from(result.data, 'base64'));
      for (const [cx, cy] of [
        [0, 0],
        [10, 0],
        [20, 0],
        [0, 10],
        [10, 10],
        [20, 10],
      ] as const) {
        const where = `cell ${cx},${cy}`;
        // The circle's rim left and right of its centre; its centre empty.
        expect(
          anyIn(p, px(cx + 1) - 1, py(cy) - 1, px(cx + 1) + 1, py(cy) + 1, reddish),
          `${where} right`,
        ).toBe(true);
        expect(
          anyIn(p, px(cx - 1) - 1, py(cy) - 1, px(cx - 1) + 1, py(cy) + 1, reddish),
          `${where} left`,
        ).toBe(true);
        expect(anyIn(p, px(cx) - 3, py(cy) - 3, px(cx) + 3, py(cy) + 3, reddish), `${where} centre`).toBe(
          false,
        );
        // The attribute 'WW' from x − 1 on, y − 4 to y − 2: green there, none above the circle.
        expect(anyIn(p, px(cx - 1), py(cy - 2), px(cx + 1.4), py(cy - 4), green), `${where} attribute`).toBe(
          true,
        );
        expect(anyIn(p, px(cx - 1), py(cy + 5), px(cx + 3), py(cy + 3), blue), `${where} block ATTDEF`).toBe(
          false,
        );
      }
      // Nothing green between the first row's circles and the second row's attributes (y 6 to 8).
      expect(anyIn(p, px(-5), py(5.5), px(35), py(1.5), green)).toBe(false);
      // The layout's ATTDEF shows its tag, TAGX, at 4..8.8, 20..22.
      expect(anyIn(p, px(4), py(22), px(8.8), py(20), blue)).toBe(true);
      const scene = plotScene(readDxf(DRAWING), '*Model_Space');
      // One entity each; the MINSERT drew 6 circles and 6 attributes.
      expect(scene.entities.map((e) => [e.type, e.items.length])).toEqual([
        ['Insert', 12],
        ['ATTDEF', 1],
      ]);
    });
  });
});
