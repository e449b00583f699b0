/**
 * `plot`: layouts and model space windows to PDF and SVG. The PDF is rendered with pdftoppm and checked
 * to be dark where the entities are and blank where none are; the SVG has one element per entity in its
 * colour; hidden layers print nothing; every refusal has its code and writes no file.
 */
import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it, type TestContext } from 'vitest';
import { darkPixels, needPdftoppm, pdfPages, pdftoppmAvailable, renderPdf } from '../plot/pixels.js';
import {
  dxfText,
  type Harness,
  needEzdxf,
  python,
  resultOf,
  startHarness,
  withHarnessAndDir,
  writeText,
} from './helpers.js';

interface PlotResult {
  path: string;
  format: string;
  layout: string | null;
  window: number[] | null;
  page: { width: number; height: number; units: string };
  paper: string;
  orientation: string;
  scale: string;
  fit: boolean;
  center: boolean;
  page_setup: string;
  entities: number;
  skipped: Record<string, number>;
  bytes: number;
}

/** The elements of an SVG plot that stand for entities: handle, tag and the colour attributes. */
function svgEntities(svg: string): Array<{ handle: string; tag: string; stroke?: string; fill?: string }> {
  return [...svg.matchAll(/<(\w+)[^>]*\bdata-handle="([^"]+)"[^>]*>/g)].map((m) => {
    const element = m[0];
    return {
      tag: m[1] as string,
      handle: m[2] as string,
      ...(/\bstroke="(#[0-9a-f]{6})"/.exec(element)
        ? { stroke: /\bstroke="(#[0-9a-f]{6})"/.exec(element)?.[1] }
        : {}),
      ...(/\bfill="(#[0-9a-f]{6})"/.exec(element)
        ? { fill: /\bfill="(#[0-9a-f]{6})"/.exec(element)?.[1] }
        : {}),
    };
  });
}

/** An A4 landscape sheet at 1:1, the drawing's lower-left corner at the printable area's (5 mm in). */
async function a4OneToOne(h: Harness, doc: number, layout = 'Model') {
  await h.ok('page_setup_set', {
    document_id: doc,
    layout,
    paper: 'ISO A4',
    orientation: 'landscape',
    scale: '1:1',
    fit: false,
    center: false,
  });
}

/** A drawing with a viewport on Layout1 (ezdxf): the handles of what the test looks for. */
const VIEWPORT_DXF = `
import sys, json, ezdxf
doc = ezdxf.new("R2010")
doc.layers.add("SHOWN", color=1)
doc.layers.add("HIDDEN", color=5)
doc.layers.add("VPORTS", color=3)
msp = doc.modelspace()
shown = msp.add_line((0, 0), (100, 50), dxfattribs={"layer": "SHOWN"})
hidden = msp.add_line((0, 50), (100, 0), dxfattribs={"layer": "HIDDEN"})
far = msp.add_circle((500, 500), 5, dxfattribs={"layer": "SHOWN"})
layout = doc.layouts.get("Layout1")
vp = layout.add_viewport(center=(150, 100), size=(100, 50), view_center_point=(50, 25), view_height=50,
                         dxfattribs={"layer": "VPORTS"})
vp.frozen_layers = ["HIDDEN"]
doc.saveas(sys.argv[1])
print(json.dumps({"viewport": vp.dxf.handle, "shown": shown.dxf.handle, "hidden": hidden.dxf.handle,
                  "far": far.dxf.handle}))
`;

/** Two images (ezdxf): a 4 x 4 PNG (black.png, its top half black) by a name relative to the drawing, 100 units square, and a missing file. */
const IMAGES_DXF = `
import sys, json, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
shown_def = doc.add_image_def(filename="black.png", size_in_pixel=(4, 4))
shown = msp.add_image(shown_def, insert=(0, 0), size_in_units=(100, 100))
missing_def = doc.add_image_def(filename="/nowhere/missing.png", size_in_pixel=(4, 4))
missing = msp.add_image(missing_def, insert=(200, 0), size_in_units=(100, 100))
doc.saveas(sys.argv[1])
print(json.dumps({"shown": shown.dxf.handle, "missing": missing.dxf.handle}))
`;

/** A greyscale PNG of `width` x `height` pixels: its top half black, its bottom half white. */
function topBlackPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  // Each row: filter byte 0, then one byte per pixel.
  const rows = Buffer.alloc((width + 1) * height, 0);
  for (let y = height / 2; y < height; y++) rows.fill(255, y * (width + 1) + 1, (y + 1) * (width + 1));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('plot to PDF', () => {
  it('draws a line on the left half of the page and nothing on the right; records PlotWritten, no undo step', async (ctx: TestContext) => {
    needPdftoppm(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await a4OneToOne(h, doc);
      // 1:1, the extents' lower-left corner 5 mm in: x 5..125 mm of 297, y 5..10 mm up a 210 mm sheet.
      await h.create([
        { type: 'line', start: [0, 40], end: [120, 40], color: 7, lineweight: 100 },
        { type: 'line', start: [0, 45], end: [120, 45], color: 1, lineweight: 100 },
      ]);
      const revision = await h.revision();
      const path = dir.path('left.pdf');
      const answer = await h.ok('plot', { document_id: doc, path });
      const result = resultOf<PlotResult>(answer);
      expect(result).toMatchObject({
        path,
        format: 'pdf',
        layout: 'Model',
        window: null,
        page: { width: 297, height: 210, units: 'mm' },
        paper: 'ISO A4',
        orientation: 'landscape',
        scale: '1:1',
        fit: false,
        entities: 2,
      });
      const bytes = await readFile(path);
      expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(result.bytes).toBe(bytes.length);
      expect(pdfPages(bytes)).toBe(1);
      const gray = await renderPdf(path);
      // 297 x 210 mm at 30 dpi.
      expect(gray.width).toBeGreaterThan(340);
      expect(gray.width).toBeLessThan(360);
      expect(gray.width).toBeGreaterThan(gray.height);
      const band = { y0: 1 - 16 / 210, y1: 1 - 1 / 210 };
      expect(darkPixels(gray, { x0: 0, x1: 0.5, ...band }, 200)).toBeGreaterThan(50);
      expect(darkPixels(gray, { x0: 0.5, x1: 1, y0: 0, y1: 1 }, 250)).toBe(0);
      expect(darkPixels(gray, { x0: 0, x1: 1, y0: 0, y1: band.y0 - 0.03 }, 250)).toBe(0);
      expect(await h.revision()).toBe(revision);
      const events = (await h.events()).filter((e) => e.type === 'PlotWritten');
      expect(events).toHaveLength(1);
      expect(events[0]?.data).toEqual({
        document_id: doc,
        path,
        format: 'pdf',
        bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        entities: 2,
        layout: 'Model',
        window: null,
      });
      // A plot is not a step: undo takes back the last line, not the plot.
      const undone = await h.call('undo', { document_id: doc });
      expect(undone.ok).toBe(true);
    });
  });

  it('draws text as text at its position, height and rotation', async (ctx: TestContext) => {
    needPdftoppm(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await a4OneToOne(h, doc);
      // Capitals 20 mm tall on the baseline y = 0, and the same turned a quarter to the left at x = 200.
      await h.create([
        { type: 'text', value: 'HHHH', position: [0, 0], height: 20 },
        { type: 'text', value: 'HHHH', position: [200, 0], height: 20, rotation: 90 },
      ]);
      const path = dir.path('text.pdf');
      expect(resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path })).entities).toBe(2);
      const bytes = await readFile(path);
      expect(pdfPages(bytes)).toBe(1);
      expect(bytes.toString('latin1')).toContain('/BaseFont /Helvetica');
      const gray = await renderPdf(path, 50);
      // In page fractions: x from the left, y from the top of the 297 x 210 mm sheet.
      const at = (x0: number, x1: number, up0: number, up1: number) => ({
        x0: x0 / 297,
        x1: x1 / 297,
        y0: 1 - up1 / 210,
        y1: 1 - up0 / 210,
      });
      // Upright: from 5 mm in (Helvetica H is 0.72 of its em wide: four of them about 80 mm), 5..25 mm up;
      // nothing under the baseline nor over the capitals.
      expect(darkPixels(gray, at(6, 50, 7, 23))).toBeGreaterThan(200);
      expect(darkPixels(gray, at(0, 180, 0, 4), 250)).toBe(0);
      expect(darkPixels(gray, at(0, 180, 27, 210), 250)).toBe(0);
      // Turned: its baseline is x = 205 mm, the capitals reach left to 185 mm, running up from 5 mm.
      expect(darkPixels(gray, at(187, 203, 7, 45))).toBeGreaterThan(200);
      expect(darkPixels(gray, at(207, 297, 0, 210), 250)).toBe(0);
      expect(darkPixels(gray, at(90, 182, 0, 210), 250)).toBe(0);
    });
  });

  it("draws images from their files (a relative name is the drawing folder's); a missing one as its frame", async (ctx: TestContext) => {
    needEzdxf(ctx);
    needPdftoppm(ctx);
    await withHarnessAndDir(async (h, dir) => {
      await writeFile(dir.path('black.png'), topBlackPng(4, 4));
      const file = dir.path('images.dxf');
      const handles = await python<{ shown: string; missing: string }>(IMAGES_DXF, [file]);
      const doc = (await h.ok('open', { path: file })).document_id as number;
      await h.ok('page_setup_set', {
        document_id: doc,
        layout: 'Model',
        paper: 'ISO A4',
        orientation: 'landscape',
        fit: true,
        center: true,
      });
      const svgPath = dir.path('images.svg');
      expect(resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path: svgPath })).entities).toBe(2);
      const svg = await readFile(svgPath, 'utf8');
      expect(svg).toMatch(
        new RegExp(`<image data-handle="${handles.shown}"[^>]* href="data:image/png;base64,`),
      );
      expect(svg).toMatch(new RegExp(`<path data-handle="${handles.missing}"[^>]* d="M[^"]+Z"`));
      const pdfPath = dir.path('images.pdf');
      await h.ok('plot', { document_id: doc, path: pdfPath });
      const gray = await renderPdf(pdfPath, 50);
      // 300 x 100 units fitted to 287 mm: the image fills 5..100.7 mm across, 57..153 mm down, the
      // file's top rows (black) at the top.
      const at = (x0: number, x1: number, top0: number, top1: number) => ({
        x0: x0 / 297,
        x1: x1 / 297,
        y0: top0 / 210,
        y1: top1 / 210,
      });
      const solid = at(10, 95, 62, 100);
      const area = (b: typeof solid) => (b.x1 - b.x0) * gray.width * (b.y1 - b.y0) * gray.height;
      expect(darkPixels(gray, solid)).toBeGreaterThan(0.95 * area(solid));
      expect(darkPixels(gray, at(10, 95, 110, 148), 250)).toBe(0);
      // The missing image: its frame, empty inside.
      expect(darkPixels(gray, at(200, 287, 62, 148), 250)).toBe(0);
      expect(darkPixels(gray, at(196, 292, 55, 160), 200)).toBeGreaterThan(50);
    });
  });

  it('draws an image file that does not decode as its frame', async (ctx: TestContext) => {
    needEzdxf(ctx);
    await withHarnessAndDir(async (h, dir) => {
      // PNG's signature, then nothing a decoder can use.
      await writeFile(
        dir.path('black.png'),
        Buffer.concat([topBlackPng(4, 4).subarray(0, 8), Buffer.from('junk')]),
      );
      const file = dir.path('images.dxf');
      await python(IMAGES_DXF, [file]);
      const doc = (await h.ok('open', { path: file })).document_id as number;
      const path = dir.path('broken.pdf');
      const result = resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path }));
      expect(result.entities).toBe(2);
      expect((await readFile(path)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    });
  });

  it('fits and centres by the page setup: a drawing far from the origin fills the middle of the sheet', async (ctx: TestContext) => {
    needPdftoppm(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await h.ok('page_setup_set', {
        document_id: doc,
        layout: 'Model',
        paper: 'ANSI A',
        orientation: 'portrait',
        fit: true,
        center: true,
      });
      await h.create([
        { type: 'circle', center: [10000, 10000], radius: 50, lineweight: 50 },
        { type: 'arc', center: [10000, 10000], radius: 25, start_angle: 0, end_angle: 180, lineweight: 50 },
      ]);
      const path = dir.path('fit.pdf');
      const result = resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path }));
      expect(result).toMatchObject({
        paper: 'ANSI A',
        orientation: 'portrait',
        fit: true,
        center: true,
        page: { width: 215.9, height: 279.4, units: 'mm' },
      });
      // The circle's 100 units fit across the printable 205.9 mm: 2.059 mm a unit, 0.081 inch.
      expect(result.scale).toMatch(/^1:12\.33/);
      const gray = await renderPdf(path);
      // The circle's rim crosses the horizontal middle line at the printable area's left and right edges.
      const middle = { y0: 0.49, y1: 0.51 };
      expect(darkPixels(gray, { x0: 0, x1: 0.1, ...middle }, 200)).toBeGreaterThan(0);
      expect(darkPixels(gray, { x0: 0.9, x1: 1, ...middle }, 200)).toBeGreaterThan(0);
      // Inside the circle, below the half arc: blank. Above and below the circle: blank.
      expect(darkPixels(gray, { x0: 0.3, x1: 0.7, y0: 0.52, y1: 0.7 }, 250)).toBe(0);
      expect(darkPixels(gray, { x0: 0, x1: 1, y0: 0, y1: 0.1 }, 250)).toBe(0);
      expect(darkPixels(gray, { x0: 0, x1: 1, y0: 0.9, y1: 1 }, 250)).toBe(0);
    });
  });

  it('plots a window of model space: only what is inside is drawn, clipped to it', async (ctx: TestContext) => {
    needPdftoppm(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await h.ok('page_setup_set', {
        document_id: doc,
        layout: 'Model',
        paper: 'A4',
        orientation: 'landscape',
        fit: true,
        center: true,
      });
      // A long line through the window's lower half, and a circle far outside it.
      await h.create([
        { type: 'line', start: [-1000, 10], end: [1000, 10], lineweight: 50 },
        { type: 'circle', center: [500, 500], radius: 5 },
      ]);
      const path = dir.path('window.pdf');
      const result = resultOf<PlotResult>(
        await h.ok('plot', { document_id: doc, path, window: [100, 0, 0, 50] }),
      );
      expect(result).toMatchObject({ layout: null, window: [0, 0, 100, 50], entities: 1 });
      const gray = await renderPdf(path);
      // A4 landscape: the 100 x 50 window fitted to 287 mm wide is 143.5 mm tall, centred; y = 10 is at 1/5 of it.
      const lineY = (210 / 2 + 143.5 / 2 - 143.5 / 5) / 210;
      expect(darkPixels(gray, { x0: 0.1, x1: 0.9, y0: lineY - 0.02, y1: lineY + 0.02 }, 200)).toBeGreaterThan(
        100,
      );
      // Clipped at the window's edges: nothing left or right of the printable area.
      expect(darkPixels(gray, { x0: 0, x1: 4 / 297, y0: 0, y1: 1 }, 250)).toBe(0);
      expect(darkPixels(gray, { x0: 1 - 4 / 297, x1: 1, y0: 0, y1: 1 }, 250)).toBe(0);
      expect(darkPixels(gray, { x0: 0, x1: 1, y0: 0, y1: lineY - 0.05 }, 250)).toBe(0);
    });
  });
});

describe('plot to SVG', () => {
  it('writes one element per entity with data-handle, in its print colour; a block reference is one group', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      const parts = await h.create([
        { type: 'circle', center: [0, 0], radius: 1, color: 'byblock' },
        { type: 'line', start: [-1, 0], end: [1, 0], color: 1 },
      ]);
      // The parts go into the block; the insert block_define puts in their place is erased below.
      const defined = await h.ok('block_define', {
        document_id: doc,
        name: 'DOT',
        handles: parts,
        base: [0, 0, 0],
      });
      const [red, white, green, text, insert, point] = await h.create([
        { type: 'line', start: [0, 0], end: [10, 0], color: 1 },
        { type: 'line', start: [0, 5], end: [10, 5], color: 7 },
        { type: 'arc', center: [5, 5], radius: 3, start_angle: 0, end_angle: 180, color: 3 },
        { type: 'text', value: 'A < B & "C"', position: [0, 10], height: 2, color: 5 },
        { type: 'insert', name: 'DOT', position: [20, 20], scale: [1, 1, 1], rotation: 0, color: 6 },
        { type: 'point', location: [30, 0], color: 4 },
      ]);
      await h.ok('entities_delete', {
        document_id: doc,
        handles: [resultOf<{ insert: string }>(defined).insert],
      });
      const path = dir.path('colours.svg');
      const result = resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path }));
      expect(result).toMatchObject({ format: 'svg', entities: 6 });
      const svg = await readFile(path, 'utf8');
      expect(result.bytes).toBe(Buffer.byteLength(svg));
      expect(svg).toMatch(
        /^<\?xml[^>]*>\s*<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+(\.\d+)?mm"/,
      );
      const elements = svgEntities(svg);
      expect(elements.map((e) => e.handle)).toEqual([red, white, green, text, insert, point]);
      const by = Object.fromEntries(elements.map((e) => [e.handle, e]));
      expect(by[red as string]).toMatchObject({ tag: 'path', stroke: '#ff0000' });
      // ACI 7 prints black on white paper.
      expect(by[white as string]).toMatchObject({ tag: 'path', stroke: '#000000' });
      expect(by[green as string]).toMatchObject({ tag: 'path', stroke: '#00ff00' });
      expect(by[text as string]).toMatchObject({ tag: 'text', fill: '#0000ff' });
      expect(svg).toContain('>A &lt; B &amp; &quot;C&quot;</tspan>');
      expect(by[point as string]).toMatchObject({ tag: 'circle', fill: '#00ffff' });
      // The arc is an SVG arc command, not chords.
      expect(svg).toMatch(new RegExp(`data-handle="${green}"[^>]* d="M[^"]*A[^"]*"`));
      // The reference draws its block's BYBLOCK circle in the reference's colour (magenta), as two half arcs.
      const group = new RegExp(`<g data-handle="${insert}"[^>]*>(.*?)</g>`).exec(svg)?.[1] ?? '';
      expect(group).toMatch(/<path d="M[^"]*A[^"]*A[^"]*" stroke="#ff00ff"/);
      expect(group).toMatch(/<path d="M24 395L26 395" stroke="#ff0000"/);
    });
  });

  it('draws linetypes as dash patterns, scaled by LTSCALE and the plot scale', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await a4OneToOne(h, doc);
      const [dashed, dotted, solid] = await h.create([
        { type: 'line', start: [0, 0], end: [200, 0], linetype: 'DASHED', lineweight: 50 },
        { type: 'circle', center: [50, 50], radius: 20, linetype: 'DOT' },
        { type: 'line', start: [0, 100], end: [200, 100] },
      ]);
      const svgPath = dir.path('dashes.svg');
      await h.ok('plot', { document_id: doc, path: svgPath });
      const dashOf = (svg: string, handle: string | undefined) =>
        new RegExp(`data-handle="${handle}"[^>]*?(?: stroke-dasharray="([^"]*)")?/>`).exec(svg)?.[1];
      let svg = await readFile(svgPath, 'utf8');
      // DASHED is 1.27 on, 0.254 off; DOT a dot every 0.508 (drawing units, 1:1 in mm on paper).
      expect(dashOf(svg, dashed)).toBe('1.27 0.254');
      expect(dashOf(svg, dotted)).toBe('0 0.508');
      expect(dashOf(svg, solid)).toBeUndefined();
      await h.ok('sysvar', { document_id: doc, set: { LTSCALE: 10 } });
      await h.ok('plot', { document_id: doc, path: svgPath, overwrite: true });
      svg = await readFile(svgPath, 'utf8');
      expect(dashOf(svg, dashed)).toBe('12.7 2.54');
      if (!pdftoppmAvailable()) return;
      // In the PDF the dashed line has gaps: along its row, light pixels between dark ones.
      const pdfPath = dir.path('dashes.pdf');
      await h.ok('plot', { document_id: doc, path: pdfPath });
      const gray = await renderPdf(pdfPath, 100);
      const row = Math.round((1 - 5 / 210) * gray.height);
      const darkest = (x: number) => Math.min(gray.at(x, row - 1), gray.at(x, row), gray.at(x, row + 1));
      const across = Array.from({ length: Math.round((190 / 297) * gray.width) }, (_, i) =>
        darkest(Math.round((10 / 297) * gray.width) + i),
      );
      const dark = across.filter((v) => v < 128).length;
      const light = across.filter((v) => v > 200).length;
      expect(dark).toBeGreaterThan(across.length * 0.6);
      expect(light).toBeGreaterThan(across.length * 0.08);
    });
  });

  it('leaves out entities on layers that are off, frozen or not plotted, and on Defpoints', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const layer = (
        name: string,
        color: number,
        flags: number,
        extra: Array<[number, string | number]> = [],
      ) =>
        [[0, 'LAYER'], [2, name], [70, flags], [62, color], [6, 'CONTINUOUS'], ...extra] as Array<
          [number, string | number]
        >;
      const line = (handle: string, name: string, y: number) =>
        [
          [0, 'LINE'],
          [5, handle],
          [8, name],
          [62, 256],
          [10, 0],
          [20, y],
          [30, 0],
          [11, 10],
          [21, y],
          [31, 0],
        ] as Array<[number, string | number]>;
      const file = await writeText(
        join(dir.dir, 'layers.dxf'),
        dxfText([
          [0, 'SECTION'],
          [2, 'TABLES'],
          [0, 'TABLE'],
          [2, 'LAYER'],
          [70, 5],
          ...layer('0', 7, 0),
          ...layer('SHOWN', 1, 0),
          ...layer('OFF', -3, 0),
          ...layer('FROZEN', 5, 1),
          ...layer('NOPLOT', 2, 0, [[290, 0]]),
          ...layer('Defpoints', 7, 0),
          [0, 'ENDTAB'],
          [0, 'ENDSEC'],
          [0, 'SECTION'],
          [2, 'ENTITIES'],
          ...line('A1', 'SHOWN', 0),
          ...line('A2', 'OFF', 1),
          ...line('A3', 'FROZEN', 2),
          ...line('A4', 'NOPLOT', 3),
          ...line('A5', 'Defpoints', 4),
          [0, 'ENDSEC'],
          [0, 'EOF'],
        ]),
      );
      const opened = await h.ok('open', { path: file });
      const doc = opened.document_id as number;
      const path = dir.path('layers.svg');
      const result = resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path }));
      expect(result.entities).toBe(1);
      const elements = svgEntities(await readFile(path, 'utf8'));
      expect(elements).toEqual([{ tag: 'path', handle: 'A1', stroke: '#ff0000' }]);
      // Nothing that prints at all: refused, not written blank.
      const hidden = await h.call('plot', {
        document_id: doc,
        path: dir.path('hidden.svg'),
        window: [0, 0.5, 10, 4.5],
      });
      expect(hidden).toMatchObject({ ok: false, code: 'nothing_to_plot' });
    });
  });

  it('draws the attributes a block reference carries, except invisible ones', async () => {
    await withHarnessAndDir(async (h, dir) => {
      // biome-ignore format: DXF group codes read best one pair to a line
      const attrib = (handle: string, tag: string, value: string, flags: number, y: number) =>
        [
          [0, 'ATTRIB'], [5, handle], [8, 'NOTES'], [62, 1], [10, 50], [20, y], [30, 0], [40, 2.5],
          [1, value], [2, tag], [70, flags],
        ] as Array<[number, string | number]>;
      const file = await writeText(
        join(dir.dir, 'attribs.dxf'),
        dxfText([
          [0, 'SECTION'],
          [2, 'BLOCKS'],
          [0, 'BLOCK'],
          [8, '0'],
          [2, 'TAG'],
          [70, 2],
          [10, 0],
          [20, 0],
          [30, 0],
          [3, 'TAG'],
          [0, 'LINE'],
          [5, 'B1'],
          [8, '0'],
          [10, 0],
          [20, 0],
          [30, 0],
          [11, 10],
          [21, 0],
          [31, 0],
          [0, 'ENDBLK'],
          [8, '0'],
          [0, 'ENDSEC'],
          [0, 'SECTION'],
          [2, 'ENTITIES'],
          [0, 'INSERT'],
          [5, 'C1'],
          [8, '0'],
          [66, 1],
          [2, 'TAG'],
          [10, 40],
          [20, 10],
          [30, 0],
          ...attrib('C2', 'NAME', 'Pump 7', 0, 20),
          ...attrib('C3', 'SECRET', 'hidden value', 1, 30),
          [0, 'SEQEND'],
          [5, 'C4'],
          [8, '0'],
          [0, 'ENDSEC'],
          [0, 'EOF'],
        ]),
      );
      const doc = (await h.ok('open', { path: file })).document_id as number;
      const path = dir.path('attribs.svg');
      expect(resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path })).entities).toBe(1);
      const svg = await readFile(path, 'utf8');
      const group = /<g data-handle="C1"[^>]*>(.*?)<\/g>/.exec(svg)?.[1] ?? '';
      expect(group).toMatch(/<path d="M[^"]+L[^"]+" stroke="#000000"/);
      expect(group).toMatch(/<text [^>]*fill="#ff0000"[^>]*>.*Pump 7.*<\/text>/);
      expect(svg).not.toContain('hidden value');
    });
  });

  it('plots a layout with a viewport: the model space it shows, at its scale, cut at its border, without its frozen layers', async (ctx: TestContext) => {
    needEzdxf(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const file = dir.path('viewport.dxf');
      const handles = await python<{ viewport: string; shown: string; hidden: string; far: string }>(
        VIEWPORT_DXF,
        [file],
      );
      const doc = (await h.ok('open', { path: file })).document_id as number;
      await a4OneToOne(h, doc, 'Layout1');
      const path = dir.path('viewport.svg');
      const result = resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path, layout: 'Layout1' }));
      expect(result).toMatchObject({ layout: 'Layout1', entities: 1, scale: '1:1' });
      const svg = await readFile(path, 'utf8');
      const viewport = new RegExp(
        `<g data-handle="${handles.viewport}" data-type="VIEWPORT"[^>]*>(.*)</g>`,
      ).exec(svg)?.[1];
      expect(viewport).toBeDefined();
      // Paper (100, 75)..(200, 125) shows model (0, 0)..(100, 50) at 1:1; the paper origin is 5 mm in.
      expect(viewport).toContain('<rect x="105" y="80" width="100" height="50"/>');
      expect(viewport).toContain('<path d="M105 130L205 80" stroke="#ff0000"');
      // The layer frozen in the viewport and the circle far outside its view are not drawn.
      expect(viewport).not.toContain('M105 80L205 130');
      expect(viewport?.match(/<path /g)).toHaveLength(2); // the diagonal and the border
      const pdf = dir.path('viewport.pdf');
      await h.ok('plot', { document_id: doc, path: pdf, layout: 'Layout1' });
      if (!pdftoppmAvailable()) return;
      const gray = await renderPdf(pdf, 50);
      const at = (x0: number, x1: number, top0: number, top1: number) => ({
        x0: x0 / 297,
        x1: x1 / 297,
        y0: top0 / 210,
        y1: top1 / 210,
      });
      expect(darkPixels(gray, at(110, 200, 82, 128))).toBeGreaterThan(20);
      // Outside the viewport's border: blank, although model space goes on there.
      expect(darkPixels(gray, at(0, 103, 0, 210), 250)).toBe(0);
      expect(darkPixels(gray, at(207, 297, 0, 210), 250)).toBe(0);
    });
  });

  it('plots a paper space layout by its own page setup', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await h.ok('layout_create', { document_id: doc, name: 'Sheet' });
      await h.ok('entities_create', {
        document_id: doc,
        space: '*Paper_Space0',
        entities: [{ type: 'line', start: [20, 30], end: [120, 30], color: 2 }],
      });
      await h.create([{ type: 'circle', center: [0, 0], radius: 5 }]);
      const path = dir.path('sheet.svg');
      const result = resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path, layout: 'sheet' }));
      // layout_create gives a metric drawing's layout ISO A4 landscape, fitted and centred.
      expect(result).toMatchObject({
        layout: 'Sheet',
        paper: 'ISO A4',
        orientation: 'landscape',
        fit: true,
        center: true,
        page_setup: 'layout',
        entities: 1,
      });
      const svg = await readFile(path, 'utf8');
      expect(svgEntities(svg)).toEqual([expect.objectContaining({ tag: 'path', stroke: '#ffff00' })]);
      // Fitted to 287 mm and centred: from 5 mm to 292 mm at mid-height.
      expect(svg).toContain('d="M5 105L292 105"');
      await a4OneToOne(h, doc, 'Sheet');
      const fixed = resultOf<PlotResult>(
        await h.ok('plot', { document_id: doc, path, layout: 'Sheet', overwrite: true }),
      );
      expect(fixed).toMatchObject({ scale: '1:1', fit: false });
      // At 1:1 paper space coordinates are millimetres from the printable area's corner (5 mm in).
      expect(await readFile(path, 'utf8')).toContain('d="M25 175L125 175"');
    });
  });
});

describe('plot refusals', () => {
  it('answers each bad request with its code and writes nothing', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await h.ok('layout_create', { document_id: doc, name: 'Sheet' });
      await h.create([{ type: 'line', start: [0, 0], end: [10, 10] }]);
      const kept = dir.path('kept.pdf');
      await writeFile(kept, 'keep me');
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'invalid_path'],
        [{ path: '' }, 'invalid_path'],
        [{ path: 42 }, 'invalid_path'],
        [{ path: dir.path('a.png') }, 'invalid_format'],
        [{ path: dir.path('noextension') }, 'invalid_format'],
        [{ path: dir.path('a.pdf'), format: 'png' }, 'invalid_format'],
        [{ path: dir.path('a.pdf'), format: 7 }, 'invalid_format'],
        [{ path: dir.path('a.pdf'), layout: 'Nope' }, 'layout_missing'],
        [{ path: dir.path('a.pdf'), layout: 3 }, 'layout_missing'],
        [{ path: dir.path('a.pdf'), window: [0, 0, 1] }, 'invalid_point'],
        [{ path: dir.path('a.pdf'), window: [0, 0, 'x', 1] }, 'invalid_point'],
        [{ path: dir.path('a.pdf'), window: [0, 0, 0, 5] }, 'invalid_point'],
        [{ path: dir.path('a.pdf'), window: [0, 0, 5, 5], layout: 'Sheet' }, 'invalid_request'],
        [{ path: dir.path('a.pdf'), layout: 'Sheet' }, 'nothing_to_plot'],
        [{ path: dir.path('a.pdf'), window: [100, 100, 200, 200] }, 'nothing_to_plot'],
        [{ path: kept }, 'file_exists'],
        [{ path: dir.path('no/such/dir/a.pdf') }, 'plot_failed'],
        [{ path: dir.path('no/such/dir/a.svg') }, 'plot_failed'],
      ];
      for (const [fields, code] of cases) {
        const answer = await h.call('plot', { document_id: doc, ...fields });
        expect(answer, JSON.stringify(fields)).toMatchObject({ ok: false, code });
        expect(answer.error, JSON.stringify(fields)).toEqual(expect.any(String));
      }
      expect(await stat(dir.path('a.pdf')).catch(() => undefined)).toBeUndefined();
      expect(await readFile(kept, 'utf8')).toBe('keep me');
      expect((await h.events()).filter((e) => e.type === 'PlotWritten')).toHaveLength(0);
      // overwrite: true replaces it.
      await h.ok('plot', { document_id: doc, path: kept, overwrite: true });
      expect((await readFile(kept)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
      // format wins over the extension.
      const svg = dir.path('really-svg.pdf');
      expect(
        resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path: svg, format: 'SVG' })).format,
      ).toBe('svg');
      expect(await readFile(svg, 'utf8')).toMatch(/^<\?xml/);
      // A relative path is the service's working directory's; the answer names the absolute path.
      const relativePath = relative(process.cwd(), dir.path('relative.svg'));
      const relativeResult = resultOf<PlotResult>(
        await h.ok('plot', { document_id: doc, path: relativePath }),
      );
      expect(relativeResult.path).toBe(dir.path('relative.svg'));
      expect((await stat(dir.path('relative.svg'))).size).toBe(relativeResult.bytes);
    });
  });

  it('draws only what lands on the sheet at a fixed scale, and refuses a plot with nothing on it', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await a4OneToOne(h, doc);
      // 1:1 from the extents' lower-left corner (0, 0): the line is on the sheet, the point 10 m away is not.
      const [line] = await h.create([
        { type: 'line', start: [0, 0], end: [10, 0] },
        { type: 'point', location: [10000, 1000] },
      ]);
      const path = dir.path('a.svg');
      expect(resultOf<PlotResult>(await h.ok('plot', { document_id: doc, path })).entities).toBe(1);
      expect(svgEntities(await readFile(path, 'utf8')).map((e) => e.handle)).toEqual([line]);
      // A window whose lower-left corner goes 5 mm in: the point inside it is a metre to the right, off the sheet.
      const off = await h.call('plot', {
        document_id: doc,
        path: dir.path('b.svg'),
        window: [9000, 900, 10001, 1001],
      });
      expect(off).toMatchObject({ ok: false, code: 'nothing_to_plot' });
      expect(off.error).toMatch(/fit: true/);
    });
  });

  it('needs a document', async () => {
    const h = await startHarness();
    try {
      const answer = await h.call('plot', { path: '/tmp/never-written.pdf' });
      expect(answer).toMatchObject({ ok: false, code: 'document_required' });
    } finally {
      await h.close();
    }
  });
});

describe('every layout: layout "all", per page or in one PDF (the reference editor publishes so)', () => {
  it('per_page writes one file per layout, a blank sheet for a layout without anything that prints', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await h.create([{ type: 'line', start: [0, 0], end: [100, 80] }]);
      await h.ok('layout_create', { document_id: doc, name: 'PLAN 2' });
      await h.ok('entities_create', {
        document_id: doc,
        space: '*Paper_Space0',
        entities: [{ type: 'circle', center: [50, 50], radius: 20 }],
      });
      const path = dir.path('sheets.pdf');
      const answer = await h.ok('plot', { document_id: doc, path, layout: 'all', per_page: true });
      const { files, pages } = resultOf<{ files: Array<PlotResult & { path: string }>; pages: number }>(
        answer,
      );
      // Model, the template's Layout1 (empty: a blank sheet) and PLAN 2 (its name made safe for a file).
      expect(files.map((f) => [f.layout, f.path, f.entities])).toEqual([
        ['Model', dir.path('sheets-Model.pdf'), 1],
        ['Layout1', dir.path('sheets-Layout1.pdf'), 0],
        ['PLAN 2', dir.path('sheets-PLAN_2.pdf'), 1],
      ]);
      expect(pages).toBe(3);
      for (const file of files) {
        const bytes = await readFile(file.path);
        expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        expect(pdfPages(bytes)).toBe(1);
        expect(file.bytes).toBe(bytes.length);
      }
      const written = (await h.events()).filter((e) => e.type === 'PlotWritten').map((e) => e.data);
      expect(written.map((d) => (d as { path: string }).path)).toEqual(files.map((f) => f.path));

      // They exist now: file_exists for the whole plot before anything is written, overwrite replaces.
      const again = await h.call('plot', { document_id: doc, path, layout: 'ALL', per_page: true });
      expect(again.code).toBe('file_exists');
      await h.ok('plot', { document_id: doc, path, layout: 'all', per_page: true, overwrite: true });
    });
  });

  it('without per_page, one PDF of a page per layout; SVG holds one sheet only; nothing anywhere is refused', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      const path = dir.path('all.pdf');
      expect((await h.call('plot', { document_id: doc, path, layout: 'all' })).code).toBe('nothing_to_plot');
      await h.create([{ type: 'line', start: [0, 0], end: [100, 80] }]);
      await h.ok('layout_create', { document_id: doc, name: 'PLAN' });
      await h.ok('page_setup_set', {
        document_id: doc,
        layout: 'PLAN',
        paper: 'ISO A3',
        orientation: 'portrait',
      });
      const answer = await h.ok('plot', { document_id: doc, path, layout: 'all' });
      const result = resultOf<{ pages: number; page_sizes: number[][]; layout: string; entities: number }>(
        answer,
      );
      expect(result).toMatchObject({ layout: 'all', pages: 3, entities: 1 });
      // Each page the size of its own sheet: the template's layouts', and PLAN's A3 portrait.
      expect(result.page_sizes).toHaveLength(3);
      expect(result.page_sizes[2]).toEqual([297, 420]);
      const model = await h.ok('plot', { document_id: doc, path: dir.path('model.pdf') });
      expect(result.page_sizes[0]).toEqual(resultOf<{ page_sizes: number[][] }>(model).page_sizes[0]);
      expect(pdfPages(await readFile(path))).toBe(3);
      const svg = await h.call('plot', { document_id: doc, path: dir.path('all.svg'), layout: 'all' });
      expect(svg.code).toBe('invalid_format');
      // A single layout answers pages and page_sizes too, as the reference editor's plot does.
      expect(model.result).toMatchObject({ pages: 1 });
    });
  });

  it('takes paper, orientation, fit or scale and center from the request over the page setup', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const doc = await h.newDoc();
      await h.create([{ type: 'line', start: [0, 0], end: [100, 80] }]);
      const answer = await h.ok('plot', {
        document_id: doc,
        path: dir.path('a3.pdf'),
        paper: 'A3',
        orientation: 'portrait',
        scale: '1:2',
        center: false,
      });
      expect(answer.result).toMatchObject({
        paper: 'ISO A3',
        orientation: 'portrait',
        scale: '1:2',
        fit: false,
        center: false,
        page: { width: 297, height: 420 },
      });
      expect((await h.call('plot', { document_id: doc, path: dir.path('x.pdf'), paper: 'Z9' })).code).toBe(
        'invalid_paper',
      );
    });
  });
});
