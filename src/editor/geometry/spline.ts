/**
 * SPLINE geometry: the curve of its control points, knots and weights evaluated as a NURBS (de Boor's
 * algorithm on homogeneous points), as chords fine enough for bounds, distances and drawing; a spline
 * given by fit points only is the cubic B-spline interpolated through them, as ezdxf makes it. Its transform is ezdxf's Spline.transform: the control and
 * fit points mapped, the tangents and the extrusion mapped as directions (not made unit vectors again).
 */
import type { Point3, SplineEntity } from '../model.js';
import type { Segment } from './curves.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { fitPointsToCadCv } from './spline-fit.js';

/** Chords per knot span: a cubic span bends little, and the spans are where a spline's points are dense. */
const PER_SPAN = 16;
/** At most this many chords for one spline, however many spans it has. */
const MAX_CHORDS = 4096;

/**
 * The knot vector the curve uses: the file's when it fits (control points + degree + 1 knots), else a
 * clamped uniform one (what CAD programs make of a spline whose knots are missing).
 */
function splineKnots(e: SplineEntity): number[] {
  const n = e.control_points.length;
  const p = e.degree;
  if (e.knots.length === n + p + 1) return e.knots;
  const knots: number[] = [];
  const inner = n - p;
  for (let i = 0; i <= p; i++) knots.push(0);
  for (let i = 1; i < inner; i++) knots.push(i / inner);
  for (let i = 0; i <= p; i++) knots.push(1);
  return knots;
}

/** The weights of the control points: the file's when one is given per point, else 1 each. */
const weightsOf = (e: SplineEntity): number[] =>
  e.weights && e.weights.length === e.control_points.length ? e.weights : e.control_points.map(() => 1);

/** The point at parameter `u` of a NURBS of degree `p` (de Boor on homogeneous coordinates). */
function deBoor(
  u: number,
  p: number,
  knots: readonly number[],
  points: readonly Point3[],
  weights: readonly number[],
): Point3 {
  const n = points.length;
  // The span k with knots[k] <= u < knots[k + 1], within [p, n - 1].
  let k = p;
  while (k < n - 1 && u >= (knots[k + 1] as number)) k++;
  const d: Array<[number, number, number, number]> = [];
  for (let j = 0; j <= p; j++) {
    const q = points[j + k - p] as Point3;
    const w = weights[j + k - p] as number;
    d.push([q[0] * w, q[1] * w, q[2] * w, w]);
  }
  for (let r = 1; r <= p; r++) {
    for (let j = p; j >= r; j--) {
      const lo = knots[j + k - p] as number;
      const hi = knots[j + 1 + k - r] as number;
      const a = hi === lo ? 0 : (u - lo) / (hi - lo);
      const x = d[j] as [number, number, number, number];
      const y = d[j - 1] as [number, number, number, number];
      d[j] = [
        (1 - a) * y[0] + a * x[0],
        (1 - a) * y[1] + a * x[1],
        (1 - a) * y[2] + a * x[2],
        (1 - a) * y[3] + a * x[3],
      ];
    }
  }
  const [x, y, z, w] = d[p] as [number, number, number, number];
  return w === 0 ? [x, y, z] : [x / w, y / w, z / w];
}

/**
 * The curve a spline draws: its control points, knots and weights, or — given by fit points only — the
 * cubic B-spline CAD programs interpolate through them (spline-fit.ts); undefined when it has neither.
 */
export function splineCurve(
  e: SplineEntity,
): { degree: number; control_points: Point3[]; knots: number[]; weights: number[] } | undefined {
  if (e.control_points.length >= 2)
    return {
      degree: Math.max(1, Math.floor(e.degree)),
      control_points: e.control_points,
      knots: splineKnots(e),
      weights: weightsOf(e),
    };
  const tangents: [Point3, Point3] | undefined =
    e.start_tangent && e.end_tangent ? [e.start_tangent, e.end_tangent] : undefined;
  const fitted = fitPointsToCadCv(e.fit_points, tangents);
  return fitted && { ...fitted, weights: fitted.control_points.map(() => 1) };
}

/** The point of a spline's curve (`splineCurve`) at parameter `u` of its knots' range. */
export const splinePointAt = (curve: NonNullable<ReturnType<typeof splineCurve>>, u: number): Point3 =>
  deBoor(u, curve.degree, curve.knots, curve.control_points, curve.weights);

/** Points along the spline, its start and end included; empty when it has no points at all. */
export function splinePoints(e: SplineEntity): Point3[] {
  const curve = splineCurve(e);
  if (!curve) {
    // A degenerate one: its points as they are.
    return (e.fit_points.length > 0 ? e.fit_points : e.control_points).map((q) => [...q] as Point3);
  }
  const points = curve.control_points;
  const p = curve.degree;
  if (points.length <= p) return points.map((q) => [...q] as Point3);
  const { knots, weights } = curve;
  const u0 = knots[p] as number;
  const u1 = knots[points.length] as number;
  const out: Point3[] = [];
  // The distinct knots of the curve's range, each span cut into PER_SPAN chords.
  const breaks: number[] = [];
  for (let i = p; i <= points.length; i++) {
    const u = knots[i] as number;
    if (breaks.length === 0 || u > (breaks[breaks.length - 1] as number)) breaks.push(u);
  }
  const spans = Math.max(1, breaks.length - 1);
  const per = Math.max(1, Math.min(PER_SPAN, Math.floor(MAX_CHORDS / spans)));
  for (let s = 0; s < spans; s++) {
    const a = breaks[s] ?? u0;
    const b = breaks[s + 1] ?? u1;
    for (let i = 0; i < per; i++) out.push(deBoor(a + ((b - a) * i) / per, p, knots, points, weights));
  }
  // The end: the last control point of a clamped spline, evaluated just inside the range otherwise.
  out.push(deBoor(u1, p, knots, points, weights));
  const last = out[out.length - 1] as Point3;
  if (!last.every(Number.isFinite)) out[out.length - 1] = [...(points[points.length - 1] as Point3)];
  return out;
}

/** The spline as a chain of chords. */
export function splineSegments(e: SplineEntity): Segment[] {
  const points = splinePoints(e);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i] as Point3;
    const b = points[i + 1] as Point3;
    if (a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2]) out.push({ kind: 'segment', a, b });
  }
  return out;
}

/** Whether the spline is closed (flag 1) and ends where it starts, so it encloses a region. */
export function splineClosed(e: SplineEntity, points: readonly Point3[]): boolean {
  if ((e.flags & 1) === 0 || points.length < 3) return false;
  const a = points[0] as Point3;
  const b = points[points.length - 1] as Point3;
  return Math.hypot(a[0] - b[0], a[1] - b[1]) <= 1e-9 * Math.max(1, Math.hypot(a[0], a[1]));
}

/** ezdxf's Spline.transform. */
export function transformSpline(e: SplineEntity, m: Matrix): SplineEntity {
  const out: SplineEntity = {
    ...e,
    control_points: e.control_points.map((p) => applyPoint(m, p)),
    fit_points: e.fit_points.map((p) => applyPoint(m, p)),
  };
  if (e.start_tangent) out.start_tangent = applyVector(m, e.start_tangent);
  if (e.end_tangent) out.end_tangent = applyVector(m, e.end_tangent);
  if (e.extrusion) out.extrusion = applyVector(m, e.extrusion);
  return out;
}
