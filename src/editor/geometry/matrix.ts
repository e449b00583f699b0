import type { Point3 } from '../model.js';
import { GeometryError } from './errors.js';
import { angleOf, cosSinDeg, hypot2 } from './math.js';

/**
 * An affine transform of the XY plane plus an independent scale and shift of z:
 * x' = a·x + c·y + e, y' = b·x + d·y + f, z' = sz·z + tz.
 * Rotations and mirrors act in the XY plane (about the Z axis), as a CAD editor's are.
 */
export interface Matrix {
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
  sz: number;
  tz: number;
}

export const IDENTITY: Matrix = { a: 1, b: 0, c: 0, d: 1, e: 0, f: 0, sz: 1, tz: 0 };

function finite(values: readonly number[], what: string): void {
  if (!values.every(Number.isFinite)) {
    throw new GeometryError(
      'invalid_transform',
      `${what} must be finite numbers, got ${JSON.stringify(values)}`,
    );
  }
}

/** Move by a vector of 2 or 3 numbers. */
export function translation(vector: readonly number[]): Matrix {
  const [x = 0, y = 0, z = 0] = vector;
  finite([x, y, z], 'vector');
  return { ...IDENTITY, e: x, f: y, tz: z };
}

/** Rotate counter-clockwise by `degrees` about the vertical axis through `center`. */
export function rotation(center: readonly number[], degrees: number): Matrix {
  const [cx = 0, cy = 0] = center;
  finite([cx, cy, degrees], 'rotation center and angle');
  const [cos, sin] = cosSinDeg(degrees);
  return {
    a: cos,
    b: sin,
    c: -sin,
    d: cos,
    e: cx - (cos * cx - sin * cy),
    f: cy - (sin * cx + cos * cy),
    sz: 1,
    tz: 0,
  };
}

/**
 * Scale uniformly (x, y and z) by `factor` about `center`; a negative factor also mirrors through the
 * center (a half turn in the plane, z flipped).
 */
export function scaling(center: readonly number[], factor: number): Matrix {
  const [cx = 0, cy = 0, cz = 0] = center;
  finite([cx, cy, cz, factor], 'scale center and factor');
  if (factor === 0) throw new GeometryError('invalid_transform', 'scale factor must not be 0');
  return {
    a: factor,
    b: 0,
    c: 0,
    d: factor,
    e: cx * (1 - factor),
    f: cy * (1 - factor),
    sz: factor,
    tz: cz * (1 - factor),
  };
}

/** Mirror about the line through two points (in the XY plane). */
export function mirroring(p1: readonly number[], p2: readonly number[]): Matrix {
  const [x1 = 0, y1 = 0] = p1;
  const [x2 = 0, y2 = 0] = p2;
  finite([x1, y1, x2, y2], 'mirror line points');
  const length = hypot2(x2 - x1, y2 - y1);
  if (length === 0)
    throw new GeometryError('invalid_transform', 'the two points of a mirror line must differ');
  const ux = (x2 - x1) / length;
  const uy = (y2 - y1) / length;
  // Reflection about a line at angle φ: [[cos 2φ, sin 2φ], [sin 2φ, -cos 2φ]], written without trigonometry
  // so that axis-parallel mirror lines stay exact.
  const a = ux * ux - uy * uy;
  const b = 2 * ux * uy;
  return { a, b, c: b, d: -a, e: x1 - (a * x1 + b * y1), f: y1 - (b * x1 - a * y1), sz: 1, tz: 0 };
}

/** The transform that applies `first`, then `then`. */
export function compose(first: Matrix, then: Matrix): Matrix {
  return {
    a: then.a * first.a + then.c * first.b,
    b: then.b * first.a + then.d * first.b,
    c: then.a * first.c + then.c * first.d,
    d: then.b * first.c + then.d * first.d,
    e: then.a * first.e + then.c * first.f + then.e,
    f: then.b * first.e + then.d * first.f + then.f,
    sz: then.sz * first.sz,
    tz: then.sz * first.tz + then.tz,
  };
}

export function applyPoint(m: Matrix, p: readonly number[]): Point3 {
  const x = p[0] ?? 0;
  const y = p[1] ?? 0;
  return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f, m.sz * (p[2] ?? 0) + m.tz];
}

/** A direction or size vector: the linear part only. */
export function applyVector(m: Matrix, v: readonly number[]): Point3 {
  const x = v[0] ?? 0;
  const y = v[1] ?? 0;
  return [m.a * x + m.c * y, m.b * x + m.d * y, m.sz * (v[2] ?? 0)];
}

/** How a similarity acts on lengths and angles. */
export interface Similarity {
  /** Length factor in the XY plane. */
  scale: number;
  /** True when the transform mirrors (orientation reverses: arcs turn the other way). */
  reflect: boolean;
  /** Direction of the image of the x axis, degrees. */
  angle: number;
}

/** The similarity a matrix is, or undefined when it shears or scales x and y differently. */
export function similarity(m: Matrix): Similarity | undefined {
  const s2 = m.a * m.a + m.b * m.b;
  const t2 = m.c * m.c + m.d * m.d;
  const tolerance = 1e-9 * Math.max(s2, t2);
  if (s2 === 0 || Math.abs(s2 - t2) > tolerance || Math.abs(m.a * m.c + m.b * m.d) > tolerance)
    return undefined;
  return { scale: Math.sqrt(s2), reflect: m.a * m.d - m.b * m.c < 0, angle: angleOf(m.a, m.b) };
}

/**
 * Where a direction given as an angle goes: turned by the rotation, or reflected (β − α for a mirror whose
 * x axis image is at β). Exact arithmetic on degrees, no round trip through vectors.
 */
export function mapAngle(sim: Similarity, degrees: number): number {
  return sim.reflect ? sim.angle - degrees : degrees + sim.angle;
}
