/**
 * What the viewer draws of an entity, computed here so the browser needs no CAD logic: polylines
 * (arcs and circles flattened), dots, text runs, and a box for picking — all in model coordinates,
 * with the entity's drawn colour. Built from `shapeOf`, the one geometric reading of every entity.
 */

import { aciHex, entityAci } from './colors.js';
import { dictGet } from './dict.js';
import { hatchGeometry, isHatchType, patternSegments } from './geometry/hatch.js';
import { fillRings, type GradientPaint, gradientPaint, hatchGradient } from './geometry/hatch-fill.js';
import { isMlineType, mlineParts, mlineStyleOf } from './geometry/mline.js';
import { polylineBands } from './geometry/polyline.js';
import { rawStandIns } from './geometry/raw-kinds.js';
import { type Shape, shapeBounds, shapeOf } from './geometry/shape.js';
import { boxCorners, textBox } from './geometry/text-box.js';
import { documentContext, type GeometryContext } from './geometry/types.js';
import { isWipeoutType, wipeoutBoundary, wipeoutFrameShown } from './geometry/wipeout.js';
import type { DxfDocumentModel, Entity, RawEntity } from './model.js';

/** A line of text as drawn: its lower-left corner, reading angle (degrees) and height. */
interface TextRun {
  value: string;
  x: number;
  y: number;
  angle: number;
  height: number;
}

interface Drawable {
  handle: string;
  type: string;
  layer: string;
  /** `#rrggbb` from the entity's ACI colour (its layer's for BYLAYER). */
  color: string;
  /** Straight runs, each a flat list x0, y0, x1, y1, ...; closed outlines repeat their first point. */
  paths: number[][];
  /**
   * Arcs and circles, five numbers each: centre x, y, radius, start angle and counter-clockwise sweep
   * (radians; a sweep of 2π is a whole circle). Sent whole rather than as chords: a circle is 5
   * numbers instead of 150, and the browser draws arcs natively.
   */
  arcs: number[];
  /** Outlines painted inside (SOLID, TRACE), each a flat x0, y0, x1, y1, ...; absent when none. */
  fills?: number[][];
  /**
   * Areas with holes (a solid HATCH), each its rings as flat x0, y0, x1, y1, ..., painted as one path by
   * the non-zero rule (rings around holes run the other way); absent when none.
   */
  regions?: number[][][];
  /** The gradient the regions are painted with instead of `color` (a gradient HATCH), in model coordinates. */
  gradient?: GradientPaint;
  /**
   * Areas painted in the page's background over what was drawn before (a WIPEOUT), each a flat x0, y0,
   * x1, y1, ...; absent when none.
   */
  masks?: number[][];
  /**
   * XLINEs and RAYs, five numbers each: start x, y, direction x, y, and 1 for an XLINE (both ways) or 0
   * for a RAY; the page cuts them at its window. Absent when none.
   */
  rays?: number[];
  /** Flat x, y pairs of points drawn as dots. */
  dots: number[];
  texts: TextRun[];
  /** Pickable areas (text and image boxes, raw entities' extents): flat x, y of their corners. */
  areas: number[][];
  /** [minX, minY, maxX, maxY], or null when the entity has no extent. */
  box: [number, number, number, number] | null;
}

/** MText formatting codes removed for display (\P paragraph breaks become spaces). */
function plainMText(value: string): string {
  return value
    .replace(/\\P/g, ' ')
    .replace(/\\[A-Za-z][^;\\{}]*;/g, '')
    .replace(/\\[LlOoKk]/g, '')
    .replace(/[{}]/g, '')
    .replace(/\\\\/g, '\\');
}

/** Text codes of single-line text shown as their glyphs. */
const plainText = (value: string) =>
  value
    .replace(/%%[uUoOkK]/g, '')
    .replace(/%%[dD]/g, '°')
    .replace(/%%[cC]/g, 'ø')
    .replace(/%%[pP]/g, '±')
    .replace(/%%%/g, '%');

function addShape(shape: Shape, out: Drawable): void {
  switch (shape.kind) {
    case 'curves': {
      if (shape.filled && shape.region?.kind === 'loop') {
        out.fills ??= [];
        out.fills.push(shape.region.vertices.flatMap((v) => [v[0], v[1]]));
      }
      let path: number[] = [];
      const flush = () => {
        if (path.length >= 4) out.paths.push(path);
        path = [];
      };
      for (const curve of shape.curves) {
        if (curve.kind === 'arc') {
          flush();
          out.arcs.push(curve.center[0], curve.center[1], curve.radius, curve.start, curve.sweep);
          continue;
        }
        const { a, b } = curve;
        // Consecutive segments that meet continue one path (a polyline stays one outline).
        if (path.length === 0 || path[path.length - 2] !== a[0] || path[path.length - 1] !== a[1]) {
          flush();
          path.push(a[0], a[1]);
        }
        path.push(b[0], b[1]);
      }
      flush();
      return;
    }
    case 'point':
      out.dots.push(shape.point[0], shape.point[1]);
      return;
    case 'quad':
      out.areas.push(shape.corners.flatMap((c) => [c[0], c[1]]));
      return;
    case 'box': {
      const { min, max } = shape.bounds;
      out.areas.push([min[0], min[1], max[0], min[1], max[0], max[1], min[0], max[1]]);
      return;
    }
    case 'group':
      for (const s of shape.shapes) addShape(s, out);
      return;
    case 'ray':
      out.rays ??= [];
      out.rays.push(
        shape.start[0],
        shape.start[1],
        shape.direction[0],
        shape.direction[1],
        shape.both ? 1 : 0,
      );
      return;
  }
}

/** A hatch's paint: a solid one's area with its holes, a pattern's strokes (its outline comes from its shape). */
function addHatch(entity: RawEntity, out: Drawable): void {
  const g = hatchGeometry(entity);
  if (g.solid) {
    const rings = fillRings(g);
    if (rings.length > 0) out.regions = [rings.map((ring) => ring.flat())];
    const gradient = hatchGradient(entity.tags);
    const paint = gradient && gradientPaint(gradient, rings.flat());
    if (paint) out.gradient = paint;
    return;
  }
  for (const [a, b] of patternSegments(g)) out.paths.push([a[0], a[1], b[0], b[1]]);
}

/** The drawable of one entity (in a document whose blocks `ctx` looks up). */
export function drawableOf(entity: Entity, model: DxfDocumentModel, ctx: GeometryContext): Drawable {
  const out: Drawable = {
    handle: entity.handle,
    type: entity.type,
    layer: entity.layer,
    color: aciHex(entityAci(entity, model)),
    paths: [],
    arcs: [],
    dots: [],
    texts: [],
    areas: [],
    box: null,
  };
  const shape = shapeOf(entity, ctx);
  if (!shape) return out;
  // A raw type drawn by stand-ins shows their texts as text (a MULTILEADER's MTEXT, an ATTDEF's tag).
  const standIns = entity.type === 'Raw' ? rawStandIns(entity, false, ctx) : undefined;
  const parts = standIns?.some((p) => p.type === 'Text' || p.type === 'MText') ? standIns : [entity];
  const frames: number[][] = [];
  for (const part of parts) {
    if (part.type === 'Text' || part.type === 'MText') {
      const box = textBox(part);
      const value = part.type === 'Text' ? plainText(part.value) : plainMText(part.value);
      const angle = (Math.atan2(box.dir[1], box.dir[0]) * 180) / Math.PI;
      out.texts.push({ value, x: box.origin[0], y: box.origin[1], angle, height: box.height });
      out.areas.push(boxCorners(box).flatMap((c) => [c[0], c[1]]));
      continue;
    }
    const own = part === entity ? shape : shapeOf(part, ctx);
    if (!own) continue;
    const before = out.areas.length;
    addShape(own, out);
    // An image or raw entity shows its frame; a text only its letters.
    frames.push(...out.areas.slice(before));
  }
  if (entity.type === 'Raw' && isHatchType(entity.dxf_type)) addHatch(entity, out);
  if (entity.type === 'Raw' && isWipeoutType(entity.dxf_type)) {
    out.masks = [wipeoutBoundary(entity).flatMap((p) => [p[0], p[1]])];
    // Its frame only where the drawing shows wipeout frames.
    if (!wipeoutFrameShown(model.objects)) out.paths = [];
  }
  if (entity.type === 'Raw' && isMlineType(entity.dxf_type)) {
    const fill = mlineParts(entity, mlineStyleOf(model.objects, entity)).fill;
    if (fill) out.fills = [fill.flatMap((p) => [p[0], p[1]])];
  }
  if (entity.type === 'Polyline') {
    for (const band of polylineBands(entity)) {
      out.fills ??= [];
      out.fills.push(band.flatMap((p) => [p[0], p[1]]));
    }
  }
  for (const area of frames) out.paths.push([...area, area[0] as number, area[1] as number]);
  const b = shapeBounds(shape);
  if (b) out.box = [b.min[0], b.min[1], b.max[0], b.max[1]];
  return out;
}

/** Whether an entity is drawn in model space (not paper space, not inside a block definition). */
export const inModelSpace = (entity: Entity) => entity.space.toLowerCase() === '*model_space';

/** The drawables of a document's model space, in drawing order. */
export function modelSpaceDrawables(model: DxfDocumentModel): Drawable[] {
  const ctx = documentContext(model);
  const out: Drawable[] = [];
  for (const handle of model.order) {
    const entity = dictGet(model.entities, handle);
    if (entity && inModelSpace(entity)) out.push(drawableOf(entity, model, ctx));
  }
  return out;
}
