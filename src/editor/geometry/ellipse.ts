/**
 * ELLIPSE geometry: its points, its outline as chords (with the points where it turns in x and in y among
 * them, so bounds from the chords are exact), and its transform, done as ezdxf's
 * ConstructionEllipse.transform does it so the two agree to the last digits.
 */
import type { EllipseEntity, Point3 } from '../model.js';
import type { Segment } from './curves.js';
import { GeometryError } from './errors.js';
import { normalizeRad, TAU } from './math.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';

const Z: Point3 = [0, 0, 1];

const dot = (a: Point3, b: Point3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const length = (a: Point3) => Math.sqrt(dot(a, a));
const cross = (a: Point3, b: Point3): Point3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
function scaled(v: Point3, to: number): Point3 {
  const l = length(v);
  return l === 0 ? [0, 0, 0] : [(v[0] * to) / l, (v[1] * to) / l, (v[2] * to) / l];
}

/** The minor axis vector: ratio·|major| long, along extrusion × major (ezdxf's `minor_axis`). */
export function minorAxis(majorAxis: Point3, extrusion: Point3, ratio: number): Point3 {
  return scaled(cross(extrusion, majorAxis), length(majorAxis) * ratio);
}

function ellipsePoint(e: EllipseEntity, minor: Point3, t: number): Point3 {
  const c = Math.cos(t);
  const s = Math.sin(t);
  const { center: o, major_axis: a } = e;
  return [o[0] + c * a[0] + s * minor[0], o[1] + c * a[1] + s * minor[1], o[2] + c * a[2] + s * minor[2]];
}

/** Counter-clockwise span from start to end parameter, in (0, 2π]; equal parameters are a whole ellipse. */
export function ellipseSweep(e: EllipseEntity): number {
  const sweep = normalizeRad(e.end_param - e.start_param);
  return sweep < 1e-12 ? TAU : sweep;
}

/** Chords to a whole turn: fine enough that a chord strays from the curve by 0.03% of the major radius. */
const PER_TURN = 128;

/**
 * The ellipse as a chain of chords from its start to its end parameter. The parameters where x or y turn
 * (the tangent is vertical or horizontal) are vertices, so the chords' bounds are the curve's.
 */
export function ellipseSegments(e: EllipseEntity): Segment[] {
  const minor = minorAxis(e.major_axis, e.extrusion ?? Z, e.ratio);
  const sweep = ellipseSweep(e);
  const n = Math.max(2, Math.ceil((sweep / TAU) * PER_TURN));
  const offsets: number[] = [];
  for (let i = 0; i <= n; i++) offsets.push((i / n) * sweep);
  for (let axis = 0; axis < 2; axis++) {
    // x(t) = cos t·a + sin t·b turns where tan t = b / a.
    const t = Math.atan2(minor[axis] as number, e.major_axis[axis] as number);
    for (const turn of [t, t + Math.PI]) {
      const offset = normalizeRad(turn - e.start_param);
      if (offset > 0 && offset < sweep) offsets.push(offset);
    }
  }
  offsets.sort((a, b) => a - b);
  const points = offsets.map((o) =>
    o === sweep && sweep === TAU
      ? ellipsePoint(e, minor, e.start_param)
      : ellipsePoint(e, minor, e.start_param + o),
  );
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    segments.push({ kind: 'segment', a: points[i] as Point3, b: points[i + 1] as Point3 });
  }
  return segments;
}

/**
 * The ellipse moved, rotated, scaled or mirrored by `m` (ezdxf's way): the center and both axes are mapped,
 * the ratio is the mapped axes' ratio, the extrusion their cross product (a mirror turns it over, so the
 * parameters stay as they were), and a ratio above 1 swaps the axes.
 */
export function transformEllipse(e: EllipseEntity, m: Matrix): EllipseEntity {
  const minor = minorAxis(e.major_axis, e.extrusion ?? Z, e.ratio);
  let major = applyVector(m, e.major_axis);
  const mappedMinor = applyVector(m, minor);
  const lm = length(major);
  const ln = length(mappedMinor);
  if (lm === 0 || ln === 0 || Math.abs(dot(major, mappedMinor) / (lm * ln)) > 1e-6) {
    throw new GeometryError(
      'not_transformable',
      `Ellipse ${e.handle}: its axes would no longer be perpendicular under this transform`,
    );
  }
  let ratio = ln / lm;
  const extrusion = scaled(cross(major, mappedMinor), 1);
  let start = e.start_param;
  let end = e.end_param;
  if (ratio > 1) {
    major = minorAxis(major, extrusion, ratio);
    ratio = Math.max(1 / ratio, 1e-6);
    if (!(start === 0 && Math.abs(end - TAU) <= 1e-9 * TAU)) {
      start = normalizeRad(start - Math.PI / 2);
      end = normalizeRad(end - Math.PI / 2);
    }
  }
  const out: EllipseEntity = {
    ...e,
    center: applyPoint(m, e.center),
    major_axis: major,
    ratio,
    start_param: start,
    end_param: end,
  };
  if (e.extrusion || extrusion[0] !== 0 || extrusion[1] !== 0 || extrusion[2] !== 1)
    out.extrusion = extrusion;
  return out;
}
