/**
 * XLINE and RAY: lines through `start` along a unit `direction`, without end both ways (XLINE) or one
 * way (RAY). They have no bounds (ezdxf's bounding boxes leave them out too); their distance, crossing
 * and containment are those of the infinite line, and a drawing shows them cut at its window.
 */
import type { Point3, RayEntity, XLineEntity } from '../model.js';
import type { Segment } from './curves.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { normalize } from './ocs.js';
import type { Bounds, Closest } from './types.js';

export interface RayShape {
  kind: 'ray';
  start: Point3;
  direction: Point3;
  /** True for an XLINE (both ways), false for a RAY. */
  both: boolean;
}

export const rayShape = (e: XLineEntity | RayEntity): RayShape => ({
  kind: 'ray',
  start: e.start,
  direction: e.direction,
  both: e.type === 'XLine',
});

/** ezdxf's XLine.transform: the start point mapped, the direction mapped and made a unit vector again. */
export function transformXLine<E extends XLineEntity | RayEntity>(e: E, m: Matrix): E {
  return { ...e, start: applyPoint(m, e.start), direction: normalize(applyVector(m, e.direction)) };
}

export function transformRay(r: RayShape, m: Matrix): RayShape {
  return { ...r, start: applyPoint(m, r.start), direction: normalize(applyVector(m, r.direction)) };
}

/** The direction in the XY plane, made a unit vector (undefined for a vertical one: it is a point there). */
function planeDirection(r: RayShape): [number, number] | undefined {
  const [dx, dy] = r.direction;
  const l = Math.hypot(dx, dy);
  return l === 0 ? undefined : [dx / l, dy / l];
}

export function rayClosest(r: RayShape, x: number, y: number): Closest {
  const d = planeDirection(r);
  const [sx, sy, sz] = r.start;
  if (!d) return { point: [sx, sy, sz], distance: Math.hypot(x - sx, y - sy) };
  let t = (x - sx) * d[0] + (y - sy) * d[1];
  if (!r.both && t < 0) t = 0;
  const point: Point3 = [sx + t * d[0], sy + t * d[1], sz];
  return { point, distance: Math.hypot(x - point[0], y - point[1]) };
}

/**
 * The part of the line within `box` (grown by `grow` each way: by default 1, so ends on its border still
 * cross), as one segment; undefined when the line misses it. Liang–Barsky clipping of the parameter range.
 */
export function rayClipped(r: RayShape, box: Bounds, grow = 1): Segment | undefined {
  const d = planeDirection(r);
  const [sx, sy, sz] = r.start;
  if (!d) return undefined;
  let lo = r.both ? -Infinity : 0;
  let hi = Infinity;
  const edges: Array<[number, number, number]> = [
    [d[0], sx, box.min[0] - grow],
    [-d[0], -sx, -(box.max[0] + grow)],
    [d[1], sy, box.min[1] - grow],
    [-d[1], -sy, -(box.max[1] + grow)],
  ];
  // Inside where p·t + q ≥ limit for every edge.
  for (const [p, q, limit] of edges) {
    if (p === 0) {
      if (q < limit) return undefined;
      continue;
    }
    const t = (limit - q) / p;
    if (p > 0) lo = Math.max(lo, t);
    else hi = Math.min(hi, t);
  }
  if (!(lo <= hi) || !Number.isFinite(lo) || !Number.isFinite(hi)) return undefined;
  return {
    kind: 'segment',
    a: [sx + lo * d[0], sy + lo * d[1], sz],
    b: [sx + hi * d[0], sy + hi * d[1], sz],
  };
}
