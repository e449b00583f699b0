/**
 * A capture as SVG for the rasteriser: the flat scene in a view, drawn for speed rather than for reading.
 * The plot's SVG has an element per entity; a rasteriser parsing 100,000 of them spends seconds before it
 * draws a pixel. Here every stroke of one colour, width and dash (per viewport clip) is one `<path>`,
 * coordinates are whole tenths of a pixel and relative where they can be, entities smaller than two pixels
 * are one pixel of their colour (many on one pixel: one; a row of them: one rectangle), strokes have butt
 * ends (a round end per tiny stroke costs the rasteriser more than the stroke), small arcs are chords
 * (it strokes straight segments faster than curves), and text too small to read is a stroke where its
 * line runs. The document is written as bytes (bytes.ts), not as a string per command. Pure.
 */
import { aciHex } from '../colors.js';
import type { Bounds } from '../geometry/index.js';
import { TAU } from '../geometry/math.js';
import { TEXT_CAP_HEIGHT, textWidth } from '../geometry/text-box.js';
import { svgGradient } from '../plot/svg-gradient.js';
import { FONT_FAMILY } from '../plot/text-font.js';
import type { Tick } from '../slices.js';
import { Bytes } from './bytes.js';

import {
  ARC,
  CLIP,
  DOT,
  FILL,
  type FlatScene,
  type FlatText,
  HOLE,
  MASK,
  type Piece,
  POLY,
  SEG,
  TEXT,
  UNCLIP,
} from './flat-scene.js';
import type { CaptureView } from './view.js';

/**
 * DejaVu Sans first, the font whose advances text boxes are measured by (geometry/text-box.ts), so what a
 * capture draws is inside the bounds it frames; then the plot's fonts and other sans-serif faces a Linux
 * machine may have (the rasteriser's own fallback may be a serif one).
 */
const CAPTURE_FONTS = `DejaVu Sans, ${FONT_FAMILY.replace(/, sans-serif$/, '')}, Noto Sans, FreeSans, sans-serif`;

/** SVG units per pixel: coordinates are written as whole numbers of tenths of a pixel. */
const UNIT = 10;
/** Screen pixels per millimetre of lineweight (96 dpi): 0.25 mm is one pixel, 0.5 mm two. */
const PX_PER_MM = 96 / 25.4;
/** An entity smaller than this many pixels both ways is drawn as one pixel of its colour. */
const DOT_PX = 2;
/** Text whose capitals are shorter than this many pixels is drawn as a stroke along its line. */
const TEXT_MIN_PX = 5;
/** A dash pattern shorter than this many pixels shows as a solid line, and is drawn as one. */
const MIN_PATTERN_PX = 4;
/**
 * Arcs drawn as at most this many chords (within a tenth of a pixel: up to about 10 pixels of radius for
 * a whole circle); larger ones as SVG arcs, whose few numbers cost less to write and parse than the chords.
 */
const MAX_CHORDS = 24;
/** POINT entities: a square this many pixels wide at least. */
const POINT_PX = 3;
/** The selection, as the viewer shows it: its accent colour, 3 px wide, dashed. */
const HIGHLIGHT = '#4aa3ff';
const HIGHLIGHT_WIDTH_PX = 3;
const HIGHLIGHT_DASH_PX = [6, 3];
/** A selected entity smaller than a pixel is marked by a square this wide around it. */
const HIGHLIGHT_MARK_PX = 9;

export interface CaptureColors {
  background: string;
  /** ACI 7: white on a dark background, black on a light one. */
  foreground: string;
}

interface CaptureDrawing {
  /** The SVG document as UTF-8, what the rasteriser reads (and takes: see rasterize). */
  bytes: Uint8Array;
  /** Entities in the view, drawn; those of them drawn as one pixel; text elements; highlighted entities. */
  entities: number;
  dots: number;
  texts: number;
  highlighted: number;
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

/** A number for an attribute: 3 decimals at most, no `-0`. */
const num = (x: number) => {
  const r = Math.round(x * 1000) / 1000;
  return Object.is(r, -0) ? '0' : String(r);
};

const M = 77; // 'M'
const L = 108; // 'l'
const LINE_TO = 76; // 'L', absolute: a fill's points are written where they are
const A = 97; // 'a'
const Z = 122; // 'z'
const SPACE = 32;
const H = 104; // 'h'
const PIXEL_DOWN = `v${UNIT}h`;

/** Two numbers of a path: a minus sign is their separator when the second is negative. */
function pair(d: Bytes, x: number, y: number): void {
  d.int(x);
  if (y >= 0) d.char(SPACE);
  d.int(y);
}

/** `<path {attributes} d="{d}"/>` into `out`. */
function writePath(out: Bytes, attributes: string, d: Bytes): void {
  out.text(`<path ${attributes} d="`);
  out.append(d);
  out.text('"/>');
}

/** The path data of one stroke style (in one clip), and where its pen stands (absolute units). */
class Stroke {
  readonly d = new Bytes();
  x = Number.NaN;
  y = Number.NaN;
  constructor(
    readonly style: number,
    readonly clip: number,
  ) {}

  moveTo(x: number, y: number): void {
    if (x !== this.x || y !== this.y) {
      this.d.char(M);
      pair(this.d, x, y);
    }
    this.x = x;
    this.y = y;
  }

  /**
   * Starts a figure that `close` ends: always with its own `M`, since `z` goes back to the last `M`
   * (one left out because the pen stood there would close the figure at an earlier one's start).
   */
  begin(x: number, y: number): void {
    this.d.char(M);
    pair(this.d, x, y);
    this.x = x;
    this.y = y;
  }

  /** Relative: small numbers are shorter to write and to parse. */
  lineTo(x: number, y: number): void {
    this.d.char(L);
    pair(this.d, x - this.x, y - this.y);
    this.x = x;
    this.y = y;
  }

  arcTo(radius: number, flag: number, x: number, y: number): void {
    const d = this.d;
    d.char(A);
    d.int(radius);
    d.char(SPACE);
    d.int(radius);
    d.text(flag ? ' 0 0 1 ' : ' 0 0 0 ');
    pair(d, x - this.x, y - this.y);
    this.x = x;
    this.y = y;
  }

  close(x: number, y: number): void {
    this.d.char(Z);
    this.x = x;
    this.y = y;
  }
}

/** Everything drawn so far, by kind, in the order each stroke style was first used. */
class Canvas {
  readonly strokes = new Map<number, Stroke>();
  /** Filled squares of POINT entities, by colour. */
  readonly fills = new Map<string, Bytes>();
  /**
   * Entities smaller than a pixel or two, as the pixel they fall on: per pixel (row by row) the colour
   * last put there, as an index into `colors` plus one. Many tiny entities on one pixel are one pixel.
   */
  readonly pixels: Uint16Array;
  /** Where `pixels` has a colour, in the order first put: a few thousand of four million to visit. */
  private readonly lit: number[] = [];
  readonly colors: string[] = [];
  readonly texts: string[] = [];
  private readonly colorIds = new Map<string, number>();
  constructor(
    readonly styleCount: number,
    readonly width: number,
    readonly height: number,
  ) {
    this.pixels = new Uint16Array(width * height);
  }

  stroke(style: number, clip: number): Stroke {
    const key = (clip + 1) * this.styleCount + style;
    let stroke = this.strokes.get(key);
    if (!stroke) {
      stroke = new Stroke(style, clip);
      this.strokes.set(key, stroke);
    }
    return stroke;
  }

  fill(color: string): Bytes {
    let d = this.fills.get(color);
    if (!d) {
      d = new Bytes();
      this.fills.set(color, d);
    }
    return d;
  }

  pixel(color: string, column: number, row: number): void {
    if (column < 0 || row < 0 || column >= this.width || row >= this.height) return;
    let id = this.colorIds.get(color);
    if (id === undefined) {
      this.colors.push(color);
      id = this.colors.length;
      this.colorIds.set(color, id);
    }
    const at = row * this.width + column;
    if (this.pixels[at] === 0) this.lit.push(at);
    this.pixels[at] = id;
  }

  /** Forgets what was drawn (it has been written out, under a mask), keeping the pixel buffer. */
  reset(): void {
    this.strokes.clear();
    this.fills.clear();
    this.texts.length = 0;
    for (const at of this.lit) this.pixels[at] = 0;
    this.lit.length = 0;
  }

  /** The pixels as one filled path per colour: each run of a row in one colour, one rectangle. */
  pixelPaths(out: Bytes): void {
    const runs = this.colors.map(() => new Bytes());
    const { pixels, width } = this;
    // Row by row, left to right: the lit pixels in order, each run of one colour from its first.
    const lit = Int32Array.from(this.lit).sort();
    let done = 0;
    for (const at of lit) {
      if (at < done) continue;
      const row = Math.floor(at / width);
      const column = at - row * width;
      const id = pixels[at] as number;
      let end = column + 1;
      while (end < width && pixels[row * width + end] === id) end += 1;
      const d = runs[id - 1] as Bytes;
      d.char(M);
      pair(d, column * UNIT, row * UNIT);
      // Across and back, a pixel high.
      d.char(H);
      d.int((end - column) * UNIT);
      d.text(PIXEL_DOWN);
      d.int((column - end) * UNIT);
      d.char(Z);
      done = row * width + end;
    }
    for (const [i, d] of runs.entries()) writePath(out, `fill="${this.colors[i]}"`, d);
  }
}

/**
 * The flat scene in `view` as an SVG document the rasteriser draws at the view's pixel size; `tick`
 * (slices.ts) lets the loop answer others between entities (a second at 100,000 readable texts).
 */
export async function captureSvg(
  scene: FlatScene,
  view: CaptureView,
  colors: CaptureColors,
  selected: ReadonlySet<string>,
  tick: Tick = () => undefined,
): Promise<CaptureDrawing> {
  const { pieces } = scene;
  const k = view.scale * UNIT;
  const left = view.area.min[0];
  const top = view.area.max[1];
  const X = (x: number) => Math.round((x - left) * k);
  const Y = (y: number) => Math.round((top - y) * k);
  const colorOf = (aci: number) => (aci === 7 ? colors.foreground : aciHex(aci));
  // A gradient style paints (and strokes) with its gradient, defined once in the document's defs.
  const gradients: string[] = [];
  const styleColors = scene.styles.map((s) => {
    if (!s.paint) return colorOf(s.aci);
    const id = `g${gradients.length}`;
    const at = (p: readonly number[]): [number, number] => [X(p[0] as number), Y(p[1] as number)];
    gradients.push(svgGradient(id, { ...s.paint, from: at(s.paint.from), to: at(s.paint.to) }, num));
    return `url(#${id})`;
  });
  const canvas = new Canvas(scene.styles.length + 1, view.width, view.height);
  // Entities reaching into the view (strokes are a few pixels wide: a little beyond it counts too).
  const slack = 4 / view.scale;
  const [vx1, vy1, vx2, vy2] = [
    view.area.min[0] - slack,
    view.area.min[1] - slack,
    view.area.max[0] + slack,
    view.area.max[1] + slack,
  ];
  let entities = 0;
  let dots = 0;
  const shown: number[] = [];
  /** The viewport borders drawn, each a clipPath of its own. */
  const clips: Bounds[] = [];
  /** What was drawn under masks (wipeouts), in drawing order; the canvas holds what came after. */
  const body = new Bytes(1 << 16);
  let masked = false;
  let textsBefore = 0;
  const flush = () => {
    textsBefore += canvas.texts.length;
    writeCanvas(body);
    canvas.reset();
    masked = true;
  };

  /** Draws entity `e` into the strokes of its styles (or all of it into `only`, a highlight). */
  const draw = (e: number, only?: Stroke) => {
    const piece = pieces[e] as Piece;
    const prims = piece.prims;
    let clip = -1;
    let i = 0;
    const to = prims.length;
    let nextText = 0;
    let nextClip = 0;
    while (i < to) {
      const kind = prims[i] as number;
      if (kind === CLIP) {
        const box = piece.clips[nextClip++] as Bounds;
        // A highlight is not cut: it marks the viewport's contents wherever they are.
        if (!only) {
          clip = clips.length;
          clips.push(box);
        }
        i += 1;
        continue;
      }
      if (kind === UNCLIP) {
        clip = -1;
        i += 1;
        continue;
      }
      const style = prims[i + 1] as number;
      const pen = only ?? canvas.stroke(style, clip);
      switch (kind) {
        case SEG: {
          pen.moveTo(X(prims[i + 2] as number), Y(prims[i + 3] as number));
          pen.lineTo(X(prims[i + 4] as number), Y(prims[i + 5] as number));
          i += 6;
          break;
        }
        case ARC: {
          arc(pen, prims, i, only !== undefined);
          i += 8;
          break;
        }
        case DOT: {
          const x = X(prims[i + 2] as number);
          const y = Y(prims[i + 3] as number);
          const side = Math.round(Math.max(POINT_PX, (scene.styles[style]?.weight ?? 0) * PX_PER_MM) * UNIT);
          if (only) square(only, x, y, side);
          else {
            const d = canvas.fill(styleColors[style] as string);
            d.char(M);
            pair(d, x - side / 2, y - side / 2);
            d.text(`h${side}v${side}h${-side}z`);
          }
          i += 4;
          break;
        }
        case MASK: {
          // A wipeout: what was drawn so far is written out, then its area in the background colour.
          const n = prims[i + 2] as number;
          if (!only) {
            flush();
            body.text(`<path fill="${colors.background}" stroke="none" d="`);
            for (let p = 0; p < n; p++) {
              body.char(p === 0 ? M : LINE_TO);
              pair(body, X(prims[i + 3 + 2 * p] as number), Y(prims[i + 4 + 2 * p] as number));
            }
            body.text('Z"/>');
          }
          i += 3 + 2 * n;
          break;
        }
        case FILL:
        case HOLE: {
          // Painted in its colour (each outline turned the same way round, so overlapping ones of one
          // colour do not cancel in the shared path; a hole the other way, so it cuts out of its fill
          // and of nothing else), then stroked like a POLY.
          const n = prims[i + 2] as number;
          const at = (p: number): [number, number] => [
            X(prims[i + 3 + 2 * p] as number),
            Y(prims[i + 4 + 2 * p] as number),
          ];
          let twice = 0;
          for (let p = 0; p < n; p++) {
            const [x1, y1] = at(p);
            const [x2, y2] = at((p + 1) % n);
            twice += x1 * y2 - x2 * y1;
          }
          const turned = kind === HOLE ? twice > 0 : twice < 0;
          const order = Array.from({ length: n }, (_, p) => (turned ? n - 1 - p : p));
          const d = only ? undefined : canvas.fill(styleColors[style] as string);
          order.forEach((p, j) => {
            const [x, y] = at(p);
            if (d) {
              d.char(j === 0 ? M : LINE_TO);
              pair(d, x, y);
            }
            if (j === 0) pen.begin(x, y);
            else pen.lineTo(x, y);
          });
          if (d) d.char(Z);
          const [x0, y0] = at(order[0] ?? 0);
          pen.close(x0, y0);
          i += 3 + 2 * n;
          break;
        }
        case POLY: {
          const n = prims[i + 2] as number;
          const x0 = X(prims[i + 3] as number);
          const y0 = Y(prims[i + 4] as number);
          pen.begin(x0, y0);
          for (let p = 1; p < n; p++)
            pen.lineTo(X(prims[i + 3 + 2 * p] as number), Y(prims[i + 4 + 2 * p] as number));
          pen.close(x0, y0);
          i += 3 + 2 * n;
          break;
        }
        case TEXT: {
          const text = piece.texts[nextText++] as FlatText;
          const height = Math.hypot(text.v[0], text.v[1]) * view.scale;
          if (only) textBox(only, text);
          else if (height < TEXT_MIN_PX) greek(pen, text);
          else canvas.texts.push(textElement(text, styleColors[style] as string, clip));
          i += 2;
          break;
        }
        default:
          throw new Error(`capture: unknown primitive ${kind} at ${i}`);
      }
    }
  };

  const arc = (pen: Stroke, prims: readonly number[], i: number, only: boolean) => {
    const cx = prims[i + 2] as number;
    const cy = prims[i + 3] as number;
    const r = prims[i + 4] as number;
    const start = prims[i + 5] as number;
    const sweep = prims[i + 6] as number;
    const ccw = prims[i + 7] === 1;
    const radius = Math.round(r * k);
    if (radius < UNIT / 2 && !only) {
      // Smaller than a pixel across: the pixel it is on.
      const style = prims[i + 1] as number;
      canvas.pixel(styleColors[style] as string, Math.floor(X(cx) / UNIT), Math.floor(Y(cy) / UNIT));
      return;
    }
    const from = ccw ? start : start + sweep;
    const step = ccw ? 1 : -1;
    // A small arc as the chords that stay within a tenth of a pixel of it: the rasteriser strokes
    // straight segments two to three times faster than its curves.
    const chords = Math.ceil(Math.min(sweep, TAU) / (2 * Math.acos(1 - 1 / Math.max(radius, 1))));
    if (chords <= MAX_CHORDS) {
      polyArc(pen, cx, cy, r, from, (step * Math.min(sweep, TAU)) / chords, chords, sweep >= TAU);
      return;
    }
    // The page's y axis points down: a counter-clockwise arc turns clockwise there (sweep flag 0).
    const flag = ccw ? 0 : 1;
    const pieces = sweep > Math.PI ? 2 : 1;
    const piece = Math.min(sweep, TAU) / pieces;
    pen.moveTo(X(cx + r * Math.cos(from)), Y(cy + r * Math.sin(from)));
    for (let p = 1; p <= pieces; p++) {
      const angle = from + step * piece * p;
      const x = X(cx + r * Math.cos(angle));
      const y = Y(cy + r * Math.sin(angle));
      pen.arcTo(Math.max(radius, 1), flag, x, y);
    }
  };

  /**
   * `chords` straight segments from angle `from`, each turning `turn`, around (cx, cy) at radius `r`
   * (drawing units): each point the last one turned (no sine or cosine per point), a whole circle closed.
   */
  const polyArc = (
    pen: Stroke,
    cx: number,
    cy: number,
    r: number,
    from: number,
    turn: number,
    chords: number,
    closed: boolean,
  ) => {
    const cos = Math.cos(turn);
    const sin = Math.sin(turn);
    let dx = r * Math.cos(from);
    let dy = r * Math.sin(from);
    const x0 = X(cx + dx);
    const y0 = Y(cy + dy);
    if (closed) pen.begin(x0, y0);
    else pen.moveTo(x0, y0);
    const last = closed ? chords - 1 : chords;
    for (let c = 1; c <= last; c++) {
      [dx, dy] = [dx * cos - dy * sin, dx * sin + dy * cos];
      const x = X(cx + dx);
      const y = Y(cy + dy);
      // Two points on one tenth of a pixel are one.
      if (x !== pen.x || y !== pen.y) pen.lineTo(x, y);
    }
    if (closed) pen.close(x0, y0);
  };

  /** Text too small to read: a stroke through the middle of each line, as long as the line would be. */
  const greek = (pen: Stroke, text: FlatText) => {
    const { origin: o, u, v } = text;
    for (const line of text.lines) {
      const length = textWidth(line.text);
      const x0 = line.x - line.anchor * length;
      const y = line.y + 0.5;
      pen.moveTo(X(o[0] + x0 * u[0] + y * v[0]), Y(o[1] + x0 * u[1] + y * v[1]));
      pen.lineTo(X(o[0] + (x0 + length) * u[0] + y * v[0]), Y(o[1] + (x0 + length) * u[1] + y * v[1]));
    }
  };

  const textBox = (pen: Stroke, text: FlatText) => {
    const { origin: o, u, v } = text;
    for (const line of text.lines) {
      const length = textWidth(line.text);
      const x0 = line.x - line.anchor * length;
      const corners = [
        [x0, line.y],
        [x0 + length, line.y],
        [x0 + length, line.y + 1],
        [x0, line.y + 1],
      ] as const;
      corners.forEach(([x, y], c) => {
        const px = X(o[0] + x * u[0] + y * v[0]);
        const py = Y(o[1] + x * u[1] + y * v[1]);
        if (c === 0) pen.begin(px, py);
        else pen.lineTo(px, py);
      });
      pen.close(X(o[0] + x0 * u[0] + line.y * v[0]), Y(o[1] + x0 * u[1] + line.y * v[1]));
    }
  };

  const textElement = (text: FlatText, color: string, clip: number) => {
    const { origin: o, u, v } = text;
    const matrix = [u[0] * k, -u[1] * k, -v[0] * k, v[1] * k, X(o[0]), Y(o[1])].map(num).join(' ');
    const anchor = { 0: 'start', 0.5: 'middle', 1: 'end' } as const;
    const spans = text.lines.map(
      (line) =>
        `<tspan x="${num(line.x)}" y="${num(-line.y)}" text-anchor="${anchor[line.anchor]}">${escapeXml(line.text)}</tspan>`,
    );
    const clipped = clip >= 0 ? ` clip-path="url(#c${clip})"` : '';
    return `<text transform="matrix(${matrix})" font-size="${num(1 / TEXT_CAP_HEIGHT)}" fill="${color}"${clipped}>${spans.join('')}</text>`;
  };

  const square = (pen: Stroke, x: number, y: number, side: number) => {
    const h = Math.round(side / 2);
    pen.begin(x - h, y - h);
    pen.lineTo(x + h, y - h);
    pen.lineTo(x + h, y + h);
    pen.lineTo(x - h, y + h);
    pen.close(x - h, y - h);
  };

  /** The canvas's strokes, fills, pixels and texts, in that order (one layer between masks). */
  function writeCanvas(out: Bytes): void {
    out.text('<g fill="none">');
    for (const stroke of canvas.strokes.values()) {
      const style = scene.styles[stroke.style];
      if (!style || stroke.d.length === 0) continue;
      const widthPx = Math.max(1, style.weight * PX_PER_MM);
      const pattern = style.dash?.map((l) => Math.abs(l) * view.scale);
      const dashed =
        pattern && pattern.reduce((a, b) => a + b, 0) >= MIN_PATTERN_PX
          ? ` stroke-dasharray="${pattern.map((l) => num(l * UNIT)).join(' ')}"`
          : '';
      const clipped = stroke.clip >= 0 ? ` clip-path="url(#c${stroke.clip})"` : '';
      writePath(
        out,
        `stroke="${styleColors[stroke.style]}" stroke-width="${num(widthPx * UNIT)}"${dashed}${clipped}`,
        stroke.d,
      );
    }
    out.text('</g><g stroke="none">');
    for (const [color, d] of canvas.fills) writePath(out, `fill="${color}"`, d);
    canvas.pixelPaths(out);
    out.text('</g>');
    if (canvas.texts.length > 0)
      out.text(`<g font-family="${CAPTURE_FONTS}" stroke="none">${canvas.texts.join('')}</g>`);
  }

  const count = scene.handles.length;
  for (let e = 0; e < count; e++) {
    const piece = pieces[e] as Piece;
    const [x1, y1, x2, y2] = piece.box;
    if (x1 > vx2 || x2 < vx1 || y1 > vy2 || y2 < vy1) continue;
    entities += 1;
    if (selected.size > 0) shown.push(e);
    if ((x2 - x1) * view.scale < DOT_PX && (y2 - y1) * view.scale < DOT_PX) {
      // Smaller than a pixel or two: the pixel its middle falls on, in its colour.
      const column = Math.floor(((x1 + x2) / 2 - left) * view.scale);
      const row = Math.floor((top - (y1 + y2) / 2) * view.scale);
      canvas.pixel(styleColors[piece.dotStyle] as string, column, row);
      dots += 1;
    } else draw(e);
    const turn = tick();
    if (turn) await turn;
  }

  // The selection on top, in the viewer's highlight.
  const highlight = new Stroke(-1, -1);
  let highlighted = 0;
  for (const e of shown) {
    if (!selected.has(scene.handles[e] as string)) continue;
    highlighted += 1;
    const [x1, y1, x2, y2] = (pieces[e] as Piece).box;
    if ((x2 - x1) * view.scale < DOT_PX && (y2 - y1) * view.scale < DOT_PX)
      square(highlight, X((x1 + x2) / 2), Y((y1 + y2) / 2), HIGHLIGHT_MARK_PX * UNIT);
    else draw(e, highlight);
    const turn = tick();
    if (turn) await turn;
  }

  const defs =
    clips
      .map((box, i) => {
        const x = X(box.min[0]);
        const y = Y(box.max[1]);
        return `<clipPath id="c${i}"><rect x="${x}" y="${y}" width="${X(box.max[0]) - x}" height="${Y(box.min[1]) - y}"/></clipPath>`;
      })
      .join('') + gradients.join('');
  const out = new Bytes(1 << 20);
  out.text(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${view.width}" height="${view.height}" viewBox="0 0 ${view.width * UNIT} ${view.height * UNIT}">`,
  );
  if (defs) out.text(`<defs>${defs}</defs>`);
  out.text(`<rect width="${view.width * UNIT}" height="${view.height * UNIT}" fill="${colors.background}"/>`);
  if (masked) out.append(body);
  writeCanvas(out);
  if (highlight.d.length > 0) {
    out.text('<g fill="none" stroke-linecap="round" stroke-linejoin="round">');
    writePath(
      out,
      `stroke="${HIGHLIGHT}" stroke-width="${HIGHLIGHT_WIDTH_PX * UNIT}" stroke-dasharray="${HIGHLIGHT_DASH_PX.map((l) => l * UNIT).join(' ')}"`,
      highlight.d,
    );
    out.text('</g>');
  }
  out.text('</svg>');
  return {
    bytes: out.bytes(),
    entities,
    dots,
    texts: textsBefore + canvas.texts.length,
    highlighted,
  };
}
