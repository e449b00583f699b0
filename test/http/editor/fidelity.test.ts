/**
 * DXF files from the wild, read as AutoCAD and ezdxf read them and written back so ezdxf reads the same:
 * against the real CLI, every saved drawing audited by ezdxf. The files are excerpts of our own making in
 * test/fixtures/dxf-wild/ (its README says which writer's habit each one reproduces and where that
 * fact comes from).
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
  strings,
} from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/dxf-wild');

const editor = editorForFile();

async function open(name: string): Promise<Json> {
  return okBody(await editor.client.post('/api/v1/documents', { path: join(FIXTURES, name) }), 201);
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

describe('tag order of other writers', () => {
  it("dxflib's graphic attributes after the type's marker are the entity's: layer, colour, lineweight read; each written once", async (ctx) => {
    needEzdxf(ctx);
    await open('dxflib-tag-order.dxf');
    const all = arr(okBody(await editor.client.get('/api/v1/entities?detail=full')), 'entities') as Json[];
    const byType = Object.fromEntries(all.map((e) => [String(e.type === 'Raw' ? e.dxf_type : e.type), e]));
    expect(Object.keys(byType).sort()).toEqual(['Ellipse', 'Line', 'MText']);
    expect(byType.Line).toMatchObject({ layer: 'walls', color: 3, lineweight: 25 });
    expect(byType.MText).toMatchObject({ layer: 'walls', color: 256, value: 'Room 1' });
    expect(byType.Ellipse).toMatchObject({ layer: 'walls', color: 5 });
    const layers = arr(okBody(await editor.client.get('/api/v1/layers')), 'result.layers') as Json[];
    expect(layers.find((l) => l.name === 'walls')).toMatchObject({ entities: 3 });
    expect(layers.find((l) => l.name === '0')).toMatchObject({ entities: 0 });

    const file = await editor.save('dxflib-saved.dxf');
    await expectAuditClean(file);
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
  await newDocument(editor.client);
  const lines = Array.from({ length: count }, (_, i) => ({ type: 'Line', start: [i, 0], end: [i, 10] }));
  await createEntities(editor.client, [
    ...lines,
    { type: 'Circle', center: [0, 0], radius: 3 },
    { type: 'Text', value: 'Grüße', position: [0, 20] },
  ]);
  // With its identity minted, so the file holds a $FINGERPRINTGUID as AutoCAD's files do.
  okBody(await editor.client.post('/api/v1/file-identity', {}));
  const file = await editor.save(name);
  return { file, text: await readFile(file, 'latin1') };
}

const failure = (answer: Answer) => ({ status: answer.status, code: body(answer).code });

describe('recover mode: files ezdxf recover reads', () => {
  it('a file that ends without 0 EOF (and without the ENDSEC of its last section) opens whole, saying what was repaired; recover: false refuses it', async (ctx) => {
    needEzdxf(ctx);
    const { text } = await savedDrawing('whole.dxf', 1500);
    const cut = text.slice(0, text.lastIndexOf('ENDSEC'));
    const file = join(editor.dir, 'no-eof.dxf');
    await writeFile(file, cut.slice(0, cut.lastIndexOf('\n', cut.length - 2) + 1), 'latin1');
    const refused = await editor.client.post('/api/v1/documents', { path: file, recover: false });
    expect(failure(refused)).toEqual({ status: 400, code: 'dxf_truncated' });
    const opened = okBody(await editor.client.post('/api/v1/documents', { path: file }), 201);
    const recovered = strings(opened, 'result.recovered');
    expect(recovered.some((r) => r.includes('EOF'))).toBe(true);
    expect(recovered.some((r) => r.includes('ENDSEC'))).toBe(true);
    expect(at(opened, 'result.by_type')).toMatchObject({ Line: 1500, Circle: 1, Text: 1 });
    const explicit = okBody(
      await editor.client.post('/api/v1/documents', { path: file, recover: true }),
      201,
    );
    expect(at(explicit, 'result.entities')).toBe(1502);
    // What it saves is whole: ezdxf reads it without recover and its audit finds nothing.
    const again = await editor.save('recovered.dxf');
    await expectAuditClean(again);
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
    const file = join(editor.dir, 'trash-after-eof.dxf');
    await writeFile(file, `${text}this is no DXF\n\u0000\u0001 and more\n`, 'latin1');
    expect(failure(await editor.client.post('/api/v1/documents', { path: file, recover: false }))).toEqual({
      status: 400,
      code: 'dxf_invalid',
    });
    const opened = okBody(await editor.client.post('/api/v1/documents', { path: file }), 201);
    expect(strings(opened, 'result.recovered')).toEqual([expect.stringMatching(/after EOF: left out$/)]);
    expect(at(opened, 'result.entities')).toBe(5);
  });

  it('a clean file opens with recovered: []', async () => {
    const { file } = await savedDrawing('clean.dxf', 1);
    const opened = okBody(await editor.client.post('/api/v1/documents', { path: file }), 201);
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
      const file = join(editor.dir, `ezdxf-${version}.dxf`);
      await python(EZDXF_BINARY, [file, version]);
      expect((await readFile(file)).subarray(0, 18).toString('latin1')).toBe('AutoCAD Binary DXF');
      const opened = okBody(await editor.client.post('/api/v1/documents', { path: file }), 201);
      expect(at(opened, 'result.format')).toBe('binary');
      expect(at(opened, 'result.by_type')).toEqual({ Line: 20, Circle: 1, Text: 1 });
      const lines = arr(
        okBody(await editor.client.get('/api/v1/entities?type=Line&detail=full')),
        'entities',
      ) as Json[];
      expect(lines[0]).toMatchObject({ layer: 'WALLS', color: 3, start: [0, 0, 0], end: [0, 5.25, 0] });
      const circle = (
        arr(okBody(await editor.client.get('/api/v1/entities?type=Circle&detail=full')), 'entities') as Json[]
      )[0];
      expect(circle).toMatchObject({ center: [1.5, -2.125, 0], radius: 0.75 });
      const text = (
        arr(okBody(await editor.client.get('/api/v1/entities?type=Text&detail=full')), 'entities') as Json[]
      )[0];
      expect(text).toMatchObject({ value: 'Grüße', height: 2.5 });

      const saved = join(editor.dir, `saved-binary-${version}.dxf`);
      const answer = okBody(await editor.client.post('/api/v1/save', { path: saved, format: 'binary' }));
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
      const back = okBody(await editor.client.post('/api/v1/documents', { path: saved }), 201);
      expect(at(back, 'result.by_type')).toEqual({ Line: 20, Circle: 1, Text: 1 });
    });
  }

  it('a save format other than ascii or binary is invalid_format and writes nothing', async () => {
    await newDocument(editor.client);
    const file = join(editor.dir, 'never.dxf');
    expect(failure(await editor.client.post('/api/v1/save', { path: file, format: 'dwg' }))).toEqual({
      status: 400,
      code: 'invalid_format',
    });
    await expect(readFile(file)).rejects.toThrow();
  });

  it('capabilities list the versions that open, AC1003 and AC1006 among them', async () => {
    const caps = okBody(await editor.client.get('/api/v1/capabilities'));
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
    const made = join(editor.dir, 'layouts-made.dxf');
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
    const broken = join(editor.dir, 'layouts-no-block-record-head.dxf');
    await writeFile(broken, text.replace(head, ''));

    const opened = okBody(await editor.client.post('/api/v1/documents', { path: broken }), 201);
    expect(strings(opened, 'result.recovered')).toEqual([
      expect.stringContaining('BLOCK_RECORD records outside a TABLE'),
    ]);
    const probe = okBody(await editor.client.post('/api/v1/layouts', { name: 'PROBE' }), 201);
    expect(strings(probe, 'result.layouts')).toEqual(
      expect.arrayContaining(['Model', 'ISO A4 Size', 'Letter Size']),
    );
    expect(strings(probe, 'result.layouts')).not.toContain('Layout1');
    const a4 = okBody(
      await editor.client.put(`/api/v1/layouts/${encodeURIComponent('ISO A4 Size')}/page-setup`, {}),
    );
    expect(at(a4, 'result.paper')).toBe(papers['ISO A4 Size']);
    const letter = okBody(
      await editor.client.put(`/api/v1/layouts/${encodeURIComponent('Letter Size')}/page-setup`, {}),
    );
    expect(at(letter, 'result.paper')).toBe(papers['Letter Size']);

    const saved = await editor.save('layouts-saved.dxf');
    await expectAuditClean(saved);
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

describe('smaller facts of files from the wild', () => {
  it('$FINGERPRINTGUID is kept as the file writes it (lower case, braces)', async (ctx) => {
    needEzdxf(ctx);
    const { text } = await savedDrawing('guid.dxf', 1);
    const written = '{6fd3afc4-c026-11d2-a5a3-080009ace89b}';
    const file = join(editor.dir, 'guid-lower.dxf');
    await writeFile(
      file,
      text.replace(/(\$FINGERPRINTGUID\r?\n {2}2\r?\n)\{[^}\r\n]+\}/, `$1${written}`),
      'latin1',
    );
    expect((await readFile(file, 'latin1')).includes(written)).toBe(true);
    okBody(await editor.client.post('/api/v1/documents', { path: file }), 201);
    const saved = await editor.save('guid-saved.dxf');
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
    await newDocument(editor.client);
    const created = okBody(
      await editor.client.post('/api/v1/entities', {
        entities: [
          { type: 'Text', value: 'A', position: [0, 0], style: 'Notes' },
          { type: 'MText', value: 'B', position: [0, 5], style: 'NOTES', layer: 'TXT' },
        ],
      }),
      201,
    );
    expect(at(created, 'result.text_styles_created')).toEqual(['Notes']);
    expect(at(created, 'result.layers_created')).toEqual(['TXT']);
    const texts = arr(okBody(await editor.client.get('/api/v1/entities?detail=full')), 'entities') as Json[];
    expect(texts.map((e) => e.style)).toEqual(['Notes', 'Notes']);
    const file = await editor.save('style-made.dxf');
    await expectAuditClean(file);
    const styles = await python<string[]>(
      `
import json, sys, ezdxf
print(json.dumps(sorted(s.dxf.name for s in ezdxf.readfile(sys.argv[1]).styles)))
`,
      [file],
    );
    expect(styles).toContain('Notes');
    okBody(await editor.client.post('/api/v1/undo', {}));
    const undone = okBody(await editor.client.get('/api/v1/records?collection=tables&type=STYLE'));
    const names = (arr(undone, 'result.records') as Json[]).map(
      (r) => (arr(r, 'tags') as Json[]).find((t) => t.code === 2)?.value,
    );
    expect(names).not.toContain('Notes');
  });

  it('records?collection=tables lists the LAYER and BLOCK_RECORD records too, as the save writes them', async () => {
    await newDocument(editor.client);
    await createEntities(editor.client, [{ type: 'Line', start: [0, 0], end: [1, 1], layer: 'WALLS' }]);
    const layers = okBody(await editor.client.get('/api/v1/records?collection=tables&type=LAYER'));
    const names = (arr(layers, 'result.records') as Json[]).map(
      (r) => (arr(r, 'tags') as Json[]).find((t) => t.code === 2)?.value,
    );
    expect(names).toEqual(expect.arrayContaining(['0', 'WALLS']));
    expect(
      (arr(layers, 'result.records') as Json[]).every(
        (r) => r.table === 'LAYER' && typeof r.handle === 'string',
      ),
    ).toBe(true);
    const blocks = okBody(await editor.client.get('/api/v1/records?collection=tables&type=BLOCK_RECORD'));
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
      const made = join(editor.dir, 'images-made.dxf');
      await python(EZDXF_IMAGES, [made]);
      const text = await readFile(made, 'utf8');
      const file = join(editor.dir, `images-${variants.findIndex(([n]) => n === name)}.dxf`);
      await writeFile(file, change(text));
      if (name !== variants[0]?.[0]) expect(await readFile(file, 'utf8')).not.toBe(text);
      expect((text.match(/\n {2}0\r?\nIMAGEDEF_REACTOR\r?\n/g) ?? []).length).toBe(2);
      okBody(await editor.client.post('/api/v1/documents', { path: file }), 201);
      const once = await editor.save(`images-once-${name.length}.dxf`);
      okBody(await editor.client.post('/api/v1/documents', { path: once }), 201);
      const twice = await editor.save(`images-twice-${name.length}.dxf`);
      for (const saved of [once, twice]) {
        expect(await python<Json>(REACTORS, [saved])).toEqual({
          reactors: 2,
          listed: [2],
          own: [true, true],
          errors: 0,
        });
        await expectAuditClean(saved);
      }
    });
  }

  it('header variables written outside the HEADER section are kept, or dropped when HEADER sets them, each with a recovered note', async (ctx) => {
    needEzdxf(ctx);
    const made = join(editor.dir, 'header-made.dxf');
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
    const file = join(editor.dir, 'header-outside.dxf');
    await writeFile(
      file,
      `${without.slice(0, end)}\n  9\n$INSUNITS\n 70\n6\n  9\n$LTSCALE\n 40\n7.5${without.slice(end)}`,
    );
    const opened = okBody(await editor.client.post('/api/v1/documents', { path: file }), 201);
    expect(strings(opened, 'result.recovered')).toEqual([
      'header variables outside the HEADER section: kept ($INSUNITS)',
      'header variables outside the HEADER section that HEADER also sets: dropped ($LTSCALE)',
    ]);
    expect(
      at(okBody(await editor.client.get('/api/v1/sysvars?names=insunits,ltscale')), 'result.values'),
    ).toEqual({
      insunits: 6,
      ltscale: 1,
    });
    const saved = await editor.save('header-rescued.dxf');
    await expectAuditClean(saved);
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
