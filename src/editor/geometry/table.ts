/**
 * ACAD_TABLE (kept as read: its tags) as its block: a table is a block reference (AcDbBlockReference:
 * its `*T` block 2, insertion point 10) whose block holds the table's lines and cell texts, laid out
 * from the insertion point along its horizontal direction (AcDbTable 11). It is drawn, bounded and
 * queried as an Insert of that block there, turned to that direction.
 *
 * ezdxf 0.18 keeps a table as tags too (`AcadTableBlockContent`) and has no transform for it. A transform
 * here maps the insertion point by the matrix and the direction as a unit direction; what a rotation
 * cannot say — a scale, a mirror — the op applies to the block's contents, in the block's own frame
 * (`tableContentMatrix`), as a DIMENSION's block goes with it, so the table is drawn where the transform
 * puts it.
 */
import type { DxfTag, InsertEntity, Point3, RawEntity } from '../model.js';
import { applyPoint, applyVector, compose, IDENTITY, type Matrix, translation } from './matrix.js';
import { normalize } from './ocs.js';
import {
  firstAt,
  firstPoint,
  pointTags,
  standInCommon,
  subclassEnd,
  subclassStart,
  TagEditor,
  tagNumber,
} from './raw-tags.js';

export const isTableType = (dxfType: string) => dxfType.toUpperCase() === 'ACAD_TABLE';

function ranges(tags: readonly DxfTag[]): { ref: [number, number]; table: [number, number] } {
  const refFrom = subclassStart(tags, 'AcDbBlockReference');
  const tableAt = tags.findIndex((t) => t.code === 100 && t.value === 'AcDbTable');
  const tableFrom = tableAt < 0 ? tags.length : tableAt + 1;
  return { ref: [refFrom, subclassEnd(tags, refFrom)], table: [tableFrom, subclassEnd(tags, tableFrom)] };
}

interface TableFields {
  block: string | undefined;
  insert: Point3;
  direction: Point3;
}

function fieldsOf(e: RawEntity): TableFields {
  const tags = e.tags;
  const { ref, table } = ranges(tags);
  const nameAt = firstAt(tags, 2, ...ref);
  const name = nameAt < 0 ? '' : (tags[nameAt] as DxfTag).value.trim();
  return {
    block: name === '' ? undefined : name,
    insert: firstPoint(tags, 10, ...ref) ?? [0, 0, 0],
    direction: firstPoint(tags, 11, ...table) ?? [1, 0, 0],
  };
}

/** The name of the table's block, if it names one. */
export const tableBlock = (e: RawEntity) => fieldsOf(e).block;

const degrees = (v: Point3) => (Math.atan2(v[1], v[0]) * 180) / Math.PI;

/** What draws it: an Insert of its block at its insertion point, along its direction, its own style. */
export function tableStandIn(e: RawEntity): InsertEntity | undefined {
  const f = fieldsOf(e);
  if (!f.block) return undefined;
  return {
    type: 'Insert',
    ...standInCommon(e),
    name: f.block,
    position: f.insert,
    scale: [1, 1, 1],
    rotation: degrees(f.direction),
  };
}

/** The table's tags with its insertion point and direction carried by `m`. */
export function transformTable(e: RawEntity, m: Matrix): RawEntity {
  const f = fieldsOf(e);
  const ed = new TagEditor(e.tags);
  const tags = ed.tags;
  const { ref, table } = ranges(tags);
  const insertAt = firstAt(tags, 10, ...ref);
  if (insertAt >= 0) ed.setPoint(insertAt, applyPoint(m, f.insert));
  const direction = normalize(applyVector(m, f.direction));
  const directionAt = firstAt(tags, 11, ...table);
  if (directionAt >= 0) ed.setPoint(directionAt, direction);
  else if (table[0] < tags.length && (direction[0] !== 1 || direction[1] !== 0 || direction[2] !== 0))
    tags.splice(table[1], 0, ...pointTags(11, direction));
  return { ...e, tags };
}

/**
 * What `m` does to the table's block contents, in the block's frame about its base point: nothing for a
 * move or a rotation (undefined), a uniform scale, and for a mirror a reflection across the block's x axis
 * (the rows run the other way), so that the Insert turned to the new direction draws what `m` made.
 */
export function tableContentMatrix(m: Matrix, base: Point3): Matrix | undefined {
  const s = Math.hypot(m.a, m.b);
  const reflect = m.a * m.d - m.b * m.c < 0;
  const k: Matrix = { ...IDENTITY, a: s, d: reflect ? -s : s, sz: m.sz };
  if (k.a === 1 && k.d === 1 && k.sz === 1) return undefined;
  return compose(compose(translation([-base[0], -base[1], -base[2]]), k), translation(base));
}

/** The table's tags naming block `name` (2) and its block record `record` (AcDbTable 343). */
export function renamedTable(e: RawEntity, name: string, record: string): RawEntity {
  const { ref, table } = ranges(e.tags);
  const tags = e.tags.map((t, i) => {
    if (t.code === 2 && i >= ref[0] && i < ref[1]) return { code: 2, value: name };
    if (t.code === 343 && i >= table[0] && i < table[1]) return { code: 343, value: record };
    return t;
  });
  return { ...e, tags };
}

/** A table's readout: its block, insertion point, direction, rows and columns as stored. */
export function tableReadout(e: RawEntity): Record<string, unknown> {
  const f = fieldsOf(e);
  const { table } = ranges(e.tags);
  const count = (code: number) => tagNumber(e.tags[firstAt(e.tags, code, ...table)]) ?? null;
  return {
    block: f.block ?? null,
    position: f.insert,
    direction: f.direction,
    rows: count(91),
    columns: count(92),
  };
}
