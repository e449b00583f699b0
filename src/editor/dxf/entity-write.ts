import type { DxfTag, Entity, RawEntity } from '../model.js';
import { entityDef, type SubclassDef, subclassNames } from './entity-defs.js';
import { DXF_TYPE_OF, ENTITY_CODES } from './entity-types.js';
import type { TagWriter } from './tag-writer.js';
import { formatInt, normalizeHandle, toInt } from './values.js';
import { writeXdata } from './xdata.js';

/** What entity writing needs to know about the rest of the file. */
export interface EntityRefs {
  /** Whether a handle an entity points to (a reactor, an extension dictionary) is written. */
  alive(handle: string): boolean;
  /** The owner of an object (an extension dictionary's is its entity). */
  ownerOf(handle: string): string | undefined;
  /**
   * New handles for sub-entities (VERTEX, ATTRIB, SEQEND) whose handle is taken (a copy made with
   * structuredClone keeps them), by parent, at the sub-entity's position.
   */
  subHandles: Map<string, (string | undefined)[]>;
}

/**
 * An entity's 102 groups without dangling pointers: an extension dictionary is kept only when it is
 * written and owned by this entity (a copy does not share its original's), reactors only when written.
 */
function cleanAppGroups(tags: readonly DxfTag[], self: string, refs: EntityRefs): readonly DxfTag[] {
  if (!tags.some((t) => t.code === 102)) return tags;
  const out: DxfTag[] = [];
  for (let i = 0; i < tags.length; i++) {
    const t = tags[i] as DxfTag;
    if (t.code !== 102 || !t.value.startsWith('{')) {
      out.push(t);
      continue;
    }
    let j = i + 1;
    while (j < tags.length && (tags[j] as DxfTag).code !== 102) j++;
    const body = tags.slice(i + 1, j);
    const closing = tags[j] ?? { code: 102, value: '}' };
    if (t.value === '{ACAD_XDICTIONARY') {
      const target = body.find((b) => b.code === 360);
      const h = target ? normalizeHandle(target.value) : '';
      if (h && refs.alive(h) && refs.ownerOf(h) === self) out.push(t, ...body, closing);
    } else if (t.value === '{ACAD_REACTORS') {
      const kept = body.filter((b) => b.code !== 330 || refs.alive(normalizeHandle(b.value)));
      if (kept.length > 0) out.push(t, ...kept, closing);
    } else {
      out.push(t, ...body, closing);
    }
    i = j;
  }
  return out;
}

/** An entity's `extra` split by where it goes: before the owner, and after each subclass marker. */
interface Segments {
  head: DxfTag[];
  /** Keyed `name#n` for the n-th marker of that name. */
  subclasses: Map<string, DxfTag[]>;
}

function segments(extra: readonly DxfTag[] | undefined): Segments {
  const s: Segments = { head: [], subclasses: new Map() };
  if (!extra) return s;
  const seen = new Map<string, number>();
  let current = s.head;
  for (const x of extra) {
    if (x.code === 100) {
      const n = seen.get(x.value) ?? 0;
      seen.set(x.value, n + 1);
      current = [];
      s.subclasses.set(`${x.value}#${n}`, current);
    } else {
      current.push(x);
    }
  }
  return s;
}

/** Thickness and constant width precede the geometry, as AutoCAD writes them (and what a subclass adds). */
const leads = (sub: SubclassDef<Entity>, code: number) =>
  code === 39 || code === 43 || !!sub.leads?.includes(code);

const isByLayer = (linetype: string) => linetype.toUpperCase() === 'BYLAYER';

/** Writes one entity of model space, paper space or a block. */
export function writeEntity(w: TagWriter, e: Entity, owner: string, paper: boolean, refs: EntityRefs): void {
  if (e.type === 'Raw') {
    writeRawEntity(w, e, owner, paper, refs);
    return;
  }
  const seg = segments(e.extra);
  w.tag(0, DXF_TYPE_OF[e.type]);
  w.tag(5, e.handle);
  w.tags(cleanAppGroups(seg.head, e.handle, refs));
  w.tag(330, owner);
  w.tag(100, 'AcDbEntity');
  if (paper) w.tag(67, '1');
  w.tag(8, e.layer);
  if (!isByLayer(e.linetype)) w.tag(6, e.linetype);
  if (e.color !== 256) w.int(62, e.color);
  if (e.lineweight !== -1) w.int(370, e.lineweight);
  w.tags(seg.subclasses.get('AcDbEntity#0'));
  seg.subclasses.delete('AcDbEntity#0');
  const minsert = [...seg.subclasses.keys()].some((k) => k.startsWith('AcDbMInsertBlock#'));
  const def = entityDef(e.type);
  const names = subclassNames(def, minsert, e);
  const seen = new Map<string, number>();
  def.subclasses.forEach((sub, at) => {
    const name = names[at] as string;
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    const key = `${name}#${n}`;
    const extra = seg.subclasses.get(key) ?? [];
    seg.subclasses.delete(key);
    w.tag(100, name);
    for (const x of extra) if (leads(sub, x.code)) w.tag(x.code, x.value);
    for (const field of sub.fields) field.write(w, e);
    for (const x of extra) if (!leads(sub, x.code)) w.tag(x.code, x.value);
  });
  // Subclasses this writer does not know keep their place after the known ones.
  for (const [key, tags] of seg.subclasses) {
    w.tag(100, key.slice(0, key.lastIndexOf('#')));
    w.tags(tags);
  }
  writeXdata(w, e.xdata);
  if (e.type === 'Insert' && e.attribs && e.attribs.length > 0)
    writeSubEntities(w, e.attribs, e.handle, paper, refs.subHandles.get(e.handle));
  // A POLYLINE's VERTEX and SEQEND entities, as kept.
  if (e.type === 'Polyline')
    writeSubEntities(w, e.vertex_tags, e.handle, paper, refs.subHandles.get(e.handle));
}

/**
 * A raw entity: its tags as read, with handle, owner, layer, colour, linetype, lineweight and the
 * paper-space flag written from the model (the original text is kept where the value is unchanged).
 */
function writeRawEntity(w: TagWriter, e: RawEntity, owner: string, paper: boolean, refs: EntityRefs): void {
  let mainEnd = e.tags.findIndex((x) => x.code === 0);
  if (mainEnd < 0) mainEnd = e.tags.length;
  let tags: readonly DxfTag[] = e.tags;
  for (let i = 0; i < mainEnd; i++) {
    if ((tags[i] as DxfTag).code === 102) {
      const main = cleanAppGroups(tags.slice(0, mainEnd), e.handle, refs);
      tags = [...main, ...tags.slice(mainEnd)];
      mainEnd = main.length;
      break;
    }
  }
  w.tag(0, e.dxf_type);
  const pending = new Map<number, string>();
  if (e.color !== 256) pending.set(62, formatInt(e.color));
  if (!isByLayer(e.linetype)) pending.set(6, e.linetype);
  if (e.lineweight !== -1) pending.set(370, formatInt(e.lineweight));
  if (paper) pending.set(67, '1');
  let originalLayer: string | undefined;
  let handleDone = false;
  let ownerDone = false;
  let inGroup = false;
  let zone = 0; // 0 before markers, 1 AcDbEntity, 2 the type's subclasses
  let layerDone = false;
  const flushCommon = () => {
    if (!layerDone) {
      w.tag(8, e.layer);
      layerDone = true;
    }
    for (const [code, value] of pending) w.tag(code, value);
    pending.clear();
  };
  for (let i = 0; i < mainEnd; i++) {
    const x = tags[i] as DxfTag;
    const { code, value } = x;
    if (code === 102) {
      inGroup = value.startsWith('{');
      w.tag(code, value);
      continue;
    }
    if (inGroup) {
      w.tag(code, value);
      continue;
    }
    if (code === 100) {
      if (zone === 1) flushCommon();
      zone = value === 'AcDbEntity' ? 1 : 2;
      w.tag(code, value);
      continue;
    }
    if (zone === 0 && code === 5 && !handleDone) {
      handleDone = true;
      w.tag(5, e.handle);
    } else if (zone === 0 && code === 330 && !ownerDone) {
      ownerDone = true;
      w.tag(330, owner);
    } else if (zone === 1 || (zone === 0 && ENTITY_CODES.has(code))) {
      writeCommonTag(w, code, value, e, pending);
      if (code === 8) {
        originalLayer = value;
        layerDone = true;
      }
    } else {
      w.tag(code, value);
    }
  }
  if (zone <= 1) flushCommon();
  writeXdata(w, e.xdata);
  if (mainEnd < tags.length)
    writeSubEntities(
      w,
      tags.slice(mainEnd),
      e.handle,
      paper,
      refs.subHandles.get(e.handle),
      originalLayer,
      e.layer,
    );
}

function writeCommonTag(
  w: TagWriter,
  code: number,
  value: string,
  e: RawEntity,
  pending: Map<number, string>,
): void {
  switch (code) {
    case 8:
      w.tag(8, e.layer);
      return;
    case 62:
    case 6:
    case 370:
    case 67: {
      const wanted = pending.get(code);
      pending.delete(code);
      if (wanted === undefined) return;
      const same = code === 6 ? value === wanted : toInt(value) === toInt(wanted);
      w.tag(code, same ? value : wanted);
      return;
    }
    default:
      w.tag(code, value);
  }
}

/**
 * The VERTEX/ATTRIB/SEQEND entities after a POLYLINE or INSERT: owned by it, in its space, and on its
 * layer where they were on its old one.
 */
function writeSubEntities(
  w: TagWriter,
  tags: readonly DxfTag[],
  parent: string,
  paper: boolean,
  rehandle: (string | undefined)[] | undefined,
  oldLayer?: string,
  newLayer?: string,
): void {
  let ownerDone = true;
  let inGroup = false;
  let markers = false;
  let index = -1;
  for (const { code, value } of tags) {
    if (code === 0) {
      ownerDone = false;
      markers = false;
      index++;
      w.tag(0, value);
      continue;
    }
    if (code === 102) inGroup = value.startsWith('{');
    else if (code === 100) markers = true;
    if (code === 330 && !ownerDone && !inGroup && !markers) {
      ownerDone = true;
      w.tag(330, parent);
    } else if (code === 5 && rehandle && !markers) {
      w.tag(5, rehandle[index] ?? value);
    } else if (code === 8 && oldLayer !== undefined && newLayer !== undefined && value === oldLayer) {
      w.tag(8, newLayer);
    } else if (code === 67) {
      if (paper) w.tag(67, '1');
    } else {
      w.tag(code, value);
    }
  }
}
