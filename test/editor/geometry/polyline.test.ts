/**
 * Old-style POLYLINE geometry from its VERTEX tags: a 2D one's bulges and widths in its OCS, a 3D one,
 * a polyface's visible edges, a mesh's grid; transforms as ezdxf's, and transform then inverse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bounds,
  containsPoint,
  distance,
  mirroring,
  scaling,
  transformEntity,
} from '../../../src/editor/geometry/index.js';
import {
  polylineBands,
  polylineOutline,
  polylineReadout,
  polylineVertices,
} from '../../../src/editor/geometry/polyline.js';
import type { DxfTag, Point3, PolylineEntity } from '../../../src/editor/model.js';
import { round } from '../query/fixtures.js';
import { close, INVERSE_PAIRS, pairIndex, point } from './inverse-steps.js';

interface V {
  at: Point3;
  bulge?: number;
  widths?: [number, number];
  flags?: number;
  face?: number[];
}

/** VERTEX and SEQEND tags as a file holds them (R2000 markers), with handles from 100 on. */
function vertexTags(vertices: V[]): DxfTag[] {
  const tags: DxfTag[] = [];
  const t = (code: number, value: string | number) => tags.push({ code, value: String(value) });
  vertices.forEach((v, i) => {
    t(0, 'VERTEX');
    t(5, (0x100 + i).toString(16).toUpperCase());
    t(330, '1');
    t(100, 'AcDbEntity');
    t(8, '0');
    t(100, 'AcDbVertex');
    t(100, 'AcDb2dVertex');
    t(10, v.at[0]);
    t(20, v.at[1]);
    t(30, v.at[2]);
    if (v.widths) {
      t(40, v.widths[0]);
      t(41, v.widths[1]);
    }
    if (v.bulge) t(42, v.bulge);
    t(70, v.flags ?? 0);
    v.face?.forEach((n, k) => {
      t(71 + k, n);
    });
  });
  t(0, 'SEQEND');
  t(5, 'FF');
  t(330, '1');
  t(100, 'AcDbEntity');
  t(8, '0');
  return tags;
}

const polyline = (vertices: V[], flags = 0, over: Partial<PolylineEntity> = {}): PolylineEntity => ({
  type: 'Polyline',
  handle: '1',
  space: '*Model_Space',
  layer: '0',
  color: 256,
  linetype: 'BYLAYER',
  lineweight: -1,
  flags,
  vertex_tags: vertexTags(vertices),
  ...over,
});

// A closed 2D polyline: a 10 x 5 box whose top edge bulges out as a half circle (bulge 1 from (10, 5) to (0, 5)).
const arched = polyline(
  [{ at: [0, 0, 0] }, { at: [10, 0, 0] }, { at: [10, 5, 0], bulge: 1 }, { at: [0, 5, 0] }],
  1,
);

describe('POLYLINE geometry', () => {
  it('a 2D one: bulged segments, closed region, exact bounds', () => {
    expect(round(bounds(arched))).toEqual({ min: [0, 0, 0], max: [10, 10, 0] });
    expect(containsPoint(arched, [5, 9])).toBe(true);
    expect(containsPoint(arched, [9.5, 9])).toBe(false);
    expect(distance(arched, [5, 12])).toBeCloseTo(2, 12);
    expect(polylineOutline(arched).curves.map((c) => c.kind)).toEqual([
      'segment',
      'segment',
      'arc',
      'segment',
    ]);
  });

  it('reads its OCS: an extrusion of (0, 0, -1) mirrors x, the elevation is its z', () => {
    const below = { ...arched, extrusion: [0, 0, -1] as Point3, elevation: [0, 0, 3] as Point3 };
    expect(round(bounds(below))).toEqual({ min: [-10, 0, -3], max: [0, 10, -3] });
  });

  it('a 3D one, a polyface (invisible edges left out) and a mesh grid', () => {
    const three = polyline(
      [
        { at: [0, 0, 0], flags: 32 },
        { at: [3, 4, 5], flags: 32 },
        { at: [6, 0, 1], flags: 32 },
      ],
      8,
    );
    expect(bounds(three)).toEqual({ min: [0, 0, 0], max: [6, 4, 5] });
    const face = polyline(
      [
        { at: [0, 0, 0], flags: 192 },
        { at: [4, 0, 0], flags: 192 },
        { at: [4, 4, 0], flags: 192 },
        { at: [0, 4, 0], flags: 192 },
        // The edge from vertex 3 (negative) is invisible.
        { at: [0, 0, 0], flags: 128, face: [1, 2, -3, 4] },
      ],
      64,
    );
    expect(polylineOutline(face).curves).toHaveLength(3);
    expect(polylineReadout(face)).toMatchObject({ kind: 'polyface', faces: [[1, 2, -3, 4]] });
    const mesh = polyline(
      [0, 1, 2, 3, 4, 5].map((i) => ({ at: [Math.floor(i / 3), i % 3, 0] as Point3, flags: 64 })),
      16,
      {
        extra: [
          { code: 71, value: '2' },
          { code: 72, value: '3' },
        ],
      },
    );
    // 2 rows of 3: 2 x 2 along the rows, 3 across them.
    expect(polylineOutline(mesh).curves).toHaveLength(7);
    expect(bounds(mesh)).toEqual({ min: [0, 0, 0], max: [1, 2, 0] });
  });

  it('paints its widths as bands: a straight segment a quadrilateral, tapering', () => {
    const wide = polyline([{ at: [0, 0, 0], widths: [2, 4] }, { at: [10, 0, 0] }]);
    expect(round(polylineBands(wide))).toEqual([
      [
        [0, 1, 0],
        [10, 2, 0],
        [10, -2, 0],
        [0, -1, 0],
      ],
    ]);
    // Default widths (40, 41) for vertices without their own.
    const plain = polyline([{ at: [0, 0, 0] }, { at: [10, 0, 0] }], 0, { extra: [{ code: 40, value: '1' }] });
    expect(polylineBands(plain)).toHaveLength(1);
    expect(polylineBands(arched)).toEqual([]);
  });

  it('transforms as ezdxf does: a mirror turns the extrusion over, widths scale, tags change in place', () => {
    const wide = polyline([{ at: [1, 0, 0], widths: [2, 4], bulge: 0.5 }, { at: [10, 0, 0] }]);
    const mirrored = transformEntity(wide, mirroring([0, 0], [0, 1])) as PolylineEntity;
    expect(mirrored.extrusion).toEqual([0, 0, -1]);
    expect(mirrored.elevation).toEqual([0, 0, 0]);
    // In the new OCS (x is the world's -x) the vertices read as they did; the bulge is kept.
    expect(round(polylineVertices(mirrored).map((v) => v.location))).toEqual([
      [1, 0, 0],
      [10, 0, 0],
    ]);
    const b = bounds(wide);
    expect(round(bounds(mirrored))).toEqual(
      round({ min: [-(b?.max[0] ?? 0), b?.min[1], 0], max: [-(b?.min[0] ?? 0), b?.max[1], 0] }),
    );
    const scaled = transformEntity(wide, scaling([0, 0, 0], 2)) as PolylineEntity;
    expect(polylineVertices(scaled)[0]).toMatchObject({ start_width: 4, end_width: 8, bulge: 0.5 });
    // The handles and everything else of the VERTEX tags stay.
    expect(scaled.vertex_tags.filter((t) => t.code === 5)).toEqual(
      wide.vertex_tags.filter((t) => t.code === 5),
    );
    expect(scaled.vertex_tags).toHaveLength(wide.vertex_tags.length);
  });

  it('transform then the inverse transform gives it back within 1e-9', () => {
    const pt = point(true);
    fc.assert(
      fc.property(
        fc.array(pt, { minLength: 2, maxLength: 6 }),
        pairIndex,
        fc.constantFrom(0, 8),
        fc.constantFrom<Point3 | undefined>(undefined, [0, 0, -1], [0.6, 0, 0.8]),
        (points, k, flags, extrusion) => {
          const original = polyline(
            points.map((at) => ({ at, bulge: 0.25, widths: [0.5, 1] as [number, number] })),
            flags,
            flags === 0 && extrusion ? { extrusion, elevation: [0, 0, 0] } : {},
          );
          const [there, back] = INVERSE_PAIRS[k] as (typeof INVERSE_PAIRS)[number];
          const again = transformEntity(transformEntity(original, there), back) as PolylineEntity;
          const was = polylineVertices(original);
          polylineVertices(again).forEach((v, i) => {
            const w = was[i] as (typeof was)[number];
            expect(close(v.location, w.location)).toBe(true);
            expect(close([v.bulge, v.start_width ?? 0, v.end_width ?? 0], [w.bulge, 0.5, 1])).toBe(true);
          });
          expect(close(again.extrusion ?? [0, 0, 1], original.extrusion ?? [0, 0, 1])).toBe(true);
        },
      ),
    );
  });
});
