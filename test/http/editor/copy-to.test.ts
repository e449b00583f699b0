/**
 * entities_copy_to carries what the copies need, as ezdxf's Importer does, against the real CLI: every
 * saved target audited by ezdxf. A file of its own (its own server), so each server's run stays short.
 */

import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { needEzdxf, python } from '../../editor/dispatcher/helpers.js';
import {
  arr,
  at,
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

const editor = editorForFile();

describe('copy-to carries what the copies need', () => {
  const post = async (path: string, payload: Json, status = 200) =>
    okBody(await editor.client.post(path, payload), status);
  const documentId = async () => Number(at(okBody(await editor.client.get('/api/v1/state')), 'document_id'));

  it('inserts bring their blocks along, nested ones too, renamed on a clash; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    // The target: a block MARK of its own, which the source's MARK must not overwrite.
    const target = await newDocument(editor.client);
    const [own] = await createEntities(editor.client, [{ type: 'Circle', center: [0, 0], radius: 9 }]);
    await post('/api/v1/blocks', { name: 'MARK', base: [0, 0], handles: [own] }, 201);
    // The source: INNER (a line) inside MARK (a circle and an insert of INNER), inserted twice.
    const source = await newDocument(editor.client);
    const [inner] = await createEntities(editor.client, [
      { type: 'Line', start: [0, 0], end: [1, 0], layer: 'IN' },
    ]);
    await post('/api/v1/blocks', { name: 'INNER', base: [0, 0], handles: [inner] }, 201);
    const innerInsert = [
      str(okBody(await editor.client.get('/api/v1/entities?type=Insert')), 'entities.0.handle'),
    ];
    const [circle] = await createEntities(editor.client, [
      { type: 'Circle', center: [0, 0], radius: 1, layer: 'MK' },
    ]);
    const mark = await post(
      '/api/v1/blocks',
      { name: 'mark', base: [0, 0], handles: [circle, ...innerInsert] },
      201,
    );
    const [second] = await createEntities(editor.client, [
      { type: 'Insert', block: 'mark', position: [10, 0] },
    ]);
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
      okBody(await editor.client.get('/api/v1/entities?type=Insert&detail=full')),
      'entities',
    ) as Json[];
    // A plain query lists the block contents the layouts insert too: INNER's insert inside mark_1.
    expect(inserts.map((e) => e.block).sort()).toEqual(['INNER', 'MARK', 'mark_1', 'mark_1']);
    const file = await editor.save('copy-target.dxf');
    await expectAuditClean(file);
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
    const after = arr(
      okBody(await editor.client.get('/api/v1/entities?type=Insert&detail=full')),
      'entities',
    ) as Json[];
    expect(after.map((e) => e.block)).toEqual(['MARK']);
    await expectAuditClean(await editor.save('copy-target-undone.dxf'));
  });

  it('text styles and linetypes the copies use come along (of the entities, their layers and block contents); the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    const sourceFile = join(editor.dir, 'styled-source.dxf');
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
    const target = await newDocument(editor.client);
    okBody(await editor.client.post('/api/v1/documents', { path: sourceFile }), 201);
    const handles = (arr(okBody(await editor.client.get('/api/v1/entities')), 'entities') as Json[]).map(
      (e) => str(e, 'handle'),
    );
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.text_styles_created')).toEqual(['NOTES']);
    expect(strings(copied, 'result.linetypes_created').sort()).toEqual(['FENCE', 'RAIL']);
    expect(at(copied, 'result.layers_created')).toEqual(['RAILS']);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('styled-target.dxf');
    await expectAuditClean(file);
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
    const target = await newDocument(editor.client);
    const source = await newDocument(editor.client);
    const [line] = await createEntities(editor.client, [{ type: 'Line', start: [0, 0], end: [2, 2] }]);
    const defined = await post('/api/v1/blocks', { name: 'B', base: [0, 0], handles: [line] }, 201);
    const insert = str(defined, 'result.insert');
    const first = await post('/api/v1/entities/copy-to', { document_id: target, handles: [insert] }, 201);
    expect(at(first, 'result.blocks_created')).toEqual(['B']);
    await post('/api/v1/activate', { document_id: source });
    const again = await post('/api/v1/entities/copy-to', { document_id: target, handles: [insert] }, 201);
    expect(at(again, 'result.blocks_created')).toEqual(['B_1']);
    await post('/api/v1/activate', { document_id: target });
    await expectAuditClean(await editor.save('copy-twice.dxf'));
  });
  it('a DIMENSION brings its geometry block (*D) and its dimension style; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    // The source is drawn by ezdxf (a linear dimension rendered into its *D block, on a style of its own):
    // no file of test/fixtures holds a DIMENSION.
    const drawn = join(editor.dir, 'dimension-source.dxf');
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
    const target = await newDocument(editor.client);
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const source = await documentId();
    const dims = arr(
      okBody(await editor.client.get('/api/v1/entities?type=DIMENSION')),
      'entities',
    ) as Json[];
    expect(dims).toHaveLength(1);
    const copied = await post(
      '/api/v1/entities/copy-to',
      { document_id: target, handles: [str(dims[0] as Json, 'handle')] },
      201,
    );
    expect(at(copied, 'result.count')).toBe(1);
    // The *D block; the arrow block it inserts is the target's of that name (a new drawing has
    // _CLOSEDFILLED), as ezdxf's Importer takes arrows.
    const blocks = strings(copied, 'result.blocks_created');
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatch(/^\*D\d+$/);
    expect(strings(copied, 'result.dimension_styles_created')).toEqual(['MEASURE']);
    expect(source).not.toBe(target);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('dimension-target.dxf');
    await expectAuditClean(file);
    const seen = await python<{ style: string; block: string; lines: number; arrows: string[] }>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
dim = doc.modelspace().query("DIMENSION")[0]
block = doc.blocks.get(dim.dxf.geometry)
print(json.dumps({"style": doc.dimstyles.get(dim.dxf.dimstyle).dxf.name, "block": dim.dxf.geometry,
  "lines": len(block.query("LINE")),
  "arrows": sorted(i.dxf.name + " " + str(len(doc.blocks.get(i.dxf.name))) for i in block.query("INSERT"))}))
`,
      [file],
    );
    expect(seen.style).toBe('MEASURE');
    expect(seen.block).toBe(blocks[0]);
    expect(seen.lines).toBeGreaterThan(0);
    expect(seen.arrows).toEqual(['_CLOSEDFILLED 1', '_CLOSEDFILLED 1']);
  });
  it("an MLINE names the target's style of its name, or brings its MLINESTYLE along; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    // Drawn by ezdxf: no file of test/fixtures holds an MLINE. Handles of the source's MLINESTYLEs are
    // handles of other records in the target (a BLOCK, as a file from the wild showed).
    const drawn = join(editor.dir, 'mline-source.dxf');
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
    const target = await newDocument(editor.client);
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const mlines = arr(okBody(await editor.client.get('/api/v1/entities?type=MLINE')), 'entities') as Json[];
    expect(mlines).toHaveLength(2);
    const copied = await post(
      '/api/v1/entities/copy-to',
      { document_id: target, handles: mlines.map((m) => str(m, 'handle')) },
      201,
    );
    expect(at(copied, 'result.mline_styles_created')).toEqual(['RAILS']);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('mline-target.dxf');
    await expectAuditClean(file);
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
    const target = await newDocument(editor.client);
    const real = join(import.meta.dirname, '../../fixtures/dxf-corpus/dxfjs-dimensions.dxf');
    okBody(await editor.client.post('/api/v1/documents', { path: real }), 201);
    const handles = (arr(okBody(await editor.client.get('/api/v1/entities')), 'entities') as Json[]).map(
      (e) => str(e, 'handle'),
    );
    expect(handles).toHaveLength(7);
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.count')).toBe(7);
    const blocks = strings(copied, 'result.blocks_created');
    expect(blocks.filter((b) => /^\*D\d+$/.test(b))).toHaveLength(2);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('real-dimensions-copied.dxf');
    await expectAuditClean(file);
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
    const drawn = join(editor.dir, 'image-source.dxf');
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
    const own = join(editor.dir, 'image-target.dxf');
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
    okBody(await editor.client.post('/api/v1/documents', { path: own }), 201);
    const target = await documentId();
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const source = await documentId();
    const handles = (arr(okBody(await editor.client.get('/api/v1/entities')), 'entities') as Json[]).map(
      (e) => str(e, 'handle'),
    );
    expect(handles).toHaveLength(6);
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.count')).toBe(6);
    // picture.png is the target's PHOTO already; the source's PHOTO (photo.jpg) comes in as PHOTO_2.
    expect(at(copied, 'result.image_defs_created')).toEqual(['PHOTO_2']);
    expect(strings(copied, 'result.underlay_defs_created')).toHaveLength(3);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('image-copied.dxf');
    await expectAuditClean(file);
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
    const undone = await editor.save('image-copied-undone.dxf');
    await expectAuditClean(undone);
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

  it("a real file's MLINEs and IMAGE (netDxf's sample 2018.dxf) copy with their MLINE style and image definition; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    const target = await newDocument(editor.client);
    const real = join(import.meta.dirname, '../../fixtures/dxf-corpus/netdxf-sample-2018.dxf');
    okBody(await editor.client.post('/api/v1/documents', { path: real }), 201);
    const handles = ['3A8', '3A9', '249'];
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.count')).toBe(3);
    // The target's own Standard style is the MLINEs' STANDARD (one name in any case); the image's
    // definition comes along under its dictionary name.
    expect(at(copied, 'result.mline_styles_created')).toEqual([]);
    expect(at(copied, 'result.image_defs_created')).toEqual(['image']);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('netdxf-copied.dxf');
    await expectAuditClean(file);
    const seen = await python<Json>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
msp = doc.modelspace()
mlines = msp.query("MLINE")
image = msp.query("IMAGE")[0]
print(json.dumps({
  "types": sorted(e.dxftype() for e in msp),
  "styles": [doc.entitydb[m.dxf.style_handle].dxf.name for m in mlines],
  "elements": [len(doc.entitydb[m.dxf.style_handle].elements) for m in mlines],
  "vertices": [[list(v.location) for v in m.vertices] for m in mlines],
  "image": [image.image_def.dxf.filename, list(image.image_def.dxf.image_size)[:2]],
}))
`,
      [file],
    );
    expect(seen).toEqual({
      types: ['IMAGE', 'MLINE', 'MLINE'],
      styles: ['Standard', 'Standard'],
      elements: [2, 2],
      vertices: [
        [
          [110, -90, 0],
          [110, -10, 0],
        ],
        [
          [110, -50, 0],
          [190, -50, 0],
        ],
      ],
      image: ['.\\image.jpg', [260, 260]],
    });
  });
});
