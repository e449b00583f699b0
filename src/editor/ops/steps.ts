import type { DocumentState } from '../../../projections/editor-session.js';
import {
  type Change,
  editorEvent,
  type NewEditorEvent,
  type StepEventType,
} from '../../../streams/editor.js';
import { dictGet } from '../dict.js';
import { newLayer } from '../dxf/structure.js';
import { formatHandle } from '../handles.js';
import type { DxfDocumentModel, DxfTag, Layer, RawRecord } from '../model.js';
import { NameSet, nameIn, nameKey, sameName } from '../names.js';

/** The event of one undo step: `type` names what happened, `changes` say it. */
export function stepEvent(
  type: StepEventType,
  doc: DocumentState,
  op: string,
  changes: Change[],
  result?: Record<string, unknown>,
): NewEditorEvent {
  return editorEvent(type, {
    document_id: doc.id,
    revision: doc.revision + 1,
    op,
    changes,
    ...(result ? { result } : {}),
  });
}

/**
 * Builds a step's changes while keeping track of the handle seed, so several allocations in one step
 * get distinct handles and one seed change.
 */
export class StepBuilder {
  readonly changes: Change[] = [];
  private seed: number;
  private readonly model: DxfDocumentModel;
  private readonly seedBefore: number;
  readonly layersCreated: string[] = [];
  /** Symbol-table records this step made (text styles, linetypes), by table, in the order made. */
  readonly recordsCreated: Record<string, string[]> = {};
  private readonly madeRecords = new Map<string, string>();
  // Table:name key -> the handle of the record this step made for it.
  private readonly madeRecordHandles = new Map<string, string>();
  private readonly made = new NameSet();

  constructor(model: DxfDocumentModel) {
    this.model = model;
    this.seed = model.handseed;
    this.seedBefore = model.handseed;
  }

  handles(count: number): string[] {
    const handles = Array.from({ length: count }, (_, i) => formatHandle(this.seed + i));
    this.seed += count;
    return handles;
  }

  /**
   * The layer `name` of the document, in any case (its canonical spelling); else creates it: like
   * `like` (a layer of another document, whose definition travels along), else colour 7, Continuous.
   * A second spelling of a layer made in this step resolves to the first.
   */
  ensureLayer(name: string, like?: Layer): string {
    const known = nameIn(this.model.layers, name) ?? this.made.get(name);
    if (known !== undefined) return known;
    this.made.add(name);
    const [handle] = this.handles(1) as [string];
    const linetypeKnown = (linetype: string) =>
      ['BYLAYER', 'BYBLOCK', 'CONTINUOUS'].includes(linetype.toUpperCase()) ||
      this.recordName('LTYPE', linetype) !== undefined;
    // Unmodeled tags stay behind: they may name objects (plot style, material) of the other document.
    const { extra: _extra, ...definition } = like ?? ({} as Layer);
    const layer: Layer = like
      ? {
          ...definition,
          name,
          handle,
          linetype: linetypeKnown(definition.linetype) ? definition.linetype : 'Continuous',
        }
      : newLayer(name, handle);
    this.changes.push({ kind: 'layer', key: name, before: null, after: layer });
    this.layersCreated.push(name);
    return name;
  }

  /** The spelling of record `name` of `table` in the document or among those this step made. */
  recordName(table: string, name: string): string | undefined {
    const known = (dictGet(this.model.tables, table) ?? [])
      .map((r) => r.tags.find((t) => t.code === 2)?.value)
      .find((n) => n !== undefined && sameName(n, name));
    return known ?? this.madeRecords.get(`${table}:${nameKey(name)}`);
  }

  /** The handle of record `name` of symbol table `table`, in any case (one this step made too). */
  recordHandle(table: string, name: string): string | undefined {
    const known = (dictGet(this.model.tables, table) ?? []).find((r) =>
      r.tags.some((t) => t.code === 2 && sameName(t.value, name)),
    );
    const handle = known?.handle ?? known?.tags.find((t) => t.code === 5 || t.code === 105)?.value;
    return handle ?? this.madeRecordHandles.get(`${table}:${nameKey(name)}`);
  }

  /**
   * The record `name` of symbol table `table` (a STYLE, an LTYPE), in any case; else a copy of `like`
   * (the record of another document) made in this one: its own handle, owned by this document's table,
   * its application groups left behind (they point at the other document's objects).
   */
  ensureRecord(table: string, name: string, like: RawRecord): string {
    const known = this.recordName(table, name);
    if (known !== undefined) return known;
    const [handle] = this.handles(1) as [string];
    const owner = dictGet(this.model.table_handles, table) ?? '0';
    const tags: DxfTag[] = [];
    let inGroup = false;
    for (const t of like.tags) {
      if (t.code === 102) inGroup = t.value.startsWith('{');
      else if (inGroup) continue;
      else if (t.code === 5 || t.code === 105) tags.push({ code: t.code, value: handle });
      else if (t.code === 330) tags.push({ code: 330, value: owner });
      else tags.push(t);
    }
    this.madeRecords.set(`${table}:${nameKey(name)}`, name);
    this.madeRecordHandles.set(`${table}:${nameKey(name)}`, handle);
    const record: RawRecord = { type: like.type, handle, tags };
    this.changes.push({ kind: 'record', key: handle, table, before: null, after: record });
    const made = this.recordsCreated[table] ?? [];
    made.push(name);
    this.recordsCreated[table] = made;
    return name;
  }

  /**
   * The text style `name` of the document, in any case; else makes it as AutoCAD's STANDARD is made (the
   * txt font, no fixed height), as a missing layer is made. STANDARD itself is never made here.
   */
  ensureTextStyle(name: string): string {
    if (sameName(name, 'Standard') && this.recordName('STYLE', name) === undefined) return name;
    const tag = (code: number, value: string): DxfTag => ({ code, value });
    const like: RawRecord = {
      type: 'STYLE',
      handle: undefined,
      tags: [
        tag(5, ''),
        tag(330, ''),
        tag(100, 'AcDbSymbolTableRecord'),
        tag(100, 'AcDbTextStyleTableRecord'),
        tag(2, name),
        tag(70, '0'),
        tag(40, '0.0'),
        tag(41, '1.0'),
        tag(50, '0.0'),
        tag(71, '0'),
        tag(42, '2.5'),
        tag(3, 'txt'),
        tag(4, ''),
      ],
    };
    return this.ensureRecord('STYLE', name, like);
  }

  push(...changes: Change[]): this {
    this.changes.push(...changes);
    return this;
  }

  /** The changes, with the seed change first when handles were taken. */
  build(): Change[] {
    if (this.seed === this.seedBefore) return this.changes;
    return [
      { kind: 'handseed', key: 'handseed', before: this.seedBefore, after: this.seed },
      ...this.changes,
    ];
  }
}
