/**
 * WIPEOUT (kept as read: its tags): an image-like frame — insertion point (10), the vectors of one pixel
 * along its width and height (11, 12), its size in pixels (13/23) — and a clipping boundary (14/24
 * points in pixel units, 71 = 1 a rectangle by two corners, 2 a polygon). Its area in the world is the
 * boundary as ezdxf's `boundary_path_wcs` places it; the plot paints it in the background colour over
 * what was drawn before it (it masks), its frame shown as the drawing's WIPEOUTVARIABLES say. Moved as
 * ezdxf's `Wipeout.transform` (ImageBase) does: the insertion point mapped, the pixel vectors as
 * directions; the boundary stays in pixel units.
 */
import type { DxfTag, LwPolylineEntity, Point3, RawEntity } from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { outlineOf, subclassStart } from './raw-tags.js';

export const isWipeoutType = (dxfType: string) => dxfType.toUpperCase() === 'WIPEOUT';

const num = (t: DxfTag | undefined, fallback = 0) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
};

function wipeoutStart(tags: readonly DxfTag[]): number {
  return subclassStart(tags, 'AcDbWipeout');
}

function pointAt(tags: readonly DxfTag[], code: number, fallback: Point3): Point3 {
  const from = wipeoutStart(tags);
  const at = tags.findIndex((t, i) => i >= from && t.code === code);
  if (at < 0) return fallback;
  const y = tags[at + 1]?.code === code + 10 ? num(tags[at + 1]) : 0;
  const z = tags[at + 2]?.code === code + 20 ? num(tags[at + 2]) : 0;
  return [num(tags[at]), y, z];
}

interface Wipeout {
  position: Point3;
  u: Point3;
  v: Point3;
  size: [number, number];
  /** The clipping boundary in pixel units, as stored. */
  boundary: Array<[number, number]>;
}

function readWipeout(e: RawEntity): Wipeout {
  const tags = e.tags;
  const from = wipeoutStart(tags);
  const size = pointAt(tags, 13, [1, 1, 0]);
  const boundary: Array<[number, number]> = [];
  for (let i = from; i < tags.length; i++) {
    if ((tags[i] as DxfTag).code !== 14) continue;
    boundary.push([num(tags[i]), tags[i + 1]?.code === 24 ? num(tags[i + 1]) : 0]);
  }
  return {
    position: pointAt(tags, 10, [0, 0, 0]),
    u: pointAt(tags, 11, [1, 0, 0]),
    v: pointAt(tags, 12, [0, 1, 0]),
    size: [size[0], size[1]],
    boundary,
  };
}

/**
 * The boundary in the world, closed (its first point again at the end), as ezdxf's boundary_path_wcs:
 * pixel (0, 0) is the image's upper-left corner, so a point (x, y) is at origin + u·x + v·(height − y)
 * from origin = insertion + u/2 − v/2; two points are the opposite corners of a rectangle.
 */
export function wipeoutBoundary(e: RawEntity): Point3[] {
  const w = readWipeout(e);
  let path = w.boundary;
  if (path.length === 2) {
    const [p0, p1] = path as [[number, number], [number, number]];
    path = [p0, [p1[0], p0[1]], p1, [p0[0], p1[1]]];
  }
  if (path.length < 3) return [];
  const o: Point3 = [
    w.position[0] + w.u[0] * 0.5 - w.v[0] * 0.5,
    w.position[1] + w.u[1] * 0.5 - w.v[1] * 0.5,
    w.position[2] + w.u[2] * 0.5 - w.v[2] * 0.5,
  ];
  const height = w.size[1];
  const points = path.map(([x, y]): Point3 => {
    const k = height - y;
    return [o[0] + w.u[0] * x + w.v[0] * k, o[1] + w.u[1] * x + w.v[1] * k, o[2] + w.u[2] * x + w.v[2] * k];
  });
  const first = points[0] as Point3;
  const last = points[points.length - 1] as Point3;
  const same = first.every((c, i) => Math.abs(c - (last[i] as number)) <= 1e-9 * Math.max(1, Math.abs(c)));
  return same ? points : [...points, first];
}

/** Its area as a closed polyline: its stand-in for bounds, nearness and containment. */
export function wipeoutOutline(e: RawEntity): LwPolylineEntity[] | undefined {
  const points = wipeoutBoundary(e);
  if (points.length < 4) return undefined;
  return [outlineOf(e, points.slice(0, -1))];
}

/** The WIPEOUT carried by `m`: insertion point mapped, pixel vectors as directions. */
export function transformWipeout(e: RawEntity, m: Matrix): RawEntity {
  const tags = [...e.tags];
  const from = wipeoutStart(tags);
  for (const code of [10, 11, 12]) {
    const at = tags.findIndex((t, i) => i >= from && t.code === code);
    if (at < 0) continue;
    const p = pointAt(tags, code, [0, 0, 0]);
    const q = code === 10 ? applyPoint(m, p) : applyVector(m, p);
    tags[at] = { code, value: String(q[0]) };
    if (tags[at + 1]?.code === code + 10) tags[at + 1] = { code: code + 10, value: String(q[1]) };
    if (tags[at + 2]?.code === code + 20) tags[at + 2] = { code: code + 20, value: String(q[2]) };
  }
  return { ...e, tags };
}

/**
 * Whether wipeout frames show: the WIPEOUTVARIABLES object's display-frame flag (70); without one,
 * AutoCAD's default (WIPEOUTFRAME 1, shown).
 */
export function wipeoutFrameShown(
  objects: ReadonlyArray<{ type: string; tags: readonly DxfTag[] }>,
): boolean {
  const vars = objects.find((o) => o.type === 'WIPEOUTVARIABLES');
  const frame = vars?.tags.find((t) => t.code === 70);
  return frame === undefined ? true : num(frame) !== 0;
}

/** A WIPEOUT's readout: its boundary in the world, and its frame as stored. */
export function wipeoutReadout(e: RawEntity): Record<string, unknown> {
  const w = readWipeout(e);
  return { position: w.position, u_vector: w.u, v_vector: w.v, boundary: wipeoutBoundary(e) };
}
