import { dictGet, dictSet } from '../dict.js';
import type { Block, DxfDocumentModel, Layer, Layout, RawRecord } from '../model.js';
import { named } from '../names.js';
import { isPaperSpaceBlockName, MODEL_SPACE, PAPER_SPACE } from './entity-types.js';
import { DEFAULT_PAGE_SETUP } from './layout-object.js';
import {
  appidRecord,
  dictionaryEntries,
  dictionaryRecord,
  dimstyleRecord,
  findRecord,
  linetypeRecord,
  plotStyleNameRecords,
  textStyleRecord,
  viewportRecord,
  withDictionaryEntries,
} from './records.js';
import { formatHandle } from './values.js';

/** The tables of a DXF file, in the order they are written. */
export const STANDARD_TABLES = [
  'VPORT',
  'LTYPE',
  'LAYER',
  'STYLE',
  'VIEW',
  'UCS',
  'APPID',
  'DIMSTYLE',
  'BLOCK_RECORD',
] as const;

/** Finds a block by name, as DXF does: case-insensitively. */
export function findBlock(doc: DxfDocumentModel, name: string): Block | undefined {
  return named(doc.blocks, name);
}

export function findLayoutOfBlock(doc: DxfDocumentModel, blockName: string): Layout | undefined {
  const key = blockName.toUpperCase();
  for (const layout of Object.values(doc.layouts)) if (layout.block.toUpperCase() === key) return layout;
  return undefined;
}

export function newBlock(name: string, alloc: () => string): Block {
  return {
    name,
    record_handle: alloc(),
    block_handle: alloc(),
    end_handle: alloc(),
    base: [0, 0, 0],
    layer: '0',
    flags: 0,
    entities: [],
  };
}

/** A layer as one is made when a name is new: colour 7, Continuous, on, thawed, unlocked. */
export function newLayer(name: string, handle: string): Layer {
  return {
    name,
    handle,
    color: 7,
    linetype: 'Continuous',
    lineweight: -3,
    off: false,
    frozen: false,
    locked: false,
  };
}

/** The handle a root dictionary entry points to, if the entry and its object exist. */
export function rootEntry(doc: DxfDocumentModel, name: string): RawRecord | undefined {
  const root = doc.objects[0];
  if (root?.type !== 'DICTIONARY') return undefined;
  const handle = dictionaryEntries(root).find(([key]) => key === name)?.[1];
  return handle === undefined ? undefined : doc.objects.find((o) => o.handle === handle);
}

/**
 * Adds what a DXF R2000 file needs and the document lacks — the nine table heads, the standard records
 * (linetypes ByBlock/ByLayer/Continuous, layer 0, text and dimension style Standard, the *Active
 * viewport, APPID ACAD), the model and paper space blocks with their layouts, a layout for every paper
 * space block, the root dictionary with ACAD_GROUP, ACAD_LAYOUT and ACAD_PLOTSTYLENAME — taking handles
 * from `doc.handseed`. Replaces the containers it changes instead of editing them, so a shallow copy of
 * a document can be completed without touching the original.
 */
export function ensureStructure(doc: DxfDocumentModel): void {
  const alloc = () => formatHandle(doc.handseed++);

  const missingHeads = STANDARD_TABLES.filter((name) => !dictGet(doc.table_handles, name));
  if (missingHeads.length > 0) {
    doc.table_handles = { ...doc.table_handles };
    for (const name of missingHeads) dictSet(doc.table_handles, name, alloc());
  }

  const addRecords = (table: string, wanted: string[], make: (handle: string, name: string) => RawRecord) => {
    const records = dictGet(doc.tables, table) ?? [];
    const missing = wanted.filter((name) => !findRecord(records, name));
    if (missing.length === 0 && dictGet(doc.tables, table)) return;
    doc.tables = { ...doc.tables, [table]: [...missing.map((name) => make(alloc(), name)), ...records] };
  };
  addRecords('VPORT', ['*Active'], (h) => viewportRecord(h));
  addRecords('LTYPE', ['ByBlock', 'ByLayer', 'Continuous'], linetypeRecord);
  addRecords('STYLE', ['Standard'], textStyleRecord);
  addRecords('DIMSTYLE', ['Standard'], dimstyleRecord);
  for (const table of ['VIEW', 'UCS', 'APPID']) addRecords(table, [], appidRecord);

  if (!Object.values(doc.layers).some((l) => l.name === '0')) {
    doc.layers = { '0': newLayer('0', alloc()), ...doc.layers };
  }
  if (!doc.appids.some((a) => a.toUpperCase() === 'ACAD')) doc.appids = ['ACAD', ...doc.appids];

  for (const name of [MODEL_SPACE, PAPER_SPACE]) {
    if (!findBlock(doc, name)) doc.blocks = { [name]: newBlock(name, alloc), ...doc.blocks };
  }

  const layoutNames = new Set(Object.keys(doc.layouts).map((n) => n.toUpperCase()));
  const uniqueName = (wanted: string) => {
    let name = wanted;
    for (let n = 2; layoutNames.has(name.toUpperCase()); n++) name = `Layout${n}`;
    layoutNames.add(name.toUpperCase());
    return name;
  };
  let tab = Math.max(0, ...Object.values(doc.layouts).map((l) => l.tab_order));
  for (const block of Object.values(doc.blocks)) {
    const model = block.name.toUpperCase() === MODEL_SPACE.toUpperCase();
    if (!model && !isPaperSpaceBlockName(block.name)) continue;
    if (findLayoutOfBlock(doc, block.name)) continue;
    const name = uniqueName(
      model ? 'Model' : block.name.toUpperCase() === '*PAPER_SPACE' ? 'Layout1' : 'Layout2',
    );
    const layout: Layout = {
      name,
      handle: alloc(),
      block: block.name,
      tab_order: model ? 0 : ++tab,
      page_setup: { ...DEFAULT_PAGE_SETUP },
    };
    doc.layouts = { ...doc.layouts, [name]: layout };
  }

  ensureObjects(doc, alloc);
}

function ensureObjects(doc: DxfDocumentModel, alloc: () => string): void {
  let objects = doc.objects;
  let root = objects[0];
  if (root?.type !== 'DICTIONARY') {
    root = dictionaryRecord(alloc(), '0', []);
    objects = [root, ...objects];
  }
  const entries = dictionaryEntries(root);
  const exists = (handle: string) => objects.some((o) => o.handle === handle);
  const added: RawRecord[] = [];
  const need = (name: string, make: (handle: string) => RawRecord[]) => {
    const entry = entries.find(([key]) => key === name);
    if (entry && exists(entry[1])) return;
    const handle = alloc();
    added.push(...make(handle));
    if (entry) entry[1] = handle;
    else entries.push([name, handle]);
  };
  const rootHandle = root.handle ?? '0';
  need('ACAD_GROUP', (h) => [dictionaryRecord(h, rootHandle, [])]);
  need('ACAD_LAYOUT', (h) => [dictionaryRecord(h, rootHandle, [])]);
  need('ACAD_PLOTSTYLENAME', (h) => plotStyleNameRecords(h, rootHandle, alloc()));
  if (added.length === 0 && objects === doc.objects) return;
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const newRoot: RawRecord = { ...root, tags: withDictionaryEntries(root, entries) };
  doc.objects = [newRoot, ...objects.slice(1), ...added];
}
