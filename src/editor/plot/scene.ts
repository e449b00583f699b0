/**
 * What a plot draws, in drawing coordinates: each top-level entity of a layout as strokes, dots and text,
 * block references followed into their blocks, with the colour and lineweight each part prints with and
 * the layers that hide it left out. Pure: the page placement and the file formats come after.
 */

import { entityAci } from '../colors.js';
import { dictGet, dictSet } from '../dict.js';
import { insertAttribs } from '../geometry/attribs.js';
import { type Curve, curveBounds } from '../geometry/curves.js';
import { extraNumber } from '../geometry/extra.js';
import { hatchGeometry, isHatchType } from '../geometry/hatch.js';
import { fillRings, type GradientPaint, gradientPaint, hatchGradient } from '../geometry/hatch-fill.js';
import { type Bounds, NO_BLOCKS } from '../geometry/index.js';
import { applyPoint, applyVector, compose, IDENTITY, type Matrix, translation } from '../geometry/matrix.js';
import { gridOffsets } from '../geometry/minsert.js';
import { isMlineType, mlineEntities, mlineStyleOf } from '../geometry/mline.js';
import { polylineBands } from '../geometry/polyline.js';
import { boundsOfPoints } from '../geometry/raw.js';
import { isKnownRaw, rawDrawn } from '../geometry/raw-kinds.js';
import { insertMatrix, type Shape, shapeOf, transformShape, unionBounds } from '../geometry/shape.js';
import {
  attachmentFractions,
  mtextDirection,
  mtextLift,
  mtextLines,
  textCharacters,
  textLayout,
  textWidth,
} from '../geometry/text-box.js';
import { planar } from '../geometry/transform.js';
import { blockNameOf, dimSizesOf, dimStyleValueOf } from '../geometry/types.js';
import { isViewportType } from '../geometry/viewport.js';
import { isWipeoutType, wipeoutBoundary, wipeoutFrameShown } from '../geometry/wipeout.js';
import { rayClipped, transformRay } from '../geometry/xline.js';
import type {
  DxfDocumentModel,
  Entity,
  ImageEntity,
  Layer,
  MTextEntity,
  Point3,
  RawEntity,
  TextEntity,
} from '../model.js';
import { named } from '../names.js';
import type { Tick } from '../slices.js';
import { globalLinetypeScale, linetypePatterns } from './linetypes.js';
import { overlaps } from './page.js';
import { readViewport, viewportMatrix } from './viewport.js';

const MODEL_SPACE = '*Model_Space';

/** Lineweight of "default" (-3) and of layers without one, in millimetres: AutoCAD's LWDEFAULT. */
const DEFAULT_LINEWEIGHT_MM = 0.25;
/** MText lines are 5/3 of the text height apart (AutoCAD's default line spacing). */
const MTEXT_LINE_SPACING = 5 / 3;
/** Nested block references deeper than this are not followed (a block that holds itself stops here). */
const MAX_DEPTH = 16;

/** One line of text in its frame: `x`, `y` in text heights from the frame's origin, y up. */
export interface TextLine {
  text: string;
  x: number;
  y: number;
  /** Where `x` is on the line: 0 its start, 0.5 its middle, 1 its end. */
  anchor: 0 | 0.5 | 1;
}

/** A part of an entity as drawn, in drawing coordinates, with the ACI colour and lineweight it prints with. */
export type DrawnItem = {
  aci: number;
  weight: number;
} /** `dash`: the linetype's dash (+), gap (-) and dot (0) lengths in drawing units; none for a solid line. */ & (
  | { kind: 'curves'; curves: Curve[]; dash?: number[] }
  | { kind: 'dot'; point: Point3 }
  /**
   * A closed outline (an image's frame, a viewport's border); `fill`: painted inside too (a SOLID).
   * `rings`: more rings of the same fill (a hatch's other loops), each turned so that the non-zero rule
   * paints the hatch's area: counter-clockwise like `points` where it adds, clockwise around a hole.
   * `mask`: painted inside in the background colour and not stroked (a WIPEOUT hiding what is under it).
   * `paint`: the fill is this gradient instead of its colour (a gradient HATCH).
   */
  | {
      kind: 'outline';
      points: Point3[];
      dash?: number[];
      fill?: boolean;
      rings?: Point3[][];
      mask?: boolean;
      paint?: GradientPaint;
    }
  /**
   * Text in a frame: local (x, y) is at origin + x·u + y·v, one local unit being one text height (the
   * height of a capital), so a frame that shears or stretches the text (a block inserted unevenly) carries over.
   */
  | { kind: 'text'; origin: Point3; u: Point3; v: Point3; lines: TextLine[] }
  /**
   * A raster image: its lower-left corner `origin`, its whole width `u` and height `v` as vectors, and
   * the file its IMAGEDEF names (read when the plot is written; without it only the frame is drawn).
   */
  | { kind: 'image'; origin: Point3; u: Point3; v: Point3; file: string | undefined }
  /**
   * An XLINE (`both`) or RAY: no end, so no bounds. A scene cuts it at the extents of everything else it
   * draws (cutRays) once those are known, and draws it there as curves.
   */
  | { kind: 'ray'; start: Point3; direction: Point3; both: boolean; dash?: number[] }
);

/** What a paper space viewport shows: model space parts brought onto the sheet, cut at its border. */
interface ClipItem {
  kind: 'clip';
  box: Bounds;
  items: DrawnItem[];
}

export type PlotItem = DrawnItem | ClipItem;

export interface PlotEntity {
  handle: string;
  type: string;
  layer: string;
  items: PlotItem[];
  bounds: Bounds;
}

export interface PlotScene {
  entities: PlotEntity[];
  /** Entities left out because the plot cannot draw their type (DXF types the editor keeps raw), by type. */
  skipped: Record<string, number>;
}

/** What the parts of a block reference inherit from it: layer 0 parts take its layer, BYBLOCK its colour. */
interface Inherited {
  layer: string;
  aci: number;
  weight: number;
  /** The reference's linetype, resolved (BYLAYER looked up), for BYBLOCK parts. */
  linetype: string;
  matrix: Matrix;
  depth: number;
}

/** What every entity of one plot is drawn against. */
interface SceneContext {
  model: DxfDocumentModel;
  /** Layers left out besides those off, frozen or not plotted (a viewport's frozen layers), upper case. */
  hidden: ReadonlySet<string>;
  /** Linetype dash patterns by upper-case name, and $LTSCALE. */
  patterns: ReadonlyMap<string, number[]>;
  ltscale: number;
  /** `layerPlots` by layer name, as found during this plot (the model does not change during one). */
  plots?: Map<string, boolean>;
  /** `patterns` by linetype name in any case, as looked up during this plot. */
  byName?: Map<string, number[] | undefined>;
}

/** Layers AutoCAD never plots: `Defpoints` holds dimension definition points. */
const NEVER_PLOTTED = new Set(['DEFPOINTS']);

function layerOf(model: DxfDocumentModel, name: string): Layer | undefined {
  return named(model.layers, name);
}

/** Whether a layer is printed: not off, not frozen, its plot flag (290) not cleared, not Defpoints. */
function layerPlots(model: DxfDocumentModel, name: string, hidden: ReadonlySet<string>): boolean {
  if (NEVER_PLOTTED.has(name.toUpperCase()) || hidden.has(name.toUpperCase())) return false;
  const layer = layerOf(model, name);
  if (!layer) return true;
  if (layer.off || layer.frozen) return false;
  return !layer.extra?.some((t) => t.code === 290 && t.value.trim() === '0');
}

/** `layerPlots` for the plot `ctx`, looked up once per layer rather than once per entity. */
function plotsOn(ctx: SceneContext, layer: string): boolean {
  ctx.plots ??= new Map();
  let plots = ctx.plots.get(layer);
  if (plots === undefined) {
    plots = layerPlots(ctx.model, layer, ctx.hidden);
    ctx.plots.set(layer, plots);
  }
  return plots;
}

function layerFrozen(model: DxfDocumentModel, name: string, hidden: ReadonlySet<string>): boolean {
  return layerOf(model, name)?.frozen === true || hidden.has(name.toUpperCase());
}

/** Lineweight in mm: the entity's, its layer's (BYLAYER), the reference's (BYBLOCK), or the default. */
function weightOf(model: DxfDocumentModel, lineweight: number, layer: string, byBlock: number): number {
  if (lineweight >= 0) return lineweight / 100;
  if (lineweight === -2) return byBlock;
  if (lineweight === -1) {
    const own = layerOf(model, layer)?.lineweight ?? -3;
    return own >= 0 ? own / 100 : DEFAULT_LINEWEIGHT_MM;
  }
  return DEFAULT_LINEWEIGHT_MM;
}

/** How a frame scales lengths (the mean of its axes' scales, exact for the similarities blocks mostly are). */
const matrixScale = (m: Matrix) => Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));

/** The linetype an entity is drawn with, by name: its own, its layer's (BYLAYER) or its reference's (BYBLOCK). */
function linetypeOf(
  model: DxfDocumentModel,
  own: string,
  layer: string,
  byBlock: string | undefined,
): string {
  const name = own.toUpperCase();
  if (name === 'BYLAYER') return layerOf(model, layer)?.linetype ?? 'CONTINUOUS';
  if (name === 'BYBLOCK') return byBlock ?? 'CONTINUOUS';
  return own;
}

/**
 * The dash pattern an entity's curves print with, in drawing units of the frame `m` maps into: the
 * linetype's lengths times $LTSCALE, the entity's own linetype scale (48) and the frame's scale.
 */
function dashOf(ctx: SceneContext, linetype: string, entity: Entity, m: Matrix): number[] | undefined {
  // Most drawings have no dashed linetype: no name to upper-case per entity then.
  if (ctx.patterns.size === 0) return undefined;
  ctx.byName ??= new Map();
  let pattern = ctx.byName.get(linetype);
  if (pattern === undefined && !ctx.byName.has(linetype)) {
    pattern = ctx.patterns.get(linetype.toUpperCase());
    ctx.byName.set(linetype, pattern);
  }
  if (!pattern) return undefined;
  const own = extraNumber(entity.extra, 48);
  const scale = ctx.ltscale * (own && own > 0 ? own : 1) * matrixScale(m);
  return pattern.map((length) => length * scale);
}

function textItem(e: TextEntity, m: Matrix): Extract<DrawnItem, { kind: 'text' }> | undefined {
  if (!(e.height > 0) || e.value.trim() === '') return undefined;
  const layout = textLayout(e);
  const widthFactor = Math.abs(extraNumber(e.extra, 41) ?? 1) || 1;
  const u: Point3 = [layout.dir[0] * e.height * widthFactor, layout.dir[1] * e.height * widthFactor, 0];
  const v: Point3 = [layout.up[0] * e.height, layout.up[1] * e.height, 0];
  // Aligned and fitted text runs from the position; otherwise the anchor is the justification point.
  const along = layout.aligned ? 0 : layout.along;
  const origin = layout.aligned ? layout.origin : layout.anchor;
  const y = layout.aligned ? 0 : -layout.above / e.height;
  return {
    kind: 'text',
    aci: 0,
    weight: 0,
    origin: applyPoint(m, origin),
    u: applyVector(m, u),
    v: applyVector(m, v),
    lines: [{ text: textCharacters(e.value), x: 0, y, anchor: along === 0.5 ? 0.5 : along === 1 ? 1 : 0 }],
  };
}

function mtextItem(e: MTextEntity, m: Matrix): Extract<DrawnItem, { kind: 'text' }> | undefined {
  if (!(e.height > 0)) return undefined;
  const lines = mtextLines(e);
  if (lines.every((l) => l.trim() === '')) return undefined;
  const dir = mtextDirection(e);
  const u: Point3 = [dir[0] * e.height, dir[1] * e.height, 0];
  const v: Point3 = [-dir[1] * e.height, dir[0] * e.height, 0];
  const { along, upFraction } = attachmentFractions(e.attachment);
  // In text heights from the attachment point: the box is `width` wide, its lines 5/3 heights apart.
  const boxHeight = 1 + (lines.length - 1) * MTEXT_LINE_SPACING;
  const top = (1 - upFraction) * boxHeight + mtextLift(e.attachment);
  const anchor = along === 0.5 ? 0.5 : along === 1 ? 1 : 0;
  return {
    kind: 'text',
    aci: 0,
    weight: 0,
    origin: applyPoint(m, e.position),
    u: applyVector(m, u),
    v: applyVector(m, v),
    lines: lines.map((text, i) => ({
      text,
      // Each line sits at the attachment point's side of the box: left, centred or right.
      x: 0,
      y: top - 1 - i * MTEXT_LINE_SPACING,
      anchor,
    })),
  };
}

/** The drawn parts of a shape that is not a block reference. */
function shapeItems(shape: Shape, aci: number, weight: number): DrawnItem[] {
  switch (shape.kind) {
    case 'curves': {
      if (shape.filled && shape.region?.kind === 'loop') {
        // Painted inside, its outline stroked too (so one thinner than a pixel still shows).
        const z = shape.curves[0]?.kind === 'segment' ? shape.curves[0].a[2] : 0;
        const points = shape.region.vertices.map((v): Point3 => [v[0], v[1], z]);
        return [{ kind: 'outline', points, aci, weight, fill: true }];
      }
      return [{ kind: 'curves', curves: shape.curves, aci, weight }];
    }
    case 'point':
      return [{ kind: 'dot', point: shape.point, aci, weight }];
    case 'quad':
      return [{ kind: 'outline', points: [...shape.corners], aci, weight }];
    case 'ray':
      return [{ kind: 'ray', start: shape.start, direction: shape.direction, both: shape.both, aci, weight }];
    case 'box':
    case 'group':
      return [];
  }
}

/** An image's corners: lower-left, lower-right, upper-right, upper-left. */
export function imageCorners(item: { origin: Point3; u: Point3; v: Point3 }): Point3[] {
  const { origin: o, u, v } = item;
  return [
    o,
    [o[0] + u[0], o[1] + u[1], o[2]],
    [o[0] + u[0] + v[0], o[1] + u[1] + v[1], o[2]],
    [o[0] + v[0], o[1] + v[1], o[2]],
  ];
}

function imageItem(model: DxfDocumentModel, e: ImageEntity, aci: number, weight: number): DrawnItem {
  const [w, h] = e.size;
  const def = model.objects.find(
    (o) => o.type === 'IMAGEDEF' && o.handle?.toUpperCase() === e.image_def.toUpperCase(),
  );
  const file = def?.tags.find((t) => t.code === 1)?.value;
  return {
    kind: 'image',
    aci,
    weight,
    origin: e.position,
    u: [e.u_vector[0] * w, e.u_vector[1] * w, 0],
    v: [e.v_vector[0] * h, e.v_vector[1] * h, 0],
    file: file && file.trim() !== '' ? file : undefined,
  };
}

/** The box a drawn part covers, in the coordinates it is drawn in. */
function plotItemBounds(item: PlotItem): Bounds | undefined {
  switch (item.kind) {
    case 'curves':
      return unionBounds(item.curves.map(curveBounds));
    case 'dot':
      return { min: [...item.point], max: [...item.point] };
    case 'outline':
      return boundsOfPoints(item.rings ? [...item.points, ...item.rings.flat()] : item.points);
    case 'image':
      return boundsOfPoints(imageCorners(item));
    case 'clip':
      return item.box;
    case 'ray':
      return undefined;
    case 'text': {
      const corners: Point3[] = [];
      textCorners(item, (x, y) => corners.push([x, y, item.origin[2]]));
      return boundsOfPoints(corners);
    }
  }
}

/**
 * The corners of a text item's lines, in drawing coordinates, each given to `visit` (nothing allocated:
 * a capture visits those of every text of a large drawing): the frame's corners over each line, with
 * the same width estimate as the editor's text boxes.
 */
export function textCorners(
  item: Pick<Extract<DrawnItem, { kind: 'text' }>, 'origin' | 'u' | 'v' | 'lines'>,
  visit: (x: number, y: number) => void,
): void {
  const { origin: o, u, v } = item;
  for (const line of item.lines) {
    const width = textWidth(line.text);
    const x0 = line.x - line.anchor * width;
    for (let c = 0; c < 4; c++) {
      const x = c & 1 ? x0 + width : x0;
      const y = c & 2 ? line.y + 1 : line.y;
      visit(o[0] + x * u[0] + y * v[0], o[1] + x * u[1] + y * v[1]);
    }
  }
}

/**
 * The parts of `entity` (a top-level entity, or a part of a block reached through `inherited`), appended
 * to `items`. Raw types are counted in `skipped` (top level only: a block's raw parts just do not show).
 */
function collect(
  ctx: SceneContext,
  entity: Entity,
  inherited: Inherited | undefined,
  items: DrawnItem[],
): void {
  const { model, hidden } = ctx;
  const layer = inherited && entity.layer === '0' ? inherited.layer : entity.layer;
  const m = inherited?.matrix ?? IDENTITY;
  // A copy only for a part that takes its reference's layer: one per entity of a large drawing adds up.
  const aci = entityAci(layer === entity.layer ? entity : { ...entity, layer }, model, inherited?.aci);
  const weight = weightOf(model, entity.lineweight, layer, inherited?.weight ?? DEFAULT_LINEWEIGHT_MM);
  const linetype = linetypeOf(model, entity.linetype, layer, inherited?.linetype);
  if (entity.type === 'Insert') {
    // A frozen reference hides all of it; one that is only off still shows its parts on other layers.
    if (layerFrozen(model, layer, hidden) || (inherited?.depth ?? 0) >= MAX_DEPTH) return;
    const flat = planar(entity);
    const block = named(model.blocks, entity.name);
    if (!block || flat.type !== 'Insert') return;
    const depth = (inherited?.depth ?? 0) + 1;
    const attribs = insertAttribs(entity);
    // A MINSERT draws its block (and its attributes) once per cell of its grid.
    for (const offset of gridOffsets(flat)) {
      const cell = offset[0] === 0 && offset[1] === 0 ? IDENTITY : translation(offset);
      const placed = compose(insertMatrix(flat, block.base), cell);
      const inner: Inherited = { layer, aci, weight, linetype, matrix: compose(placed, m), depth };
      for (const handle of block.entities) {
        const child = dictGet(model.entities, handle);
        if (child) collect(ctx, child, inner, items);
      }
      // Attributes stand where the reference put them (in its space's coordinates, not the block's); like
      // the block's parts, those on layer 0 take the reference's layer and BYBLOCK its colour.
      const around: Inherited = { layer, aci, weight, linetype, matrix: compose(cell, m), depth };
      for (const attrib of attribs) {
        if (!attrib.invisible) collect(ctx, { ...attrib.text, space: entity.space }, around, items);
      }
    }
    return;
  }
  if (entity.type === 'Raw') {
    if (isWipeoutType(entity.dxf_type)) {
      if (plotsOn(ctx, layer)) items.push(...wipeoutItems(model, entity, m, aci, weight));
      return;
    }
    if (isMlineType(entity.dxf_type)) {
      const drawn = mlineEntities(entity, mlineStyleOf(model.objects, entity));
      // The fill under its lines, in the style's fill colour.
      if (drawn.fill && plotsOn(ctx, layer)) {
        const fillAci = entityAci({ ...entity, layer, color: drawn.fillColor }, model, inherited?.aci);
        items.push({
          kind: 'outline',
          points: drawn.fill.map((p) => applyPoint(m, p)),
          aci: fillAci,
          weight,
          fill: true,
        });
      }
      for (const part of drawn.entities) collect(ctx, part, inherited, items);
      return;
    }
    const filled = plotsOn(ctx, layer) ? solidHatchFill(entity) : undefined;
    if (filled) {
      // A solid hatch is painted with its holes: its outermost loop, the rest as rings of the one fill.
      const placed = filled.map((ring) => ring.map((p) => applyPoint(m, p)));
      const [points, ...rings] = placed;
      const gradient = hatchGradient(entity.tags);
      const paint =
        gradient && gradientPaint(gradient, placed.flat(), (Math.atan2(m.b, m.a) * 180) / Math.PI);
      const item: DrawnItem = { kind: 'outline', points: points as Point3[], aci, weight, fill: true };
      items.push({ ...item, ...(rings.length > 0 ? { rings } : {}), ...(paint ? { paint } : {}) });
      return;
    }
    // A raw type the geometry knows is drawn as its stand-ins (raw-kinds.ts), each with its own layer.
    const lookup = {
      blockName: (record: string) => blockNameOf(model, record),
      dimSizes: (style: string) => dimSizesOf(model, style),
      dimStyleValue: (style: string, code: number, header?: string) =>
        dimStyleValueOf(model, style, code, header),
    };
    for (const standIn of rawDrawn(entity, inherited !== undefined, lookup) ?? []) {
      collect(ctx, standIn, inherited, items);
    }
    return;
  }
  if (!plotsOn(ctx, layer)) return;
  const flat = planar(entity);
  if (flat.type === 'Text' || flat.type === 'MText') {
    const text = flat.type === 'Text' ? textItem(flat, m) : mtextItem(flat, m);
    if (text) items.push({ ...text, aci, weight });
    return;
  }
  if (flat.type === 'Image') {
    items.push(transformItem(imageItem(model, flat, aci, weight), m));
    return;
  }
  const shape = shapeOf(flat, NO_BLOCKS);
  if (!shape) return;
  // A wide POLYLINE paints its widths as bands under its centre line.
  if (flat.type === 'Polyline') {
    for (const band of polylineBands(flat))
      items.push({ kind: 'outline', points: band.map((p) => applyPoint(m, p)), aci, weight, fill: true });
  }
  const dash = dashOf(ctx, linetype, entity, m);
  for (const item of shapeItems(inherited ? transformShape(shape, m) : shape, aci, weight)) {
    items.push(
      dash && (item.kind === 'curves' || item.kind === 'outline' || item.kind === 'ray')
        ? { ...item, dash }
        : item,
    );
  }
}

/**
 * A WIPEOUT: its area painted in the background over what was drawn before it, and its frame as an
 * outline when the drawing's WIPEOUTVARIABLES show frames.
 */
function wipeoutItems(
  model: DxfDocumentModel,
  e: RawEntity,
  m: Matrix,
  aci: number,
  weight: number,
): DrawnItem[] {
  const points = wipeoutBoundary(e)
    .slice(0, -1)
    .map((p) => applyPoint(m, p));
  if (points.length < 3) return [];
  const mask: DrawnItem = { kind: 'outline', points, aci, weight, mask: true };
  return wipeoutFrameShown(model.objects) ? [mask, { kind: 'outline', points, aci, weight }] : [mask];
}

/** The rings a solid HATCH paints (hatch-fill.ts), in its space's coordinates; undefined for others. */
function solidHatchFill(e: RawEntity): Point3[][] | undefined {
  if (!isHatchType(e.dxf_type)) return undefined;
  const g = hatchGeometry(e);
  if (!g.solid) return undefined;
  const rings = fillRings(g);
  if (rings.length === 0) return undefined;
  return rings.map((ring) => ring.map(([x, y]): Point3 => [x, y, g.elevation]));
}

/** A gradient carried into another frame with the area it paints. */
function transformPaint(paint: GradientPaint, m: Matrix): GradientPaint {
  const [fx, fy] = applyPoint(m, [paint.from[0], paint.from[1], 0]);
  const [tx, ty] = applyPoint(m, [paint.to[0], paint.to[1], 0]);
  return { ...paint, from: [fx, fy], to: [tx, ty] };
}

/** A drawn part carried into another frame (model space parts onto the sheet, through a viewport). */
function transformItem(item: DrawnItem, m: Matrix): DrawnItem {
  switch (item.kind) {
    case 'curves': {
      const moved = transformShape({ kind: 'curves', curves: item.curves }, m);
      return {
        ...item,
        curves: moved.kind === 'curves' ? moved.curves : [],
        ...(item.dash ? { dash: item.dash.map((l) => l * matrixScale(m)) } : {}),
      };
    }
    case 'dot':
      return { ...item, point: applyPoint(m, item.point) };
    case 'ray': {
      const moved = transformRay(
        { kind: 'ray', start: item.start, direction: item.direction, both: item.both },
        m,
      );
      return {
        ...item,
        start: moved.start,
        direction: moved.direction,
        ...(item.dash ? { dash: item.dash.map((l) => l * matrixScale(m)) } : {}),
      };
    }
    case 'outline':
      return {
        ...item,
        points: item.points.map((p) => applyPoint(m, p)),
        ...(item.rings ? { rings: item.rings.map((ring) => ring.map((p) => applyPoint(m, p))) } : {}),
        ...(item.paint ? { paint: transformPaint(item.paint, m) } : {}),
        ...(item.dash ? { dash: item.dash.map((l) => l * matrixScale(m)) } : {}),
      };
    case 'image':
    case 'text':
      return {
        ...item,
        origin: applyPoint(m, item.origin),
        u: applyVector(m, item.u),
        v: applyVector(m, item.v),
      };
  }
}

/**
 * A VIEWPORT of a paper space layout: its border (when its layer prints) and, for a plan view, the model
 * space it shows, without the layers frozen in it, cut at the border. Undefined for one that shows nothing.
 */
function viewportItems(
  model: DxfDocumentModel,
  e: RawEntity,
  hidden: ReadonlySet<string>,
): PlotItem[] | undefined {
  const viewport = readViewport(model, e);
  if (!viewport || layerFrozen(model, e.layer, hidden)) return undefined;
  const [cx, cy] = viewport.center;
  const [w, h] = [viewport.width / 2, viewport.height / 2];
  const box: Bounds = { min: [cx - w, cy - h, 0], max: [cx + w, cy + h, 0] };
  const items: PlotItem[] = [];
  if (viewport.plan) {
    const m = viewportMatrix(viewport);
    const shown = plotScene(model, MODEL_SPACE, new Set([...hidden, ...viewport.frozen]));
    // Only what the viewport's window of model space reaches; the clip cuts what crosses its edge.
    const k = viewport.height / viewport.viewHeight;
    const [vx, vy] = viewport.viewCenter;
    const seen: Bounds = { min: [vx - w / k, vy - h / k, 0], max: [vx + w / k, vy + h / k, 0] };
    const inside = shown.entities
      .filter((entity) => overlaps(entity.bounds, seen))
      .flatMap((entity) => entity.items.filter((i): i is DrawnItem => i.kind !== 'clip'))
      .map((item) => transformItem(item, m));
    if (inside.length > 0) items.push({ kind: 'clip', box, items: inside });
  }
  if (layerPlots(model, e.layer, hidden)) {
    const aci = entityAci(e, model);
    const weight = weightOf(model, e.lineweight, e.layer, DEFAULT_LINEWEIGHT_MM);
    const corners: Point3[] = [
      [box.min[0], box.min[1], 0],
      [box.max[0], box.min[1], 0],
      [box.max[0], box.max[1], 0],
      [box.min[0], box.max[1], 0],
    ];
    items.push({ kind: 'outline', points: corners, aci, weight });
  }
  return items;
}

/** What every entity of one plot is drawn against, and what it could not draw (by DXF type). */
export interface PlotContext {
  scene: SceneContext;
  /** The layout block drawn, upper case. */
  space: string;
  skipped: Record<string, number>;
  /** The last block name an entity gave and whether it is `space`: no upper-casing per entity. */
  seen?: { name: string; drawn: boolean };
}

/** Whether `entity` is of the layout block `plot` draws (its name in any case). */
export function inPlottedSpace(plot: PlotContext, entity: Entity): boolean {
  const seen = plot.seen;
  if (seen?.name === entity.space) return seen.drawn;
  const drawn = entity.space.toUpperCase() === plot.space;
  plot.seen = { name: entity.space, drawn };
  return drawn;
}

/**
 * Starts a plot of one layout block (`*Model_Space`, `*Paper_Space0`...), leaving out the layers in
 * `hidden` (upper case) besides those off, frozen or not plotted.
 */
export function plotContext(
  model: DxfDocumentModel,
  space: string,
  hidden: ReadonlySet<string> = new Set(),
): PlotContext {
  return {
    scene: { model, hidden, patterns: linetypePatterns(model), ltscale: globalLinetypeScale(model) },
    space: space.toUpperCase(),
    skipped: {},
  };
}

/**
 * The parts one entity of the layout block prints as; undefined for an entity of another block, one on
 * a hidden layer and one the plot cannot draw (counted in `skipped`). Its own: a capture walks the
 * drawing with it in slices, so the event loop is not held for a whole scene.
 */
export function plotEntityItems(plot: PlotContext, entity: Entity): PlotItem[] | undefined {
  const { scene, space } = plot;
  if (!inPlottedSpace(plot, entity)) return undefined;
  // A VIEWPORT is bounded by its frame (geometry/viewport.ts) but drawn here: its border and the model it shows.
  if (entity.type === 'Raw' && (!isKnownRaw(entity) || isViewportType(entity.dxf_type))) {
    const viewport =
      space === MODEL_SPACE.toUpperCase() ? undefined : viewportItems(scene.model, entity, scene.hidden);
    if (!viewport) {
      if (entity.dxf_type.toUpperCase() !== 'VIEWPORT' && layerPlots(scene.model, entity.layer, scene.hidden))
        dictSet(plot.skipped, entity.dxf_type, (dictGet(plot.skipped, entity.dxf_type) ?? 0) + 1);
      return undefined;
    }
    return viewport;
  }
  const drawn: DrawnItem[] = [];
  collect(scene, entity, undefined, drawn);
  return drawn.length > 0 ? drawn : undefined;
}

/**
 * The entities of one layout block (`*Model_Space`, `*Paper_Space0`...) as the plot draws them, in drawing
 * order, leaving out the layers in `hidden` (upper case) besides those off, frozen or not plotted.
 */
export function plotScene(
  model: DxfDocumentModel,
  space: string,
  hidden: ReadonlySet<string> = new Set(),
): PlotScene {
  const entities: Array<PlotEntity | Unbounded> = [];
  const plot = plotContext(model, space, hidden);
  for (const handle of model.order) {
    const drawn = sceneEntity(plot, handle);
    if (drawn) entities.push(drawn);
  }
  return { entities: boundRays(entities), skipped: plot.skipped };
}

/** Whether a part has no end (an XLINE or RAY not yet cut). */
export const isRay = (item: PlotItem): item is Extract<DrawnItem, { kind: 'ray' }> => item.kind === 'ray';

/**
 * Parts with XLINEs and RAYs cut at `box` (drawn as the segment within it); a ray that misses it is
 * left out.
 */
export function cutRays(items: readonly PlotItem[], box: Bounds): PlotItem[] {
  const out: PlotItem[] = [];
  for (const item of items) {
    if (!isRay(item)) {
      out.push(item);
      continue;
    }
    const segment = rayClipped(
      { kind: 'ray', start: item.start, direction: item.direction, both: item.both },
      box,
      0,
    );
    if (!segment) continue;
    const { aci, weight, dash } = item;
    out.push({ kind: 'curves', curves: [segment], aci, weight, ...(dash ? { dash } : {}) });
  }
  return out;
}

/** The box a scene cuts its XLINEs and RAYs at: its other parts' extents, else the rays' start points. */
export function rayBox(bounded: Bounds | undefined, starts: readonly Point3[]): Bounds | undefined {
  if (bounded) return bounded;
  const box = boundsOfPoints(starts);
  if (!box) return undefined;
  // Rays alone: a unit around where they start, so each shows.
  return {
    min: [box.min[0] - 1, box.min[1] - 1, box.min[2]],
    max: [box.max[0] + 1, box.max[1] + 1, box.max[2]],
  };
}

/** An entity of the scene that holds an XLINE or RAY, before the scene's extents are known. */
interface Unbounded {
  unbounded: true;
  handle: string;
  type: string;
  layer: string;
  items: PlotItem[];
}

/**
 * The scene's entities with their XLINEs and RAYs cut at `window` when one is plotted (as a capture of a
 * window cuts them), else at the extents of the rest, in drawing order.
 */
function boundRays(entities: ReadonlyArray<PlotEntity | Unbounded>, window?: Bounds): PlotEntity[] {
  if (!entities.some((e) => 'unbounded' in e)) return entities as PlotEntity[];
  const bounded = unionBounds(
    entities.map((e) => ('unbounded' in e ? unionBounds(e.items.map(plotItemBounds)) : e.bounds)),
  );
  const starts = entities.flatMap((e) => ('unbounded' in e ? e.items.filter(isRay).map((r) => r.start) : []));
  const box = window ?? rayBox(bounded, starts);
  const out: PlotEntity[] = [];
  for (const e of entities) {
    if (!('unbounded' in e)) {
      out.push(e);
      continue;
    }
    const items = box ? cutRays(e.items, box) : [];
    const bounds = unionBounds(items.map(plotItemBounds));
    if (bounds) out.push({ handle: e.handle, type: e.type, layer: e.layer, items, bounds });
  }
  return out;
}

/**
 * `plotScene` in slices (slices.ts): the loop answers others between them, and a cancel stops it. With a
 * `window` (a plotted window of model space) its XLINEs and RAYs are cut there.
 */
export async function plotSceneSliced(
  model: DxfDocumentModel,
  space: string,
  tick: Tick,
  hidden: ReadonlySet<string> = new Set(),
  window?: Bounds,
): Promise<PlotScene> {
  const entities: Array<PlotEntity | Unbounded> = [];
  const plot = plotContext(model, space, hidden);
  for (const handle of model.order) {
    const drawn = sceneEntity(plot, handle);
    if (drawn) entities.push(drawn);
    const turn = tick();
    if (turn) await turn;
  }
  return { entities: boundRays(entities, window), skipped: plot.skipped };
}

/** One entity of the drawing order as the scene holds it; undefined when it prints nothing. */
function sceneEntity(plot: PlotContext, handle: string): PlotEntity | Unbounded | undefined {
  const entity = dictGet(plot.scene.model.entities, handle);
  if (!entity) return undefined;
  const items = plotEntityItems(plot, entity);
  if (!items) return undefined;
  if (items.some(isRay))
    return {
      unbounded: true,
      handle,
      type: entity.type === 'Raw' ? entity.dxf_type : entity.type,
      layer: entity.layer,
      items,
    };
  const bounds = unionBounds(items.map(plotItemBounds));
  if (!bounds) return undefined;
  return {
    handle,
    type: entity.type === 'Raw' ? entity.dxf_type : entity.type,
    layer: entity.layer,
    items,
    bounds,
  };
}
