import type { DocumentState } from '../../../projections/editor-session.js';
import { dictGet } from '../dict.js';
import { isLayoutBlockName } from '../dxf/entity-types.js';
import { dictionaryEntries, withDictionaryEntries } from '../dxf/records.js';
import { rootEntry } from '../dxf/structure.js';
import { normalizeHandle } from '../dxf/values.js';
import { fail } from '../errors.js';
import { isMLeaderType } from '../geometry/mleader.js';
import { isTableType, renamedTable, tableBlock } from '../geometry/table.js';
import type { Block, DxfTag, Entity, RawEntity, RawRecord, XdataItem } from '../model.js';
import { named, nameIn, nameKey, sameName } from '../names.js';
import { definitionCopier, UNDERLAY_KINDS } from './copy-definitions.js';
import { freeAnonymousName } from './owned-blocks.js';
import type { StepBuilder } from './steps.js';

/** Linetypes every drawing has: never brought along. */
const BUILT_IN_LINETYPES = new Set(['BYLAYER', 'BYBLOCK', 'CONTINUOUS']);

/** What a copy into another document brought along besides the entities: the blocks, by target name. */
interface BroughtAlong {
  /** Blocks defined in the target for the copies (nested ones too), by their name there. */
  blocks: string[];
  /** Source name -> target name, for the blocks whose name the target already had. */
  renamed: Record<string, string>;
  /** Dimension styles defined in the target for copied DIMENSIONs. */
  dimensionStyles: string[];
  /** MLINE styles added to the target's ACAD_MLINESTYLE dictionary for copied MLINEs. */
  mlineStyles: string[];
  /** MLEADER styles added to the target's ACAD_MLEADERSTYLE dictionary for copied MULTILEADERs. */
  mleaderStyles: string[];
  /** Image definitions added to the target's ACAD_IMAGE_DICT for copied IMAGEs, by their name there. */
  imageDefs: string[];
  /** Underlay definitions added to the target's ACAD_PDF/DWF/DGNDEFINITIONS, by their name there. */
  underlayDefs: string[];
}

/**
 * A block name the target does not have: `NAME_1`, `NAME_2`... for a named block; an anonymous one
 * (`*U7`, `*D3`, `*T2`) takes the first free number of its letter, as a block an entity owns does
 * (`freeAnonymousName`).
 */
function freeName(name: string, taken: (n: string) => boolean): string {
  const anonymous = /^(\*[A-Za-z]+)\d*$/.exec(name);
  if (anonymous) return freeAnonymousName(anonymous[1] as string, taken);
  for (let n = 1; ; n++) {
    const candidate = `${name}_${n}`;
    if (!taken(candidate)) return candidate;
  }
}

/**
 * The DIMSTYLE handles and what they name (DIMTXSTY; DIMLDRBLK, DIMBLK, DIMBLK1, DIMBLK2; DIMLTYPE,
 * DIMLTEX1, DIMLTEX2), by group code: of a DIMSTYLE record, and of the 1070 code before a 1005 handle
 * in a dimension's or leader's ACAD DSTYLE override.
 */
const DIMSTYLE_HANDLES: Readonly<Record<number, 'style' | 'arrow' | 'linetype'>> = {
  340: 'style',
  341: 'arrow',
  342: 'arrow',
  343: 'arrow',
  344: 'arrow',
  345: 'linetype',
  346: 'linetype',
  347: 'linetype',
};

/** The arrowhead handles of a MULTILEADER (342 its own, 345 a leader's) and of an MLEADERSTYLE (341). */
const MLEADER_ARROWS = new Set([342, 345]);
const MLEADERSTYLE_ARROW = 341;

/** 102 groups point at objects of the source (an extension dictionary, reactors): they stay behind. */
const withoutAppGroups = (tags: DxfTag[] | undefined): DxfTag[] | undefined => {
  if (!tags) return undefined;
  const out: DxfTag[] = [];
  let inGroup = false;
  for (const t of tags) {
    if (t.code === 102) inGroup = t.value.startsWith('{');
    else if (!inGroup) out.push(t);
  }
  return out.length > 0 ? out : undefined;
};

/**
 * Copies of `entities` of document `from` for document `target`, with fresh handles, in `space`: each
 * on the target's layer of its name (made like the source's when missing), with the source's linetype
 * and text style records the target lacks, and each Insert of a block
 * the copy brings along — the block's definition with its contents, recursively, under its own name or,
 * when the target has that name, under a free one (`freeName`). Pushes the blocks and their contents onto
 * `step`; returns the copies (for the caller to place) and what was brought along.
 */
export function copiesFor(
  from: DocumentState,
  target: DocumentState,
  entities: readonly Entity[],
  space: string,
  step: StepBuilder,
): { copies: Entity[]; brought: BroughtAlong } {
  const brought: BroughtAlong = {
    blocks: [],
    renamed: {},
    dimensionStyles: [],
    mlineStyles: [],
    mleaderStyles: [],
    imageDefs: [],
    underlayDefs: [],
  };
  const definitions = definitionCopier(from, target, step);
  const targetNames = new Map<string, string>();
  const made = new Set<string>();
  // Target block name key -> the handle of the block record made for it.
  const recordHandles = new Map<string, string>();
  // Source entity handle -> its copy's handle (the copied entities, the contents of the blocks brought).
  const entityHandles = new Map<string, string>();
  const taken = (name: string) => nameIn(target.model.blocks, name) !== undefined || made.has(nameKey(name));

  /** The target's spelling of a STYLE or LTYPE record of the source, brought along when it lacks it. */
  const record = (table: string, name: string): string => {
    const like = (dictGet(from.model.tables, table) ?? []).find((r) =>
      r.tags.some((t) => t.code === 2 && sameName(t.value, name)),
    );
    return like ? step.ensureRecord(table, name, like) : (step.recordName(table, name) ?? name);
  };
  const linetype = (name: string) =>
    BUILT_IN_LINETYPES.has(name.toUpperCase()) ? name : record('LTYPE', name);
  const layer = (name: string) => {
    const like = named(from.model.layers, name);
    // The layer's linetype first, so the layer made like the source's keeps it.
    if (like && nameIn(target.model.layers, name) === undefined) linetype(like.linetype);
    return step.ensureLayer(name, like);
  };

  const copyOf = (entity: Entity, handle: string, where: string): Entity => {
    const copy: Entity = {
      ...structuredClone(entity),
      handle,
      space: where,
      layer: layer(entity.layer),
      linetype: linetype(entity.linetype),
    };
    // The blocks a dimension's geometry block inserts are its arrows: the target's of that name when
    // it has one, as ezdxf's Importer takes them (no rename).
    if (copy.type === 'Insert') copy.name = bring(copy.name, entity.handle, /^\*D/i.test(where));
    if (copy.type === 'Insert' && copy.attribs) copy.attribs = freshHandles(subEntityTags(copy.attribs));
    if (copy.type === 'Polyline') copy.vertex_tags = freshHandles(copy.vertex_tags);
    if (copy.type === 'Raw' && copy.tags.some((t) => t.code === 0)) copy.tags = freshHandles(copy.tags);
    if (copy.type === 'Text' || copy.type === 'MText') copy.style = record('STYLE', copy.style);
    if (copy.xdata) copy.xdata = xdataFor(copy.xdata, entity.handle);
    if (copy.type === 'Raw' && copy.dxf_type === 'DIMENSION')
      copy.tags = dimensionTags(copy.tags, entity.handle);
    if (copy.type === 'Raw' && copy.dxf_type === 'LEADER') copy.tags = leaderTags(copy.tags, entity.handle);
    if (copy.type === 'Raw' && copy.dxf_type === 'HATCH') copy.tags = hatchTags(copy.tags);
    if (copy.type === 'Raw' && (copy.dxf_type === 'ATTDEF' || copy.dxf_type === 'ATTRIB'))
      copy.tags = subEntityTags(copy.tags);
    if (copy.type === 'Raw' && copy.dxf_type === 'MLINE') copy.tags = mlineTags(copy.tags);
    if (copy.type === 'Raw' && isTableType(copy.dxf_type)) return tableCopy(copy, entity.handle);
    if (copy.type === 'Raw' && isMLeaderType(copy.dxf_type))
      copy.tags = mleaderTags(copy.tags, entity.handle);
    if (copy.type === 'Raw' && UNDERLAY_KINDS[copy.dxf_type])
      copy.tags = definitions.underlay(copy.dxf_type, withoutAppGroups(copy.tags) ?? [], handle);
    if (copy.type === 'Image') return definitions.image(copy, handle);
    return copy;
  };

  /**
   * A DIMENSION's tags for the target: its geometry block (`2`, a `*D` block) brought along like an
   * Insert's, its dimension style (`3`) like a text style, its application groups (reactors to the
   * source's DIMASSOC, its extension dictionary) left behind.
   */
  function dimensionTags(tags: DxfTag[], handle: string): DxfTag[] {
    let inDimension = false;
    return (withoutAppGroups(tags) ?? []).map((t) => {
      if (t.code === 100) inDimension = t.value === 'AcDbDimension';
      if (!inDimension) return t;
      if (t.code === 2) return { code: 2, value: bring(t.value, handle) };
      if (t.code === 3) return { code: 3, value: dimensionStyle(t.value, handle) };
      return t;
    });
  }

  /**
   * The target's spelling of dimension style `name`, brought along when it lacks it, its handles
   * (`DIMSTYLE_HANDLES`) naming the target's records: its text style and linetypes brought along like
   * an entity's, its arrow blocks the target's of their name or brought along; a handle naming nothing
   * in the source is left out (DIMBLK's default: the closed filled arrow).
   */
  function dimensionStyle(name: string, entity: string): string {
    const known = step.recordName('DIMSTYLE', name);
    if (known !== undefined) return known;
    const like = (dictGet(from.model.tables, 'DIMSTYLE') ?? []).find((r) =>
      r.tags.some((t) => t.code === 2 && sameName(t.value, name)),
    );
    if (!like) return name;
    brought.dimensionStyles.push(name);
    const tags = like.tags.flatMap((t) => {
      if (DIMSTYLE_HANDLES[t.code] === undefined) return [t];
      const handle = dimstyleHandle(t.code, t.value, entity);
      return handle === '0' ? [] : [{ code: t.code, value: handle }];
    });
    return step.ensureRecord('DIMSTYLE', name, { ...like, tags });
  }

  /** The target's handle for what DIMSTYLE handle `h` of group code `code` names in the source; else 0. */
  function dimstyleHandle(code: number, h: string, entity: string): string {
    return DIMSTYLE_HANDLES[code] === undefined
      ? h
      : targetHandle(h, entity, DIMSTYLE_HANDLES[code] === 'arrow');
  }

  /**
   * A copy's xdata for the target: its applications registered there (APPID records like the source's),
   * and the handles of an ACAD DSTYLE override (a 1070 DIMSTYLE code, then its 1005 handle) naming the
   * target's records as a dimension style's do (`dimensionStyle`); a handle naming nothing is left out
   * with its code.
   */
  function xdataFor(xdata: Record<string, XdataItem[]>, entity: string): Record<string, XdataItem[]> {
    const out: Record<string, XdataItem[]> = {};
    for (const [app, items] of Object.entries(xdata)) {
      const name = sameName(app, 'ACAD') ? app : record('APPID', app);
      if (!sameName(app, 'ACAD')) {
        out[name] = items;
        continue;
      }
      const mapped: XdataItem[] = [];
      for (let i = 0; i < items.length; i++) {
        const item = items[i] as XdataItem;
        const next = items[i + 1];
        const code = Number(item.value);
        if (item.code === 1070 && DIMSTYLE_HANDLES[code] !== undefined && next?.code === 1005) {
          const handle = dimstyleHandle(code, String(next.value), entity);
          if (handle !== '0') mapped.push(item, { code: 1005, value: handle });
          i++;
          continue;
        }
        mapped.push(item);
      }
      out[name] = mapped;
    }
    return out;
  }

  /**
   * A LEADER's tags for the target: its dimension style (`3`) like a dimension's, its annotation (340)
   * the copy of that entity when it is copied too, else none; its application groups left behind.
   */
  function leaderTags(tags: DxfTag[], handle: string): DxfTag[] {
    let inLeader = false;
    return (withoutAppGroups(tags) ?? []).flatMap((t) => {
      if (t.code === 100) inLeader = t.value === 'AcDbLeader';
      if (!inLeader) return [t];
      if (t.code === 3) return [{ code: 3, value: dimensionStyle(t.value, handle) }];
      if (t.code === 340) {
        const annotation = entityHandles.get(normalizeHandle(t.value));
        return annotation === undefined ? [] : [{ code: 340, value: annotation }];
      }
      return [t];
    });
  }

  /**
   * A HATCH's tags for the target, as ezdxf's Importer copies it: its pattern kept, not associative
   * (71 0), its boundary paths naming no source objects (97 0, their 330s left out) — those handles
   * name entities of the source; its application groups left behind.
   */
  function hatchTags(tags: DxfTag[]): DxfTag[] {
    let inHatch = false;
    let skip = 0;
    return (withoutAppGroups(tags) ?? []).flatMap((t) => {
      if (t.code === 100) inHatch = t.value === 'AcDbHatch';
      if (!inHatch) return [t];
      if (skip > 0 && t.code === 330) {
        skip--;
        return [];
      }
      skip = 0;
      if (t.code === 71) return [{ code: 71, value: '0' }];
      if (t.code === 97) {
        skip = Number(t.value) || 0;
        return [{ code: 97, value: '0' }];
      }
      return [t];
    });
  }

  /**
   * Sub-entities (ATTRIBs, VERTEXes, their SEQEND) with handles of their own in the target: the
   * source's may be the handles of records this copy makes there.
   */
  function freshHandles(tags: DxfTag[]): DxfTag[] {
    let fresh = false;
    return tags.map((t) => {
      if (t.code === 0) fresh = true;
      else if (fresh && t.code === 5) {
        fresh = false;
        return { code: 5, value: step.handles(1)[0] as string };
      }
      return t;
    });
  }

  /**
   * An ATTDEF's, or an INSERT's ATTRIBs' (and SEQEND's), tags for the target: each on the target's
   * layer of its name, its text style (7) and linetype (6) brought along, its application groups left
   * behind.
   */
  function subEntityTags(tags: DxfTag[]): DxfTag[] {
    return (withoutAppGroups(tags) ?? []).map((t) => {
      if (t.code === 8) return { code: 8, value: layer(t.value) };
      if (t.code === 7) return { code: 7, value: record('STYLE', t.value) };
      if (t.code === 6) return { code: 6, value: linetype(t.value) };
      return t;
    });
  }

  /**
   * An ACAD_TABLE for the target: its `*T` block (2) brought along like an Insert's and its block record
   * handle (AcDbTable 343) the new record's; its table style (342, a TABLESTYLE object) the target's of
   * that name, else its Standard one, else none (0) — a handle kept as it was would name whatever the
   * target has under it. Its cells: a block cell's block (340) brought along like an Insert's, the
   * attribute definitions it fills (331) the copies of those ATTDEFs in that block, a text style (7)
   * brought along like a Text's; a FIELD (344) stays behind (0: the cell shows its text).
   */
  function tableCopy(copy: RawEntity, handle: string): RawEntity {
    const tags = withoutAppGroups(copy.tags) ?? [];
    const name = tableBlock({ ...copy, tags });
    const style = tableStyle(tags);
    // The *T block first, so a block its contents insert and a cell names is one block in the target.
    const targetName = name === undefined ? undefined : bring(name, handle);
    let inTable = false;
    const cells = tags.map((t) => {
      if (t.code === 100) inTable = t.value === 'AcDbTable';
      if (!inTable) return t;
      if (t.code === 342) return { code: 342, value: style };
      if (t.code === 340) return { code: 340, value: targetHandle(t.value, handle) };
      if (t.code === 331) return { code: 331, value: entityHandles.get(normalizeHandle(t.value)) ?? '0' };
      if (t.code === 344) return { code: 344, value: '0' };
      if (t.code === 7) return { code: 7, value: record('STYLE', t.value) };
      return t;
    });
    if (targetName === undefined) return { ...copy, tags: cells };
    return renamedTable({ ...copy, tags: cells }, targetName, recordHandles.get(nameKey(targetName)) ?? '0');
  }

  /**
   * A MULTILEADER's tags for the target: each handle of its AcDbMLeader subclass (340-345: its
   * MLEADERSTYLE, text styles, leader linetype, arrowhead and content blocks; 330: the ATTDEFs of its
   * block content's attributes) the target's record or object of the same name — a block, text style,
   * linetype or MLEADERSTYLE brought along when the target lacks it — else 0. A handle kept as it was
   * would name whatever the target has under it.
   */
  function mleaderTags(tags: DxfTag[], handle: string): DxfTag[] {
    let inMLeader = false;
    return (withoutAppGroups(tags) ?? []).map((t) => {
      if (t.code === 100) inMLeader = t.value === 'AcDbMLeader';
      // A block content's attribute (330): the copy of its ATTDEF in the block brought along (its
      // block's handle, 341/344, comes first), else none.
      if (inMLeader && t.code === 330)
        return { code: 330, value: entityHandles.get(normalizeHandle(t.value)) ?? '0' };
      if (!inMLeader || t.code < 340 || t.code > 345) return t;
      return { code: t.code, value: targetHandle(t.value, handle, MLEADER_ARROWS.has(t.code)) };
    });
  }

  /**
   * The target's handle for what source handle `h` names (see `mleaderTags`); 0 when it has none. A
   * block is brought along like an Insert's, or, as an arrowhead (`arrow`), is the target's block of
   * its name when it has one.
   */
  function targetHandle(h: string, entity: string, arrow = false): string {
    const key = normalizeHandle(h);
    if (key === '0') return '0';
    const block = Object.values(from.model.blocks).find(
      (b) => b.record_handle !== undefined && normalizeHandle(b.record_handle) === key,
    );
    if (block && !isLayoutBlockName(block.name)) {
      const name = bring(block.name, entity, arrow);
      return recordHandles.get(nameKey(name)) ?? named(target.model.blocks, name)?.record_handle ?? '0';
    }
    for (const table of ['STYLE', 'LTYPE']) {
      const source = (dictGet(from.model.tables, table) ?? []).find((r) =>
        r.tags.some((t) => (t.code === 5 || t.code === 105) && normalizeHandle(t.value) === key),
      );
      const name = source?.tags.find((t) => t.code === 2)?.value;
      if (name === undefined) continue;
      const made = table === 'STYLE' ? record(table, name) : linetype(name);
      return step.recordHandle(table, made) ?? '0';
    }
    // A style object of the source (its MLEADERSTYLE); a handle naming nothing there names nothing here.
    const object = from.model.objects.find(
      (o) => o.handle !== undefined && normalizeHandle(o.handle) === key,
    );
    if (object?.type === 'MLEADERSTYLE') return mleaderStyle(object, key, entity);
    return object ? styleObject('ACAD_MLEADERSTYLE', key) : '0';
  }

  /** The name source object `key` has in the source's root dictionary `dict`. */
  function sourceEntryName(dict: string, key: string): string | undefined {
    const sourceDict = rootEntry(from.model, dict);
    return sourceDict
      ? dictionaryEntries(sourceDict).find(([, h]) => normalizeHandle(h) === key)?.[0]
      : undefined;
  }

  /** The target's entry of root dictionary `dict` named as source object `key` is there, else its Standard. */
  function styleObject(dict: string, key: string): string {
    const name = sourceEntryName(dict, key);
    const entries = styleDictionary(dict)?.entries ?? [];
    const same = entries.find(([k]) => name !== undefined && sameName(k, name));
    const standard = entries.find(([k]) => sameName(k, 'Standard'));
    return (same ?? standard)?.[1] ?? '0';
  }

  /**
   * The target's MLEADERSTYLE of the name source style `source` (handle `key`) has, else a copy of it
   * added to the target's ACAD_MLEADERSTYLE dictionary, its handles (leader linetype, arrowhead, text
   * style, content block) naming the target's records as a MULTILEADER's do; else the target's Standard.
   */
  function mleaderStyle(source: RawRecord, key: string, entity: string): string {
    const dict = 'ACAD_MLEADERSTYLE';
    const name = sourceEntryName(dict, key);
    const known =
      name === undefined ? undefined : styleDictionary(dict)?.entries.find(([k]) => sameName(k, name));
    if (known) return known[1];
    if (name === undefined) return styleObject(dict, key);
    const made = copiedStyle(dict, source, name, (t) =>
      t.code >= 340 && t.code <= 343
        ? { code: t.code, value: targetHandle(t.value, entity, t.code === MLEADERSTYLE_ARROW) }
        : t,
    );
    if (made === undefined) return styleObject(dict, key);
    brought.mleaderStyles.push(name);
    return made;
  }

  /** The target's TABLESTYLE handle for the table style `tags` name (by the source's name of it). */
  function tableStyle(tags: readonly DxfTag[]): string {
    return styleObject('ACAD_TABLESTYLE', normalizeHandle(tags.find((t) => t.code === 342)?.value ?? '0'));
  }

  // The target's style dictionaries (ACAD_MLINESTYLE, ACAD_MLEADERSTYLE...) and the entries this copy
  // adds to them (one change each, at the end).
  const styleDictionaries = new Map<
    string,
    { record: RawRecord; entries: [string, string][]; added: number }
  >();
  function styleDictionary(dict: string) {
    const known = styleDictionaries.get(dict);
    if (known) return known;
    const record = rootEntry(target.model, dict);
    if (!record?.handle) return undefined;
    const pending = { record, entries: dictionaryEntries(record), added: 0 };
    styleDictionaries.set(dict, pending);
    return pending;
  }

  /**
   * A copy of style object `source` added to the target's root dictionary `dict` under `name`: its own
   * handle, owned by that dictionary, its application groups left behind, each other tag as `map` has
   * it. Undefined when the target has no such dictionary.
   */
  function copiedStyle(
    dict: string,
    source: RawRecord,
    name: string,
    map: (t: DxfTag) => DxfTag = (t) => t,
  ): string | undefined {
    const pending = styleDictionary(dict);
    if (!pending) return undefined;
    const [handle] = step.handles(1) as [string];
    // Listed before its handles are mapped, so a style naming itself again finds this copy.
    pending.entries.push([name, handle]);
    pending.added++;
    const tags = (withoutAppGroups(source.tags) ?? []).map((t) =>
      t.code === 5
        ? { code: 5, value: handle }
        : t.code === 330
          ? { code: 330, value: pending.record.handle as string }
          : map(t),
    );
    step.push({ kind: 'object', key: handle, before: null, after: { type: source.type, handle, tags } });
    return handle;
  }

  /**
   * An MLINE's tags for the target: its style (`2` name, `340` handle of an MLINESTYLE object) is the
   * target's style of that name, else a copy of the source's added to the target's ACAD_MLINESTYLE
   * dictionary. A handle kept as it was would name whatever the target has under it.
   */
  function mlineTags(tags: DxfTag[]): DxfTag[] {
    const out = withoutAppGroups(tags) ?? [];
    const handleAt = out.findIndex((t) => t.code === 340);
    const nameAt = out.findIndex((t) => t.code === 2);
    const styleHandle = out[handleAt]?.value;
    const source = from.model.objects.find((o) => o.type === 'MLINESTYLE' && o.handle === styleHandle);
    const name = source?.tags.find((t) => t.code === 2)?.value ?? out[nameAt]?.value ?? 'Standard';
    const handle = mlineStyle(name, source);
    if (handle === undefined) return out.filter((_, i) => i !== handleAt);
    if (handleAt >= 0) out[handleAt] = { code: 340, value: handle };
    if (nameAt >= 0) out[nameAt] = { code: 2, value: name };
    return out;
  }

  /** The target's MLINESTYLE handle for style `name`, copying `source` in when it has none of it. */
  function mlineStyle(name: string, source: RawRecord | undefined): string | undefined {
    const known = styleDictionary('ACAD_MLINESTYLE')?.entries.find(([key]) => sameName(key, name));
    if (known) return known[1];
    if (!source) return undefined;
    const handle = copiedStyle('ACAD_MLINESTYLE', source, name);
    if (handle !== undefined) brought.mlineStyles.push(name);
    return handle;
  }

  /**
   * The target's name of source block `name`, defining it there on first use. An arrowhead (`arrow`:
   * a dimension style's, a dimension block's insert) is the target's block of that name when it has
   * one, as ezdxf's Importer takes arrows; any other block is renamed on a clash (`freeName`).
   */
  function bring(name: string, insert: string, arrow = false): string {
    const source = named(from.model.blocks, name);
    if (!source || isLayoutBlockName(source.name))
      return fail(
        'block_missing',
        `entity ${insert} inserts block ${name}, which document ${from.id} does not define`,
      );
    const key = nameKey(source.name);
    const known = targetNames.get(key);
    if (known !== undefined) return known;
    const own = arrow ? nameIn(target.model.blocks, source.name) : undefined;
    if (own !== undefined) {
      targetNames.set(key, own);
      return own;
    }
    const targetName = taken(source.name) ? freeName(source.name, taken) : source.name;
    if (targetName !== source.name) brought.renamed[source.name] = targetName;
    targetNames.set(key, targetName);
    made.add(nameKey(targetName));
    brought.blocks.push(targetName);
    const [record, begin, end] = step.handles(3) as [string, string, string];
    recordHandles.set(nameKey(targetName), record);
    const contents = source.entities
      .map((h) => dictGet(from.model.entities, h))
      .filter((e) => e !== undefined);
    const handles = step.handles(contents.length);
    contents.forEach((e, i) => {
      entityHandles.set(normalizeHandle(e.handle), handles[i] as string);
    });
    const block: Block = {
      ...structuredClone(source),
      name: targetName,
      record_handle: record,
      block_handle: begin,
      end_handle: end,
      layer: layer(source.layer),
      entities: handles,
    };
    const extra = withoutAppGroups(block.extra);
    const recordExtra = withoutAppGroups(block.record_extra);
    if (extra) block.extra = extra;
    else delete block.extra;
    if (recordExtra) block.record_extra = recordExtra;
    else delete block.record_extra;
    // The block before the entities that go into it, as block_define records them.
    step.push({ kind: 'block', key: targetName, before: null, after: block });
    contents.forEach((e, i) => {
      step.push({
        kind: 'entity',
        key: handles[i] as string,
        before: null,
        after: copyOf(e, handles[i] as string, targetName),
      });
    });
    return targetName;
  }

  const handles = step.handles(entities.length);
  entities.forEach((e, i) => {
    entityHandles.set(normalizeHandle(e.handle), handles[i] as string);
  });
  const copies = entities.map((e, i) => copyOf(e, handles[i] as string, space));
  for (const { record, entries, added } of styleDictionaries.values())
    if (added > 0)
      step.push({
        kind: 'object',
        key: record.handle as string,
        before: record,
        after: { ...record, tags: withDictionaryEntries(record, entries) },
      });
  definitions.finish();
  brought.imageDefs.push(...definitions.imageDefs);
  brought.underlayDefs.push(...definitions.underlayDefs);
  return { copies, brought };
}
