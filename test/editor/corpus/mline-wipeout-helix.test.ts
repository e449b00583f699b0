/**
 * MLINE, WIPEOUT and HELIX (kept as their tags) as geometry. netDxf's 2018 sample (a real file: two
 * MLINEs of the STANDARD style, one with a break, and a polygonal WIPEOUT) and a file ezdxf makes (an
 * MLINE of a style of its own — four elements, fill, miters, round caps — a closed one, a HELIX, a
 * WIPEOUT without a frame) are read as ezdxf reads them, bounded, found by every spatial filter, moved,
 * rotated, scaled by -0.5 and mirrored as ezdxf's transform(Matrix44) does (within 1e-9, the oracle
 * scripts/dxf-transform-oracle.py), taken back by the inverse steps, and drawn: an MLINE's elements at
 * their offsets, a HELIX as its spline, a WIPEOUT masking what was drawn before it (capture and plot).
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { helixReadout, transformHelix } from '../../../src/editor/geometry/helix.js';
import {
  type Matrix,
  mirroring,
  rotation,
  scaling,
  translation,
} from '../../../src/editor/geometry/matrix.js';
import { readMline, STANDARD_MLINE_STYLE, transformMline } from '../../../src/editor/geometry/mline.js';
import { transformWipeout, wipeoutBoundary } from '../../../src/editor/geometry/wipeout.js';
import type { RawEntity } from '../../../src/editor/model.js';
import { decodePng, type Picture, reddish, rgbAt } from '../capture/pixels.js';
import { needEzdxf, python, resultOf } from '../dispatcher/helpers.js';
import { needPdftoppm, renderPdf } from '../plot/pixels.js';
import { corpusPath, STEPS, transformedByEzdxf, typeBench } from './corpus.js';

const TYPES = ['MLINE', 'WIPEOUT', 'HELIX'];

const MADE_BY_EZDXF = `
import sys, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
style = doc.mline_styles.new("WALL4")
style.dxf.flags = 1 + 2 + 64 + 1024
style.dxf.fill_color = 3
style.dxf.start_angle = 60
style.dxf.end_angle = 120
for offset, color in ((2, 1), (0.75, 1), (-0.75, 5), (-2, 5)):
    style.elements.append(offset, color)
open_one = msp.add_mline([(0, 0), (40, 0), (60, 25), (60, 50)], dxfattribs={"style_name": "WALL4", "scale_factor": 1.5, "justification": 2})
open_one.dxf.style_handle = style.dxf.handle
open_one.update_geometry()
closed = msp.add_mline([(100, 0), (140, 0), (140, 30), (100, 30)], close=True, dxfattribs={"scale_factor": 4, "justification": 1})
helix = msp.add_helix(radius=10, pitch=5, turns=2.5, dxfattribs={"color": 1})
helix.transform(ezdxf.math.Matrix44.translate(200, 20, 0))
msp.add_wipeout([(250, 0), (290, 0), (280, 40), (250, 30)])
doc.set_wipeout_variables(frame=0)
doc.saveas(sys.argv[1])
print("{}")
`;

type Fields = Record<string, unknown>;
type Expected = { before: Fields; after: Fields };

const bench = typeBench();

async function ours(doc: number): Promise<Array<RawEntity & Fields>> {
  const answer = await bench.h.ok('query', { document_id: doc, detail: 'full', limit: 1000 });
  return (answer.entities as Array<RawEntity & Fields>).filter(
    (e) => e.type === 'Raw' && TYPES.includes(e.dxf_type) && e.space === '*Model_Space',
  );
}

/** What chronicle answers of an entity, in the oracle's fields. */
function view(e: RawEntity & Fields): Fields {
  if (e.dxf_type === 'MLINE') {
    const m = readMline(e);
    return { type: 'MLINE', scale: m.scale, extrusion: m.extrusion, vertices: e.vertices };
  }
  if (e.dxf_type === 'WIPEOUT')
    return {
      type: 'WIPEOUT',
      position: e.position,
      u_vector: e.u_vector,
      v_vector: e.v_vector,
      boundary: e.boundary,
    };
  const spline = e.tags.filter((t) => t.code === 40);
  const helixAt = e.tags.findIndex((t) => t.code === 100 && t.value === 'AcDbHelix');
  return {
    type: 'HELIX',
    control_points: e.control_points,
    knots: spline.filter((t) => e.tags.indexOf(t) < helixAt).map((t) => Number(t.value)),
    axis_base_point: e.axis_base_point,
    start_point: e.start_point,
    axis_vector: e.axis_vector,
    radius: e.radius,
  };
}

/** Every number of `actual` within 1e-9 of `expected` (relative above 1), by path. */
function differences(expected: unknown, actual: unknown, path: string, out: string[]): void {
  if (typeof expected === 'number') {
    if (
      !(typeof actual === 'number' && Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)))
    )
      out.push(`${path}: ezdxf ${expected}, chronicle ${JSON.stringify(actual)}`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      out.push(`${path}: ezdxf ${JSON.stringify(expected)}, chronicle ${JSON.stringify(actual)}`);
      return;
    }
    expected.forEach((v, i) => {
      differences(v, actual[i], `${path}[${i}]`, out);
    });
    return;
  }
  if (expected && typeof expected === 'object') {
    for (const [k, v] of Object.entries(expected))
      differences(v, (actual as Fields | undefined)?.[k], `${path}.${k}`, out);
    return;
  }
  if (expected !== actual)
    out.push(`${path}: ezdxf ${JSON.stringify(expected)}, chronicle ${JSON.stringify(actual)}`);
}

async function oracle(path: string): Promise<Expected[]> {
  return (await transformedByEzdxf(path, STEPS)).filter((e) => TYPES.includes(String(e.before.type)));
}

/** Opens `path`, compares its MLINEs, WIPEOUTs and HELIXes with ezdxf's before and after STEPS. */
async function sameAsEzdxf(path: string, types: string[]): Promise<number> {
  const expected = await oracle(path);
  expect(expected.map((e) => e.before.type)).toEqual(types);
  const doc = await bench.open(path);
  const before = await ours(doc);
  const read: string[] = [];
  before.forEach((e, i) => {
    differences((expected[i] as Expected).before, view(e), `read #${i}`, read);
  });
  expect(read).toEqual([]);
  const handles = before.map((e) => e.handle);
  for (const step of STEPS) {
    const answer = await bench.h.ok('entities_transform', { document_id: doc, handles, ...step });
    expect(resultOf<{ not_transformable: unknown[] }>(answer).not_transformable).toEqual([]);
  }
  const after = await ours(doc);
  const moved: string[] = [];
  after.forEach((e, i) => {
    differences((expected[i] as Expected).after, view(e), `transformed #${i}`, moved);
  });
  expect(moved).toEqual([]);
  await bench.h.ok('close', { document_id: doc, discard: true });
  return expected.length;
}

describe('MLINE, WIPEOUT and HELIX', () => {
  it('netDxf’s 2018 sample: its MLINEs and WIPEOUT read and transformed as ezdxf does', async (ctx: TestContext) => {
    needEzdxf(ctx);
    expect(await sameAsEzdxf(corpusPath('netdxf-sample-2018.dxf'), ['MLINE', 'MLINE', 'WIPEOUT'])).toBe(3);
  });

  it('a file ezdxf makes: styled, closed MLINEs, a HELIX and a WIPEOUT, as ezdxf does', async (ctx: TestContext) => {
    const made = await bench.write(ctx, MADE_BY_EZDXF, 'mline-helix-wipeout.dxf');
    expect(await sameAsEzdxf(made, ['MLINE', 'MLINE', 'HELIX', 'WIPEOUT'])).toBe(4);
  });

  it('bounds an MLINE by what its style draws: round caps too, as ezdxf’s parts of it', async (ctx: TestContext) => {
    const made = await bench.write(ctx, MADE_BY_EZDXF, 'mline-helix-wipeout.dxf');
    // The exact box of ezdxf's virtual LINEs and ARCs of each MLINE (its renderer's, caps included).
    const expected = await python<Array<[number[], number[]]>>(
      `
import sys, json, ezdxf
from ezdxf.math import BoundingBox
doc = ezdxf.readfile(sys.argv[1])
out = []
for m in doc.modelspace().query("MLINE"):
    box = BoundingBox()
    for part in m.virtual_entities():
        if part.dxftype() == "LINE":
            box.extend([part.dxf.start, part.dxf.end])
        elif part.dxftype() == "ARC":
            arc = part.construction_tool()
            box.extend([arc.bounding_box.extmin, arc.bounding_box.extmax])
    out.append([list(box.extmin)[:2], list(box.extmax)[:2]])
print(json.dumps(out))
`,
      [made],
    );
    const doc = await bench.open(made);
    const mlines = (await bench.h.ok('query', { document_id: doc, detail: 'full', type: 'MLINE' }))
      .entities as Array<{
      bounds: { min: number[]; max: number[] };
    }>;
    const out: string[] = [];
    mlines.forEach((m, i) => {
      differences(
        expected[i],
        [m.bounds.min.slice(0, 2), m.bounds.max.slice(0, 2)],
        `MLINE #${i} bounds`,
        out,
      );
    });
    expect(out).toEqual([]);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('answers defining points and bounds, and every spatial filter finds them', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const doc = await bench.open(corpusPath('netdxf-sample-2018.dxf'));
    const geometry = (
      await bench.h.ok('query', { document_id: doc, detail: 'geometry', handles: ['3A9', '5DB'] })
    ).entities as Fields[];
    // The MLINE's reference line, the WIPEOUT's polygon in the world (netDxf's boundary, placed as ezdxf does).
    expect(((geometry[0] as Fields).vertices as Fields[]).map((v) => v.location)).toEqual([
      [110, -50, 0],
      [190, -50, 0],
    ]);
    expect(geometry[1]?.boundary).toEqual([
      [910, -90, 0],
      [990, -80, 0],
      [950, -50, 0],
      [990, -10, 0],
      [920, -20, 0],
      [910, -90, 0],
    ]);
    const full = (await bench.h.ok('query', { document_id: doc, detail: 'full', handles: ['3A9', '5DB'] }))
      .entities as Array<{
      bounds: { min: number[]; max: number[] };
    }>;
    // Elements at ±7.5 of y = -50 (STANDARD's ±0.5 by the scale 15); the polygon's box.
    expect(full[0]?.bounds).toEqual({ min: [110, -57.5, 0], max: [190, -42.5, 0] });
    expect(full[1]?.bounds).toEqual({ min: [910, -90, 0], max: [990, -10, 0] });
    const handlesOf = async (filter: Fields) =>
      (
        (await bench.h.ok('query', { document_id: doc, detail: 'summary', ...filter })).entities as Fields[]
      ).map((e) => e.handle);
    expect(await handlesOf({ bounds: [100, -60, 200, -40] })).toContain('3A9');
    expect(await handlesOf({ near: [150, -57, 1] })).toContain('3A9');
    // Inside the polygon, not inside its box only.
    expect(await handlesOf({ contains_point: [930, -40] })).toContain('5DB');
    expect(await handlesOf({ contains_point: [985, -40] })).not.toContain('5DB');
    // The line from (700, 0) to (800, 100) misses both; the MLINE 3A8 (x = 110 ± 20) crosses 3A9's elements.
    expect(await handlesOf({ intersections: ['3A9'] })).toContain('3A8');
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('draws the elements at their offsets, the helix as its spline, and a wipeout over what lies under it', async (ctx: TestContext) => {
    const path = await bench.write(
      ctx,
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
msp.add_line((0, 10), (100, 10), dxfattribs={"color": 1})
# Its elements are BYLAYER (STANDARD's): drawn in its layer's colour, as ezdxf draws them.
doc.layers.add("RED", color=1)
msp.add_mline([(0, 60), (100, 60)], dxfattribs={"layer": "RED", "scale_factor": 20, "justification": 1})
msp.add_wipeout([(20, 0), (40, 0), (40, 20), (20, 20)])
msp.add_line((60, 0), (60, 30), dxfattribs={"color": 1})
msp.add_wipeout([(55, 25), (65, 25), (65, 35), (55, 35)])
helix = msp.add_helix(radius=10, pitch=2, turns=3, dxfattribs={"color": 1})
helix.transform(ezdxf.math.Matrix44.translate(150, 40, 0))
doc.set_wipeout_variables(frame=0)
doc.saveas(sys.argv[1])
print("{}")
`,
      'drawn.dxf',
    );
    const doc = await bench.open(path);
    // 2 pixels a unit, y up: (x, y) is at column 2·(x + 10), row 2·(90 − y).
    const shot = resultOf<{ data: string }>(
      await bench.h.ok('capture', { document_id: doc, width: 360, window: [-10, -10, 170, 90] }),
    );
    const picture = decodePng(Buffer.from(shot.data, 'base64'));
    const red = (x: number, y: number) => near(picture, 2 * (x + 10), 2 * (90 - y));
    // The MLINE's two elements at ±10 of its reference line (y = 60), nothing on the line itself.
    expect(red(50, 70)).toBe(true);
    expect(red(50, 50)).toBe(true);
    expect(red(50, 60)).toBe(false);
    // The line under the first wipeout is hidden inside it, shown either side.
    expect(red(10, 10)).toBe(true);
    expect(red(30, 10)).toBe(false);
    expect(red(50, 10)).toBe(true);
    // The vertical line before the second wipeout: hidden in it above y = 25, shown below.
    expect(red(60, 15)).toBe(true);
    expect(red(60, 30)).toBe(false);
    // The helix seen from above: its circle of radius 10 about (150, 40), not its centre.
    expect(red(160, 40)).toBe(true);
    expect(red(150, 50)).toBe(true);
    expect(red(150, 40)).toBe(false);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('draws a styled MLINE: elements in their colours, the fill between them, round caps past its ends', async (ctx: TestContext) => {
    const path = await bench.write(
      ctx,
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
style = doc.mline_styles.new("BANDS")
style.dxf.flags = 1 + 64 + 1024
style.dxf.fill_color = 3
style.elements.append(10, 1)
style.elements.append(-10, 5)
m = doc.modelspace().add_mline([(20, 40), (120, 40)], dxfattribs={"style_name": "BANDS", "justification": 1})
m.dxf.style_handle = style.dxf.handle
m.update_geometry()
doc.saveas(sys.argv[1])
print("{}")
`,
      'styled.dxf',
    );
    const doc = await bench.open(path);
    const shot = resultOf<{ data: string }>(
      await bench.h.ok('capture', { document_id: doc, width: 280, window: [0, 0, 140, 80] }),
    );
    const picture = decodePng(Buffer.from(shot.data, 'base64'));
    // 2 pixels a unit, y up.
    const rgb = (x: number, y: number) => rgbAt(picture, Math.round(2 * x), Math.round(2 * (80 - y)));
    const green = ([r, g, b]: readonly number[]) =>
      (g as number) > (r as number) + 50 && (g as number) > (b as number) + 50;
    const blue = ([r, g, b]: readonly number[]) =>
      (b as number) > (r as number) + 50 && (b as number) > (g as number) + 50;
    // The red element at +10, the blue one at -10 of the reference line y = 40.
    expect(near(picture, 2 * 70, 2 * (80 - 50))).toBe(true);
    expect(blue(rgb(70, 30))).toBe(true);
    // Filled between them in the style's fill colour (green), and inside the round caps.
    expect(green(rgb(70, 40))).toBe(true);
    expect(green(rgb(15, 40))).toBe(true);
    expect(green(rgb(125, 40))).toBe(true);
    // The caps are half circles of radius 10 about the ends: their ends' far points are drawn, not beyond.
    expect(green(rgb(5, 40))).toBe(false);
    expect(green(rgb(135, 40))).toBe(false);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('draws a broken element with its gap (netDxf’s MLINE 3A8)', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const doc = await bench.open(corpusPath('netdxf-sample-2018.dxf'));
    const shot = resultOf<{ data: string }>(
      await bench.h.ok('capture', { document_id: doc, width: 400, window: [100, -100, 200, 0] }),
    );
    const picture = decodePng(Buffer.from(shot.data, 'base64'));
    // 4 pixels a unit.
    const rgb = (x: number, y: number) => rgbAt(picture, Math.round(4 * (x - 100)), Math.round(4 * -y));
    // Layer2's colour (ACI 65) on the background: anything 25 levels off the background is ink.
    const empty = rgb(150, -75);
    const inked = (x: number, y: number) =>
      [-1, 0, 1].some((d) => rgb(x + d / 4, y).some((c, i) => Math.abs(c - (empty[i] as number)) > 25));
    // Its second element (x = 130, from y = -90 to -10) is drawn from its start to 32.5 along it, then
    // from 47.5 on: a gap from y = -57.5 to -42.5. Its first element (x = 110) has none.
    expect(inked(130, -75)).toBe(true);
    expect(inked(130, -25)).toBe(true);
    expect(inked(130, -50)).toBe(false);
    expect(inked(110, -50)).toBe(true);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('plots a wipeout masking the line under it (PDF)', async (ctx: TestContext) => {
    needPdftoppm(ctx);
    const path = await bench.write(
      ctx,
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
msp.add_lwpolyline([(0, 0), (100, 0), (100, 100), (0, 100)], close=True, dxfattribs={"lineweight": 100})
msp.add_line((0, 50), (100, 50), dxfattribs={"lineweight": 100})
msp.add_wipeout([(40, 40), (60, 40), (60, 60), (40, 60)])
doc.set_wipeout_variables(frame=0)
doc.saveas(sys.argv[1])
print("{}")
`,
      'masked.dxf',
    );
    const doc = await bench.open(path);
    const pdf = bench.path('masked.pdf');
    await bench.h.ok('plot', { document_id: doc, path: pdf });
    const gray = await renderPdf(pdf, 50);
    // The 100 x 100 square fitted to the sheet's height: find the horizontal line's row by its darkness
    // left of the wipeout, then check the wipeout's middle of that row is paper-white.
    const dark = (x: number, y: number) => gray.at(x, y) < gray.maxval / 2;
    const rows = Array.from({ length: gray.height }, (_, y) => y);
    const lineRows = rows.filter((y) => {
      let n = 0;
      for (let x = 0; x < gray.width; x++) if (dark(x, y)) n++;
      return n > gray.width / 8;
    });
    // The square's top and bottom and the line through its middle: three bands of dark rows.
    const middle = lineRows[Math.floor(lineRows.length / 2)] as number;
    const darkColumns = Array.from({ length: gray.width }, (_, x) => x).filter((x) => dark(x, middle));
    const left = Math.min(...darkColumns);
    const right = Math.max(...darkColumns);
    const at = (f: number) => Math.round(left + (right - left) * f);
    expect(dark(at(0.25), middle)).toBe(true);
    expect(dark(at(0.5), middle)).toBe(false);
    expect(dark(at(0.75), middle)).toBe(true);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('transformed then transformed back is itself within 1e-9, per type', () => {
    const wipeout: RawEntity = raw('WIPEOUT', [
      [100, 'AcDbWipeout'],
      [10, 5],
      [20, -2],
      [30, 0],
      [11, 30],
      [21, 4],
      [31, 0],
      [12, -4],
      [22, 30],
      [32, 0],
      [13, 1],
      [23, 1],
      [71, 2],
      [91, 4],
      [14, -0.5],
      [24, 0.5],
      [14, 0.5],
      [24, 0.25],
      [14, 0.25],
      [24, -0.5],
      [14, -0.5],
      [24, 0.5],
    ]);
    const helix: RawEntity = raw('HELIX', [
      [100, 'AcDbSpline'],
      [70, 0],
      [71, 3],
      ...[0, 0, 0, 0, 1, 1, 1, 1].map((k): [number, number] => [40, k]),
      ...[
        [10, 0, 0],
        [10, 10, 1],
        [0, 10, 2],
        [-10, 0, 3],
      ].flatMap(
        ([x, y, z]): Array<[number, number]> => [
          [10, x as number],
          [20, y as number],
          [30, z as number],
        ],
      ),
      [100, 'AcDbHelix'],
      [10, 0],
      [20, 0],
      [30, 0],
      [11, 10],
      [21, 0],
      [31, 0],
      [12, 0],
      [22, 0],
      [32, 1],
      [40, 10],
      [41, 1],
      [42, 4],
    ]);
    const mline: RawEntity = raw('MLINE', [
      [100, 'AcDbMline'],
      [2, 'STANDARD'],
      [40, 3],
      [70, 1],
      [71, 1],
      [72, 3],
      [73, 2],
      [10, 0],
      [20, 0],
      [30, 0],
      [210, 0],
      [220, 0],
      [230, 1],
      ...[
        [0, 0],
        [40, 5],
        [55, 30],
      ].flatMap(
        ([x, y]): Array<[number, number | string]> => [
          [11, x as number],
          [21, y as number],
          [31, 0],
          [12, 1],
          [22, 0],
          [32, 0],
          [13, 0],
          [23, 1],
          [33, 0],
          [74, 2],
          [41, 1.5],
          [41, 0],
          [75, 0],
          [74, 2],
          [41, -1.5],
          [41, 0],
          [75, 0],
        ],
      ),
    ]);
    const steps: Array<[Matrix, Matrix]> = [
      [translation([12.5, -3.25, 4]), translation([-12.5, 3.25, -4])],
      [rotation([1, 2], 33), rotation([1, 2], -33)],
      [scaling([3, 4, 0], -0.5), scaling([3, 4, 0], -2)],
      [mirroring([0, 0], [1, 2]), mirroring([0, 0], [1, 2])],
    ];
    // The MLINE regenerated once from its reference line (as ezdxf's transform does) is the reference.
    const settled = transformMline(mline, translation([0, 0, 0]), STANDARD_MLINE_STYLE);
    for (const [m, back] of steps) {
      const out: string[] = [];
      const w = transformWipeout(transformWipeout(wipeout, m), back);
      differences(wipeoutBoundary(wipeout), wipeoutBoundary(w), 'wipeout', out);
      const hx = transformHelix(transformHelix(helix, m), back);
      differences(helixReadout(helix), helixReadout(hx), 'helix', out);
      const ml = transformMline(transformMline(settled, m, STANDARD_MLINE_STYLE), back, STANDARD_MLINE_STYLE);
      differences(readMline(settled), readMline(ml), 'mline', out);
      expect(out).toEqual([]);
    }
  });
});

/** Whether a red pixel is within a pixel of (column, row). */
function near(p: Picture, column: number, row: number): boolean {
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) {
      const x = Math.round(column + dx);
      const y = Math.round(row + dy);
      if (x >= 0 && y >= 0 && x < p.width && y < p.height && reddish(rgbAt(p, x, y))) return true;
    }
  return false;
}

function raw(type: string, tags: Array<[number, number | string]>): RawEntity {
  return {
    type: 'Raw',
    dxf_type: type,
    handle: 'A1',
    space: '*Model_Space',
    layer: '0',
    color: 256,
    linetype: 'BYLAYER',
    lineweight: -1,
    tags: tags.map(([code, value]) => ({ code, value: String(value) })),
  } as RawEntity;
}
