import { dictGet } from '../dict.js';
import type {
  DxfTag,
  Entity,
  EntityCommon,
  ImageEntity,
  InsertEntity,
  LwPolylineEntity,
  LwPolylineVertex,
  ModeledType,
  MTextEntity,
  Point3,
  RawEntity,
  TextEntity,
} from '../model.js';
import { ENTITY_CODES, MODELED_DXF_TYPES, typeSubclasses } from './entity-types.js';
import { upgradeEntityTags } from './r12.js';
import type { ReadContext } from './read-context.js';
import type { TagList } from './tags.js';
import { normalizeHandle, toInt } from './values.js';
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
  const out: DxfTag[] = new Array(end - start);
  for (let i = start; i < end; i++) out[i - start] = { code: t.codes[i] as number, value: t.value(i) };
  return out;
}

/** Reads the entity whose `0 TYPE` tag is at `start` and whose tags (sub-entities included) end at `end`. */
export function readEntity(t: TagList, start: number, end: number, space: string, ctx: ReadContext): Entity {
  const dxfType = t.value(start).trim().toUpperCase();
  const modeled = dictGet(MODELED_DXF_TYPES, dxfType);
  return modeled
    ? readModeled(t, start, end, modeled, space, ctx)
    : readRaw(t, start, end, dxfType, space, ctx);
}

// Each case spells out every field (no spread): one object shape per type keeps reading 100k entities fast.
function newEntity(type: ModeledType, space: string): Entity {
  const layer = '0';
  const linetype = 'BYLAYER';
  switch (type) {
    case 'Line':
      return {
        type,
        handle: '',
        space,
        layer,
        color: 256,
        linetype,
        lineweight: -1,
        start: [0, 0, 0],
        end: [0, 0, 0],
      };
    case 'Circle':
      return {
        type,
        handle: '',
        space,
        layer,
        color: 256,
        linetype,
        lineweight: -1,
        center: [0, 0, 0],
        radius: 0,
      };
    case 'Arc':
      return {
        type,
        handle: '',
        space,
        layer,
        color: 256,
        linetype,
        lineweight: -1,
        center: [0, 0, 0],
        radius: 0,
        start_angle: 0,
        end_angle: 360,
      };
    case 'Text':
      return {
        type,
        handle: '',
        space,
        layer,
        color: 256,
        linetype,
        lineweight: -1,
        value: '',
        position: [0, 0, 0],
        height: 1,
        rotation: 0,
        style: 'Standard',
      };
    case 'MText':
      return {
        type,
        handle: '',
        space,
        layer,
        color: 256,
        linetype,
        lineweight: -1,
        value: '',
        position: [0, 0, 0],
        height: 1,
        width: 0,
        rotation: 0,
        style: 'Standard',
        attachment: 1,
      };
    case 'Point':
      return { type, handle: '', space, layer, color: 256, linetype, lineweight: -1, location: [0, 0, 0] };
    case 'LwPolyline':
      return {
        type,
        handle: '',
        space,
        layer,
        color: 256,
        linetype,
        lineweight: -1,
        vertices: [],
        closed: false,
        elevation: 0,
      };
    case 'Insert':
      return {
        type,
        handle: '',
        space,
        layer,
        color: 256,
        linetype,
        lineweight: -1,
        name: '',
        position: [0, 0, 0],
        scale: [1, 1, 1],
        rotation: 0,
      };
    case 'Image':
      return {
        type,
        handle: '',
        space,
        layer,
        color: 256,
        linetype,
        lineweight: -1,
        position: [0, 0, 0],
        u_vector: [1, 0, 0],
        v_vector: [0, 1, 0],
        size: [0, 0],
        image_def: '0',
      };
  }
}

/** Sets x, y or z of a point from a code 1x, 2x or 3x. */
function setCoord(p: Point3, code: number, base: number, t: TagList, i: number): void {
  p[((code - base) / 10) | 0] = t.real(i);
}

/** Per-read scratch state of the modeled field readers. */
interface Scratch {
  mtextChunks: string[];
  mtextLast: string | undefined;
  direction: Point3 | undefined;
  vertex: LwPolylineVertex | undefined;
}

/** Reads one modeled group code of the type's own subclasses; false when the code is not modeled. */
function readField(e: Entity, code: number, t: TagList, i: number, s: Scratch, ctx: ReadContext): boolean {
  switch (e.type) {
    case 'Line':
      if (code === 10 || code === 20 || code === 30) setCoord(e.start, code, 10, t, i);
      else if (code === 11 || code === 21 || code === 31) setCoord(e.end, code, 11, t, i);
      else return false;
      return true;
    case 'Circle':
    case 'Arc':
      if (code === 10 || code === 20 || code === 30) setCoord(e.center, code, 10, t, i);
      else if (code === 40) e.radius = t.real(i);
      else if (e.type === 'Arc' && code === 50) e.start_angle = t.real(i);
      else if (e.type === 'Arc' && code === 51) e.end_angle = t.real(i);
      else return false;
      return true;
    case 'Text':
      return readText(e, code, t, i, ctx);
    case 'MText':
      return readMText(e, code, t, i, s, ctx);
    case 'Point':
      if (code === 10 || code === 20 || code === 30) setCoord(e.location, code, 10, t, i);
      else return false;
      return true;
    case 'LwPolyline':
      return readLwPolyline(e, code, t, i, s);
    case 'Insert':
      return readInsert(e, code, t, i, ctx);
    case 'Image':
      return readImage(e, code, t, i);
    case 'Raw':
      return false;
  }
}

function readText(e: TextEntity, code: number, t: TagList, i: number, ctx: ReadContext): boolean {
  switch (code) {
    case 10:
    case 20:
    case 30:
      setCoord(e.position, code, 10, t, i);
      return true;
    case 11:
    case 21:
    case 31:
      e.align_point ??= [0, 0, 0];
      setCoord(e.align_point, code, 11, t, i);
      return true;
    case 40:
      e.height = t.real(i);
      return true;
    case 1:
      e.value = ctx.decode(t.value(i));
      return true;
    case 50:
      e.rotation = t.real(i);
      return true;
    case 7:
      e.style = ctx.decode(t.value(i));
      return true;
    default:
      return false;
  }
}

function readMText(
  e: MTextEntity,
  code: number,
  t: TagList,
  i: number,
  s: Scratch,
  ctx: ReadContext,
): boolean {
  switch (code) {
    case 10:
    case 20:
    case 30:
      setCoord(e.position, code, 10, t, i);
      return true;
    case 11:
    case 21:
    case 31:
      s.direction ??= [0, 0, 0];
      setCoord(s.direction, code, 11, t, i);
      return true;
    case 40:
      e.height = t.real(i);
      return true;
    case 41:
      e.width = t.real(i);
      return true;
    case 71:
      e.attachment = t.int(i);
      return true;
    case 1:
      s.mtextLast = t.value(i);
      return true;
    case 3:
      s.mtextChunks.push(t.value(i));
      return true;
    case 7:
      e.style = ctx.decode(t.value(i));
      return true;
    case 50:
      e.rotation = t.real(i);
      return true;
    default:
      return false;
  }
}

function readLwPolyline(e: LwPolylineEntity, code: number, t: TagList, i: number, s: Scratch): boolean {
  switch (code) {
    case 90:
      return true; // the vertex count is derived on save
    case 70: {
      const flags = t.int(i);
      e.closed = (flags & 1) !== 0;
      if (flags & 128) e.plinegen = true;
      return true;
    }
    case 38:
      e.elevation = t.real(i);
      return true;
    case 10:
      s.vertex = { x: t.real(i), y: 0, bulge: 0 };
      e.vertices.push(s.vertex);
      return true;
    case 20:
      if (!s.vertex) return false;
      s.vertex.y = t.real(i);
      return true;
    case 40:
      if (!s.vertex) return false;
      s.vertex.start_width = t.real(i);
      return true;
    case 41:
      if (!s.vertex) return false;
      s.vertex.end_width = t.real(i);
      return true;
    case 42:
      if (!s.vertex) return false;
      s.vertex.bulge = t.real(i);
      return true;
    default:
      return false;
  }
}

function readInsert(e: InsertEntity, code: number, t: TagList, i: number, ctx: ReadContext): boolean {
  switch (code) {
    case 66:
      return true; // "attributes follow" is derived on save
    case 2:
      e.name = ctx.decode(t.value(i));
      return true;
    case 10:
    case 20:
    case 30:
      setCoord(e.position, code, 10, t, i);
      return true;
    case 41:
    case 42:
    case 43:
      e.scale[code - 41] = t.real(i);
      return true;
    case 50:
      e.rotation = t.real(i);
      return true;
    default:
      return false;
  }
}

function readImage(e: ImageEntity, code: number, t: TagList, i: number): boolean {
  switch (code) {
    case 10:
    case 20:
    case 30:
      setCoord(e.position, code, 10, t, i);
      return true;
    case 11:
    case 21:
    case 31:
      setCoord(e.u_vector, code, 11, t, i);
      return true;
    case 12:
    case 22:
    case 32:
      setCoord(e.v_vector, code, 12, t, i);
      return true;
    case 13:
      e.size[0] = t.real(i);
      return true;
    case 23:
      e.size[1] = t.real(i);
      return true;
    case 340:
      e.image_def = normalizeHandle(t.value(i));
      return true;
    default:
      return false;
  }
}

/** Layer, colour, linetype, lineweight; the paper-space flag is derived from `space` on save. */
function readCommon(e: EntityCommon, code: number, t: TagList, i: number, ctx: ReadContext): boolean {
  switch (code) {
    case 8:
      e.layer = ctx.decode(t.value(i));
      return true;
    case 62:
      e.color = t.int(i);
      return true;
    case 6:
      e.linetype = ctx.decode(t.value(i));
      return true;
    case 370:
      e.lineweight = t.int(i);
      return true;
    case 67:
      return true;
    default:
      return false;
  }
}

/** readCommon for a tag already taken out of the file (raw entities). */
function readCommonTag(e: EntityCommon, code: number, value: string, ctx: ReadContext): void {
  if (code === 8) e.layer = ctx.decode(value);
  else if (code === 62) e.color = toInt(value);
  else if (code === 6) e.linetype = ctx.decode(value);
  else if (code === 370) e.lineweight = toInt(value);
}

/** Zones of an entity's tags: before any subclass marker, AcDbEntity, the type's subclasses, after an embedded object (101). */
const HEAD = 0;
const COMMON = 1;
const TYPE = 2;
const EMBEDDED = 3;

function readModeled(
  t: TagList,
  start: number,
  end: number,
  type: ModeledType,
  space: string,
  ctx: ReadContext,
): Entity {
  const e = newEntity(type, space);
  const mainEnd = nextEntityStart(t, start, end);
  const codes = t.codes;
  const s: Scratch = { mtextChunks: [], mtextLast: undefined, direction: undefined, vertex: undefined };
  // Unmodeled tags in file order with their subclass markers; files without markers fill the flat lists.
  const extra: DxfTag[] = [];
  const flatCommon: DxfTag[] = [];
  const flatType: DxfTag[] = [];
  const flatText2: DxfTag[] = [];
  let zone = HEAD;
  let ownerSeen = false;
  let rawHandle: string | undefined;
  let xdataStart = mainEnd;
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
      if (!readCommon(e, code, t, i, ctx))
        (zone === HEAD ? flatCommon : extra).push({ code, value: t.value(i) });
    } else if (zone === TYPE && code === 101) {
      zone = EMBEDDED;
      extra.push({ code, value: t.value(i) });
    } else if (!readField(e, code, t, i, s, ctx)) {
      const tag = { code, value: t.value(i) };
      if (zone === TYPE) extra.push(tag);
      else if (type === 'Text' && code === 73) flatText2.push(tag);
      else flatType.push(tag);
    }
  }
  if (e.type === 'MText') {
    e.value = ctx.decode(s.mtextChunks.join('') + (s.mtextLast ?? ''));
    if (s.direction && (s.direction[0] !== 0 || s.direction[1] !== 0)) {
      e.rotation = (Math.atan2(s.direction[1], s.direction[0]) * 180) / Math.PI;
    }
  }
  if (flatCommon.length > 0 || flatType.length > 0 || flatText2.length > 0) {
    const minsert = flatType.some((x) => (x.code === 70 || x.code === 71) && toInt(x.value) > 1);
    const [first, second] = typeSubclasses(type, minsert);
    extra.push(
      { code: 100, value: 'AcDbEntity' },
      ...flatCommon,
      { code: 100, value: first as string },
      ...flatType,
    );
    if (flatText2.length > 0 && second) extra.push({ code: 100, value: second }, ...flatText2);
  }
  if (extra.some((x) => x.code !== 100)) e.extra = extra;
  if (xdataStart < mainEnd) e.xdata = readXdata(t, xdataStart, mainEnd, ctx.decode);
  e.handle = ctx.claim(rawHandle, (h) => {
    e.handle = h;
  });
  if (e.type === 'Insert' && mainEnd < end) e.attribs = readSubEntities(t, mainEnd, end, ctx);
  return e;
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
  const e: RawEntity = {
    type: 'Raw',
    dxf_type: dxfType,
    handle: '',
    space,
    layer: '0',
    color: 256,
    linetype: 'BYLAYER',
    lineweight: -1,
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
