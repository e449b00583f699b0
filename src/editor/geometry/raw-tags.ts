/**
 * Reading and rewriting the tags of an entity kept as read: a subclass's codes, a point stored as x, y
 * and z codes (c, c + 10, c + 20), numbers written back in full precision; and the closed outline a raw
 * kind draws as. Shared by the raw kinds that transform their own tags (MULTILEADER, TOLERANCE, SHAPE,
 * ACAD_TABLE, VIEWPORT's frame).
 */
import type { DxfTag, LwPolylineEntity, Point3, RawEntity } from '../model.js';

/** A tag's number; undefined when it is not one. */
export function tagNumber(t: DxfTag | undefined): number | undefined {
  if (!t || t.value.trim() === '') return undefined;
  const n = Number(t.value);
  return Number.isFinite(n) ? n : undefined;
}

/** Where a subclass's own codes start: after its marker (all of the tags without one, as R12's). */
export function subclassStart(tags: readonly DxfTag[], marker: string): number {
  const at = tags.findIndex((t) => t.code === 100 && t.value === marker);
  return at < 0 ? 0 : at + 1;
}

/** Where a subclass's codes end: at the next marker, or the end of the tags. */
export function subclassEnd(tags: readonly DxfTag[], from: number): number {
  const at = tags.findIndex((t, i) => i >= from && t.code === 100);
  return at < 0 ? tags.length : at;
}

/** The first tag of `code` in tags[from, to). */
export function firstAt(tags: readonly DxfTag[], code: number, from = 0, to = tags.length): number {
  for (let i = from; i < to; i++) if (tags[i]?.code === code) return i;
  return -1;
}

/** The tag indices of a point whose x is at `i`: its y and z when they follow it (−1 when absent). */
export function pointIndices(tags: readonly DxfTag[], i: number): [number, number, number] {
  const code = (tags[i] as DxfTag).code;
  const y = tags[i + 1]?.code === code + 10 ? i + 1 : -1;
  const z = y >= 0 && tags[i + 2]?.code === code + 20 ? i + 2 : -1;
  return [i, y, z];
}

/** The point whose x is at `i` (a missing y or z is 0). */
export function pointAt(tags: readonly DxfTag[], i: number): Point3 {
  const [, y, z] = pointIndices(tags, i);
  return [
    tagNumber(tags[i]) ?? 0,
    y < 0 ? 0 : (tagNumber(tags[y]) ?? 0),
    z < 0 ? 0 : (tagNumber(tags[z]) ?? 0),
  ];
}

/** The first point of `code` in tags[from, to), if there is one. */
export function firstPoint(
  tags: readonly DxfTag[],
  code: number,
  from = 0,
  to = tags.length,
): Point3 | undefined {
  const at = firstAt(tags, code, from, to);
  return at < 0 ? undefined : pointAt(tags, at);
}

/** A copy of tags being rewritten: numbers and points set in place, in full precision. */
export class TagEditor {
  readonly tags: DxfTag[];

  constructor(tags: readonly DxfTag[]) {
    this.tags = [...tags];
  }

  setNumber(i: number, value: number): void {
    this.tags[i] = { code: (this.tags[i] as DxfTag).code, value: String(value) };
  }

  /** The point at `i` set to `p` (its y and z where the tags hold them). */
  setPoint(i: number, p: Point3): void {
    const [, y, z] = pointIndices(this.tags, i);
    this.setNumber(i, p[0]);
    if (y >= 0) this.setNumber(y, p[1]);
    if (z >= 0) this.setNumber(z, p[2]);
  }
}

/** A point's tags, x y z, as a writer would give them. */
export const pointTags = (code: number, p: Point3): DxfTag[] => [
  { code, value: String(p[0]) },
  { code: code + 10, value: String(p[1]) },
  { code: code + 20, value: String(p[2]) },
];

/**
 * What a stand-in takes from the raw entity it draws for: its handle (a pick or a query of the stand-in
 * answers the raw entity), its space, its layer and its style.
 */
export function standInCommon(
  e: RawEntity,
): Pick<RawEntity, 'handle' | 'space' | 'layer' | 'color' | 'linetype' | 'lineweight'> {
  const { handle, space, layer, color, linetype, lineweight } = e;
  return { handle, space, layer, color, linetype, lineweight };
}

/** A closed outline through world corners, with the raw entity's layer, colour and style, at the first's height. */
export function outlineOf(e: RawEntity, corners: readonly Point3[]): LwPolylineEntity {
  return {
    type: 'LwPolyline',
    ...standInCommon(e),
    closed: true,
    elevation: corners[0]?.[2] ?? 0,
    vertices: corners.map((p) => ({ x: p[0], y: p[1], bulge: 0 })),
  };
}
