/**
 * LEADER (kept as read: its tags): its vertices (10/20/30, one per point, in the world) are its geometry.
 * It is drawn as ezdxf's drawing of leaders does (`ezdxf.render.leader`): its segments, or for a spline
 * path (72 = 1) the cubic spline through its vertices with the first and last segments' directions as
 * end tangents; a hook line to its text when it has one; and its arrowhead at the first vertex, pointing
 * from the second (unless its flag 71 is 0): DIMASZ × DIMSCALE long, the block its DIMLDRBLK names when
 * the drawing has it, else AutoCAD's default closed filled arrow — from its dimension style, the leader's
 * own overrides (its ACAD DSTYLE xdata) first. A transform maps its vertices and horizontal direction
 * (211) as ezdxf's `Leader.transform` does, every other tag (its annotation's handle, offsets) kept as read.
 */
import type {
  DxfTag,
  Entity,
  InsertEntity,
  LineEntity,
  Point3,
  RawEntity,
  SolidEntity,
  SplineEntity,
} from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { standInCommon, subclassStart } from './raw-tags.js';

/** What a leader looks up in its drawing: its dimension style's values and blocks by record handle. */
interface LeaderLookup {
  dimStyleValue?(style: string, code: number, header?: string): string | undefined;
  blockName?(recordHandle: string): string | undefined;
}

/** AutoCAD's closed filled arrow: 1 long, its sides 18.924644° apart (ezdxf's DEFAULT_ARROW_ANGLE). */
const ARROW_HALF_WIDTH = Math.sin((18.924644 / 2 / 180) * Math.PI);

const num = (t: DxfTag | undefined) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : 0;
};

/** Where the leader's own codes start: after its AcDbLeader marker (all of them without one). */
function leaderStart(tags: readonly DxfTag[]): number {
  return subclassStart(tags, 'AcDbLeader');
}

/** Its vertices in file order: each opens at a 10, its 20 and 30 follow. */
function leaderVertices(e: RawEntity): Point3[] {
  const out: Point3[] = [];
  const tags = e.tags;
  for (let i = leaderStart(tags); i < tags.length; i++) {
    const t = tags[i] as DxfTag;
    if (t.code === 10) out.push([num(t), 0, 0]);
    else if (t.code === 20 && out.length > 0) (out[out.length - 1] as Point3)[1] = num(t);
    else if (t.code === 30 && out.length > 0) (out[out.length - 1] as Point3)[2] = num(t);
  }
  return out;
}

/** The value of a leader's own code (after its AcDbLeader marker). */
function own(e: RawEntity, code: number): number | undefined {
  const tags = e.tags;
  for (let i = leaderStart(tags); i < tags.length; i++)
    if ((tags[i] as DxfTag).code === code) return num(tags[i]);
  return undefined;
}

/** The dimension style values the leader overrides in its ACAD xdata (`DSTYLE {code value ...}`), by code. */
function overrides(e: RawEntity): Map<number, string> {
  const out = new Map<number, string>();
  const items = e.xdata?.ACAD ?? [];
  const at = items.findIndex((x) => x.code === 1000 && String(x.value).toUpperCase() === 'DSTYLE');
  if (at < 0) return out;
  for (let i = at + 2; i + 1 < items.length; i += 2) {
    const key = items[i];
    if (key?.code !== 1070) break;
    out.set(Number(key.value), String((items[i + 1] as { value: unknown }).value));
  }
  return out;
}

/**
 * The leader's dimension style setting: its override, its style's, else ezdxf's default for a leader
 * (`metric` when the drawing's $MEASUREMENT is 1, `imperial` otherwise).
 */
function styleNumber(
  e: RawEntity,
  lookup: LeaderLookup | undefined,
  code: number,
  imperial: number,
  metric = imperial,
): number {
  const style = e.tags.find((t) => t.code === 3)?.value ?? 'Standard';
  const value = overrides(e).get(code) ?? lookup?.dimStyleValue?.(style, code);
  const n = value === undefined ? Number.NaN : Number(value);
  if (Number.isFinite(n)) return n;
  // No style holds group -1: this asks the header alone.
  return lookup?.dimStyleValue?.(style, -1, '$MEASUREMENT')?.trim() === '1' ? metric : imperial;
}

/** The block its arrowhead is (DIMLDRBLK: a block record handle), when the drawing has one. */
function arrowBlock(e: RawEntity, lookup: LeaderLookup | undefined): string | undefined {
  const style = e.tags.find((t) => t.code === 3)?.value ?? 'Standard';
  const handle = overrides(e).get(341) ?? lookup?.dimStyleValue?.(style, 341);
  if (!handle || handle.trim() === '' || handle.trim() === '0') return undefined;
  return lookup?.blockName?.(handle.trim());
}

/**
 * What the leader draws, as modeled stand-ins with its own layer, colour, linetype and lineweight: its
 * path (Lines, or a Spline through its vertices), then its arrowhead (a filled Solid, or an Insert of
 * its arrow block).
 */
export function leaderStandIns(e: RawEntity, lookup?: LeaderLookup): Entity[] | undefined {
  const points = leaderVertices(e);
  if (points.length < 2) return undefined;
  const common = standInCommon(e);
  const dimscale = styleNumber(e, lookup, 40, 1) || 1;
  // A hook line to its text: along its horizontal direction (the other way with 74 = 1), the text's width and gap.
  const textWidth = own(e, 41) ?? 0;
  if (own(e, 73) === 0 && own(e, 75) === 1 && styleNumber(e, lookup, 77, 1) !== 0 && textWidth > 0) {
    const h = horizontal(e);
    const sign = own(e, 74) === 1 ? -1 : 1;
    const length = styleNumber(e, lookup, 147, 0.0625, 0.625) * dimscale + textWidth;
    const last = points[points.length - 1] as Point3;
    points.push([
      last[0] + sign * h[0] * length,
      last[1] + sign * h[1] * length,
      last[2] + sign * h[2] * length,
    ]);
  }
  const out: Entity[] = [];
  if (own(e, 72) === 1) {
    const [a, b] = [points[0] as Point3, points[1] as Point3];
    const [y, z] = [points[points.length - 2] as Point3, points[points.length - 1] as Point3];
    const spline: SplineEntity = {
      type: 'Spline',
      ...common,
      flags: 0,
      degree: 3,
      knots: [],
      control_points: [],
      fit_points: points,
      start_tangent: [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
      end_tangent: [z[0] - y[0], z[1] - y[1], z[2] - y[2]],
    };
    out.push(spline);
  } else {
    for (let i = 0; i + 1 < points.length; i++) {
      const start = points[i] as Point3;
      const end = points[i + 1] as Point3;
      out.push({ type: 'Line', ...common, start, end } satisfies LineEntity);
    }
  }
  if ((own(e, 71) ?? 1) !== 0) out.push(arrowhead(e, lookup, points, dimscale, common));
  return out;
}

/** Its horizontal direction (211), (1, 0, 0) when it has none. */
function horizontal(e: RawEntity): Point3 {
  const tags = e.tags;
  const at = tags.findIndex((t, i) => i >= leaderStart(tags) && t.code === 211);
  if (at < 0) return [1, 0, 0];
  return [
    num(tags[at]),
    tags[at + 1]?.code === 221 ? num(tags[at + 1]) : 0,
    tags[at + 2]?.code === 231 ? num(tags[at + 2]) : 0,
  ];
}

/** The arrowhead at the first vertex, pointing away from the second. */
function arrowhead(
  e: RawEntity,
  lookup: LeaderLookup | undefined,
  points: readonly Point3[],
  dimscale: number,
  common: Pick<Entity, 'handle' | 'space' | 'layer' | 'color' | 'linetype' | 'lineweight'>,
): Entity {
  const [tip, next] = [points[0] as Point3, points[1] as Point3];
  const size = styleNumber(e, lookup, 41, 0.1875, 2.5) * dimscale;
  const angle = Math.atan2(tip[1] - next[1], tip[0] - next[0]);
  const block = arrowBlock(e, lookup);
  if (block) {
    const insert: InsertEntity = {
      type: 'Insert',
      ...common,
      name: block,
      position: [...tip],
      scale: [size, size, size],
      rotation: (angle * 180) / Math.PI,
    };
    return insert;
  }
  // Closed filled: the tip, and the two corners a size back along the leader.
  const [c, s] = [Math.cos(angle), Math.sin(angle)];
  const at = (x: number, y: number): Point3 => [tip[0] + x * c - y * s, tip[1] + x * s + y * c, tip[2]];
  const h = ARROW_HALF_WIDTH * size;
  const solid: SolidEntity = {
    type: 'Solid',
    ...common,
    corners: [at(-size, h), at(0, 0), at(-size, -h), at(-size, -h)],
  };
  return solid;
}

/** The LEADER's vertices and horizontal direction carried by `m`. */
export function transformLeader(e: RawEntity, m: Matrix): RawEntity {
  const tags = [...e.tags];
  const set = (i: number, v: number) => {
    tags[i] = { code: (tags[i] as DxfTag).code, value: String(v) };
  };
  const from = leaderStart(tags);
  for (let i = from; i < tags.length; i++) {
    const code = (tags[i] as DxfTag).code;
    if (code !== 10 && code !== 211) continue;
    const yAt = tags[i + 1]?.code === code + 10 ? i + 1 : -1;
    const zAt = yAt >= 0 && tags[i + 2]?.code === code + 20 ? i + 2 : -1;
    const p = [num(tags[i]), yAt < 0 ? 0 : num(tags[yAt]), zAt < 0 ? 0 : num(tags[zAt])];
    const q = code === 10 ? applyPoint(m, p) : applyVector(m, p);
    set(i, q[0]);
    if (yAt >= 0) set(yAt, q[1]);
    if (zAt >= 0) set(zAt, q[2]);
  }
  // Without a horizontal direction it is (1, 0, 0) (ezdxf's default): written once it turns.
  if (!tags.some((t, i) => i >= from && t.code === 211)) {
    const [x, y, z] = applyVector(m, [1, 0, 0]);
    if (x !== 1 || y !== 0 || z !== 0)
      tags.push(
        { code: 211, value: String(x) },
        { code: 221, value: String(y) },
        { code: 231, value: String(z) },
      );
  }
  return { ...e, tags };
}

/** A LEADER's readout: its vertices as stored. */
export const leaderReadout = (e: RawEntity): Record<string, unknown> => ({ vertices: leaderVertices(e) });
