/** Entities as curves in the XY plane: straight segments and counter-clockwise arcs (circles are full arcs). */
import type { LwPolylineEntity, Point3 } from '../model.js';
import { epsFor, hypot2, normalizeRad, TAU } from './math.js';
import type { Bounds, Closest } from './types.js';

export interface Segment {
  kind: 'segment';
  a: Point3;
  b: Point3;
}

export interface ArcCurve {
  kind: 'arc';
  center: Point3;
  radius: number;
  /** Radians in [0, 2π). */
  start: number;
  /** Counter-clockwise extent in radians, in (0, 2π]; 2π is a full circle. */
  sweep: number;
  /** Traversal direction when the arc is part of a path (a polyline segment with a negative bulge runs clockwise). */
  ccw: boolean;
}

export type Curve = Segment | ArcCurve;

export function arcCurve(center: Point3, radius: number, startDeg: number, endDeg: number): ArcCurve {
  const start = normalizeRad((startDeg * Math.PI) / 180);
  let sweep = normalizeRad((endDeg * Math.PI) / 180 - start);
  // Equal start and end angles draw the whole circle.
  if (sweep === 0) sweep = TAU;
  return { kind: 'arc', center, radius, start, sweep, ccw: true };
}

export function circleCurve(center: Point3, radius: number): ArcCurve {
  return { kind: 'arc', center, radius, start: 0, sweep: TAU, ccw: true };
}

/** The arc of a polyline segment with bulge b = tan(θ/4) from p0 to p1 (b > 0 counter-clockwise). */
export function bulgeCurve(p0: Point3, p1: Point3, bulge: number): Curve {
  const dx = p1[0] - p0[0];
  const dy = p1[1] - p0[1];
  // A bulge this small is straight to well below drawing precision, and keeps the radius finite.
  if (Math.abs(bulge) < 1e-9 || (dx === 0 && dy === 0)) return { kind: 'segment', a: p0, b: p1 };
  const k = (1 - bulge * bulge) / (4 * bulge);
  const center: Point3 = [(p0[0] + p1[0]) / 2 - k * dy, (p0[1] + p1[1]) / 2 + k * dx, p0[2]];
  const radius = hypot2(p0[0] - center[0], p0[1] - center[1]);
  const a0 = Math.atan2(p0[1] - center[1], p0[0] - center[0]);
  const a1 = Math.atan2(p1[1] - center[1], p1[0] - center[0]);
  const sweep = 4 * Math.atan(Math.abs(bulge));
  return { kind: 'arc', center, radius, start: normalizeRad(bulge > 0 ? a0 : a1), sweep, ccw: bulge > 0 };
}

export function polylineCurves(e: LwPolylineEntity): Curve[] {
  const n = e.vertices.length;
  const points = e.vertices.map((v): Point3 => [v.x, v.y, e.elevation]);
  const curves: Curve[] = [];
  const last = e.closed ? n : n - 1;
  for (let i = 0; i < last; i++) {
    const v = e.vertices[i];
    const p0 = points[i];
    const p1 = points[(i + 1) % n];
    if (v && p0 && p1) curves.push(bulgeCurve(p0, p1, v.bulge));
  }
  return curves;
}

export function arcPoint(c: ArcCurve, angle: number): Point3 {
  return [c.center[0] + c.radius * Math.cos(angle), c.center[1] + c.radius * Math.sin(angle), c.center[2]];
}

export function arcEnds(c: ArcCurve): [Point3, Point3] {
  return [arcPoint(c, c.start), arcPoint(c, c.start + c.sweep)];
}

/** True when the direction `angle` (radians) falls within the arc, `eps` radians of slack at each end. */
export function inSweep(c: ArcCurve, angle: number, eps = 1e-12): boolean {
  if (c.sweep >= TAU) return true;
  const offset = normalizeRad(angle - c.start);
  return offset <= c.sweep + eps || offset >= TAU - eps;
}

/**
 * The points that bound an arc of less than a turn, in the XY plane: its two ends and the axis extremes
 * (0, 90, 180, 270 degrees) it passes. Given to `visit` one by one, so a caller growing a box of its own
 * makes no array.
 */
export function arcExtent(c: ArcCurve, visit: (x: number, y: number) => void): void {
  const [cx, cy] = c.center;
  const r = c.radius;
  const end = c.start + c.sweep;
  visit(cx + r * Math.cos(c.start), cy + r * Math.sin(c.start));
  visit(cx + r * Math.cos(end), cy + r * Math.sin(end));
  if (inSweep(c, 0, 0)) visit(cx + r, cy);
  if (inSweep(c, Math.PI / 2, 0)) visit(cx, cy + r);
  if (inSweep(c, Math.PI, 0)) visit(cx - r, cy);
  if (inSweep(c, (3 * Math.PI) / 2, 0)) visit(cx, cy - r);
}

export function curveBounds(c: Curve): Bounds {
  if (c.kind === 'segment') {
    return {
      min: [Math.min(c.a[0], c.b[0]), Math.min(c.a[1], c.b[1]), Math.min(c.a[2], c.b[2])],
      max: [Math.max(c.a[0], c.b[0]), Math.max(c.a[1], c.b[1]), Math.max(c.a[2], c.b[2])],
    };
  }
  const [cx, cy, z] = c.center;
  const r = c.radius;
  if (c.sweep >= TAU) return { min: [cx - r, cy - r, z], max: [cx + r, cy + r, z] };
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  arcExtent(c, (x, y) => {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  });
  return { min: [minX, minY, z], max: [maxX, maxY, z] };
}

/** Closest point of a segment in the XY plane; its z interpolated along the segment. */
export function segmentClosest(a: Point3, b: Point3, x: number, y: number): Closest {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  let t = length2 === 0 ? 0 : ((x - a[0]) * dx + (y - a[1]) * dy) / length2;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const point: Point3 = [a[0] + t * dx, a[1] + t * dy, a[2] + t * (b[2] - a[2])];
  return { point, distance: hypot2(x - point[0], y - point[1]) };
}

export function curveClosest(c: Curve, x: number, y: number): Closest {
  if (c.kind === 'segment') return segmentClosest(c.a, c.b, x, y);
  const dx = x - c.center[0];
  const dy = y - c.center[1];
  const fromCenter = hypot2(dx, dy);
  // At the center every point of the curve is as close: the start point stands for them.
  const angle = fromCenter <= epsFor(c.radius) ? c.start : Math.atan2(dy, dx);
  if (inSweep(c, angle)) {
    const point = arcPoint(c, angle);
    return { point, distance: Math.abs(fromCenter - c.radius) };
  }
  const [p0, p1] = arcEnds(c);
  const d0 = hypot2(x - p0[0], y - p0[1]);
  const d1 = hypot2(x - p1[0], y - p1[1]);
  return d0 <= d1 ? { point: p0, distance: d0 } : { point: p1, distance: d1 };
}

/** The closest of several candidates (undefined for none). */
export function nearestOf(candidates: Iterable<Closest | undefined>): Closest | undefined {
  let best: Closest | undefined;
  for (const c of candidates) if (c && (!best || c.distance < best.distance)) best = c;
  return best;
}

/** Points along an arc in its traversal direction, `perTurn` chords to a full circle, both ends included. */
export function tessellate(c: ArcCurve, perTurn = 64): Point3[] {
  const n = Math.max(2, Math.ceil((c.sweep / TAU) * perTurn));
  const points: Point3[] = [];
  for (let i = 0; i <= n; i++) {
    const t = c.ccw ? i / n : 1 - i / n;
    points.push(arcPoint(c, c.start + t * c.sweep));
  }
  return points;
}
