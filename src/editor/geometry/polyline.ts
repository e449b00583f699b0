/**
 * Old-style POLYLINE geometry, read from its VERTEX sub-entities (kept as raw tags): a 2D polyline's
 * bulged segments in its OCS, a 3D polyline's straight ones, a polyface mesh's visible face edges and a
 * polygon mesh's grid lines; the bands its widths paint; its read-out for queries; and its transform,
 * done as ezdxf's Polyline.transform does it (a 2D one through its OCS, the others vertex by vertex).
 */
import type { DxfTag, Point3, PolylineEntity } from '../model.js';
import { bulgeCurve, type Curve, type Segment, tessellate } from './curves.js';
import { extraNumber, withExtraValue } from './extra.js';
import { normalizeRad } from './math.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { isWorldZ, type Ocs, ocsOf, ocsThickness, ocsTransform, ocsVertex, toWcs } from './ocs.js';

/** What a POLYLINE is, by its flags. */
type PolylineKind = '2d' | '3d' | 'polyface' | 'mesh';

function polylineKind(e: PolylineEntity): PolylineKind {
  if (e.flags & 8) return '3d';
  if (e.flags & 16) return 'mesh';
  if (e.flags & 64) return 'polyface';
  return '2d';
}

/** One VERTEX as read: its location, bulge, widths, flags and (a face record's) vertex indices. */
interface PolylineVertex {
  location: Point3;
  bulge: number;
  start_width?: number;
  end_width?: number;
  flags: number;
  /** A polyface face record's vertex indices (71-74), 1-based; negative where the edge from it is invisible. */
  face?: number[];
}

const num = (value: string) => {
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
};

/**
 * Calls `visit` with the range [start, end) of each VERTEX's own tags in `tags` (not SEQEND), the `0`
 * tag excluded; application groups (102) and xdata are within the range and skipped by readers.
 */
function eachVertex(tags: readonly DxfTag[], visit: (start: number, end: number) => void): void {
  let i = 0;
  while (i < tags.length) {
    const head = tags[i] as DxfTag;
    let j = i + 1;
    while (j < tags.length && (tags[j] as DxfTag).code !== 0) j++;
    if (head.code === 0 && head.value === 'VERTEX') visit(i + 1, j);
    i = j;
  }
}

/** Whether tag `k` of a vertex is one of its own values (not in a 102 group, not xdata). */
function ownTags(tags: readonly DxfTag[], start: number, end: number, visit: (t: DxfTag, k: number) => void) {
  let group = false;
  for (let k = start; k < end; k++) {
    const t = tags[k] as DxfTag;
    if (t.code >= 1000) return;
    if (t.code === 102) {
      group = t.value.startsWith('{');
      continue;
    }
    if (!group) visit(t, k);
  }
}

/** The vertices in file order (every VERTEX: spline frame points and face records too). */
export function polylineVertices(e: PolylineEntity): PolylineVertex[] {
  const out: PolylineVertex[] = [];
  eachVertex(e.vertex_tags, (start, end) => {
    const v: PolylineVertex = { location: [0, 0, 0], bulge: 0, flags: 0 };
    const face: number[] = [];
    ownTags(e.vertex_tags, start, end, (t) => {
      const c = t.code;
      if (c === 10 || c === 20 || c === 30) v.location[(c - 10) / 10] = num(t.value);
      else if (c === 40) v.start_width = num(t.value);
      else if (c === 41) v.end_width = num(t.value);
      else if (c === 42) v.bulge = num(t.value);
      else if (c === 70) v.flags = num(t.value);
      else if (c >= 71 && c <= 74) face[c - 71] = num(t.value);
    });
    if ((v.flags & 192) === 128) v.face = face.filter((n) => n !== undefined && n !== 0);
    out.push(v);
  });
  return out;
}

const isFaceRecord = (v: PolylineVertex) => (v.flags & 192) === 128;
/** Spline frame control points (16) are not on the curve the polyline shows. */
const shown = (v: PolylineVertex) => (v.flags & 16) === 0 && !isFaceRecord(v);

const segment = (a: Point3, b: Point3): Segment => ({ kind: 'segment', a, b });

/** A curve in the OCS `ocs` brought into the world: as is for the world's own, else as chords. */
function toWorld(curve: Curve, ocs: Ocs | undefined): Curve[] {
  if (!ocs) return [curve];
  if (ocs.uz[0] === 0 && ocs.uz[1] === 0 && ocs.uz[2] < 0) {
    // Turned over (0, 0, -1): the OCS x is the world's -x, a mirror that keeps arcs arcs.
    if (curve.kind === 'segment') return [segment(toWcs(ocs, curve.a), toWcs(ocs, curve.b))];
    const [cx, cy, cz] = curve.center;
    return [
      {
        ...curve,
        center: [-cx, cy, -cz],
        start: normalizeRad(Math.PI - (curve.start + curve.sweep)),
        ccw: !curve.ccw,
      },
    ];
  }
  const points = curve.kind === 'segment' ? [curve.a, curve.b] : tessellate(curve);
  const world = points.map((p) => toWcs(ocs, p));
  const out: Curve[] = [];
  for (let i = 0; i + 1 < world.length; i++) out.push(segment(world[i] as Point3, world[i + 1] as Point3));
  return out;
}

/** A 2D polyline's points in its OCS (at its elevation when it has one), those it shows. */
function ocsPoints(e: PolylineEntity, vertices: readonly PolylineVertex[]): PolylineVertex[] {
  const z = e.elevation?.[2];
  return vertices
    .filter(shown)
    .map((v) => (z === undefined ? v : { ...v, location: [v.location[0], v.location[1], z] as Point3 }));
}

/** The curves a POLYLINE shows, in the world, and whether they close a region (a closed 2D or 3D one). */
export function polylineOutline(e: PolylineEntity): { curves: Curve[]; closed: boolean } {
  const vertices = polylineVertices(e);
  const kind = polylineKind(e);
  const closed = (e.flags & 1) !== 0;
  if (kind === '2d' || kind === '3d') {
    const points = kind === '2d' ? ocsPoints(e, vertices) : vertices.filter(shown);
    const ocs = kind === '2d' ? ocsOf(e.extrusion) : undefined;
    const curves: Curve[] = [];
    const n = points.length;
    const last = closed ? n : n - 1;
    for (let i = 0; i < last; i++) {
      const a = points[i] as PolylineVertex;
      const b = points[(i + 1) % n] as PolylineVertex;
      const c = kind === '2d' ? bulgeCurve(a.location, b.location, a.bulge) : segment(a.location, b.location);
      curves.push(...toWorld(c, ocs));
    }
    return { curves, closed: closed && n > 2 };
  }
  if (kind === 'polyface') {
    const points = vertices.filter((v) => !isFaceRecord(v)).map((v) => v.location);
    const curves: Curve[] = [];
    for (const v of vertices) {
      const face = v.face;
      if (!face || face.length < 2) continue;
      face.forEach((index, i) => {
        if (index < 0) return; // the edge from a negative index is invisible
        const a = points[Math.abs(index) - 1];
        const b = points[Math.abs(face[(i + 1) % face.length] as number) - 1];
        if (a && b) curves.push(segment(a, b));
      });
    }
    return { curves, closed: false };
  }
  // A polygon mesh: M rows (71) of N vertices (72), lines along both, closed in M (1) and N (32).
  const m = extraNumber(e.extra, 71) ?? 0;
  const nCount = extraNumber(e.extra, 72) ?? 0;
  const points = vertices.filter(shown).map((v) => v.location);
  const curves: Curve[] = [];
  if (m > 0 && nCount > 0 && points.length >= m * nCount) {
    const at = (i: number, j: number) => points[i * nCount + j] as Point3;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < nCount; j++) {
        if (j + 1 < nCount || e.flags & 32) curves.push(segment(at(i, j), at(i, (j + 1) % nCount)));
        if (i + 1 < m || e.flags & 1) curves.push(segment(at(i, j), at((i + 1) % m, j)));
      }
    }
  }
  return { curves, closed: false };
}

/**
 * The bands a 2D polyline's widths paint, each a closed outline in the world: a straight segment's a
 * quadrilateral, a bulged one's the ring between its offset arcs (as chords). Empty without widths.
 */
export function polylineBands(e: PolylineEntity): Point3[][] {
  if (polylineKind(e) !== '2d') return [];
  const start0 = extraNumber(e.extra, 40) ?? 0;
  const end0 = extraNumber(e.extra, 41) ?? 0;
  const points = ocsPoints(e, polylineVertices(e));
  const ocs = ocsOf(e.extrusion);
  const closed = (e.flags & 1) !== 0;
  const n = points.length;
  const bands: Point3[][] = [];
  for (let i = 0; i < (closed ? n : n - 1); i++) {
    const a = points[i] as PolylineVertex;
    const b = points[(i + 1) % n] as PolylineVertex;
    const w0 = Math.abs(a.start_width ?? start0);
    const w1 = Math.abs(a.end_width ?? end0);
    if (w0 === 0 && w1 === 0) continue;
    const curve = bulgeCurve(a.location, b.location, a.bulge);
    const path = curve.kind === 'segment' ? [curve.a, curve.b] : tessellate(curve);
    // Along the segment from a to b (tessellate follows the traversal), widths interpolated.
    const left: Point3[] = [];
    const right: Point3[] = [];
    path.forEach((p, k) => {
      const t = path.length === 1 ? 0 : k / (path.length - 1);
      const half = (w0 + (w1 - w0) * t) / 2;
      const q = path[Math.min(k + 1, path.length - 1)] as Point3;
      const r = path[Math.max(k - 1, 0)] as Point3;
      const dx = q[0] - r[0];
      const dy = q[1] - r[1];
      const l = Math.hypot(dx, dy) || 1;
      const nx = (-dy / l) * half;
      const ny = (dx / l) * half;
      left.push([p[0] + nx, p[1] + ny, p[2]]);
      right.push([p[0] - nx, p[1] - ny, p[2]]);
    });
    bands.push([...left, ...right.reverse()].map((p) => toWcs(ocs, p)));
  }
  return bands;
}

/** What `query` answers of a POLYLINE besides its own fields: its kind, whether closed, its vertices. */
export function polylineReadout(e: PolylineEntity): Record<string, unknown> {
  const vertices = polylineVertices(e);
  const kind = polylineKind(e);
  const out: Record<string, unknown> = {
    kind,
    closed: (e.flags & 1) !== 0,
    vertices: vertices
      .filter((v) => !isFaceRecord(v))
      .map((v) => ({
        location: [...v.location],
        bulge: v.bulge,
        start_width: v.start_width ?? 0,
        end_width: v.end_width ?? 0,
        flags: v.flags,
      })),
  };
  if (kind === 'polyface') out.faces = vertices.filter(isFaceRecord).map((v) => v.face ?? []);
  if (kind === 'mesh') out.mesh_size = [extraNumber(e.extra, 71) ?? 0, extraNumber(e.extra, 72) ?? 0];
  return out;
}

/** The tags with the value of `code` in [start, end) set to `value` (added before `end` when absent). */
function setOwn(tags: DxfTag[], start: number, end: number, code: number, value: number): number {
  let found = -1;
  ownTags(tags, start, end, (t, k) => {
    if (found < 0 && t.code === code) found = k;
  });
  const text = String(value);
  if (found >= 0) {
    tags[found] = { code, value: text };
    return 0;
  }
  // After the last own tag before any xdata or the end: where a reader finds the vertex's values.
  let at = end;
  for (let k = start; k < end; k++) {
    if ((tags[k] as DxfTag).code >= 1000) {
      at = k;
      break;
    }
  }
  tags.splice(at, 0, { code, value: text });
  return 1;
}

/**
 * Rewrites each VERTEX (face records left alone) with `map`, which gives its new location and widths;
 * the tags are copied, never changed in place.
 */
function mapVertices(
  e: PolylineEntity,
  map: (v: PolylineVertex) => { location: Point3; start_width?: number; end_width?: number },
): DxfTag[] {
  const tags = [...e.vertex_tags];
  const vertices = polylineVertices(e);
  const ranges: Array<[number, number]> = [];
  eachVertex(tags, (start, end) => ranges.push([start, end]));
  // From the last vertex back, so an added tag does not move the ranges still to do.
  for (let i = ranges.length - 1; i >= 0; i--) {
    const v = vertices[i] as PolylineVertex;
    if (isFaceRecord(v)) continue;
    const [start, end0] = ranges[i] as [number, number];
    let end = end0;
    const next = map(v);
    end += setOwn(tags, start, end, 10, next.location[0]);
    end += setOwn(tags, start, end, 20, next.location[1]);
    end += setOwn(tags, start, end, 30, next.location[2]);
    if (next.start_width !== undefined) end += setOwn(tags, start, end, 40, next.start_width);
    if (next.end_width !== undefined) setOwn(tags, start, end, 41, next.end_width);
  }
  return tags;
}

/** ezdxf's Polyline.transform, for moves, rotations, uniform scales and mirrors. */
export function transformPolyline(e: PolylineEntity, m: Matrix): PolylineEntity {
  if (polylineKind(e) !== '2d') {
    return { ...e, vertex_tags: mapVertices(e, (v) => ({ location: applyPoint(m, v.location) })) };
  }
  const t = ocsTransform(e.extrusion, m);
  // A width is a length in the plane: ezdxf takes the longer of its images along the OCS x and y axes.
  const width = (w: number | undefined) => {
    if (w === undefined) return undefined;
    const a = Math.abs(w);
    if (a <= 1e-12) return 0;
    const x = applyVector(m, toWcs(t.old, [a, 0, 0]));
    const y = applyVector(m, toWcs(t.old, [0, a, 0]));
    return Math.max(Math.hypot(...x), Math.hypot(...y));
  };
  const z = e.elevation?.[2];
  let first: Point3 | undefined;
  const vertex_tags = mapVertices(e, (v) => {
    const at: Point3 = z === undefined ? v.location : [v.location[0], v.location[1], z];
    const location = ocsVertex(t, at);
    first ??= location;
    return { location, start_width: width(v.start_width), end_width: width(v.end_width) };
  });
  const out: PolylineEntity = { ...e, vertex_tags };
  // mapVertices walks from the last vertex back: the first one's new location is the one seen last.
  const vertices = polylineVertices(out).filter((v) => !isFaceRecord(v));
  const lead = vertices[0]?.location ?? first;
  if (lead) out.elevation = [0, 0, lead[2]];
  let extra = e.extra;
  for (const code of [40, 41]) {
    const w = extraNumber(extra, code);
    if (w !== undefined) extra = withExtraValue(extra, code, width(w) as number);
  }
  const thickness = extraNumber(extra, 39);
  if (thickness !== undefined && thickness !== 0)
    extra = withExtraValue(extra, 39, ocsThickness(t, thickness));
  if (extra) out.extra = extra;
  if (e.extrusion || !isWorldZ(t.extrusion)) out.extrusion = t.extrusion;
  return out;
}
