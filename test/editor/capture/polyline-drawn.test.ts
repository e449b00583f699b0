/**
 * POLYLINEs drawn (a file ezdxf writes): a 2D one's width painted as a band along it and its bulge as
 * an arc, a 3D one as its straight segments, in a capture (2 pixels per unit: drawing point (x, y) is
 * pixel column 2·(x + 14), row 2·(50 − y)) and a plot's SVG; nothing is left out under `skipped`.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it, type TestContext } from 'vitest';
import { needEzdxf, python, resultOf, withHarnessAndDir } from '../dispatcher/helpers.js';
import { decodePng, pixelsWhere, RED_LINE_CAPTURE, reddish } from './pixels.js';

const green = ([r, g, b]: readonly number[]) =>
  (g as number) > (r as number) + 80 && (g as number) > (b as number) + 80;
const column = (x: number) => 2 * (x + 14);
const row = (y: number) => 2 * (50 - y);

const MAKE = `
import sys, ezdxf
doc = ezdxf.new("R12")
msp = doc.modelspace()
# Red: from (0, 20) to (40, 20), 4 wide, then a half circle (bulge 1) down to (40, 0).
wide = msp.add_polyline2d([(0, 20), (40, 20), (40, 0)], dxfattribs={"color": 1})
vs = list(wide.vertices)
vs[0].dxf.start_width = 4
vs[0].dxf.end_width = 4
vs[1].dxf.bulge = -1
# Green: a 3D polyline, seen from above.
msp.add_polyline3d([(60, -30, 0), (100, -30, 5), (100, 10, 10)], dxfattribs={"color": 3})
doc.saveas(sys.argv[1])
print("{}")
`;

describe('POLYLINE drawn', () => {
  it('a 2D one: its width a band, its bulge an arc; a 3D one its segments', async (ctx: TestContext) => {
    needEzdxf(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const path = dir.path('polylines.dxf');
      await python(MAKE, [path]);
      const opened = await h.ok('open', { path });
      const doc = opened.document_id as number;
      const result = resultOf<{ data: string; entities: number; skipped: Record<string, number> }>(
        await h.ok('capture', { document_id: doc, ...RED_LINE_CAPTURE }),
      );
      expect(result.entities).toBe(2);
      expect(result.skipped).toEqual({});
      const p = decodePng(Buffer.from(result.data, 'base64'));
      const red = pixelsWhere(p, reddish);
      // The band: 4 units (8 pixels) tall along y = 20, filled across x 2..38.
      const band = red.filter(([c, r]) => c >= column(2) && c <= column(38) && Math.abs(r - row(20)) <= 3);
      expect(band.length).toBe((column(38) - column(2) + 1) * 7);
      expect(red.filter(([c, r]) => c >= column(2) && c <= column(38) && Math.abs(r - row(20)) > 6)).toEqual(
        [],
      );
      // The half circle of radius 10 about (40, 10), clockwise from (40, 20) to (40, 0): it reaches x = 50.
      const right = Math.max(...red.map(([c]) => c));
      expect(Math.abs(right - column(50))).toBeLessThanOrEqual(1);
      expect(red.some(([c, r]) => Math.abs(c - column(50)) <= 1 && Math.abs(r - row(10)) <= 1)).toBe(true);
      // Nothing inside the circle (within 8 of its centre).
      expect(red.filter(([c, r]) => c > column(41) && c < column(46) && r > row(15) && r < row(5))).toEqual(
        [],
      );
      const g = pixelsWhere(p, green);
      expect(g.filter(([, r]) => Math.abs(r - row(-30)) <= 1).length).toBeGreaterThan(70);
      expect(g.filter(([c]) => Math.abs(c - column(100)) <= 1).length).toBeGreaterThan(70);

      const svgPath = dir.path('polylines.svg');
      const plotted = resultOf<{ entities: number; skipped: Record<string, number> }>(
        await h.ok('plot', { document_id: doc, path: svgPath }),
      );
      expect(plotted).toMatchObject({ entities: 2, skipped: {} });
      const svg = await readFile(svgPath, 'utf8');
      // The band is a filled path, the centre line an arc command after its straight run.
      expect(svg).toMatch(/<path d="M[^"]*Z" stroke="#ff0000"[^>]* fill="#ff0000"\/>/);
      expect(svg).toMatch(/<path d="M[^"]*L[^"]*A[^"]*" stroke="#ff0000"/);
    });
  });
});
