/**
 * HELIX (kept as read: its tags): a SPLINE (its AcDbSpline subclass: degree, knots, control points...)
 * with the helix's own fields after it (AcDbHelix: axis base point 10, start point 11, axis vector 12,
 * radius 40, turns 41, turn height 42, handedness, constraint). It is drawn, bounded and queried as its
 * spline (a Spline stand-in, evaluated as a NURBS), and moved as ezdxf's `Helix.transform` does: the
 * spline as a SPLINE moves, the base and start points mapped, the axis as a direction, the radius
 * scaled by the length of the image of (radius, 0, 0).
 */
import type { DxfTag, Point3, RawEntity, SplineEntity } from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { standInCommon } from './raw-tags.js';

const num = (t: DxfTag | undefined, fallback = 0) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
};

/** The tag ranges of its two subclasses: [spline start, helix start] and [helix start, end]. */
function sections(tags: readonly DxfTag[]): { spline: [number, number]; helix: [number, number] } {
  const spline = tags.findIndex((t) => t.code === 100 && t.value === 'AcDbSpline');
  const helix = tags.findIndex((t) => t.code === 100 && t.value === 'AcDbHelix');
  const end = tags.length;
  const s = spline < 0 ? 0 : spline + 1;
  return { spline: [s, helix < 0 ? end : helix], helix: [helix < 0 ? end : helix + 1, end] };
}

/** Its spline, read from the AcDbSpline subclass (a Spline entity with the helix's common fields). */
export function helixSpline(e: RawEntity): SplineEntity | undefined {
  const { spline } = sections(e.tags);
  const out: SplineEntity = {
    type: 'Spline',
    ...standInCommon(e),
    flags: 0,
    degree: 3,
    knots: [],
    control_points: [],
    fit_points: [],
  };
  const weights: number[] = [];
  let last: Point3 | undefined;
  for (let i = spline[0]; i < spline[1]; i++) {
    const t = e.tags[i] as DxfTag;
    const v = num(t);
    switch (t.code) {
      case 70:
        out.flags = v;
        break;
      case 71:
        out.degree = v;
        break;
      case 40:
        out.knots.push(v);
        break;
      case 41:
        weights.push(v);
        break;
      case 10:
      case 11:
        last = [v, 0, 0];
        (t.code === 10 ? out.control_points : out.fit_points).push(last);
        break;
      case 20:
      case 21:
      case 30:
      case 31:
        if (last) last[t.code < 30 ? 1 : 2] = v;
        break;
      case 12:
      case 13:
      case 210:
        last = [v, 0, 0];
        out[t.code === 12 ? 'start_tangent' : t.code === 13 ? 'end_tangent' : 'extrusion'] = last;
        break;
      case 22:
      case 23:
      case 220:
      case 32:
      case 33:
      case 230:
        if (last) last[t.code === 22 || t.code === 23 || t.code === 220 ? 1 : 2] = v;
        break;
    }
  }
  if (weights.length === out.control_points.length && weights.length > 0) out.weights = weights;
  return out.control_points.length > 1 || out.fit_points.length > 1 ? out : undefined;
}

/** Every point tag of a range carried by `m`: `points` as points, the others as directions. */
function mapTags(
  tags: DxfTag[],
  [from, to]: [number, number],
  points: readonly number[],
  directions: readonly number[],
  m: Matrix,
): void {
  for (let i = from; i < to; i++) {
    const code = (tags[i] as DxfTag).code;
    const isPoint = points.includes(code);
    if (!isPoint && !directions.includes(code)) continue;
    const yAt = tags[i + 1]?.code === code + 10 ? i + 1 : -1;
    const zAt = yAt >= 0 && tags[i + 2]?.code === code + 20 ? i + 2 : -1;
    const p = [num(tags[i]), yAt < 0 ? 0 : num(tags[yAt]), zAt < 0 ? 0 : num(tags[zAt])];
    const q = isPoint ? applyPoint(m, p) : applyVector(m, p);
    tags[i] = { code, value: String(q[0]) };
    if (yAt >= 0) tags[yAt] = { code: code + 10, value: String(q[1]) };
    if (zAt >= 0) tags[zAt] = { code: code + 20, value: String(q[2]) };
  }
}

/** The HELIX carried by `m`, as ezdxf's Helix.transform does. */
export function transformHelix(e: RawEntity, m: Matrix): RawEntity {
  const tags = [...e.tags];
  const { spline, helix } = sections(tags);
  mapTags(tags, spline, [10, 11], [12, 13, 210], m);
  mapTags(tags, helix, [10, 11], [12], m);
  const radiusAt = tags.findIndex((t, i) => i >= helix[0] && t.code === 40);
  if (radiusAt >= 0) {
    const [x, y, z] = applyVector(m, [num(tags[radiusAt]), 0, 0]);
    tags[radiusAt] = { code: 40, value: String(Math.hypot(x, y, z)) };
  }
  return { ...e, tags };
}

/** A HELIX's readout: its axis, start point, radius, turns and turn height, and its spline's points. */
export function helixReadout(e: RawEntity): Record<string, unknown> {
  const { helix } = sections(e.tags);
  const own = e.tags.slice(helix[0], helix[1]);
  const point = (code: number): Point3 | null => {
    const at = own.findIndex((t) => t.code === code);
    return at < 0 ? null : [num(own[at]), num(own[at + 1]), num(own[at + 2])];
  };
  const value = (code: number) => {
    const t = own.find((x) => x.code === code);
    return t ? num(t) : null;
  };
  const spline = helixSpline(e);
  return {
    axis_base_point: point(10),
    start_point: point(11),
    axis_vector: point(12),
    radius: value(40),
    turns: value(41),
    turn_height: value(42),
    control_points: spline?.control_points ?? [],
  };
}
