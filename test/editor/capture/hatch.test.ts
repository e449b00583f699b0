/**
 * HATCHes drawn by capture, pixel by pixel on small hand-checked drawings (40 pixels a unit in a window
 * −1..11, so drawing x, y is pixel (x + 1)·40, (11 − y)·40): ANSI31 at scale 8 in a 10 x 10 square is 45°
 * lines 1 apart (x − y = k·√2) cut at the square; a solid square is painted inside only; a solid hatch of
 * a file ezdxf writes, a square with a hole holding an island, is painted by the even-odd rule its
 * hatch style asks for; a pattern hatch that names ANSI31 but stores no lines draws acad.pat's. Plot and
 * the viewer draw from the same scene.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { harnessForFile, needEzdxf, python, resultOf } from '../dispatcher/helpers.js';
import { darkPixels, needPdftoppm, renderPdf } from '../plot/pixels.js';
import { decodePng, type Picture, reddish, rgbAt } from './pixels.js';

const px = (x: number) => Math.round((x + 1) * 40);
const py = (y: number) => Math.round((11 - y) * 40);
const SQUARE = [
  [0, 0],
  [10, 0],
  [10, 10],
  [0, 10],
];

const shared = harnessForFile();

/** The capture of document `doc` in the window −1..11, decoded, with what it skipped. */
async function capture(doc: number): Promise<{ picture: Picture; skipped: Record<string, number> }> {
  const shot = resultOf<{ data: string; skipped: Record<string, number> }>(
    await shared.h.ok('capture', { document_id: doc, width: 480, window: [-1, -1, 11, 11] }),
  );
  return { picture: decodePng(Buffer.from(shot.data, 'base64')), skipped: shot.skipped };
}

/** A new document holding `entities`, captured. */
async function captureOf(entities: Record<string, unknown>[]) {
  const doc = await shared.h.newDoc();
  await shared.h.create(entities);
  return capture(doc);
}

/** A file ezdxf writes (the script saves to argv[1]), opened and captured. */
async function captureFile(name: string, script: string) {
  const path = shared.dir.path(name);
  await python(script, [path]);
  const doc = (await shared.h.ok('open', { path })).document_id as number;
  return { doc, ...(await capture(doc)) };
}

function redNear(p: Picture, x: number, y: number, r = 1): boolean {
  for (let dy = -r; dy <= r; dy++)
    for (let dx = -r; dx <= r; dx++) if (reddish(rgbAt(p, px(x) + dx, py(y) + dy))) return true;
  return false;
}

const redAt = (p: Picture, x: number, y: number) => reddish(rgbAt(p, px(x), py(y)));

/** Red pixels outside the square 0..10 (and its stroke). */
function redOutside(p: Picture): number {
  let outside = 0;
  for (let y = 0; y < p.height; y++)
    for (let x = 0; x < p.width; x++) {
      const inside = x >= px(0) - 2 && x <= px(10) + 2 && y >= py(10) - 2 && y <= py(0) + 2;
      if (!inside && reddish(rgbAt(p, x, y))) outside++;
    }
  return outside;
}

/** ANSI31's lines x − y = k·√2 (scale 8) are red; midway between two, nothing. */
function expectAnsi31(p: Picture): void {
  const s = Math.SQRT1_2;
  for (const k of [-3, -1, 0, 2, 4]) expect(redNear(p, 5 + k * s, 5 - k * s), `line ${k}`).toBe(true);
  for (const k of [-2.5, -0.5, 0.5, 3.5]) expect(redNear(p, 5 + k * s, 5 - k * s), `gap ${k}`).toBe(false);
}

describe('capture of a HATCH', () => {
  it('draws its pattern lines inside its boundary only', async () => {
    const { picture, skipped } = await captureOf([
      { type: 'Hatch', boundary: SQUARE, pattern: 'ANSI31', pattern_scale: 8, color: 1 },
    ]);
    expect(skipped).toEqual({});
    expectAnsi31(picture);
    expect(redOutside(picture)).toBe(0);
  });

  it('draws acad.pat’s lines for a pattern it names but stores no lines of', async (ctx: TestContext) => {
    needEzdxf(ctx);
    // ezdxf writes the pattern's name, angle and scale, and no definition lines (no 78 at all).
    const { picture } = await captureFile(
      'named-only.dxf',
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
hatch = doc.modelspace().add_hatch(color=1)
hatch.paths.add_polyline_path([(0, 0), (10, 0), (10, 10), (0, 10)], is_closed=True)
hatch.set_pattern_fill("ANSI31", color=1, scale=8)
hatch.pattern.lines.clear()
doc.saveas(sys.argv[1])
print("{}")
`,
    );
    expectAnsi31(picture);
    expect(redOutside(picture)).toBe(0);
  });
});

describe('capture of a solid HATCH', () => {
  it('paints the inside of its loop, and nothing outside it', async () => {
    const { picture } = await captureOf([{ type: 'Hatch', boundary: SQUARE, solid: true, color: 1 }]);
    for (const [x, y] of [
      [5, 5],
      [1, 1],
      [9, 2],
      [2.5, 8.5],
    ] as const)
      expect(redAt(picture, x, y), `inside ${x},${y}`).toBe(true);
    for (const [x, y] of [
      [-0.5, 5],
      [10.5, 5],
      [5, 10.5],
    ] as const)
      expect(redAt(picture, x, y), `outside ${x},${y}`).toBe(false);
  });

  // A square 0..10 (external), a hole 2..8 (outermost) and an island 4..6 in it, in each hatch style.
  const withIslands = (style: number) => `
import sys, ezdxf
doc = ezdxf.new("R2010")
hatch = doc.modelspace().add_hatch(color=1)
hatch.dxf.hatch_style = ${style}
hatch.paths.add_polyline_path([(0, 0), (10, 0), (10, 10), (0, 10)], is_closed=True, flags=1)
hatch.paths.add_polyline_path([(2, 2), (8, 2), (8, 8), (2, 8)], is_closed=True, flags=16)
hatch.paths.add_polyline_path([(4, 4), (6, 4), (6, 6), (4, 6)], is_closed=True, flags=0)
doc.saveas(sys.argv[1])
print("{}")
`;
  // Points in the square's ring, in the hole's ring and in the island.
  const ring = [1, 5] as const;
  const hole = [3, 5] as const;
  const island = [5, 5] as const;

  it('with islands, nested (style 0): the ring and the island painted, the hole empty', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const { doc, picture } = await captureFile('nested.dxf', withIslands(0));
    expect(redAt(picture, ...ring)).toBe(true);
    expect(redAt(picture, ...hole)).toBe(false);
    expect(redAt(picture, 7, 7)).toBe(false);
    expect(redAt(picture, ...island)).toBe(true);
    expect(redOutside(picture)).toBe(0);
    // The plot paints the same: fitted on A4 landscape, the square is 200 mm wide about the sheet's middle.
    needPdftoppm(ctx);
    const pdf = shared.dir.path('nested.pdf');
    await shared.h.ok('plot', {
      document_id: doc,
      path: pdf,
      paper: 'ISO A4',
      orientation: 'landscape',
      fit: true,
      center: true,
    });
    const gray = await renderPdf(pdf);
    const dark = ([x, y]: readonly [number, number]) => {
      const fx = (148.5 + (x - 5) * 20) / 297;
      const fy = (105 - (y - 5) * 20) / 210;
      return darkPixels(gray, { x0: fx - 0.005, x1: fx + 0.005, y0: fy - 0.007, y1: fy + 0.007 }, 250) > 0;
    };
    expect(dark(ring)).toBe(true);
    expect(dark(hole)).toBe(false);
    expect(dark(island)).toBe(true);
  });

  it('outermost (style 1): the ring painted, the hole and the island in it empty', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const { picture } = await captureFile('outermost.dxf', withIslands(1));
    expect(redAt(picture, ...ring)).toBe(true);
    expect(redAt(picture, ...hole)).toBe(false);
    expect(redAt(picture, ...island)).toBe(false);
  });

  it('ignore (style 2): the whole square painted', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const { picture } = await captureFile('ignore.dxf', withIslands(2));
    for (const [x, y] of [ring, hole, island]) expect(redAt(picture, x, y), `at ${x},${y}`).toBe(true);
  });
});
