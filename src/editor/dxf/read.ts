import { dictDelete, dictGet, dictHas, dictSet } from '../dict.js';
import type { Block, DxfDocumentModel, DxfTag, Entity, Group, Layer, Layout, RawRecord } from '../model.js';
import { nameIn, nameInList, nameKey } from '../names.js';
import { claimTagHandle, entityEnd, nextEntityStart, readEntity } from './entity-read.js';
import { isLayoutBlockName, MODEL_SPACE, PAPER_SPACE } from './entity-types.js';
import { DxfError } from './errors.js';
import { guidHeaderTags, newGuid, parseGuid } from './identity.js';
import { readLayout } from './layout-object.js';
import { recordHandleCode, upgradeRecordTags } from './r12.js';
import { ReadContext } from './read-context.js';
import { dictionaryEntries, findRecord, recordName } from './records.js';
import { ensureStructure, findBlock, newBlock, newLayer, rootEntry } from './structure.js';
import { type TagList, tokenize } from './tags.js';
import { handleValue, normalizeHandle, toInt, toNumber } from './values.js';

export interface ReadDxfOptions {
  /**
   * The $FINGERPRINTGUID (36 characters) to give a file that has none. Without it a file without one is
   * read without one: its identity is minted by the first `file_identity`, as the reference editor mints it.
   */
  guid?: string;
  /** Give the document a new $FINGERPRINTGUID even when the file has one (a new drawing from a template). */
  newIdentity?: boolean;
  /**
   * Recover mode (as ezdxf's `recover`): a file without EOF, a section without ENDSEC, a last group code
   * without value or data after EOF is read as far as it goes, each repair noted in `recovered`.
   */
  recover?: boolean;
  /** Where the repairs and the records left out are noted, one sentence each, in file order. */
  recovered?: string[];
}

interface Section {
  name: string;
  /** First tag after `2 NAME`. */
  start: number;
  /** Index of the `0 ENDSEC` tag. */
  end: number;
}

const isZero = (t: TagList, i: number, value: string) =>
  t.codes[i] === 0 && (t.is(i, value) || t.value(i).trim().toUpperCase() === value);

/**
 * The sections of the file, and the indexes of the tags that stand outside any (between an ENDSEC and the
 * next SECTION): header variables among them are rescued as ezdxf's recover does (`rescueHeaderVars`).
 */
function splitSections(
  t: TagList,
  recover: boolean,
  notes: string[],
): { sections: Section[]; strays: number[] } {
  if (t.count === 0) throw new DxfError('dxf_invalid', 'not a DXF file: it is empty');
  if (!isZero(t, 0, 'SECTION'))
    throw new DxfError('dxf_invalid', 'not a DXF file: it does not start with a SECTION');
  const sections: Section[] = [];
  const strays: number[] = [];
  let i = 0;
  for (;;) {
    if (i >= t.count) {
      if (!recover) throw new DxfError('dxf_truncated', 'truncated DXF: the file ends without EOF');
      notes.push('the file ends without EOF: read to its end');
      break;
    }
    if (isZero(t, i, 'EOF')) break;
    if (!isZero(t, i, 'SECTION')) {
      strays.push(i++);
      continue;
    }
    if (t.codes[i + 1] !== 2) throw new DxfError('dxf_invalid', 'not a DXF file: a SECTION without a name');
    const name = t
      .value(i + 1)
      .trim()
      .toUpperCase();
    let j = i + 2;
    while (j < t.count && !(t.codes[j] === 0 && isSectionBoundary(t, j))) j++;
    const closed = j < t.count && isZero(t, j, 'ENDSEC');
    if (!closed) {
      if (!recover)
        throw new DxfError('dxf_truncated', `truncated DXF: section ${name} is not closed by ENDSEC`);
      notes.push(`section ${name} is not closed by ENDSEC: it ends where the next one (or the file) starts`);
    }
    sections.push({ name, start: i + 2, end: j });
    i = closed ? j + 1 : j;
  }
  if (sections.length === 0) throw new DxfError('dxf_invalid', 'not a DXF file: it has no sections');
  return { sections, strays };
}

/**
 * Header variables written outside the HEADER section (a `9 $NAME` tag and its value tags, between two
 * sections) go into `header`, as ezdxf's recover rescues them, unless HEADER sets the variable itself (its
 * value wins); other stray tags carry nothing. Each is said in `notes`.
 */
function rescueHeaderVars(
  t: TagList,
  strays: readonly number[],
  header: Record<string, DxfTag[]>,
  notes: string[],
): void {
  const kept: string[] = [];
  const dropped: string[] = [];
  let others = 0;
  // The value tags of the variable being read: its list when kept, null when dropped, undefined when none.
  let current: DxfTag[] | null | undefined;
  for (const i of strays) {
    const code = t.codes[i] as number;
    if (code === 9) {
      const name = t.value(i).trim();
      if (!dictHas(header, name)) {
        current = [];
        dictSet(header, name, current);
        kept.push(name);
      } else {
        current = null;
        dropped.push(name);
      }
    } else if (code === 0 || current === undefined) {
      current = undefined;
      others++;
    } else current?.push({ code, value: t.value(i) });
  }
  // A variable left without a value tag is no variable.
  for (const name of kept.filter((n) => dictGet(header, n)?.length === 0)) dictDelete(header, name);
  const valued = kept.filter((n) => dictHas(header, n));
  if (valued.length > 0)
    notes.push(`header variables outside the HEADER section: kept (${valued.join(', ')})`);
  if (dropped.length > 0)
    notes.push(
      `header variables outside the HEADER section that HEADER also sets: dropped (${dropped.join(', ')})`,
    );
  if (others > 0) notes.push(`${others} tags outside any section: left out`);
}

function isSectionBoundary(t: TagList, i: number): boolean {
  if (t.is(i, 'ENDSEC') || t.is(i, 'SECTION') || t.is(i, 'EOF')) return true;
  const v = t.value(i).trim();
  return v === 'ENDSEC' || v === 'SECTION' || v === 'EOF';
}

function slice(t: TagList, start: number, end: number): DxfTag[] {
  const out: DxfTag[] = new Array(end - start);
  for (let i = start; i < end; i++) out[i - start] = { code: t.codes[i] as number, value: t.value(i) };
  return out;
}

function readHeader(t: TagList, s: Section): Record<string, DxfTag[]> {
  const header: Record<string, DxfTag[]> = {};
  let current: DxfTag[] | undefined;
  for (let i = s.start; i < s.end; i++) {
    const code = t.codes[i] as number;
    if (code === 9) {
      current = [];
      dictSet(header, t.value(i).trim(), current);
    } else if (current) {
      current.push({ code, value: t.value(i) });
    }
  }
  return header;
}

interface BlockRecordInfo {
  name: string;
  handle: string;
  extra: DxfTag[];
}

interface Reader {
  t: TagList;
  ctx: ReadContext;
  doc: DxfDocumentModel;
  /** BLOCK_RECORDs by uppercase name, until their BLOCK claims them. */
  records: Map<string, BlockRecordInfo>;
  /** Entities without a handle yet, with the list slot they go in once they have one. */
  pending: { entity: Entity; list: string[]; at: number }[];
}

/** The symbol tables: each one's records are of the table's own type. */
const TABLE_TYPES = new Set([
  'APPID',
  'BLOCK_RECORD',
  'DIMSTYLE',
  'LAYER',
  'LTYPE',
  'STYLE',
  'UCS',
  'VIEW',
  'VPORT',
]);

function readTables(r: Reader, s: Section): void {
  const { t, ctx, doc } = r;
  let i = s.start;
  const orphans = new Set<string>();
  while (i < s.end) {
    if (!isZero(t, i, 'TABLE')) {
      const next = nextEntityStart(t, i, s.end);
      // A record outside any TABLE (its table's head missing, as in ezdxf's recover02.dxf, whose
      // BLOCK_RECORD records follow the DIMSTYLE ENDTAB): read into the table of its type, as ezdxf's
      // recover does, so the blocks and layouts they name are kept.
      const type = t.codes[i] === 0 ? t.value(i).trim().toUpperCase() : '';
      if (TABLE_TYPES.has(type)) {
        if (!orphans.has(type)) {
          orphans.add(type);
          ctx.note(`${type} records outside a TABLE (its head is missing): read into the ${type} table`);
          if (dictGet(doc.table_handles, type) === undefined)
            ctx.claim(undefined, (h) => dictSet(doc.table_handles, type, h));
        }
        readRecord(r, type, type, slice(t, i + 1, next));
      }
      i = next;
      continue;
    }
    const headEnd = nextEntityStart(t, i, s.end);
    const head = slice(t, i + 1, headEnd);
    const name = (head.find((x) => x.code === 2)?.value ?? '').trim().toUpperCase();
    const headExtra: DxfTag[] = [];
    let headHandle: string | undefined;
    let inGroup = false;
    for (const x of head) {
      if (x.code === 102) {
        inGroup = x.value.startsWith('{');
        headExtra.push(x);
      } else if (inGroup || x.code >= 1000) headExtra.push(x);
      else if ((x.code === 5 || x.code === 105) && headHandle === undefined) headHandle = x.value;
    }
    const handle = ctx.claim(headHandle, (h) => {
      dictSet(doc.table_handles, name, h);
    });
    if (handle) dictSet(doc.table_handles, name, handle);
    if (headExtra.length > 0) {
      doc.table_extra ??= {};
      dictSet(doc.table_extra, name, headExtra);
    }
    let j = headEnd;
    while (j < s.end && !isZero(t, j, 'ENDTAB')) {
      const recordEnd = nextEntityStart(t, j, s.end);
      const type = t.value(j).trim().toUpperCase();
      let tags = slice(t, j + 1, recordEnd);
      if (ctx.r12) tags = upgradeRecordTags(name, tags);
      readRecord(r, name, type, tags);
      j = recordEnd;
    }
    i = j < s.end ? nextEntityStart(t, j, s.end) : s.end;
  }
}

function readRecord(r: Reader, table: string, type: string, tags: DxfTag[]): void {
  const { ctx, doc } = r;
  if (type === 'LAYER') {
    const layer = readLayer(tags, ctx);
    const taken = nameIn(doc.layers, layer.name);
    if (taken === undefined) dictSet(doc.layers, layer.name, layer);
    else ctx.note(duplicateNote('layer', layer.name, taken));
    return;
  }
  if (type === 'BLOCK_RECORD') {
    const info: BlockRecordInfo = { name: '', handle: '', extra: [] };
    let layoutPointerSeen = false;
    const own = readOwnTags(tags, ({ code, value }) => {
      if (code === 2 && !info.name) info.name = ctx.decode(value);
      else if (code === 340 && !layoutPointerSeen)
        layoutPointerSeen = true; // written from `layouts`
      else return false;
      return true;
    });
    info.extra = own.extra;
    info.handle = ctx.claim(own.handle || undefined, (h) => {
      info.handle = h;
    });
    // The first record of a name is the block's (its BLOCK is the first of that name too).
    if (!r.records.has(nameKey(info.name))) r.records.set(nameKey(info.name), info);
    return;
  }
  const record: RawRecord = { type, handle: undefined, tags };
  record.handle = claimTagHandle(tags, recordHandleCode(table), ctx, (h) => {
    record.handle = h;
  });
  const list = dictGet(doc.tables, table) ?? [];
  dictSet(doc.tables, table, list);
  // One record per name, as AutoCAD and ezdxf keep them: the first. VPORT records share names by
  // design (a tiled configuration is several *Active records); unnamed STYLE records are shape files.
  const name = recordName(record);
  if (name !== '' && table !== 'VPORT') {
    const taken = findRecord(list, name);
    if (taken) {
      ctx.note(duplicateNote(table.toLowerCase(), name, recordName(taken)));
      return;
    }
  }
  list.push(record);
  if (table === 'APPID' && name && nameInList(doc.appids, name) === undefined) doc.appids.push(name);
}

/** A record's or object's own tags, as its reader sorts them apart. */
interface OwnTags {
  /** The last handle (5) before the first subclass marker. */
  handle: string | undefined;
  /** Tags neither the reader nor the field reader takes, 102 groups and xdata among them, in file order. */
  extra: DxfTag[];
}

/**
 * Walks a record's tags: 102 groups (but the one named `dropGroup`) and xdata go to `extra`, handle and
 * owner (written from the model) are taken out, and every other tag is offered to `field`, which says
 * whether it took it.
 */
function readOwnTags(tags: DxfTag[], field: (x: DxfTag) => boolean, dropGroup?: string): OwnTags {
  const own: OwnTags = { handle: undefined, extra: [] };
  let subclassSeen = false;
  let ownerSeen = false;
  let group = '';
  for (const x of tags) {
    const { code, value } = x;
    if (code === 102) {
      const opening = value.startsWith('{');
      if ((opening ? value : group) !== dropGroup) own.extra.push(x);
      group = opening ? value : '';
    } else if (group) {
      if (group !== dropGroup) own.extra.push(x);
    } else if (code >= 1000) own.extra.push(x);
    else if (code === 5 && !subclassSeen) own.handle = value;
    else if (code === 330 && !subclassSeen && !ownerSeen) ownerSeen = true;
    else if (code === 100) subclassSeen = true;
    else if (!field(x)) own.extra.push(x);
  }
  return own;
}

function readLayer(tags: DxfTag[], ctx: ReadContext): Layer {
  const layer = newLayer('', '');
  const own = readOwnTags(tags, ({ code, value }) => {
    if (code === 2) layer.name = ctx.decode(value);
    else if (code === 70) {
      const flags = toInt(value);
      layer.frozen = (flags & 1) !== 0;
      layer.locked = (flags & 4) !== 0;
      if (flags & ~5) layer.flags = flags & ~5;
    } else if (code === 62) {
      const color = toInt(value);
      layer.off = color < 0;
      layer.color = Math.abs(color);
    } else if (code === 6) layer.linetype = ctx.decode(value);
    else if (code === 370) layer.lineweight = toInt(value);
    else return false;
    return true;
  });
  if (own.extra.length > 0) layer.extra = own.extra;
  layer.handle = ctx.claim(own.handle, (h) => {
    layer.handle = h;
  });
  return layer;
}

const duplicateNote = (kind: string, name: string, kept: string) =>
  `a second ${kind} ${JSON.stringify(name)} was left out: names are one name in any case, and ${JSON.stringify(kept)} came first`;

/** R12 names model and paper space blocks `$MODEL_SPACE` and `$PAPER_SPACE`. */
function blockName(name: string): string {
  const upper = name.toUpperCase();
  if (upper === '$MODEL_SPACE' || upper === '*MODEL_SPACE') return MODEL_SPACE;
  if (upper === '$PAPER_SPACE' || upper === '*PAPER_SPACE') return PAPER_SPACE;
  return name;
}

function readBlocks(r: Reader, s: Section): void {
  const { t, ctx, doc } = r;
  let i = s.start;
  while (i < s.end) {
    if (!isZero(t, i, 'BLOCK')) {
      i = nextEntityStart(t, i, s.end);
      continue;
    }
    const headEnd = nextEntityStart(t, i, s.end);
    const block = readBlockHead(r, slice(t, i + 1, headEnd));
    const layoutBlock = isLayoutBlockName(block.name);
    // A second definition of a name (in any case) is left out with its contents, as ezdxf's audit does.
    const taken = nameIn(doc.blocks, block.name);
    if (taken !== undefined) ctx.note(duplicateNote('block', block.name, taken));
    let j = headEnd;
    while (j < s.end && !isZero(t, j, 'ENDBLK') && !isZero(t, j, 'BLOCK')) {
      const end = entityEnd(t, j, s.end);
      const entity = readEntity(t, j, end, block.name, ctx);
      if (taken === undefined) addEntity(r, entity, layoutBlock ? doc.order : block.entities);
      j = end;
    }
    let endHandle: string | undefined;
    if (j < s.end && isZero(t, j, 'ENDBLK')) {
      const end = nextEntityStart(t, j, s.end);
      for (let k = j + 1; k < end; k++) {
        if (t.codes[k] === 5) {
          endHandle = t.value(k);
          break;
        }
      }
      j = end;
    }
    block.end_handle = ctx.claim(endHandle, (h) => {
      block.end_handle = h;
    });
    if (taken === undefined) dictSet(doc.blocks, block.name, block);
    i = j;
  }
}

function readBlockHead(r: Reader, tags: DxfTag[]): Block {
  const { ctx } = r;
  const block = newBlock('', () => '');
  const own = readOwnTags(tags, ({ code, value }) => {
    if (code === 8) block.layer = ctx.decode(value);
    else if (code === 2) block.name = blockName(ctx.decode(value));
    else if (code === 3 || code === 67) {
      // the second name and the paper-space flag are written from `name`
    } else if (code === 70) block.flags = toInt(value);
    else if (code === 10) block.base[0] = toNumber(value);
    else if (code === 20) block.base[1] = toNumber(value);
    else if (code === 30) block.base[2] = toNumber(value);
    else return false;
    return true;
  });
  if (own.extra.length > 0) block.extra = own.extra;
  block.block_handle = ctx.claim(own.handle, (h) => {
    block.block_handle = h;
  });
  const record = r.records.get(nameKey(block.name));
  if (record) {
    r.records.delete(nameKey(block.name));
    block.record_handle = record.handle;
    if (!record.handle) ctx.claim(undefined, (h) => (block.record_handle = h));
    if (record.extra.length > 0) block.record_extra = record.extra;
  } else {
    ctx.claim(undefined, (h) => {
      block.record_handle = h;
    });
  }
  return block;
}

function addEntity(r: Reader, entity: Entity, list: string[]): void {
  if (entity.handle) {
    dictSet(r.doc.entities, entity.handle, entity);
    list.push(entity.handle);
    return;
  }
  // New handles are handed out once the whole file is read: the entity is placed then.
  r.pending.push({ entity, list, at: list.length });
  list.push('');
}

function readEntities(r: Reader, s: Section): void {
  const { t, ctx, doc } = r;
  const model = findBlock(doc, MODEL_SPACE)?.name ?? MODEL_SPACE;
  const paper = findBlock(doc, PAPER_SPACE)?.name ?? PAPER_SPACE;
  let i = s.start;
  while (i < s.end) {
    if (t.codes[i] !== 0) {
      i++;
      continue;
    }
    const end = entityEnd(t, i, s.end);
    const mainEnd = nextEntityStart(t, i, s.end);
    let space = model;
    for (let k = i + 1; k < mainEnd; k++) {
      if (t.codes[k] === 67) {
        if (t.int(k) === 1) space = paper;
        break;
      }
    }
    addEntity(r, readEntity(t, i, end, space, ctx), doc.order);
    i = end;
  }
}

interface PendingLayout {
  layout: Layout;
  blockRecord: string;
}

function readObjects(r: Reader, s: Section, layouts: PendingLayout[], groups: Group[]): void {
  const { t, ctx, doc } = r;
  let i = s.start;
  while (i < s.end) {
    const end = nextEntityStart(t, i, s.end);
    if (t.codes[i] !== 0) {
      i = end;
      continue;
    }
    const type = t.value(i).trim().toUpperCase();
    const tags = slice(t, i + 1, end);
    if (type === 'LAYOUT') {
      const read = readLayout(tags, ctx.decode);
      const layout = read.layout;
      layout.handle = ctx.claim(layout.handle || undefined, (h) => {
        layout.handle = h;
      });
      layouts.push({ layout, blockRecord: read.blockRecord });
    } else if (type === 'GROUP') {
      groups.push(readGroup(tags, ctx));
    } else {
      const record: RawRecord = { type, handle: undefined, tags };
      record.handle = claimTagHandle(tags, 5, ctx, (h) => {
        record.handle = h;
      });
      doc.objects.push(record);
    }
    i = end;
  }
}

function readGroup(tags: DxfTag[], ctx: ReadContext): Group {
  const group: Group = { name: '', handle: '', description: '', handles: [] };
  // The reactors point at ACAD_GROUP and are written on save; other 102 groups are kept.
  const own = readOwnTags(
    tags,
    ({ code, value }) => {
      if (code === 300) group.description = ctx.decode(value);
      else if (code === 70) {
        // unnamed flag: derived from the name
      } else if (code === 71) {
        if (toInt(value) === 0) group.selectable = false;
      } else if (code === 340) group.handles.push(normalizeHandle(value));
      else return false;
      return true;
    },
    '{ACAD_REACTORS',
  );
  if (own.extra.length > 0) group.extra = own.extra;
  group.handle = ctx.claim(own.handle, (h) => {
    group.handle = h;
  });
  return group;
}

/**
 * Reads an ASCII DXF drawing (R12 to R2018, LF or CRLF line ends) into the document model. Throws a
 * DxfError: `dxf_invalid` (not DXF), `dxf_truncated` (no EOF, a section not closed, a last group code
 * without value; each read as far as it goes in recover mode), `dxf_binary_unsupported` (binary DXF text:
 * load.ts turns binary DXF bytes into ASCII text first).
 */
export function readDxf(text: string, options: ReadDxfOptions = {}): DxfDocumentModel {
  const recover = options.recover === true;
  const notes: string[] = [];
  const t = tokenize(text, recover ? notes : undefined);
  const { sections, strays } = splitSections(t, recover, notes);
  const headerSection = sections.find((s) => s.name === 'HEADER');
  const header = headerSection ? readHeader(t, headerSection) : {};
  rescueHeaderVars(t, strays, header, notes);
  const version = (header.$ACADVER?.[0]?.value ?? 'AC1009').trim().toUpperCase();
  const ctx = new ReadContext(version);
  ctx.recovered.push(...notes);
  const doc: DxfDocumentModel = {
    version,
    header,
    handseed: 1,
    classes: [],
    layers: {},
    tables: {},
    table_handles: {},
    appids: [],
    blocks: {},
    layouts: {},
    groups: {},
    entities: {},
    order: [],
    objects: [],
  };
  const r: Reader = { t, ctx, doc, records: new Map(), pending: [] };
  const layouts: PendingLayout[] = [];
  const groups: Group[] = [];
  for (const s of sections) {
    switch (s.name) {
      case 'HEADER':
        break;
      case 'CLASSES':
        doc.classes.push(...slice(t, s.start, s.end));
        break;
      case 'TABLES':
        readTables(r, s);
        break;
      case 'BLOCKS':
        readBlocks(r, s);
        break;
      case 'ENTITIES':
        readEntities(r, s);
        break;
      case 'OBJECTS':
        readObjects(r, s, layouts, groups);
        break;
      default:
        doc.sections ??= [];
        doc.sections.push({ name: s.name, tags: slice(t, s.start, s.end) });
    }
  }
  // Block records without a BLOCK in the BLOCKS section still name a block.
  for (const info of r.records.values()) {
    const name = blockName(info.name);
    if (findBlock(doc, name)) continue;
    const block: Block = { ...newBlock(name, () => ''), record_handle: info.handle };
    if (info.extra.length > 0) block.record_extra = info.extra;
    ctx.claim(undefined, (h) => (block.block_handle = h));
    ctx.claim(undefined, (h) => (block.end_handle = h));
    if (!info.handle) ctx.claim(undefined, (h) => (block.record_handle = h));
    dictSet(doc.blocks, name, block);
  }

  const seed = handleValue(normalizeHandle(header.$HANDSEED?.[0]?.value ?? '1'));
  doc.handseed = ctx.finish(seed > 0 ? seed : 1);
  for (const p of r.pending) {
    dictSet(doc.entities, p.entity.handle, p.entity);
    p.list[p.at] = p.entity.handle;
  }

  placeLayouts(doc, layouts);
  placeGroups(doc, groups);
  delete doc.header.$HANDSEED;
  ensureStructure(doc);
  // A GUID of the file is kept as written (its case, its braces); none is made unless asked for.
  const written = !options.newIdentity && parseGuid(header.$FINGERPRINTGUID?.[0]?.value) !== undefined;
  const given = parseGuid(options.guid ?? '');
  if (!written && (given !== undefined || options.newIdentity))
    doc.header.$FINGERPRINTGUID = guidHeaderTags(given ?? newGuid());
  else if (!written) delete doc.header.$FINGERPRINTGUID;
  options.recovered?.push(...ctx.recovered);
  return doc;
}

function placeLayouts(doc: DxfDocumentModel, layouts: PendingLayout[]): void {
  const byRecord = new Map<string, string>();
  for (const block of Object.values(doc.blocks)) byRecord.set(block.record_handle, block.name);
  for (const { layout, blockRecord } of layouts) {
    let block = byRecord.get(blockRecord);
    if (!block && layout.name.toUpperCase() === 'MODEL') block = MODEL_SPACE;
    if (!block || !layout.name || nameIn(doc.layouts, layout.name) !== undefined) continue;
    layout.block = block;
    dictSet(doc.layouts, layout.name, layout);
  }
}

function placeGroups(doc: DxfDocumentModel, groups: Group[]): void {
  const dict = rootEntry(doc, 'ACAD_GROUP');
  const names = new Map<string, string>();
  if (dict) for (const [name, handle] of dictionaryEntries(dict)) names.set(handle, name);
  let anonymous = 0;
  for (const group of groups) {
    let name = names.get(group.handle) ?? `*A${++anonymous}`;
    while (nameIn(doc.groups, name) !== undefined) name = `*A${++anonymous}`;
    group.name = name;
    dictSet(doc.groups, name, group);
  }
}
