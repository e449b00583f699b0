import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minorAxis } from '../../src/editor/geometry/ellipse.js';
import {
  bounds,
  closestPoint,
  compose,
  containsPoint,
  distance,
  documentContext,
  GeometryError,
  intersections,
  mirroring,
  rotation,
  scaling,
  transformEntity,
  translation,
} from '../../src/editor/geometry/index.js';
import type { Entity, Point3 } from '../../src/editor/model.js';
import {
  arc,
  circle,
  documentOf,
  ellipse,
  image,
  insert,
  line,
  mtext,
  point,
  polyline,
  raw,
  round,
  text,
} from './query/fixtures.js';

const FLIPPED: Array<[number, string]> = [
  [210, '0.0'],
  [220, '0.0'],
  [230, '-1.0'],
];
const withExtra = <T extends Entity>(e: T, tags: Array<[number, string | number]>): T => ({
  ...e,
  extra: tags.map(([code, value]) => ({ code, value: String(value) })),
});
const box = (min: number[], max: number[]) => ({ min, max });
/**
 * Text heights of DejaVu Sans advances (in its units, of which its capitals are 1493 high), as text boxes
 * measure them: A 1401, B 1405, C 1430, D 1577, E 1294, F 1178, 9 and 0 1303, the degree sign 1024.
 */
const em = (units: number) => units / 1493;
const ABCD = em(1401 + 1405 + 1430 + 1577);
const AB = em(1401 + 1405);

describe('bounds', () => {
  it('line, circle, point', () => {
    expect(bounds(line([0, 4, 5], [3, 0, 1]))).toEqual(box([0, 0, 1], [3, 4, 5]));
    expect(bounds(circle([1, 2, 3], 2))).toEqual(box([-1, 0, 3], [3, 4, 3]));
    expect(bounds(point([7, 8, 9]))).toEqual(box([7, 8, 9], [7, 8, 9]));
  });

  it('arcs include the axis extremes they sweep over, also across 0 degrees', () => {
    expect(round(bounds(arc([0, 0, 0], 1, 0, 90)))).toEqual(box([0, 0, 0], [1, 1, 0]));
    const h = Math.SQRT1_2;
    expect(round(bounds(arc([0, 0, 0], 1, 45, 135)))).toEqual(round(box([-h, h, 0], [h, 1, 0])));
    expect(round(bounds(arc([0, 0, 0], 1, 350, 10)))).toEqual(
      round(
        box(
          [Math.cos((10 * Math.PI) / 180), -Math.sin((10 * Math.PI) / 180), 0],
          [1, Math.sin((10 * Math.PI) / 180), 0],
        ),
      ),
    );
    // Equal angles draw the whole circle.
    expect(round(bounds(arc([0, 0, 0], 2, 30, 30)))).toEqual(box([-2, -2, 0], [2, 2, 0]));
  });

  it("text from height × its characters' advances, turned by its rotation", () => {
    expect(round(bounds(text('ABCD', [10, 20, 0], 2)))).toEqual(
      round(box([10, 20, 0], [10 + 2 * ABCD, 22, 0])),
    );
    expect(round(bounds(text('ABCD', [10, 20, 0], 2, 90)))).toEqual(
      round(box([8, 20, 0], [10, 20 + 2 * ABCD, 0])),
    );
    // %%d is one glyph (the degree sign).
    expect(round(bounds(text('90%%d', [0, 0, 0], 1)))).toEqual(
      round(box([0, 0, 0], [em(1303 + 1303 + 1024), 1, 0])),
    );
    // Right-justified: the box ends at the alignment point (11).
    const right = withExtra(text('AB', [0, 0, 0], 1), [
      [72, 2],
      [11, 10],
      [21, 0],
      [31, 0],
    ]);
    expect(round(bounds(right))).toEqual(round(box([10 - AB, 0, 0], [10, 1, 0])));
  });

  it('mtext: lines split by \\P, formatting codes ignored, placed by its attachment', () => {
    const h = 1 + 5 / 3;
    expect(round(bounds(mtext('AB\\P{\\fArial;CDEF}', [0, 10, 0], 1)))).toEqual(
      round(box([0, 10 - h, 0], [em(1430 + 1577 + 1294 + 1178), 10, 0])),
    );
    // Attachment 9 = bottom right; a reference width wraps the paragraph between its words onto 2 lines
    // (ABCD is 3.89 heights, ABCD EF 5.99). The point is at the bottom of the last line's descenders: its
    // baseline stands Helvetica's descender (207 / 718) above it.
    const d = 207 / 718;
    expect(round(bounds(mtext('ABCD EF', [10, 0, 0], 1, { width: 4, attachment: 9 })))).toEqual(
      round(box([6, d, 0], [10, h + d, 0])),
    );
  });

  it('polylines with bulges reach past their vertices', () => {
    expect(
      round(
        bounds(
          polyline([
            [0, 0, 1],
            [2, 0],
          ]),
        ),
      ),
    ).toEqual(box([0, -1, 0], [2, 0, 0]));
    expect(
      round(
        bounds(
          polyline([
            [0, 0, -1],
            [2, 0],
          ]),
        ),
      ),
    ).toEqual(box([0, 0, 0], [2, 1, 0]));
    expect(bounds(polyline([]))).toBeUndefined();
    expect(bounds(polyline([[3, 4]]))).toEqual(box([3, 4, 0], [3, 4, 0]));
  });

  it('image from its position, pixel vectors and size', () => {
    expect(round(bounds(image([0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [100, 50])))).toEqual(
      box([0, 0, 0], [10, 5, 0]),
    );
  });

  it("insert from its block's contents placed by position, base, scale and rotation", () => {
    const model = documentOf([], { B: { base: [1, 0, 0], entities: [line([0, 0, 0], [1, 0, 0])] } });
    const ctx = documentContext(model);
    expect(round(bounds(insert('B', [10, 10, 0], [2, 2, 2], 90), ctx))).toEqual(box([10, 8, 0], [10, 10, 0]));
    expect(bounds(insert('B', [10, 10, 0]))).toBeUndefined();
    expect(bounds(insert('MISSING', [0, 0, 0]), ctx)).toBeUndefined();
    // Uneven scale: a circle becomes an ellipse.
    const c = documentContext(documentOf([], { C: { entities: [circle([0, 0, 0], 1)] } }));
    expect(round(bounds(insert('C', [0, 0, 0], [3, 1, 1]), c))).toEqual(box([-3, -1, 0], [3, 1, 0]));
    // Nested inserts, and a block that holds a reference to itself stops.
    const nested = documentContext(
      documentOf([], {
        INNER: { entities: [point([1, 1, 0])] },
        OUTER: { entities: [insert('INNER', [10, 0, 0])] },
        SELF: { entities: [insert('SELF', [1, 0, 0]), point([0, 0, 0])] },
      }),
    );
    expect(bounds(insert('OUTER', [100, 0, 0]), nested)).toEqual(box([111, 1, 0], [111, 1, 0]));
    expect(bounds(insert('SELF', [0, 0, 0]), nested)?.min).toEqual([0, 0, 0]);
  });

  it('raw entities from their point codes', () => {
    const hatch = raw('HATCH', [
      [10, 0],
      [20, 0],
      [30, 0],
      [92, 1],
      [10, 5],
      [20, 5],
      [10, 6],
      [20, 7],
    ]);
    expect(bounds(hatch)).toEqual(box([5, 5, 0], [6, 7, 0]));
    const spline = raw('SPLINE', [
      [10, 1],
      [20, 1],
      [30, 0],
      [12, 100],
      [22, 100],
      [32, 0],
      [10, 3],
      [20, -2],
      [30, 0],
    ]);
    expect(bounds(spline)).toEqual(box([1, -2, 0], [3, 1, 0]));
    const ellipse = raw('ELLIPSE', [
      [10, 0],
      [20, 0],
      [30, 0],
      [11, 2],
      [21, 0],
      [31, 0],
      [40, 0.5],
    ]);
    expect(round(bounds(ellipse))).toEqual(box([-2, -1, 0], [2, 1, 0]));
    expect(
      bounds(
        raw('XLINE', [
          [10, 0],
          [20, 0],
          [11, 1],
          [21, 0],
        ]),
      ),
    ).toBeUndefined();
    expect(bounds(raw('3DSOLID', [[1, 'acis data']]))).toBeUndefined();
  });

  it('OCS entities with a (0, 0, -1) extrusion are read mirrored into the world', () => {
    const c = withExtra(circle([5, 0, 0], 1), FLIPPED);
    expect(round(bounds(c))).toEqual(box([-6, -1, 0], [-4, 1, 0]));
    // Arc 0..90 in that OCS is world 90..180.
    const a = withExtra(arc([0, 0, 0], 1, 0, 90), FLIPPED);
    expect(round(bounds(a))).toEqual(box([-1, 0, 0], [0, 1, 0]));
  });
});

describe('closestPoint and distance', () => {
  it('line segment: projection or nearest end, z interpolated', () => {
    expect(closestPoint(line([0, 0, 0], [10, 0, 10]), [5, 5])).toEqual({ point: [5, 0, 5], distance: 5 });
    expect(closestPoint(line([0, 0, 0], [10, 0, 0]), [-3, 4])).toEqual({ point: [0, 0, 0], distance: 5 });
  });

  it('circle and arc outlines', () => {
    expect(round(closestPoint(circle([0, 0, 0], 5), [10, 0]))).toEqual({ point: [5, 0, 0], distance: 5 });
    expect(round(closestPoint(circle([0, 0, 0], 5), [1, 0]))).toEqual({ point: [5, 0, 0], distance: 4 });
    expect(round(closestPoint(arc([0, 0, 0], 5, 0, 90), [-10, 0]))).toEqual(
      round({ point: [0, 5, 0], distance: Math.sqrt(125) }),
    );
  });

  it('polyline bulge, point, text box, raw box', () => {
    expect(
      round(
        closestPoint(
          polyline([
            [0, 0, 1],
            [2, 0],
          ]),
          [1, -3],
        ),
      ),
    ).toEqual({ point: [1, -1, 0], distance: 2 });
    expect(distance(point([3, 4, 0]), [0, 0])).toBe(5);
    expect(closestPoint(text('ABCD', [0, 0, 0], 1), [1, 0.5])).toEqual({ point: [1, 0.5, 0], distance: 0 });
    expect(round(closestPoint(text('ABCD', [0, 0, 0], 1), [1, 3]))).toEqual({
      point: [1, 1, 0],
      distance: 2,
    });
    const hatch = raw('SOLID', [
      [10, 0],
      [20, 0],
      [11, 4],
      [21, 4],
    ]);
    expect(closestPoint(hatch, [6, 2])).toEqual({ point: [4, 2, 0], distance: 2 });
  });

  it('insert: the nearest of its placed contents', () => {
    const ctx = documentContext(documentOf([], { B: { entities: [circle([0, 0, 0], 1)] } }));
    expect(round(closestPoint(insert('B', [10, 0, 0], [2, 2, 1]), [15, 0], ctx))).toEqual({
      point: [12, 0, 0],
      distance: 3,
    });
    expect(closestPoint(insert('B', [10, 0, 0]), [0, 0])).toBeUndefined();
  });
});

describe('containsPoint', () => {
  it('open curves within the tolerance', () => {
    const l = line([0, 0, 0], [10, 0, 0]);
    expect(containsPoint(l, [5, 0])).toBe(true);
    expect(containsPoint(l, [5, 0.1], 0.01)).toBe(false);
    expect(containsPoint(l, [5, 0.1], 0.2)).toBe(true);
    const a = arc([0, 0, 0], 5, 0, 90);
    expect(containsPoint(a, [0, 0])).toBe(false);
    expect(containsPoint(a, [3, 4])).toBe(true);
    expect(containsPoint(a, [-3, 4])).toBe(false);
    expect(containsPoint(point([1, 1, 0]), [1.05, 1], 0.1)).toBe(true);
    expect(
      containsPoint(
        polyline([
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 10],
        ]),
        [5, 5],
      ),
    ).toBe(false);
  });

  it('closed circles and polylines: inside counts, bulged edges add or remove their segment', () => {
    expect(containsPoint(circle([0, 0, 0], 5), [1, 1])).toBe(true);
    expect(containsPoint(circle([0, 0, 0], 5), [6, 0])).toBe(false);
    expect(containsPoint(circle([0, 0, 0], 5), [5.05, 0], 0.1)).toBe(true);
    const square = (bulge: number) =>
      polyline(
        [
          [0, 0],
          [10, 0, bulge],
          [10, 10],
          [0, 10],
        ],
        true,
      );
    expect(containsPoint(square(0), [5, 5])).toBe(true);
    expect(containsPoint(square(0), [14, 5])).toBe(false);
    expect(containsPoint(square(1), [14, 5])).toBe(true);
    expect(containsPoint(square(-1), [7, 5])).toBe(false);
    expect(containsPoint(square(-1), [2, 5])).toBe(true);
    expect(containsPoint(square(-1), [5, 5])).toBe(true);
  });

  it('text, image and raw boxes; inserts through their contents', () => {
    expect(containsPoint(text('ABCD', [0, 0, 0], 1), [2, 0.5])).toBe(true);
    expect(containsPoint(text('ABCD', [0, 0, 0], 1), [4.5, 0.5])).toBe(false);
    expect(containsPoint(image([0, 0, 0], [1, 0, 0], [0, 1, 0], [4, 4]), [2, 2])).toBe(true);
    expect(
      containsPoint(
        raw('SOLID', [
          [10, 0],
          [20, 0],
          [11, 4],
          [21, 4],
        ]),
        [2, 2],
      ),
    ).toBe(true);
    const ctx = documentContext(
      documentOf([], {
        SQ: {
          entities: [
            polyline(
              [
                [0, 0],
                [1, 0],
                [1, 1],
                [0, 1],
              ],
              true,
            ),
          ],
        },
      }),
    );
    expect(containsPoint(insert('SQ', [10, 10, 0], [4, 4, 1]), [12, 12], 0, ctx)).toBe(true);
    expect(containsPoint(insert('SQ', [10, 10, 0], [4, 4, 1]), [9, 9], 0, ctx)).toBe(false);
    expect(containsPoint(raw('XLINE', []), [0, 0])).toBe(false);
  });
});

describe('intersections', () => {
  it('line/line: crossing, parallel, collinear overlap, touching ends', () => {
    expect(intersections(line([0, 0, 0], [10, 10, 0]), line([0, 10, 0], [10, 0, 0]))).toEqual([[5, 5, 0]]);
    expect(intersections(line([0, 0, 0], [10, 0, 0]), line([0, 1, 0], [10, 1, 0]))).toEqual([]);
    expect(intersections(line([0, 0, 0], [10, 0, 0]), line([5, 0, 0], [15, 0, 0]))).toEqual([
      [5, 0, 0],
      [10, 0, 0],
    ]);
    expect(intersections(line([0, 0, 0], [5, 0, 0]), line([5, 0, 0], [5, 5, 0]))).toEqual([[5, 0, 0]]);
    expect(intersections(line([0, 0, 0], [4, 0, 0]), line([5, -1, 0], [5, 1, 0]))).toEqual([]);
  });

  it('line/circle: two points, tangent, miss, one end inside', () => {
    const c = circle([0, 0, 0], 5);
    expect(intersections(line([-10, 0, 0], [10, 0, 0]), c)).toEqual([
      [-5, 0, 0],
      [5, 0, 0],
    ]);
    expect(intersections(line([-10, 5, 0], [10, 5, 0]), c)).toEqual([[0, 5, 0]]);
    expect(intersections(line([-10, 6, 0], [10, 6, 0]), c)).toEqual([]);
    expect(intersections(line([0, 0, 0], [10, 0, 0]), c)).toEqual([[5, 0, 0]]);
    expect(intersections(c, line([0, 0, 0], [10, 0, 0]))).toEqual([[5, 0, 0]]);
  });

  it('circle/circle: two points, tangent, nested, coincident', () => {
    expect(round(intersections(circle([0, 0, 0], 5), circle([6, 0, 0], 5)))).toEqual([
      [3, -4, 0],
      [3, 4, 0],
    ]);
    expect(round(intersections(circle([0, 0, 0], 5), circle([10, 0, 0], 5)))).toEqual([[5, 0, 0]]);
    expect(intersections(circle([0, 0, 0], 5), circle([1, 0, 0], 2))).toEqual([]);
    expect(intersections(circle([0, 0, 0], 5), circle([0, 0, 0], 5))).toEqual([]);
  });

  it('arcs keep only the points within their sweep; arcs of one circle answer the ends of their overlap', () => {
    expect(round(intersections(arc([0, 0, 0], 5, 0, 90), line([-10, 0, 0], [10, 0, 0])))).toEqual([
      [5, 0, 0],
    ]);
    expect(round(intersections(arc([0, 0, 0], 5, 0, 180), arc([6, 0, 0], 5, 90, 270)))).toEqual([[3, 4, 0]]);
    const h = 5 * Math.SQRT1_2;
    expect(round(intersections(arc([0, 0, 0], 5, 0, 90), arc([0, 0, 0], 5, 45, 180)))).toEqual(
      round([
        [0, 5, 0],
        [h, h, 0],
      ]),
    );
    expect(intersections(arc([0, 0, 0], 5, 0, 90), arc([0, 0, 0], 5, 180, 270))).toEqual([]);
  });

  it('polyline segments, straight and bulged; a vertex on the other curve counts once', () => {
    expect(
      round(
        intersections(
          polyline([
            [0, 0, 1],
            [2, 0],
          ]),
          line([1, -5, 0], [1, 5, 0]),
        ),
      ),
    ).toEqual([[1, -1, 0]]);
    const square = polyline(
      [
        [0, 0],
        [10, 0],
        [10, 10],
        [0, 10],
      ],
      true,
    );
    expect(intersections(square, line([-5, 5, 0], [15, 5, 0]))).toEqual([
      [0, 5, 0],
      [10, 5, 0],
    ]);
    expect(intersections(square, line([-5, -5, 0], [15, 15, 0]))).toEqual([
      [0, 0, 0],
      [10, 10, 0],
    ]);
  });

  it('inserts cross through their contents; text and points cross nothing', () => {
    const ctx = documentContext(documentOf([], { B: { entities: [line([0, 0, 0], [1, 0, 0])] } }));
    expect(
      round(intersections(insert('B', [0, 0, 0], [10, 10, 1], 90), line([-5, 5, 0], [5, 5, 0]), ctx)),
    ).toEqual([[0, 5, 0]]);
    expect(intersections(text('AB', [0, 0, 0], 1), line([-5, 0.5, 0], [5, 0.5, 0]))).toEqual([]);
    expect(intersections(point([0, 0, 0]), line([-5, 0, 0], [5, 0, 0]))).toEqual([]);
  });
});

describe('transformEntity', () => {
  const move = translation([1, 2, 3]);
  const quarter = rotation([0, 0], 90);
  const double = scaling([1, 1, 0], 2);
  const mirrorY = mirroring([0, 0], [0, 1]); // about the y axis: x → −x
  const mirrorX = mirroring([0, 0], [1, 0]); // about the x axis: y → −y

  it('move', () => {
    expect(transformEntity(line([0, 0, 0], [1, 1, 1]), move)).toMatchObject({
      start: [1, 2, 3],
      end: [2, 3, 4],
    });
    expect(transformEntity(circle([0, 0, 0], 1), move)).toMatchObject({ center: [1, 2, 3], radius: 1 });
    expect(transformEntity(arc([0, 0, 0], 1, 10, 20), move)).toMatchObject({
      center: [1, 2, 3],
      start_angle: 10,
      end_angle: 20,
    });
    expect(transformEntity(text('A', [0, 0, 0], 1, 30), move)).toMatchObject({
      position: [1, 2, 3],
      rotation: 30,
    });
    expect(transformEntity(mtext('A', [0, 0, 0], 1), move)).toMatchObject({ position: [1, 2, 3] });
    expect(transformEntity(point([0, 0, 0]), move)).toMatchObject({ location: [1, 2, 3] });
    expect(
      transformEntity(
        polyline([
          [0, 0, 0.5],
          [1, 0],
        ]),
        move,
      ),
    ).toMatchObject({
      vertices: [
        { x: 1, y: 2, bulge: 0.5 },
        { x: 2, y: 2, bulge: 0 },
      ],
      elevation: 3,
    });
    expect(transformEntity(insert('B', [0, 0, 0]), move)).toMatchObject({
      position: [1, 2, 3],
      scale: [1, 1, 1],
      rotation: 0,
    });
    expect(transformEntity(image([0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 2]), move)).toMatchObject({
      position: [1, 2, 3],
      u_vector: [1, 0, 0],
    });
  });

  it('rotate: points turn exactly by quarter turns, angles add', () => {
    expect(transformEntity(line([1, 0, 0], [2, 0, 0]), quarter)).toMatchObject({
      start: [0, 1, 0],
      end: [0, 2, 0],
    });
    expect(transformEntity(circle([3, 0, 0], 1), rotation([1, 0], 180))).toMatchObject({
      center: [-1, 0, 0],
    });
    expect(transformEntity(arc([0, 0, 0], 1, 0, 90), quarter)).toMatchObject({
      start_angle: 90,
      end_angle: 180,
    });
    expect(transformEntity(arc([0, 0, 0], 1, 300, 350), quarter)).toMatchObject({
      start_angle: 30,
      end_angle: 80,
    });
    expect(transformEntity(text('A', [1, 0, 0], 1, 300), quarter)).toMatchObject({
      position: [0, 1, 0],
      rotation: 30,
    });
    expect(transformEntity(mtext('A', [1, 0, 0], 1), quarter)).toMatchObject({
      position: [0, 1, 0],
      rotation: 90,
    });
    expect(transformEntity(point([1, 0, 0]), quarter)).toMatchObject({ location: [0, 1, 0] });
    expect(
      transformEntity(
        polyline([
          [1, 0, 0.5],
          [2, 0],
        ]),
        quarter,
      ),
    ).toMatchObject({
      vertices: [
        { x: 0, y: 1, bulge: 0.5 },
        { x: 0, y: 2, bulge: 0 },
      ],
    });
    expect(transformEntity(insert('B', [1, 0, 0], [1, 1, 1], 10), quarter)).toMatchObject({
      position: [0, 1, 0],
      rotation: 100,
    });
    expect(transformEntity(image([1, 0, 0], [1, 0, 0], [0, 1, 0], [2, 2]), quarter)).toMatchObject({
      position: [0, 1, 0],
      u_vector: [0, 1, 0],
      v_vector: [-1, 0, 0],
    });
    expect(round(transformEntity(line([1, 0, 0], [2, 0, 0]), rotation([0, 0], 30)))).toMatchObject(
      round({ start: [Math.cos(Math.PI / 6), 0.5, 0] }) as object,
    );
  });

  it('scale: about a center, lengths and sizes multiply', () => {
    expect(transformEntity(line([1, 1, 0], [2, 1, 0]), double)).toMatchObject({
      start: [1, 1, 0],
      end: [3, 1, 0],
    });
    expect(transformEntity(circle([2, 1, 0], 1), double)).toMatchObject({ center: [3, 1, 0], radius: 2 });
    expect(transformEntity(arc([1, 1, 0], 1, 10, 20), double)).toMatchObject({
      radius: 2,
      start_angle: 10,
      end_angle: 20,
    });
    expect(transformEntity(text('A', [1, 1, 0], 1), double)).toMatchObject({ height: 2 });
    expect(transformEntity(mtext('A', [1, 1, 0], 1, { width: 5 }), double)).toMatchObject({
      height: 2,
      width: 10,
    });
    expect(transformEntity(point([2, 2, 1]), double)).toMatchObject({ location: [3, 3, 2] });
    const wide = withExtra(
      polyline([
        [1, 1],
        [2, 1],
      ]),
      [[43, 0.5]],
    );
    expect(transformEntity(wide, double)).toMatchObject({
      vertices: [
        { x: 1, y: 1 },
        { x: 3, y: 1 },
      ],
      extra: [{ code: 43, value: '1' }],
    });
    expect(transformEntity(insert('B', [1, 1, 0], [1, 2, 3]), double)).toMatchObject({ scale: [2, 4, 6] });
    expect(transformEntity(image([1, 1, 0], [1, 0, 0], [0, 1, 0], [2, 2]), double)).toMatchObject({
      u_vector: [2, 0, 0],
      v_vector: [0, 2, 0],
    });
  });

  it('mirror: arcs swap and reflect their angles, bulges flip sign, inserts get a negative x scale', () => {
    expect(transformEntity(line([1, 0, 0], [2, 1, 0]), mirrorY)).toMatchObject({
      start: [-1, 0, 0],
      end: [-2, 1, 0],
    });
    expect(transformEntity(circle([5, 1, 0], 2), mirrorY)).toMatchObject({ center: [-5, 1, 0], radius: 2 });
    expect(transformEntity(arc([5, 0, 0], 1, 0, 90), mirrorY)).toMatchObject({
      center: [-5, 0, 0],
      start_angle: 90,
      end_angle: 180,
    });
    expect(transformEntity(arc([5, 0, 0], 1, 0, 90), mirrorX)).toMatchObject({
      start_angle: 270,
      end_angle: 0,
    });
    expect(transformEntity(arc([0, 0, 0], 1, 10, 30), mirroring([0, 0], [1, 1]))).toMatchObject({
      start_angle: 60,
      end_angle: 80,
    });
    expect(transformEntity(point([1, 2, 0]), mirrorX)).toMatchObject({ location: [1, -2, 0] });
    expect(
      transformEntity(
        polyline([
          [1, 0, 0.5],
          [2, 0, -0.25],
          [3, 1],
        ]),
        mirrorY,
      ),
    ).toMatchObject({
      vertices: [
        { x: -1, y: 0, bulge: -0.5 },
        { x: -2, y: 0, bulge: 0.25 },
        { x: -3, y: 1, bulge: 0 },
      ],
    });
    expect(transformEntity(insert('B', [1, 0, 0]), mirrorY)).toMatchObject({
      position: [-1, 0, 0],
      scale: [-1, 1, 1],
      rotation: 0,
    });
    expect(transformEntity(insert('B', [1, 0, 0]), mirrorX)).toMatchObject({
      scale: [-1, 1, 1],
      rotation: 180,
    });
    expect(transformEntity(image([1, 0, 0], [1, 0, 0], [0, 1, 0], [2, 2]), mirrorY)).toMatchObject({
      position: [-1, 0, 0],
      u_vector: [-1, 0, 0],
      v_vector: [0, 1, 0],
    });
  });

  it('mirrored geometry is the mirror image: bounds of a bulged polyline and an arc mirror too', () => {
    for (const e of [
      polyline([
        [0, 0, 0.7],
        [3, 1, -0.3],
        [5, -2],
      ]),
      arc([1, 2, 0], 3, 20, 200),
    ]) {
      const before = bounds(e);
      const after = bounds(transformEntity(e, mirrorY));
      expect(round(after)).toEqual(
        round({
          min: [-(before?.max[0] ?? 0), before?.min[1], 0],
          max: [-(before?.min[0] ?? 0), before?.max[1], 0],
        }),
      );
    }
  });

  it('mirror keeps text readable in the mirrored box unless MIRRTEXT', () => {
    const t = text('ABCD', [1, 0, 0], 1);
    expect(round(transformEntity(t, mirrorY))).toMatchObject({
      position: round([-1 - ABCD, 0, 0]),
      rotation: 0,
    });
    expect(round(transformEntity(t, mirrorX))).toMatchObject({ position: [1, -1, 0], rotation: 0 });
    expect(round(bounds(transformEntity(t, mirrorY)))).toEqual(round(box([-1 - ABCD, 0, 0], [-1, 1, 0])));
    const mirrored = transformEntity(t, mirrorY, { mirrtext: true });
    expect(mirrored).toMatchObject({ position: [-1, 0, 0], rotation: 0, extra: [{ code: 71, value: '2' }] });
    expect(round(bounds(mirrored))).toEqual(round(box([-1 - ABCD, 0, 0], [-1, 1, 0])));
    // Mirroring mirrored text again gives plain text back.
    expect(transformEntity(mirrored, mirrorY, { mirrtext: true })).toMatchObject({
      position: [1, 0, 0],
      extra: [{ code: 71, value: '0' }],
    });
    // Centered text keeps its alignment point (11) in place across a mirror.
    const centered = withExtra(text('ABCD', [0, 0, 0], 1), [
      [72, 1],
      [11, 5],
      [21, 0],
      [31, 0],
    ]);
    expect(round(transformEntity(centered, mirrorY))).toMatchObject({
      position: round([-5 - ABCD / 2, 0, 0]),
      extra: [
        { code: 72, value: '1' },
        { code: 11, value: '-5' },
        { code: 21, value: '0' },
        { code: 31, value: '0' },
      ],
    });
  });

  it('moves a modeled alignment point and scales segment widths', () => {
    const aligned = { ...text('AB', [0, 0, 0], 1), align_point: [5, 0, 0] as Point3 };
    expect(transformEntity(aligned, move)).toMatchObject({ position: [1, 2, 3], align_point: [6, 2, 3] });
    const wide = polyline([
      [0, 0],
      [1, 0],
    ]);
    const widths = {
      ...wide,
      vertices: wide.vertices.map((v) => ({ ...v, start_width: 0.5, end_width: 1 })),
    };
    expect(transformEntity(widths, double)).toMatchObject({
      vertices: [
        { start_width: 1, end_width: 2 },
        { start_width: 1, end_width: 2 },
      ],
    });
  });

  it("carries an insert's ATTRIBs along: points, height, rotation; readable across a mirror", () => {
    const tags = (rows: Array<[number, string | number]>) =>
      rows.map(([code, value]) => ({ code, value: String(value) }));
    const ref = {
      ...insert('B', [10, 0, 0]),
      attribs: tags([
        [0, 'ATTRIB'],
        [5, 'A1'],
        [100, 'AcDbText'],
        [10, 12],
        [20, 0],
        [30, 0],
        [40, 1],
        [1, 'ABCD'],
        [100, 'AcDbAttribute'],
        [2, 'TAG'],
        [0, 'SEQEND'],
        [5, 'A2'],
      ]),
    };
    const value = (e: Entity, code: number) =>
      e.type === 'Insert' ? e.attribs?.find((t) => t.code === code)?.value : undefined;
    const moved = transformEntity(ref, move);
    expect([10, 20, 30, 40].map((c) => value(moved, c))).toEqual(['13', '2', '3', '1']);
    const turned = transformEntity(ref, quarter);
    expect([10, 20, 50].map((c) => value(turned, c))).toEqual(['0', '12', '90']);
    expect(value(transformEntity(ref, double), 40)).toBe('2');
    // Mirrored about x = 0: the attribute reads left to right in the mirrored box (12..12 + ABCD → the
    // other way round).
    const mirrored = transformEntity(ref, mirrorY);
    expect(round(Number(value(mirrored, 10)))).toBe(round(-12 - ABCD));
    expect(value(mirrored, 71)).toBeUndefined();
    expect(value(transformEntity(ref, mirrorY, { mirrtext: true }), 71)).toBe('2');
    expect(ref.attribs[3]).toEqual({ code: 10, value: '12' });
    expect(moved.type === 'Insert' && moved.attribs?.slice(-2)).toEqual(
      tags([
        [0, 'SEQEND'],
        [5, 'A2'],
      ]),
    );
  });

  it('mirror re-attaches mtext from the other side', () => {
    expect(transformEntity(mtext('A', [1, 0, 0], 1, { attachment: 1 }), mirrorY)).toMatchObject({
      position: [-1, 0, 0],
      attachment: 3,
      rotation: 0,
    });
    expect(transformEntity(mtext('A', [1, 0, 0], 1, { attachment: 1 }), mirrorX)).toMatchObject({
      position: [1, 0, 0],
      attachment: 7,
      rotation: 0,
    });
    expect(transformEntity(mtext('A', [1, 0, 0], 1, { attachment: 5 }), mirrorY)).toMatchObject({
      attachment: 5,
    });
    const box0 = bounds(mtext('ABC\\PDEFGH', [1, 0, 0], 1, { attachment: 4 }));
    const box1 = bounds(transformEntity(mtext('ABC\\PDEFGH', [1, 0, 0], 1, { attachment: 4 }), mirrorY));
    expect(round(box1)).toEqual(
      round({ min: [-(box0?.max[0] ?? 0), box0?.min[1], 0], max: [-(box0?.min[0] ?? 0), box0?.max[1], 0] }),
    );
  });

  it('OCS entities with a (0, 0, -1) extrusion transform in the world and stay in their OCS', () => {
    const c = withExtra(circle([5, 0, 0], 1), FLIPPED);
    const moved = transformEntity(c, translation([1, 0]));
    expect(moved).toMatchObject({ center: [4, 0, 0], extra: c.extra });
    expect(round(bounds(moved))).toEqual(box([-5, -1, 0], [-3, 1, 0]));
  });

  it('refuses raw entities and transforms that are not similarities; never mutates its input', () => {
    expect(() => transformEntity(raw('3DSOLID', []), move)).toThrow(GeometryError);
    const uneven = { a: 2, b: 0, c: 0, d: 1, e: 0, f: 0, sz: 1, tz: 0 };
    expect(() => transformEntity(line([0, 0, 0], [1, 0, 0]), uneven)).toThrow(
      expect.objectContaining({ code: 'invalid_transform' }),
    );
    expect(() => scaling([0, 0], 0)).toThrow(expect.objectContaining({ code: 'invalid_transform' }));
    expect(() => mirroring([1, 1], [1, 1])).toThrow(expect.objectContaining({ code: 'invalid_transform' }));
    try {
      transformEntity(raw('3DSOLID', []), move);
    } catch (error) {
      expect((error as GeometryError).code).toBe('not_transformable');
    }
    const input = withExtra(text('ABCD', [1, 0, 0], 1, 10), [[71, 0]]);
    const copy = structuredClone(input);
    transformEntity(input, compose(mirrorY, quarter), { mirrtext: true });
    transformEntity(input, mirrorX);
    expect(input).toEqual(copy);
  });
});

describe('properties', () => {
  // Millimetre grid values: no subnormal numbers, which no drawing holds and which only test the float unit.
  const coord = fc.integer({ min: -1_000_000, max: 1_000_000 }).map((i) => i / 1000);
  const pt = fc.tuple(coord, coord, fc.constant(0)).map((p): Point3 => [p[0], p[1], p[2]]);
  const angle = fc.integer({ min: 0, max: 359_000 }).map((i) => i / 1000);
  const curve: fc.Arbitrary<Entity> = fc.oneof(
    fc.tuple(pt, pt).map(([a, b]) => line(a, b)),
    fc
      .tuple(
        pt,
        fc.integer({ min: 100, max: 500_000 }).map((i) => i / 1000),
      )
      .map(([c, r]) => circle(c, r)),
    fc
      .tuple(
        pt,
        fc.integer({ min: 100, max: 500_000 }).map((i) => i / 1000),
        angle,
        angle,
      )
      .map(([c, r, s, e]) => arc(c, r, s, e)),
    fc
      .array(
        fc.tuple(
          coord,
          coord,
          fc.integer({ min: -2000, max: 2000 }).map((i) => i / 1000),
        ),
        { minLength: 2, maxLength: 6 },
      )
      .map((vs) => polyline(vs)),
  );
  const near = (a: readonly number[], b: readonly number[], eps = 1e-6) =>
    a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= eps * Math.max(1, Math.abs(v)));

  it('a closest point lies on the entity and inside its bounds', () => {
    fc.assert(
      fc.property(curve, pt, (e, p) => {
        const c = closestPoint(e, p);
        const b = bounds(e);
        if (!c || !b) return false;
        const slack = 1e-6 * (1 + Math.abs(c.point[0]) + Math.abs(c.point[1]));
        return (
          containsPoint(e, c.point, slack) &&
          c.point[0] >= b.min[0] - slack &&
          c.point[0] <= b.max[0] + slack &&
          c.point[1] >= b.min[1] - slack &&
          c.point[1] <= b.max[1] + slack
        );
      }),
    );
  });

  it('crossing points lie on both entities', () => {
    fc.assert(
      fc.property(curve, curve, (a, b) =>
        intersections(a, b).every(
          (p) => (distance(a, p) ?? Infinity) <= 1e-5 && (distance(b, p) ?? Infinity) <= 1e-5,
        ),
      ),
    );
  });

  it('rotating back and mirroring twice give the entity back; bounds move with a move', () => {
    fc.assert(
      fc.property(curve, pt, angle, pt, pt, (e, c, deg, v, m2) => {
        const there = transformEntity(transformEntity(e, rotation(c, deg)), rotation(c, -deg));
        const p2: Point3 = [m2[0] + 1, m2[1] + 0.5, 0];
        const twice = transformEntity(transformEntity(e, mirroring(m2, p2)), mirroring(m2, p2));
        const b0 = bounds(e);
        const b1 = bounds(transformEntity(e, translation(v)));
        const same = (x: Entity) =>
          near(bounds(x)?.min ?? [], b0?.min ?? [], 1e-6) && near(bounds(x)?.max ?? [], b0?.max ?? [], 1e-6);
        return (
          same(there) &&
          same(twice) &&
          near(b1?.min ?? [], [(b0?.min[0] ?? 0) + v[0], (b0?.min[1] ?? 0) + v[1]], 1e-6) &&
          near(b1?.max ?? [], [(b0?.max[0] ?? 0) + v[0], (b0?.max[1] ?? 0) + v[1]], 1e-6)
        );
      }),
    );
  });
});

describe('ellipses', () => {
  const turned = ellipse([1, 2, 0], [3 * Math.cos(Math.PI / 6), 3 * Math.sin(Math.PI / 6), 0], 0.5);

  it('bounds: a whole turned ellipse to its exact extremes, an arc to what it sweeps', () => {
    // Half widths of center + cos t·A + sin t·B: |(Ax, Bx)| and |(Ay, By)|, B = ratio · (z × A).
    const [ax, ay] = turned.major_axis;
    const [bx, by] = [-ay * 0.5, ax * 0.5];
    const hx = Math.hypot(ax, bx);
    const hy = Math.hypot(ay, by);
    const b = bounds(turned);
    expect(b?.min[0]).toBeCloseTo(1 - hx, 12);
    expect(b?.max[0]).toBeCloseTo(1 + hx, 12);
    expect(b?.min[1]).toBeCloseTo(2 - hy, 12);
    expect(b?.max[1]).toBeCloseTo(2 + hy, 12);
    expect(round(bounds(ellipse([0, 0, 0], [2, 0, 0], 0.5, 0, Math.PI / 2)))).toEqual(
      box([0, 0, 0], [2, 1, 0]),
    );
    // Across parameter 0: from 3π/2 (the bottom) to π/2 (the top) through the right end.
    expect(round(bounds(ellipse([0, 0, 0], [2, 0, 0], 0.5, 1.5 * Math.PI, 0.5 * Math.PI)))).toEqual(
      box([0, -1, 0], [2, 1, 0]),
    );
    // An extrusion of (0, 0, −1) runs the parameters clockwise seen from above.
    const below = ellipse([0, 0, 0], [2, 0, 0], 0.5, 0, Math.PI / 2, { extrusion: [0, 0, -1] });
    expect(round(bounds(below))).toEqual(box([0, -1, 0], [2, 0, 0]));
  });

  it('outline and inside: a whole ellipse holds its inside, an arc only its curve', () => {
    const whole = ellipse([0, 0, 0], [2, 0, 0], 0.5);
    expect(containsPoint(whole, [1, 0.2])).toBe(true);
    expect(containsPoint(whole, [1.9, 0.9])).toBe(false);
    expect(containsPoint(whole, [0, 1.0005], 0.01)).toBe(true);
    const quarter = ellipse([0, 0, 0], [2, 0, 0], 0.5, 0, Math.PI / 2);
    expect(containsPoint(quarter, [0.5, 0.2])).toBe(false);
    expect(containsPoint(quarter, [2 * Math.cos(1), Math.sin(1)], 0.001)).toBe(true);
    expect(distance(quarter, [-2, 0])).toBeCloseTo(Math.hypot(2, 1), 12);
  });

  it('transforms as ezdxf does: a mirror turns the extrusion over and keeps the parameters', () => {
    const arcOf = ellipse([1, 0, 0], [2, 0, 0], 0.5, 0.25, 1.5);
    const mirrored = transformEntity(arcOf, mirroring([0, 0], [0, 1]));
    expect(mirrored).toMatchObject({
      center: [-1, 0, 0],
      major_axis: [-2, 0, 0],
      extrusion: [0, 0, -1],
      ratio: 0.5,
      start_param: 0.25,
      end_param: 1.5,
    });
    // The mirrored arc is the mirror image of the arc.
    const b = bounds(arcOf);
    const m = bounds(mirrored);
    expect(m?.min[0]).toBeCloseTo(-(b?.max[0] as number), 12);
    expect(m?.max[0]).toBeCloseTo(-(b?.min[0] as number), 12);
    expect(m?.min[1]).toBeCloseTo(b?.min[1] as number, 12);
    expect(m?.max[1]).toBeCloseTo(b?.max[1] as number, 12);
    const moved = transformEntity(turned, compose(rotation([0, 0], 90), scaling([0, 0], 2)));
    expect(moved).toMatchObject({ ratio: 0.5, start_param: 0, end_param: 2 * Math.PI });
    expect((moved as typeof turned).extrusion).toBeUndefined();
    expect(turned.center).toEqual([1, 2, 0]);
  });

  it('transform then the inverse transform gives the ellipse back within 1e-9', () => {
    const coord = fc.integer({ min: -100_000, max: 100_000 }).map((i) => i / 100);
    const matrices = [
      [translation([3.5, -2, 1]), translation([-3.5, 2, -1])],
      [rotation([1, 2], 37.5), rotation([1, 2], -37.5)],
      [scaling([1, 2, 0], -2.5), scaling([1, 2, 0], -0.4)],
      [mirroring([0, 1], [2, 5]), mirroring([0, 1], [2, 5])],
    ] as const;
    fc.assert(
      fc.property(
        coord,
        coord,
        coord,
        coord,
        fc.integer({ min: 1, max: 1000 }).map((i) => i / 1000),
        fc.integer({ min: 0, max: 6283 }).map((i) => i / 1000),
        fc.integer({ min: 0, max: 6283 }).map((i) => i / 1000),
        fc.integer({ min: 0, max: 3 }),
        (cx, cy, mx, my, ratio, s, e, k) => {
          fc.pre(mx !== 0 || my !== 0);
          const original = ellipse([cx, cy, 0], [mx, my, 0], ratio, s, e);
          const [there, back] = matrices[k] as (typeof matrices)[number];
          const again = transformEntity(transformEntity(original, there), back) as typeof original;
          const close = (a: readonly number[], b: readonly number[]) =>
            a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 1e-9 * Math.max(1, Math.abs(v)));
          expect(close(again.center, original.center)).toBe(true);
          expect(close(again.extrusion ?? [0, 0, 1], [0, 0, 1])).toBe(true);
          if (ratio < 1) {
            expect(close(again.major_axis, original.major_axis)).toBe(true);
            expect(close([again.ratio, again.start_param, again.end_param], [ratio, s, e])).toBe(true);
          } else {
            // A circle drawn as an ellipse has no one major axis: a rounding of its ratio past 1 swaps
            // the axes (as ezdxf does), which turns the parameters a quarter. The same curve: the
            // same points where it starts, ends and halfway between.
            const at = (x: typeof original, t: number) => {
              const minor = minorAxis(x.major_axis, x.extrusion ?? [0, 0, 1], x.ratio);
              return x.center.map(
                (c, i) => c + (x.major_axis[i] ?? 0) * Math.cos(t) + (minor[i] ?? 0) * Math.sin(t),
              );
            };
            const sweep = (x: typeof original) => (x.end_param - x.start_param + 2 * Math.PI) % (2 * Math.PI);
            const mid = (x: typeof original) => x.start_param + sweep(x) / 2;
            const near = (a: number[], b: number[]) =>
              a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 1e-9 * Math.max(1, Math.hypot(mx, my)));
            expect(near(at(again, again.start_param), at(original, s))).toBe(true);
            expect(near(at(again, again.end_param), at(original, e))).toBe(true);
            expect(near(at(again, mid(again)), at(original, mid(original)))).toBe(true);
          }
        },
      ),
    );
  });
});
