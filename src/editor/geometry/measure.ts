/** Distances, containment and crossings of shapes in the XY plane. */
import type { Point3 } from '../model.js';
import {
  type ArcCurve,
  arcEnds,
  arcPoint,
  type Curve,
  curveClosest,
  inSweep,
  nearestOf,
  segmentClosest,
} from './curves.js';
import { epsFor, hypot2 } from './math.js';
import type { Shape } from './shape.js';
import type { Closest } from './types.js';
import { rayClosest } from './xline.js';

export function shapeClosest(shape: Shape, x: number, y: number): Closest | undefined {
  switch (shape.kind) {
    case 'point':
      return { point: [...shape.point], distance: hypot2(x - shape.point[0], y - shape.point[1]) };
    case 'curves':
      return nearestOf(shape.curves.map((c) => curveClosest(c, x, y)));
    case 'quad': {
      const [a, b, c, d] = shape.corners;
      if (insidePolygon(shape.corners, x, y)) return { point: [x, y, a[2]], distance: 0 };
      return nearestOf([
        segmentClosest(a, b, x, y),
        segmentClosest(b, c, x, y),
        segmentClosest(c, d, x, y),
        segmentClosest(d, a, x, y),
      ]);
    }
    case 'box': {
      const { min, max } = shape.bounds;
      const px = Math.min(Math.max(x, min[0]), max[0]);
      const py = Math.min(Math.max(y, min[1]), max[1]);
      return { point: [px, py, min[2]], distance: hypot2(x - px, y - py) };
    }
    case 'group':
      return nearestOf(shape.shapes.map((s) => shapeClosest(s, x, y)));
    case 'ray':
      return rayClosest(shape, x, y);
  }
}

/** Even-odd (crossing number) test against a polygon given by its vertices in order. */
function insidePolygon(vertices: readonly (readonly number[])[], x: number, y: number): boolean {
  let inside = false;
  const n = vertices.length;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const xi = vertices[i]?.[0] ?? 0;
    const yi = vertices[i]?.[1] ?? 0;
    const xj = vertices[j]?.[0] ?? 0;
    const yj = vertices[j]?.[1] ?? 0;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Inside the circular segment between an arc and its chord. */
function insideArcSegment(c: ArcCurve, x: number, y: number): boolean {
  if (hypot2(x - c.center[0], y - c.center[1]) > c.radius) return false;
  const [p0, p1] = arcEnds(c);
  const mid = arcPoint(c, c.start + c.sweep / 2);
  const side = (px: number, py: number) => (p1[0] - p0[0]) * (py - p0[1]) - (p1[1] - p0[1]) * (px - p0[0]);
  return side(x, y) * side(mid[0], mid[1]) > 0;
}

/**
 * Inside a closed outline: a circle's disc, or a closed polyline by the even-odd rule, where each bulged
 * edge adds (bulging out) or removes (bulging in) the circular segment between its arc and its chord.
 */
function insideRegion(shape: Extract<Shape, { kind: 'curves' }>, x: number, y: number): boolean {
  const region = shape.region;
  if (!region) return false;
  if (region.kind === 'disc') {
    const c = shape.curves[0];
    return c?.kind === 'arc' && hypot2(x - c.center[0], y - c.center[1]) <= c.radius;
  }
  let inside = insidePolygon(region.vertices, x, y);
  for (const c of shape.curves) if (c.kind === 'arc' && insideArcSegment(c, x, y)) inside = !inside;
  return inside;
}

/**
 * On an open curve or a point within `tolerance`; inside (or within `tolerance` of) a closed one — a circle,
 * a closed polyline, a text, mtext or image box, a raw entity's bounds.
 */
export function shapeContains(shape: Shape, x: number, y: number, tolerance: number): boolean {
  switch (shape.kind) {
    case 'curves':
      if (shape.region && insideRegion(shape, x, y)) return true;
      return shape.curves.some((c) => curveClosest(c, x, y).distance <= tolerance);
    case 'group':
      return shape.shapes.some((s) => shapeContains(s, x, y, tolerance));
    default:
      return (shapeClosest(shape, x, y)?.distance ?? Infinity) <= tolerance;
  }
}

const cross = (ax: number, ay: number, bx: number, by: number) => ax * by - ay * bx;

function pushUnique(out: Point3[], p: Point3, eps: number): void {
  if (!out.some((q) => hypot2(q[0] - p[0], q[1] - p[1]) <= eps)) out.push(p);
}

function segmentSegment(
  s: Extract<Curve, { kind: 'segment' }>,
  t: Extract<Curve, { kind: 'segment' }>,
  out: Point3[],
): void {
  const { a, b } = s;
  const { a: c, b: d } = t;
  const eps = epsFor(a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]);
  const rx = b[0] - a[0];
  const ry = b[1] - a[1];
  const sx = d[0] - c[0];
  const sy = d[1] - c[1];
  const denom = cross(rx, ry, sx, sy);
  const lr = hypot2(rx, ry);
  const ls = hypot2(sx, sy);
  if (Math.abs(denom) > 1e-12 * lr * ls) {
    const qx = c[0] - a[0];
    const qy = c[1] - a[1];
    const u = cross(qx, qy, sx, sy) / denom;
    const v = cross(qx, qy, rx, ry) / denom;
    const slackU = lr === 0 ? 0 : eps / lr;
    const slackV = ls === 0 ? 0 : eps / ls;
    if (u >= -slackU && u <= 1 + slackU && v >= -slackV && v <= 1 + slackV) {
      const w = Math.min(1, Math.max(0, u));
      pushUnique(out, [a[0] + w * rx, a[1] + w * ry, a[2] + w * (b[2] - a[2])], eps);
    }
    return;
  }
  // Parallel (or a degenerate segment): where they overlap, the ends of the overlap are the answer.
  for (const p of [c, d])
    if (segmentClosest(a, b, p[0], p[1]).distance <= eps)
      pushUnique(out, segmentClosest(a, b, p[0], p[1]).point, eps);
  for (const p of [a, b])
    if (segmentClosest(c, d, p[0], p[1]).distance <= eps) pushUnique(out, [p[0], p[1], p[2]], eps);
}

function segmentArc(
  s: Extract<Curve, { kind: 'segment' }>,
  arc: ArcCurve,
  out: Point3[],
  zFromSegment: boolean,
): void {
  const { a, b } = s;
  const eps = epsFor(a[0], a[1], b[0], b[1], arc.center[0], arc.center[1], arc.radius);
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length = hypot2(dx, dy);
  if (length === 0) {
    if (
      Math.abs(hypot2(a[0] - arc.center[0], a[1] - arc.center[1]) - arc.radius) <= eps &&
      onArc(arc, a[0], a[1])
    ) {
      pushUnique(out, [a[0], a[1], zFromSegment ? a[2] : arc.center[2]], eps);
    }
    return;
  }
  const ux = dx / length;
  const uy = dy / length;
  // Foot of the perpendicular from the center, then ± half the chord along the line.
  const t0 = (arc.center[0] - a[0]) * ux + (arc.center[1] - a[1]) * uy;
  const fx = a[0] + t0 * ux;
  const fy = a[1] + t0 * uy;
  const h = hypot2(arc.center[0] - fx, arc.center[1] - fy);
  if (h > arc.radius + eps) return;
  const half = h >= arc.radius ? 0 : Math.sqrt(arc.radius * arc.radius - h * h);
  const ts = half <= eps ? [t0] : [t0 - half, t0 + half];
  for (const t of ts) {
    if (t < -eps || t > length + eps) continue;
    const x = a[0] + t * ux;
    const y = a[1] + t * uy;
    if (!onArc(arc, x, y)) continue;
    const w = Math.min(1, Math.max(0, t / length));
    pushUnique(out, [x, y, zFromSegment ? a[2] + w * (b[2] - a[2]) : arc.center[2]], eps);
  }
}

function onArc(arc: ArcCurve, x: number, y: number): boolean {
  // Angular slack that amounts to the distance tolerance at this radius.
  const slack = arc.radius > 0 ? epsFor(x, y, arc.radius) / arc.radius : 0;
  return inSweep(arc, Math.atan2(y - arc.center[1], x - arc.center[0]), slack);
}

function arcArc(p: ArcCurve, q: ArcCurve, out: Point3[]): void {
  const eps = epsFor(p.center[0], p.center[1], q.center[0], q.center[1], p.radius, q.radius);
  const dx = q.center[0] - p.center[0];
  const dy = q.center[1] - p.center[1];
  const d = hypot2(dx, dy);
  if (d <= eps && Math.abs(p.radius - q.radius) <= eps) {
    // The same circle: where the arcs overlap, the ends of the overlap.
    for (const e of p.sweep < 2 * Math.PI ? arcEnds(p) : [])
      if (onArc(q, e[0], e[1])) pushUnique(out, e, eps);
    for (const e of q.sweep < 2 * Math.PI ? arcEnds(q) : [])
      if (onArc(p, e[0], e[1])) pushUnique(out, [e[0], e[1], p.center[2]], eps);
    return;
  }
  if (d <= eps || d > p.radius + q.radius + eps || d < Math.abs(p.radius - q.radius) - eps) return;
  const along = (p.radius * p.radius - q.radius * q.radius + d * d) / (2 * d);
  const h2 = p.radius * p.radius - along * along;
  const h = h2 > 0 ? Math.sqrt(h2) : 0;
  const mx = p.center[0] + (along * dx) / d;
  const my = p.center[1] + (along * dy) / d;
  const candidates: [number, number][] =
    h <= eps
      ? [[mx, my]]
      : [
          [mx - (h * dy) / d, my + (h * dx) / d],
          [mx + (h * dy) / d, my - (h * dx) / d],
        ];
  for (const [x, y] of candidates)
    if (onArc(p, x, y) && onArc(q, x, y)) pushUnique(out, [x, y, p.center[2]], eps);
}

function overlap(p: Curve, q: Curve): boolean {
  const box = (c: Curve): [number, number, number, number] =>
    c.kind === 'segment'
      ? [
          Math.min(c.a[0], c.b[0]),
          Math.min(c.a[1], c.b[1]),
          Math.max(c.a[0], c.b[0]),
          Math.max(c.a[1], c.b[1]),
        ]
      : [c.center[0] - c.radius, c.center[1] - c.radius, c.center[0] + c.radius, c.center[1] + c.radius];
  const [a0, a1, a2, a3] = box(p);
  const [b0, b1, b2, b3] = box(q);
  const eps = epsFor(a0, a1, a2, a3, b0, b1, b2, b3);
  return a0 <= b2 + eps && b0 <= a2 + eps && a1 <= b3 + eps && b1 <= a3 + eps;
}

/** Where two sets of curves cross in the XY plane (z from the first set), without duplicates. */
export function curveIntersections(first: readonly Curve[], second: readonly Curve[]): Point3[] {
  const out: Point3[] = [];
  for (const p of first) {
    for (const q of second) {
      if (!overlap(p, q)) continue;
      if (p.kind === 'segment' && q.kind === 'segment') segmentSegment(p, q, out);
      else if (p.kind === 'segment' && q.kind === 'arc') segmentArc(p, q, out, true);
      else if (p.kind === 'arc' && q.kind === 'segment') segmentArc(q, p, out, false);
      else if (p.kind === 'arc' && q.kind === 'arc') arcArc(p, q, out);
    }
  }
  return out;
}

/** Length of a curve: a segment's, or radius times sweep. */
function curveLength(c: Curve): number {
  return c.kind === 'segment' ? hypot2(c.b[0] - c.a[0], c.b[1] - c.a[1]) : c.radius * c.sweep;
}

/** Where a curve starts and ends as its path runs (a clockwise arc of a polyline runs end to start). */
function traversal(c: Curve): [Point3, Point3] {
  if (c.kind === 'segment') return [c.a, c.b];
  const [start, end] = arcEnds(c);
  return c.ccw ? [start, end] : [end, start];
}

/**
 * Length of a shape's curves, and for one that encloses a region (a circle, a closed polyline) its area:
 * the polygon of the curves' ends (shoelace) plus the circular segment each arc adds or takes away.
 * Undefined for shapes that are not curves (points, text, images, raw entities, inserts).
 */
export function curveMetrics(
  shape: Shape,
): { length: number; closed: boolean; area: number | null } | undefined {
  if (shape.kind !== 'curves') return undefined;
  const length = shape.curves.reduce((sum, c) => sum + curveLength(c), 0);
  if (!shape.region) return { length, closed: false, area: null };
  let twice = 0;
  for (const c of shape.curves) {
    const [p, q] = traversal(c);
    twice += p[0] * q[1] - q[0] * p[1];
    if (c.kind === 'arc') {
      const segment = c.radius * c.radius * (c.sweep - Math.sin(c.sweep));
      twice += c.ccw ? segment : -segment;
    }
  }
  return { length, closed: true, area: Math.abs(twice) / 2 };
}
