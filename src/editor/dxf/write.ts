import { dictGet } from '../dict.js';
import type { Block, DxfDocumentModel, DxfTag, Entity, Group, Layer, Layout, RawRecord } from '../model.js';
import { NameSet } from '../names.js';
import { isLayoutBlockName, isPaperSpaceBlockName, MODEL_SPACE, PAPER_SPACE } from './entity-types.js';
import { type EntityRefs, writeEntity } from './entity-write.js';
import { ensureImageReactors } from './image-records.js';
import { writeLayout } from './layout-object.js';
import {
  appidRecord,
  dictionaryEntries,
  findRecord,
  ownerOf,
  withDictionaryEntries,
  withoutDeadEntries,
} from './records.js';
import {
  ensureStructure,
  findBlock,
  findLayoutOfBlock,
  newBlock,
  newLayer,
  STANDARD_TABLES,
} from './structure.js';
import { TagWriter } from './tag-writer.js';
import { encodeUnicodeEscapes, formatHandle, handleValue, normalizeHandle } from './values.js';
import { xdataApps } from './xdata.js';

/** The oldest version the writer produces: R2000, the first with everything the model keeps. */
export const MIN_WRITE_VERSION = 'AC1015';

/**
 * The document completed for writing, on a shallow copy: the structure R2000 needs, a LAYER record for
 * every layer in use, an APPID for every application in xdata, a block for every layout. Everything
 * that needs a handle gets it here, so $HANDSEED can be written before anything else.
 */
function prepare(input: DxfDocumentModel): { doc: DxfDocumentModel; subHandles: EntityRefs['subHandles'] } {
  const doc: DxfDocumentModel = { ...input, header: { ...input.header } };
  ensureStructure(doc);
  const alloc = () => formatHandle(doc.handseed++);
  ensureImageReactors(doc, alloc);

  const layerNames = new Set(Object.values(doc.layers).map((l) => l.name.toUpperCase()));
  const addLayer = (name: string) => {
    if (!name || layerNames.has(name.toUpperCase())) return;
    layerNames.add(name.toUpperCase());
    doc.layers = { ...doc.layers, [name]: newLayer(name, alloc()) };
  };
  const apps = new Set(doc.appids.map((a) => a.toUpperCase()));
  const addApp = (app: string) => {
    if (apps.has(app.toUpperCase())) return;
    apps.add(app.toUpperCase());
    doc.appids = [...doc.appids, app];
  };
  for (const e of Object.values(doc.entities)) {
    addLayer(e.layer);
    for (const app of xdataApps(e.xdata)) addApp(app);
  }
  for (const block of Object.values(doc.blocks)) addLayer(block.layer);

  for (const layout of Object.values(doc.layouts)) {
    if (!findBlock(doc, layout.block))
      doc.blocks = { ...doc.blocks, [layout.block]: newBlock(layout.block, alloc) };
  }

  // APPID records: the kept record of each registered name, a new one for the others; one per name in
  // any case (a model from before names were folded may list two spellings).
  const kept = doc.tables.APPID ?? [];
  const registered = new NameSet();
  const appRecords: RawRecord[] = doc.appids
    .filter((app) => registered.add(app))
    .map((app) => findRecord(kept, app) ?? appidRecord(alloc(), app));
  doc.tables = { ...doc.tables, APPID: appRecords };

  doc.handseed = Math.max(doc.handseed, highestHandle(doc) + 1);
  return { doc, subHandles: renumberTakenSubEntities(doc) };
}

/** Sub-entity handles another entity or sub-entity already has get new ones (from the seed). */
function renumberTakenSubEntities(doc: DxfDocumentModel): EntityRefs['subHandles'] {
  const out: EntityRefs['subHandles'] = new Map();
  let used: Set<string> | undefined;
  for (const e of Object.values(doc.entities)) {
    const tags =
      e.type === 'Raw'
        ? e.tags
        : e.type === 'Insert'
          ? e.attribs
          : e.type === 'Polyline'
            ? e.vertex_tags
            : undefined;
    if (!tags?.some((t) => t.code === 0)) continue;
    used ??= new Set(Object.keys(doc.entities));
    let index = -1;
    let marker = false;
    let inSub = e.type === 'Insert' || e.type === 'Polyline';
    for (const t of tags) {
      if (t.code === 0) {
        index++;
        inSub = true;
        marker = false;
      } else if (t.code === 100) marker = true;
      else if (t.code === 5 && inSub && !marker) {
        const h = normalizeHandle(t.value);
        if (used.has(h)) {
          const list = out.get(e.handle) ?? [];
          list[index] = formatHandle(doc.handseed++);
          out.set(e.handle, list);
        } else used.add(h);
      }
    }
  }
  return out;
}

function highestHandle(doc: DxfDocumentModel): number {
  let max = 0;
  const see = (h: string | undefined) => {
    if (!h) return;
    const v = handleValue(h);
    if (v > max) max = v;
  };
  for (const h in doc.entities) see(h);
  for (const l of Object.values(doc.layers)) see(l.handle);
  for (const b of Object.values(doc.blocks)) {
    see(b.record_handle);
    see(b.block_handle);
    see(b.end_handle);
  }
  for (const l of Object.values(doc.layouts)) see(l.handle);
  for (const g of Object.values(doc.groups)) see(g.handle);
  for (const o of doc.objects) see(o.handle);
  for (const records of Object.values(doc.tables)) for (const r of records) see(r.handle);
  for (const h of Object.values(doc.table_handles)) see(h);
  return max;
}

/** Which entities go where: handles by the uppercase name of their block, in drawing order. */
function placeEntities(doc: DxfDocumentModel): Map<string, string[]> {
  const lists = new Map<string, string[]>();
  for (const block of Object.values(doc.blocks)) lists.set(block.name.toUpperCase(), []);
  const placed = new Set<string>();
  const place = (handle: string) => {
    if (placed.has(handle)) return;
    const e = dictGet(doc.entities, handle);
    if (!e) return;
    const list = lists.get(e.space.toUpperCase());
    if (!list) return;
    placed.add(handle);
    list.push(handle);
  };
  for (const h of doc.order) place(h);
  for (const block of Object.values(doc.blocks)) for (const h of block.entities) place(h);
  // Entities a caller added without listing them still belong to their space.
  for (const h in doc.entities) place(h);
  return lists;
}

/** Group members that can be saved: existing entities of one layout (model or a paper space). */
function groupMembers(doc: DxfDocumentModel, group: Group, written: Set<string>): string[] {
  let space: string | undefined;
  const out: string[] = [];
  for (const h of group.handles) {
    const e = dictGet(doc.entities, h);
    if (!e || !written.has(h) || !isLayoutBlockName(e.space)) continue;
    const key = e.space.toUpperCase();
    space ??= key;
    if (key === space && !out.includes(h)) out.push(h);
  }
  return out;
}

/**
 * Writes the document as ASCII DXF, AC1015 (R2000) or the version it was read as when newer. Modeled
 * parts are written from the model, everything else from the tags kept at read time. Entities, records
 * and objects that are gone from the model are not written, and dictionary entries, group members and
 * objects owned by them go with them.
 */
export function writeDxf(input: DxfDocumentModel): string {
  const { doc, subHandles } = prepare(input);
  const version = doc.version >= MIN_WRITE_VERSION ? doc.version : MIN_WRITE_VERSION;
  const w = new TagWriter();
  const lists = placeEntities(doc);
  const written = new Set<string>();
  for (const [space, list] of lists) {
    const block = findBlock(doc, space);
    if (block && isPaperSpaceBlockName(block.name) && !findLayoutOfBlock(doc, block.name)) continue;
    for (const h of list) written.add(h);
  }
  const groups: [Group, string[]][] = [];
  for (const group of Object.values(doc.groups)) {
    const members = groupMembers(doc, group, written);
    if (members.length > 0) groups.push([group, members]);
  }
  const { objects, alive } = liveObjects(doc, written, groups);
  const owners = new Map<string, string>();
  for (const o of objects) if (o.handle && o.type === 'DICTIONARY') owners.set(o.handle, ownerOf(o.tags));
  const refs: EntityRefs = { alive: (h) => alive.has(h), ownerOf: (h) => owners.get(h), subHandles };

  writeHeader(w, doc, version);
  writeClasses(w, doc, version, objects);
  writeTables(w, doc);
  writeBlocks(w, doc, lists, refs);
  w.tag(0, 'SECTION');
  w.tag(2, 'ENTITIES');
  for (const name of [MODEL_SPACE, PAPER_SPACE]) {
    const block = findBlock(doc, name) as Block;
    writeEntities(w, doc, lists.get(block.name.toUpperCase()) ?? [], block, refs);
  }
  w.tag(0, 'ENDSEC');
  writeObjects(w, doc, objects, groups);
  for (const section of doc.sections ?? []) {
    w.tag(0, 'SECTION');
    w.tag(2, section.name);
    w.tags(section.tags);
    w.tag(0, 'ENDSEC');
  }
  w.tag(0, 'EOF');
  const text = w.text();
  // Before R2007 a DXF file is in a code page: everything else goes as \U+XXXX.
  return version < 'AC1021' && /[\u0080-\uffff]/.test(text) ? encodeUnicodeEscapes(text) : text;
}

function writeHeader(w: TagWriter, doc: DxfDocumentModel, version: string): void {
  w.tag(0, 'SECTION');
  w.tag(2, 'HEADER');
  const vars: [string, DxfTag[]][] = [
    ['$ACADVER', [{ code: 1, value: version }]],
    ['$HANDSEED', [{ code: 5, value: formatHandle(doc.handseed) }]],
  ];
  for (const [name, tags] of Object.entries(doc.header)) {
    if (name !== '$ACADVER' && name !== '$HANDSEED') vars.push([name, tags]);
  }
  // $ACADVER first, as readers expect; $HANDSEED right after it.
  for (const [name, tags] of vars) {
    w.tag(9, name);
    w.tags(tags);
  }
  w.tag(0, 'ENDSEC');
}

/** CLASS entries for the object and entity types that need one, when the document lacks them. */
const KNOWN_CLASSES: Record<string, [string, string, number, boolean]> = {
  ACDBDICTIONARYWDFLT: ['AcDbDictionaryWithDefault', 'ObjectDBX Classes', 0, false],
  ACDBPLACEHOLDER: ['AcDbPlaceHolder', 'ObjectDBX Classes', 0, false],
  LAYOUT: ['AcDbLayout', 'ObjectDBX Classes', 0, false],
  DICTIONARYVAR: ['AcDbDictionaryVar', 'ObjectDBX Classes', 0, false],
  IMAGE: ['AcDbRasterImage', 'ISM', 2175, true],
  IMAGEDEF: ['AcDbRasterImageDef', 'ISM', 0, false],
  IMAGEDEF_REACTOR: ['AcDbRasterImageDefReactor', 'ISM', 1, false],
  RASTERVARIABLES: ['AcDbRasterVariables', 'ISM', 0, false],
};

function writeClasses(w: TagWriter, doc: DxfDocumentModel, version: string, objects: RawRecord[]): void {
  w.tag(0, 'SECTION');
  w.tag(2, 'CLASSES');
  w.tags(doc.classes);
  const declared = new Set<string>();
  for (let i = 0; i < doc.classes.length - 1; i++) {
    const t = doc.classes[i] as DxfTag;
    if (t.code === 0) declared.add((doc.classes[i + 1] as DxfTag).value.trim().toUpperCase());
  }
  const used = new Set<string>(['LAYOUT', ...objects.map((o) => o.type)]);
  for (const e of Object.values(doc.entities)) if (e.type === 'Image') used.add('IMAGE');
  for (const type of used) {
    const known = dictGet(KNOWN_CLASSES, type);
    if (!known || declared.has(type)) continue;
    const [cpp, app, flags, entity] = known;
    w.tag(0, 'CLASS');
    w.tag(1, type);
    w.tag(2, cpp);
    w.tag(3, app);
    w.int(90, flags);
    if (version >= 'AC1018') w.tag(91, '0');
    w.tag(280, '0');
    w.tag(281, entity ? '1' : '0');
  }
  w.tag(0, 'ENDSEC');
}

function writeTables(w: TagWriter, doc: DxfDocumentModel): void {
  w.tag(0, 'SECTION');
  w.tag(2, 'TABLES');
  const names: string[] = [...STANDARD_TABLES];
  for (const name of Object.keys(doc.tables)) if (!names.includes(name)) names.push(name);
  for (const name of names) {
    const handle = dictGet(doc.table_handles, name) as string;
    const records = name === 'LAYER' ? [] : name === 'BLOCK_RECORD' ? [] : (dictGet(doc.tables, name) ?? []);
    const count =
      name === 'LAYER'
        ? Object.keys(doc.layers).length
        : name === 'BLOCK_RECORD'
          ? writableBlocks(doc).length
          : records.length;
    const extra = dictGet(doc.table_extra, name) ?? [];
    w.tag(0, 'TABLE');
    w.tag(2, name);
    w.tag(5, handle);
    w.tags(extra.filter((_t, i) => inGroupAt(extra, i)));
    w.tag(330, '0');
    w.tag(100, 'AcDbSymbolTable');
    w.int(70, count);
    if (name === 'DIMSTYLE') {
      w.tag(100, 'AcDbDimStyleTable');
      w.int(71, records.length);
      for (const r of records) if (r.handle) w.tag(340, r.handle);
    }
    w.tags(extra.filter((_t, i) => !inGroupAt(extra, i)));
    if (name === 'LAYER') for (const layer of Object.values(doc.layers)) writeLayer(w, layer, handle);
    else if (name === 'BLOCK_RECORD')
      for (const block of writableBlocks(doc)) writeBlockRecord(w, doc, block, handle);
    else for (const record of records) writeRecord(w, record, handle);
    w.tag(0, 'ENDTAB');
  }
  w.tag(0, 'ENDSEC');
}

/** Whether tags[i] is part of a 102 group. */
function inGroupAt(tags: readonly DxfTag[], i: number): boolean {
  let inGroup = false;
  for (let k = 0; k <= i; k++) {
    const t = tags[k] as DxfTag;
    if (t.code === 102) {
      if (k === i) return true;
      inGroup = t.value.startsWith('{');
    }
  }
  return inGroup;
}

/** Blocks that are saved: all but paper space blocks whose layout is gone; model and paper space first. */
function writableBlocks(doc: DxfDocumentModel): Block[] {
  const blocks = Object.values(doc.blocks).filter(
    (b) =>
      !isPaperSpaceBlockName(b.name) ||
      b.name.toUpperCase() === '*PAPER_SPACE' ||
      findLayoutOfBlock(doc, b.name),
  );
  const rank = (b: Block) =>
    b.name.toUpperCase() === '*MODEL_SPACE' ? 0 : b.name.toUpperCase() === '*PAPER_SPACE' ? 1 : 2;
  return blocks.sort((a, b) => rank(a) - rank(b));
}

/** A raw table record, owned by its table. */
function writeRecord(w: TagWriter, record: RawRecord, table: string): void {
  w.tag(0, record.type);
  let ownerDone = false;
  let inGroup = false;
  for (const { code, value } of record.tags) {
    if (code === 102) inGroup = value.startsWith('{');
    else if (code === 100) ownerDone = true;
    if (code === 330 && !ownerDone && !inGroup) {
      ownerDone = true;
      w.tag(330, table);
    } else {
      w.tag(code, value);
    }
  }
}

/** Head tags (102 groups) of a record's `extra` first, then the rest after the modeled codes. */
function splitExtra(extra: readonly DxfTag[] | undefined): [DxfTag[], DxfTag[], DxfTag[]] {
  const head: DxfTag[] = [];
  const body: DxfTag[] = [];
  const xdata: DxfTag[] = [];
  if (!extra) return [head, body, xdata];
  let inGroup = false;
  for (const t of extra) {
    if (t.code === 102) {
      (xdata.length > 0 || body.length > 0 ? body : head).push(t);
      inGroup = t.value.startsWith('{');
    } else if (inGroup) (body.length > 0 ? body : head).push(t);
    else if (t.code >= 1000 || xdata.length > 0) xdata.push(t);
    else body.push(t);
  }
  return [head, body, xdata];
}

/** A modeled table record up to its name: its type and subclass, handle, 102 groups, owner (the table). */
function writeRecordHead(
  w: TagWriter,
  [type, subclass]: [string, string],
  handle: string,
  head: readonly DxfTag[],
  table: string,
  name: string,
): void {
  w.tag(0, type);
  w.tag(5, handle);
  w.tags(head);
  w.tag(330, table);
  w.tag(100, 'AcDbSymbolTableRecord');
  w.tag(100, subclass);
  w.tag(2, name);
}

function writeLayer(w: TagWriter, layer: Layer, table: string): void {
  const [head, body, xdata] = splitExtra(layer.extra);
  writeRecordHead(w, ['LAYER', 'AcDbLayerTableRecord'], layer.handle, head, table, layer.name);
  w.int(70, (layer.flags ?? 0) | (layer.frozen ? 1 : 0) | (layer.locked ? 4 : 0));
  const color = Math.abs(layer.color) || 7;
  w.int(62, layer.off ? -color : color);
  w.tag(6, layer.linetype);
  w.int(370, layer.lineweight);
  w.tags(body);
  w.tags(xdata);
}

function writeBlockRecord(w: TagWriter, doc: DxfDocumentModel, block: Block, table: string): void {
  const [head, body, xdata] = splitExtra(block.record_extra);
  writeRecordHead(w, ['BLOCK_RECORD', 'AcDbBlockTableRecord'], block.record_handle, head, table, block.name);
  w.tag(340, findLayoutOfBlock(doc, block.name)?.handle ?? '0');
  if (block.record_extra) w.tags(body);
  else {
    w.tag(70, '0');
    w.tag(280, '1');
    w.tag(281, '0');
  }
  w.tags(xdata);
}

function writeBlocks(
  w: TagWriter,
  doc: DxfDocumentModel,
  lists: Map<string, string[]>,
  refs: EntityRefs,
): void {
  w.tag(0, 'SECTION');
  w.tag(2, 'BLOCKS');
  for (const block of writableBlocks(doc)) {
    const paper = isPaperSpaceBlockName(block.name);
    const [head, body, xdata] = splitExtra(block.extra);
    w.tag(0, 'BLOCK');
    w.tag(5, block.block_handle);
    w.tags(head);
    w.tag(330, block.record_handle);
    w.tag(100, 'AcDbEntity');
    if (paper) w.tag(67, '1');
    w.tag(8, block.layer);
    w.tag(100, 'AcDbBlockBegin');
    w.tag(2, block.name);
    w.int(70, block.flags);
    w.point(10, block.base);
    w.tag(3, block.name);
    if (block.extra) w.tags(body);
    else w.tag(1, '');
    w.tags(xdata);
    const upper = block.name.toUpperCase();
    // Model space and the active paper space are drawn in the ENTITIES section.
    if (upper !== '*MODEL_SPACE' && upper !== '*PAPER_SPACE') {
      writeEntities(w, doc, lists.get(upper) ?? [], block, refs);
    }
    w.tag(0, 'ENDBLK');
    w.tag(5, block.end_handle);
    w.tag(330, block.record_handle);
    w.tag(100, 'AcDbEntity');
    if (paper) w.tag(67, '1');
    w.tag(8, block.layer);
    w.tag(100, 'AcDbBlockEnd');
  }
  w.tag(0, 'ENDSEC');
}

function writeEntities(
  w: TagWriter,
  doc: DxfDocumentModel,
  handles: readonly string[],
  block: Block,
  refs: EntityRefs,
): void {
  const paper = isPaperSpaceBlockName(block.name);
  for (const h of handles)
    writeEntity(w, dictGet(doc.entities, h) as Entity, block.record_handle, paper, refs);
}

/**
 * The raw objects to write: those whose owner is still in the file (an extension dictionary of a deleted
 * entity goes with it, and what that dictionary owned after it), dictionaries without entries whose
 * target is gone.
 */
function liveObjects(
  doc: DxfDocumentModel,
  entities: Set<string>,
  groups: [Group, string[]][],
): { objects: RawRecord[]; alive: Set<string> } {
  const alive = new Set<string>(entities);
  for (const e of Object.values(doc.entities)) {
    if (!entities.has(e.handle)) continue;
    for (const h of subEntityHandles(e)) alive.add(h);
  }
  for (const l of Object.values(doc.layers)) alive.add(l.handle);
  for (const b of writableBlocks(doc)) {
    alive.add(b.record_handle);
    alive.add(b.block_handle);
    alive.add(b.end_handle);
  }
  for (const l of Object.values(doc.layouts)) alive.add(l.handle);
  for (const [g] of groups) alive.add(g.handle);
  for (const records of Object.values(doc.tables)) for (const r of records) if (r.handle) alive.add(r.handle);
  for (const h of Object.values(doc.table_handles)) alive.add(h);
  let objects = doc.objects.filter((o) => o.type !== 'LAYOUT' && o.type !== 'GROUP');
  for (const o of objects) if (o.handle) alive.add(o.handle);
  const root = objects[0];
  for (;;) {
    const next = objects.filter((o) => {
      if (o === root) return true;
      const owner = ownerOf(o.tags);
      return owner === '0' || alive.has(owner);
    });
    if (next.length === objects.length) break;
    for (const o of objects) if (o.handle && !next.includes(o)) alive.delete(o.handle);
    objects = next;
  }
  const live = objects.map((o) => {
    let tags = withoutDeadReactors(o.tags, alive) ?? o.tags;
    if (o.type === 'DICTIONARY' || o.type === 'ACDBDICTIONARYWDFLT') {
      tags = withoutDeadEntries({ ...o, tags }, (h) => alive.has(h)) ?? tags;
    }
    return tags === o.tags ? o : { ...o, tags };
  });
  return { objects: live, alive };
}

/**
 * An object's tags without the reactors (330 in its ACAD_REACTORS group) that are not written, e.g.
 * an IMAGEDEF's reactor whose image was erased; undefined when every reactor is written.
 */
function withoutDeadReactors(tags: DxfTag[], alive: Set<string>): DxfTag[] | undefined {
  let out: DxfTag[] | undefined;
  let inReactors = false;
  for (let i = 0; i < tags.length; i++) {
    const x = tags[i] as DxfTag;
    if (x.code === 102) inReactors = x.value === '{ACAD_REACTORS';
    if (inReactors && x.code === 330 && !alive.has(normalizeHandle(x.value))) {
      out ??= tags.slice(0, i);
      continue;
    }
    out?.push(x);
  }
  // A group left without reactors goes too.
  return out?.filter(
    (x, i, all) =>
      !(x.code === 102 && x.value === '{ACAD_REACTORS' && all[i + 1]?.code === 102) &&
      !(
        x.code === 102 &&
        x.value === '}' &&
        all[i - 1]?.value === '{ACAD_REACTORS' &&
        all[i - 1]?.code === 102
      ),
  );
}

function subEntityHandles(e: Entity): string[] {
  const tags =
    e.type === 'Raw'
      ? e.tags
      : e.type === 'Insert'
        ? (e.attribs ?? [])
        : e.type === 'Polyline'
          ? e.vertex_tags
          : [];
  const out: string[] = [];
  let sub = e.type === 'Insert' || e.type === 'Polyline';
  for (const t of tags) {
    if (t.code === 0) sub = true;
    else if (sub && t.code === 5) out.push(normalizeHandle(t.value));
  }
  return out;
}

function writeObjects(
  w: TagWriter,
  doc: DxfDocumentModel,
  objects: RawRecord[],
  groups: [Group, string[]][],
): void {
  w.tag(0, 'SECTION');
  w.tag(2, 'OBJECTS');
  const root = objects[0] as RawRecord;
  const rootEntries = new Map(dictionaryEntries(root));
  const groupDict = rootEntries.get('ACAD_GROUP') as string;
  const layoutDict = rootEntries.get('ACAD_LAYOUT') as string;
  const layouts = Object.values(doc.layouts).sort((a, b) => a.tab_order - b.tab_order);
  for (const o of objects) {
    if (o.handle === groupDict) {
      writeRawObject(w, {
        ...o,
        tags: withDictionaryEntries(
          o,
          groups.map(([g]) => [g.name, g.handle]),
        ),
      });
    } else if (o.handle === layoutDict) {
      writeRawObject(w, {
        ...o,
        tags: withDictionaryEntries(
          o,
          layouts.map((l) => [l.name, l.handle]),
        ),
      });
    } else {
      writeRawObject(w, o);
    }
  }
  for (const layout of layouts) writeLayoutObject(w, doc, layout, layoutDict);
  for (const [group, members] of groups) writeGroup(w, group, members, groupDict);
  w.tag(0, 'ENDSEC');
}

function writeRawObject(w: TagWriter, o: RawRecord): void {
  w.tag(0, o.type);
  w.tags(o.tags);
}

function writeLayoutObject(w: TagWriter, doc: DxfDocumentModel, layout: Layout, owner: string): void {
  const block = findBlock(doc, layout.block) as Block;
  writeLayout(w, layout, owner, block.record_handle);
}

function writeGroup(w: TagWriter, group: Group, members: string[], owner: string): void {
  const [head, body, xdata] = splitExtra(group.extra);
  w.tag(0, 'GROUP');
  w.tag(5, group.handle);
  w.tag(102, '{ACAD_REACTORS');
  w.tag(330, owner);
  w.tag(102, '}');
  w.tags(head);
  w.tag(330, owner);
  w.tag(100, 'AcDbGroup');
  w.tag(300, group.description);
  w.tag(70, group.name.startsWith('*') ? '1' : '0');
  w.tag(71, group.selectable === false ? '0' : '1');
  for (const h of members) w.tag(340, h);
  w.tags(body);
  w.tags(xdata);
}

/** The records one write of a TagWriter holds, as raw records (type from the `0` tag, its handle). */
function writtenRecords(text: string): RawRecord[] {
  const lines = text.split('\n');
  const out: RawRecord[] = [];
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const code = Number((lines[i] as string).trim());
    const value = lines[i + 1] as string;
    if (code === 0) out.push({ type: value, handle: undefined, tags: [] });
    else {
      const record = out.at(-1);
      if (!record) continue;
      if (code === 5 && record.handle === undefined) record.handle = value;
      record.tags.push({ code, value });
    }
  }
  return out;
}

/**
 * The LAYER and BLOCK_RECORD records as the save writes them. The model keeps layers and blocks modeled,
 * not as raw records; the `records` read lists these beside the raw tables so every table is there.
 */
export function modeledTableRecords(doc: DxfDocumentModel): Record<'LAYER' | 'BLOCK_RECORD', RawRecord[]> {
  const layers = new TagWriter();
  const layerTable = dictGet(doc.table_handles, 'LAYER') ?? '0';
  for (const layer of Object.values(doc.layers)) writeLayer(layers, layer, layerTable);
  const blocks = new TagWriter();
  const blockTable = dictGet(doc.table_handles, 'BLOCK_RECORD') ?? '0';
  for (const block of writableBlocks(doc)) writeBlockRecord(blocks, doc, block, blockTable);
  return { LAYER: writtenRecords(layers.text()), BLOCK_RECORD: writtenRecords(blocks.text()) };
}
