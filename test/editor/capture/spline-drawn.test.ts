/**
 * SPLINEs drawn as NURBS: a rational quadratic quarter circle of radius 40 about (0, 0) captured at 2
 * pixels per unit (drawing point (x, y) is pixel column 2·(x + 14), row 2·(50 − y)) lies on that circle,
 * not on its control polygon; the plot's SVG draws it as a path, nothing under `skipped`.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { resultOf, withHarnessAndDir } from '../dispatcher/helpers.js';
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
});
