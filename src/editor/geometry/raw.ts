/**
 * Bounds of entities the engine keeps as raw tags, read from their point group codes: x at 10-18, y at
 * 20-28, z at 30-38. Types whose codes in that range hold vectors or placeholders are handled by name;
 * infinite ones (XLINE, RAY) and ones without points (3DSOLID, REGION...) have no bounds.
 */
import { dictGet } from '../dict.js';
import type { DxfTag, Point3, RawEntity } from '../model.js';
import type { Bounds } from './types.js';

/** Codes that hold direction vectors, not points, by DXF type. */
const VECTOR_CODES: Record<string, readonly number[]> = {
  SPLINE: [12, 13],
  MLINE: [12, 13],
  HELIX: [12],
  TOLERANCE: [11],
  ACAD_TABLE: [11],
  MTEXT: [11],
  ELLIPSE: [11],
};
/** Types whose first point is a placeholder (HATCH's elevation point, POLYLINE's dummy 0,0,elevation). */
const PLACEHOLDER_FIRST = new Set(['HATCH', 'POLYLINE', 'MPOLYGON']);
/** Types stored in their object coordinate system, read in the world when the extrusion is (0, 0, −1). */
const OCS_TYPES = new Set(['HATCH', 'SOLID', 'TRACE', 'SHAPE', 'POLYLINE', 'MPOLYGON']);
const UNBOUNDED = new Set(['XLINE', 'RAY']);

const num = (tag: DxfTag | undefined): number | undefined => {
  if (!tag || tag.value.trim() === '') return undefined;
  const value = Number(tag.value);
  return Number.isFinite(value) ? value : undefined;
};

function first(tags: readonly DxfTag[], code: number): number | undefined {
  return num(tags.find((t) => t.code === code));
}

/** Points in tag order: an x code opens a point, the matching y and z codes fill it. */
function pointTags(tags: readonly DxfTag[], skip: readonly number[]): Point3[] {
  const points: Point3[] = [];
  const open = new Map<number, Point3>();
  for (const tag of tags) {
    const { code } = tag;
    if (code >= 10 && code <= 18) {
      if (skip.includes(code)) continue;
      const x = num(tag);
      if (x === undefined) continue;
      const p: Point3 = [x, Number.NaN, 0];
      points.push(p);
      open.set(code, p);
    } else if (code >= 20 && code <= 28) {
      const p = open.get(code - 10);
      const y = num(tag);
      if (p && y !== undefined && Number.isNaN(p[1])) p[1] = y;
    } else if (code >= 30 && code <= 38) {
      const p = open.get(code - 20);
      const z = num(tag);
      if (p && z !== undefined) p[2] = z;
      open.delete(code - 20);
    }
  }
  return points.filter((p) => Number.isFinite(p[1]));
}

export function boundsOfPoints(points: readonly Point3[]): Bounds | undefined {
  if (points.length === 0) return undefined;
  const min: Point3 = [Infinity, Infinity, Infinity];
  const max: Point3 = [-Infinity, -Infinity, -Infinity];
  for (const p of points) {
    for (let i = 0; i < 3; i++) {
      const v = p[i] as number;
      if (v < (min[i] as number)) min[i] = v;
      if (v > (max[i] as number)) max[i] = v;
    }
  }
  return { min, max };
}

function ellipseBounds(tags: readonly DxfTag[]): Bounds | undefined {
  const cx = first(tags, 10);
  const cy = first(tags, 20);
  const ax = first(tags, 11);
  const ay = first(tags, 21);
  if (cx === undefined || cy === undefined || ax === undefined || ay === undefined) return undefined;
  const cz = first(tags, 30) ?? 0;
  const ratio = first(tags, 40) ?? 1;
  // Whole-ellipse extents: half-widths are the lengths of (major.x, minor.x) and (major.y, minor.y).
  const bx = -ay * ratio;
  const by = ax * ratio;
  const hx = Math.sqrt(ax * ax + bx * bx);
  const hy = Math.sqrt(ay * ay + by * by);
  return { min: [cx - hx, cy - hy, cz], max: [cx + hx, cy + hy, cz] };
}

function viewportBounds(tags: readonly DxfTag[]): Bounds | undefined {
  const cx = first(tags, 10);
  const cy = first(tags, 20);
  if (cx === undefined || cy === undefined) return undefined;
  const w = (first(tags, 40) ?? 0) / 2;
  const h = (first(tags, 41) ?? 0) / 2;
  const z = first(tags, 30) ?? 0;
  return { min: [cx - w, cy - h, z], max: [cx + w, cy + h, z] };
}

export function rawBounds(e: RawEntity): Bounds | undefined {
  const type = e.dxf_type.toUpperCase();
  if (UNBOUNDED.has(type)) return undefined;
  if (type === 'ELLIPSE') return ellipseBounds(e.tags);
  if (type === 'VIEWPORT') return viewportBounds(e.tags);
  let points = pointTags(e.tags, dictGet(VECTOR_CODES, type) ?? []);
  if (PLACEHOLDER_FIRST.has(type)) points = points.slice(1);
  if (OCS_TYPES.has(type) && (first(e.tags, 230) ?? 1) < 0) {
    points = points.map((p): Point3 => [-p[0], p[1], -p[2]]);
  }
  return boundsOfPoints(points);
}
