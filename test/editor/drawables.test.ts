/**
 * What the viewer is sent to draw: polylines, dots, text runs and pickable areas per entity, in its
 * drawn colour, model space only, from the geometry's one reading of each entity (shapeOf).
 */
import { describe, expect, it } from 'vitest';
import { drawableOf, modelSpaceDrawables } from '../../src/editor/drawables.js';
import { documentContext } from '../../src/editor/geometry/types.js';
import type { Block, DxfDocumentModel, Entity } from '../../src/editor/model.js';
import { emptyModel, line } from './fixtures.js';

const common = { space: '*Model_Space', layer: '0', color: 256, linetype: 'BYLAYER', lineweight: -1 };

function modelWith(...entities: Entity[]): DxfDocumentModel {
  const model = emptyModel();
  model.layers.RED = { ...(model.layers['0'] as DxfDocumentModel['layers'][string]), name: 'RED', color: 1 };
  for (const e of entities) {
    model.entities[e.handle] = e;
    if (e.space === '*Model_Space' || e.space === '*Paper_Space') model.order.push(e.handle);
  }
  return model;
}

const draw = (entity: Entity, model = modelWith(entity)) => drawableOf(entity, model, documentContext(model));

describe('drawableOf', () => {
  it('a line is one path in its layer colour (BYLAYER), or its own colour', () => {
    const byLayer = draw({ ...line('1A'), layer: 'RED' });
    expect(byLayer).toMatchObject({
      handle: '1A',
      type: 'Line',
      layer: 'RED',
      color: '#ff0000',
      paths: [[0, 0, 1, 1]],
      dots: [],
      texts: [],
      box: [0, 0, 1, 1],
    });
    expect(draw({ ...line('1B'), color: 5 }).color).toBe('#0000ff');
    // ACI 7 on layer 0: white, on the viewer's dark background.
    expect(draw(line('1C')).color).toBe('#ffffff');
  });

  it('a circle is one whole arc (centre, radius, start, sweep 2π); an arc keeps its angles', () => {
    const d = draw({ ...common, type: 'Circle', handle: '2', center: [10, 5, 0], radius: 2 });
    expect(d.paths).toEqual([]);
    expect(d.arcs).toEqual([10, 5, 2, 0, 2 * Math.PI]);
    expect(d.box).toEqual([8, 3, 12, 7]);
    const arc = draw({
      ...common,
      type: 'Arc',
      handle: '2A',
      center: [0, 0, 0],
      radius: 3,
      start_angle: 90,
      end_angle: 180,
    });
    expect(arc.arcs.slice(0, 3)).toEqual([0, 0, 3]);
    expect(arc.arcs[3]).toBeCloseTo(Math.PI / 2, 12);
    expect(arc.arcs[4]).toBeCloseTo(Math.PI / 2, 12);
  });

  it('a polyline with a bulge is its straight runs and its arcs', () => {
    const d = draw({
      ...common,
      type: 'LwPolyline',
      handle: '2B',
      closed: false,
      elevation: 0,
      vertices: [
        { x: 0, y: 0, bulge: 0 },
        { x: 2, y: 0, bulge: 1 },
        { x: 4, y: 0, bulge: 0 },
        { x: 6, y: 0, bulge: 0 },
      ],
    });
    expect(d.paths).toEqual([
      [0, 0, 2, 0],
      [4, 0, 6, 0],
    ]);
    expect(d.arcs).toHaveLength(5);
    expect(d.arcs.slice(0, 3).map((n) => Number(n.toFixed(9)))).toEqual([3, 0, 1]);
  });

  it('a closed polyline stays one outline back to its first vertex', () => {
    const d = draw({
      ...common,
      type: 'LwPolyline',
      handle: '3',
      closed: true,
      elevation: 0,
      vertices: [
        { x: 0, y: 0, bulge: 0 },
        { x: 4, y: 0, bulge: 0 },
        { x: 4, y: 3, bulge: 0 },
      ],
    });
    expect(d.paths).toEqual([[0, 0, 4, 0, 4, 3, 0, 0]]);
  });

  it('a point is a dot; a text is a run with its corner, angle and height, and a pickable box', () => {
    expect(draw({ ...common, type: 'Point', handle: '4', location: [2, 3, 0] })).toMatchObject({
      paths: [],
      dots: [2, 3],
      box: [2, 3, 2, 3],
    });
    const text = draw({
      ...common,
      type: 'Text',
      handle: '5',
      value: '%%c10 hole',
      position: [1, 2, 0],
      height: 2.5,
      rotation: 90,
      style: 'Standard',
    });
    expect(text.paths).toEqual([]);
    expect(text.texts).toHaveLength(1);
    expect(text.texts[0]).toMatchObject({ value: 'ø10 hole', x: 1, y: 2, height: 2.5 });
    expect(text.texts[0]?.angle).toBeCloseTo(90, 9);
    expect(text.areas).toHaveLength(1);
    expect(text.areas[0]).toHaveLength(8);
  });

  it('mtext shows its words without formatting codes', () => {
    const d = draw({
      ...common,
      type: 'MText',
      handle: '6',
      value: '{\\fArial|b1;Bold} first\\Psecond',
      position: [0, 0, 0],
      height: 1,
      width: 0,
      rotation: 0,
      style: 'Standard',
      attachment: 1,
    });
    expect(d.texts[0]?.value).toBe('Bold first second');
  });

  it('a block reference draws its block’s contents where it is placed', () => {
    const inner: Entity = { ...line('71'), space: 'DOOR' };
    const insert: Entity = {
      ...common,
      type: 'Insert',
      handle: '72',
      name: 'DOOR',
      position: [10, 20, 0],
      scale: [2, 2, 1],
      rotation: 0,
    };
    const model = modelWith(inner, insert);
    model.blocks.DOOR = {
      name: 'DOOR',
      record_handle: '70',
      block_handle: '73',
      end_handle: '74',
      base: [0, 0, 0],
      layer: '0',
      flags: 0,
      entities: ['71'],
    } as unknown as Block;
    expect(draw(insert, model).paths).toEqual([[10, 20, 12, 22]]);
    // The block's own entity is not drawn by itself in model space.
    expect(modelSpaceDrawables(model).map((d) => d.handle)).toEqual(['72']);
  });
  it('a MULTILEADER shows its MTEXT as text, its leader as a path and its arrowhead filled', () => {
    const pairs: Array<[number, string | number]> = [
      [100, 'AcDbMLeader'],
      [270, 2],
      [300, 'CONTEXT_DATA{'],
      [40, 1],
      [41, 1],
      [140, 1],
      [290, 1],
      [304, 'Note'],
      [12, 10],
      [22, 5],
      [32, 0],
      [13, 1],
      [23, 0],
      [33, 0],
      [43, 0],
      [171, 1],
      [296, 0],
      [302, 'LEADER{'],
      [10, 8],
      [20, 4],
      [30, 0],
      [11, 1],
      [21, 0],
      [31, 0],
      [40, 2],
      [304, 'LEADER_LINE{'],
      [10, 0],
      [20, 0],
      [30, 0],
      [305, '}'],
      [271, 0],
      [303, '}'],
      [301, '}'],
      [170, 1],
      [291, 1],
    ];
    const tags = pairs.map(([code, value]) => ({ code, value: String(value) }));
    const d = draw({ ...common, type: 'Raw', handle: '2A', dxf_type: 'MULTILEADER', tags });
    expect(d.texts.map((t) => t.value)).toEqual(['Note']);
    // From behind the arrowhead (1 along the first segment) to the leader's end and its dogleg.
    const run = Math.hypot(8, 4);
    expect(d.paths).toContainEqual([8 / run, 4 / run, 8, 4]);
    expect(d.paths).toContainEqual([8, 4, 10, 4]);
    expect(d.fills).toHaveLength(1);
  });
});

describe('modelSpaceDrawables', () => {
  it('model space only, in drawing order', () => {
    const paper: Entity = { ...line('P1'), space: '*Paper_Space' };
    const model = modelWith(line('B2'), paper, line('A1', 5));
    expect(modelSpaceDrawables(model).map((d) => d.handle)).toEqual(['B2', 'A1']);
  });
});
