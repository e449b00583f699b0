/**
 * SPLINEs drawn as NURBS: a rational quadratic quarter circle of radius 40 about (0, 0) captured at 2
 * pixels per unit (drawing point (x, y) is pixel column 2·(x + 14), row 2·(50 − y)) lies on that circle,
 * not on its control polygon; the plot's SVG draws it as a path, nothing under `skipped`. One given by fit
 * points only is drawn on the curve ezdxf interpolates through them.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it, type TestContext } from 'vitest';
import { needEzdxf, python, resultOf, withHarnessAndDir } from '../dispatcher/helpers.js';
import { decodePng, pixelsWhere, RED_LINE_CAPTURE, reddish } from './pixels.js';

const QUARTER = {
  type: 'Spline',
  degree: 2,
  knots: [0, 0, 0, 1, 1, 1],
  weights: [1, Math.SQRT1_2, 1],
  control_points: [
    [40, 0],
    [40, 40],
    [0, 40],
  ],
  color: 1,
};

describe('SPLINE drawn', () => {
  it('a rational spline is drawn on its curve, not its control polygon', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      const [handle] = await h.create([QUARTER]);
      const shot = resultOf<{ data: string; entities: number; skipped: Record<string, number> }>(
        await h.ok('capture', { document_id: doc, ...RED_LINE_CAPTURE }),
      );
      expect(shot).toMatchObject({ entities: 1, skipped: {} });
      const red = pixelsWhere(decodePng(Buffer.from(shot.data, 'base64')), reddish);
      expect(red.length).toBeGreaterThan(100);
      // Every red pixel's centre is within 1.5 pixels of the circle (pixel (c, r) is at x = (c + 0.5) / 2 − 14).
      const off = red.filter(([c, r]) => {
        const x = (c + 0.5) / 2 - 14;
        const y = 50 - (r + 0.5) / 2;
        return Math.abs(Math.hypot(x, y) - 40) > 0.75;
      });
      expect(off).toEqual([]);
      // Its middle is drawn (45 degrees round), and the control polygon's corner is not.
      const near = (x: number, y: number) =>
        red.some(([c, r]) => Math.abs(c - 2 * (x + 14)) <= 1 && Math.abs(r - 2 * (50 - y)) <= 1);
      expect(near(40 * Math.SQRT1_2, 40 * Math.SQRT1_2)).toBe(true);
      expect(near(40, 40)).toBe(false);
      const path = dir.path('spline.svg');
      const plotted = resultOf<{ entities: number; skipped: Record<string, number> }>(
        await h.ok('plot', { document_id: doc, path }),
      );
      expect(plotted).toMatchObject({ entities: 1, skipped: {} });
      expect(await readFile(path, 'utf8')).toMatch(
        new RegExp(`<path data-handle="${handle}"[^>]* d="M[^"]*L`),
      );
    });
  });

  it('one by fit points only is drawn on the curve ezdxf interpolates, not on their chords', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const fit = [
      [0, 0, 0],
      [40, 40, 0],
      [80, 0, 0],
    ];
    // ezdxf's curve, densely: the drawing's chords stay within a pixel of it.
    const curve = await python<number[][]>(
      `
import json, sys
from ezdxf.math import fit_points_to_cad_cv
s = fit_points_to_cad_cv(json.loads(sys.argv[1]))
print(json.dumps([list(s.point(i / 400)) for i in range(401)]))
`,
      [JSON.stringify(fit)],
    );
    await withHarnessAndDir(async (h) => {
      const doc = await h.newDoc();
      await h.create([{ type: 'Spline', fit_points: fit, color: 1 }]);
      const shot = resultOf<{ data: string }>(
        await h.ok('capture', { document_id: doc, ...RED_LINE_CAPTURE }),
      );
      const red = pixelsWhere(decodePng(Buffer.from(shot.data, 'base64')), reddish);
      expect(red.length).toBeGreaterThan(100);
      const off = red.filter(([c, r]) => {
        const x = (c + 0.5) / 2 - 14;
        const y = 50 - (r + 0.5) / 2;
        return !curve.some(([cx, cy]) => Math.hypot(x - (cx as number), y - (cy as number)) <= 1);
      });
      expect(off).toEqual([]);
      const near = (x: number, y: number) =>
        red.some(([c, r]) => Math.abs(c - 2 * (x + 14)) <= 1 && Math.abs(r - 2 * (50 - y)) <= 1);
      // A quarter along the curve is drawn; the chord from the first fit point to the second is not.
      const [qx, qy] = curve[100] as number[];
      expect(near(qx as number, qy as number)).toBe(true);
      expect(near(20, 20)).toBe(false);
    });
  });
});
