/**
 * Table and dictionary names are one name in any case, as DXF (AutoCAD, ezdxf) takes them: a request
 * naming `LAYER1` on a drawing with `Layer1` uses `Layer1` and answers that spelling; a second spelling
 * of a block, group, layout, selection set or xdata application is the first one. Against the real CLI,
 * with every saved drawing audited by ezdxf — a file with `mark` and `MARK` is one whose audit deletes a
 * block's contents.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { needEzdxf, python } from '../../editor/dispatcher/helpers.js';
import {
  type Answer,
  arr,
  at,
  body,
  createEntities,
  editorForFile,
  expectAuditClean,
  type Json,
  newDocument,
  okBody,
  str,
  strings,
} from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const LINE = { type: 'Line', start: [0, 0], end: [10, 5] };

const editor = editorForFile();

const failure = (answer: Answer) => ({ status: answer.status, code: body(answer).code });
const entities = async (query: string) =>
  arr(okBody(await editor.client.get(`/api/v1/entities?${query}`)), 'entities') as Json[];

/** What ezdxf reads from a saved file; its audit must find nothing to fix. */
async function ezdxfSees(file: string) {
  await expectAuditClean(file);
  return python<{
    layers: string[];
    blocks: Record<string, string[]>;
    appids: string[];
    groups: string[];
    layouts: string[];
    entities: Array<{ type: string; layer: string; block: string | null; xdata: string[] }>;
  }>(
    `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps({
  "layers": sorted(l.dxf.name for l in doc.layers),
  "blocks": {b.name: [e.dxftype() for e in b] for b in doc.blocks if not b.is_any_layout},
  "appids": sorted(a.dxf.name for a in doc.appids),
  "groups": sorted(name for name, _ in doc.groups),
  "layouts": doc.layout_names(),
  "entities": [
    {"type": e.dxftype(), "layer": e.dxf.layer, "block": e.dxf.name if e.dxftype() == "INSERT" else None,
     "xdata": sorted(e.xdata.data.keys()) if e.xdata else []}
    for e in doc.modelspace()
  ],
}))
`,
    [file],
  );
}

const folded = (names: string[], name: string) => names.filter((n) => n.toLowerCase() === name.toLowerCase());

describe('names in another case', () => {
  it('an entity on LAYER1 of a drawing with Layer1 goes on Layer1: no second layer, the canonical name answered', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    const first = okBody(
      await editor.client.post('/api/v1/entities', { entities: [{ ...LINE, layer: 'Layer1' }] }),
      201,
    );
    expect(at(first, 'result.layers_created')).toEqual(['Layer1']);
    const second = okBody(
      await editor.client.post('/api/v1/entities', {
        entities: [
          { ...LINE, layer: 'LAYER1' },
          { ...LINE, layer: 'Walls' },
          { ...LINE, layer: 'WALLS' },
        ],
      }),
      201,
    );
    // Layer1 exists; WALLS is the spelling of Walls this request made first.
    expect(at(second, 'result.layers_created')).toEqual(['Walls']);
    const [upper, walls, wallsUpper] = strings(second, 'result.handles') as [string, string, string];
    const layerOf = async (handle: string) => str((await entities(`handles=${handle}`))[0], 'layer');
    expect(await layerOf(upper)).toBe('Layer1');
    expect(await layerOf(walls)).toBe('Walls');
    expect(await layerOf(wallsUpper)).toBe('Walls');
    // set_properties and the layer filter fold the same way.
    okBody(
      await editor.client.post('/api/v1/set_properties', {
        handles: [walls],
        properties: { layer: 'layer1' },
      }),
    );
    expect(await layerOf(walls)).toBe('Layer1');
    expect((await entities('layer=LAYER1')).map((e) => e.handle)).toHaveLength(3);
    const layers = arr(okBody(await editor.client.get('/api/v1/layers')), 'result.layers');
    const layer1 = layers.filter((l) => str(l, 'name').toLowerCase() === 'layer1');
    expect(layer1).toEqual([expect.objectContaining({ name: 'Layer1', entities: 3 })]);

    const seen = await ezdxfSees(await editor.save('layers.dxf'));
    expect(folded(seen.layers, 'layer1')).toEqual(['Layer1']);
    expect(folded(seen.layers, 'walls')).toEqual(['Walls']);
    expect(seen.entities.map((e) => e.layer).sort()).toEqual(['Layer1', 'Layer1', 'Layer1', 'Walls']);
  });

  it('a block MARK over mark is block_exists; inserts, replace and delete of MARK use mark; the saved block keeps its contents', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    const [line] = (await createEntities(editor.client, [LINE])) as [string];
    const defined = okBody(
      await editor.client.post('/api/v1/blocks', { name: 'mark', handles: [line] }),
      201,
    );
    expect(at(defined, 'result.block')).toBe('mark');
    const [circle] = (await createEntities(editor.client, [
      { type: 'Circle', center: [0, 0], radius: 1 },
    ])) as [string];
    expect(failure(await editor.client.post('/api/v1/blocks', { name: 'MARK', handles: [circle] }))).toEqual({
      status: 400,
      code: 'block_exists',
    });
    const [insert] = (await createEntities(editor.client, [
      { type: 'Insert', block: 'MARK', position: [20, 0] },
    ])) as [string];
    expect(str((await entities(`handles=${insert}&detail=full`))[0], 'block')).toBe('mark');

    const seen = await ezdxfSees(await editor.save('blocks.dxf'));
    expect(folded(Object.keys(seen.blocks), 'mark')).toEqual(['mark']);
    expect(seen.blocks.mark).toEqual(['LINE']);
    expect(seen.entities.filter((e) => e.type === 'INSERT').map((e) => e.block)).toEqual(['mark', 'mark']);

    const replaced = okBody(
      await editor.client.post('/api/v1/blocks', { name: 'MARK', handles: [circle], replace: true }),
      201,
    );
    expect(at(replaced, 'result.block')).toBe('mark');
    expect(at(replaced, 'result.replaced')).toBe(true);
    const again = await ezdxfSees(await editor.save('blocks-replaced.dxf'));
    expect(folded(Object.keys(again.blocks), 'mark')).toEqual(['mark']);
    expect(again.blocks.mark).toEqual(['CIRCLE']);

    const deleted = okBody(await editor.client.del('/api/v1/blocks/MARK'));
    expect(at(deleted, 'result.block')).toBe('mark');
    const gone = await ezdxfSees(await editor.save('blocks-deleted.dxf'));
    expect(folded(Object.keys(gone.blocks), 'mark')).toEqual([]);
    expect(gone.entities.filter((e) => e.type === 'INSERT')).toEqual([]);
  });

  it('groups g and G are one name: the second is group_exists', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    const handles = await createEntities(editor.client, [LINE, LINE]);
    okBody(await editor.client.post('/api/v1/groups', { name: 'g', handles }), 201);
    expect(failure(await editor.client.post('/api/v1/groups', { name: 'G', handles }))).toEqual({
      status: 400,
      code: 'group_exists',
    });
    const seen = await ezdxfSees(await editor.save('groups.dxf'));
    expect(seen.groups).toEqual(['g']);
  });

  it('a selection set saved as S over s replaces s, and loads by either spelling', async () => {
    await newDocument(editor.client);
    const [a, b] = (await createEntities(editor.client, [LINE, LINE])) as [string, string];
    okBody(await editor.client.post('/api/v1/selection-sets', { name: 's', handles: [a] }), 201);
    const saved = okBody(
      await editor.client.post('/api/v1/selection-sets', { name: 'S', handles: [b] }),
      201,
    );
    expect(at(saved, 'result.name')).toBe('s');
    for (const name of ['s', 'S']) {
      const loaded = okBody(await editor.client.get(`/api/v1/selection-sets/${name}`));
      expect(at(loaded, 'result.name')).toBe('s');
      expect(strings(loaded, 'result.handles')).toEqual([b]);
    }
  });

  it('xdata of app SPM on a drawing that registered Spm goes under Spm: one APPID, read back by any spelling', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    const [a, b] = (await createEntities(editor.client, [LINE, LINE])) as [string, string];
    const first = okBody(
      await editor.client.put(`/api/v1/entities/${a}/xdata/Spm`, [{ code: 1000, value: 'one' }]),
    );
    expect(at(first, 'result.app')).toBe('Spm');
    const second = okBody(
      await editor.client.put(`/api/v1/entities/${b}/xdata/SPM`, [{ code: 1000, value: 'two' }]),
    );
    expect(at(second, 'result.app')).toBe('Spm');
    const read = okBody(await editor.client.get(`/api/v1/entities/${b}/xdata?app=spm`));
    expect(at(read, 'items.0.xdata')).toEqual({ Spm: ['two'] });
    const seen = await ezdxfSees(await editor.save('xdata.dxf'));
    expect(folded(seen.appids, 'spm')).toEqual(['Spm']);
    expect(seen.entities.map((e) => e.xdata)).toEqual([['Spm'], ['Spm']]);
  });

  it('layouts Plan and PLAN are one name; the page setup of plan answers Plan', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(editor.client);
    okBody(await editor.client.post('/api/v1/layouts', { name: 'Plan' }), 201);
    expect(failure(await editor.client.post('/api/v1/layouts', { name: 'PLAN' }))).toEqual({
      status: 400,
      code: 'layout_exists',
    });
    const setup = okBody(
      await editor.client.put('/api/v1/layouts/plan/page-setup', { orientation: 'portrait' }),
    );
    expect(at(setup, 'result.layout')).toBe('Plan');
    const seen = await ezdxfSees(await editor.save('layouts.dxf'));
    expect(folded(seen.layouts, 'plan')).toEqual(['Plan']);
  });

  it('a linetype or text style named in another case is the drawing’s, in its spelling', async () => {
    await newDocument(editor.client);
    const [line, text] = (await createEntities(editor.client, [
      { ...LINE, linetype: 'dashed' },
      { type: 'Text', value: 'x', position: [0, 0], style: 'STANDARD' },
    ])) as [string, string];
    expect(str((await entities(`handles=${line}&detail=full`))[0], 'linetype')).toBe('DASHED');
    expect(str((await entities(`handles=${text}&detail=full`))[0], 'style')).toBe('Standard');
  });
});

describe('a file that holds a name twice', () => {
  it('opens with the first record of each name; the second block and its contents are left out; the save audits clean', async (ctx) => {
    needEzdxf(ctx);
    // Written by ezdxf with distinct names, then renamed so that the file holds each name twice.
    const made = join(editor.dir, 'made.dxf');
    await python<string>(
      `
import json, sys, ezdxf
doc = ezdxf.new("R2010")
doc.layers.add("Layer1", color=1)
doc.layers.add("LAYERX", color=2)
msp = doc.modelspace()
doc.blocks.new("mark").add_line((0, 0), (1, 1))
doc.blocks.new("MARKX").add_circle((0, 0), 1)
msp.add_line((0, 0), (5, 5), dxfattribs={"layer": "LAYERX"})
msp.add_blockref("mark", (10, 10))
doc.saveas(sys.argv[1])
print(json.dumps("ok"))
`,
      [made],
    );
    const twice = join(editor.dir, 'twice.dxf');
    const text = await readFile(made, 'utf8');
    await writeFile(twice, text.replace(/\nLAYERX\r?\n/g, '\nLAYER1\n').replace(/\nMARKX\r?\n/g, '\nMARK\n'));

    okBody(await editor.client.post('/api/v1/documents', { path: twice }), 201);
    const layers = arr(okBody(await editor.client.get('/api/v1/layers')), 'result.layers');
    expect(layers.filter((l) => str(l, 'name').toLowerCase() === 'layer1')).toEqual([
      expect.objectContaining({ name: 'Layer1', color: 1, entities: 1 }),
    ]);
    expect((await entities('type=Circle')).length).toBe(0);
    expect((await entities('type=Line')).length).toBe(2);

    const seen = await ezdxfSees(await editor.save('twice-saved.dxf'));
    expect(folded(seen.layers, 'layer1')).toEqual(['Layer1']);
    expect(folded(Object.keys(seen.blocks), 'mark')).toEqual(['mark']);
    expect(seen.blocks.mark).toEqual(['LINE']);
  });
});
