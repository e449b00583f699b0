/**
 * A HATCH drawn by capture, pixel by pixel on a small hand-checked drawing (40 pixels a unit): ANSI31 at
 * scale 8 in a 10 x 10 square is 45° lines 1 apart (x − y = k·√2), cut at the square; nothing outside it,
 * nothing midway between two lines. Plot and the viewer draw from the same scene.
 */
import { describe, expect, it } from 'vitest';
import { resultOf, startHarness } from '../dispatcher/helpers.js';
import { decodePng, type Picture, reddish, rgbAt } from './pixels.js';

/** Window −1..11 in x and y at 40 pixels a unit: drawing x, y at pixel (x + 1)·20, (11 − y)·20. */
const px = (x: number) => Math.round((x + 1) * 40);
const py = (y: number) => Math.round((11 - y) * 40);

function redNear(p: Picture, x: number, y: number, r = 1): boolean {
  for (let dy = -r; dy <= r; dy++)
    for (let dx = -r; dx <= r; dx++) if (reddish(rgbAt(p, px(x) + dx, py(y) + dy))) return true;
  return false;
}

describe('capture of a HATCH', () => {
  it('draws its pattern lines inside its boundary only', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      await h.create([
        {
          type: 'Hatch',
          boundary: [
            [0, 0],
            [10, 0],
            [10, 10],
            [0, 10],
          ],
          pattern: 'ANSI31',
          pattern_scale: 8,
          color: 1,
        },
      ]);
      const shot = resultOf<{ data: string; skipped: Record<string, number> }>(
        await h.ok('capture', { document_id: doc, width: 480, window: [-1, -1, 11, 11] }),
      );
      expect(shot.skipped).toEqual({});
      const p = decodePng(Buffer.from(shot.data, 'base64'));
      const s = Math.SQRT1_2;
      // On the lines x − y = k·√2, at (5 + k·√2/2, 5 − k·√2/2): red.
      for (const k of [-3, -1, 0, 2, 4]) expect(redNear(p, 5 + k * s, 5 - k * s), `line ${k}`).toBe(true);
      // Midway between two lines: nothing.
      for (const k of [-2.5, -0.5, 0.5, 3.5])
        expect(redNear(p, 5 + k * s, 5 - k * s), `gap ${k}`).toBe(false);
      // Outside the square: nothing at all.
      let outside = 0;
      for (let y = 0; y < p.height; y++)
        for (let x = 0; x < p.width; x++) {
          const inside = x >= px(0) - 2 && x <= px(10) + 2 && y >= py(10) - 2 && y <= py(0) + 2;
          if (!inside && reddish(rgbAt(p, x, y))) outside++;
        }
      expect(outside).toBe(0);
    } finally {
      await h.close();
    }
  });
});

describe('capture of a solid HATCH', () => {
  it('paints the inside of its loop, and nothing outside it', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      await h.create([
        {
          type: 'Hatch',
          boundary: [
            [0, 0],
            [10, 0],
            [10, 10],
            [0, 10],
          ],
          solid: true,
          color: 1,
        },
      ]);
      const shot = resultOf<{ data: string }>(
        await h.ok('capture', { document_id: doc, width: 480, window: [-1, -1, 11, 11] }),
      );
      const p = decodePng(Buffer.from(shot.data, 'base64'));
      for (const [x, y] of [
        [5, 5],
        [1, 1],
        [9, 2],
        [2.5, 8.5],
      ] as const)
        expect(reddish(rgbAt(p, px(x), py(y))), `inside ${x},${y}`).toBe(true);
      for (const [x, y] of [
        [-0.5, 5],
        [10.5, 5],
        [5, 10.5],
      ] as const)
        expect(reddish(rgbAt(p, px(x), py(y))), `outside ${x},${y}`).toBe(false);
    } finally {
      await h.close();
    }
  });
});
