/**
 * LEADER (kept as read: its tags): its vertices (10/20/30, one per point, in the world) are its geometry,
 * drawn and bounded as their segments; a transform maps them and its horizontal direction (211) as
 * ezdxf's `Leader.transform` does, every other tag (its annotation's handle, offsets) kept as read.
 */
import type { DxfTag, LineEntity, Point3, RawEntity } from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';

const num = (t: DxfTag | undefined) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : 0;
};

/** Where the leader's own codes start: after its AcDbLeader marker (all of them without one). */
function leaderStart(tags: readonly DxfTag[]): number {
  const at = tags.findIndex((t) => t.code === 100 && t.value === 'AcDbLeader');
  return at < 0 ? 0 : at + 1;
}

/** Its vertices in file order: each opens at a 10, its 20 and 30 follow. */
export function leaderVertices(e: RawEntity): Point3[] {
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

/** Its segments as Lines with the leader's own layer, colour, linetype and lineweight. */
export function leaderStandIns(e: RawEntity): LineEntity[] | undefined {
  const points = leaderVertices(e);
  if (points.length < 2) return undefined;
  const { handle, space, layer, color, linetype, lineweight } = e;
  const out: LineEntity[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const start = points[i] as Point3;
    const end = points[i + 1] as Point3;
    out.push({ type: 'Line', handle, space, layer, color, linetype, lineweight, start, end });
  }
  return out;
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
