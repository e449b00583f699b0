/** The pure parts of a capture: the view's area and size, the background's colours, the compact SVG. */
import { describe, expect, it } from 'vitest';
import { FlatSceneBuilder } from '../../../src/editor/capture/flat-scene.js';
import { captureSvg } from '../../../src/editor/capture/svg.js';
import { captureView } from '../../../src/editor/capture/view.js';
import { entityFromInput } from '../../../src/editor/entity-input.js';
import type { Bounds } from '../../../src/editor/geometry/index.js';
import { backgroundOf, foregroundOn } from '../../../src/editor/ops/capture.js';
import { plotContext } from '../../../src/editor/plot/scene.js';
import { emptyModel } from '../fixtures.js';

const textOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

const box = (x1: number, y1: number, x2: number, y2: number): Bounds => ({
  min: [x1, y1, 0],
  max: [x2, y2, 0],
});

describe('captureView', () => {
  it('shows a window exactly, the height following its proportions', () => {
    const view = captureView(256, box(-14, -50, 114, 50), undefined);
    expect(view).toEqual({ area: box(-14, -50, 114, 50), width: 256, height: 200, scale: 2 });
  });

  it('gives the extents a margin of 4% of their larger side, so a straight line has an area', () => {
    const view = captureView(512, undefined, box(0, 0, 100, 0));
    expect(view.area).toEqual(box(-4, -4, 104, 4));
    expect(view.height).toBe(38);
  });

  it('widens an area taller than 4096 pixels rather than drawing past it', () => {
    const view = captureView(1000, box(0, 0, 10, 100), undefined);
    expect(view.height).toBe(4096);
    expect(view.area.max[1] - view.area.min[1]).toBe(100);
    expect(view.area.min[0] + view.area.max[0]).toBeCloseTo(10);
    expect(view.scale * 100).toBeCloseTo(4096);
  });

  it('shows 0,0 to 100,100 of a blank drawing', () => {
    const view = captureView(256, undefined, undefined);
    expect([view.width, view.height]).toEqual([256, 256]);
    expect(view.area.min[0]).toBeLessThan(0);
  });
});

describe('backgrounds', () => {
  it('takes #rrggbb, #rgb and three names; ACI 7 contrasts with it', () => {
    expect(backgroundOf(undefined)).toBe('#1e2227');
    expect(backgroundOf('White')).toBe('#ffffff');
    expect(backgroundOf('#ABC')).toBe('#aabbcc');
    expect(backgroundOf('#102030')).toBe('#102030');
    expect(() => backgroundOf('red')).toThrow(/background must be/);
    expect(() => backgroundOf(7)).toThrow(/background must be/);
    expect(foregroundOn('#1e2227')).toBe('#ffffff');
    expect(foregroundOn('#ffffff')).toBe('#000000');
  });
});

describe('captureSvg', () => {
  const scene = (inputs: Array<Record<string, unknown>>) => {
    const model = emptyModel();
    const builder = new FlatSceneBuilder(plotContext(model, '*Model_Space'));
    inputs.forEach((input, i) => {
      const entity = entityFromInput(input, (0x100 + i).toString(16).toUpperCase(), '*Model_Space', model);
      model.entities[entity.handle] = entity;
      builder.add(entity.handle, entity);
    });
    return builder.finish();
  };
  const colors = { background: '#000000', foreground: '#ffffff' };

  it('draws all lines of one colour and width as one path, and many tiny entities on a pixel once', async () => {
    const flat = scene([
      { type: 'Line', start: [0, 0], end: [100, 0], color: 1 },
      { type: 'Line', start: [0, 10], end: [100, 10], color: 1 },
      { type: 'Line', start: [0, 20], end: [100, 20], color: 3 },
      ...Array.from({ length: 30 }, () => ({ type: 'Point', location: [50, 50], color: 2 })),
      { type: 'Circle', center: [50.1, 50.1], radius: 0.01, color: 2 },
    ]);
    const view = captureView(256, box(0, -10, 100, 60), undefined);
    const drawing = await captureSvg(flat, view, colors, new Set());
    const svg = textOf(drawing.bytes);
    expect(svg.match(/<path stroke="#ff0000"/g)).toHaveLength(1);
    expect(svg.match(/<path stroke="#00ff00"/g)).toHaveLength(1);
    // 30 points on one spot are one pixel: one rectangle in the yellow fill.
    expect(drawing.dots).toBe(31);
    expect(/<path fill="#ffff00" d="M[^"]*"/.exec(svg)?.[0].match(/M/g)).toHaveLength(1);
    expect(drawing.entities).toBe(34);
  });

  it('leaves out what is outside the view, and highlights the selection on top', async () => {
    const flat = scene([
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [500, 0], end: [510, 0] },
    ]);
    const view = captureView(256, box(-5, -5, 15, 5), undefined);
    const drawing = await captureSvg(flat, view, colors, new Set(['101', '100']));
    expect([drawing.entities, drawing.highlighted]).toEqual([1, 1]);
    expect(textOf(drawing.bytes)).toContain('stroke="#4aa3ff"');
  });
});
