/**
 * HATCH (kept as read: its tags) as geometry. Its boundary paths — polylines with bulges, and edge paths
 * of lines, circular arcs, elliptic arcs and splines — are read into closed loops (curves tessellated), in
 * the hatch's OCS (an extrusion of (0, 0, −1) reads mirrored in x). The loops bound it; a solid hatch is
 * its filled loops, a pattern hatch the lines of its stored pattern definition cut at the loops (even-odd,
 * as islands are); both drawn by the one scene. A transform rewrites the tags: points mapped, arcs'
 * angles mapped (a mirror reverses their direction), lengths, pattern and seed points carried along;
 * the source handles (associativity) are kept as read.
 */
import type { DxfTag, RawEntity } from '../model.js';
import { type HatchRings, renderedLoops } from './hatch-fill.js';
import { standardPattern, storedPatternLines } from './hatch-patterns.js';
import { normalizeDegrees, TAU, type Vec2 } from './math.js';
import {
  applyPoint,
  applyVector,
  compose,
  type Matrix,
  mapAngle,
  type Similarity,
  similarity,
} from './matrix.js';
import { subclassStart } from './raw-tags.js';

export const isHatchType = (dxfType: string) => dxfType.toUpperCase() === 'HATCH';

const num = (t: DxfTag | undefined) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : 0;
};

/** World x → −x (and z → −z): the OCS of an extrusion of (0, 0, −1). */
const FLIP: Matrix = { a: -1, b: 0, c: 0, d: 1, e: 0, f: 0, sz: -1, tz: 0 };

/** Chords to a whole turn of an arc or ellipse edge. */
const PER_TURN = 64;
/** Points a spline edge is evaluated at, per knot span. */
const PER_SPAN = 8;

/** The index after the AcDbHatch marker (0 when the tags have none). */
function hatchStart(tags: readonly DxfTag[]): number {
  return subclassStart(tags, 'AcDbHatch');
}

function flipped(tags: readonly DxfTag[]): boolean {
  const z = tags.find((t) => t.code === 230);
  return z !== undefined && num(z) < 0;
}

/** One pattern line of a HATCH as stored (already turned and scaled into the drawing). */
interface PatternLine {
  angle: number;
  base: Vec2;
  offset: Vec2;
  dashes: number[];
}

interface HatchGeometry extends HatchRings {
  solid: boolean;
  pattern: PatternLine[];
  elevation: number;
}

function arcPoints(
  cx: number,
  cy: number,
  rx: Vec2,
  ry: Vec2,
  start: number,
  end: number,
  ccw: boolean,
): Vec2[] {
  // Angles in degrees, counter-clockwise from start to end as stored for ccw, the complement for cw.
  let s = start;
  let e = end;
  if (!ccw) {
    s = 360 - end;
    e = 360 - start;
  }
  let sweep = (((e - s) % 360) + 360) % 360;
  if (sweep === 0) sweep = 360;
  const n = Math.max(2, Math.ceil((sweep / 360) * PER_TURN));
  const out: Vec2[] = [];
  for (let i = 0; i <= n; i++) {
    const t = ((s + (sweep * i) / n) * Math.PI) / 180;
    out.push([
      cx + Math.cos(t) * rx[0] + Math.sin(t) * ry[0],
      cy + Math.cos(t) * rx[1] + Math.sin(t) * ry[1],
    ]);
  }
  // A clockwise edge runs from its start the other way round.
  return ccw ? out : out.reverse();
}

/** A B-spline (rational when weights are given) evaluated by de Boor's algorithm at `PER_SPAN` points a span. */
function splinePoints(degree: number, knots: number[], control: Vec2[], weights: number[]): Vec2[] {
  const p = degree;
  if (control.length < 2 || knots.length !== control.length + p + 1) return control;
  const w = weights.length === control.length ? weights : control.map(() => 1);
  const out: Vec2[] = [];
  const lo = knots[p] as number;
  const hi = knots[control.length] as number;
  const steps = Math.max(2, (control.length - p) * PER_SPAN);
  for (let i = 0; i <= steps; i++) {
    const u = i === steps ? hi : lo + ((hi - lo) * i) / steps;
    let k = p;
    while (k < control.length - 1 && u >= (knots[k + 1] as number)) k++;
    const d: Array<[number, number, number]> = [];
    for (let j = 0; j <= p; j++) {
      const c = control[k - p + j] as Vec2;
      const wj = w[k - p + j] as number;
      d.push([c[0] * wj, c[1] * wj, wj]);
    }
    for (let r = 1; r <= p; r++) {
      for (let j = p; j >= r; j--) {
        const left = knots[k - p + j] as number;
        const right = knots[k + 1 + j - r] as number;
        const a = right === left ? 0 : (u - left) / (right - left);
        const q = d[j] as [number, number, number];
        const prev = d[j - 1] as [number, number, number];
        d[j] = [(1 - a) * prev[0] + a * q[0], (1 - a) * prev[1] + a * q[1], (1 - a) * prev[2] + a * q[2]];
      }
    }
    const [x, y, h] = d[p] as [number, number, number];
    out.push(h === 0 ? [x, y] : [x / h, y / h]);
  }
  return out;
}

/** Polyline path vertices to points, bulged segments as arcs. */
function polylinePoints(vertices: Array<[number, number, number]>, closed: boolean): Vec2[] {
  const out: Vec2[] = [];
  const n = vertices.length;
  for (let i = 0; i < n; i++) {
    const [x, y, bulge] = vertices[i] as [number, number, number];
    out.push([x, y]);
    if (bulge === 0 || (!closed && i === n - 1)) continue;
    const [x2, y2] = vertices[(i + 1) % n] as [number, number, number];
    const angle = 4 * Math.atan(bulge);
    const chord = Math.hypot(x2 - x, y2 - y);
    if (chord === 0) continue;
    const r = chord / (2 * Math.sin(Math.abs(angle) / 2));
    const mx = (x + x2) / 2;
    const my = (y + y2) / 2;
    const h = Math.sqrt(Math.max(0, r * r - (chord / 2) ** 2)) * (Math.abs(angle) > Math.PI ? -1 : 1);
    const sign = bulge > 0 ? 1 : -1;
    const cx = mx - (sign * h * (y2 - y)) / chord;
    const cy = my + (sign * h * (x2 - x)) / chord;
    const a0 = Math.atan2(y - cy, x - cx);
    const steps = Math.max(2, Math.ceil((Math.abs(angle) / TAU) * PER_TURN));
    for (let k = 1; k < steps; k++) {
      const t = a0 + (angle * k) / steps;
      out.push([cx + r * Math.cos(t), cy + r * Math.sin(t)]);
    }
  }
  return out;
}

/** A reader over the tags from `i`: the value of the tag there when it has `code`, moving on. */
class Cursor {
  constructor(
    readonly tags: readonly DxfTag[],
    public i: number,
  ) {}
  peek(): number | undefined {
    return this.tags[this.i]?.code;
  }
  take(code: number): number | undefined {
    if (this.tags[this.i]?.code !== code) return undefined;
    return num(this.tags[this.i++]);
  }
  /** The tags up to and including the next tag of `code` are skipped; its value returned. */
  until(code: number): number | undefined {
    while (this.i < this.tags.length && this.tags[this.i]?.code !== code) this.i++;
    return this.take(code);
  }
}

/** Visits every point, vector, angle and length of the tags' boundary paths, pattern and seeds. */
interface Visitor {
  point(i: number): void;
  vector(i: number): void;
  /** An arc edge's 50/51 at `at`, its flag 73 at `flag` (-1 when absent), ellipse or circle. */
  arc(start: number, end: number, flag: number, elliptic: boolean): void;
  length(i: number): void;
  angle(i: number): void;
  bulge(i: number): void;
}

/** A boundary path as read: its points (OCS) and its flags (92: 1 external, 2 polyline, 16 outermost). */
interface Loop {
  points: Vec2[];
  flags: number;
}

/** Walks the HATCH tags with `visit`; answers its loops (OCS) as read. */
function walk(tags: readonly DxfTag[], visit?: Visitor): Loop[] {
  const loops: Loop[] = [];
  const c = new Cursor(tags, hatchStart(tags));
  const count = c.until(91) ?? 0;
  for (let path = 0; path < count; path++) {
    const flags = c.until(92);
    if (flags === undefined) break;
    const loop: Vec2[] = [];
    const xy = (at: number): Vec2 => [num(tags[at]), num(tags[at + 1])];
    if ((flags & 2) !== 0) {
      const hasBulge = c.take(72) ?? 0;
      const closed = (c.take(73) ?? 1) !== 0;
      const n = c.take(93) ?? 0;
      const vertices: Array<[number, number, number]> = [];
      for (let k = 0; k < n && c.peek() === 10; k++) {
        visit?.point(c.i);
        const [x, y] = xy(c.i);
        c.i += 2;
        let bulge = 0;
        if (hasBulge && c.peek() === 42) {
          visit?.bulge(c.i);
          bulge = c.take(42) ?? 0;
        }
        vertices.push([x, y, bulge]);
      }
      loop.push(...polylinePoints(vertices, closed));
    } else {
      const edges = c.take(93) ?? 0;
      for (let k = 0; k < edges; k++) {
        const type = c.take(72);
        if (type === 1) {
          visit?.point(c.i);
          visit?.point(c.i + 2);
          loop.push(xy(c.i), xy(c.i + 2));
          c.i += 4;
        } else if (type === 2 || type === 3) {
          visit?.point(c.i);
          const [cx, cy] = xy(c.i);
          c.i += 2;
          let rx: Vec2;
          let ry: Vec2;
          if (type === 2) {
            visit?.length(c.i);
            const r = c.take(40) ?? 0;
            rx = [r, 0];
            ry = [0, r];
          } else {
            visit?.vector(c.i);
            const major = xy(c.i);
            c.i += 2;
            const ratio = c.take(40) ?? 1;
            rx = major;
            ry = [-major[1] * ratio, major[0] * ratio];
          }
          const startAt = c.i;
          const start = c.take(50) ?? 0;
          const end = c.take(51) ?? 360;
          const flagAt = c.peek() === 73 ? c.i : -1;
          const ccw = (c.take(73) ?? 1) !== 0;
          visit?.arc(startAt, startAt + 1, flagAt, type === 3);
          loop.push(...arcPoints(cx, cy, rx, ry, start, end, ccw));
        } else if (type === 4) {
          const degree = c.take(94) ?? 3;
          c.take(73);
          c.take(74);
          const nKnots = c.take(95) ?? 0;
          const nControl = c.take(96) ?? 0;
          const knots: number[] = [];
          for (let j = 0; j < nKnots && c.peek() === 40; j++) knots.push(c.take(40) ?? 0);
          const control: Vec2[] = [];
          const weights: number[] = [];
          for (let j = 0; j < nControl && c.peek() === 10; j++) {
            visit?.point(c.i);
            control.push(xy(c.i));
            c.i += 2;
            if (c.peek() === 42) weights.push(c.take(42) ?? 1);
          }
          if (c.peek() === 97) {
            const nFit = c.take(97) ?? 0;
            for (let j = 0; j < nFit && c.peek() === 11; j++) {
              visit?.point(c.i);
              c.i += 2;
            }
            for (const tangent of [12, 13]) {
              if (c.peek() === tangent) {
                visit?.vector(c.i);
                c.i += 2;
              }
            }
          }
          loop.push(...splinePoints(degree, knots, control, weights));
        } else break;
      }
    }
    const sources = c.until(97) ?? 0;
    c.i += sources;
    if (loop.length >= 2) loops.push({ points: loop, flags });
  }
  // The pattern (angle 52, scale 41, its lines) and the seed points after the paths.
  if (visit) {
    for (let i = c.i; i < tags.length; i++) {
      const code = (tags[i] as DxfTag).code;
      if (code === 52 || code === 53) visit.angle(i);
      else if (code === 41 || code === 49) visit.length(i);
      else if (code === 43) visit.point(i);
      else if (code === 45) visit.vector(i);
      else if (code === 10) visit.point(i);
      else if (code === 450) break; // gradient data: nothing placed
    }
  }
  return loops;
}

/** The pattern lines stored after the paths: angle 53, base 43/44, offset 45/46, dashes 49. */
function patternLines(tags: readonly DxfTag[]): PatternLine[] {
  const out: PatternLine[] = [];
  const at = tags.findIndex((t) => t.code === 78);
  if (at < 0) return out;
  let i = at + 1;
  while (tags[i]?.code === 53) {
    const angle = num(tags[i]);
    const base: Vec2 = [num(tags[i + 1]), num(tags[i + 2])];
    const offset: Vec2 = [num(tags[i + 3]), num(tags[i + 4])];
    const n = tags[i + 5]?.code === 79 ? num(tags[i + 5]) : 0;
    i += 6;
    const dashes: number[] = [];
    for (let k = 0; k < n && tags[i]?.code === 49; k++) dashes.push(num(tags[i++]));
    out.push({ angle, base, offset, dashes });
  }
  return out;
}

/**
 * The lines of the standard pattern the hatch names (2) when it stores none (AutoCAD regenerates them from
 * acad.pat by name), at its pattern angle (52) and scale (41; doubled by 77, as a crossed pattern is).
 */
function namedPattern(tags: readonly DxfTag[]): PatternLine[] {
  const start = hatchStart(tags);
  const name = tags.slice(start).find((t) => t.code === 2)?.value ?? '';
  const lines = standardPattern(name);
  if (!lines) return [];
  const trailer = tags.slice(
    Math.max(
      start,
      tags.findIndex((t) => t.code === 76),
    ),
  );
  const angle = num(trailer.find((t) => t.code === 52));
  const scale = num(trailer.find((t) => t.code === 41)) || 1;
  const double = num(trailer.find((t) => t.code === 77)) === 1;
  const stored = storedPatternLines(lines, angle, scale);
  // A double pattern adds the same lines turned a quarter about their base.
  return double ? [...stored, ...storedPatternLines(lines, angle + 90, scale)] : stored;
}

/** The hatch's loops, fill and pattern in world x and y. */
export function hatchGeometry(e: RawEntity): HatchGeometry {
  const tags = e.tags;
  const flip = flipped(tags);
  const toWorld = (p: Vec2): Vec2 => (flip ? [-p[0], p[1]] : p);
  const read = walk(tags);
  const loops = read.map((loop) => loop.points.map(toWorld));
  const start = hatchStart(tags);
  const solid = num(tags.slice(start).find((t) => t.code === 70)) === 1;
  const stored = patternLines(tags);
  const pattern = (stored.length > 0 || solid ? stored : namedPattern(tags)).map((l) => ({
    angle: flip ? 180 - l.angle : l.angle,
    base: toWorld(l.base),
    offset: toWorld(l.offset),
    dashes: l.dashes,
  }));
  const z = tags.slice(start).find((t) => t.code === 30);
  return {
    loops,
    loopFlags: read.map((loop) => loop.flags),
    style: num(tags.find((t) => t.code === 75)),
    solid,
    pattern,
    elevation: (flip ? -1 : 1) * num(z),
  };
}

/** The HATCH moved by the similarity `m` (a copy; the source handles kept as read). */
export function transformHatch(e: RawEntity, m: Matrix, sim: Similarity): RawEntity {
  const flip = flipped(e.tags);
  const ocs = flip ? compose(compose(FLIP, m), FLIP) : m;
  const s = (flip ? similarity(ocs) : sim) ?? sim;
  const tags = [...e.tags];
  const set = (i: number, v: number) => {
    tags[i] = { code: (tags[i] as DxfTag).code, value: String(v) };
  };
  const pair = (i: number, p: readonly number[]) => {
    set(i, p[0] as number);
    set(i + 1, p[1] as number);
  };
  walk(e.tags, {
    point: (i) => pair(i, applyPoint(ocs, [num(tags[i]), num(tags[i + 1]), 0])),
    vector: (i) => pair(i, applyVector(ocs, [num(tags[i]), num(tags[i + 1]), 0])),
    length: (i) => set(i, num(tags[i]) * s.scale),
    angle: (i) => set(i, normalizeDegrees(mapAngle(s, num(tags[i])))),
    bulge: (i) => {
      if (s.reflect) set(i, -num(tags[i]));
    },
    arc: (startAt, endAt, flagAt, elliptic) => {
      const ccw = flagAt < 0 || num(tags[flagAt]) !== 0;
      // The counter-clockwise span [a, b] the edge covers.
      const a = ccw ? num(tags[startAt]) : 360 - num(tags[endAt]);
      const b = ccw ? num(tags[endAt]) : 360 - num(tags[startAt]);
      // An ellipse's angles are measured from its major axis, which turns with it; a circle's from x.
      const map = (x: number) => (elliptic ? (s.reflect ? -x : x) : mapAngle(s, x));
      const whole = Math.abs(b - a) >= 360;
      let [na, nb] = s.reflect ? [map(b), map(a)] : [map(a), map(b)];
      if (!whole) [na, nb] = [normalizeDegrees(na), normalizeDegrees(nb)];
      else nb = na + 360;
      // A mirror runs the edge the other way round; a clockwise edge keeps DXF's complementary angles.
      const nowCcw = s.reflect ? !ccw : ccw;
      set(startAt, nowCcw ? na : 360 - nb);
      set(endAt, nowCcw ? nb : 360 - na);
      if (flagAt >= 0) set(flagAt, nowCcw ? 1 : 0);
    },
  });
  // The elevation point: only its z means something.
  const start = hatchStart(tags);
  const zAt = tags.findIndex((t, i) => i >= start && t.code === 30);
  if (zAt >= 0) set(zAt, ocs.sz * num(tags[zAt]) + ocs.tz);
  return { ...e, tags };
}

/** Pattern lines past this many per hatch are not drawn (a pattern scaled down to dust). */
const MAX_PATTERN_SEGMENTS = 20_000;

/**
 * The pattern's strokes inside the loops: each family of parallel lines (base + k · offset, along its
 * angle) cut at the loops' edges, the inside spans kept by the even-odd rule (islands stay empty), then
 * cut into the family's dashes (positive: drawn, negative: a gap, 0: a dot) from each line's base.
 */
export function patternSegments(g: HatchGeometry): Array<[Vec2, Vec2]> {
  const out: Array<[Vec2, Vec2]> = [];
  const edges: Array<[Vec2, Vec2]> = [];
  for (const loop of renderedLoops(g))
    for (let i = 0; i < loop.length; i++) edges.push([loop[i] as Vec2, loop[(i + 1) % loop.length] as Vec2]);
  if (edges.length === 0) return out;
  for (const line of g.pattern) {
    const r = (line.angle * Math.PI) / 180;
    const d: Vec2 = [Math.cos(r), Math.sin(r)];
    const n: Vec2 = [-d[1], d[0]];
    const spacing = line.offset[0] * n[0] + line.offset[1] * n[1];
    if (Math.abs(spacing) < 1e-12) continue;
    let lo = Infinity;
    let hi = -Infinity;
    for (const [a] of edges) {
      const s = ((a[0] - line.base[0]) * n[0] + (a[1] - line.base[1]) * n[1]) / spacing;
      lo = Math.min(lo, s);
      hi = Math.max(hi, s);
    }
    const period = line.dashes.reduce((sum, x) => sum + Math.abs(x), 0);
    for (let k = Math.ceil(lo); k <= Math.floor(hi); k++) {
      const o: Vec2 = [line.base[0] + k * line.offset[0], line.base[1] + k * line.offset[1]];
      const ts: number[] = [];
      for (const [a, b] of edges) {
        const sa = (a[0] - o[0]) * n[0] + (a[1] - o[1]) * n[1];
        const sb = (b[0] - o[0]) * n[0] + (b[1] - o[1]) * n[1];
        // Half-open, so a vertex on the line counts once.
        if (sa > 0 === sb > 0) continue;
        const f = sa / (sa - sb);
        const x = a[0] + f * (b[0] - a[0]);
        const y = a[1] + f * (b[1] - a[1]);
        ts.push((x - o[0]) * d[0] + (y - o[1]) * d[1]);
      }
      ts.sort((p, q) => p - q);
      for (let i = 0; i + 1 < ts.length; i += 2) {
        const t0 = ts[i] as number;
        const t1 = ts[i + 1] as number;
        const at = (t: number): Vec2 => [o[0] + t * d[0], o[1] + t * d[1]];
        if (period === 0 || line.dashes.length === 0) out.push([at(t0), at(t1)]);
        else {
          // Dashes from the line's own start (t = 0), repeating; those within [t0, t1].
          let t = Math.floor(t0 / period) * period;
          while (t < t1 && out.length < MAX_PATTERN_SEGMENTS) {
            for (const dash of line.dashes) {
              const end = t + Math.abs(dash);
              if (dash >= 0 && end >= t0 && t <= t1) {
                const a = Math.max(t, t0);
                const b = dash === 0 ? a : Math.min(end, t1);
                if (dash === 0 ? t >= t0 : b > a) out.push([at(a), at(b)]);
              }
              t = end;
            }
          }
        }
        if (out.length >= MAX_PATTERN_SEGMENTS) return out;
      }
    }
  }
  return out;
}
