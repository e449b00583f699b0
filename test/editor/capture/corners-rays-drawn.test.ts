/**
 * SOLID, TRACE, 3DFACE, XLINE and RAY drawn from the one scene: pixels of small hand-checked captures
 * (2 pixels per unit: drawing point (x, y) is pixel column 2·(x + 14), row 2·(50 − y)), the plot's SVG
 * elements and its PDF's dark pixels, and what the live viewer is sent.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it, type TestContext } from 'vitest';
import { drawableOf } from '../../../src/editor/drawables.js';
import { NO_BLOCKS } from '../../../src/editor/geometry/index.js';
import type { Entity } from '../../../src/editor/model.js';
import { resultOf, withHarnessAndDir } from '../dispatcher/helpers.js';
import { darkPixels, needPdftoppm, renderPdf } from '../plot/pixels.js';
import { documentOf } from '../query/fixtures.js';
import { decodePng, type Picture, pixelsWhere, RED_LINE_CAPTURE, reddish } from './pixels.js';

const green = ([r, g, b]: readonly number[]) =>
  (g as number) > (r as number) + 80 && (g as number) > (b as number) + 80;
const column = (x: number) => 2 * (x + 14);
const row = (y: number) => 2 * (50 - y);

async function capture(entities: Array<Record<string, unknown>>): Promise<Picture> {
  return withHarnessAndDir(async (h) => {
    const doc = await h.newDoc();
    await h.create(entities);
    const result = resultOf<{ data: string }>(
      await h.ok('capture', { document_id: doc, ...RED_LINE_CAPTURE }),
    );
    return decodePng(Buffer.from(result.data, 'base64'));
  });
}

/** How many of the pixels `found` lie in the drawing-unit box [x1, x2] x [y1, y2]. */
const within = (found: Array<[number, number]>, x1: number, y1: number, x2: number, y2: number) =>
  found.filter(([c, r]) => c >= column(x1) && c <= column(x2) && r >= row(y2) && r <= row(y1)).length;

describe('drawn in captures', () => {
  it('a SOLID is filled: its corners in DXF order (0, 1, 3, 2) make a square, not a bow tie', async () => {
    const p = await capture([
      {
        type: 'Solid',
        corners: [
          [0, 0],
          [40, 0],
          [0, 40],
          [40, 40],
        ],
        color: 1,
      },
    ]);
    const red = pixelsWhere(p, reddish);
    // Every pixel inside, a pixel or so of outline around.
    const inside = (column(39) - column(1) + 1) * (row(1) - row(39) + 1);
    expect(within(red, 1, 1, 39, 39)).toBe(inside);
    expect(within(red, -2, -2, 42, 42)).toBe(red.length);
    expect(red.length).toBeLessThan(84 * 84);
  });

  it('a TRACE triangle is filled; a 3DFACE shows its visible edges only, unfilled', async () => {
    const p = await capture([
      {
        type: 'Trace',
        corners: [
          [0, 0],
          [40, 0],
          [0, 40],
        ],
        color: 3,
      },
      {
        type: 'Face3d',
        corners: [
          [50, 0, 0],
          [90, 0, 5],
          [90, 40, 10],
          [50, 40, 5],
        ],
        // The first edge (along y = 0) and the fourth (along x = 50) are invisible.
        invisible_edges: 1 | 8,
        color: 1,
      },
    ]);
    const g = pixelsWhere(p, green);
    // Below the diagonal filled, above it nothing.
    expect(within(g, 2, 2, 15, 15)).toBeGreaterThan(25 * 25);
    expect(within(g, 25, 25, 40, 40)).toBe(0);
    const red = pixelsWhere(p, reddish);
    // The right edge (x = 90) and the top (y = 40) are drawn; the bottom and the left are not, nor the inside.
    expect(within(red, 89, 2, 91, 38)).toBeGreaterThan(70);
    expect(within(red, 52, 39, 88, 41)).toBeGreaterThan(70);
    expect(within(red, 52, -1, 88, 1)).toBe(0);
    expect(within(red, 49, 2, 51, 38)).toBe(0);
    expect(within(red, 55, 5, 85, 35)).toBe(0);
  });

  it('an XLINE runs across the window; a RAY from its start to the window edge', async () => {
    const p = await capture([
      { type: 'Line', start: [0, 30], end: [100, 30], color: 3 },
      { type: 'Line', start: [0, -40], end: [0, -30], color: 3 },
      { type: 'XLine', start: [50, 0], direction: [-1, 0], color: 1 },
      { type: 'Ray', start: [60, -20], direction: [1, 0], color: 1 },
    ]);
    const red = pixelsWhere(p, reddish);
    const onRow = (y: number) => red.filter(([, r]) => Math.abs(r - row(y)) <= 1).map(([c]) => c);
    const xline = new Set(onRow(0));
    for (let c = 0; c < 256; c++) expect(xline.has(c), `column ${c}`).toBe(true);
    const ray = onRow(-20);
    expect(Math.min(...ray)).toBeGreaterThanOrEqual(column(60) - 1);
    expect(Math.min(...ray)).toBeLessThanOrEqual(column(60) + 1);
    expect(Math.max(...ray)).toBe(255);
    // Nothing red but the two rows.
    expect(red.every(([, r]) => Math.abs(r - row(0)) <= 1 || Math.abs(r - row(-20)) <= 1)).toBe(true);
  });
});

describe('drawn in plots', () => {
  it('SVG: a SOLID as a filled path, a 3DFACE and an XLINE as stroked ones', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      const [solid, face, xline] = await h.create([
        {
          type: 'Solid',
          corners: [
            [0, 0],
            [10, 0],
            [0, 10],
          ],
          color: 1,
        },
        {
          type: 'Face3d',
          corners: [
            [20, 0],
            [30, 0],
            [30, 10],
            [20, 10],
          ],
          color: 3,
        },
        { type: 'XLine', start: [0, 5], direction: [1, 1], color: 5 },
      ]);
      const path = dir.path('corners.svg');
      const result = resultOf<{ entities: number; skipped: Record<string, number> }>(
        await h.ok('plot', { document_id: doc, path }),
      );
      expect(result).toMatchObject({ entities: 3, skipped: {} });
      const svg = await readFile(path, 'utf8');
      // 1:1 on the sheet, the drawing's lower-left corner 5 mm in from the page's.
      expect(svg).toMatch(
        new RegExp(
          `<path data-handle="${solid}"[^>]* d="M5 415L15 415L5 405Z" stroke="#ff0000"[^>]* fill="#ff0000"`,
        ),
      );
      expect(svg).toMatch(
        new RegExp(
          `<path data-handle="${face}"[^>]* d="M25 415L35 415L35 405L25 405L25 415" stroke="#00ff00"`,
        ),
      );
      expect(svg).not.toMatch(new RegExp(`data-handle="${face}"[^>]*fill=`));
      // The XLINE is cut at the extents of the rest: from (0, 5) to where it leaves x 0..30, y 0..10, (5, 10).
      expect(svg).toMatch(new RegExp(`<path data-handle="${xline}"[^>]* d="M5 410L10 405" stroke="#0000ff"`));
    });
  });

  it('SVG of a window: the XLINE is cut at the window, as a capture of it cuts it', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      const [, xline] = await h.create([
        { type: 'Line', start: [0, 0], end: [10, 0] },
        { type: 'XLine', start: [0, 5], direction: [1, 1], color: 5 },
      ]);
      const path = dir.path('window.svg');
      const result = resultOf<{ page: { height: number } }>(
        await h.ok('plot', {
          document_id: doc,
          path,
          window: [-10, -10, 40, 20],
          scale: 1,
          fit: false,
          center: false,
        }),
      );
      const height = result.page.height;
      // In at (-10, -5), out at (15, 20); the window's lower-left corner 5 mm in from the sheet's.
      expect(await readFile(path, 'utf8')).toMatch(
        new RegExp(
          `<path data-handle="${xline}"[^>]* d="M5 ${height - 10}L30 ${height - 35}" stroke="#0000ff"`,
        ),
      );
    });
  });

  it('PDF: the inside of a SOLID prints dark, beside it nothing', async (ctx: TestContext) => {
    needPdftoppm(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await h.create([
        {
          type: 'Solid',
          corners: [
            [0, 0],
            [100, 0],
            [0, 100],
            [100, 100],
          ],
          color: 7,
        },
        { type: 'Line', start: [0, 0], end: [300, 0], color: 7 },
      ]);
      const path = dir.path('solid.pdf');
      const plotted = resultOf<{ page: { width: number; height: number } }>(
        await h.ok('plot', { document_id: doc, path }),
      );
      const gray = await renderPdf(path);
      // 1:1 on the page setup's sheet, the drawing's lower-left corner 5 mm in: the square is x and y
      // 5..105 mm from the sheet's lower-left corner. Inside it (10 mm in from its edges) all is dark.
      const { width, height } = plotted.page;
      const mm = (x0: number, x1: number, y0: number, y1: number) => ({
        x0: x0 / width,
        x1: x1 / width,
        y0: 1 - y1 / height,
        y1: 1 - y0 / height,
      });
      const inside = mm(15, 95, 15, 95);
      const area =
        (Math.ceil(inside.x1 * gray.width) - Math.floor(inside.x0 * gray.width)) *
        (Math.ceil(inside.y1 * gray.height) - Math.floor(inside.y0 * gray.height));
      expect(darkPixels(gray, inside)).toBe(area);
      // Beside it, above the line, nothing.
      expect(darkPixels(gray, mm(115, 280, 15, 200), 250)).toBe(0);
    });
  });
});

describe('sent to the live viewer', () => {
  const common = { space: '*Model_Space', layer: '0', color: 1, linetype: 'BYLAYER', lineweight: -1 };
  it('a SOLID with its fill, an XLINE as a ray the page cuts at its view', () => {
    const solid: Entity = {
      ...common,
      handle: 'S1',
      type: 'Solid',
      corners: [
        [0, 0, 0],
        [4, 0, 0],
        [0, 4, 0],
        [4, 4, 0],
      ],
    };
    const xline: Entity = { ...common, handle: 'X1', type: 'XLine', start: [1, 2, 0], direction: [0, 1, 0] };
    const model = documentOf([solid, xline]);
    expect(drawableOf(solid, model, NO_BLOCKS)).toMatchObject({
      fills: [[0, 0, 4, 0, 4, 4, 0, 4]],
      box: [0, 0, 4, 4],
    });
    expect(drawableOf(xline, model, NO_BLOCKS)).toMatchObject({ rays: [1, 2, 0, 1, 1], box: null });
  });
});
