/**
 * SOLID, TRACE and 3DFACE geometry: their outlines in the world's XY plane (a SOLID's corners run 0, 1,
 * 3, 2; a 3DFACE's 0, 1, 2, 3 without its invisible edges), the filled region they cover, and their
 * transforms as ezdxf does them: a SOLID or TRACE through its OCS (corners, thickness and extrusion), a
 * 3DFACE corner by corner in the world.
 */
import type { Face3dEntity, Point3, SolidEntity, TraceEntity } from '../model.js';
import type { Segment } from './curves.js';
import { extraNumber, withExtraValue } from './extra.js';
import type { Vec2 } from './math.js';
import { applyPoint, type Matrix } from './matrix.js';
import { isWorldZ, ocsOf, ocsThickness, ocsTransform, ocsVertex, toWcs } from './ocs.js';

const same = (a: Point3, b: Point3) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

/** A SOLID's or TRACE's corners in the world, in outline order (0, 1, 3, 2; a triangle's three). */
export function solidOutline(e: SolidEntity | TraceEntity): Point3[] {
  const ocs = ocsOf(e.extrusion);
  const [p0, p1, p2, p3] = e.corners.map((c) => toWcs(ocs, c)) as [Point3, Point3, Point3, Point3];
  return same(e.corners[2], e.corners[3]) ? [p0, p1, p2] : [p0, p1, p3, p2];
}

/** A 3DFACE's corners in outline order (0, 1, 2, 3; a triangle's three) and which of its edges show. */
export function faceOutline(e: Face3dEntity): { points: Point3[]; visible: boolean[] } {
  const [p0, p1, p2, p3] = e.corners;
  const points = same(p2, p3) ? [p0, p1, p2] : [p0, p1, p2, p3];
  // Edge i runs from corner i to the next; a triangle's third edge (2 to 3 to 0) is the fourth's bit too.
  const visible = points.map((_, i) => {
    const bit = points.length === 3 && i === 2 ? 4 : 1 << i;
    return (e.invisible_edges & bit) === 0;
  });
  return { points, visible };
}

/** The closed chain of segments through `points`; only the edges `visible` marks (all when absent). */
export function loopSegments(points: readonly Point3[], visible?: readonly boolean[]): Segment[] {
  const out: Segment[] = [];
  points.forEach((a, i) => {
    const b = points[(i + 1) % points.length] as Point3;
    if (visible?.[i] !== false && !same(a, b)) out.push({ kind: 'segment', a, b });
  });
  return out;
}

export const loopVertices = (points: readonly Point3[]): Vec2[] => points.map((p): Vec2 => [p[0], p[1]]);

/** ezdxf's Solid.transform: corners through the OCS, thickness along the new extrusion, the new extrusion. */
export function transformSolid<E extends SolidEntity | TraceEntity>(e: E, m: Matrix): E {
  const t = ocsTransform(e.extrusion, m);
  const corners = e.corners.map((c) => ocsVertex(t, c)) as E['corners'];
  const out: E = { ...e, corners };
  if (e.extrusion || !isWorldZ(t.extrusion)) out.extrusion = t.extrusion;
  const thickness = extraNumber(e.extra, 39);
  if (thickness !== undefined && thickness !== 0)
    out.extra = withExtraValue(e.extra, 39, ocsThickness(t, thickness));
  return out;
}

export function transformFace(e: Face3dEntity, m: Matrix): Face3dEntity {
  return { ...e, corners: e.corners.map((c) => applyPoint(m, c)) as Face3dEntity['corners'] };
}
