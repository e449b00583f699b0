/**
 * The `capture` op through the real dispatcher: what is drawn where (pixels), windows culled by the
 * spatial index, a paper space viewport, the scene kept per revision, and one revision per capture even
 * when a mutation comes while it is drawn.
 */
import type { TestContext } from 'vitest';
import { describe, expect, it } from 'vitest';
import { captureDocument } from '../../../src/editor/capture/index.js';
import { needEzdxf, python, resultOf, startHarness, withHarnessAndDir } from '../dispatcher/helpers.js';
import {
  bluish,
  decodePng,
  pixelsWhere,
  RED_LINE_CAPTURE,
  reddish,
  redLineProblem,
  rgbAt,
} from './pixels.js';

interface CaptureResult {
  data: string;
  width: number;
  height: number;
  window: number[];
  entities: number;
  dots: number;
  texts: number;
  highlighted: number;
  revision: number;
  layout: string;
}

const picture = (result: CaptureResult) => decodePng(Buffer.from(result.data, 'base64'));
const green = ([r, g, b]: readonly number[]) =>
  (g as number) > (r as number) + 80 && (g as number) > (b as number) + 80;

describe('capture', () => {
  it('draws a red line on its row and nowhere else, answering what it drew', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      await h.create([{ type: 'Line', start: [0, 0], end: [100, 0], color: 1 }]);
      const result = resultOf<CaptureResult>(
        await h.ok('capture', { document_id: doc, ...RED_LINE_CAPTURE }),
      );
      expect(result).toMatchObject({
        width: 256,
        height: 200,
        window: [-14, -50, 114, 50],
        entities: 1,
        dots: 0,
      });
      expect(redLineProblem(picture(result))).toBeUndefined();
      // The viewer's background where nothing is drawn.
      expect(rgbAt(picture(result), 5, 5)).toEqual([0x1e, 0x22, 0x27]);
    } finally {
      await h.close();
    }
  });

  it('culls a window with the spatial index: only what is in it is drawn', async () => {
    const h = await startHarness();
    try {
      await h.newDoc();
      const lines = Array.from({ length: 50 }, (_, i) => ({
        type: 'Line',
        start: [i * 10, 0],
        end: [i * 10 + 5, 0],
      }));
      await h.create(lines);
      const result = resultOf<CaptureResult>(
        await h.ok('capture', { window: [-1, -10, 99, 10], width: 256 }),
      );
      // Lines 0 to 9 start inside; none further.
      expect(result.entities).toBe(10);
      const whole = resultOf<CaptureResult>(await h.ok('capture', { width: 256 }));
      expect(whole.entities).toBe(50);
    } finally {
      await h.close();
    }
  });

  it('draws entities smaller than two pixels as one pixel, small text as a stroke, larger text as text', async () => {
    const h = await startHarness();
    try {
      await h.newDoc();
      await h.create([
        { type: 'Line', start: [0, 0], end: [1000, 1000] },
        ...Array.from({ length: 20 }, (_, i) => ({
          type: 'Circle',
          center: [100 + i * 40, 500],
          radius: 0.5,
        })),
        { type: 'Text', value: 'TINY', position: [100, 100], height: 5 },
        { type: 'Text', value: 'TITLE', position: [100, 800], height: 60 },
      ]);
      const result = resultOf<CaptureResult>(await h.ok('capture', { width: 512 }));
      expect(result).toMatchObject({ entities: 23, dots: 20, texts: 1 });
    } finally {
      await h.close();
    }
  });

  it('draws a circle a few pixels wide as round: as tall as it is wide', async () => {
    const h = await startHarness();
    try {
      await h.newDoc();
      // 2 pixels per unit: a radius of 1.85 pixels, its centre between pixels.
      await h.create([{ type: 'Circle', center: [50.3, 10.1], radius: 0.925, color: 1 }]);
      const result = resultOf<CaptureResult>(await h.ok('capture', RED_LINE_CAPTURE));
      const red = pixelsWhere(picture(result), reddish);
      const xs = red.map(([x]) => x);
      const ys = red.map(([, y]) => y);
      const wide = Math.max(...xs) - Math.min(...xs);
      const tall = Math.max(...ys) - Math.min(...ys);
      expect(wide).toBeGreaterThanOrEqual(4);
      expect(tall).toBe(wide);
    } finally {
      await h.close();
    }
  });

  it('highlights the selection in the viewer accent, and only it', async () => {
    const h = await startHarness();
    try {
      await h.newDoc();
      const [line] = await h.create([
        { type: 'Line', start: [0, 0], end: [100, 0], color: 1 },
        { type: 'Line', start: [0, 40], end: [100, 40], color: 1 },
      ]);
      await h.ok('select', { handles: [line] });
      const result = resultOf<CaptureResult>(await h.ok('capture', RED_LINE_CAPTURE));
      expect(result.highlighted).toBe(1);
      const blue = pixelsWhere(picture(result), bluish);
      expect(blue.length).toBeGreaterThan(50);
      // Row 100 is y = 0; the other line (y = 40, row 20) is not highlighted.
      expect(blue.every(([, y]) => y >= 97 && y <= 103)).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('shows a paper space viewport: its model space cut at its border, its frozen layers left out', async (ctx: TestContext) => {
    needEzdxf(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const file = dir.path('viewport.dxf');
      await python(
        `
import sys, json, ezdxf
doc = ezdxf.new("R2010")
doc.layers.add("SHOWN", color=1)
doc.layers.add("HIDDEN", color=5)
doc.layers.add("VPORTS", color=3)
msp = doc.modelspace()
msp.add_line((0, 0), (100, 50), dxfattribs={"layer": "SHOWN"})
msp.add_line((0, 50), (100, 0), dxfattribs={"layer": "HIDDEN"})
layout = doc.layouts.get("Layout1")
vp = layout.add_viewport(center=(150, 100), size=(100, 50), view_center_point=(50, 25), view_height=50,
                         dxfattribs={"layer": "VPORTS"})
vp.frozen_layers = ["HIDDEN"]
doc.saveas(sys.argv[1])
print(json.dumps({}))
`,
        [file],
      );
      await h.ok('open', { path: file });
      const result = resultOf<CaptureResult>(await h.ok('capture', { layout: 'Layout1', width: 512 }));
      expect(result.layout).toBe('Layout1');
      const p = picture(result);
      expect(pixelsWhere(p, reddish).length).toBeGreaterThan(100);
      expect(pixelsWhere(p, green).length).toBeGreaterThan(100);
      expect(pixelsWhere(p, bluish)).toEqual([]);
    });
  });

  it("keeps the scene of a revision, and each entity's part of it until the entity or its styles change", async () => {
    const h = await startHarness();
    try {
      await h.newDoc();
      await h.create([{ type: 'Circle', center: [0, 0], radius: 10 }]);
      const doc = h.session.state.documents[String(h.session.state.active)];
      if (!doc) throw new Error('no active document');
      const request = {
        space: '*Model_Space',
        width: 256,
        window: undefined,
        colors: { background: '#ffffff', foreground: '#000000' },
        selection: [],
      };
      expect((await captureDocument(doc, request)).cached).toBe(false);
      expect((await captureDocument(doc, request)).cached).toBe(true);
      // A change: the scene is built again, the entity it did not touch from its kept piece.
      await h.create([{ type: 'Circle', center: [50, 0], radius: 10 }]);
      const after = await captureDocument(doc, request);
      expect([after.cached, after.entities, after.reused]).toEqual([false, 2, 1]);
      // $LTSCALE changes how every entity prints: nothing is taken from before.
      await h.ok('sysvar', { document_id: doc.id, set: { ltscale: 2 } });
      const restyled = await captureDocument(doc, request);
      expect([restyled.cached, restyled.entities, restyled.reused]).toEqual([false, 2, 0]);
    } finally {
      await h.close();
    }
  });

  it('draws one revision even when a mutation comes while it is drawn', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const handles: string[] = [];
      for (let b = 0; b < 4; b++)
        handles.push(
          ...(await h.create(
            Array.from({ length: 5_000 }, (_, i) => ({
              type: 'Line',
              start: [b * 5_000 + i, 0],
              end: [i, 10],
            })),
          )),
        );
      const before = await h.revision();
      const [shot, added] = await Promise.all([
        h.ok('capture', { width: 256 }),
        h.ok('entities_create', {
          document_id: doc,
          entities: [{ type: 'Circle', center: [0, 0], radius: 5 }],
        }),
      ]);
      expect(added.ok).toBe(true);
      const result = resultOf<CaptureResult>(shot);
      // The drawing as it was before the change, or after it: never a scene begun before it and ended after.
      expect([
        [before, 20_000],
        [before + 1, 20_001],
      ]).toContainEqual([result.revision, result.entities]);
      expect(handles).toHaveLength(20_000);
    } finally {
      await h.close();
    }
  });
});
