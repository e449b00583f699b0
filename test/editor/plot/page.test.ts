/** The pure parts of plotting: where the drawing lands on the sheet, and the text a Text shows. */
import { describe, expect, it } from 'vitest';
import { arcCurve, circleCurve } from '../../../src/editor/geometry/curves.js';
import type { Bounds } from '../../../src/editor/geometry/index.js';
import { textCharacters } from '../../../src/editor/geometry/text-box.js';
import type { PageSetup } from '../../../src/editor/model.js';
import { pathData } from '../../../src/editor/plot/marks.js';
import { DEFAULT_PLOT_SETUP, PRINT_MARGIN_MM, placePlot } from '../../../src/editor/plot/page.js';

const box = (x1: number, y1: number, x2: number, y2: number): Bounds => ({
  min: [x1, y1, 0],
  max: [x2, y2, 0],
});
const setup = (fields: Partial<PageSetup>): PageSetup => ({ ...DEFAULT_PLOT_SETUP, ...fields });

describe('placePlot', () => {
  it('plots on ISO A4 landscape, fitted and centred, when the layout names no paper it knows', () => {
    for (const layoutSetup of [undefined, setup({ paper: 'Plotter roll', size: undefined })]) {
      const p = placePlot(layoutSetup, box(0, 0, 100, 50));
      expect(p).toMatchObject({
        paper: 'ISO A4',
        orientation: 'landscape',
        page: { width: 297, height: 210, units: 'mm' },
        fit: true,
        center: true,
        defaulted: true,
      });
      // 287 mm for 100 units; the middle of the area at the middle of the sheet.
      expect(p.factor).toBeCloseTo(2.87, 12);
      expect(p.toPage(50, 25)).toEqual([148.5, 105]);
      expect(p.scale).toBe('2.87:1');
    }
  });

  it('takes a size the layout stores when its paper has no standard name', () => {
    const p = placePlot(
      setup({ paper: 'Custom roll', size: [900, 500], orientation: 'portrait' }),
      box(0, 0, 1, 1),
    );
    expect(p).toMatchObject({
      paper: 'custom 500 x 900 mm',
      page: { width: 500, height: 900 },
      defaulted: false,
    });
  });

  it('puts the lower-left corner of the area 5 mm in at a fixed scale, y down from the top', () => {
    const p = placePlot(
      setup({ paper: 'ISO A3', orientation: 'portrait', fit: false, center: false, scale: [1, 50] }),
      box(1000, 2000, 3000, 4000),
    );
    expect(p.page).toEqual({ width: 297, height: 420, units: 'mm' });
    expect(p.scale).toBe('1:50');
    expect(p.toPage(1000, 2000)).toEqual([PRINT_MARGIN_MM, 420 - PRINT_MARGIN_MM]);
    expect(p.toPage(1050, 2100)).toEqual([6, 413]);
  });

  it('counts an ANSI sheet scale in inches: 1:1 is 25.4 mm a drawing unit', () => {
    const p = placePlot(setup({ paper: 'ANSI A', fit: false, center: true, scale: [1, 1] }), box(0, 0, 2, 2));
    expect(p.factor).toBeCloseTo(25.4, 12);
    expect(p.scale).toBe('1:1');
    expect(p.page).toMatchObject({ width: 279.4, height: 215.9 });
    expect(p.toPage(1, 1)).toEqual([139.7, 107.95]);
  });

  it('an origin given for the lower-left corner wins (paper space at a fixed scale)', () => {
    const p = placePlot(setup({ fit: false, center: false }), box(20, 30, 120, 30), [0, 0]);
    expect(p.toPage(20, 30)).toEqual([25, 175]);
  });

  it('a lone point is fitted at one paper unit a drawing unit', () => {
    expect(placePlot(undefined, box(3, 3, 3, 3)).factor).toBe(1);
  });
});

describe('path data', () => {
  const p = placePlot(setup({ fit: false, center: false, orientation: 'landscape' }), box(0, 0, 10, 10));
  it('draws a counter-clockwise arc as an SVG arc turning the other way on the y-down page', () => {
    // Quarter arc of radius 10 from (10, 0) to (0, 10).
    expect(pathData([arcCurve([0, 0, 0], 10, 0, 90)], p)).toBe('M15 205A10 10 0 0 0 5 195');
    expect(pathData([arcCurve([0, 0, 0], 10, 0, 270)], p)).toBe('M15 205A10 10 0 1 0 5 215');
  });
  it('draws a full circle as two half arcs', () => {
    expect(pathData([circleCurve([0, 0, 0], 1)], p)).toBe('M6 205A1 1 0 0 0 4 205A1 1 0 0 0 6 205');
  });
});

describe('textCharacters', () => {
  it('turns %% codes into the characters they stand for and drops the underline and overline marks', () => {
    expect(textCharacters('%%c10 %%p0.1 45%%D %%uA%%u 5%%% %%065')).toBe(
      '\u00d810 \u00b10.1 45\u00b0 A 5% A',
    );
  });
});
