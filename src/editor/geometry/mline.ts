/**
 * MLINE (kept as read: its tags). Its geometry is stored final: each vertex (11) has its segment's
 * direction (12), its miter direction (13) and, per element of its MLINESTYLE, line parameters (74 count,
 * then 41s: the offset along the miter, then the dashes and gaps of a broken element) and fill
 * parameters (75, 42s). An element's point at a vertex is location + miter · first parameter, so it is
 * drawn and bounded without its style; the style (the OBJECTS section's MLINESTYLE, by handle 340, else
 * by name, else AutoCAD's STANDARD) gives the elements' colours and linetypes, the fill and the caps.
 *
 * A transform is ezdxf's `MLine.transform(Matrix44)`: the vertices mapped, the extrusion and (for a
 * uniform scale) the scale factor too, then the geometry regenerated from the reference line and the
 * style (update_geometry): miters from the segments and the style's end angles, parameters from the
 * element offsets, justification and scale — so breaks are dropped, and a mirrored MLINE keeps its
 * elements at their offsets on the same side of its (mirrored) reference line, as in ezdxf.
 */
import type { ArcEntity, DxfTag, LineEntity, Point3, RawEntity } from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { cross, dot, normalize } from './ocs.js';
import { standInCommon, subclassStart } from './raw-tags.js';

export const isMlineType = (dxfType: string) => dxfType.toUpperCase() === 'MLINE';

interface MlineVertex {
  location: Point3;
  direction: Point3;
  miter: Point3;
  /** Per element: its offset along the miter, then dash and gap lengths. */
  params: number[][];
  /** Per element: its fill parameters. */
  fills: number[][];
}

interface Mline {
  style_name: string;
  style_handle: string | undefined;
  scale: number;
  /** 0 top, 1 zero, 2 bottom. */
  justification: number;
  /** 1 has vertices, 2 closed, 4 no start caps, 8 no end caps. */
  flags: number;
  extrusion: Point3;
  vertices: MlineVertex[];
}

interface MlineElement {
  offset: number;
  color: number;
  linetype: string;
}

export interface MlineStyle {
  /** 1 fill, 2 miters shown, 16/32/64 start square/inner arcs/round, 256/512/1024 the same at the end. */
  flags: number;
  fill_color: number;
  start_angle: number;
  end_angle: number;
  elements: MlineElement[];
}

/** AutoCAD's STANDARD style (two BYLAYER elements half a unit either side), for a file without its own. */
export const STANDARD_MLINE_STYLE: MlineStyle = {
  flags: 0,
  fill_color: 256,
  start_angle: 90,
  end_angle: 90,
  elements: [
    { offset: 0.5, color: 256, linetype: 'BYLAYER' },
    { offset: -0.5, color: 256, linetype: 'BYLAYER' },
  ],
};

const num = (t: DxfTag | undefined, fallback = 0) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
};

/** The codes of the vertex data, which follows the entity's own fields. */
const VERTEX_CODES = new Set([11, 21, 31, 12, 22, 32, 13, 23, 33, 74, 41, 75, 42]);

function mlineStart(tags: readonly DxfTag[]): number {
  return subclassStart(tags, 'AcDbMline');
}

/** Where the vertex data is: from the first 11 after the marker to the first tag of another code. */
function vertexRange(tags: readonly DxfTag[]): [number, number] {
  const from = mlineStart(tags);
  const first = tags.findIndex((t, i) => i >= from && t.code === 11);
  if (first < 0) return [tags.length, tags.length];
  let end = first;
  while (end < tags.length && VERTEX_CODES.has((tags[end] as DxfTag).code)) end++;
  return [first, end];
}

/** The MLINE's fields and vertices as stored. */
export function readMline(e: RawEntity): Mline {
  const tags = e.tags;
  const from = mlineStart(tags);
  const [first, end] = vertexRange(tags);
  const own = (code: number) => tags.slice(from, first).find((t) => t.code === code);
  const point = (code: number, fallback: Point3): Point3 => {
    const at = tags.findIndex((t, i) => i >= from && i < first && t.code === code);
    if (at < 0) return fallback;
    return [num(tags[at]), num(tags[at + 1]), tags[at + 2]?.code === code + 20 ? num(tags[at + 2]) : 0];
  };
  const vertices: MlineVertex[] = [];
  let vertex: MlineVertex | undefined;
  let list: number[] | undefined;
  for (let i = first; i < end; i++) {
    const t = tags[i] as DxfTag;
    if (t.code === 11) {
      vertex = { location: [0, 0, 0], direction: [1, 0, 0], miter: [0, 1, 0], params: [], fills: [] };
      vertices.push(vertex);
    }
    if (!vertex) continue;
    const kind = t.code % 10;
    if (t.code <= 33 && kind >= 1 && kind <= 3) {
      // 11/21/31 the location, 12/22/32 the direction, 13/23/33 the miter.
      const which = kind === 1 ? 'location' : kind === 2 ? 'direction' : 'miter';
      vertex[which][Math.floor(t.code / 10) - 1] = num(t);
    } else if (t.code === 74) {
      list = [];
      vertex.params.push(list);
    } else if (t.code === 75) {
      list = [];
      vertex.fills.push(list);
    } else if (t.code === 41 || t.code === 42) list?.push(num(t));
  }
  return {
    style_name: own(2)?.value ?? 'Standard',
    style_handle: own(340)?.value,
    scale: num(own(40), 1),
    justification: num(own(70)),
    flags: num(own(71), 1),
    extrusion: point(210, [0, 0, 1]),
    vertices,
  };
}

/** The style an MLINE names among a drawing's MLINESTYLE objects (by handle, then name), else STANDARD. */
export function mlineStyleOf(
  objects: ReadonlyArray<{ type: string; handle?: string; tags: readonly DxfTag[] }>,
  e: RawEntity,
): MlineStyle {
  const { style_handle, style_name } = readMline(e);
  const styles = objects.filter((o) => o.type === 'MLINESTYLE');
  const byHandle = style_handle
    ? styles.find((o) => o.handle?.toUpperCase() === style_handle.toUpperCase())
    : undefined;
  const name = style_name.toUpperCase();
  const found =
    byHandle ?? styles.find((o) => o.tags.find((t) => t.code === 2)?.value.toUpperCase() === name);
  return found ? readStyle(found.tags) : STANDARD_MLINE_STYLE;
}

/** An MLINESTYLE object's tags read as its style (elements after its 71 count: 49 offset, 62, 6 each). */
function readStyle(tags: readonly DxfTag[]): MlineStyle {
  const countAt = tags.findIndex((t) => t.code === 71);
  const head = countAt < 0 ? tags : tags.slice(0, countAt);
  const value = (code: number, fallback: number) =>
    num(
      head.find((t) => t.code === code),
      fallback,
    );
  const elements: MlineElement[] = [];
  for (const t of countAt < 0 ? [] : tags.slice(countAt + 1)) {
    if (t.code === 49) elements.push({ offset: num(t), color: 0, linetype: 'BYLAYER' });
    const last = elements[elements.length - 1];
    if (!last) continue;
    if (t.code === 62) last.color = num(t);
    else if (t.code === 6) last.linetype = t.value;
  }
  return {
    flags: value(70, 0),
    fill_color: value(62, 256),
    start_angle: value(51, 90),
    end_angle: value(52, 90),
    elements: elements.length > 0 ? elements : STANDARD_MLINE_STYLE.elements,
  };
}

const add = (a: Point3, b: Point3): Point3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const sub = (a: Point3, b: Point3): Point3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const times = (a: Point3, k: number): Point3 => [a[0] * k, a[1] * k, a[2] * k];

/** Each vertex's element points (location + miter · offset); undefined when a vertex lacks an element. */
function miterPoints(m: Mline, elements: number): Point3[][] | undefined {
  const out: Point3[][] = [];
  for (const v of m.vertices) {
    if (v.params.length !== elements) return undefined;
    out.push(v.params.map((p) => add(v.location, times(v.miter, p[0] ?? 0))));
  }
  return out;
}

/** One drawn part of an MLINE: a line of an element (its index) or a miter/cap line, or an arc cap. */
interface MlineParts {
  lines: Array<{ start: Point3; end: Point3; element: number }>;
  /** Round caps: centre, radius, start and end angle (degrees, counter-clockwise, in the XY plane). */
  arcs: Array<{ center: Point3; radius: number; start: number; end: number; element: number }>;
  /** The filled area (bottom border, then the top one back), when the style fills. */
  fill: Point3[] | undefined;
}

/**
 * What an MLINE draws, as ezdxf's renderer reads it: its elements between consecutive vertices (and
 * back to the first when closed), with the style's miters, square and round caps (inner arcs with four
 * elements or more) and fill. Without a style, its stored elements alone.
 */
export function mlineParts(e: RawEntity, style: MlineStyle | undefined): MlineParts {
  const m = readMline(e);
  const count = style ? style.elements.length : (m.vertices[0]?.params.length ?? 0);
  const empty: MlineParts = { lines: [], arcs: [], fill: undefined };
  if (m.vertices.length < 2 || count === 0) return empty;
  const miters = miterPoints(m, count);
  if (!miters) return empty;
  const closed = (m.flags & 2) !== 0;
  const offsets = style ? style.elements.map((el) => el.offset) : Array.from({ length: count }, (_, i) => -i);
  const order = offsets.map((_, i) => i).sort((a, b) => (offsets[a] as number) - (offsets[b] as number));
  const bottom = order[0] as number;
  const top = order[order.length - 1] as number;
  if (closed) miters.push(miters[0] as Point3[]);
  const parts: MlineParts = { lines: [], arcs: [], fill: undefined };
  const flag = (bit: number) => style !== undefined && (style.flags & bit) !== 0;
  const miterLine = (at: Point3[]) => {
    const zero = times(add(at[top] as Point3, at[bottom] as Point3), 0.5);
    parts.lines.push({ start: at[top] as Point3, end: zero, element: top });
    parts.lines.push({ start: at[bottom] as Point3, end: zero, element: bottom });
  };
  const roundCap = (at: Point3[], from: number, to: number) => {
    const a = at[from] as Point3;
    const b = at[to] as Point3;
    const center = times(add(a, b), 0.5);
    const radius = Math.hypot(b[0] - a[0], b[1] - a[1]) / 2;
    const angle = (Math.atan2(a[1] - center[1], a[0] - center[0]) * 180) / Math.PI;
    parts.arcs.push({ center, radius, start: angle, end: angle + 180, element: from });
  };
  const first = miters[0] as Point3[];
  const last = miters[miters.length - 1] as Point3[];
  if (!closed) {
    if (flag(16)) miterLine(first);
    if (flag(64)) roundCap(first, top, bottom);
    if (flag(32) && count > 3) roundCap(first, order[count - 2] as number, order[1] as number);
  }
  for (let i = 1; i < miters.length; i++) {
    const a = miters[i - 1] as Point3[];
    const b = miters[i] as Point3[];
    const params = (m.vertices[i - 1] as MlineVertex).params;
    for (let k = 0; k < count; k++)
      for (const [start, end] of dashes(a[k] as Point3, b[k] as Point3, params[k] ?? []))
        parts.lines.push({ start, end, element: k });
  }
  // Miters at the inner vertices (and at the first of a closed one, whose last is the first again).
  if (flag(2)) for (let i = closed ? 0 : 1; i < miters.length - 1; i++) miterLine(miters[i] as Point3[]);
  if (!closed) {
    if (flag(256)) miterLine(last);
    if (flag(1024)) roundCap(last, bottom, top);
    if (flag(512) && count > 3) roundCap(last, order[1] as number, order[count - 2] as number);
  }
  if (flag(1)) {
    const lower = miters.map((at) => at[bottom] as Point3);
    const upper = miters.map((at) => at[top] as Point3).reverse();
    // Round caps are filled too: ezdxf's fill bulges (1, a half circle turning left) across each end.
    const turn = m.extrusion[2] < 0 ? -1 : 1;
    const endCap =
      !closed && flag(1024) ? halfCircle(lower[lower.length - 1] as Point3, upper[0] as Point3, turn) : [];
    const startCap =
      !closed && flag(64) ? halfCircle(upper[upper.length - 1] as Point3, lower[0] as Point3, turn) : [];
    parts.fill = [...lower, ...endCap, ...upper, ...startCap];
  }
  return parts;
}

/**
 * An element's segment from `a` to `b` as drawn: its parameters after the miter offset are where it
 * starts and stops along the segment (start, break, restart, ...: a broken element's gaps), a last
 * start running to the segment's end; none or one of them, the whole segment.
 */
function dashes(a: Point3, b: Point3, params: readonly number[]): Array<[Point3, Point3]> {
  const stops = params.slice(1);
  if (stops.length <= 1) return [[a, b]];
  const length = Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
  if (length === 0) return [[a, b]];
  if (stops.length % 2 === 1) stops.push(length);
  const at = (d: number): Point3 => {
    const t = Math.min(1, Math.max(0, d / length));
    return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
  };
  const out: Array<[Point3, Point3]> = [];
  for (let i = 0; i + 1 < stops.length; i += 2) {
    const from = Math.max(0, stops[i] as number);
    const to = Math.min(length, stops[i + 1] as number);
    if (to > from) out.push([at(from), at(to)]);
  }
  return out;
}

/** The points strictly between `a` and `b` on the half circle over the chord a–b, turning left (turn 1) or right. */
function halfCircle(a: Point3, b: Point3, turn: number): Point3[] {
  const center = times(add(a, b), 0.5);
  const radius = Math.hypot(b[0] - a[0], b[1] - a[1]) / 2;
  const from = Math.atan2(a[1] - center[1], a[0] - center[0]);
  const out: Point3[] = [];
  for (let k = 1; k < HALF_CIRCLE_CHORDS; k++) {
    const angle = from + (turn * Math.PI * k) / HALF_CIRCLE_CHORDS;
    out.push([center[0] + radius * Math.cos(angle), center[1] + radius * Math.sin(angle), center[2]]);
  }
  return out;
}
const HALF_CIRCLE_CHORDS = 32;

/** The MLINE's element lines as Lines (its stand-ins for bounds and queries), in its own layer and style. */
export function mlineLines(e: RawEntity): LineEntity[] | undefined {
  const parts = mlineParts(e, undefined);
  if (parts.lines.length === 0) return undefined;
  const common = standInCommon(e);
  return parts.lines.map(({ start, end }) => ({ type: 'Line', ...common, start, end }));
}

/**
 * What an MLINE draws with its style: each element's lines in the element's colour and linetype (BYLAYER
 * the MLINE's layer, BYBLOCK the MLINE's own), miters and caps, and the fill's outline (drawn filled in
 * the style's fill colour, `fillColor`).
 */
export function mlineEntities(
  e: RawEntity,
  style: MlineStyle,
): { entities: Array<LineEntity | ArcEntity>; fill: Point3[] | undefined; fillColor: number } {
  const parts = mlineParts(e, style);
  const { handle, space, layer, lineweight } = e;
  const colorOf = (k: number) => {
    const c = style.elements[k]?.color ?? 256;
    return c === 0 ? e.color : c;
  };
  const linetypeOf = (k: number) => {
    const l = style.elements[k]?.linetype ?? 'BYLAYER';
    return l.toUpperCase() === 'BYBLOCK' ? e.linetype : l;
  };
  const common = (k: number) => ({
    handle,
    space,
    layer,
    lineweight,
    color: colorOf(k),
    linetype: linetypeOf(k),
  });
  const lines = parts.lines.map(
    ({ start, end, element }): LineEntity => ({ type: 'Line', ...common(element), start, end }),
  );
  const arcs = parts.arcs.map(
    ({ center, radius, start, end, element }): ArcEntity => ({
      type: 'Arc',
      ...common(element),
      center,
      radius,
      start_angle: start,
      end_angle: end,
    }),
  );
  const fillColor = style.fill_color === 0 ? e.color : style.fill_color;
  return { entities: [...lines, ...arcs], fill: parts.fill, fillColor };
}

// ezdxf's vector operations, in its order, so the regenerated geometry matches it.
const isClose = (a: number, b: number, abs: number) =>
  a === b || Math.abs(a - b) <= Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), abs);
const rotateDeg = (v: Point3, degrees: number): Point3 => {
  const angle = Math.atan2(v[1], v[0]) + (degrees * Math.PI) / 180;
  const length = Math.hypot(v[0], v[1]);
  return [Math.cos(angle) * length, Math.sin(angle) * length, v[2]];
};
const miterOf = (d1: Point3, d2: Point3): Point3 => {
  const m = normalize(times(add(d1, d2), 0.5));
  return [-m[1], m[0], m[2]];
};

/** The MLINE's vertices regenerated from its reference line, as ezdxf's `generate_geometry` does. */
function generateVertices(m: Mline, style: MlineStyle): MlineVertex[] {
  const locations: Point3[] = [];
  for (const v of m.vertices) {
    const prev = locations[locations.length - 1];
    if (!prev || !v.location.every((c, k) => isClose(c, prev[k] as number, 1e-6))) locations.push(v.location);
  }
  if (locations.length === 0) return [];
  if (locations.length === 1)
    return [
      { location: locations[0] as Point3, direction: [1, 0, 0], miter: [0, 1, 0], params: [], fills: [] },
    ];
  // The UCS of ezdxf's UCS.from_z_axis_and_point_in_xz: z the extrusion, y = z × (v1 − v0), x = y × z.
  const origin = locations[0] as Point3;
  const yRaw = cross(m.extrusion, sub(locations[1] as Point3, origin));
  const uy = normalize(yRaw);
  const uz = normalize(m.extrusion);
  const ux = normalize(cross(yRaw, m.extrusion));
  const local = locations.map((p): Point3 => {
    const d = sub(p, origin);
    return [dot(d, ux), dot(d, uy), 0];
  });
  const closed = (m.flags & 2) !== 0;
  const directions: Point3[] = [];
  for (let i = 1; i < local.length; i++)
    directions.push(normalize(sub(local[i] as Point3, local[i - 1] as Point3)));
  let miters: Point3[];
  if (closed) {
    directions.push(normalize(sub(local[0] as Point3, local[local.length - 1] as Point3)));
    miters = [miterOf(directions[0] as Point3, directions[directions.length - 1] as Point3)];
  } else {
    directions.push(directions[directions.length - 1] as Point3);
    miters = [rotateDeg(directions[0] as Point3, style.start_angle)];
  }
  for (let i = 1; i < directions.length; i++)
    miters.push(miterOf(directions[i - 1] as Point3, directions[i] as Point3));
  if (!closed) {
    miters.pop();
    miters.push(rotateDeg(directions[directions.length - 1] as Point3, style.end_angle));
  }
  const offsets = style.elements.map((el) => el.offset);
  const shift =
    m.justification === 0 ? -Math.max(...offsets) : m.justification === 2 ? -Math.min(...offsets) : 0;
  const toWorld = (p: Point3): Point3 =>
    add(origin, add(add(times(ux, p[0]), times(uy, p[1])), times(uz, p[2])));
  const toWorldDirection = (p: Point3): Point3 => add(add(times(ux, p[0]), times(uy, p[1])), times(uz, p[2]));
  return local.map((p, i) => {
    const direction = directions[i] as Point3;
    const miter = miters[i] as Point3;
    const cos = Math.min(1, Math.max(-1, dot(normalize(direction), normalize(miter))));
    const sin = Math.sin(Math.acos(cos));
    const stretch = sin === 0 ? 1 : m.scale / sin;
    return {
      location: toWorld(p),
      direction: toWorldDirection(direction),
      miter: toWorldDirection(miter),
      params: offsets.map((o) => [(o + shift) * stretch, 0]),
      fills: offsets.map(() => []),
    };
  });
}

/** The MLINE carried by `m` as ezdxf's MLine.transform does (see the file's head); `style` its MLINESTYLE. */
export function transformMline(e: RawEntity, m: Matrix, style: MlineStyle): RawEntity {
  const mline = readMline(e);
  const moved: Mline = {
    ...mline,
    vertices: mline.vertices.map((v) => ({ ...v, location: applyPoint(m, v.location) })),
    extrusion: normalize(applyVector(m, mline.extrusion)),
  };
  const s = mline.scale;
  const [x, y, z] = applyVector(m, [s, s, s]);
  // A uniform scale (the image of (s, s, s) still has equal components) scales the MLINE; no other does.
  if (isClose(x, y, 1e-6) && isClose(y, z, 1e-6)) moved.scale = (x + y + z) / 3;
  moved.vertices = generateVertices(moved, style);
  return { ...e, tags: mlineTags(e.tags, moved) };
}

/**
 * The MLINE carried by `m` by its stored geometry alone, for a move without its drawing at hand (a
 * block written out): locations mapped, directions and miters as unit directions, the offsets and
 * breaks scaled with it. The same as the regenerated one for a move.
 */
export function transformMlineAlone(e: RawEntity, m: Matrix): RawEntity {
  const mline = readMline(e);
  const [ax, ay] = [m.a, m.b];
  const k = Math.hypot(ax, ay);
  const moved: Mline = {
    ...mline,
    extrusion: normalize(applyVector(m, mline.extrusion)),
    vertices: mline.vertices.map((v) => ({
      location: applyPoint(m, v.location),
      direction: normalize(applyVector(m, v.direction)),
      miter: normalize(applyVector(m, v.miter)),
      params: v.params.map((p) => p.map((x) => x * k)),
      fills: v.fills.map((p) => p.map((x) => x * k)),
    })),
  };
  return { ...e, tags: mlineTags(e.tags, moved) };
}

const fmt = (n: number) => String(n);

/** The tags with the MLINE's start point, scale, extrusion and vertex data written from `m`. */
function mlineTags(tags: readonly DxfTag[], m: Mline): DxfTag[] {
  const [first, end] = vertexRange(tags);
  const from = mlineStart(tags);
  const head = tags.slice(0, first).map((t) => ({ ...t }));
  const setPoint = (code: number, p: Point3) => {
    const at = head.findIndex((t, i) => i >= from && t.code === code);
    if (at < 0) {
      head.push(
        { code, value: fmt(p[0]) },
        { code: code + 10, value: fmt(p[1]) },
        { code: code + 20, value: fmt(p[2]) },
      );
      return;
    }
    head[at] = { code, value: fmt(p[0]) };
    if (head[at + 1]?.code === code + 10) head[at + 1] = { code: code + 10, value: fmt(p[1]) };
    if (head[at + 2]?.code === code + 20) head[at + 2] = { code: code + 20, value: fmt(p[2]) };
  };
  const start = m.vertices[0]?.location;
  if (start) setPoint(10, start);
  setPoint(210, m.extrusion);
  const scaleAt = head.findIndex((t, i) => i >= from && t.code === 40);
  if (scaleAt >= 0) head[scaleAt] = { code: 40, value: fmt(m.scale) };
  const countAt = head.findIndex((t, i) => i >= from && t.code === 72);
  if (countAt >= 0) head[countAt] = { code: 72, value: String(m.vertices.length) };
  const data: DxfTag[] = [];
  const point = (code: number, p: Point3) =>
    data.push(
      { code, value: fmt(p[0]) },
      { code: code + 10, value: fmt(p[1]) },
      { code: code + 20, value: fmt(p[2]) },
    );
  for (const v of m.vertices) {
    point(11, v.location);
    point(12, v.direction);
    point(13, v.miter);
    v.params.forEach((params, k) => {
      data.push(
        { code: 74, value: String(params.length) },
        ...params.map((p) => ({ code: 41, value: fmt(p) })),
      );
      const fills = v.fills[k] ?? [];
      data.push(
        { code: 75, value: String(fills.length) },
        ...fills.map((p) => ({ code: 42, value: fmt(p) })),
      );
    });
  }
  return [...head, ...data, ...tags.slice(end)];
}

/** An MLINE's readout: style, scale, justification, closed, and its vertices as stored. */
export function mlineReadout(e: RawEntity): Record<string, unknown> {
  const m = readMline(e);
  return {
    style: m.style_name,
    scale: m.scale,
    justification: m.justification,
    closed: (m.flags & 2) !== 0,
    vertices: m.vertices.map((v) => ({
      location: v.location,
      direction: v.direction,
      miter: v.miter,
      params: v.params,
    })),
  };
}
