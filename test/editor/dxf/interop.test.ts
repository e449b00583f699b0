/**
 * ezdxf interop, both ways: drawings ezdxf writes at test time open with the right entities, and what
 * writeDxf saves audits clean in ezdxf and reads back the same. Python runs twice per suite (one run
 * writes every fixture, one audits and reads every file); without python3-ezdxf the tests skip.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { blankDocument, readDxf, writeDxf } from '../../../src/editor/dxf/index.js';
import { tokenize } from '../../../src/editor/dxf/tags.js';
import type {
  CircleEntity,
  DxfDocumentModel,
  DxfTag,
  Entity,
  InsertEntity,
  LineEntity,
  TextEntity,
  XdataItem,
} from '../../../src/editor/model.js';
import { toCrlf } from './helpers.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const TOOL = join(dirname(fileURLToPath(import.meta.url)), 'ezdxf_tool.py');
const FIXTURES = ['r2018.dxf', 'r2000.dxf', 'r2010.dxf', 'r12.dxf'] as const;

function ezdxfMissing(): string | undefined {
  try {
    execFileSync(PYTHON, ['-c', 'import ezdxf'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `${PYTHON} cannot import ezdxf (install the Debian package python3-ezdxf)`;
  }
}
const missing = ezdxfMissing();

function needEzdxf(ctx: TestContext): void {
  if (!missing) return;
  console.log(`skipped: ${missing}`);
  ctx.skip(missing);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface EntityView {
  type: string;
  attribs: Record<string, Json>;
  xdata?: Record<string, [number, Json][]>;
  points?: number[][];
  closed?: boolean;
  text?: string;
  attribs_list?: { tag: string; text: string; insert: number[] }[];
}
interface FileView {
  error?: string;
  version: string;
  errors: string[];
  fixes: string[];
  layers: Record<string, { color: number; off: boolean; frozen: boolean; locked: boolean; linetype: string }>;
  appids: string[];
  layouts: Record<string, { entities: Record<string, EntityView>; paper: string }>;
  blocks: Record<string, { base: number[]; entities: Record<string, EntityView> }>;
  groups: Record<string, { handles: string[]; description: string }>;
  handseed: string;
}

let dir = '';
const texts = new Map<string, string>();
const models = new Map<string, DxfDocumentModel>();
let views: Record<string, FileView> = {};
const view = (name: string): FileView => {
  const v = views[join(dir, name)];
  if (!v) throw new Error(`ezdxf did not inspect ${name}`);
  return v;
};

function take(doc: DxfDocumentModel): string {
  return (doc.handseed++).toString(16).toUpperCase();
}

const common = { color: 256, linetype: 'BYLAYER', lineweight: -1 };

/** The edits the interop test makes on an opened drawing, straight on the model. */
function modify(doc: DxfDocumentModel): void {
  // add an entity on a layer that has no record yet
  const added: LineEntity = {
    ...common,
    type: 'Line',
    handle: take(doc),
    space: '*Model_Space',
    layer: 'NEWLAYER',
    start: [100, 200, 0],
    end: [300, 400, 5],
  };
  doc.entities[added.handle] = added;
  doc.order.push(added.handle);
  // add a layer
  doc.layers.ADDED = {
    name: 'ADDED',
    handle: take(doc),
    color: 6,
    linetype: 'Continuous',
    lineweight: -3,
    off: false,
    frozen: false,
    locked: true,
  };
  // add a block with a circle, and an insert of it
  const circle: CircleEntity = {
    ...common,
    type: 'Circle',
    handle: take(doc),
    space: 'NEWBLK',
    layer: 'ADDED',
    center: [1, 1, 0],
    radius: 0.75,
  };
  doc.entities[circle.handle] = circle;
  doc.blocks.NEWBLK = {
    name: 'NEWBLK',
    record_handle: take(doc),
    block_handle: take(doc),
    end_handle: take(doc),
    base: [1, 1, 0],
    layer: '0',
    flags: 0,
    entities: [circle.handle],
  };
  const insert: InsertEntity = {
    ...common,
    type: 'Insert',
    handle: take(doc),
    space: '*Model_Space',
    layer: '0',
    name: 'NEWBLK',
    position: [50, 60, 0],
    scale: [3, 3, 1],
    rotation: 30,
  };
  doc.entities[insert.handle] = insert;
  doc.order.push(insert.handle);
  // delete the circle of the fixture and the first member of its group
  for (const e of Object.values(doc.entities)) {
    if (e.type === 'Circle' && e.space === '*Model_Space') delete doc.entities[e.handle];
  }
  const pair = doc.groups.PAIR;
  if (pair) delete doc.entities[pair.handles[0] as string];
  doc.order = doc.order.filter((h) => doc.entities[h]);
  // a new layout with a line on it
  doc.layouts['Sheet B'] = {
    name: 'Sheet B',
    handle: take(doc),
    block: '*Paper_Space5',
    tab_order: 7,
    page_setup: {
      paper: 'ISO_A4_(210.00_x_297.00_MM)',
      orientation: 'portrait',
      fit: true,
      center: true,
      scale: [1, 1],
    },
  };
  const onSheet: LineEntity = {
    ...common,
    type: 'Line',
    handle: take(doc),
    space: '*Paper_Space5',
    layer: '0',
    start: [10, 10, 0],
    end: [20, 10, 0],
  };
  doc.entities[onSheet.handle] = onSheet;
  doc.order.push(onSheet.handle);
  // a group of two texts, xdata of a new application on one of them
  const texts = Object.values(doc.entities).filter((e) => e.type === 'Text' && e.space === '*Model_Space');
  doc.groups.G2 = {
    name: 'G2',
    handle: take(doc),
    description: 'texts',
    handles: texts.map((t) => t.handle),
  };
  (texts[0] as TextEntity).xdata = {
    NEWAPP: [
      { code: 1000, value: 'new' },
      { code: 1041, value: 2.5 },
    ],
  };
}

async function save(name: string, doc: DxfDocumentModel): Promise<void> {
  const text = writeDxf(doc);
  texts.set(name, text);
  await writeFile(join(dir, name), text);
}

beforeAll(async () => {
  if (missing) return;
  dir = await mkdtemp(join(tmpdir(), 'chronicle-dxf-'));
  await run(PYTHON, [TOOL, 'write', dir]);
  for (const name of FIXTURES) {
    const text = await readFile(join(dir, name), 'latin1');
    texts.set(name, text);
    const doc = readDxf(text);
    models.set(name, doc);
    await save(`out-${name}`, doc);
  }
  const r2018 = readDxf(texts.get('r2018.dxf') as string);
  modify(r2018);
  models.set('mod-r2018.dxf', r2018);
  await save('mod-r2018.dxf', r2018);
  const r12 = readDxf(texts.get('r12.dxf') as string);
  modify(r12);
  models.set('mod-r12.dxf', r12);
  await save('mod-r12.dxf', r12);
  // a second save of a saved file reads and writes the same
  await save('again-mod-r2018.dxf', readDxf(texts.get('mod-r2018.dxf') as string));
  await save('metric.dxf', blankDocument('metric'));
  await save('imperial.dxf', blankDocument('imperial'));
  const names = [
    ...FIXTURES,
    ...FIXTURES.map((n) => `out-${n}`),
    'mod-r2018.dxf',
    'mod-r12.dxf',
    'again-mod-r2018.dxf',
    'metric.dxf',
    'imperial.dxf',
  ];
  const { stdout } = await run(PYTHON, [TOOL, 'inspect', ...names.map((n) => join(dir, n))], {
    maxBuffer: 256 * 1024 * 1024,
  });
  views = JSON.parse(stdout);
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const num = (v: Json | undefined, fallback = 0) => (typeof v === 'number' ? v : fallback);
/** Numbers equal to ezdxf's (which it rounds to 9 places); a z it has beyond ours is 0. */
const close = (a: readonly number[], b: Json | undefined) => {
  expect(Array.isArray(b)).toBe(true);
  for (const [i, x] of (b as number[]).entries()) expect(a[i] ?? 0).toBeCloseTo(x, 9);
};

function xdataView(
  items: Record<string, XdataItem[]> | undefined,
): Record<string, [number, Json][]> | undefined {
  if (!items) return undefined;
  const out: Record<string, [number, Json][]> = {};
  for (const [app, list] of Object.entries(items)) {
    out[app] = [[1001, app], ...list.map((i): [number, Json] => [i.code, i.value as Json])];
  }
  return out;
}

/** Our entity against what ezdxf read from the same file. */
function expectSame(ours: Entity, theirs: EntityView): void {
  const a = theirs.attribs;
  expect(ours.layer).toBe(a.layer);
  expect(ours.color).toBe(num(a.color, 256));
  expect(ours.lineweight).toBe(num(a.lineweight, -1));
  expect(xdataView(ours.xdata)).toEqual(theirs.xdata);
  switch (ours.type) {
    case 'Line':
      expect(theirs.type).toBe('LINE');
      close(ours.start, a.start);
      close(ours.end, a.end);
      return;
    case 'Circle':
    case 'Arc':
      expect(theirs.type).toBe(ours.type.toUpperCase());
      close(ours.center, a.center);
      expect(ours.radius).toBe(a.radius);
      if (ours.type === 'Arc')
        expect([ours.start_angle, ours.end_angle]).toEqual([a.start_angle, a.end_angle]);
      return;
    case 'Text':
      expect(theirs.type).toBe('TEXT');
      close(ours.position, a.insert);
      expect([ours.value, ours.height, ours.rotation]).toEqual([a.text, a.height, num(a.rotation)]);
      if (a.align_point) close(ours.align_point ?? [], a.align_point);
      return;
    case 'MText':
      expect(theirs.type).toBe('MTEXT');
      close(ours.position, a.insert);
      expect([ours.value, ours.height, ours.width]).toEqual([theirs.text, a.char_height, num(a.width)]);
      return;
    case 'Point':
      expect(theirs.type).toBe('POINT');
      close(ours.location, a.location);
      return;
    case 'LwPolyline':
      expect(theirs.type).toBe('LWPOLYLINE');
      expect(ours.closed).toBe(theirs.closed);
      expect(ours.vertices).toHaveLength(theirs.points?.length ?? -1);
      for (const [i, v] of ours.vertices.entries()) {
        close([v.x, v.y, v.start_width ?? 0, v.end_width ?? 0, v.bulge], theirs.points?.[i]);
      }
      return;
    case 'Insert':
      expect(theirs.type).toBe('INSERT');
      expect(ours.name).toBe(a.name);
      close(ours.position, a.insert);
      expect(ours.scale).toEqual([num(a.xscale, 1), num(a.yscale, 1), num(a.zscale, 1)]);
      expect(ours.rotation).toBe(num(a.rotation));
      expect((ours.attribs ?? []).filter((t) => t.code === 0 && t.value === 'ATTRIB')).toHaveLength(
        theirs.attribs_list?.length ?? 0,
      );
      return;
    case 'Image':
      expect(theirs.type).toBe('IMAGE');
      close(ours.position, a.insert);
      close(ours.u_vector, a.u_pixel);
      close(ours.v_vector, a.v_pixel);
      close(ours.size, a.image_size);
      expect(ours.image_def).toBe(a.image_def_handle);
      return;
    case 'Raw':
      expect(ours.dxf_type).toBe(theirs.type);
  }
}

/** Every entity ezdxf sees in a file, with the name of the layout or block it is in. */
function entitiesOf(v: FileView): [string, string, EntityView][] {
  const out: [string, string, EntityView][] = [];
  for (const [name, layout] of Object.entries(v.layouts)) {
    for (const [h, e] of Object.entries(layout.entities)) out.push([`layout ${name}`, h, e]);
  }
  for (const [name, block] of Object.entries(v.blocks)) {
    for (const [h, e] of Object.entries(block.entities)) out.push([`block ${name}`, h, e]);
  }
  return out;
}

function spaceName(doc: DxfDocumentModel, where: string): string {
  if (where.startsWith('block ')) return where.slice(6);
  return doc.layouts[where.slice(7)]?.block ?? '?';
}

/** What ezdxf sees, without what a save may change: owner and handle (R12 files get them on upgrade). */
function comparable(v: FileView, withHandles: boolean): Json {
  const entity = (e: EntityView) => {
    const attribs = { ...e.attribs };
    delete attribs.owner;
    if (!withHandles) delete attribs.handle;
    return JSON.stringify({ ...e, attribs });
  };
  const sorted = (entities: Record<string, EntityView>) => Object.values(entities).map(entity).sort();
  return {
    layers: v.layers,
    appids: v.appids,
    groups: Object.fromEntries(
      Object.entries(v.groups).map(([n, g]) => [
        n,
        withHandles ? [g.description, ...[...g.handles].sort()] : g.description,
      ]),
    ),
    // an R12 file has no page setups: the save gives its layouts one
    layouts: Object.fromEntries(
      Object.entries(v.layouts).map(([n, l]) => [n, [withHandles ? l.paper : '', ...sorted(l.entities)]]),
    ),
    blocks: Object.fromEntries(
      Object.entries(v.blocks).map(([n, b]) => [n, [JSON.stringify(b.base), ...sorted(b.entities)]]),
    ),
  } as Json;
}

describe('ezdxf interop', () => {
  it.for(FIXTURES)(
    '%s written by ezdxf opens with its entities, coordinates, layers and xdata',
    (name, ctx) => {
      needEzdxf(ctx);
      const doc = models.get(name) as DxfDocumentModel;
      const v = view(name);
      const seen = entitiesOf(v);
      expect(seen.length).toBeGreaterThan(10);
      for (const [where, handle, theirs] of seen) {
        const ours = doc.entities[handle];
        if (!ours) throw new Error(`${name}: entity ${handle} (${theirs.type}) in ${where} not read`);
        expect(ours.space).toBe(spaceName(doc, where));
        expectSame(ours, theirs);
      }
      for (const [layer, props] of Object.entries(v.layers)) {
        expect(doc.layers[layer]).toMatchObject({
          color: props.color,
          off: props.off,
          frozen: props.frozen,
          locked: props.locked,
          linetype: props.linetype,
        });
      }
      // ezdxf keeps group members in a set: compare them as one
      for (const [group, g] of Object.entries(v.groups)) {
        expect(doc.groups[group]?.description).toBe(g.description);
        expect([...(doc.groups[group]?.handles ?? [])].sort()).toEqual([...g.handles].sort());
      }
      expect(doc.appids).toEqual(expect.arrayContaining(v.appids));
      expect(Object.keys(doc.layouts).sort()).toEqual(Object.keys(v.layouts).sort());
    },
  );

  it('opens CRLF files the same as LF files', (ctx) => {
    needEzdxf(ctx);
    const lf = texts.get('r2018.dxf') as string;
    const guid = { guid: '12345678-1234-1234-1234-123456789ABC', newIdentity: true };
    expect(readDxf(toCrlf(lf), guid)).toEqual(readDxf(lf, guid));
  });

  it.for([
    ...FIXTURES.map((n) => `out-${n}`),
    'mod-r2018.dxf',
    'mod-r12.dxf',
    'again-mod-r2018.dxf',
    'metric.dxf',
    'imperial.dxf',
  ])('%s: what we save audits clean in ezdxf', (name, ctx) => {
    needEzdxf(ctx);
    const v = view(name);
    expect(v.error).toBeUndefined();
    expect(v.errors).toEqual([]);
    expect(v.fixes).toEqual([]);
    expect(v.version >= 'AC1015').toBe(true);
  });

  it.for(FIXTURES)('%s saved unchanged reads back in ezdxf the same as the original', (name, ctx) => {
    needEzdxf(ctx);
    const withHandles = name !== 'r12.dxf';
    expect(comparable(view(`out-${name}`), withHandles)).toEqual(comparable(view(name), withHandles));
    if (name === 'r12.dxf') expect(view(`out-${name}`).version).toBe('AC1015');
    else expect(view(`out-${name}`).version).toBe(view(name).version);
  });

  it('unmodeled entities and objects survive tag for tag', (ctx) => {
    needEzdxf(ctx);
    const tagsOf = (text: string) => {
      const t = tokenize(text);
      const byHandle = new Map<string, DxfTag[]>();
      for (let i = 0; i < t.count; i++) {
        if (t.codes[i] !== 0 || t.codes[i + 1] !== 5) continue;
        let end = i + 1;
        while (end < t.count && t.codes[end] !== 0) end++;
        const tags: DxfTag[] = [];
        for (let k = i; k < end; k++) tags.push({ code: t.codes[k] as number, value: t.value(k) });
        byHandle.set(t.value(i + 1), tags);
      }
      return byHandle;
    };
    for (const name of ['r2018.dxf', 'r2000.dxf', 'r2010.dxf']) {
      const before = tagsOf(texts.get(name) as string);
      const after = tagsOf(texts.get(`out-${name}`) as string);
      const doc = models.get(name) as DxfDocumentModel;
      const raw = Object.values(doc.entities).filter((e) => e.type === 'Raw');
      expect(raw.map((e) => (e.type === 'Raw' ? e.dxf_type : ''))).toEqual(expect.arrayContaining(['HATCH']));
      for (const e of raw) expect(after.get(e.handle)).toEqual(before.get(e.handle));
      // every object that is not modeled (dictionaries aside: their entries are rewritten)
      for (const o of doc.objects) {
        if (o.type === 'DICTIONARY' || !o.handle) continue;
        expect(after.get(o.handle), `${name} ${o.type} ${o.handle}`).toEqual(before.get(o.handle));
      }
      for (const records of Object.values(doc.tables)) {
        for (const r of records)
          if (r.type !== 'DIMSTYLE' && r.handle) expect(after.get(r.handle)).toEqual(before.get(r.handle));
      }
    }
  });

  it('edits made on the model are saved: entities, layers, blocks, deletions, layouts, groups, xdata', (ctx) => {
    needEzdxf(ctx);
    for (const name of ['mod-r2018.dxf', 'mod-r12.dxf', 'again-mod-r2018.dxf']) {
      const doc = models.get(name === 'again-mod-r2018.dxf' ? 'mod-r2018.dxf' : name) as DxfDocumentModel;
      const v = view(name);
      const seen = new Map(entitiesOf(v).map(([where, h, e]) => [h, { where, e }]));
      // every entity of the model is in the file, where it belongs and as it is
      for (const ours of Object.values(doc.entities)) {
        const theirs = seen.get(ours.handle);
        if (!theirs) throw new Error(`${name}: ${ours.type} ${ours.handle} not saved`);
        expect(spaceName(doc, theirs.where)).toBe(ours.space);
        expectSame(ours, theirs.e);
      }
      // and nothing else: deleted entities are gone
      expect(seen.size).toBe(Object.keys(doc.entities).length);
      expect(v.layers.ADDED).toMatchObject({ color: 6, locked: true, off: false });
      expect(v.layers.NEWLAYER).toBeDefined();
      expect(v.blocks.NEWBLK?.base).toEqual([1, 1, 0]);
      expect(Object.keys(v.layouts)).toEqual(expect.arrayContaining(['Model', 'Sheet B']));
      expect(v.layouts['Sheet B']?.paper).toBe('ISO_A4_(210.00_x_297.00_MM)');
      expect(v.appids).toContain('NEWAPP');
      const members = (g: { handles: string[] } | undefined) => [...(g?.handles ?? [])].sort();
      expect(members(v.groups.G2)).toEqual(members(doc.groups.G2));
      expect(v.groups.G2?.handles.length).toBe(2);
      if (name !== 'mod-r12.dxf') {
        expect(v.groups.PAIR?.handles).toEqual(doc.groups.PAIR?.handles.slice(1));
        expect(v.layouts['Sheet A']).toBeDefined();
      }
    }
  });

  it('templates save with their units', (ctx) => {
    needEzdxf(ctx);
    expect(view('metric.dxf').layers['0']).toBeDefined();
    expect(texts.get('metric.dxf')).toMatch(/\$MEASUREMENT\n 70\n1\n/);
    expect(texts.get('imperial.dxf')).toMatch(/\$MEASUREMENT\n 70\n0\n/);
  });
});
