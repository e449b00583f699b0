import { describe, expect, it } from 'vitest';
import { documentContext } from '../../../src/editor/geometry/index.js';
import { entityAnswer, selectionAnswer } from '../../../src/editor/query/index.js';
import { arc, documentOf, image, insert, line, mtext, point, polyline, raw, text } from './fixtures.js';

describe('entityAnswer', () => {
  it('geometry detail: the fields that place each type, text and value', () => {
    const cases = [
      [arc([0, 0, 0], 1, 0, 90), ['center', 'radius', 'start_angle', 'end_angle']],
      [mtext('A', [0, 0, 0], 1), ['value', 'position', 'height', 'width', 'rotation', 'attachment']],
      [point([1, 2, 3]), ['location']],
      [
        polyline([
          [0, 0],
          [1, 1],
        ]),
        ['vertices', 'closed', 'elevation'],
      ],
      // `block` names an Insert's block, as the reference editor's answers do.
      [insert('B', [0, 0, 0]), ['name', 'block', 'position', 'scale', 'rotation']],
      [image([0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 2]), ['position', 'u_vector', 'v_vector', 'size']],
      [raw('SPLINE', []), ['dxf_type']],
      // HATCH reads out its fill and boundary.
      [raw('HATCH', []), ['dxf_type', 'solid', 'pattern', 'pattern_scale', 'pattern_angle', 'boundary']],
    ] as const;
    for (const [entity, fields] of cases) {
      const expected = new Set(['handle', 'type', 'layer', ...fields, 'text', 'value']);
      expect(Object.keys(entityAnswer(entity, 'geometry')).sort()).toEqual([...expected].sort());
    }
  });

  it('full detail: bounds null when the entity has none', () => {
    expect(entityAnswer(raw('XLINE', []), 'full').bounds).toBeNull();
    const model = documentOf([], { B: { entities: [line([0, 0, 0], [1, 0, 0])] } });
    expect(entityAnswer(insert('B', [5, 5, 0]), 'full', documentContext(model)).bounds).toEqual({
      min: [5, 5, 0],
      max: [6, 5, 0],
    });
  });
});

describe('selectionAnswer', () => {
  it("get_selection's fields: handle, type, layer, text (null without text), value, bounds; an Insert's block and position", () => {
    const t = text('Hi', [0, 0, 0], 1);
    expect(selectionAnswer(t)).toEqual({
      handle: t.handle,
      type: 'Text',
      layer: '0',
      text: 'Hi',
      value: 'Hi',
      // DejaVu Sans's advances of H and i (1540 and 569 units, its capitals 1493 high).
      bounds: { min: [0, 0, 0], max: [(1540 + 569) / 1493, 1, 0] },
      block: null,
      position: null,
    });
    const l = line([0, 0, 0], [1, 1, 0]);
    expect(selectionAnswer(l)).toEqual({
      handle: l.handle,
      type: 'Line',
      layer: '0',
      text: null,
      value: null,
      bounds: { min: [0, 0, 0], max: [1, 1, 0] },
      block: null,
      position: null,
    });
    const model = documentOf([], { B: { entities: [line([0, 0, 0], [1, 0, 0])] } });
    const ref = insert('B', [5, 5, 0]);
    expect(selectionAnswer(ref, documentContext(model))).toMatchObject({
      type: 'Insert',
      block: 'B',
      position: [5, 5, 0],
      bounds: { min: [5, 5, 0], max: [6, 5, 0] },
    });
  });
});
