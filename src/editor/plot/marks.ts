/**
 * A plot scene placed on the page: SVG path data, dots and text frames in page millimetres (y down), each
 * part with the colour it prints in. The SVG and PDF writers both draw from this, so the two formats show
 * the same geometry: arcs stay arcs (SVG `A` commands, which pdfkit turns into Bézier curves).
 */
import { aciHex } from '../colors.js';
import { arcPoint, type Curve } from '../geometry/curves.js';
import type { GradientPaint } from '../geometry/hatch-fill.js';
import type { Bounds } from '../geometry/index.js';
import { TAU } from '../geometry/math.js';
import type { Point3 } from '../model.js';
import type { Tick } from '../slices.js';
import { overlaps, type Placement, pageBox } from './page.js';
import { imageCorners, type PlotEntity, type PlotItem, type PlotScene, type TextLine } from './scene.js';

/** Dots (POINT entities) print as filled discs of this diameter, in millimetres. */
const DOT_MM = 0.5;
/** Lineweight 0 means "the thinnest the device draws": a hairline, still visible. */
const HAIRLINE_MM = 0.05;
const strokeWidth = (weight: number) => Math.max(weight, HAIRLINE_MM);
/** ACI 7 prints black on white paper (it is "the foreground colour"), as every other index prints its own. */
const FOREGROUND_ACI = 7;

export type PagePart =
  /** `dash`: on and off lengths in page millimetres (an `on` of 0 is a dot), absent for a solid line. */
  /**
   * `mask`: painted in the paper's white, not stroked (a WIPEOUT). `gradient`: filled with it, in page
   * millimetres, and not stroked (a gradient HATCH).
   */
  | {
      kind: 'path';
      color: string;
      d: string;
      width: number;
      dash?: number[];
      fill?: boolean;
      mask?: boolean;
      gradient?: GradientPaint;
    }
  | { kind: 'dot'; color: string; x: number; y: number; r: number }
  /** Text drawn in a frame: local (x, y-down) units, one unit a capital's height; `matrix` maps them to the page. */
  | {
      kind: 'text';
      color: string;
      matrix: [number, number, number, number, number, number];
      lines: TextLine[];
    }
  /**
   * A raster image: `matrix` maps the unit square (y down, the image's top row first) onto the page;
   * `frame` is its outline, drawn instead when the file cannot be read.
   */
  | {
      kind: 'image';
      color: string;
      width: number;
      matrix: [number, number, number, number, number, number];
      frame: string;
      file: string | undefined;
    }
  /** Parts cut at a rectangle of the page (what a viewport shows): `box` in page millimetres. */
  | { kind: 'clip'; box: Bounds; parts: PagePart[] };

export interface PageMark {
  handle: string;
  type: string;
  layer: string;
  parts: PagePart[];
}

/** A number for path data and attributes: 4 decimals (0.1 µm on paper), no `-0`. */
export function num(x: number): string {
  const r = Math.round(x * 1e4) / 1e4;
  return Object.is(r, -0) ? '0' : String(r);
}

function colorOf(aci: number): string {
  return aci === FOREGROUND_ACI ? '#000000' : aciHex(aci);
}

/** SVG path data of curves: segments as `L`, arcs as `A` (a full circle as two halves), joined where they meet. */
export function pathData(curves: readonly Curve[], placement: Placement): string {
  const out: string[] = [];
  let last: [number, number] | undefined;
  const at = (p: readonly number[]) => placement.toPage(p[0] ?? 0, p[1] ?? 0);
  const moveTo = (p: [number, number]) => {
    if (!last || Math.abs(last[0] - p[0]) > 1e-6 || Math.abs(last[1] - p[1]) > 1e-6)
      out.push(`M${num(p[0])} ${num(p[1])}`);
  };
  for (const c of curves) {
    if (c.kind === 'segment') {
      const a = at(c.a);
      const b = at(c.b);
      moveTo(a);
      out.push(`L${num(b[0])} ${num(b[1])}`);
      last = b;
      continue;
    }
    const r = num(c.radius * placement.factor);
    // The page's y axis points down: a counter-clockwise arc of the drawing turns clockwise on the page (sweep flag 0).
    const flag = c.ccw ? 0 : 1;
    const from = c.ccw ? c.start : c.start + c.sweep;
    const step = c.ccw ? 1 : -1;
    const pieces = c.sweep >= TAU - 1e-9 ? 2 : 1;
    const piece = c.sweep / pieces;
    moveTo(at(arcPoint(c, from)));
    for (let i = 1; i <= pieces; i++) {
      const end = at(arcPoint(c, from + step * piece * i));
      out.push(`A${r} ${r} 0 ${piece > Math.PI ? 1 : 0} ${flag} ${num(end[0])} ${num(end[1])}`);
      last = end;
    }
  }
  return out.join('');
}

/**
 * A dash pattern on the page: lengths in millimetres, gaps as positive numbers. A pattern shorter than
 * this on paper prints as a solid line anyway, and is drawn as one.
 */
const SHORTEST_PATTERN_MM = 0.1;
function pageDash(dash: readonly number[] | undefined, placement: Placement): { dash?: number[] } {
  if (!dash) return {};
  const lengths = dash.map((l) => Math.abs(l) * placement.factor);
  return lengths.reduce((a, b) => a + b, 0) < SHORTEST_PATTERN_MM ? {} : { dash: lengths };
}

/** A gradient's axis (or centre and rim point) on the page. */
function pagePaint(paint: GradientPaint, placement: Placement): GradientPaint {
  return {
    ...paint,
    from: placement.toPage(paint.from[0], paint.from[1]),
    to: placement.toPage(paint.to[0], paint.to[1]),
  };
}

/** A closed outline as path data. */
function outlineData(points: readonly Point3[], placement: Placement): string {
  const page = points.map((p) => placement.toPage(p[0], p[1]));
  return `${page.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${num(x)} ${num(y)}`).join('')}Z`;
}

/**
 * The page transform of something drawn in its own axes `u` (right) and `v` (up) from a drawing point:
 * the page's y axis runs down, so the local up (v) flips, and the y components of both flip with it.
 */
function pageMatrix(
  x: number,
  y: number,
  u: readonly number[],
  v: readonly number[],
  placement: Placement,
): [number, number, number, number, number, number] {
  const f = placement.factor;
  const [px, py] = placement.toPage(x, y);
  return [(u[0] ?? 0) * f, -(u[1] ?? 0) * f, -(v[0] ?? 0) * f, (v[1] ?? 0) * f, px, py];
}

function pagePart(item: PlotItem, placement: Placement): PagePart {
  if (item.kind === 'clip')
    return {
      kind: 'clip',
      box: pageBox(placement, item.box),
      parts: item.items.map((inner) => pagePart(inner, placement)),
    };
  const color = colorOf(item.aci);
  switch (item.kind) {
    case 'curves':
    case 'outline':
      return {
        kind: 'path',
        color,
        width: strokeWidth(item.weight),
        d:
          item.kind === 'curves'
            ? pathData(item.curves, placement)
            : [item.points, ...(item.rings ?? [])].map((ring) => outlineData(ring, placement)).join(''),
        ...pageDash(item.dash, placement),
        ...(item.kind === 'outline' && item.fill ? { fill: true } : {}),
        ...(item.kind === 'outline' && item.mask ? { mask: true } : {}),
        ...(item.kind === 'outline' && item.paint ? { gradient: pagePaint(item.paint, placement) } : {}),
      };
    case 'image': {
      // The image's top-left corner (origin + v) is the page origin of its pixels, which run down v.
      const matrix = pageMatrix(
        item.origin[0] + item.v[0],
        item.origin[1] + item.v[1],
        item.u,
        item.v,
        placement,
      );
      const frame = outlineData(imageCorners(item), placement);
      return { kind: 'image', color, width: strokeWidth(item.weight), matrix, frame, file: item.file };
    }
    case 'ray':
      // Scenes cut their XLINEs and RAYs before they are placed (cutRays): one left is drawn as nothing.
      return { kind: 'path', color, width: strokeWidth(item.weight), d: '' };
    case 'dot': {
      const [x, y] = placement.toPage(item.point[0], item.point[1]);
      return { kind: 'dot', color, x, y, r: Math.max(DOT_MM, item.weight) / 2 };
    }
    case 'text': {
      const matrix = pageMatrix(item.origin[0], item.origin[1], item.u, item.v, placement);
      return { kind: 'text', color, matrix, lines: item.lines };
    }
  }
}

/**
 * The scene's entities that fall on the sheet (or inside `window`, drawing coordinates), placed. An entity
 * partly outside still counts: the writers clip it. In slices (slices.ts): the loop answers others between
 * them, and a cancel stops it.
 */
export async function pageMarksSliced(
  scene: PlotScene,
  placement: Placement,
  tick: Tick,
  window?: Bounds,
): Promise<PageMark[]> {
  const shown = onPage(placement, window);
  const marks: PageMark[] = [];
  for (const entity of scene.entities) {
    if (shown(entity)) marks.push(pageMark(entity, placement));
    const turn = tick();
    if (turn) await turn;
  }
  return marks;
}

/** Whether an entity of the scene falls on the sheet (and inside `window`). */
function onPage(placement: Placement, window: Bounds | undefined): (e: PlotEntity) => boolean {
  const sheet: Bounds = { min: [0, 0, 0], max: [placement.page.width, placement.page.height, 0] };
  return (e) => (window ? overlaps(e.bounds, window) : true) && overlaps(pageBox(placement, e.bounds), sheet);
}

const pageMark = (e: PlotEntity, placement: Placement): PageMark => ({
  handle: e.handle,
  type: e.type,
  layer: e.layer,
  parts: e.items.map((item) => pagePart(item, placement)),
});
