/**
 * MESH (AcDbSubDMesh, kept as read: its tags): a list of world vertices (92 count, then 10/20/30 each)
 * and of faces (93 size, then 90s: a face's vertex count followed by its vertex indices). Drawn, bounded
 * and queried as the edges of its faces (each edge once), as its level-0 cage; the subdivision level
 * (91) is not applied. Moved as ezdxf's `Mesh.transform(Matrix44)` does: every vertex by the matrix
 * (a MESH has no OCS).
 */
import type { DxfTag, LineEntity, Point3, RawEntity } from '../model.js';
import { applyPoint, type Matrix } from './matrix.js';
import { standInCommon, subclassStart } from './raw-tags.js';

const num = (t: DxfTag | undefined) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** Where the mesh's own group codes start: after its AcDbSubDMesh marker (all of them without one). */
function meshStart(tags: readonly DxfTag[]): number {
  return subclassStart(tags, 'AcDbSubDMesh');
}

/** The index of each vertex's 10 tag, in order (the 92 count's vertices, x, y, z as 10, 20, 30). */
function vertexTags(tags: readonly DxfTag[]): number[] {
  const from = meshStart(tags);
  const countAt = tags.findIndex((t, i) => i >= from && t.code === 92);
  if (countAt < 0) return [];
  const count = num(tags[countAt]) ?? 0;
  const out: number[] = [];
  for (let i = countAt + 1; i < tags.length && out.length < count; i++)
    if ((tags[i] as DxfTag).code === 10) out.push(i);
  return out;
}

function pointAt(tags: readonly DxfTag[], i: number): Point3 {
  const y = tags[i + 1]?.code === 20 ? num(tags[i + 1]) : undefined;
  const z = tags[i + 2]?.code === 30 ? num(tags[i + 2]) : undefined;
  return [num(tags[i]) ?? 0, y ?? 0, z ?? 0];
}

/** The mesh's vertices, in the world. */
export function meshVertices(e: RawEntity): Point3[] {
  return vertexTags(e.tags).map((i) => pointAt(e.tags, i));
}

/** The mesh's faces, as vertex indices (those naming no vertex left out). */
function meshFaces(e: RawEntity, vertices: number): number[][] {
  const tags = e.tags;
  const from = meshStart(tags);
  const sizeAt = tags.findIndex((t, i) => i >= from && t.code === 93);
  if (sizeAt < 0) return [];
  const size = num(tags[sizeAt]) ?? 0;
  const list: number[] = [];
  for (let i = sizeAt + 1; i < tags.length && list.length < size && tags[i]?.code === 90; i++)
    list.push(num(tags[i]) ?? 0);
  const faces: number[][] = [];
  for (let at = 0; at < list.length; ) {
    const n = list[at] as number;
    const face = list.slice(at + 1, at + 1 + n).filter((v) => Number.isInteger(v) && v >= 0 && v < vertices);
    if (face.length > 0) faces.push(face);
    at += n + 1;
  }
  return faces;
}

/** The Lines a MESH draws: every edge of its faces once, with the entity's own layer, colour and style. */
export function meshEdges(e: RawEntity): LineEntity[] {
  const vertices = meshVertices(e);
  const seen = new Set<string>();
  const common = standInCommon(e);
  const out: LineEntity[] = [];
  for (const face of meshFaces(e, vertices.length))
    face.forEach((a, i) => {
      const b = face[(i + 1) % face.length] as number;
      if (a === b) return;
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      if (seen.has(key)) return;
      seen.add(key);
      const start = vertices[a] as Point3;
      const end = vertices[b] as Point3;
      out.push({ type: 'Line', ...common, start, end });
    });
  return out;
}

/** The MESH with every vertex carried by `m`, tags written back. */
export function transformMesh(e: RawEntity, m: Matrix): RawEntity {
  const tags = [...e.tags];
  for (const i of vertexTags(tags)) {
    const p = applyPoint(m, pointAt(tags, i));
    tags[i] = { code: 10, value: String(p[0]) };
    if (tags[i + 1]?.code === 20) tags[i + 1] = { code: 20, value: String(p[1]) };
    if (tags[i + 2]?.code === 30) tags[i + 2] = { code: 30, value: String(p[2]) };
  }
  return { ...e, tags };
}
