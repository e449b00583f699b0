/**
 * One geometric reading of every entity, so bounds, distances, containment and crossings are written once:
 * curves (with the region they enclose, for circles and closed polylines), a point, a filled
 * quadrilateral (text, mtext, image), a filled box (raw entities), or a group (a block reference).
 */
import { MAX_EXPANDED_ENTITIES, tooLarge } from '../expansion.js';
import type { Entity, InsertEntity, Point3 } from '../model.js';
import { insertAttribs } from './attribs.js';
import {
  type ArcCurve,
  arcCurve,
  arcEnds,
  type Curve,
  circleCurve,
  curveBounds,
  polylineCurves,
  tessellate,
} from './curves.js';
import { ellipseSegments, ellipseSweep } from './ellipse.js';
import { cosSinDeg, normalizeRad, TAU, type Vec2 } from './math.js';
import { applyPoint, compose, type Matrix, type Similarity, similarity, translation } from './matrix.js';
import { gridOffsets } from './minsert.js';
import { polylineOutline } from './polyline.js';
import { boundsOfPoints, rawBounds } from './raw.js';
import { rawStandIns } from './raw-kinds.js';
import { faceOutline, loopSegments, loopVertices, solidOutline } from './solid.js';
import { splineClosed, splineSegments } from './spline.js';
import { boxCorners, textBox } from './text-box.js';
import { planar } from './transform.js';
import type { Bounds, GeometryContext } from './types.js';
import { type RayShape, rayClipped, rayShape, transformRay } from './xline.js';

/** The inside of a closed outline: a disc (a circle's) or a loop of vertices whose edges may bulge. */
type Region = { kind: 'disc' } | { kind: 'loop'; vertices: Vec2[] };

export type Shape =
  /** `filled`: the region is painted (SOLID, TRACE), not only outlined. */
  | { kind: 'curves'; curves: Curve[]; region?: Region; filled?: boolean }
  | { kind: 'point'; point: Point3 }
  | { kind: 'quad'; corners: [Point3, Point3, Point3, Point3] }
  | { kind: 'box'; bounds: Bounds }
  | { kind: 'group'; shapes: Shape[] }
  /** An infinite line (XLINE) or half line (RAY): no bounds; drawings cut it at their window. */
  | RayShape;

/** Nested block references deeper than this are not followed (and a block that holds itself stops here). */
const MAX_DEPTH = 16;

export function shapeOf(entity: Entity, ctx: GeometryContext, depth = 0): Shape | undefined {
  const e = planar(entity);
  switch (e.type) {
    case 'Line':
      return { kind: 'curves', curves: [{ kind: 'segment', a: e.start, b: e.end }] };
    case 'Circle':
      return { kind: 'curves', curves: [circleCurve(e.center, e.radius)], region: { kind: 'disc' } };
    case 'Arc':
      return { kind: 'curves', curves: [arcCurve(e.center, e.radius, e.start_angle, e.end_angle)] };
    case 'Ellipse': {
      const curves = ellipseSegments(e);
      if (ellipseSweep(e) < TAU) return { kind: 'curves', curves };
      const vertices = curves.map((c): Vec2 => [c.a[0], c.a[1]]);
      return { kind: 'curves', curves, region: { kind: 'loop', vertices } };
    }
    case 'Point':
      return { kind: 'point', point: e.location };
    case 'LwPolyline': {
      const first = e.vertices[0];
      if (!first) return undefined;
      if (e.vertices.length === 1) return { kind: 'point', point: [first.x, first.y, e.elevation] };
      const curves = polylineCurves(e);
      if (!e.closed) return { kind: 'curves', curves };
      return {
        kind: 'curves',
        curves,
        region: { kind: 'loop', vertices: e.vertices.map((v): Vec2 => [v.x, v.y]) },
      };
    }
    case 'Text':
    case 'MText':
      return { kind: 'quad', corners: boxCorners(textBox(e)) };
    case 'Image': {
      const [w, h] = e.size;
      const p = e.position;
      const u: Point3 = [e.u_vector[0] * w, e.u_vector[1] * w, e.u_vector[2] * w];
      const v: Point3 = [e.v_vector[0] * h, e.v_vector[1] * h, e.v_vector[2] * h];
      return {
        kind: 'quad',
        corners: [
          p,
          [p[0] + u[0], p[1] + u[1], p[2] + u[2]],
          [p[0] + u[0] + v[0], p[1] + u[1] + v[1], p[2] + u[2] + v[2]],
          [p[0] + v[0], p[1] + v[1], p[2] + v[2]],
        ],
      };
    }
    case 'Solid':
    case 'Trace': {
      const points = solidOutline(e);
      return {
        kind: 'curves',
        curves: loopSegments(points),
        region: { kind: 'loop', vertices: loopVertices(points) },
        filled: true,
      };
    }
    case 'Face3d': {
      const { points, visible } = faceOutline(e);
      return {
        kind: 'curves',
        curves: loopSegments(points, visible),
        region: { kind: 'loop', vertices: loopVertices(points) },
      };
    }
    case 'XLine':
    case 'Ray':
      return rayShape(e);
    case 'Spline': {
      const curves = splineSegments(e);
      if (curves.length === 0) {
        const at = e.control_points[0] ?? e.fit_points[0];
        return at ? { kind: 'point', point: at } : undefined;
      }
      const ends = [curves[0]?.a as Point3, curves[curves.length - 1]?.b as Point3];
      if (!splineClosed(e, ends)) return { kind: 'curves', curves };
      const vertices = curves.map((c): Vec2 => [c.a[0], c.a[1]]);
      return { kind: 'curves', curves, region: { kind: 'loop', vertices } };
    }
    case 'Polyline': {
      const { curves, closed } = polylineOutline(e);
      if (curves.length === 0) return undefined;
      if (!closed) return { kind: 'curves', curves };
      // Each curve's start in the direction it runs (a clockwise arc from its end angle).
      const vertices = curves.map((c): Vec2 => {
        const p = c.kind === 'segment' ? c.a : arcEnds(c)[c.ccw ? 0 : 1];
        return [p[0], p[1]];
      });
      return { kind: 'curves', curves, region: { kind: 'loop', vertices } };
    }
    case 'Insert':
      return insertShape(e, ctx, depth);
    case 'Raw': {
      const standIns = rawStandIns(e, depth > 0, ctx);
      if (standIns) return groupOf(standIns, ctx, depth);
      // A known type whose tags do not read as it (or an unknown one): bounded by its point codes.
      const bounds = rawBounds(e);
      return bounds && { kind: 'box', bounds };
    }
  }
}

/** Block coordinates to world: position + R(rotation)·S(scale)·(p − base). */
export function insertMatrix(e: InsertEntity, base: Point3): Matrix {
  const [sx, sy, sz] = e.scale;
  const [cos, sin] = cosSinDeg(e.rotation);
  const linear: Matrix = { a: cos * sx, b: sin * sx, c: -sin * sy, d: cos * sy, e: 0, f: 0, sz, tz: 0 };
  return compose(compose(translation([-base[0], -base[1], -base[2]]), linear), translation(e.position));
}

function insertShape(e: InsertEntity, ctx: GeometryContext, depth: number): Shape | undefined {
  if (depth >= MAX_DEPTH) return undefined;
  // Counted once at the top (the count covers every level below): past the limit nothing is built.
  if (depth === 0 && ctx.expanded) {
    const count = ctx.expanded(e);
    if (count > MAX_EXPANDED_ENTITIES) throw tooLarge(`Insert ${e.handle} of block ${e.name}`, count);
  }
  const block = ctx.block(e.name);
  if (!block) return undefined;
  const m = insertMatrix(e, block.base);
  const inBlock: Shape[] = [];
  for (const child of block.entities) {
    const shape = shapeOf(child, ctx, depth + 1);
    if (shape) inBlock.push(transformShape(shape, m));
  }
  // The attributes it shows, in its own space's coordinates.
  const attribs: Shape[] = [];
  for (const attrib of insertAttribs(e)) {
    if (!attrib.invisible) attribs.push({ kind: 'quad', corners: boxCorners(textBox(attrib.text)) });
  }
  // A MINSERT is its block and attributes once per cell of its grid.
  const offsets = gridOffsets(e);
  const shapes: Shape[] = [];
  for (const offset of offsets) {
    const cell = [...inBlock, ...attribs];
    if (offset[0] === 0 && offset[1] === 0) shapes.push(...cell);
    else for (const s of cell) shapes.push(transformShape(s, translation(offset)));
  }
  // A reference to an empty block still stands at its insertion point.
  if (shapes.length === 0) return { kind: 'point', point: e.position };
  return { kind: 'group', shapes };
}

/** The stand-ins of a raw entity (raw-kinds.ts) as one shape; undefined when none has geometry. */
function groupOf(entities: readonly Entity[], ctx: GeometryContext, depth: number): Shape | undefined {
  const shapes: Shape[] = [];
  for (const entity of entities) {
    const shape = shapeOf(entity, ctx, depth);
    if (shape) shapes.push(shape);
  }
  if (shapes.length === 0) return undefined;
  return shapes.length === 1 ? shapes[0] : { kind: 'group', shapes };
}

function transformArc(c: ArcCurve, m: Matrix, sim: Similarity): ArcCurve {
  const rotation = (sim.angle * Math.PI) / 180;
  const start = sim.reflect ? rotation - (c.start + c.sweep) : c.start + rotation;
  return {
    kind: 'arc',
    center: applyPoint(m, c.center),
    radius: c.radius * sim.scale,
    start: normalizeRad(start),
    sweep: c.sweep,
    ccw: sim.reflect ? !c.ccw : c.ccw,
  };
}

/**
 * A shape in another frame. Similarities map arcs to arcs exactly; an Insert scaled unevenly turns arcs into
 * ellipses, which are approximated by 64 chords to the turn.
 */
export function transformShape(shape: Shape, m: Matrix): Shape {
  switch (shape.kind) {
    case 'point':
      return { kind: 'point', point: applyPoint(m, shape.point) };
    case 'quad': {
      const [a, b, c, d] = shape.corners;
      return {
        kind: 'quad',
        corners: [applyPoint(m, a), applyPoint(m, b), applyPoint(m, c), applyPoint(m, d)],
      };
    }
    case 'box': {
      const { min, max } = shape.bounds;
      const corners: [Point3, Point3, Point3, Point3] = [
        applyPoint(m, min),
        applyPoint(m, [max[0], min[1], min[2]]),
        applyPoint(m, [max[0], max[1], min[2]]),
        applyPoint(m, [min[0], max[1], min[2]]),
      ];
      return { kind: 'quad', corners };
    }
    case 'group':
      return { kind: 'group', shapes: shape.shapes.map((s) => transformShape(s, m)) };
    case 'curves': {
      const moved = transformCurves(shape, m);
      return shape.filled && moved.kind === 'curves' ? { ...moved, filled: true } : moved;
    }
    case 'ray':
      return transformRay(shape, m);
  }
}

function transformCurves(shape: Extract<Shape, { kind: 'curves' }>, m: Matrix): Shape {
  const sim = similarity(m);
  if (sim) {
    const curves = shape.curves.map(
      (c): Curve =>
        c.kind === 'segment'
          ? { kind: 'segment', a: applyPoint(m, c.a), b: applyPoint(m, c.b) }
          : transformArc(c, m, sim),
    );
    if (!shape.region || shape.region.kind === 'disc')
      return { kind: 'curves', curves, region: shape.region };
    const vertices = shape.region.vertices.map((v): Vec2 => {
      const [x, y] = applyPoint(m, [v[0], v[1], 0]);
      return [x, y];
    });
    return { kind: 'curves', curves, region: { kind: 'loop', vertices } };
  }
  // Uneven scale: every arc becomes a chain of chords, and the region the loop of their vertices.
  const curves: Curve[] = [];
  const loop: Vec2[] = [];
  for (const c of shape.curves) {
    const path = c.kind === 'segment' ? [c.a, c.b] : tessellate(c).map((p) => applyPoint(m, p));
    const points = c.kind === 'segment' ? path.map((p) => applyPoint(m, p)) : path;
    for (let i = 0; i + 1 < points.length; i++) {
      const a = points[i] as Point3;
      curves.push({ kind: 'segment', a, b: points[i + 1] as Point3 });
      loop.push([a[0], a[1]]);
    }
  }
  return shape.region
    ? { kind: 'curves', curves, region: { kind: 'loop', vertices: loop } }
    : { kind: 'curves', curves };
}

export function unionBounds(all: Iterable<Bounds | undefined>): Bounds | undefined {
  let min: Point3 | undefined;
  let max: Point3 | undefined;
  for (const b of all) {
    if (!b) continue;
    if (!min || !max) {
      min = [b.min[0], b.min[1], b.min[2]];
      max = [b.max[0], b.max[1], b.max[2]];
      continue;
    }
    if (b.min[0] < min[0]) min[0] = b.min[0];
    if (b.min[1] < min[1]) min[1] = b.min[1];
    if (b.min[2] < min[2]) min[2] = b.min[2];
    if (b.max[0] > max[0]) max[0] = b.max[0];
    if (b.max[1] > max[1]) max[1] = b.max[1];
    if (b.max[2] > max[2]) max[2] = b.max[2];
  }
  return min && max ? { min, max } : undefined;
}

export function shapeBounds(shape: Shape): Bounds | undefined {
  switch (shape.kind) {
    case 'point':
      return { min: [...shape.point], max: [...shape.point] };
    case 'quad':
      return boundsOfPoints(shape.corners);
    case 'box':
      return { min: [...shape.bounds.min], max: [...shape.bounds.max] };
    case 'curves':
      return unionBounds(shape.curves.map(curveBounds));
    case 'group':
      return unionBounds(shape.shapes.map(shapeBounds));
    case 'ray':
      return undefined;
  }
}

/**
 * Every curve of a shape, groups flattened; points, quads and boxes have none. An XLINE or RAY is the
 * part of it within `reach` (none without one).
 */
export function shapeCurves(shape: Shape, out: Curve[] = [], reach?: Bounds): Curve[] {
  if (shape.kind === 'curves') out.push(...shape.curves);
  else if (shape.kind === 'group') for (const s of shape.shapes) shapeCurves(s, out, reach);
  else if (shape.kind === 'ray' && reach) {
    const segment = rayClipped(shape, reach);
    if (segment) out.push(segment);
  }
  return out;
}

/** The start points of the XLINEs and RAYs of a shape (groups followed). */
export function rayStarts(shape: Shape, out: Point3[] = []): Point3[] {
  if (shape.kind === 'ray') out.push(shape.start);
  else if (shape.kind === 'group') for (const s of shape.shapes) rayStarts(s, out);
  return out;
}
