/**
 * Every file of the corpus is drawn by `capture` (PNG) and `plot` (PDF, rasterised by pdftoppm) as ezdxf
 * draws it: the same pixels have something on them at the edges, within a pixel, and about as many
 * pixels are covered. The window is ezdxf's `bbox.extents` of model space with a margin; the picture it is
 * compared with is ezdxf's drawing add-on's of the same window and size (matplotlib), or, where that
 * cannot import, the box itself. One oracle process (scripts/dxf-corpus-oracle.py) and one editor
 * session serve every file; a file with nothing in model space must be refused `nothing_to_plot`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { decodePng, type Picture, rgbAt } from '../capture/pixels.js';
import { ezdxfUnavailable, type Harness, needEzdxf, resultOf, startHarness } from '../dispatcher/helpers.js';
import { type Gray, pdftoppmAvailable, renderPdf } from '../plot/pixels.js';
import { corpusFiles, corpusPath, EzdxfOracle, factsOf, readable } from './corpus.js';

/** A background no ACI colour is near (ACI 250 is black in the palette chronicle and ezdxf share). */
const BACKGROUND = '#123456';
const BACKGROUND_RGB = [0x12, 0x34, 0x56];
const WIDTH = 512;

/** Pixels with something drawn on them: how many, and the columns and rows they span (top row 0). */
interface Drawn {
  drawn: number;
  extents: [number, number, number, number] | null;
}

type Check = 'capture' | 'plot' | 'framing';

/** What a picture is compared with: ezdxf's drawing add-on's raster, or (without matplotlib) its box. */
type Against = 'raster' | 'box';

/**
 * Checks that fail today, with the reason and what they are compared with: each is asserted to still
 * fail, so when it is fixed the test turns red and the entry must go.
 */
/** `against` left out: the check compares with nothing of ezdxf's (framing), so either way. */
const KNOWN_FAILURES: ReadonlyArray<{ file: string; check: Check; against?: Against; reason: string }> = [
  {
    file: 'dxfjs-texts.dxf',
    check: 'plot',
    against: 'raster',
    reason:
      "ezdxf bounds nothing of it (the window is chronicle's extents of its one MTEXT, 'The quick brown fox', 10 high, as the capture sets it in DejaVu Sans): the PDF plot sets it in Helvetica, the PDF standard font, about 131 units long where DejaVu Sans is 138 as ezdxf's add-on draws it, so the plot's right column is 445 where ezdxf's is 497",
  },
  ...(['capture', 'plot'] as const).flatMap((check) =>
    (['raster', 'box'] as const).map((against) => ({
      file: 'dxfjs-entities.dxf',
      check,
      against,
      reason:
        "ezdxf's add-on and its box take the SPLINE of block spline_cp_3deg_closed (knots -2, -2, -1, 0 … 9, 9: not clamped) by its Bézier decomposition, which assumes clamped knots: that curve leaves the convex hull of the control points (block y 10 to 90) up to y 316.7, so ezdxf's top row is 35 where chronicle's, the NURBS evaluated as ezdxf's own BSpline.approximate does (y 12.3 to 87.7), is 149, under the block's frame",
    })),
  ),
  // Where only ezdxf's box is there to compare with, what it leaves out or guesses shows.
  ...(['capture', 'plot'] as const).flatMap((check) => [
    {
      file: 'netdxf-sample-2018.dxf',
      check,
      against: 'box' as const,
      reason: 'bbox.extents leaves its XLINE and RAY out; they are drawn to the window edges',
    },
    {
      file: 'dxfparser-mleader.dxf',
      check,
      against: 'box' as const,
      reason:
        "ezdxf 0.18's box of a MULTILEADER is not what its own drawing add-on draws (that reaches column 511 too)",
    },
  ]),
  {
    file: 'ezdxf-ASCII_R12.dxf',
    check: 'plot',
    against: 'box',
    reason:
      "without matplotlib ezdxf's box of a TEXT is its monospace estimate (3 px below the plot's Helvetica)",
  },
  ...(['capture', 'plot'] as const).map((check) => ({
    file: 'dxfjs-floorplan.dxf',
    check,
    against: 'box' as const,
    reason:
      "without matplotlib ezdxf's box of the TEXT 'FLOOR PLAN' (13FE, 91.6 high, middle centred) is its monospace estimate, with room for descenders the capitals lack: 28 units (14 px) below what is drawn",
  })),
  {
    file: 'ezdxf-multi_insert_with_attribs.dxf',
    check: 'capture',
    against: 'box',
    reason: "without matplotlib ezdxf's box of the attributes' text is its monospace estimate (2 px below)",
  },
];

/**
 * Files ezdxf's drawing add-on cannot draw (the error it raises starts so): the capture is checked against
 * its own framing instead, and the raster is asserted to still fail.
 */
const EZDXF_CANNOT_DRAW: Readonly<Record<string, string>> = {
  'dxfparser-arcs-as-splines.dxf': 'ValueError: 13 knot values required, got 12.',
};

function drawnWhere(width: number, height: number, marked: (x: number, y: number) => boolean): Drawn {
  let drawn = 0;
  let [c0, r0, c1, r1] = [width, height, -1, -1];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (!marked(x, y)) continue;
      drawn++;
      c0 = Math.min(c0, x);
      c1 = Math.max(c1, x);
      r0 = Math.min(r0, y);
      r1 = Math.max(r1, y);
    }
  return { drawn, extents: drawn ? [c0, r0, c1, r1] : null };
}

/** A capture's pixels that differ from the background (anti-aliased edges included). */
const drawnInCapture = (p: Picture): Drawn =>
  drawnWhere(p.width, p.height, (x, y) =>
    rgbAt(p, x, y).some((v, i) => Math.abs(v - (BACKGROUND_RGB[i] as number)) > 10),
  );

/** A plotted page's pixels darker than the paper. */
const drawnOnPage = (g: Gray): Drawn =>
  drawnWhere(g.width, g.height, (x, y) => g.at(x, y) < (245 * g.maxval) / 255);

/** Problems of a picture framed on what it draws: something drawn, not touching any edge. */
function framed(got: Drawn, shot: { width: number; height: number }): string[] {
  if (!got.extents) return ['nothing drawn'];
  const [c0, r0, c1, r1] = got.extents;
  return c0 > 0 && r0 > 0 && c1 < shot.width - 1 && r1 < shot.height - 1
    ? []
    : [`drawn ${JSON.stringify(got.extents)} reaches the edge of ${shot.width}x${shot.height}`];
}

/** The area to draw: a box with a twentieth of its size around it (a unit around a single point). */
function windowAround([min, max]: [number[], number[]]): number[] {
  const [x0, y0, x1, y1] = [min[0], min[1], max[0], max[1]] as number[] as [number, number, number, number];
  const size = Math.max(x1 - x0, y1 - y0);
  const m = size > 0 ? size / 20 : 1;
  return [x0 - m, y0 - m, x1 + m, y1 + m];
}

/** What is expected where: the pixels ezdxf's picture covers, or the pixels its box falls on. */
interface Expected {
  /** The columns and rows of the drawing, fractional where they come from the box. */
  extents: [number, number, number, number];
  /** Pixels ezdxf's own picture covers; undefined when compared with the box. */
  drawn?: number;
  what: string;
}

/** Differences of what was drawn from what was expected, shifted by (dx, dy) pixels: none is a pass. */
function differences(got: Drawn, expected: Expected, dx = 0, dy = 0, slack = 1): string[] {
  if (!got.extents) return [`nothing drawn; ${expected.what} covers ${JSON.stringify(expected.extents)}`];
  const want = expected.extents.map((v, i) => v + (i % 2 === 0 ? dx : dy));
  const out: string[] = [];
  const names = ['left column', 'top row', 'right column', 'bottom row'];
  got.extents.forEach((v, i) => {
    // A box's edge is where a pixel starts: the pixel it falls in, or its neighbour for anti-aliasing.
    const w = want[i] as number;
    const ok =
      expected.drawn === undefined
        ? v >= Math.floor(w) - 1 && v <= Math.floor(w) + 1
        : Math.abs(v - w) <= slack;
    if (!ok) out.push(`${names[i]} ${v}, ${expected.what} ${w.toFixed(1)}`);
  });
  // Coverage says little of a drawing of a few pixels (a point is one pixel here, a marker in ezdxf's).
  if (expected.drawn !== undefined && expected.drawn >= 50) {
    const ratio = got.drawn / expected.drawn;
    if (!(ratio >= 0.25 && ratio <= 4))
      out.push(`${got.drawn} pixels drawn, ${expected.what} ${expected.drawn} (ratio ${ratio.toFixed(2)})`);
  }
  return out;
}

let h: Harness;
const oracle = new EzdxfOracle();
let draws = false;
let scratch: string;
beforeAll(async () => {
  h = await startHarness();
  scratch = await mkdtemp(join(tmpdir(), 'chronicle-corpus-'));
  if (!ezdxfUnavailable) draws = (await oracle.ask<{ draws: boolean }>({ op: 'hello' })).draws;
  if (!draws)
    console.log('ezdxf cannot draw here (no matplotlib): captures are compared with its bounding box');
});
afterAll(async () => {
  oracle.close();
  await h.close();
  await rm(scratch, { recursive: true, force: true });
});

interface Shot {
  data: string;
  width: number;
  height: number;
  window: [number, number, number, number];
  entities: number;
}

/** The capture of a window (or of the extents), decoded. */
async function capture(doc: number, window?: number[]): Promise<{ shot: Shot; picture: Picture }> {
  const answer = await h.ok('capture', {
    document_id: doc,
    width: WIDTH,
    background: BACKGROUND,
    ...(window ? { window } : {}),
  });
  const shot = resultOf<Shot>(answer);
  return { shot, picture: decodePng(Buffer.from(shot.data, 'base64')) };
}

/** What ezdxf draws over the shot's window, or where its box falls there. */
async function expectedIn(
  name: string,
  recover: boolean,
  shot: Shot,
  bounds: [number[], number[]] | null,
): Promise<Expected | undefined> {
  const [wx0, , wx1, wy1] = shot.window;
  if (draws) {
    const cannot = EZDXF_CANNOT_DRAW[name];
    const request = {
      op: 'raster',
      path: corpusPath(name),
      recover,
      window: shot.window,
      width: shot.width,
      height: shot.height,
    };
    if (cannot) {
      await expect(
        oracle.ask(request),
        `${name}: ezdxf draws it now: update EZDXF_CANNOT_DRAW`,
      ).rejects.toThrow(cannot);
      return undefined;
    }
    const theirs = await oracle.ask<Drawn>(request);
    return theirs.extents
      ? { extents: theirs.extents, drawn: theirs.drawn, what: "ezdxf's drawing add-on" }
      : undefined;
  }
  if (!bounds) return undefined;
  const s = shot.width / (wx1 - wx0);
  const [[bx0, by0], [bx1, by1]] = bounds as [[number, number], [number, number]];
  return {
    extents: [(bx0 - wx0) * s, (wy1 - by1) * s, (bx1 - wx0) * s, (wy1 - by0) * s],
    what: "ezdxf's bounding box",
  };
}

/** Per file: the document and what both checks compare with, found once. */
interface Case {
  doc: number;
  shot: Shot;
  picture: Picture;
  expected: Expected | undefined;
  /** ezdxf finds nothing in model space: nothing is to be drawn or plotted. */
  empty: boolean;
}

/** The problems of one check, or what a known failure must still show. */
async function expectCheck(name: string, check: Check, problems: () => Promise<string[]>): Promise<void> {
  const against: Against = draws ? 'raster' : 'box';
  const known = KNOWN_FAILURES.find(
    (k) => k.file === name && k.check === check && (k.against === undefined || k.against === against),
  );
  const found = await problems();
  if (known) {
    expect(
      found.length,
      `${name} ${check} passes now (${known.reason}): remove it from KNOWN_FAILURES`,
    ).toBeGreaterThan(0);
    return;
  }
  expect(found.length, `${name}: ${check}: ${found.join('; ')}`).toBe(0);
}

describe('every corpus file is drawn as ezdxf draws it', () => {
  it('has a check for every known failure’s file', () => {
    for (const k of KNOWN_FAILURES) expect(corpusFiles, k.reason).toContain(k.file);
  });

  for (const name of corpusFiles) {
    describe(name, () => {
      const facts = factsOf(name);
      const ezdxfReads = facts !== undefined && readable(facts);
      const recover = ezdxfReads && facts.read === 'recover';
      let c: Case | undefined;
      async function caseOf(ctx: TestContext): Promise<Case> {
        needEzdxf(ctx);
        if (c) return c;
        const opened = await h.ok('open', { path: corpusPath(name) });
        const doc = opened.document_id as number;
        if (!ezdxfReads) {
          // ezdxf cannot read it: compared with chronicle's own extents, framed by the capture.
          const { shot, picture } = await capture(doc);
          c = { doc, shot, picture, expected: undefined, empty: shot.entities === 0 };
          return c;
        }
        const ezdxf = await oracle.ask<{ bounds: [number[], number[]] | null; entities: number }>({
          op: 'extents',
          path: corpusPath(name),
          recover,
        });
        const { shot, picture } = await capture(doc, ezdxf.bounds ? windowAround(ezdxf.bounds) : undefined);
        const expected = ezdxf.entities > 0 ? await expectedIn(name, recover, shot, ezdxf.bounds) : undefined;
        c = { doc, shot, picture, expected, empty: ezdxf.entities === 0 };
        return c;
      }
      afterAll(async () => {
        if (c) await h.ok('close', { document_id: c.doc, discard: true });
      });

      it('capture draws what ezdxf draws', async (ctx: TestContext) => {
        const k = await caseOf(ctx);
        await expectCheck(name, 'capture', async () => {
          const got = drawnInCapture(k.picture);
          if (k.empty) return got.drawn === 0 ? [] : [`${got.drawn} pixels drawn of an empty model space`];
          if (!k.expected) {
            // Nothing of ezdxf's to compare with: the capture frames what it draws (a margin around it).
            return framed(got, k.shot);
          }
          return differences(got, k.expected);
        });
      });

      it('capture of its extents frames everything it draws', async (ctx: TestContext) => {
        const k = await caseOf(ctx);
        await expectCheck(name, 'framing', async () => {
          // The capture without a window shows the extents of what prints, with a margin: nothing drawn
          // may touch the picture's edge (attribute and dimension text included).
          const { shot, picture } = await capture(k.doc);
          const got = drawnInCapture(picture);
          if (k.empty) return got.drawn === 0 ? [] : [`${got.drawn} pixels drawn of an empty model space`];
          return framed(got, shot);
        });
      });

      it('plot draws what ezdxf draws', async (ctx: TestContext) => {
        const k = await caseOf(ctx);
        if (!pdftoppmAvailable()) ctx.skip('pdftoppm (Debian poppler-utils) is not installed');
        await expectCheck(name, 'plot', async () => {
          const path = join(scratch, `${name}.pdf`);
          const [wx0, wy0, wx1, wy1] = k.shot.window;
          // Fitted on A4 landscape (297 x 210 mm), its lower left at the printable area's, 5 mm in.
          const factor = Math.min(287 / (wx1 - wx0), 200 / (wy1 - wy0));
          const answer = await h.call('plot', {
            document_id: k.doc,
            path,
            window: k.shot.window,
            paper: 'A4',
            orientation: 'landscape',
            fit: true,
            center: false,
            overwrite: true,
          });
          if (k.empty)
            return answer.code === 'nothing_to_plot'
              ? []
              : [`plot of nothing answered ${answer.code ?? 'ok'}`];
          if (!answer.ok) return [`plot: ${answer.code}: ${answer.error}`];
          // At this resolution a drawing unit is as many pixels as in the capture.
          const dpi = ((k.shot.width / (wx1 - wx0)) * 25.4) / factor;
          const got = drawnOnPage(await renderPdf(path, dpi));
          const margin = (5 * dpi) / 25.4;
          const dy = (210 * dpi) / 25.4 - margin - k.shot.height;
          if (!k.expected) return got.extents ? [] : ['nothing drawn'];
          // The page's pixels are not the capture's: its edges may fall a pixel either way more, and the pen
          // (0.25 mm, the default lineweight) reaches half its width beyond the line.
          const slack = 2 + (0.125 * dpi) / 25.4;
          return differences(got, k.expected, margin, dy, slack).map(
            (p) => `${p} (at ${dpi.toFixed(0)} dpi)`,
          );
        });
      });
    });
  }
});
