/**
 * A SPLINE given by fit points only, made a cubic B-spline as CAD programs make it and as ezdxf's
 * `fit_points_to_cad_cv` does: global curve interpolation through the fit points (Piegl & Tiller, The
 * NURBS Book, 9.2.2) constrained by a first derivative at each end, chord-length parameters, the "natural"
 * knots of a constrained cubic (the inner parameters, clamped at 0 and 1). The end derivatives are the
 * file's start and end tangents when it stores both, else estimated by 5-point interpolation (Akima's);
 * either way scaled to the length of the fit points' chords. Degree 3 always, whatever the file says.
 */
import type { Point3 } from '../model.js';
import { cross } from './ocs.js';

interface FittedSpline {
  degree: 3;
  control_points: Point3[];
  /** Clamped, from 0 to 1. */
  knots: number[];
}

const sub = (a: Point3, b: Point3): Point3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const scale = (a: Point3, k: number): Point3 => [a[0] * k, a[1] * k, a[2] * k];
const add = (a: Point3, b: Point3): Point3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const length = (a: Point3) => Math.hypot(a[0], a[1], a[2]);

/** `v` made `size` long (a zero vector stays zero). */
function sized(v: Point3, size: number): Point3 {
  const l = length(v);
  return l === 0 ? v : scale(v, size / l);
}

/**
 * The tangents at the first and last fit points by 5-point interpolation: the chords before and after
 * each point, extended by two reflected chords past either end, weighted by how the turn changes.
 */
function estimatedEndTangents(points: readonly Point3[]): [Point3, Point3] {
  const n = points.length;
  if (n < 3) {
    const chord = sub(points[n - 1] as Point3, points[0] as Point3);
    return [chord, chord];
  }
  // q[k] = P[k] - P[k-1] for k = 1..n-1, then q[0], q[n], q[n+1] and q[-1] by reflection.
  const q = new Map<number, Point3>();
  for (let k = 1; k < n; k++) q.set(k, sub(points[k] as Point3, points[k - 1] as Point3));
  const at = (k: number) => q.get(k) as Point3;
  q.set(0, sub(scale(at(1), 2), at(2)));
  q.set(n, sub(scale(at(n - 1), 2), at(n - 2)));
  q.set(n + 1, sub(scale(at(n), 2), at(n - 1)));
  q.set(-1, sub(scale(at(0), 2), at(1)));
  const tangent = (k: number): Point3 => {
    const v1 = length(cross(at(k - 1), at(k)));
    const v2 = length(cross(at(k + 1), at(k + 2)));
    // Collinear chords on both sides: halfway (ezdxf divides by zero there).
    const alpha = v1 + v2 === 0 ? 0.5 : v1 / (v1 + v2);
    return add(scale(at(k), 1 - alpha), scale(at(k + 1), alpha));
  };
  return [tangent(0), tangent(n - 1)];
}

/** The B-spline basis functions of degree p at u in span `span` (The NURBS Book, A2.2). */
function basisFunctions(span: number, u: number, p: number, knots: readonly number[]): number[] {
  const N = new Array<number>(p + 1).fill(0);
  const left = new Array<number>(p + 1).fill(0);
  const right = new Array<number>(p + 1).fill(0);
  N[0] = 1;
  for (let j = 1; j <= p; j++) {
    left[j] = u - (knots[Math.max(0, span + 1 - j)] as number);
    right[j] = (knots[span + j] as number) - u;
    let saved = 0;
    for (let r = 0; r < j; r++) {
      const temp = (N[r] as number) / ((right[r + 1] as number) + (left[j - r] as number));
      N[r] = saved + (right[r + 1] as number) * temp;
      saved = (left[j - r] as number) * temp;
    }
    N[j] = saved;
  }
  return N;
}

/** The row of all `count` basis functions at u: zeros but for the p + 1 of its span. */
function basisRow(u: number, p: number, knots: readonly number[], count: number): number[] {
  let span: number;
  if (u >= (knots[count] as number)) span = count - 1;
  else {
    span = p;
    while (span < count - 1 && u >= (knots[span + 1] as number)) span++;
  }
  const row = new Array<number>(count).fill(0);
  basisFunctions(span, u, p, knots).forEach((v, i) => {
    row[span - p + i] = v;
  });
  return row;
}

/**
 * Solves A·X = B for X (rows of 3), Gaussian elimination with partial pivoting. A is banded here (each
 * row's few basis functions): a row's entries left of its first non-zero are skipped.
 */
function solve(a: number[][], b: Point3[]): Point3[] {
  const n = a.length;
  const first = a.map((row) => row.findIndex((v) => v !== 0));
  const last = a.map((row) => row.length - 1 - [...row].reverse().findIndex((v) => v !== 0));
  for (let k = 0; k < n; k++) {
    let pivot = k;
    for (let r = k + 1; r < n; r++)
      if ((first[r] as number) <= k && Math.abs(a[r]?.[k] as number) > Math.abs(a[pivot]?.[k] as number))
        pivot = r;
    if (pivot !== k) {
      [a[k], a[pivot]] = [a[pivot] as number[], a[k] as number[]];
      [b[k], b[pivot]] = [b[pivot] as Point3, b[k] as Point3];
      [first[k], first[pivot]] = [first[pivot] as number, first[k] as number];
      [last[k], last[pivot]] = [last[pivot] as number, last[k] as number];
    }
    const rowK = a[k] as number[];
    const d = rowK[k] as number;
    if (d === 0) continue;
    for (let r = k + 1; r < n; r++) {
      if ((first[r] as number) > k) continue;
      const row = a[r] as number[];
      const f = (row[k] as number) / d;
      if (f === 0) continue;
      const end = Math.max(last[r] as number, last[k] as number);
      for (let c = k; c <= end; c++) row[c] = (row[c] as number) - f * (rowK[c] as number);
      b[r] = sub(b[r] as Point3, scale(b[k] as Point3, f));
      first[r] = k + 1;
      last[r] = end;
    }
  }
  const x: Point3[] = new Array(n);
  for (let k = n - 1; k >= 0; k--) {
    const row = a[k] as number[];
    let s = b[k] as Point3;
    for (let c = k + 1; c <= (last[k] as number); c++) s = sub(s, scale(x[c] as Point3, row[c] as number));
    x[k] = scale(s, 1 / (row[k] as number));
  }
  return x;
}

/**
 * The cubic B-spline through `fit` (2 or more points) with end derivatives from `tangents` (the file's
 * start and end tangents, both or none); undefined for fewer than 2 points or points all in one place.
 */
export function fitPointsToCadCv(
  fit: readonly Point3[],
  tangents?: readonly [Point3, Point3],
): FittedSpline | undefined {
  const n = fit.length - 1;
  if (n < 1) return undefined;
  const chords = fit.slice(1).map((p, i) => length(sub(p, fit[i] as Point3)));
  const total = chords.reduce((s, d) => s + d, 0);
  if (!(total > 0)) return undefined;
  const [start, end] = tangents ?? estimatedEndTangents(fit);
  const d0 = sized(start, total);
  const d1 = sized(end, total);
  // Chord-length parameters, 0 to 1.
  const t: number[] = [0];
  let run = 0;
  for (const d of chords) {
    run += d;
    t.push(run / total);
  }
  t[n] = 1;
  const p = 3;
  const knots = [0, 0, 0, 0, ...t.slice(1, n), 1, 1, 1, 1];
  const count = n + 3;
  const rows = t.map((u) => basisRow(u, p, knots, count));
  const rhs: Point3[] = fit.map((q) => [...q] as Point3);
  const zeros = new Array<number>(n + 1).fill(0);
  rows.splice(1, 0, [-1, 1, ...zeros]);
  rows.splice(rows.length - 1, 0, [...zeros, -1, 1]);
  rhs.splice(1, 0, scale(d0, (knots[p + 1] as number) / p));
  rhs.splice(rhs.length - 1, 0, scale(d1, (1 - (knots[knots.length - p - 2] as number)) / p));
  return { degree: 3, control_points: solve(rows, rhs), knots };
}
