/**
 * The plot's scene of one layout block, kept flat: each entity's printed parts (plot/scene.ts, so a
 * capture shows what a plot prints) as a piece — one array of numbers — rather than an object per part.
 * A scene of 100,000 entities is then 100,000 small arrays of doubles the garbage collector does not
 * look into, cheap to keep per document revision, to draw again at another size or window, and to
 * build again after a change from the pieces of the entities the change did not touch.
 */

import { arcExtent } from '../geometry/curves.js';
import { type GradientPaint, ringArea } from '../geometry/hatch-fill.js';
import type { Bounds } from '../geometry/index.js';
import { TAU } from '../geometry/math.js';
import type { DxfDocumentModel, Entity, Point3 } from '../model.js';
import {
  cutRays,
  type DrawnItem,
  imageCorners,
  inPlottedSpace,
  isRay,
  type PlotContext,
  type PlotItem,
  plotEntityItems,
  rayBox,
  type TextLine,
  textCorners,
} from '../plot/scene.js';

/**
 * Kinds of primitive in a piece's `prims`, each followed by its numbers:
 * SEG style x1 y1 x2 y2 · ARC style cx cy r start sweep ccw · DOT style x y ·
 * POLY style n x1 y1 … xn yn (closed) · TEXT style (the piece's `texts`, in order) ·
 * CLIP (the piece's next `clips` box; until UNCLIP) · UNCLIP.
 */
export const SEG = 0;
export const ARC = 1;
export const DOT = 2;
export const POLY = 3;
export const TEXT = 4;
export const CLIP = 5;
export const UNCLIP = 6;
/** FILL style n x1 y1 … xn yn: a closed outline painted inside (a SOLID), numbers as POLY's. */
export const FILL = 7;
/** HOLE style n x1 y1 … xn yn: a ring cut out of the fill before it (a hatch's hole), numbers as POLY's. */
export const HOLE = 8;
/** MASK style n x1 y1 … xn yn: an area painted in the background over what was drawn before (a WIPEOUT). */
export const MASK = 9;

/**
 * How a part prints: its ACI colour, lineweight in mm and dash pattern in drawing units (none: solid);
 * `paint`: a gradient (drawing coordinates) it is painted with instead of its colour.
 */
interface FlatStyle {
  aci: number;
  weight: number;
  dash: number[] | undefined;
  paint?: GradientPaint;
}

export interface FlatText {
  origin: Point3;
  u: Point3;
  v: Point3;
  lines: TextLine[];
}

/** One entity's printed parts. */
export interface Piece {
  prims: readonly number[];
  /** Its box: min x, min y, max x, max y. */
  box: readonly [number, number, number, number];
  /** The style it is drawn in when it is smaller than a pixel (its first part's). */
  dotStyle: number;
  texts: readonly FlatText[];
  /** The borders its viewports are cut at. */
  clips: readonly Bounds[];
}

export interface FlatScene {
  /** Entity i: its handle and its piece. */
  handles: string[];
  pieces: Piece[];
  /** Styles by id (shared with the pieces kept for the document: it may hold more than this scene uses). */
  styles: FlatStyle[];
  /** The union of the boxes; undefined when nothing prints. */
  extents: Bounds | undefined;
  /** Entities the plot cannot draw, by DXF type. */
  skipped: Record<string, number>;
  /** Entities taken from the pieces kept for the document rather than drawn again. */
  reused: number;
}

/**
 * The pieces of the last whole scene of a document, by entity object (the read model replaces an
 * entity whenever it changes and never edits one in place), with the style ids they use. Right while
 * the layers, linetypes and $LTSCALE are the same objects (`signature`); a capture after a small change
 * then takes the entities it did not touch from here.
 */
export interface PieceCache {
  signature: readonly unknown[];
  last: KeptScene | undefined;
  styles: FlatStyle[];
  styleIds: Map<string | number, number>;
}

/**
 * A whole scene's pieces with the entity each was drawn from (none for those never taken again: block
 * references and viewports). The next scene walks it in step with the drawing's order, so an unchanged
 * entity is found where it was; only out of step (an entity added, deleted or moved, or a window) is it
 * looked up, in a map made then. No map per scene: filling one with 100,000 entities was a tenth of a
 * cold scene's time, for a scene whose styles changed it is never used.
 */
interface KeptScene {
  /** Piece i's entity (an array, not the model's dictionary of entities). */
  sources: Array<Entity | undefined>;
  pieces: Piece[];
  /** Entity to position, made when first needed. */
  index?: Map<Entity, number>;
}

/** What every entity's printed parts depend on besides itself (block references are never kept). */
const pieceSignature = (model: DxfDocumentModel): unknown[] => [
  ...Object.values(model.layers),
  ...(model.tables.LTYPE ?? []),
  model.header.$LTSCALE,
];

const emptyCache = (signature: readonly unknown[]): PieceCache => ({
  signature,
  last: undefined,
  styles: [],
  styleIds: new Map(),
});

/** The cache for `model`: `kept` when its signature still holds, else an empty one. */
export function pieceCache(model: DxfDocumentModel, kept: PieceCache | undefined): PieceCache {
  const signature = pieceSignature(model);
  if (
    kept &&
    kept.signature.length === signature.length &&
    kept.signature.every((v, i) => v === signature[i])
  )
    return kept;
  return emptyCache(signature);
}

const NONE: readonly never[] = [];

/**
 * Builds a FlatScene one entity at a time (`add`), so a caller can stop between entities. A builder of
 * the `whole` layout leaves its scene in the cache (on `finish`) for the next one.
 */
export class FlatSceneBuilder {
  private readonly plot: PlotContext;
  private readonly cache: PieceCache;
  private readonly scene: FlatScene;
  /** The last whole scene's pieces, and where in it the next entity is looked for. */
  private readonly last: KeptScene | undefined;
  private step = 0;
  /** A whole scene: the entity of each piece (`KeptScene`), kept for the next. */
  private readonly sources: Array<Entity | undefined> | undefined;
  // The piece being built: its primitives written from 0 to `n` in a buffer reused for every entity and
  // copied at their exact length (growing a small array per entity is most of what a scene allocates).
  private prims: number[] = [];
  /** Entities holding XLINEs or RAYs, drawn last, cut at the extents of the rest. */
  private rays: Array<{ handle: string; items: readonly PlotItem[] }> = [];
  private n = 0;
  private texts: FlatText[] = [];
  private clips: Bounds[] = [];
  private minX = 0;
  private minY = 0;
  private maxX = 0;
  private maxY = 0;

  /** Where XLINEs and RAYs are cut: a window given; else the extents of the rest. */
  private readonly rayWindow: Bounds | undefined;

  constructor(plot: PlotContext, cache?: PieceCache, options: { whole?: boolean; rayBox?: Bounds } = {}) {
    this.plot = plot;
    this.rayWindow = options.rayBox;
    this.cache = cache ?? emptyCache([]);
    this.last = this.cache.last;
    this.sources = options.whole ? [] : undefined;
    this.scene = {
      handles: [],
      pieces: [],
      styles: this.cache.styles,
      extents: undefined,
      skipped: plot.skipped,
      reused: 0,
    };
  }

  /** Adds one entity of the drawing, if it prints in this layout block. */
  add(handle: string, entity: Entity | undefined): void {
    if (!entity) return;
    const kept = this.kept(entity);
    if (kept && inPlottedSpace(this.plot, entity)) {
      this.scene.reused += 1;
      this.push(handle, kept);
      this.sources?.push(entity);
      return;
    }
    const items = plotEntityItems(this.plot, entity);
    if (!items) return;
    if (items.some(isRay)) {
      // Cut at the extents of the rest, known once every entity is in (finish).
      this.rays.push({ handle, items });
      return;
    }
    this.addPiece(handle, entity, items);
  }

  /** Builds and adds the piece of one entity's parts (none of them an uncut XLINE or RAY). */
  private addPiece(handle: string, entity: Entity | undefined, items: readonly PlotItem[]): void {
    this.n = 0;
    this.texts = [];
    this.clips = [];
    this.minX = Infinity;
    this.minY = Infinity;
    this.maxX = -Infinity;
    this.maxY = -Infinity;
    let dotStyle = -1;
    for (const item of items) {
      const style = this.addItem(item);
      if (dotStyle < 0) dotStyle = style;
    }
    if (this.n === 0 || !(this.minX <= this.maxX && this.minY <= this.maxY)) return;
    const piece: Piece = {
      prims: this.prims.slice(0, this.n),
      box: [this.minX, this.minY, this.maxX, this.maxY],
      dotStyle: Math.max(dotStyle, 0),
      texts: this.texts.length > 0 ? this.texts : NONE,
      clips: this.clips.length > 0 ? this.clips : NONE,
    };
    this.push(handle, piece);
    // Block references draw their blocks' entities, which change without the reference: never kept.
    // Viewports (Raw) show model space: neither. Nor XLINEs and RAYs, cut at extents that change.
    this.sources?.push(entity && entity.type !== 'Insert' && entity.type !== 'Raw' ? entity : undefined);
  }

  /** The piece `entity` had in the last whole scene, if it was in it. */
  private kept(entity: Entity): Piece | undefined {
    const last = this.last;
    if (!last) return undefined;
    if (last.sources[this.step] === entity) return last.pieces[this.step++];
    if (!last.index) {
      last.index = new Map();
      last.sources.forEach((e, i) => {
        if (e) last.index?.set(e, i);
      });
    }
    const at = last.index.get(entity);
    if (at === undefined) return undefined;
    this.step = at + 1;
    return last.pieces[at];
  }

  /** Appends one number to the piece being built. */
  private put(v: number): void {
    this.prims[this.n++] = v;
  }

  /** Appends a primitive's kind, style and two numbers. */
  private put4(kind: number, style: number, a: number, b: number): void {
    const prims = this.prims;
    const n = this.n;
    prims[n] = kind;
    prims[n + 1] = style;
    prims[n + 2] = a;
    prims[n + 3] = b;
    this.n = n + 4;
  }

  private push(handle: string, piece: Piece): void {
    const scene = this.scene;
    const [x1, y1, x2, y2] = piece.box;
    scene.handles.push(handle);
    scene.pieces.push(piece);
    const e = scene.extents;
    if (!e) scene.extents = { min: [x1, y1, 0], max: [x2, y2, 0] };
    else {
      e.min[0] = Math.min(e.min[0], x1);
      e.min[1] = Math.min(e.min[1], y1);
      e.max[0] = Math.max(e.max[0], x2);
      e.max[1] = Math.max(e.max[1], y2);
    }
  }

  finish(): FlatScene {
    if (this.rays.length > 0) {
      const starts = this.rays.flatMap((r) => r.items.filter(isRay).map((i) => i.start));
      const box = this.rayWindow ?? rayBox(this.scene.extents, starts);
      if (box) for (const r of this.rays) this.addPiece(r.handle, undefined, cutRays(r.items, box));
      this.rays = [];
    }
    if (this.sources) this.cache.last = { sources: this.sources, pieces: this.scene.pieces };
    return this.scene;
  }

  private grow(b: Bounds | undefined): void {
    if (!b) return;
    if (b.min[0] < this.minX) this.minX = b.min[0];
    if (b.min[1] < this.minY) this.minY = b.min[1];
    if (b.max[0] > this.maxX) this.maxX = b.max[0];
    if (b.max[1] > this.maxY) this.maxY = b.max[1];
  }

  private readonly visit = (x: number, y: number) => this.point(x, y);

  /** Appends a closed ring primitive (POLY, FILL or HOLE) and grows the box by its points. */
  private ring(kind: number, style: number, points: readonly Point3[]): void {
    this.put(kind);
    this.put(style);
    this.put(points.length);
    for (const p of points) {
      this.put(p[0]);
      this.put(p[1]);
      this.point(p[0], p[1]);
    }
  }

  private point(x: number, y: number): void {
    if (x < this.minX) this.minX = x;
    if (y < this.minY) this.minY = y;
    if (x > this.maxX) this.maxX = x;
    if (y > this.maxY) this.maxY = y;
  }

  private style(aci: number, weight: number, dash: number[] | undefined, paint?: GradientPaint): number {
    // A number for the common solid style (no string to build per part), text for a dashed one.
    const key = paint
      ? `${aci}|${weight}|${JSON.stringify(paint)}`
      : dash
        ? `${aci}|${weight}|${dash.join(',')}`
        : aci * 1e6 + weight * 1e3;
    const { styles, styleIds } = this.cache;
    let id = styleIds.get(key);
    if (id === undefined) {
      id = styles.length;
      styles.push(paint ? { aci, weight, dash, paint } : { aci, weight, dash });
      styleIds.set(key, id);
    }
    return id;
  }

  /** Appends one part's primitives; answers its style (-1 for a clip, which has none of its own). */
  private addItem(item: PlotItem): number {
    if (item.kind === 'clip') {
      this.put(CLIP);
      this.clips.push(item.box);
      // What a viewport shows is cut at its border: the border, not the model, is the entity's box.
      const box = [this.minX, this.minY, this.maxX, this.maxY] as const;
      for (const inner of item.items) this.addItem(inner);
      [this.minX, this.minY, this.maxX, this.maxY] = box;
      this.put(UNCLIP);
      this.grow(item.box);
      return -1;
    }
    return this.addDrawn(item);
  }

  private addDrawn(item: DrawnItem): number {
    switch (item.kind) {
      case 'curves': {
        const style = this.style(item.aci, item.weight, item.dash);
        for (const c of item.curves) {
          if (c.kind === 'segment') {
            this.put4(SEG, style, c.a[0], c.a[1]);
            this.put(c.b[0]);
            this.put(c.b[1]);
            this.point(c.a[0], c.a[1]);
            this.point(c.b[0], c.b[1]);
          } else {
            this.put4(ARC, style, c.center[0], c.center[1]);
            this.put4(c.radius, c.start, c.sweep, c.ccw ? 1 : 0);
            if (c.sweep >= TAU) {
              this.point(c.center[0] - c.radius, c.center[1] - c.radius);
              this.point(c.center[0] + c.radius, c.center[1] + c.radius);
            } else arcExtent(c, this.visit);
          }
        }
        return style;
      }
      case 'outline':
      case 'image': {
        // An image shows as its frame: a capture is for seeing where things are, not the picture.
        const points = item.kind === 'outline' ? item.points : imageCorners(item);
        const style =
          item.kind === 'outline'
            ? this.style(item.aci, item.weight, item.dash, item.fill ? item.paint : undefined)
            : this.style(item.aci, item.weight, undefined);
        this.ring(
          item.kind === 'outline' && item.mask ? MASK : item.kind === 'outline' && item.fill ? FILL : POLY,
          style,
          points,
        );
        if (item.kind === 'outline' && item.fill && item.rings) {
          // A ring turned against the outline is a hole; one turned with it an island, filled again.
          const sign = Math.sign(ringArea(points));
          for (const ring of item.rings)
            this.ring(Math.sign(ringArea(ring)) === sign ? FILL : HOLE, style, ring);
        }
        return style;
      }
      case 'ray':
        // Cut before they get here (finish): one left has nothing to draw.
        return this.style(item.aci, item.weight, undefined);
      case 'dot': {
        const style = this.style(item.aci, item.weight, undefined);
        this.put4(DOT, style, item.point[0], item.point[1]);
        this.point(item.point[0], item.point[1]);
        return style;
      }
      case 'text': {
        const style = this.style(item.aci, item.weight, undefined);
        this.put(TEXT);
        this.put(style);
        this.texts.push({ origin: item.origin, u: item.u, v: item.v, lines: item.lines });
        textCorners(item, this.visit);
        return style;
      }
    }
  }
}
