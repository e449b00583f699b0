import type {
  ArcEntity,
  Entity,
  InsertEntity,
  LwPolylineEntity,
  LwPolylineVertex,
  MTextEntity,
  Point3,
  RawEntity,
  TextEntity,
} from '../model.js';
import { transformAttribs } from './attribs.js';
import { transformEllipse } from './ellipse.js';
import { GeometryError } from './errors.js';
import {
  extraNumber,
  extraPoint,
  hasFlippedExtrusion,
  withExtraPoint,
  withExtraValue,
  withoutExtrusion,
} from './extra.js';
import { angleOf, hypot2, normalizeDegrees, type Vec2 } from './math.js';
import {
  applyPoint,
  applyVector,
  compose,
  type Matrix,
  mapAngle,
  type Similarity,
  similarity,
} from './matrix.js';
import { transformGridTags } from './minsert.js';
import type { MlineStyle } from './mline.js';
import { transformPolyline as transformOldPolyline } from './polyline.js';
import { isTransformableRaw, transformRaw } from './raw-kinds.js';
import { transformFace, transformSolid } from './solid.js';
import { transformSpline } from './spline.js';
import { alignPoint, attachmentFractions, mtextDirection, textLayout } from './text-box.js';
import { transformXLine } from './xline.js';

interface TransformOptions {
  /** The MIRRTEXT system variable: true mirrors Text glyphs; false (the default) keeps text readable. */
  mirrtext?: boolean;
  /** The MLINESTYLE an MLINE names (its drawing's): an MLINE is regenerated from it as ezdxf does. */
  mlineStyle?: (e: RawEntity) => MlineStyle;
}

/** World x → −x (and z → −z): the OCS of an extrusion of (0, 0, −1). It is its own inverse. */
const FLIP: Matrix = { a: -1, b: 0, c: 0, d: 1, e: 0, f: 0, sz: -1, tz: 0 };
const FLIP_SIMILARITY: Similarity = { scale: 1, reflect: true, angle: 180 };

/**
 * A new entity moved, rotated, scaled and/or mirrored by `m`; the input is never changed.
 *
 * Only similarities (no shear, equal x and y scale) keep circles circles, so any other matrix is refused
 * with `invalid_transform`; Raw entities (types the engine does not model) with `not_transformable`.
 * Mirroring reverses arcs (angles swap), negates LwPolyline bulges, gives Inserts a negative x scale, and
 * leaves Text readable unless `mirrtext` (MText has no mirrored form in DXF: it always stays readable).
 */
export function transformEntity(entity: Entity, m: Matrix, options: TransformOptions = {}): Entity {
  if (entity.type === 'Raw' && !isTransformableRaw(entity)) {
    throw new GeometryError(
      'not_transformable',
      `${entity.dxf_type} ${entity.handle} is kept as read and cannot be transformed`,
    );
  }
  const inOcs = hasFlippedExtrusion(entity) ? compose(compose(FLIP, m), FLIP) : m;
  const sim = similarity(inOcs);
  if (!sim) {
    throw new GeometryError(
      'invalid_transform',
      'only moves, rotations, uniform scales and mirrors can be applied',
    );
  }
  return applySimilarity(entity, inOcs, sim, options.mirrtext ?? false, options.mlineStyle);
}

/**
 * The entity as seen in world coordinates: an OCS entity with a (0, 0, −1) extrusion comes back with its
 * coordinates, angles and bulges mirrored into the world and no extrusion. Others are returned as they are.
 */
export function planar(entity: Entity): Entity {
  if (!hasFlippedExtrusion(entity)) return entity;
  return applySimilarity({ ...entity, extra: withoutExtrusion(entity.extra) }, FLIP, FLIP_SIMILARITY, true);
}

/** Applies a transform already known to be a similarity (used for block contents too). */
function applySimilarity(
  entity: Entity,
  m: Matrix,
  sim: Similarity,
  mirrtext: boolean,
  mlineStyle?: (e: RawEntity) => MlineStyle,
): Entity {
  const s = sim.scale;
  switch (entity.type) {
    case 'Line':
      return { ...entity, start: applyPoint(m, entity.start), end: applyPoint(m, entity.end) };
    case 'Point':
      return { ...entity, location: applyPoint(m, entity.location) };
    case 'Circle':
      return { ...entity, center: applyPoint(m, entity.center), radius: entity.radius * s };
    case 'Arc':
      return transformArc(entity, m, sim);
    case 'Ellipse':
      return transformEllipse(entity, m);
    case 'LwPolyline':
      return transformPolyline(entity, m, sim);
    case 'Insert':
      return transformInsert(entity, m, sim, mirrtext);
    case 'Image':
      return {
        ...entity,
        position: applyPoint(m, entity.position),
        u_vector: applyVector(m, entity.u_vector),
        v_vector: applyVector(m, entity.v_vector),
      };
    case 'Solid':
    case 'Trace':
      return transformSolid(entity, m);
    case 'Face3d':
      return transformFace(entity, m);
    case 'XLine':
    case 'Ray':
      return transformXLine(entity, m);
    case 'Polyline':
      return transformOldPolyline(entity, m);
    case 'Spline':
      return transformSpline(entity, m);
    case 'Text':
      return transformText(entity, m, sim, mirrtext);
    case 'MText':
      return transformMText(entity, m, sim);
    case 'Raw': {
      const text = (t: TextEntity) => transformText(t, m, sim, mirrtext);
      const moved = transformRaw(entity, { m, sim, text, ...(mlineStyle ? { mlineStyle } : {}) });
      if (moved) return moved;
      throw new GeometryError(
        'not_transformable',
        `${entity.dxf_type} ${entity.handle} cannot be transformed`,
      );
    }
  }
}

function transformArc(e: ArcEntity, m: Matrix, sim: Similarity): ArcEntity {
  // A mirror turns a counter-clockwise arc clockwise: the image of the end angle becomes the start.
  const start = sim.reflect ? mapAngle(sim, e.end_angle) : mapAngle(sim, e.start_angle);
  const end = sim.reflect ? mapAngle(sim, e.start_angle) : mapAngle(sim, e.end_angle);
  return {
    ...e,
    center: applyPoint(m, e.center),
    radius: e.radius * sim.scale,
    start_angle: normalizeDegrees(start),
    end_angle: normalizeDegrees(end),
  };
}

function transformPolyline(e: LwPolylineEntity, m: Matrix, sim: Similarity): LwPolylineEntity {
  const vertices = e.vertices.map((v: LwPolylineVertex) => {
    const [x, y] = applyPoint(m, [v.x, v.y, 0]);
    const out: LwPolylineVertex = { ...v, x, y, bulge: sim.reflect && v.bulge !== 0 ? -v.bulge : v.bulge };
    if (v.start_width !== undefined) out.start_width = v.start_width * sim.scale;
    if (v.end_width !== undefined) out.end_width = v.end_width * sim.scale;
    return out;
  });
  const constantWidth = extraNumber(e.extra, 43);
  const extra =
    constantWidth !== undefined && constantWidth !== 0 && sim.scale !== 1
      ? withExtraValue(e.extra, 43, constantWidth * sim.scale)
      : e.extra;
  const out: LwPolylineEntity = { ...e, vertices, elevation: m.sz * e.elevation + m.tz };
  if (extra) out.extra = extra;
  return out;
}

function transformInsert(e: InsertEntity, m: Matrix, sim: Similarity, mirrtext: boolean): InsertEntity {
  const [sx, sy, sz] = e.scale;
  const s = sim.scale;
  // A mirrored block reference is the block with a negative x scale, turned so its x axis lands where the
  // mirror sends it: rotation' = direction of −M·dir(rotation).
  const rotation = sim.reflect ? mapAngle(sim, e.rotation) + 180 : mapAngle(sim, e.rotation);
  const out: InsertEntity = {
    ...e,
    position: applyPoint(m, e.position),
    scale: [sim.reflect ? -sx * s : sx * s, sy * s, sz * m.sz],
    rotation: normalizeDegrees(rotation),
  };
  const extra = transformGridTags(e, sim);
  if (extra) out.extra = extra;
  if (e.attribs) out.attribs = transformAttribs(e.attribs, (t) => transformText(t, m, sim, mirrtext));
  return out;
}

const unit = (v: readonly number[]): Vec2 => {
  const length = hypot2(v[0] ?? 0, v[1] ?? 0);
  return length === 0 ? [1, 0] : [(v[0] ?? 0) / length, (v[1] ?? 0) / length];
};

/**
 * Which readable text fills a mirrored box: reading the other way along the same baseline, or flipped
 * upside down within the box. The one that stands upright (its up vector points to +y) wins; text that
 * runs vertically reads bottom to top.
 */
function flipAlong(dir: Vec2, up: Vec2): boolean {
  return Math.abs(up[1]) > 1e-9 ? up[1] > 0 : dir[1] < 0;
}

/** The text with its alignment point moved, wherever the model keeps it. */
function withAlignPoint(e: TextEntity, p: Point3): TextEntity {
  if (e.align_point) return { ...e, align_point: p };
  return e.extra ? { ...e, extra: withExtraPoint(e.extra, 11, p) } : e;
}

function transformText(e: TextEntity, m: Matrix, sim: Similarity, mirrtext: boolean): TextEntity {
  const height = e.height * sim.scale;
  const second = alignPoint(e);
  if (!sim.reflect || mirrtext) {
    // Mirrored glyphs: DXF's backward flag (71 bit 2), with the rotation of −M·dir(rotation).
    const rotation = sim.reflect ? mapAngle(sim, e.rotation) + 180 : mapAngle(sim, e.rotation);
    const out: TextEntity = {
      ...e,
      position: applyPoint(m, e.position),
      height,
      rotation: normalizeDegrees(rotation),
    };
    if (sim.reflect) out.extra = withExtraValue(e.extra, 71, (extraNumber(e.extra, 71) ?? 0) ^ 2);
    return second ? withAlignPoint(out, applyPoint(m, second)) : out;
  }
  // Readable: the mirrored box, filled by text that reads left to right and stands upright. The anchor
  // is mapped from the point of the original box that ends up under it, so no error piles up on it.
  const layout = textLayout(e);
  const { anchor: a, dir: d0, up: u0 } = layout;
  const mirroredDir = unit(applyVector(m, d0));
  const mirroredUp = unit(applyVector(m, u0));
  let dir: Vec2 = mirroredDir;
  let up: Vec2 = mirroredUp;
  let source: Point3 = a;
  // A text that was drawn mirrored (backward or upside down) comes out of a mirror reading right.
  if (mirroredDir[0] * mirroredUp[1] - mirroredDir[1] * mirroredUp[0] < 0) {
    if (flipAlong(mirroredDir, mirroredUp)) {
      dir = [-mirroredDir[0], -mirroredDir[1]];
      const k = (1 - 2 * layout.along) * layout.width;
      source = [a[0] + k * d0[0], a[1] + k * d0[1], a[2]];
    } else {
      up = [-mirroredUp[0], -mirroredUp[1]];
      const k = e.height - 2 * layout.above;
      source = [a[0] + k * u0[0], a[1] + k * u0[1], a[2]];
    }
  }
  const anchor = applyPoint(m, source);
  const width = layout.width * sim.scale;
  const along = layout.along * width;
  const above = layout.above * sim.scale;
  const origin: Point3 =
    along === 0 && above === 0
      ? anchor
      : [anchor[0] - along * dir[0] - above * up[0], anchor[1] - along * dir[1] - above * up[1], anchor[2]];
  const out: TextEntity = { ...e, position: origin, height, rotation: angleOf(dir[0], dir[1]) };
  const flags = extraNumber(e.extra, 71) ?? 0;
  if (flags & 6) out.extra = withExtraValue(e.extra, 71, flags & ~6);
  if (!second) return out;
  const newSecond: Point3 = layout.aligned
    ? [origin[0] + width * dir[0], origin[1] + width * dir[1], origin[2]]
    : layout.anchor === e.position
      ? applyPoint(m, second)
      : anchor;
  return withAlignPoint(out, newSecond);
}

function transformMText(e: MTextEntity, m: Matrix, sim: Similarity): MTextEntity {
  const direction = mtextDirection(e);
  let dir = unit(applyVector(m, direction));
  let attachment = e.attachment;
  if (sim.reflect) {
    // Readable: keep the anchor where the mirror puts it and attach the box from the other side.
    const up = unit(applyVector(m, [-direction[1], direction[0]]));
    const { along, upFraction } = attachmentFractions(e.attachment);
    const column = along * 2;
    const row = 2 - upFraction * 2;
    if (flipAlong(dir, up)) {
      dir = [-dir[0], -dir[1]];
      attachment = row * 3 + (2 - column) + 1;
    } else {
      attachment = (2 - row) * 3 + column + 1;
    }
  }
  const axis = extraPoint(e.extra, 11);
  let extra = e.extra;
  if (extra && axis) {
    const length = hypot2(axis[0], axis[1]) || 1;
    extra = withExtraPoint(extra, 11, [dir[0] * length, dir[1] * length, axis[2]]);
  }
  const out: MTextEntity = {
    ...e,
    position: applyPoint(m, e.position),
    height: e.height * sim.scale,
    width: e.width * sim.scale,
    rotation: sim.reflect || axis ? angleOf(dir[0], dir[1]) : normalizeDegrees(mapAngle(sim, e.rotation)),
    attachment,
  };
  if (extra) out.extra = extra;
  return out;
}
