import type { DxfTag, Entity, Point3 } from '../model.js';

/** Number of the first unmodeled tag with this group code, if it parses. */
export function extraNumber(extra: readonly DxfTag[] | undefined, code: number): number | undefined {
  const tag = extra?.find((t) => t.code === code);
  if (!tag) return undefined;
  const value = Number(tag.value);
  return tag.value.trim() !== '' && Number.isFinite(value) ? value : undefined;
}

/** A point kept as unmodeled tags: x at `code`, y at `code + 10`, z at `code + 20` (0 when absent). */
export function extraPoint(extra: readonly DxfTag[] | undefined, code: number): Point3 | undefined {
  const x = extraNumber(extra, code);
  const y = extraNumber(extra, code + 10);
  if (x === undefined || y === undefined) return undefined;
  return [x, y, extraNumber(extra, code + 20) ?? 0];
}

/** The tags with `code` replaced by `value` in place, or appended when absent. Never mutates. */
export function withExtraValue(extra: readonly DxfTag[] | undefined, code: number, value: number): DxfTag[] {
  const text = String(value);
  const tags = extra ? [...extra] : [];
  const at = tags.findIndex((t) => t.code === code);
  if (at >= 0) tags[at] = { code, value: text };
  else tags.push({ code, value: text });
  return tags;
}

/** The tags with the point at `code` (x), `code + 10` (y) and, when present, `code + 20` (z) replaced. */
export function withExtraPoint(extra: readonly DxfTag[], code: number, p: Point3): DxfTag[] {
  let tags = withExtraValue(extra, code, p[0]);
  tags = withExtraValue(tags, code + 10, p[1]);
  if (tags.some((t) => t.code === code + 20)) tags = withExtraValue(tags, code + 20, p[2]);
  return tags;
}

const EXTRUSION_CODES = new Set([210, 220, 230]);

/** Types whose coordinates DXF stores in the entity's object coordinate system (OCS). */
const OCS_TYPES = new Set<Entity['type']>(['Circle', 'Arc', 'Text', 'LwPolyline', 'Insert']);

/**
 * True when an OCS entity's extrusion is (0, 0, -1) — what a mirror in many CAD programs leaves behind.
 * Its OCS x axis is then the world's −x (the DXF arbitrary-axis rule), so its stored x, angles and bulges
 * read mirrored. Other tilted extrusions (true 3D placement) are out of scope: read as if in the XY plane.
 */
export function hasFlippedExtrusion(entity: Entity): boolean {
  if (!OCS_TYPES.has(entity.type) || !entity.extra) return false;
  const z = extraNumber(entity.extra, 230);
  if (z === undefined || z >= 0) return false;
  const x = extraNumber(entity.extra, 210) ?? 0;
  const y = extraNumber(entity.extra, 220) ?? 0;
  return Math.abs(x) < 1 / 64 && Math.abs(y) < 1 / 64;
}

export function withoutExtrusion(extra: readonly DxfTag[] | undefined): DxfTag[] | undefined {
  return extra?.filter((t) => !EXTRUSION_CODES.has(t.code));
}
