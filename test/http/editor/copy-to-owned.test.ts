/**
 * entities_copy_to of the entities that own or name blocks and styles by handle (ACAD_TABLE, MULTILEADER),
 * against the real CLI: each copy's block comes along under a name free in the target, the copy's
 * references rewritten to it; every saved target audited by ezdxf, and read back by ezdxf to find the
 * block holding what the source's held. A file of its own (its own server), so each run stays short.
 */

import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { needEzdxf, python } from '../../editor/dispatcher/helpers.js';
import {
  at,
  createEntities,
  editorForFile,
  expectAuditClean,
  type Json,
  newDocument,
  okBody,
} from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const editor = editorForFile();

/** A table drawn by ezdxf: its *T1 block of 3 lines and 2 MTEXTs, the ACAD_TABLE naming it by name and record. */
const TABLE_SOURCE = `
import sys, ezdxf
from ezdxf.lldxf.extendedtags import ExtendedTags
from ezdxf.entities import factory
doc = ezdxf.new("R2013")
blk = doc.blocks.new("*T1")
for a, b in [((0, 0), (40, 0)), ((0, -10), (40, -10)), ((20, 0), (20, -10))]:
    blk.add_line(a, b)
for x, t in [(10, "left"), (30, "right")]:
    blk.add_mtext(t, dxfattribs={"insert": (x, -5), "char_height": 2.5, "attachment_point": 5})
# The table's own tags, by subclass: what it says of its block is its name (2) and its record (343).
pairs = {
    "AcDbEntity": [(8, "0")],
    "AcDbBlockReference": [(2, "*T1"), (10, 5.0), (20, 7.0), (30, 0.0)],
    "AcDbTable": [(342, "0"), (343, doc.block_records.get("*T1").dxf.handle), (11, 1.0), (21, 0.0),
                  (31, 0.0), (90, 22), (91, 1), (92, 2)],
}
lines = ["0", "ACAD_TABLE"]
for marker, tags in pairs.items():
    lines += ["100", marker] + [str(x) for tag in tags for x in tag]
entity = factory.load(ExtendedTags.from_text("\\n".join(lines) + "\\n"), doc)
doc.entitydb.add(entity)
doc.modelspace().add_entity(entity)
doc.saveas(sys.argv[1])
print("null")
`;

/**
 * A table drawn by ezdxf with cells naming what they show: a block cell of FLAG (its block record, 340;
 * the ATTDEF it fills, 331) and a text cell in style CELLS (7); its *T1 block inserts FLAG and draws the
 * text in CELLS.
 */
const CELLS_SOURCE = `
import sys, json, ezdxf
from ezdxf.lldxf.extendedtags import ExtendedTags
from ezdxf.entities import factory
doc = ezdxf.new("R2013")
doc.styles.add("CELLS", font="arialbd.ttf")
flag = doc.blocks.new("FLAG")
flag.add_circle((0, 0), 1)
attdef = flag.add_attdef("NAME", (0, 0))
blk = doc.blocks.new("*T1")
for a, b in [((0, 0), (40, 0)), ((0, -10), (40, -10)), ((20, 0), (20, -10))]:
    blk.add_line(a, b)
blk.add_blockref("FLAG", (10, -5))
blk.add_mtext("right", dxfattribs={"insert": (30, -5), "char_height": 2.5, "attachment_point": 5, "style": "CELLS"})
cell = [(172, 0), (173, 0), (174, 0), (175, 1), (176, 1), (91, 0), (178, 0), (145, 0.0)]
pairs = {
    "AcDbEntity": [(8, "0")],
    "AcDbBlockReference": [(2, "*T1"), (10, 5.0), (20, 7.0), (30, 0.0)],
    "AcDbTable": [(342, "0"), (343, doc.block_records.get("*T1").dxf.handle), (11, 1.0), (21, 0.0),
                  (31, 0.0), (90, 22), (91, 1), (92, 2), (141, 10.0), (142, 20.0), (142, 20.0),
                  (171, 2), *cell, (340, flag.block_record_handle), (144, 1.0), (179, 1),
                  (331, attdef.dxf.handle), (300, "pump"),
                  (171, 1), *cell, (1, "right"), (7, "CELLS")],
}
lines = ["0", "ACAD_TABLE"]
for marker, tags in pairs.items():
    lines += ["100", marker] + [str(x) for tag in tags for x in tag]
entity = factory.load(ExtendedTags.from_text("\\n".join(lines) + "\\n"), doc)
doc.entitydb.add(entity)
doc.modelspace().add_entity(entity)
doc.saveas(sys.argv[1])
print(json.dumps(entity.dxf.handle))
`;

describe('copy-to carries the blocks an entity owns', () => {
  const post = async (path: string, payload: Json, status = 200) =>
    okBody(await editor.client.post(path, payload), status);

  it('an ACAD_TABLE brings its *T block under a name free in the target, named by its 2 and its 343; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    const drawn = join(editor.dir, 'table-source.dxf');
    await python<null>(TABLE_SOURCE, [drawn]);
    const target = await newDocument(editor.client);
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const listed = okBody(await editor.client.get('/api/v1/entities?type=ACAD_TABLE'));
    expect(at(listed, 'entities')).toHaveLength(1);
    const handles = [at(listed, 'entities.0.handle')];
    // Twice into the same target: the second copy's block is another, as the first took *T1.
    const first = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    const second = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(first, 'result.blocks_created')).toEqual(['*T1']);
    expect(at(second, 'result.blocks_created')).toEqual(['*T2']);
    expect(at(second, 'result.blocks_renamed')).toEqual({ '*T1': '*T2' });
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('table-target.dxf');
    await expectAuditClean(file);
    const seen = await python<Json[]>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = []
for t in doc.modelspace().query("ACAD_TABLE"):
    tags = [(tag.code, tag.value) for sub in t.xtags.subclasses[2:] for tag in sub]
    name = next(v for c, v in tags if c == 2)
    record = next(v for c, v in tags if c == 343)
    style = next(v for c, v in tags if c == 342)
    block = doc.blocks.get(name)
    out.append({"name": name, "record": doc.entitydb[record].dxf.name, "style": style,
      "contents": sorted(e.dxftype() + (" " + e.text if e.dxftype() == "MTEXT" else "") for e in block)})
print(json.dumps(out))
`,
      [file],
    );
    const contents = ['LINE', 'LINE', 'LINE', 'MTEXT left', 'MTEXT right'];
    expect(seen).toEqual([
      { name: '*T1', record: '*T1', style: '0', contents },
      { name: '*T2', record: '*T2', style: '0', contents },
    ]);
  });
  it("an ACAD_TABLE's cells name the target's copies: the block cell's block (renamed on a clash, one block with the *T block's insert) and the ATTDEF it fills, the text cell's style; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    const drawn = join(editor.dir, 'table-cells-source.dxf');
    const table = await python<string>(CELLS_SOURCE, [drawn]);
    // The target has a FLAG of its own: the source's comes in as FLAG_1.
    const target = await newDocument(editor.client);
    const [own] = await createEntities(editor.client, [{ type: 'Circle', center: [0, 0], radius: 9 }]);
    await post('/api/v1/blocks', { name: 'FLAG', base: [0, 0], handles: [own] }, 201);
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles: [table] }, 201);
    expect(at(copied, 'result.blocks_created')).toEqual(['*T1', 'FLAG_1']);
    expect(at(copied, 'result.blocks_renamed')).toEqual({ FLAG: 'FLAG_1' });
    expect(at(copied, 'result.text_styles_created')).toEqual(['CELLS']);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('table-cells-target.dxf');
    await expectAuditClean(file);
    const seen = await python<Json>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
db = doc.entitydb
t = doc.modelspace().query("ACAD_TABLE")[0]
tags = [(tag.code, tag.value) for sub in t.xtags.subclasses[2:] for tag in sub]
cell_block = db[next(v for c, v in tags if c == 340)]
attdef = db[next(v for c, v in tags if c == 331)]
style = next(v for c, v in tags if c == 7)
block = doc.blocks.get(next(v for c, v in tags if c == 2))
print(json.dumps({"cell_block": cell_block.dxftype() + " " + cell_block.dxf.name,
  "attdef": [attdef.dxftype(), attdef.dxf.tag, db[attdef.dxf.owner].dxf.name],
  "style": [style, doc.styles.has_entry(style)],
  "inserts": [i.dxf.name for i in block.query("INSERT")],
  "mtext": [m.dxf.style for m in block.query("MTEXT")],
  "own_flag": sorted(e.dxftype() for e in doc.blocks.get("FLAG"))}))
`,
      [file],
    );
    expect(seen).toEqual({
      cell_block: 'BLOCK_RECORD FLAG_1',
      attdef: ['ATTDEF', 'NAME', 'FLAG_1'],
      style: ['CELLS', true],
      inserts: ['FLAG_1'],
      mtext: ['CELLS'],
      own_flag: ['CIRCLE'],
    });
  });
  it("a real file's MULTILEADERs (dxf-parser's mleader.dxf) name the target's text style, linetype and MLEADERSTYLE of the source's names, never a handle of the source (here: 0 for what the source lacks); the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    const target = await newDocument(editor.client);
    const real = join(import.meta.dirname, '../../fixtures/dxf-corpus/dxfparser-mleader.dxf');
    okBody(await editor.client.post('/api/v1/documents', { path: real }), 201);
    const listed = okBody(await editor.client.get('/api/v1/entities?type=MULTILEADER'));
    const handles = (at(listed, 'entities') as Json[]).map((e) => e.handle);
    expect(handles).toHaveLength(3);
    await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('mleader-target.dxf');
    await expectAuditClean(file);
    // What each handle of each MULTILEADER's AcDbMLeader subclass names, by type and name, in a file.
    const named = (path: string) =>
      python<string[][]>(
        `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
def name(e):
    if e.dxftype() == "MLEADERSTYLE":
        return next(k for k, v in doc.rootdict["ACAD_MLEADERSTYLE"].items() if v is e)
    return e.dxf.name
from ezdxf.lldxf.tagger import ascii_tags_loader
# The raw tags (ezdxf parses a MULTILEADER into its fields): each entity's AcDbMLeader handles.
out = []
where = None
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for tag in ascii_tags_loader(f):
        if tag.code == 0:
            where = "entity" if tag.value == "MULTILEADER" else None
            if where: out.append([])
        elif where and tag.code == 100:
            where = "mleader" if tag.value == "AcDbMLeader" else "entity"
        elif where == "mleader" and 340 <= tag.code <= 345:
            e = doc.entitydb.get(tag.value)
            out[-1].append(f"{tag.code} " + ("none" if e is None else f"{e.dxftype()} {name(e)}"))
print(json.dumps(out))
`,
        [path],
      );
    // The file's MULTILEADERs name a text style, MLEADERSTYLE and linetype (60, 61, 14) it does not
    // hold; in the target those handles (of other records there: 14 was a DICTIONARY) become 0.
    const source = await named(real);
    expect(source[0]).toEqual(['340 none', '340 none', '341 none', '343 none']);
    expect(await named(file)).toEqual(source);
  });
  it('a MULTILEADER with a block content brings that block along, named by handle in its context and its own fields; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    const drawn = join(editor.dir, 'mleader-block-source.dxf');
    await python<null>(
      `
import sys, ezdxf
from ezdxf.math import Vec2
from ezdxf.render import mleader
doc = ezdxf.new("R2010", setup=True)
flag = doc.blocks.new("FLAG")
flag.add_circle((0, 0), 1)
flag.add_line((0, 0), (1, 1))
flag.add_attdef("NAME", (0, -2))
builder = doc.modelspace().add_multileader_block(style="Standard")
builder.set_content(name="FLAG", scale=1.0)
builder.set_attribute("NAME", "pump 1")
builder.add_leader_line(mleader.ConnectionSide.left, [Vec2(-5, -5)])
builder.build(insert=Vec2(10, 10))
doc.saveas(sys.argv[1])
print("null")
`,
      [drawn],
    );
    const target = await newDocument(editor.client);
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const listed = okBody(await editor.client.get('/api/v1/entities?type=MULTILEADER'));
    const copied = await post(
      '/api/v1/entities/copy-to',
      { document_id: target, handles: [at(listed, 'entities.0.handle')] },
      201,
    );
    expect(at(copied, 'result.blocks_created')).toEqual(expect.arrayContaining(['FLAG']));
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('mleader-block-target.dxf');
    await expectAuditClean(file);
    const seen = await python<Json>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
m = doc.modelspace().query("MULTILEADER")[0]
record = doc.entitydb[m.context.block.block_record_handle]
attdefs = [doc.entitydb.get(a.handle) for a in m.block_attribs]
print(json.dumps({"context": record.dxf.name, "own": doc.entitydb[m.dxf.block_record_handle].dxf.name,
  "contents": sorted(e.dxftype() for e in doc.blocks.get(record.dxf.name)),
  "attribs": [[a.text, "none" if d is None else f"{d.dxftype()} {d.dxf.tag} {doc.entitydb[d.dxf.owner].dxf.name}"]
    for a, d in zip(m.block_attribs, attdefs)]}))
`,
      [file],
    );
    // The block content's attribute names the copy of FLAG's ATTDEF, not the source's handle.
    expect(seen).toEqual({
      context: 'FLAG',
      own: 'FLAG',
      contents: ['ATTDEF', 'CIRCLE', 'LINE'],
      attribs: [['pump 1', 'ATTDEF NAME FLAG']],
    });
  });
});
