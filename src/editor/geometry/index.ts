/**
 * Geometry of the document's entities in the XY plane: bounds, closest points, containment, crossings and
 * transforms. Pure functions; an Insert's geometry is its block's, so functions that may meet one take a
 * GeometryContext to look blocks up (without it, Inserts have no geometry).
 */
import type { Entity, Point3 } from '../model.js';
import { curveIntersections, curveMetrics, shapeClosest, shapeContains } from './measure.js';
import { rayStarts, type Shape, shapeBounds, shapeCurves, shapeOf, unionBounds } from './shape.js';
import { type Bounds, type Closest, type GeometryContext, NO_BLOCKS } from './types.js';

export type { Matrix } from './matrix.js';
export { applyPoint, applyVector, compose, mirroring, rotation, scaling, translation } from './matrix.js';
export { transformEntity } from './transform.js';
export {
  type Bounds,
  type Closest,
  documentContext,
  type GeometryContext,
  GeometryError,
  NO_BLOCKS,
} from './types.js';

/** Tolerance of containsPoint when none is given: float noise only. */
const DEFAULT_TOLERANCE = 1e-6;

/**
 * World-space box of an entity, or undefined when it has no extent the engine can tell: a raw entity
 * without point codes, an infinite XLINE/RAY, an empty polyline, an Insert of a missing block.
 * Text and MText are approximated (see text-box.ts); an Insert is the union of its block's contents placed.
 */
export function bounds(entity: Entity, ctx: GeometryContext = NO_BLOCKS): Bounds | undefined {
  // The common cases without building a shape: the spatial index asks this of every entity at open.
  if (!entity.extra) {
    if (entity.type === 'Line') {
      const { start: a, end: b } = entity;
      return {
        min: [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.min(a[2], b[2])],
        max: [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.max(a[2], b[2])],
      };
    }
    if (entity.type === 'Circle') {
      const [x, y, z] = entity.center;
      const r = entity.radius;
      return { min: [x - r, y - r, z], max: [x + r, y + r, z] };
    }
    if (entity.type === 'Point') return { min: [...entity.location], max: [...entity.location] };
  }
  const shape = shapeOf(entity, ctx);
  return shape && shapeBounds(shape);
}

/**
 * The point of an entity closest to `p` in the XY plane, and its distance. Curves (lines, arcs, circles,
 * polylines) are measured to their outline; text, mtext and images as filled boxes (0 inside); raw entities
 * to their bounds. Undefined when the entity has no geometry (as for `bounds`).
 */
export function closestPoint(
  entity: Entity,
  p: readonly number[],
  ctx: GeometryContext = NO_BLOCKS,
): Closest | undefined {
  const shape = shapeOf(entity, ctx);
  return shape && shapeClosest(shape, p[0] ?? 0, p[1] ?? 0);
}

export function distance(
  entity: Entity,
  p: readonly number[],
  ctx: GeometryContext = NO_BLOCKS,
): number | undefined {
  return closestPoint(entity, p, ctx)?.distance;
}

/**
 * Whether `p` (XY) lies on an entity: within `tolerance` of an open curve (line, arc, open polyline) or a
 * point; inside or within `tolerance` of a closed one (circle, closed polyline by the even-odd rule with
 * bulged edges, text/mtext/image boxes, a raw entity's bounds). An Insert contains what its contents contain.
 */
export function containsPoint(
  entity: Entity,
  p: readonly number[],
  tolerance = DEFAULT_TOLERANCE,
  ctx: GeometryContext = NO_BLOCKS,
): boolean {
  const shape = shapeOf(entity, ctx);
  return shape !== undefined && shapeContains(shape, p[0] ?? 0, p[1] ?? 0, tolerance);
}

/**
 * Where two entities cross in the XY plane: lines, arcs, circles, polyline segments (straight or bulged)
 * and the same inside Inserts. Tangent curves meet in one point; overlapping collinear segments or arcs
 * of the same circle answer the ends of the overlap. Points, text, images and raw entities cross nothing.
 * Points come sorted by x then y; z is taken from `a`.
 */
export function intersections(a: Entity, b: Entity, ctx: GeometryContext = NO_BLOCKS): Point3[] {
  const sa = shapeOf(a, ctx);
  const sb = shapeOf(b, ctx);
  if (!sa || !sb) return [];
  const reach = rayReach(sa, sb);
  return curveIntersections(shapeCurves(sa, [], reach), shapeCurves(sb, [], reach)).sort(
    (p, q) => p[0] - q[0] || p[1] - q[1],
  );
}

/**
 * Where XLINEs and RAYs are cut for crossing tests: the box of both shapes and the rays' start points,
 * grown a million times its size each way (two rays may cross far from where they start).
 */
function rayReach(sa: Shape, sb: Shape): Bounds | undefined {
  const starts = [...rayStarts(sa), ...rayStarts(sb)];
  if (starts.length === 0) return undefined;
  const box = unionBounds([shapeBounds(sa), shapeBounds(sb), ...starts.map((p) => ({ min: p, max: p }))]);
  if (!box) return undefined;
  const grow = 1e6 * Math.max(1, box.max[0] - box.min[0], box.max[1] - box.min[1]);
  return {
    min: [box.min[0] - grow, box.min[1] - grow, box.min[2]],
    max: [box.max[0] + grow, box.max[1] + grow, box.max[2]],
  };
}

/**
 * Length of an entity's outline, and the area it encloses when it is closed (a circle, a closed
 * polyline); undefined for entities that are not curves (points, text, images, inserts, raw entities).
 */
export function measure(
  entity: Entity,
  ctx: GeometryContext = NO_BLOCKS,
): { length: number; closed: boolean; area: number | null } | undefined {
  const shape = shapeOf(entity, ctx);
  return shape && curveMetrics(shape);
}
