/**
 * DXF files from the wild, read as AutoCAD and ezdxf read them and written back so ezdxf reads the same:
 * against the real CLI, every saved drawing audited by ezdxf. The files are excerpts of our own making in
 * test/fixtures/dxf-wild/ (its README says which writer's habit each one reproduces and where that
 * fact comes from).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, tempDir } from '../../cli/helpers.js';
import { ezdxfAudit, needEzdxf, python } from '../../editor/dispatcher/helpers.js';
import {
  type Answer,
  arr,
  at,
  body,
  Client,
  createEntities,
  type EditorServer,
  type Json,
  newDocument,
  startEditor,
  str,
  strings,
} from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/dxf-wild');

let dir: string;
let server: EditorServer;
let client: Client;

beforeAll(async () => {
  assertBuilt();
  dir = await tempDir();
  server = await startEditor();
  client = new Client(server.port);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ok = (answer: Answer, status = 200): Json => {
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status} ${answer.text}`);
  return body(answer);
};

async function open(name: string): Promise<Json> {
  return ok(await client.post('/api/v1/documents', { path: join(FIXTURES, name) }), 201);
}

async function save(name: string): Promise<string> {
  const file = join(dir, name);
  ok(await client.post('/api/v1/save', { path: file }));
  return file;
}

/** The group codes of each entity of a saved file's ENTITIES section, in order, by entity type. */
async function entityCodes(file: string): Promise<Array<{ type: string; codes: number[] }>> {
  const lines = (await readFile(file, 'utf8')).split(/\r?\n/);
  const out: Array<{ type: string; codes: number[] }> = [];
  let inEntities = false;
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const code = Number(lines[i]);
    const value = (lines[i + 1] as string).trim();
    if (code === 2 && value === 'ENTITIES') inEntities = true;
    else if (code === 0 && value === 'ENDSEC') inEntities = false;
    else if (inEntities && code === 0) out.push({ type: value, codes: [] });
    else if (inEntities) out.at(-1)?.codes.push(code);
  }
  return out;
}

async function audited(file: string): Promise<void> {
  const audit = await ezdxfAudit(file);
  expect(audit.output).toContain('No errors found');
  expect(audit.code).toBe(0);
}

describe('tag order of other writers', () => {
  it("dxflib's graphic attributes after the type's marker are the entity's: layer, colour, lineweight read; each written once", async (ctx) => {
    needEzdxf(ctx);
    await open('dxflib-tag-order.dxf');
    const all = arr(ok(await client.get('/api/v1/entities?detail=full')), 'entities') as Json[];
    const byType = Object.fromEntries(all.map((e) => [String(e.type === 'Raw' ? e.dxf_type : e.type), e]));
    expect(Object.keys(byType).sort()).toEqual(['Ellipse', 'Line', 'MText']);
    expect(byType.Line).toMatchObject({ layer: 'walls', color: 3, lineweight: 25 });
    expect(byType.MText).toMatchObject({ layer: 'walls', color: 256, value: 'Room 1' });
    expect(byType.Ellipse).toMatchObject({ layer: 'walls', color: 5 });
    const layers = arr(ok(await client.get('/api/v1/layers')), 'result.layers') as Json[];
    expect(layers.find((l) => l.name === 'walls')).toMatchObject({ entities: 3 });
    expect(layers.find((l) => l.name === '0')).toMatchObject({ entities: 0 });

    const file = await save('dxflib-saved.dxf');
    await audited(file);
    for (const { type, codes } of await entityCodes(file)) {
      for (const code of [8, 62, 370, 6]) {
        expect(codes.filter((c) => c === code).length, `${type} ${code}`).toBeLessThanOrEqual(1);
      }
      // The layer stands in AcDbEntity, before the type's own marker.
      expect(codes.indexOf(8), type).toBeLessThan(codes.lastIndexOf(100));
    }
    const seen = await python<Array<[string, string, number]>>(
      `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps([[e.dxftype(), e.dxf.layer, e.dxf.color] for e in doc.modelspace()]))
`,
      [file],
    );
    expect(seen).toEqual([
      ['LINE', 'walls', 3],
      ['MTEXT', 'walls', 256],
      ['ELLIPSE', 'walls', 5],
    ]);
  });
});

/** A drawing of `count` lines, a circle and a text, saved by chronicle: its path and text. */
async function savedDrawing(name: string, count: number): Promise<{ file: string; text: string }> {
  await newDocument(client);
  const lines = Array.from({ length: count }, (_, i) => ({ type: 'Line', start: [i, 0], end: [i, 10] }));
  await createEntities(client, [
    ...lines,
    { type: 'Circle', center: [0, 0], radius: 3 },
    { type: 'Text', value: 'Grüße', position: [0, 20] },
  ]);
  // With its identity minted, so the file holds a $FINGERPRINTGUID as AutoCAD's files do.
  ok(await client.post('/api/v1/file-identity', {}));
  const file = await save(name);
  return { file, text: await readFile(file, 'latin1') };
}

const failure = (answer: Answer) => ({ status: answer.status, code: body(answer).code });

describe('recover mode: files ezdxf recover reads', () => {
  it('a file that ends without 0 EOF (and without the ENDSEC of its last section) opens whole, saying what was repaired; recover: false refuses it', async (ctx) => {
    needEzdxf(ctx);
    const { text } = await savedDrawing('whole.dxf', 1500);
    const cut = text.slice(0, text.lastIndexOf('ENDSEC'));
    const file = join(dir, 'no-eof.dxf');
    await writeFile(file, cut.slice(0, cut.lastIndexOf('\n', cut.length - 2) + 1), 'latin1');
    const refused = await client.post('/api/v1/documents', { path: file, recover: false });
    expect(failure(refused)).toEqual({ status: 400, code: 'dxf_truncated' });
    const opened = ok(await client.post('/api/v1/documents', { path: file }), 201);
    const recovered = strings(opened, 'result.recovered');
    expect(recovered.some((r) => r.includes('EOF'))).toBe(true);
    expect(recovered.some((r) => r.includes('ENDSEC'))).toBe(true);
    expect(at(opened, 'result.by_type')).toMatchObject({ Line: 1500, Circle: 1, Text: 1 });
    const explicit = ok(await client.post('/api/v1/documents', { path: file, recover: true }), 201);
    expect(at(explicit, 'result.entities')).toBe(1502);
    // What it saves is whole: ezdxf reads it without recover and its audit finds nothing.
    const again = await save('recovered.dxf');
    await audited(again);
    const types = await python<Record<string, number>>(
      `
import json, sys, collections, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps(collections.Counter(e.dxftype() for e in doc.modelspace())))
`,
      [again],
    );
    expect(types).toEqual({ LINE: 1500, CIRCLE: 1, TEXT: 1 });
  });

  it('data after EOF is left out with a note; recover: false refuses it dxf_invalid', async () => {
    const { text } = await savedDrawing('trash.dxf', 3);
    const file = join(dir, 'trash-after-eof.dxf');
    await writeFile(file, `${text}this is no DXF\n\u0000\u0001 and more\n`, 'latin1');
    expect(failure(await client.post('/api/v1/documents', { path: file, recover: false }))).toEqual({
      status: 400,
      code: 'dxf_invalid',
    });
    const opened = ok(await client.post('/api/v1/documents', { path: file }), 201);
    expect(strings(opened, 'result.recovered')).toEqual([expect.stringMatching(/after EOF: left out$/)]);
    expect(at(opened, 'result.entities')).toBe(5);
  });

  it('a clean file opens with recovered: []', async () => {
    const { file } = await savedDrawing('clean.dxf', 1);
    const opened = ok(await client.post('/api/v1/documents', { path: file }), 201);
    expect(at(opened, 'result.recovered')).toEqual([]);
    expect(at(opened, 'result.format')).toBe('ascii');
  });
});

describe('binary DXF', () => {
  const EZDXF_BINARY = `
import sys, ezdxf
doc = ezdxf.new(sys.argv[2])
msp = doc.modelspace()
doc.layers.add("WALLS", color=1)
for i in range(20):
    msp.add_line((i, 0), (i, 5.25), dxfattribs={"layer": "WALLS", "color": 3})
msp.add_circle((1.5, -2.125), 0.75)
msp.add_text("Grüße", dxfattribs={"height": 2.5, "insert": (0, 10)})
doc.saveas(sys.argv[1], fmt="bin")
print("{}")
`;

  for (const version of ['R2010', 'R2000', 'R12']) {
    it(`reads ezdxf's binary ${version} file and saves it as binary DXF that ezdxf reads the same, audited clean`, async (ctx) => {
      needEzdxf(ctx);
      const file = join(dir, `ezdxf-${version}.dxf`);
      await python(EZDXF_BINARY, [file, version]);
      expect((await readFile(file)).subarray(0, 18).toString('latin1')).toBe('AutoCAD Binary DXF');
      const opened = ok(await client.post('/api/v1/documents', { path: file }), 201);
      expect(at(opened, 'result.format')).toBe('binary');
      expect(at(opened, 'result.by_type')).toEqual({ Line: 20, Circle: 1, Text: 1 });
      const lines = arr(ok(await client.get('/api/v1/entities?type=Line&detail=full')), 'entities') as Json[];
      expect(lines[0]).toMatchObject({ layer: 'WALLS', color: 3, start: [0, 0, 0], end: [0, 5.25, 0] });
      const circle = (
        arr(ok(await client.get('/api/v1/entities?type=Circle&detail=full')), 'entities') as Json[]
      )[0];
      expect(circle).toMatchObject({ center: [1.5, -2.125, 0], radius: 0.75 });
      const text = (
        arr(ok(await client.get('/api/v1/entities?type=Text&detail=full')), 'entities') as Json[]
      )[0];
      expect(text).toMatchObject({ value: 'Grüße', height: 2.5 });

      const saved = join(dir, `saved-binary-${version}.dxf`);
      const answer = ok(await client.post('/api/v1/save', { path: saved, format: 'binary' }));
      expect(at(answer, 'result.format')).toBe('binary');
      expect((await readFile(saved)).subarray(0, 22)).toEqual(
        Buffer.from('AutoCAD Binary DXF\r\n\u001a\u0000', 'latin1'),
      );
      // ezdxf 0.18's audit command reads ASCII only: its readfile reads binary, and its auditor runs on that.
      const seen = await python<Json>(
        `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
auditor = doc.audit()
msp = doc.modelspace()
lines = msp.query("LINE")
print(json.dumps({"lines": len(lines), "layer": lines[0].dxf.layer, "radius": msp.query("CIRCLE")[0].dxf.radius,
  "text": msp.query("TEXT")[0].dxf.text, "errors": len(auditor.errors), "fixes": len(auditor.fixes)}))
`,
        [saved],
      );
      expect(seen).toEqual({ lines: 20, layer: 'WALLS', radius: 0.75, text: 'Grüße', errors: 0, fixes: 0 });
      // And chronicle reads its own binary file back.
      const back = ok(await client.post('/api/v1/documents', { path: saved }), 201);
      expect(at(back, 'result.by_type')).toEqual({ Line: 20, Circle: 1, Text: 1 });
    });
  }

  it('a save format other than ascii or binary is invalid_format and writes nothing', async () => {
    await newDocument(client);
    const file = join(dir, 'never.dxf');
    expect(failure(await client.post('/api/v1/save', { path: file, format: 'dwg' }))).toEqual({
      status: 400,
      code: 'invalid_format',
    });
    await expect(readFile(file)).rejects.toThrow();
  });

  it('capabilities list the versions that open, AC1003 and AC1006 among them', async () => {
    const caps = ok(await client.get('/api/v1/capabilities'));
    const versions = strings(caps, 'result.dxf.read_versions');
    expect(versions).toEqual(expect.arrayContaining(['AC1003', 'AC1006', 'AC1009', 'AC1015', 'AC1032']));
  });
});

describe('layouts of files from the wild', () => {
  it("keeps the names and page setups of every LAYOUT when the BLOCK_RECORD table has no head (ezdxf's recover02.dxf)", async (ctx) => {
    needEzdxf(ctx);
    // ezdxf writes a drawing with two named paper layouts and their page setups; its BLOCK_RECORD table
    // head is then taken out, the fault of ezdxf's integration_tests/data/recover02.dxf (its records
    // follow the DIMSTYLE ENDTAB).
    const made = join(dir, 'layouts-made.dxf');
    const papers = await python<Record<string, string>>(
      `
import json, sys, ezdxf
doc = ezdxf.new("R2018")
doc.layouts.rename("Layout1", "ISO A4 Size")
a4 = doc.layouts.get("ISO A4 Size")
a4.page_setup(size=(210, 297), margins=(10, 10, 10, 10), units="mm", name="ISO_A4_(210.00_x_297.00_MM)")
a4.add_line((0, 0), (100, 100))
letter = doc.layouts.new("Letter Size")
letter.page_setup(size=(8.5, 11), margins=(0.5, 0.5, 0.5, 0.5), units="inch", name="ANSI_A_(8.50_x_11.00_Inches)")
letter.add_circle((2, 2), 1)
doc.modelspace().add_line((0, 0), (1, 0))
doc.saveas(sys.argv[1])
print(json.dumps({name: doc.layouts.get(name).dxf.paper_size for name in ("ISO A4 Size", "Letter Size")}))
`,
      [made],
    );
    const text = await readFile(made, 'utf8');
    const head =
      /\r?\n {2}0\r?\nTABLE\r?\n {2}2\r?\nBLOCK_RECORD\r?\n[\s\S]*?(?=\r?\n {2}0\r?\nBLOCK_RECORD\r?\n)/;
    expect(head.test(text)).toBe(true);
    const broken = join(dir, 'layouts-no-block-record-head.dxf');
    await writeFile(broken, text.replace(head, ''));

    const opened = ok(await client.post('/api/v1/documents', { path: broken }), 201);
    expect(strings(opened, 'result.recovered')).toEqual([
      expect.stringContaining('BLOCK_RECORD records outside a TABLE'),
    ]);
    const probe = ok(await client.post('/api/v1/layouts', { name: 'PROBE' }), 201);
    expect(strings(probe, 'result.layouts')).toEqual(
      expect.arrayContaining(['Model', 'ISO A4 Size', 'Letter Size']),
    );
    expect(strings(probe, 'result.layouts')).not.toContain('Layout1');
    const a4 = ok(await client.put(`/api/v1/layouts/${encodeURIComponent('ISO A4 Size')}/page-setup`, {}));
    expect(at(a4, 'result.paper')).toBe(papers['ISO A4 Size']);
    const letter = ok(
      await client.put(`/api/v1/layouts/${encodeURIComponent('Letter Size')}/page-setup`, {}),
    );
    expect(at(letter, 'result.paper')).toBe(papers['Letter Size']);

    const saved = await save('layouts-saved.dxf');
    await audited(saved);
    const seen = await python<Record<string, { paper: string; entities: string[] }>>(
      `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps({name: {"paper": doc.layouts.get(name).dxf.paper_size, "entities": [e.dxftype() for e in doc.layouts.get(name)]}
  for name in doc.layout_names() if name != "Model"}))
`,
      [saved],
    );
    expect(seen['ISO A4 Size']).toEqual({
      paper: papers['ISO A4 Size'],
      entities: expect.arrayContaining(['LINE']),
    });
    expect(seen['Letter Size']).toEqual({
      paper: papers['Letter Size'],
      entities: expect.arrayContaining(['CIRCLE']),
    });
  });
});

describe('copy-to carries what the copies need', () => {
  const post = async (path: string, payload: Json, status = 200) =>
    ok(await client.post(path, payload), status);
  const documentId = async () => Number(at(ok(await client.get('/api/v1/state')), 'document_id'));

  it('inserts bring their blocks along, nested ones too, renamed on a clash; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    // The target: a block MARK of its own, which the source's MARK must not overwrite.
    const target = await newDocument(client);
    const [own] = await createEntities(client, [{ type: 'Circle', center: [0, 0], radius: 9 }]);
    await post('/api/v1/blocks', { name: 'MARK', base: [0, 0], handles: [own] }, 201);
    // The source: INNER (a line) inside MARK (a circle and an insert of INNER), inserted twice.
    const source = await newDocument(client);
    const [inner] = await createEntities(client, [{ type: 'Line', start: [0, 0], end: [1, 0], layer: 'IN' }]);
    await post('/api/v1/blocks', { name: 'INNER', base: [0, 0], handles: [inner] }, 201);
    const innerInsert = [str(ok(await client.get('/api/v1/entities?type=Insert')), 'entities.0.handle')];
    const [circle] = await createEntities(client, [
      { type: 'Circle', center: [0, 0], radius: 1, layer: 'MK' },
    ]);
    const mark = await post(
      '/api/v1/blocks',
      { name: 'mark', base: [0, 0], handles: [circle, ...innerInsert] },
      201,
    );
    const [second] = await createEntities(client, [{ type: 'Insert', block: 'mark', position: [10, 0] }]);
    expect(await documentId()).toBe(source);

    const copied = await post(
      '/api/v1/entities/copy-to',
      { document_id: target, handles: [str(mark, 'result.insert'), second as string] },
      201,
    );
    expect(at(copied, 'result.count')).toBe(2);
    expect(at(copied, 'result.blocks_created')).toEqual(['mark_1', 'INNER']);
    expect(at(copied, 'result.blocks_renamed')).toEqual({ mark: 'mark_1' });
    expect(strings(copied, 'result.layers_created')).toEqual(expect.arrayContaining(['MK', 'IN']));

    await post('/api/v1/activate', { document_id: target });
    const inserts = arr(
      ok(await client.get('/api/v1/entities?type=Insert&detail=full')),
      'entities',
    ) as Json[];
    // A plain query lists the block contents the layouts insert too: INNER's insert inside mark_1.
    expect(inserts.map((e) => e.block).sort()).toEqual(['INNER', 'MARK', 'mark_1', 'mark_1']);
    const file = await save('copy-target.dxf');
    await audited(file);
    const seen = await python<Record<string, string[]>>(
      `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps({b.name: sorted(e.dxftype() + ":" + (e.dxf.name if e.dxftype() == "INSERT" else e.dxf.layer) for e in b)
  for b in doc.blocks if not b.is_any_layout}))
`,
      [file],
    );
    expect(seen.MARK).toEqual(['CIRCLE:0']);
    expect(seen.mark_1).toEqual(['CIRCLE:MK', 'INSERT:INNER']);
    expect(seen.INNER).toEqual(['LINE:IN']);
    // One undo takes the copies, the blocks and the layers out again.
    await post('/api/v1/undo', {});
    const after = arr(ok(await client.get('/api/v1/entities?type=Insert&detail=full')), 'entities') as Json[];
    expect(after.map((e) => e.block)).toEqual(['MARK']);
    await audited(await save('copy-target-undone.dxf'));
  });

  it('text styles and linetypes the copies use come along (of the entities, their layers and block contents); the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    const sourceFile = join(dir, 'styled-source.dxf');
    await python(
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
doc.styles.add("NOTES", font="arialbd.ttf")
doc.linetypes.add("FENCE", pattern=[0.75, 0.5, -0.25], description="Fence ---- ----")
doc.linetypes.add("RAIL", pattern=[1.0, 0.6, -0.4], description="Rail ---- ----")
doc.layers.add("RAILS", linetype="RAIL")
msp = doc.modelspace()
msp.add_text("Hello", dxfattribs={"style": "NOTES", "height": 2})
msp.add_line((0, 0), (10, 0), dxfattribs={"linetype": "FENCE"})
msp.add_line((0, 5), (10, 5), dxfattribs={"layer": "RAILS"})
doc.saveas(sys.argv[1])
print("{}")
`,
      [sourceFile],
    );
    const target = await newDocument(client);
    ok(await client.post('/api/v1/documents', { path: sourceFile }), 201);
    const handles = (arr(ok(await client.get('/api/v1/entities')), 'entities') as Json[]).map((e) =>
      str(e, 'handle'),
    );
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.text_styles_created')).toEqual(['NOTES']);
    expect(strings(copied, 'result.linetypes_created').sort()).toEqual(['FENCE', 'RAIL']);
    expect(at(copied, 'result.layers_created')).toEqual(['RAILS']);
    await post('/api/v1/activate', { document_id: target });
    const file = await save('styled-target.dxf');
    await audited(file);
    const seen = await python<Json>(
      `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
msp = doc.modelspace()
print(json.dumps({
  "font": doc.styles.get("NOTES").dxf.font,
  "fence": doc.linetypes.get("FENCE").dxf.description,
  "rail_layer": doc.layers.get("RAILS").dxf.linetype,
  "text_style": msp.query("TEXT")[0].dxf.style,
  "line_types": sorted(e.dxf.linetype for e in msp.query("LINE")),
}))
`,
      [file],
    );
    expect(seen).toEqual({
      font: 'arialbd.ttf',
      fence: 'Fence ---- ----',
      rail_layer: 'RAIL',
      text_style: 'NOTES',
      line_types: ['BYLAYER', 'FENCE'],
    });
  });

  it('a second copy of the same insert into the same target renames again; the first copy keeps its block', async (ctx) => {
    needEzdxf(ctx);
    const target = await newDocument(client);
    const source = await newDocument(client);
    const [line] = await createEntities(client, [{ type: 'Line', start: [0, 0], end: [2, 2] }]);
    const defined = await post('/api/v1/blocks', { name: 'B', base: [0, 0], handles: [line] }, 201);
    const insert = str(defined, 'result.insert');
    const first = await post('/api/v1/entities/copy-to', { document_id: target, handles: [insert] }, 201);
    expect(at(first, 'result.blocks_created')).toEqual(['B']);
    await post('/api/v1/activate', { document_id: source });
    const again = await post('/api/v1/entities/copy-to', { document_id: target, handles: [insert] }, 201);
    expect(at(again, 'result.blocks_created')).toEqual(['B_1']);
    await post('/api/v1/activate', { document_id: target });
    await audited(await save('copy-twice.dxf'));
  });
  it('a DIMENSION brings its geometry block (*D) and its dimension style; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    // The source is drawn by ezdxf (a linear dimension rendered into its *D block, on a style of its own):
    // no file of test/fixtures holds a DIMENSION.
    const drawn = join(dir, 'dimension-source.dxf');
    await python<null>(
      `
import sys, json, ezdxf
doc = ezdxf.new("R2010", setup=True)
doc.dimstyles.duplicate_entry("Standard", "MEASURE")
dim = doc.modelspace().add_linear_dim(base=(0, 3), p1=(0, 0), p2=(10, 0), dimstyle="MEASURE")
dim.render()
doc.saveas(sys.argv[1])
print(json.dumps(None))
`,
      [drawn],
    );
    const target = await newDocument(client);
    ok(await client.post('/api/v1/documents', { path: drawn }), 201);
    const source = await documentId();
    const dims = arr(ok(await client.get('/api/v1/entities?type=DIMENSION')), 'entities') as Json[];
    expect(dims).toHaveLength(1);
    const copied = await post(
      '/api/v1/entities/copy-to',
      { document_id: target, handles: [str(dims[0] as Json, 'handle')] },
      201,
    );
    expect(at(copied, 'result.count')).toBe(1);
    // The *D block, and the arrow block it inserts (its name the target's drawing already had).
    const blocks = strings(copied, 'result.blocks_created');
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(/^\*D\d+$/);
    expect(strings(copied, 'result.dimension_styles_created')).toEqual(['MEASURE']);
    expect(source).not.toBe(target);
    await post('/api/v1/activate', { document_id: target });
    const file = await save('dimension-target.dxf');
    await audited(file);
    const seen = await python<{ style: string; block: string; lines: number }>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
dim = doc.modelspace().query("DIMENSION")[0]
block = doc.blocks.get(dim.dxf.geometry)
print(json.dumps({"style": doc.dimstyles.get(dim.dxf.dimstyle).dxf.name, "block": dim.dxf.geometry,
  "lines": len(block.query("LINE"))}))
`,
      [file],
    );
    expect(seen.style).toBe('MEASURE');
    expect(seen.block).toBe(blocks[0]);
    expect(seen.lines).toBeGreaterThan(0);
  });
  it("an MLINE names the target's style of its name, or brings its MLINESTYLE along; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    // Drawn by ezdxf: no file of test/fixtures holds an MLINE. Handles of the source's MLINESTYLEs are
    // handles of other records in the target (a BLOCK, as a file from the wild showed).
    const drawn = join(dir, 'mline-source.dxf');
    await python<null>(
      `
import sys, json, ezdxf
doc = ezdxf.new("R2010")
style = doc.mline_styles.new("RAILS")
style.elements.append(0.5, 1)
style.elements.append(-0.5, 3)
msp = doc.modelspace()
msp.add_mline([(0, 0), (10, 0), (10, 5)], dxfattribs={"style_name": "RAILS"})
msp.add_mline([(0, 10), (10, 10)])
doc.saveas(sys.argv[1])
print(json.dumps(None))
`,
      [drawn],
    );
    const target = await newDocument(client);
    ok(await client.post('/api/v1/documents', { path: drawn }), 201);
    const mlines = arr(ok(await client.get('/api/v1/entities?type=MLINE')), 'entities') as Json[];
    expect(mlines).toHaveLength(2);
    const copied = await post(
      '/api/v1/entities/copy-to',
      { document_id: target, handles: mlines.map((m) => str(m, 'handle')) },
      201,
    );
    expect(at(copied, 'result.mline_styles_created')).toEqual(['RAILS']);
    await post('/api/v1/activate', { document_id: target });
    const file = await save('mline-target.dxf');
    await audited(file);
    const seen = await python<{ name: string; style: string; elements: number }[]>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = []
for m in doc.modelspace().query("MLINE"):
    style = doc.entitydb[m.dxf.style_handle]
    out.append({"name": m.dxf.style_name, "style": style.dxftype() + " " + style.dxf.name,
      "elements": len(style.elements)})
print(json.dumps(out))
`,
      [file],
    );
    expect(seen).toEqual([
      { name: 'RAILS', style: 'MLINESTYLE RAILS', elements: 2 },
      { name: 'Standard', style: 'MLINESTYLE Standard', elements: 2 },
    ]);
  });
  it("the DIMENSIONs of a real file (dxfrw's, skymakerolof/dxf's dimensions.dxf) copy with their geometry blocks; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    const target = await newDocument(client);
    const real = join(import.meta.dirname, '../../fixtures/dxf-corpus/dxfjs-dimensions.dxf');
    ok(await client.post('/api/v1/documents', { path: real }), 201);
    const handles = (arr(ok(await client.get('/api/v1/entities')), 'entities') as Json[]).map((e) =>
      str(e, 'handle'),
    );
    expect(handles).toHaveLength(7);
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.count')).toBe(7);
    const blocks = strings(copied, 'result.blocks_created');
    expect(blocks.filter((b) => /^\*D\d+$/.test(b))).toHaveLength(2);
    await post('/api/v1/activate', { document_id: target });
    const file = await save('real-dimensions-copied.dxf');
    await audited(file);
    const seen = await python<Json>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
msp = doc.modelspace()
dims = msp.query("DIMENSION")
print(json.dumps({
  "types": sorted(e.dxftype() for e in msp),
  "blocks": sorted(len(doc.blocks.get(d.dxf.geometry)) > 0 for d in dims),
  "styles": sorted(doc.dimstyles.has_entry(d.dxf.dimstyle) for d in dims),
}))
`,
      [file],
    );
    expect(seen).toEqual({
      types: ['CIRCLE', 'DIMENSION', 'DIMENSION', 'LINE', 'LINE', 'LINE', 'LINE'],
      blocks: [true, true],
      styles: [true, true],
    });
  });

  it('an IMAGE brings its IMAGEDEF (with a reactor of its own), an underlay its PDF/DWF/DGN definition; a definition of the same file is not doubled; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    // Drawn by ezdxf: two IMAGEs of one IMAGEDEF, one of a second, and one underlay of each format.
    const drawn = join(dir, 'image-source.dxf');
    await python<null>(
      `
import sys, json, ezdxf
doc = ezdxf.new("R2018")
msp = doc.modelspace()
picture = doc.add_image_def(filename="picture.png", size_in_pixel=(64, 32))
photo = doc.add_image_def(filename="photo.jpg", size_in_pixel=(640, 480), name="PHOTO")
msp.add_image(picture, insert=(0, 0), size_in_units=(6.4, 3.2))
msp.add_image(picture, insert=(10, 0), size_in_units=(6.4, 3.2))
msp.add_image(photo, insert=(20, 0), size_in_units=(6.4, 4.8))
for fmt, name in (("pdf", "plan.pdf"), ("dwf", "plan.dwf"), ("dgn", "plan.dgn")):
    msp.add_underlay(doc.add_underlay_def(filename=name, fmt=fmt), insert=(0, 10))
doc.saveas(sys.argv[1])
print(json.dumps(None))
`,
      [drawn],
    );
    // The target already shows picture.png (from an image of its own, drawn the same way).
    const own = join(dir, 'image-target.dxf');
    await python<null>(
      `
import sys, json, ezdxf
doc = ezdxf.new("R2018")
picture = doc.add_image_def(filename="picture.png", size_in_pixel=(64, 32), name="PHOTO")
doc.modelspace().add_image(picture, insert=(0, 50), size_in_units=(6.4, 3.2))
doc.saveas(sys.argv[1])
print(json.dumps(None))
`,
      [own],
    );
    ok(await client.post('/api/v1/documents', { path: own }), 201);
    const target = await documentId();
    ok(await client.post('/api/v1/documents', { path: drawn }), 201);
    const source = await documentId();
    const handles = (arr(ok(await client.get('/api/v1/entities')), 'entities') as Json[]).map((e) =>
      str(e, 'handle'),
    );
    expect(handles).toHaveLength(6);
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.count')).toBe(6);
    // picture.png is the target's PHOTO already; the source's PHOTO (photo.jpg) comes in as PHOTO_2.
    expect(at(copied, 'result.image_defs_created')).toEqual(['PHOTO_2']);
    expect(strings(copied, 'result.underlay_defs_created')).toHaveLength(3);
    await post('/api/v1/activate', { document_id: target });
    const file = await save('image-copied.dxf');
    await audited(file);
    const seen = await python<Json>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
msp = doc.modelspace()
images = msp.query("IMAGE")
db = doc.entitydb
def reactors(d):
    return sorted(db[h].dxftype() for h in d.get_reactors() if h in db)
out = {
  "images": sorted([i.image_def.dxf.filename, db[i.dxf.image_def_reactor_handle].dxf.image_handle == i.dxf.handle] for i in images),
  "reactors": len(doc.objects.query("IMAGEDEF_REACTOR")),
  "imagedefs": sorted([k, v.dxf.filename, reactors(v)] for k, v in doc.rootdict["ACAD_IMAGE_DICT"].items()),
  "underlays": sorted([u.dxftype(), db[u.dxf.underlay_def_handle].dxftype(), db[u.dxf.underlay_def_handle].dxf.filename,
    u.dxf.handle in db[u.dxf.underlay_def_handle].get_reactors()] for u in msp.query("PDFUNDERLAY DWFUNDERLAY DGNUNDERLAY")),
  "dicts": sorted(len(doc.rootdict[n]) for n in ("ACAD_PDFDEFINITIONS", "ACAD_DWFDEFINITIONS", "ACAD_DGNDEFINITIONS")),
}
print(json.dumps(out))
`,
      [file],
    );
    expect(seen).toEqual({
      images: [
        ['photo.jpg', true],
        ['picture.png', true],
        ['picture.png', true],
        ['picture.png', true],
      ],
      reactors: 4,
      imagedefs: [
        ['PHOTO', 'picture.png', ['DICTIONARY', 'IMAGEDEF_REACTOR', 'IMAGEDEF_REACTOR', 'IMAGEDEF_REACTOR']],
        ['PHOTO_2', 'photo.jpg', ['DICTIONARY', 'IMAGEDEF_REACTOR']],
      ],
      underlays: [
        ['DGNUNDERLAY', 'DGNDEFINITION', 'plan.dgn', true],
        ['DWFUNDERLAY', 'DWFDEFINITION', 'plan.dwf', true],
        ['PDFUNDERLAY', 'PDFDEFINITION', 'plan.pdf', true],
      ],
      dicts: [1, 1, 1],
    });
    // A second copy of the same images brings no second definition; one undo takes each copy out.
    await post('/api/v1/activate', { document_id: source });
    const again = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(again, 'result.image_defs_created')).toEqual([]);
    expect(at(again, 'result.underlay_defs_created')).toEqual([]);
    await post('/api/v1/activate', { document_id: target });
    await post('/api/v1/undo', {});
    await post('/api/v1/undo', {});
    const undone = await save('image-copied-undone.dxf');
    await audited(undone);
    expect(
      await python<Json>(
        `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps({"entities": len(doc.modelspace()), "imagedefs": len(doc.objects.query("IMAGEDEF")),
  "reactors": len(doc.objects.query("IMAGEDEF_REACTOR")), "pdf": "ACAD_PDFDEFINITIONS" in doc.rootdict}))
`,
        [undone],
      ),
    ).toEqual({ entities: 1, imagedefs: 1, reactors: 1, pdf: false });
  });
});

describe('smaller facts of files from the wild', () => {
  it('$FINGERPRINTGUID is kept as the file writes it (lower case, braces)', async (ctx) => {
    needEzdxf(ctx);
    const { text } = await savedDrawing('guid.dxf', 1);
    const written = '{6fd3afc4-c026-11d2-a5a3-080009ace89b}';
    const file = join(dir, 'guid-lower.dxf');
    await writeFile(
      file,
      text.replace(/(\$FINGERPRINTGUID\r?\n {2}2\r?\n)\{[^}\r\n]+\}/, `$1${written}`),
      'latin1',
    );
    expect((await readFile(file, 'latin1')).includes(written)).toBe(true);
    ok(await client.post('/api/v1/documents', { path: file }), 201);
    const saved = await save('guid-saved.dxf');
    const guid = await python<string>(
      `
import json, sys, ezdxf
print(json.dumps(ezdxf.readfile(sys.argv[1]).header["$FINGERPRINTGUID"]))
`,
      [saved],
    );
    expect(guid).toBe(written);
  });

  it('a Text on a text style the drawing lacks makes it, as a missing layer is made; one undo takes both out', async (ctx) => {
    needEzdxf(ctx);
    await newDocument(client);
    const created = ok(
      await client.post('/api/v1/entities', {
        entities: [
          { type: 'Text', value: 'A', position: [0, 0], style: 'Notes' },
          { type: 'MText', value: 'B', position: [0, 5], style: 'NOTES', layer: 'TXT' },
        ],
      }),
      201,
    );
    expect(at(created, 'result.text_styles_created')).toEqual(['Notes']);
    expect(at(created, 'result.layers_created')).toEqual(['TXT']);
    const texts = arr(ok(await client.get('/api/v1/entities?detail=full')), 'entities') as Json[];
    expect(texts.map((e) => e.style)).toEqual(['Notes', 'Notes']);
    const file = await save('style-made.dxf');
    await audited(file);
    const styles = await python<string[]>(
      `
import json, sys, ezdxf
print(json.dumps(sorted(s.dxf.name for s in ezdxf.readfile(sys.argv[1]).styles)))
`,
      [file],
    );
    expect(styles).toContain('Notes');
    ok(await client.post('/api/v1/undo', {}));
    const undone = ok(await client.get('/api/v1/records?collection=tables&type=STYLE'));
    const names = (arr(undone, 'result.records') as Json[]).map(
      (r) => (arr(r, 'tags') as Json[]).find((t) => t.code === 2)?.value,
    );
    expect(names).not.toContain('Notes');
  });

  it('records?collection=tables lists the LAYER and BLOCK_RECORD records too, as the save writes them', async () => {
    await newDocument(client);
    await createEntities(client, [{ type: 'Line', start: [0, 0], end: [1, 1], layer: 'WALLS' }]);
    const layers = ok(await client.get('/api/v1/records?collection=tables&type=LAYER'));
    const names = (arr(layers, 'result.records') as Json[]).map(
      (r) => (arr(r, 'tags') as Json[]).find((t) => t.code === 2)?.value,
    );
    expect(names).toEqual(expect.arrayContaining(['0', 'WALLS']));
    expect(
      (arr(layers, 'result.records') as Json[]).every(
        (r) => r.table === 'LAYER' && typeof r.handle === 'string',
      ),
    ).toBe(true);
    const blocks = ok(await client.get('/api/v1/records?collection=tables&type=BLOCK_RECORD'));
    const blockNames = (arr(blocks, 'result.records') as Json[]).map(
      (r) => (arr(r, 'tags') as Json[]).find((t) => t.code === 2)?.value,
    );
    expect(blockNames).toEqual(expect.arrayContaining(['*Model_Space', '*Paper_Space']));
  });
});

describe('images and header variables of files from the wild', () => {
  /** ezdxf's drawing of two IMAGEs of one IMAGEDEF: each IMAGE has its IMAGEDEF_REACTOR. */
  const EZDXF_IMAGES = `
import sys, ezdxf
doc = ezdxf.new("R2018")
msp = doc.modelspace()
picture = doc.add_image_def(filename="picture.png", size_in_pixel=(64, 32))
msp.add_image(picture, insert=(0, 0), size_in_units=(6.4, 3.2))
msp.add_image(picture, insert=(10, 0), size_in_units=(6.4, 3.2))
doc.saveas(sys.argv[1])
print("{}")
`;
  const REACTORS = `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
auditor = doc.audit()
images = doc.modelspace().query("IMAGE")
reactors = doc.objects.query("IMAGEDEF_REACTOR")
print(json.dumps({
  "reactors": len(reactors),
  "listed": [len([h for h in d.get_reactors() if doc.entitydb.get(h) is not None and doc.entitydb.get(h).dxftype() == "IMAGEDEF_REACTOR"]) for d in doc.objects.query("IMAGEDEF")],
  "own": sorted(doc.entitydb.get(i.dxf.image_def_reactor_handle).dxf.image_handle == i.dxf.handle for i in images),
  "errors": len(auditor.errors),
}))
`;
  // How other writers store the same objects: netDxf writes the reactor without an owner before its
  // subclass marker (the image is named after it); some writers leave the IMAGE's pointer (360) out.
  const variants: Array<[string, (text: string) => string]> = [
    ['as ezdxf writes them', (text) => text],
    [
      'reactors without an owner tag (netDxf)',
      (text) => text.replace(/(IMAGEDEF_REACTOR\r?\n {2}5\r?\n[0-9A-F]+\r?\n)330\r?\n[0-9A-F]+\r?\n/g, '$1'),
    ],
    [
      'IMAGEs without their reactor pointer',
      (text) =>
        text.replace(
          /(\r?\n {2}0\r?\nIMAGE\r?\n[\s\S]*?)\r?\n360\r?\n[0-9A-F]+(?=\r?\n)/g,
          (_m, head: string) => head,
        ),
    ],
  ];
  for (const [name, change] of variants) {
    it(`IMAGEDEF_REACTORs are not doubled by open, save, open, save: ${name}`, async (ctx) => {
      needEzdxf(ctx);
      const made = join(dir, 'images-made.dxf');
      await python(EZDXF_IMAGES, [made]);
      const text = await readFile(made, 'utf8');
      const file = join(dir, `images-${variants.findIndex(([n]) => n === name)}.dxf`);
      await writeFile(file, change(text));
      if (name !== variants[0]?.[0]) expect(await readFile(file, 'utf8')).not.toBe(text);
      expect((text.match(/\n {2}0\r?\nIMAGEDEF_REACTOR\r?\n/g) ?? []).length).toBe(2);
      ok(await client.post('/api/v1/documents', { path: file }), 201);
      const once = await save(`images-once-${name.length}.dxf`);
      ok(await client.post('/api/v1/documents', { path: once }), 201);
      const twice = await save(`images-twice-${name.length}.dxf`);
      for (const saved of [once, twice]) {
        expect(await python<Json>(REACTORS, [saved])).toEqual({
          reactors: 2,
          listed: [2],
          own: [true, true],
          errors: 0,
        });
        await audited(saved);
      }
    });
  }

  it('header variables written outside the HEADER section are kept, or dropped when HEADER sets them, each with a recovered note', async (ctx) => {
    needEzdxf(ctx);
    const made = join(dir, 'header-made.dxf');
    await python(
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
doc.header["$INSUNITS"] = 4
doc.header["$LTSCALE"] = 1.0
doc.modelspace().add_line((0, 0), (1, 1))
doc.saveas(sys.argv[1])
print("{}")
`,
      [made],
    );
    const text = await readFile(made, 'utf8');
    // $INSUNITS moves out of HEADER, after its ENDSEC; a second $LTSCALE stands there too.
    const insunits = /\r?\n {2}9\r?\n\$INSUNITS\r?\n 70\r?\n4(?=\r?\n)/;
    expect(insunits.test(text)).toBe(true);
    const without = text.replace(insunits, '');
    const end = without.indexOf('ENDSEC') + 'ENDSEC'.length;
    const file = join(dir, 'header-outside.dxf');
    await writeFile(
      file,
      `${without.slice(0, end)}\n  9\n$INSUNITS\n 70\n6\n  9\n$LTSCALE\n 40\n7.5${without.slice(end)}`,
    );
    const opened = ok(await client.post('/api/v1/documents', { path: file }), 201);
    expect(strings(opened, 'result.recovered')).toEqual([
      'header variables outside the HEADER section: kept ($INSUNITS)',
      'header variables outside the HEADER section that HEADER also sets: dropped ($LTSCALE)',
    ]);
    expect(at(ok(await client.get('/api/v1/sysvars?names=insunits,ltscale')), 'result.values')).toEqual({
      insunits: 6,
      ltscale: 1,
    });
    const saved = await save('header-rescued.dxf');
    await audited(saved);
    const seen = await python<Json>(
      `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps({"insunits": doc.header["$INSUNITS"], "ltscale": doc.header["$LTSCALE"]}))
`,
      [saved],
    );
    expect(seen).toEqual({ insunits: 6, ltscale: 1 });
  });
});
