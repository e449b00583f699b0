/**
 * Gradient HATCHes of a real file (netDxf's sample 2018.dxf: an INVSPHERICAL one over 0..100 x −450..−350
 * from (76, 95, 153) to (244, 209, 67), and a one-colour HEMISPHERICAL one over 150..250 of (76, 95, 153)
 * and its tint 0.77, a grey of 196) drawn as their gradients: in the capture (2 pixels a unit over
 * −10..260 x −460..−340) and in the plot's PDF, the first colour at the middle of the inverse spherical one
 * and the second at its corners; the hemispherical one's grey at the middle of its lower side, its blue
 * at its upper corners.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { corpusPath } from '../corpus/corpus.js';
import { harnessForFile, resultOf } from '../dispatcher/helpers.js';
import { needPdftoppm, renderPdf } from '../plot/pixels.js';
import { decodePng, rgbAt } from './pixels.js';

const shared = harnessForFile();
const BLUE = [76, 95, 153];
const YELLOW = [244, 209, 67];
const GREY = [196, 196, 196];
const near = (rgb: readonly number[], want: readonly number[], by = 40) =>
  rgb.every((v, i) => Math.abs(v - (want[i] as number)) <= by);

// Drawing points and the colour each should be near.
const EXPECTED: Array<[number, number, number[]]> = [
  [50, -400, BLUE],
  [2, -448, YELLOW],
  [98, -352, YELLOW],
  [200, -448, GREY],
  [152, -352, BLUE],
  [248, -352, BLUE],
];

describe('a gradient HATCH', () => {
  it('is captured as its gradient', async () => {
    const doc = (await shared.h.ok('open', { path: corpusPath('netdxf-sample-2018.dxf') }))
      .document_id as number;
    const shot = resultOf<{ data: string }>(
      await shared.h.ok('capture', { document_id: doc, width: 540, window: [-10, -460, 260, -340] }),
    );
    const p = decodePng(Buffer.from(shot.data, 'base64'));
    for (const [x, y, want] of EXPECTED) {
      const rgb = rgbAt(p, Math.round((x + 10) * 2), Math.round((-340 - y) * 2));
      expect(near(rgb, want), `(${x}, ${y}): ${rgb}, not ${want}`).toBe(true);
    }
  });

  it('is plotted as its gradient', async (ctx: TestContext) => {
    needPdftoppm(ctx);
    const doc = (await shared.h.ok('open', { path: corpusPath('netdxf-sample-2018.dxf') }))
      .document_id as number;
    const pdf = shared.dir.path('gradients.pdf');
    // The window fitted on A4 landscape: 270 x 120 units, 287 / 270 mm a unit, centred.
    await shared.h.ok('plot', {
      document_id: doc,
      path: pdf,
      window: [-10, -460, 260, -340],
      paper: 'ISO A4',
      orientation: 'landscape',
      fit: true,
      center: true,
    });
    const gray = await renderPdf(pdf, 50);
    const k = 287 / 270;
    const level = ([r, g, b]: readonly number[]) =>
      0.299 * (r as number) + 0.587 * (g as number) + 0.114 * (b as number);
    for (const [x, y, want] of EXPECTED) {
      const mmX = 148.5 + (x - 125) * k;
      const mmY = 105 - (y + 400) * k;
      const value = gray.at(Math.round((mmX / 25.4) * 50), Math.round((mmY / 25.4) * 50));
      expect(Math.abs(value - level(want)), `(${x}, ${y}): ${value}, not ${level(want)}`).toBeLessThan(40);
    }
  });
});
