import { MAX_ENTITY_TAGS } from '../capabilities.js';
import { dictGet } from '../dict.js';
import type { DxfTag, Entity, EntityCommon, ModeledType, Point3, RawEntity } from '../model.js';
import {
  ENTITY_DEFS,
  type EntityDef,
  entityDef,
  type FieldDef,
  type Scratch,
  subclassNames,
} from './entity-defs.js';
import { ENTITY_CODES, MODELED_DXF_TYPES } from './entity-types.js';
import { DxfError } from './errors.js';
import { upgradeEntityTags } from './r12.js';
import type { ReadContext } from './read-context.js';
import type { TagList } from './tags.js';
import { toInt } from './values.js';
import { readXdata } from './xdata.js';

/** Index of the next `0` tag after `start` (the end of one entity's own tags). */
export function nextEntityStart(t: TagList, start: number, end: number): number {
  const codes = t.codes;
  let i = start + 1;
  while (i < end && codes[i] !== 0) i++;
  return i;
}

/**
 * Where an entity that starts at `start` ends, its sub-entities included: a POLYLINE's VERTEX...SEQEND,
 * an INSERT's ATTRIB...SEQEND.
 */
export function entityEnd(t: TagList, start: number, end: number): number {
  let i = nextEntityStart(t, start, end);
  const polyline = t.is(start, 'POLYLINE');
  if (!polyline && !t.is(start, 'INSERT')) return i;
  const child = polyline ? 'VERTEX' : 'ATTRIB';
  if (i >= end || !t.is(i, child)) return i;
  while (i < end && t.is(i, child)) i = nextEntityStart(t, i, end);
  if (i < end && t.is(i, 'SEQEND')) i = nextEntityStart(t, i, end);
  return i;
}

function slice(t: TagList, start: number, end: number): DxfTag[] {
  if (end - start > MAX_ENTITY_TAGS)
    throw new DxfError(
      'dxf_too_large',
      `the ${t.value(start - 1).trim()} entity at line ${2 * start} holds ${(end - start).toLocaleString('en-US')} group codes, more than the ${MAX_ENTITY_TAGS.toLocaleString('en-US')} one entity may hold`,
    );
  const out: DxfTag[] = new Array(end - start);
  for (let i = start; i < end; i++) out[i - start] = { code: t.codes[i] as number, value: t.value(i) };
  return out;
}

/** A table entry with its fields indexed by group code, for the reader's inner loop. */
interface Reading {
  def: EntityDef<Entity>;
  byCode: (FieldDef<Entity> | undefined)[];
  /** Codes that a file without subclass markers keeps under the second subclass. */
  second: ReadonlySet<number>;
}

const READINGS = new Map<ModeledType, Reading>();
for (const type of Object.keys(ENTITY_DEFS) as ModeledType[]) {
  const def = entityDef(type);
  const byCode: (FieldDef<Entity> | undefined)[] = [];
  for (const sub of def.subclasses) {
    for (const field of sub.fields) {
      for (const code of field.codes) {
        while (byCode.length <= code) byCode.push(undefined);
        byCode[code] = field;
      }
    }
  }
  READINGS.set(type, { def, byCode, second: new Set(def.subclasses[1]?.flat) });
}

/** Reads the entity whose `0 TYPE` tag is at `start` and whose tags (sub-entities included) end at `end`. */
export function readEntity(t: TagList, start: number, end: number, space: string, ctx: ReadContext): Entity {
  const dxfType = t.value(start).trim().toUpperCase();
  const modeled = dictGet(MODELED_DXF_TYPES, dxfType);
  return modeled
    ? readModeled(t, start, end, READINGS.get(modeled) as Reading, space, ctx)
    : readRaw(t, start, end, dxfType, space, ctx);
}

/** The common fields of a blank entity, at the defaults its tags then overwrite (one order: one shape). */
const blankCommon = (space: string): EntityCommon => ({
  handle: '',
  space,
  layer: '0',
  color: 256,
  linetype: 'BYLAYER',
  lineweight: -1,
});

/** A SOLID's, TRACE's or 3DFACE's corners before its tags: the fourth NaN until read, so a missing one shows. */
const blankCorners = (): [Point3, Point3, Point3, Point3] => [
  [0, 0, 0],
  [0, 0, 0],
  [0, 0, 0],
  [Number.NaN, Number.NaN, Number.NaN],
];

/** A blank entity of `type`: the common fields, then its own at their defaults. */
function newEntity(type: ModeledType, space: string): Entity {
  const common = blankCommon(space);
  switch (type) {
    case 'Line':
      return { type, ...common, start: [0, 0, 0], end: [0, 0, 0] };
    case 'Circle':
      return { type, ...common, center: [0, 0, 0], radius: 0 };
    case 'Arc':
      return { type, ...common, center: [0, 0, 0], radius: 0, start_angle: 0, end_angle: 360 };
    case 'Ellipse':
      return {
        type,
        ...common,
        center: [0, 0, 0],
        major_axis: [1, 0, 0],
        ratio: 1,
        start_param: 0,
        end_param: 2 * Math.PI,
      };
    case 'Text':
      return { type, ...common, value: '', position: [0, 0, 0], height: 1, rotation: 0, style: 'Standard' };
    case 'MText':
      return {
        type,
        ...common,
        value: '',
        position: [0, 0, 0],
        height: 1,
        width: 0,
        rotation: 0,
        style: 'Standard',
        attachment: 1,
      };
    case 'Point':
      return { type, ...common, location: [0, 0, 0] };
    case 'LwPolyline':
      return { type, ...common, vertices: [], closed: false, elevation: 0 };
    case 'Insert':
      return { type, ...common, name: '', position: [0, 0, 0], scale: [1, 1, 1], rotation: 0 };
    case 'Image':
      return {
        type,
        ...common,
        position: [0, 0, 0],
        u_vector: [1, 0, 0],
        v_vector: [0, 1, 0],
        size: [0, 0],
        image_def: '0',
      };
    case 'Solid':
    case 'Trace':
      return { type, ...common, corners: blankCorners() };
    case 'Face3d':
      return { type, ...common, corners: blankCorners(), invisible_edges: 0 };
    case 'Spline':
      return { type, ...common, flags: 0, degree: 3, knots: [], control_points: [], fit_points: [] };
    case 'Polyline':
      return { type, ...common, flags: 0, vertex_tags: [] };
    case 'XLine':
    case 'Ray':
      return { type, ...common, start: [0, 0, 0], direction: [1, 0, 0] };
  }
}

/** Layer, colour, linetype, lineweight; the paper-space flag is derived from `space` on save. */
function readCommon(e: EntityCommon, code: number, t: TagList, i: number, ctx: ReadContext): boolean {
  if (code === 8) e.layer = ctx.decode(t.value(i));
  else if (code === 62) e.color = t.int(i);
  else if (code === 6) e.linetype = ctx.decode(t.value(i));
  else if (code === 370) e.lineweight = t.int(i);
  else return code === 67;
  return true;
}

/** readCommon for a tag already taken out of the file (raw entities). */
function readCommonTag(e: EntityCommon, code: number, value: string, ctx: ReadContext): void {
  if (code === 8) e.layer = ctx.decode(value);
  else if (code === 62) e.color = toInt(value);
  else if (code === 6) e.linetype = ctx.decode(value);
  else if (code === 370) e.lineweight = toInt(value);
}

/**
 * Graphic attributes (AcDbEntity's codes) that files put after the type's own subclass marker: dxflib, as
 * LibreCAD writes, puts `8`, `62`, `370`, `6` after `100 AcDbLine` or `100 AcDbMText`. Found there, not
 * claimed by the type and not given before, they are the entity's own, as ezdxf's loader takes them
 * (its GRAPHIC_ATTRIBUTES_TO_RECOVER).
 */
const MISPLACED_COMMON = new Set([6, 8, 48, 60, 62, 67, 284, 347, 348, 370, 380, 390, 420, 430, 440]);

/** Codes of a type's subclass that mean something of the type there (MTEXT's column width is 48). */
const TYPE_OWN_CODES: Partial<Record<ModeledType, ReadonlySet<number>>> = { MText: new Set([48]) };

/** Zones of an entity's tags: before any subclass marker, AcDbEntity, the type's subclasses, after an embedded object (101). */
const HEAD = 0;
const COMMON = 1;
const TYPE = 2;
const EMBEDDED = 3;

function readModeled(
  t: TagList,
  start: number,
  end: number,
  reading: Reading,
  space: string,
  ctx: ReadContext,
): Entity {
  const { def, byCode, second } = reading;
  const e = newEntity(def.type, space);
  const mainEnd = nextEntityStart(t, start, end);
  const codes = t.codes;
  const s: Scratch = { mtextChunks: [], mtextLast: undefined, direction: undefined, vertex: undefined };
  // Unmodeled tags in file order with their subclass markers; files without markers fill the flat lists.
  const extra: DxfTag[] = [];
  const flatCommon: DxfTag[] = [];
  const flatType: DxfTag[] = [];
  const flatSecond: DxfTag[] = [];
  let zone = HEAD;
  let ownerSeen = false;
  let rawHandle: string | undefined;
  let xdataStart = mainEnd;
  // Common codes given where they belong, and the misplaced ones found later (moved into AcDbEntity).
  const commonSeen = new Set<number>();
  const moved: DxfTag[] = [];
  const own = TYPE_OWN_CODES[def.type];
  for (let i = start + 1; i < mainEnd; i++) {
    const code = codes[i] as number;
    if (code >= 1000) {
      xdataStart = i;
      break;
    }
    if (code === 102) {
      const to = groupEnd(t, i, mainEnd);
      for (let k = i; k <= to; k++) extra.push({ code: codes[k] as number, value: t.value(k) });
      i = to;
      continue;
    }
    if (zone === HEAD) {
      if (code === 5) {
        rawHandle = t.value(i);
        continue;
      }
      if (code === 330 && !ownerSeen) {
        ownerSeen = true;
        continue;
      }
    }
    if (code === 100) {
      const marker = t.value(i);
      extra.push({ code, value: marker });
      zone = marker === 'AcDbEntity' ? COMMON : TYPE;
      continue;
    }
    if (zone === EMBEDDED) {
      extra.push({ code, value: t.value(i) });
    } else if (zone === COMMON || (zone === HEAD && ENTITY_CODES.has(code))) {
      commonSeen.add(code);
      if (!readCommon(e, code, t, i, ctx))
        (zone === HEAD ? flatCommon : extra).push({ code, value: t.value(i) });
    } else if (zone === TYPE && code === 101) {
      zone = EMBEDDED;
      extra.push({ code, value: t.value(i) });
    } else if (!byCode[code]?.read(e, code, t, i, ctx, s)) {
      const tag = { code, value: t.value(i) };
      if (zone === TYPE && MISPLACED_COMMON.has(code) && !own?.has(code)) {
        // A second one is dropped: the first given stands, and the writer puts each one out once.
        if (!commonSeen.has(code) && !readCommon(e, code, t, i, ctx)) moved.push(tag);
        commonSeen.add(code);
      } else if (zone === TYPE) extra.push(tag);
      else if (second.has(code)) flatSecond.push(tag);
      else flatType.push(tag);
    }
  }
  def.finish?.(e, s, ctx);
  if (moved.length > 0) insertIntoEntitySubclass(extra, moved);
  if (flatCommon.length > 0 || flatType.length > 0 || flatSecond.length > 0) {
    const minsert = flatType.some((x) => (x.code === 70 || x.code === 71) && toInt(x.value) > 1);
    const [first, next] = subclassNames(def, minsert, e);
    extra.push(
      { code: 100, value: 'AcDbEntity' },
      ...flatCommon,
      { code: 100, value: first as string },
      ...flatType,
    );
    if (flatSecond.length > 0 && next) extra.push({ code: 100, value: next }, ...flatSecond);
  }
  if (extra.some((x) => x.code !== 100)) e.extra = extra;
  if (xdataStart < mainEnd) e.xdata = readXdata(t, xdataStart, mainEnd, ctx.decode);
  e.handle = ctx.claim(rawHandle, (h) => {
    e.handle = h;
  });
  if (e.type === 'Insert' && mainEnd < end) e.attribs = readSubEntities(t, mainEnd, end, ctx);
  if (e.type === 'Polyline' && mainEnd < end) e.vertex_tags = readSubEntities(t, mainEnd, end, ctx);
  return e;
}

/** Puts tags at the end of the AcDbEntity subclass of an entity's kept tags (adding the marker if none). */
function insertIntoEntitySubclass(tags: DxfTag[], moved: readonly DxfTag[]): void {
  const marker = tags.findIndex((x) => x.code === 100 && x.value === 'AcDbEntity');
  if (marker < 0) {
    const first = tags.findIndex((x) => x.code === 100);
    tags.splice(first < 0 ? tags.length : first, 0, { code: 100, value: 'AcDbEntity' }, ...moved);
    return;
  }
  let end = marker + 1;
  while (end < tags.length && (tags[end] as DxfTag).code !== 100) end++;
  tags.splice(end, 0, ...moved);
}

/** What dxflib writes after a raw type's marker (its entityAttributes), moved into AcDbEntity on read. */
const RAW_MISPLACED = new Set([6, 8, 48, 62, 370, 420]);
/** Raw types whose own subclasses hold colour codes (a table's cells, a multileader's parts). */
const RAW_OWN_COLOURS = new Set(['ACAD_TABLE', 'MULTILEADER', 'MLEADER']);

/**
 * Moves the graphic attributes a raw entity holds after its type's marker (and not before it) to the
 * end of its AcDbEntity subclass, where they are read and written once; one given again is dropped.
 * An embedded object (101) and application groups (102) are left alone.
 */
function moveMisplacedCommon(tags: DxfTag[]): void {
  const seen = new Set<number>();
  const moved: DxfTag[] = [];
  const kept: DxfTag[] = [];
  let zone = HEAD;
  let inGroup = false;
  for (const x of tags) {
    if (x.code === 102) inGroup = x.value.startsWith('{');
    else if (!inGroup && zone !== EMBEDDED) {
      if (x.code === 100) zone = x.value === 'AcDbEntity' ? COMMON : TYPE;
      else if (x.code === 101) zone = EMBEDDED;
      else if (zone !== TYPE) {
        if (zone === COMMON || ENTITY_CODES.has(x.code)) seen.add(x.code);
      } else if (RAW_MISPLACED.has(x.code)) {
        // Given twice, the first stands (the writer puts each one out once).
        if (!seen.has(x.code)) moved.push(x);
        seen.add(x.code);
        continue;
      }
    }
    kept.push(x);
  }
  if (moved.length === 0) return;
  insertIntoEntitySubclass(kept, moved);
  tags.splice(0, tags.length, ...kept);
}

/** Index of the `102 }` that closes the group opened at `start` (or the last tag before `end`). */
function groupEnd(t: TagList, start: number, end: number): number {
  for (let i = start + 1; i < end; i++) {
    if (t.codes[i] === 102) return i;
  }
  return end - 1;
}

/**
 * Sub-entities (VERTEX, ATTRIB, SEQEND) as raw tags, each from its `0` tag; R12 ones get their R2000
 * structure, and every one keeps or gets a handle of its own.
 */
function readSubEntities(t: TagList, start: number, end: number, ctx: ReadContext): DxfTag[] {
  const out: DxfTag[] = [];
  let i = start;
  while (i < end) {
    const next = nextEntityStart(t, i, end);
    const type = t.value(i).trim().toUpperCase();
    let tags = slice(t, i + 1, next);
    if (ctx.r12) tags = upgradeEntityTags(type, tags);
    out.push({ code: 0, value: type });
    claimTagHandle(tags, 5, ctx);
    out.push(...tags);
    i = next;
  }
  return out;
}

/** Claims the handle in a raw tag list (code 5, or 105 for DIMSTYLE); fills it in when missing or taken. */
export function claimTagHandle(
  tags: DxfTag[],
  handleCode: number,
  ctx: ReadContext,
  onAssign?: (handle: string) => void,
): string {
  let at = tags.findIndex((x) => x.code === handleCode);
  if (at < 0) {
    tags.unshift({ code: handleCode, value: '' });
    at = 0;
  }
  const handleTag = tags[at] as DxfTag;
  const handle = ctx.claim(handleTag.value === '' ? undefined : handleTag.value, (h) => {
    handleTag.value = h;
    onAssign?.(h);
  });
  if (handle) handleTag.value = handle;
  return handle;
}

function readRaw(
  t: TagList,
  start: number,
  end: number,
  dxfType: string,
  space: string,
  ctx: ReadContext,
): RawEntity {
  const mainEnd = nextEntityStart(t, start, end);
  const codes = t.codes;
  let xdataStart = mainEnd;
  for (let i = start + 1; i < mainEnd; i++) {
    if ((codes[i] as number) >= 1000) {
      xdataStart = i;
      break;
    }
  }
  let tags = slice(t, start + 1, xdataStart);
  if (ctx.r12) tags = upgradeEntityTags(dxfType, tags);
  else if (!RAW_OWN_COLOURS.has(dxfType)) moveMisplacedCommon(tags);
  const e: RawEntity = {
    type: 'Raw',
    dxf_type: dxfType,
    ...blankCommon(space),
    tags,
  };
  let zone = HEAD;
  for (const x of tags) {
    if (x.code === 100) {
      if (x.value !== 'AcDbEntity') break;
      zone = COMMON;
    } else if (zone === COMMON || ENTITY_CODES.has(x.code)) {
      readCommonTag(e, x.code, x.value, ctx);
    }
  }
  e.handle = claimTagHandle(tags, 5, ctx, (h) => {
    e.handle = h;
  });
  if (xdataStart < mainEnd) e.xdata = readXdata(t, xdataStart, mainEnd, ctx.decode);
  if (mainEnd < end) tags.push(...readSubEntities(t, mainEnd, end, ctx));
  return e;
}
