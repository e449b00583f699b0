/**
 * VIEWPORT (kept as its tags) as geometry: ezdxf writes a layout with a viewport, and chronicle bounds it
 * by its frame (centre 10, width 40, height 41, in paper space), draws the frame in a capture of the
 * layout, and sets it apart by type in a transform (ezdxf has no Viewport.transform) while the rest moves.
 */
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { decodePng, pixelsWhere, reddish } from '../capture/pixels.js';
import {
  type Harness,
  needEzdxf,
  python,
  resultOf,
  scratchDir,
  startHarness,
} from '../dispatcher/helpers.js';

const VIEWPORT_BY_EZDXF = `
import sys, ezdxf
doc = ezdxf.new("R2010")
doc.modelspace().add_circle((0, 0), 5)
layout = doc.layout("Layout1")
layout.add_viewport(center=(60, 40), size=(80, 50), view_center_point=(0, 0), view_height=20,
                    dxfattribs={"color": 1})
layout.add_line((0, 0), (10, 0))
doc.saveas(sys.argv[1])
print("{}")
`;

type Listed = {
  handle: string;
  dxf_type?: string;
  type: string;
  space: string;
  bounds: { min: number[]; max: number[] } | null;
};

let h: Harness;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  h = await startHarness();
  scratch = await scratchDir();
});
afterAll(async () => {
  await h.close();
  await scratch.remove();
});

describe('VIEWPORT', () => {
  it('is bounded and drawn as its frame in paper space, and set apart by type in a transform', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const path = scratch.path('viewport.dxf');
    await python(VIEWPORT_BY_EZDXF, [path]);
    const doc = (await h.ok('open', { path })).document_id as number;
    const all = (await h.ok('query', { document_id: doc, detail: 'full', limit: 10_000 }))
      .entities as Listed[];
    const viewports = all.filter((e) => e.dxf_type === 'VIEWPORT');
    const framed = viewports.filter((e) => e.bounds !== null);
    expect(framed.map((e) => e.bounds)).toEqual([{ min: [20, 15, 0], max: [100, 65, 0] }]);
    const viewport = framed[0] as Listed;
    // Spatial queries find it by its frame, not by its centre alone.
    const near = (await h.ok('query', { document_id: doc, near: [20, 40, 0.01] })).entities as Listed[];
    expect(near.map((e) => e.handle)).toContain(viewport.handle);

    // The layout's capture: 2 pixels per unit over (0, 0)-(128, 80); the frame red, its inside not.
    const shot = resultOf<{ data: string; window: number[] }>(
      await h.ok('capture', {
        document_id: doc,
        layout: 'Layout1',
        width: 256,
        window: [0, 0, 128, 80],
        background: 'black',
      }),
    );
    const picture = decodePng(Buffer.from(shot.data, 'base64'));
    const red = pixelsWhere(picture, reddish);
    const column = (x: number) => Math.round(2 * x);
    const row = (y: number) => Math.round(picture.height - 2 * y);
    const at = (x: number, y: number) =>
      red.some(([c, r]) => Math.abs(c - column(x)) <= 1 && Math.abs(r - row(y)) <= 1);
    for (const [x, y] of [
      [60, 15],
      [60, 65],
      [20, 40],
      [100, 40],
    ] as Array<[number, number]>)
      expect(at(x, y), `the frame through (${x}, ${y})`).toBe(true);
    expect(at(60, 40)).toBe(false);

    const line = all.find((e) => e.type === 'Line') as Listed;
    const moved = resultOf<{ not_transformable: Array<{ handle: string; type: string }>; affected: number }>(
      await h.ok('entities_transform', {
        document_id: doc,
        handles: [viewport.handle, line.handle],
        action: 'move',
        vector: [1, 1, 0],
      }),
    );
    expect(moved.not_transformable.map((n) => [n.handle, n.type])).toEqual([[viewport.handle, 'VIEWPORT']]);
    expect(moved.affected).toBe(1);
    await h.ok('close', { document_id: doc, discard: true });
  });
});
