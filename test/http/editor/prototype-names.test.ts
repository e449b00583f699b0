/**
 * Names that are members of Object.prototype (`constructor`, `__proto__`, `toString`...) against the real
 * CLI: the editor allows any web origin, so any web page can send them, and DXF files can hold them. Each
 * must behave exactly like any other name — made, read, renamed away, deleted, undone, redone, saved to
 * DXF (checked with ezdxf) and opened again — and one that does not exist answers the same not-found
 * code as any other unknown name.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/helpers.js';
import { ezdxfUnavailable, needEzdxf, python } from '../../editor/dispatcher/helpers.js';
import {
  type Answer,
  arr,
  at,
  body,
  createEntities,
  editorForFile,
  expectAuditClean,
  newDocument,
  num,
  okBody,
  str,
  strings,
} from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

/** Object.prototype members a client or a file may use as a name. */
const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'] as const;
const LINE = { type: 'Line', start: [0, 0], end: [10, 5] };

const editor = editorForFile();

const path = (name: string) => encodeURIComponent(name);
const failure = (answer: Answer) => ({ status: answer.status, code: body(answer).code });
/** An own entry of a parsed JSON object (`obj.__proto__` would read the prototype when there is none). */
const own = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;

/** Saves the active document to `file`; the save must succeed. */
async function save(file: string): Promise<void> {
  okBody(await editor.client.post('/api/v1/save', { path: file }));
}

interface Seen {
  audit: string;
  layers: string[];
  blocks: Record<string, string[]>;
  layouts: Record<string, number>;
  groups: Record<string, number>;
  entities: Array<{ handle: string; type: string; layer: string; block: string | null; xdata: string[] }>;
}

/** What ezdxf reads from a saved file (after `ezdxf audit` found no error). */
async function ezdxfSees(file: string): Promise<Seen> {
  await expectAuditClean(file);
  return python<Seen>(
    `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
auditor = doc.audit()
def apps(e):
    return sorted(e.xdata.data.keys()) if e.xdata else []
out = {
  "audit": "%d errors, %d fixes" % (len(auditor.errors), len(auditor.fixes)),
  "layers": sorted(l.dxf.name for l in doc.layers),
  "blocks": {b.name: [e.dxftype() for e in b] for b in doc.blocks if not b.is_any_layout},
  "layouts": {name: len(doc.layouts.get(name)) for name in doc.layout_names()},
  "groups": {name: len(g) for name, g in doc.groups},
  "entities": [
    {"handle": e.dxf.handle, "type": e.dxftype(), "layer": e.dxf.layer,
     "block": e.dxf.name if e.dxftype() == "INSERT" else None, "xdata": apps(e)}
    for e in doc.modelspace()
  ],
}
print(json.dumps(out))
`,
    [file],
  );
}

/** Opens `file` in the editor (it becomes the active document). */
async function open(file: string): Promise<number> {
  return num(okBody(await editor.client.post('/api/v1/documents', { path: file }), 201), 'document_id');
}

const layerNames = async () =>
  arr(okBody(await editor.client.get('/api/v1/layers')), 'result.layers').map((l) => at(l, 'name') as string);

describe('blocks', () => {
  it('DELETE /blocks/constructor of a drawing without it is block_missing, like any unknown block; undo and save still work', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    const unknown = failure(await editor.client.del('/api/v1/blocks/no-such-block'));
    expect(unknown).toEqual({ status: 400, code: 'block_missing' });
    for (const name of NAMES)
      expect(failure(await editor.client.del(`/api/v1/blocks/${path(name)}`))).toEqual(unknown);
    expect(failure(await editor.client.post('/api/v1/undo'))).toEqual({
      status: 400,
      code: 'nothing_to_undo',
    });
    const file = join(editor.dir, 'no-blocks.dxf');
    await save(file);
    const seen = await ezdxfSees(file);
    for (const name of NAMES) expect(Object.keys(seen.blocks)).not.toContain(name);
  });

  it('each name is defined, inserted, deleted, undone, redone, saved and reopened like any block', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    for (const name of NAMES) {
      // As AutoCAD's BLOCK: the source moves into the block and one Insert of it takes its place.
      const [source] = await createEntities(editor.client, [LINE]);
      const defined = okBody(
        await editor.client.post('/api/v1/blocks', { name, base: [0, 0, 0], handles: [source] }),
        201,
      );
      expect(at(defined, 'result.block')).toBe(name);
      expect(strings(defined, 'result.handles')).toEqual([source]);
      expect(at(okBody(await editor.client.get(`/api/v1/entities/${source}`)), 'entities.0.space')).toBe(
        name,
      );
      const [other] = await createEntities(editor.client, [LINE]);
      expect(failure(await editor.client.post('/api/v1/blocks', { name, handles: [other] }))).toEqual({
        status: 400,
        code: 'block_exists',
      });
      // Refused, it took nothing: the other line stays where it was.
      expect(at(okBody(await editor.client.get(`/api/v1/entities/${other}`)), 'entities.0.space')).toBe(
        '*Model_Space',
      );
      await createEntities(editor.client, [{ type: 'Insert', name, position: [1, 2] }]);
      // Both inserts (the one BLOCK placed and the one made here) go with it, and its line.
      const deleted = okBody(await editor.client.del(`/api/v1/blocks/${path(name)}`));
      expect([num(deleted, 'result.erased'), num(deleted, 'result.contents')]).toEqual([2, 1]);
      // Gone: inserting it again is refused as for any block that does not exist.
      const refused = await editor.client.post('/api/v1/entities', { entities: [{ type: 'Insert', name }] });
      expect(failure(refused)).toEqual({ status: 400, code: 'block_missing' });
      okBody(await editor.client.post('/api/v1/undo'));
      okBody(await editor.client.post('/api/v1/redo'));
      okBody(await editor.client.post('/api/v1/undo'));
    }
    const file = join(editor.dir, 'blocks.dxf');
    await save(file);
    const seen = await ezdxfSees(file);
    for (const name of NAMES) {
      expect(own(seen.blocks, name), name).toEqual(['LINE']);
      expect(
        seen.entities.filter((e) => e.block === name),
        name,
      ).toHaveLength(2);
    }
    // Opened again: every block is there (an insert of each is accepted) and a second save keeps them.
    await open(file);
    for (const name of NAMES)
      await createEntities(editor.client, [{ type: 'Insert', name, position: [5, 5] }]);
    const again = join(editor.dir, 'blocks-again.dxf');
    await save(again);
    const reread = await ezdxfSees(again);
    for (const name of NAMES)
      expect(
        reread.entities.filter((e) => e.block === name),
        name,
      ).toHaveLength(3);
  });
});

describe('layers', () => {
  it('each name is made by an entity that uses it, listed, undone, redone, saved and reopened', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    for (const name of NAMES) expect(await layerNames()).not.toContain(name);
    for (const name of NAMES) {
      const answer = okBody(
        await editor.client.post('/api/v1/entities', { entities: [{ ...LINE, layer: name }] }),
        201,
      );
      expect(strings(answer, 'result.layers_created')).toEqual([name]);
      expect(await layerNames()).toContain(name);
      okBody(await editor.client.post('/api/v1/undo'));
      expect(await layerNames()).not.toContain(name);
      okBody(await editor.client.post('/api/v1/redo'));
      const listed = arr(okBody(await editor.client.get('/api/v1/layers')), 'result.layers');
      expect(listed.find((l) => at(l, 'name') === name)).toMatchObject({ name, entities: 1 });
      // A second entity on it does not make it again.
      const second = okBody(
        await editor.client.post('/api/v1/entities', { entities: [{ ...LINE, layer: name }] }),
        201,
      );
      expect(strings(second, 'result.layers_created')).toEqual([]);
      const onIt = okBody(await editor.client.get(`/api/v1/entities?layer=${path(name)}`));
      expect(num(onIt, 'count')).toBe(2);
    }
    const file = join(editor.dir, 'layers.dxf');
    await save(file);
    const seen = await ezdxfSees(file);
    for (const name of NAMES) {
      expect(seen.layers, name).toContain(name);
      expect(
        seen.entities.filter((e) => e.layer === name),
        name,
      ).toHaveLength(2);
    }
    await open(file);
    for (const name of NAMES) {
      expect(await layerNames()).toContain(name);
      expect(num(okBody(await editor.client.get(`/api/v1/entities?layer=${path(name)}`)), 'count')).toBe(2);
    }
  });

  it('the command line makes and sets each name (LAYER M constructor)', async () => {
    await newDocument(editor.client);
    for (const name of NAMES) {
      const answer = okBody(await editor.client.post('/api/v1/commands', { cmd: `LAYER M ${name}` }));
      expect(at(answer, 'result.commands.0.result')).toEqual({ layer: name, created: true, current: name });
      const values = okBody(await editor.client.get('/api/v1/sysvars?names=CLAYER'));
      expect(at(values, 'result.values.CLAYER')).toBe(name);
      const [handle] = await createEntities(editor.client, [LINE]);
      expect(at(okBody(await editor.client.get(`/api/v1/entities/${handle}`)), 'entities.0.layer')).toBe(
        name,
      );
    }
    expect(failure(await editor.client.post('/api/v1/commands', { cmd: 'LAYER S valueOf2' }))).toEqual({
      status: 400,
      code: 'layer_missing',
    });
  });
});

describe('xdata apps', () => {
  it('each app name is set, read, deleted, undone and saved like any app', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    const [handle] = await createEntities(editor.client, [LINE]);
    /** `items[].data.<APP>`: the items with their group codes (`xdata.<APP>` holds their values). */
    const read = async (app?: string) =>
      okBody(await editor.client.get(`/api/v1/entities/${handle}/xdata${app ? `?app=${path(app)}` : ''}`));
    const xdataOf = async (app?: string) => at(await read(app), 'items.0.data') as Record<string, unknown>;
    for (const name of NAMES) {
      // The name as given is the application's name (any case names it).
      const app = name;
      expect(Object.hasOwn(await xdataOf(name), app)).toBe(false);
      const data = [{ code: 1000, value: `v-${name}` }];
      okBody(await editor.client.put(`/api/v1/entities/${handle}/xdata/${path(name)}`, data));
      expect(await xdataOf(name)).toEqual({ [app]: data });
      expect(at(await read(name), 'items.0.xdata')).toEqual({ [app]: [`v-${name}`] });
      okBody(await editor.client.del(`/api/v1/entities/${handle}/xdata/${path(name)}`));
      expect(await xdataOf(name)).toEqual({});
      okBody(await editor.client.post('/api/v1/undo'));
      expect(await xdataOf(name)).toEqual({ [app]: data });
    }
    expect(Object.keys(await xdataOf()).sort()).toEqual([...NAMES].sort());
    const file = join(editor.dir, 'xdata.dxf');
    await save(file);
    const seen = await ezdxfSees(file);
    expect(seen.entities.find((e) => e.handle === handle)?.xdata).toEqual([...NAMES].sort());
  });
});

describe('selection sets', () => {
  it('each name is missing like any unknown set until saved, then loads, and undo forgets it', async () => {
    await newDocument(editor.client);
    const handles = await createEntities(editor.client, [LINE, { ...LINE, start: [0, 9] }]);
    const unknown = failure(await editor.client.get('/api/v1/selection-sets/no-such-set'));
    expect(unknown).toEqual({ status: 400, code: 'selection_set_missing' });
    for (const name of NAMES) {
      expect(failure(await editor.client.get(`/api/v1/selection-sets/${path(name)}`))).toEqual(unknown);
      okBody(await editor.client.post('/api/v1/selection-sets', { name, handles }), 201);
      const loaded = okBody(await editor.client.get(`/api/v1/selection-sets/${path(name)}?select=true`));
      expect(strings(loaded, 'result.handles')).toEqual(handles);
      expect(num(loaded, 'result.selected')).toBe(2);
      okBody(await editor.client.post('/api/v1/undo'));
      expect(failure(await editor.client.get(`/api/v1/selection-sets/${path(name)}`))).toEqual(unknown);
      okBody(await editor.client.post('/api/v1/redo'));
      expect(
        strings(okBody(await editor.client.get(`/api/v1/selection-sets/${path(name)}`)), 'result.handles'),
      ).toEqual(handles);
    }
  });
});

describe('layouts', () => {
  it('each name is created, given a page setup, plotted, undone, redone and saved like any layout', async (ctx) => {
    needEzdxf(ctx);
    for (const name of NAMES) {
      // A fresh drawing per name: its first new layout draws into *Paper_Space0.
      await newDocument(editor.client);
      const missing = failure(
        await editor.client.put(`/api/v1/layouts/${path(name)}/page-setup`, { fit: true }),
      );
      expect(missing).toEqual({ status: 400, code: 'layout_missing' });
      const created = okBody(await editor.client.post('/api/v1/layouts', { name }), 201);
      expect(strings(created, 'result.layouts')).toContain(name);
      expect(failure(await editor.client.post('/api/v1/layouts', { name }))).toEqual({
        status: 400,
        code: 'layout_exists',
      });
      const setup = okBody(
        await editor.client.put(`/api/v1/layouts/${path(name)}/page-setup`, {
          paper: 'ISO A3',
          orientation: 'portrait',
        }),
      );
      expect(at(setup, 'result.layout')).toBe(name);
      expect(at(setup, 'result.orientation')).toBe('portrait');
      okBody(await editor.client.post('/api/v1/entities', { entities: [LINE], space: '*Paper_Space0' }), 201);
      const plot = okBody(
        await editor.client.post('/api/v1/plot', {
          layout: name,
          path: join(editor.dir, `${path(name)}.pdf`),
        }),
      );
      expect(at(plot, 'result.layout')).toBe(name);
      // Undo the line and the page setup, redo them: the layout keeps its name throughout.
      okBody(await editor.client.post('/api/v1/undo'));
      okBody(await editor.client.post('/api/v1/undo'));
      okBody(await editor.client.post('/api/v1/redo'));
      okBody(await editor.client.post('/api/v1/redo'));
      const file = join(editor.dir, `layout-${path(name)}.dxf`);
      await save(file);
      const seen = await ezdxfSees(file);
      expect(own(seen.layouts, name), name).toBe(1);
      await open(file);
      const reopened = okBody(
        await editor.client.put(`/api/v1/layouts/${path(name)}/page-setup`, { fit: false }),
      );
      expect(at(reopened, 'result.paper_name')).toBe('ISO A3');
      expect(at(reopened, 'result.paper')).toBe('ISO_A3_(297.00_x_420.00_MM)');
    }
  });
});

describe('groups', () => {
  it('each name is created once, refused twice, undone, redone and saved like any group', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    const handles = await createEntities(editor.client, [LINE, { ...LINE, start: [3, 3] }]);
    for (const name of NAMES) {
      okBody(await editor.client.post('/api/v1/groups', { name, handles }), 201);
      const again = failure(await editor.client.post('/api/v1/groups', { name, handles }));
      expect(again).toEqual({ status: 400, code: 'group_exists' });
      okBody(await editor.client.post('/api/v1/undo'));
      okBody(await editor.client.post('/api/v1/redo'));
    }
    const file = join(editor.dir, 'groups.dxf');
    await save(file);
    const seen = await ezdxfSees(file);
    for (const name of NAMES) expect(own(seen.groups, name), name).toBe(2);
    await open(file);
    for (const name of NAMES) {
      expect(failure(await editor.client.post('/api/v1/groups', { name, handles: [] }))).toEqual({
        status: 400,
        code: 'group_exists',
      });
    }
  });
});

describe('system variables', () => {
  it('a sysvar named like an Object.prototype member does not exist: unknown_sysvar, as any unknown name', async () => {
    await newDocument(editor.client);
    const unknown = failure(await editor.client.get('/api/v1/sysvars?names=NOSUCHVAR'));
    expect(unknown).toEqual({ status: 400, code: 'unknown_sysvar' });
    expect(failure(await editor.client.get('/api/v1/sysvars?names=constructor,__proto__'))).toEqual(unknown);
    for (const name of NAMES) {
      expect(failure(await editor.client.get(`/api/v1/sysvars?names=${path(name)}`)), name).toEqual(unknown);
      // The raw body: JSON.parse gives `{"__proto__": 1}` an own key named __proto__.
      const set = await editor.client.post('/api/v1/sysvars', undefined, {
        raw: `{"set": {"${name}": 1}}`,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(failure(set), name).toEqual(unknown);
      expect(str(body(set), 'error')).toContain(JSON.stringify(name));
    }
    // Nothing was recorded: a known variable still reads as before.
    expect(at(okBody(await editor.client.get('/api/v1/sysvars?names=CLAYER')), 'result.values.CLAYER')).toBe(
      '0',
    );
  });
});

describe('query', () => {
  it('where paths /constructor and /__proto__ never reach the prototype; fields likewise', async () => {
    await newDocument(editor.client);
    const [handle] = await createEntities(editor.client, [LINE]);
    const count = async (where: unknown) =>
      num(
        okBody(
          await editor.client.get(`/api/v1/entities?where=${encodeURIComponent(JSON.stringify(where))}`),
        ),
        'count',
      );
    for (const name of NAMES) {
      expect(await count([{ path: `/${name}`, op: 'exists' }]), name).toBe(0);
      expect(await count([{ path: `/${name}`, op: 'not_exists' }]), name).toBe(1);
      expect(await count([{ path: `/${name}/name`, op: 'exists' }]), name).toBe(0);
      expect(await count([{ path: `/start/${name}`, op: 'exists' }]), name).toBe(0);
      expect(await count([{ path: `/xdata/${name}`, op: 'exists' }]), name).toBe(0);
    }
    expect(await count([{ path: '/__proto__/constructor', op: 'exists' }])).toBe(0);
    const picked = okBody(
      await editor.client.get(`/api/v1/entities?handles=${handle}&fields=${NAMES.join(',')},layer`),
    );
    expect(at(picked, 'entities.0')).toEqual({ handle, layer: '0' });
  });
});

describe('request ids and op names', () => {
  it('op names and request ids named like Object.prototype members are unknown until used', async () => {
    await newDocument(editor.client);
    const unknownOp = failure(await editor.client.post('/api/v1/no_such_op', {}));
    expect(unknownOp).toEqual({ status: 400, code: 'unknown_operation' });
    const unknownId = failure(
      await editor.client.post('/api/v1/operation', { request_id: 'no-such-request' }),
    );
    expect(unknownId).toEqual({ status: 400, code: 'unknown_operation' });
    for (const name of NAMES) {
      expect(failure(await editor.client.post(`/api/v1/${path(name)}`, {})), name).toEqual(unknownOp);
      const batch = await editor.client.post('/api/v1/batch', { atomic: true, steps: [{ op: name }] });
      expect(failure(batch), name).toEqual(unknownOp);
      expect(failure(await editor.client.post('/api/v1/operation', { request_id: name })), name).toEqual(
        unknownId,
      );
      // First use of the id runs; a retry with the same body gets the same answer; another body is refused.
      const request = { request_id: name, entities: [LINE] };
      const first = okBody(await editor.client.post('/api/v1/entities', request), 201);
      const retry = okBody(await editor.client.post('/api/v1/entities', request), 201);
      expect(retry.result).toEqual(first.result);
      const other = await editor.client.post('/api/v1/entities', { ...request, entities: [LINE, LINE] });
      expect(failure(other)).toEqual({ status: 400, code: 'request_id_reused' });
      const recorded = okBody(await editor.client.post('/api/v1/operation', { request_id: name }));
      expect(at(recorded, 'result.status')).toBe('completed');
    }
  });
});

describe('a DXF file whose layer, block, layout, group and xdata app are named __proto__ or constructor', () => {
  it('opens with every name, saves, and ezdxf reads them back; the saved file opens again', async (ctx) => {
    needEzdxf(ctx);
    const source = join(editor.dir, 'made-by-ezdxf.dxf');
    await python<unknown>(
      `
import json, sys, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
for name in ["__proto__", "constructor", "toString"]:
    doc.layers.add(name)
    doc.appids.new(name)
    block = doc.blocks.new(name)
    block.add_circle((0, 0), 1, dxfattribs={"layer": name})
    line = msp.add_line((0, 0), (1, 1), dxfattribs={"layer": name})
    line.set_xdata(name, [(1000, "x-" + name)])
    msp.add_blockref(name, (5, 5), dxfattribs={"layer": name})
    doc.groups.new(name).extend([line])
    doc.layouts.new("L-" + name).add_line((0, 0), (1, 1))
doc.layouts.rename("L-__proto__", "__proto__")
doc.saveas(sys.argv[1])
print(json.dumps(True))
`,
      [source],
    );
    const names = ['__proto__', 'constructor', 'toString'];
    await open(source);
    const layers = await layerNames();
    for (const name of names) {
      expect(layers, name).toContain(name);
      // The layer's entities in the layouts and in the blocks they insert (the block's circle).
      const onLayer = okBody(await editor.client.get(`/api/v1/entities?layer=${path(name)}&detail=full`));
      expect(
        arr(onLayer, 'entities')
          .map((e) => [at(e, 'type'), at(e, 'space')])
          .sort(),
        name,
      ).toEqual([
        ['Circle', name],
        ['Insert', '*Model_Space'],
        ['Line', '*Model_Space'],
      ]);
      const line = arr(onLayer, 'entities').find((e) => at(e, 'type') === 'Line');
      const xdata = at(line, 'xdata');
      expect(Object.keys(xdata as object), name).toEqual([name]);
      expect(own(xdata, name), name).toEqual([{ code: 1000, value: `x-${name}` }]);
      const insert = arr(onLayer, 'entities').find((e) => at(e, 'type') === 'Insert');
      expect(at(insert, 'name'), name).toBe(name);
      expect(failure(await editor.client.post('/api/v1/groups', { name, handles: [] })), name).toEqual({
        status: 400,
        code: 'group_exists',
      });
    }
    const layout = okBody(
      await editor.client.put(`/api/v1/layouts/${path('__proto__')}/page-setup`, { fit: true }),
    );
    expect(at(layout, 'result.layout')).toBe('__proto__');
    const saved = join(editor.dir, 'made-by-ezdxf-saved.dxf');
    await save(saved);
    const seen = await ezdxfSees(saved);
    for (const name of names) {
      expect(seen.layers, name).toContain(name);
      expect(own(seen.blocks, name), name).toEqual(['CIRCLE']);
      expect(own(seen.groups, name), name).toBe(1);
      expect(
        seen.entities
          .filter((e) => e.layer === name)
          .map((e) => e.type)
          .sort(),
        name,
      ).toEqual(['INSERT', 'LINE']);
      expect(seen.entities.find((e) => e.type === 'LINE' && e.layer === name)?.xdata, name).toEqual([name]);
    }
    expect(own(seen.layouts, '__proto__')).toBe(1);
    expect(own(seen.layouts, 'L-constructor')).toBe(1);
    await open(saved);
    expect(await layerNames()).toEqual(expect.arrayContaining(names));
  });

  it('a hand-written DXF with a layer and block named __proto__ (R12, no handles) opens and saves', async (ctx) => {
    needEzdxf(ctx);
    // One record a line, as group code and value pairs (no value holds a space).
    const records = [
      '0 SECTION  2 TABLES  0 TABLE  2 LAYER  70 2',
      '0 LAYER  2 __proto__  70 0  62 3  6 CONTINUOUS',
      '0 LAYER  2 constructor  70 0  62 4  6 CONTINUOUS',
      '0 ENDTAB  0 ENDSEC  0 SECTION  2 BLOCKS',
      '0 BLOCK  8 0  2 __proto__  70 0  10 0  20 0  30 0  3 __proto__',
      '0 LINE  8 __proto__  10 0  20 0  30 0  11 1  21 1  31 0',
      '0 ENDBLK  0 ENDSEC  0 SECTION  2 ENTITIES',
      '0 INSERT  8 constructor  2 __proto__  10 2  20 2  30 0',
      '0 LINE  8 __proto__  10 0  20 0  30 0  11 3  21 4  31 0  1001 __proto__  1000 kept',
      '0 ENDSEC  0 EOF',
    ];
    const source = join(editor.dir, 'hand-made.dxf');
    await writeFile(source, `${records.join(' ').split(/\s+/).join('\n')}\n`, 'latin1');
    await open(source);
    expect(await layerNames()).toEqual(expect.arrayContaining(['__proto__', 'constructor']));
    // The block's line (no xdata) is listed too; the model space one holds the xdata.
    const lines = arr(okBody(await editor.client.get('/api/v1/entities?type=Line&detail=full')), 'entities');
    expect(lines.map((e) => at(e, 'space')).sort()).toEqual(['*Model_Space', '__proto__']);
    const line = lines.find((e) => at(e, 'space') === '*Model_Space');
    expect(own(line, 'xdata')).toBeDefined();
    const xdata = at(line, 'xdata');
    expect(Object.keys(xdata as object)).toEqual(['__proto__']);
    expect(own(xdata, '__proto__')).toEqual([{ code: 1000, value: 'kept' }]);
    const saved = join(editor.dir, 'hand-made-saved.dxf');
    await save(saved);
    const seen = await ezdxfSees(saved);
    expect(seen.layers).toEqual(expect.arrayContaining(['__proto__', 'constructor']));
    expect(own(seen.blocks, '__proto__')).toEqual(['LINE']);
    expect(seen.entities.map((e) => [e.type, e.layer, e.block, e.xdata]).sort()).toEqual([
      ['INSERT', 'constructor', '__proto__', []],
      ['LINE', '__proto__', null, ['__proto__']],
    ]);
  });
});

describe('header variables', () => {
  it('a header variable a file names __proto__ or constructor reads like any other (GET /header)', async () => {
    const source = join(editor.dir, 'header-names.dxf');
    const pairs = '0 SECTION 2 HEADER 9 $ACADVER 1 AC1009 9 __proto__ 70 7 9 constructor 1 c 0 ENDSEC 0 EOF';
    await writeFile(source, `${pairs.split(' ').join('\n')}\n`, 'latin1');
    await open(source);
    const header = at(okBody(await editor.client.get('/api/v1/header')), 'result.values');
    expect(own(header, '__proto__')).toBe(7);
    expect(own(header, 'constructor')).toBe('c');
    expect(own(header, 'toString')).toBeUndefined();
  });
});

describe('the log as the truth', () => {
  it('history, diff and replay --verify of a session that used these names; --resume brings them back', async () => {
    // An editor of its own on a LevelDB data directory, which replay and resume read after it stopped.
    const data = join(editor.dir, 'log');
    await editor.stop();
    await editor.start(['--data', data]);
    const id = num(okBody(await editor.client.post('/api/v1/documents'), 201), 'document_id');
    const session = str(okBody(await editor.client.get('/api/v1/ready')), 'session_id');
    const [handle] = await createEntities(editor.client, [{ ...LINE, layer: 'constructor' }]);
    // The line moves into block __proto__; the group holds the Insert that took its place (a DXF group
    // holds entities of a layout, so one of a block's own would not be saved).
    const defined = okBody(
      await editor.client.post('/api/v1/blocks', { name: '__proto__', handles: [handle] }),
      201,
    );
    const insert = str(defined, 'result.insert');
    okBody(await editor.client.post('/api/v1/groups', { name: 'toString', handles: [insert] }), 201);
    okBody(await editor.client.post('/api/v1/selection-sets', { name: 'valueOf', handles: [handle] }), 201);
    okBody(
      await editor.client.put(`/api/v1/entities/${handle}/xdata/hasOwnProperty`, [
        { code: 1000, value: 'h' },
      ]),
    );
    okBody(await editor.client.del('/api/v1/blocks/__proto__'));
    okBody(await editor.client.post('/api/v1/undo'));
    const history = okBody(await editor.client.get(`/api/v1/documents/${id}/history`));
    const revisions = arr(history, 'revisions');
    expect(revisions.flatMap((r) => at(r, 'keys'))).toEqual(
      expect.arrayContaining([
        'layer:constructor',
        'block:__proto__',
        'group:toString',
        'selection_set:valueOf',
      ]),
    );
    // The first step made layer constructor, the block step made block __proto__: the diff names them added.
    const diff = okBody(await editor.client.get(`/api/v1/documents/${id}/diff?from=0&to=3`));
    expect((at(diff, 'layers.added') as Array<{ name: string }>).map((l) => l.name)).toEqual(['constructor']);
    expect((at(diff, 'blocks.added') as Array<{ name: string }>).map((b) => b.name)).toEqual(['__proto__']);
    expect((at(diff, 'groups.added') as Array<{ name: string }>).map((g) => g.name)).toEqual(['toString']);
    expect(at(diff, 'counts.layers')).toEqual({ added: 1, removed: 0, changed: 0 });
    // Travelling back to revision 2 (before the group): the entities answer as they were.
    const atTwo = okBody(await editor.client.get(`/api/v1/documents/${id}/at/2/entities?layer=constructor`));
    expect(num(atTwo, 'count')).toBe(1);
    await editor.stop();
    const out = join(editor.dir, 'replayed.dxf');
    const verified = await runCli(['replay', session, '--verify', '--data', data], { timeoutMs: 60_000 });
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    const replayed = await runCli(
      ['replay', session, '--document', String(id), '--out', out, '--data', data],
      {
        timeoutMs: 60_000,
      },
    );
    expect(replayed.code).toBe(0);
    if (!ezdxfUnavailable) {
      const seen = await ezdxfSees(out);
      expect(seen.layers).toContain('constructor');
      expect(own(seen.blocks, '__proto__')).toEqual(['LINE']);
      expect(own(seen.groups, 'toString')).toBe(1);
    }
    // The editor resumes the session from the log with every name in place.
    await editor.start(['--data', data, '--resume', session]);
    expect(await layerNames()).toContain('constructor');
    const loaded = okBody(await editor.client.get('/api/v1/selection-sets/valueOf'));
    expect(strings(loaded, 'result.handles')).toEqual([handle]);
    const xdata = okBody(await editor.client.get(`/api/v1/entities/${handle}/xdata`));
    expect(at(xdata, 'items.0.data')).toEqual({ hasOwnProperty: [{ code: 1000, value: 'h' }] });
  });
});
