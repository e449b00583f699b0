import type { DocumentState } from '../../../projections/editor-session.js';
import { dictGet } from '../dict.js';
import { isLayoutBlockName } from '../dxf/entity-types.js';
import { dictionaryEntries, withDictionaryEntries } from '../dxf/records.js';
import { rootEntry } from '../dxf/structure.js';
import { normalizeHandle } from '../dxf/values.js';
import { fail } from '../errors.js';
import { isMLeaderType } from '../geometry/mleader.js';
import { isTableType, renamedTable, tableBlock } from '../geometry/table.js';
import type { Block, DxfTag, Entity, RawEntity, RawRecord } from '../model.js';
import { named, nameIn, nameKey, sameName } from '../names.js';
import { definitionCopier, UNDERLAY_KINDS } from './copy-definitions.js';
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
  /** Image definitions added to the target's ACAD_IMAGE_DICT for copied IMAGEs, by their name there. */
  imageDefs: string[];
  /** Underlay definitions added to the target's ACAD_PDF/DWF/DGNDEFINITIONS, by their name there. */
  underlayDefs: string[];
}

/**
 * A block name the target does not have: `NAME_1`, `NAME_2`... for a named block, the next free number
 * of its letter for an anonymous one (`*U7`, `*D3`), as ezdxf's Importer renames on a clash.
 */
function freeName(name: string, taken: (n: string) => boolean): string {
  const anonymous = /^(\*[A-Za-z]+)\d*$/.exec(name);
  for (let n = 1; ; n++) {
    const candidate = anonymous ? `${anonymous[1]}${n}` : `${name}_${n}`;
    if (!taken(candidate)) return candidate;
  }
}

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
    imageDefs: [],
    underlayDefs: [],
  };
  const definitions = definitionCopier(from, target, step);
  const targetNames = new Map<string, string>();
  const made = new Set<string>();
  // Target block name key -> the handle of the block record made for it.
  const recordHandles = new Map<string, string>();
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
    if (copy.type === 'Insert') copy.name = bring(copy.name, entity.handle);
    if (copy.type === 'Text' || copy.type === 'MText') copy.style = record('STYLE', copy.style);
    if (copy.type === 'Raw' && copy.dxf_type === 'DIMENSION')
      copy.tags = dimensionTags(copy.tags, entity.handle);
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
      if (t.code === 3) return { code: 3, value: dimensionStyle(t.value) };
      return t;
    });
  }

  /**
   * The target's spelling of dimension style `name`, brought along when it lacks it. The copy's text
   * style handle (340) stays behind — it names a record of the source; without it the style's text is
   * in Standard, as DIMTXSTY's default is.
   */
  function dimensionStyle(name: string): string {
    const known = step.recordName('DIMSTYLE', name);
    if (known !== undefined) return known;
    const like = (dictGet(from.model.tables, 'DIMSTYLE') ?? []).find((r) =>
      r.tags.some((t) => t.code === 2 && sameName(t.value, name)),
    );
    if (!like) return name;
    brought.dimensionStyles.push(name);
    return step.ensureRecord('DIMSTYLE', name, { ...like, tags: like.tags.filter((t) => t.code !== 340) });
  }

  /**
   * An ACAD_TABLE for the target: its `*T` block (2) brought along like an Insert's and its block record
   * handle (AcDbTable 343) the new record's; its table style (342, a TABLESTYLE object) the target's of
   * that name, else its Standard one, else none (0) — a handle kept as it was would name whatever the
   * target has under it.
   */
  function tableCopy(copy: RawEntity, handle: string): RawEntity {
    const tags = withoutAppGroups(copy.tags) ?? [];
    const name = tableBlock({ ...copy, tags });
    const style = tableStyle(tags);
    const styled = tags.map((t) => (t.code === 342 ? { code: 342, value: style } : t));
    if (name === undefined) return { ...copy, tags: styled };
    const targetName = bring(name, handle);
    return renamedTable({ ...copy, tags: styled }, targetName, recordHandles.get(nameKey(targetName)) ?? '0');
  }

  /**
   * A MULTILEADER's tags for the target: each handle of its AcDbMLeader subclass (340-345: its
   * MLEADERSTYLE, text styles, leader linetype, arrowhead and content blocks) the target's record or
   * object of the same name — a block or a text style or linetype brought along when the target lacks
   * it, a style object the target's of that name or its Standard one — else 0. A handle kept as it was
   * would name whatever the target has under it.
   */
  function mleaderTags(tags: DxfTag[], handle: string): DxfTag[] {
    let inMLeader = false;
    return (withoutAppGroups(tags) ?? []).map((t) => {
      if (t.code === 100) inMLeader = t.value === 'AcDbMLeader';
      if (!inMLeader || t.code < 340 || t.code > 345) return t;
      return { code: t.code, value: targetHandle(t.value, handle) };
    });
  }

  /** The target's handle for what source handle `h` names (see `mleaderTags`); 0 when it has none. */
  function targetHandle(h: string, entity: string): string {
    const key = normalizeHandle(h);
    if (key === '0') return '0';
    const block = Object.values(from.model.blocks).find(
      (b) => b.record_handle !== undefined && normalizeHandle(b.record_handle) === key,
    );
    if (block && !isLayoutBlockName(block.name)) {
      const name = bring(block.name, entity);
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
    return object ? styleObject('ACAD_MLEADERSTYLE', key) : '0';
  }

  /** The target's entry of root dictionary `dict` named as source object `key` is there, else its Standard. */
  function styleObject(dict: string, key: string): string {
    const sourceDict = rootEntry(from.model, dict);
    const name = sourceDict
      ? dictionaryEntries(sourceDict).find(([, h]) => normalizeHandle(h) === key)?.[0]
      : undefined;
    const targetDict = rootEntry(target.model, dict);
    const entries = targetDict ? dictionaryEntries(targetDict) : [];
    const same = entries.find(([k]) => name !== undefined && sameName(k, name));
    const standard = entries.find(([k]) => sameName(k, 'Standard'));
    return (same ?? standard)?.[1] ?? '0';
  }

  /** The target's TABLESTYLE handle for the table style `tags` name (by the source's name of it). */
  function tableStyle(tags: readonly DxfTag[]): string {
    return styleObject('ACAD_TABLESTYLE', normalizeHandle(tags.find((t) => t.code === 342)?.value ?? '0'));
  }

  // The target's MLINE style dictionary and the entries this copy adds to it (one change, at the end).
  const mlineDict = rootEntry(target.model, 'ACAD_MLINESTYLE');
  const mlineEntries = mlineDict ? dictionaryEntries(mlineDict) : [];
  const mlineEntriesBefore = mlineEntries.length;

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
    const known = mlineEntries.find(([key]) => sameName(key, name));
    if (known) return known[1];
    if (!mlineDict?.handle || !source) return undefined;
    const [handle] = step.handles(1) as [string];
    const tags = (withoutAppGroups(source.tags) ?? []).map((t) =>
      t.code === 5
        ? { code: 5, value: handle }
        : t.code === 330
          ? { code: 330, value: mlineDict.handle as string }
          : t,
    );
    step.push({ kind: 'object', key: handle, before: null, after: { type: 'MLINESTYLE', handle, tags } });
    mlineEntries.push([name, handle]);
    brought.mlineStyles.push(name);
    return handle;
  }

  /** The target's name of source block `name`, defining it there on first use. */
  function bring(name: string, insert: string): string {
    const source = named(from.model.blocks, name);
    if (!source || isLayoutBlockName(source.name))
      return fail(
        'block_missing',
        `entity ${insert} inserts block ${name}, which document ${from.id} does not define`,
      );
    const key = nameKey(source.name);
    const known = targetNames.get(key);
    if (known !== undefined) return known;
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
  const copies = entities.map((e, i) => copyOf(e, handles[i] as string, space));
  if (mlineDict?.handle && mlineEntries.length > mlineEntriesBefore)
    step.push({
      kind: 'object',
      key: mlineDict.handle,
      before: mlineDict,
      after: { ...mlineDict, tags: withDictionaryEntries(mlineDict, mlineEntries) },
    });
  definitions.finish();
  brought.imageDefs.push(...definitions.imageDefs);
  brought.underlayDefs.push(...definitions.underlayDefs);
  return { copies, brought };
}
