/**
 * entities_copy_to of the entities whose styles name records by handle: a DIMSTYLE's arrow blocks, text
 * style and linetype (and a dimension's DSTYLE override of them), a LEADER's dimension style, a
 * MULTILEADER's MLEADERSTYLE with what it names — against the real CLI. Every saved target is audited
 * by ezdxf and read back by ezdxf: each handle names the target's record of the source's name. A file of
 * its own (its own server), so each run stays short.
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
  strings,
} from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const editor = editorForFile();

/**
 * What the handles of a saved file name, read by ezdxf: each DIMSTYLE's 340-347 tags, and each DIMENSION's
 * and LEADER's ACAD DSTYLE override handles, as `code TYPE name`.
 */
const HANDLES_NAMED = `
import sys, json, ezdxf
from ezdxf.lldxf.tagger import ascii_tags_loader
doc = ezdxf.readfile(sys.argv[1])
def named(h):
    e = doc.entitydb.get(h)
    return "none" if e is None else e.dxftype() + " " + e.dxf.name
styles = {}
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    tags = list(ascii_tags_loader(f))
for i, tag in enumerate(tags):
    if tag.code == 0 and tag.value == "DIMSTYLE" and tags[i + 1].code == 105:
        j, name, out = i + 1, None, []
        while tags[j].code != 0:
            if tags[j].code == 2: name = tags[j].value
            if 340 <= tags[j].code <= 347: out.append(f"{tags[j].code} {named(tags[j].value)}")
            j += 1
        styles[name] = out
overrides = {}
for e in doc.modelspace().query("DIMENSION LEADER"):
    items = e.get_xdata("ACAD") if e.has_xdata("ACAD") else []
    overrides[e.dxftype() + " " + e.dxf.dimstyle] = [f"{a.value} {named(b.value)}"
        for a, b in zip(items, items[1:]) if a.code == 1070 and b.code == 1005]
print(json.dumps({"styles": styles, "overrides": overrides}))
`;

describe('copy-to carries the styles the copies name by handle', () => {
  const post = async (path: string, payload: Json, status = 200) =>
    okBody(await editor.client.post(path, payload), status);
  const listed = async (type: string) =>
    (at(okBody(await editor.client.get(`/api/v1/entities?type=${type}`)), 'entities') as Json[]).map(
      (e) => e.handle as string,
    );

  it("a dimension style's arrow blocks, text style and linetype come along, its DSTYLE override's arrows too, a LEADER brings its style; an arrow the target has is the target's; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    // Drawn by ezdxf: style ARCH (DIMBLK _ARCHTICK, DIMLDRBLK _DOT, DIMTXSTY NOTES, DIMLTYPE DIMDASH),
    // a dimension overriding DIMBLK1/DIMBLK2 (_OPEN, _OBLIQUE), a leader on ARCH.
    const drawn = join(editor.dir, 'dimstyle-source.dxf');
    await python<null>(
      `
import sys, ezdxf
doc = ezdxf.new("R2010", setup=True)
doc.styles.add("NOTES", font="arialbd.ttf")
doc.linetypes.add("DIMDASH", pattern=[0.6, 0.4, -0.2], description="Dim dash")
arch = doc.dimstyles.duplicate_entry("Standard", "ARCH")
arch.set_arrows(blk="ARCHTICK", ldrblk="DOT")
arch.dxf.dimtxsty = "NOTES"
arch.dxf.dimltype = "DIMDASH"
msp = doc.modelspace()
dim = msp.add_linear_dim(base=(0, 3), p1=(0, 0), p2=(10, 0), dimstyle="ARCH",
    override={"dimblk1": "OPEN", "dimblk2": "OBLIQUE"})
dim.render()
msp.add_leader([(0, 0), (5, 5), (8, 5)], dimstyle="ARCH")
doc.saveas(sys.argv[1])
print("null")
`,
      [drawn],
    );
    // The target draws a _DOT block of its own: as ezdxf's Importer takes arrows, the copies use it, as
    // they use the _ARCHTICK a new drawing has.
    const target = await newDocument(editor.client);
    const [own] = await createEntities(editor.client, [{ type: 'Circle', center: [0, 0], radius: 9 }]);
    await post('/api/v1/blocks', { name: '_DOT', base: [0, 0], handles: [own] }, 201);
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const source = await python<Json>(HANDLES_NAMED, [drawn]);
    const handles = [...(await listed('DIMENSION')), ...(await listed('LEADER'))];
    expect(handles).toHaveLength(2);
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.dimension_styles_created')).toEqual(['ARCH']);
    expect(at(copied, 'result.text_styles_created')).toEqual(['NOTES']);
    expect(at(copied, 'result.linetypes_created')).toEqual(['DIMDASH']);
    const blocks = strings(copied, 'result.blocks_created');
    expect(blocks.filter((b) => !b.startsWith('*')).sort()).toEqual(['_OBLIQUE', '_OPEN']);
    expect(at(copied, 'result.blocks_renamed')).toEqual({});
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('dimstyle-target.dxf');
    await expectAuditClean(file);
    const seen = await python<Json>(HANDLES_NAMED, [file]);
    const arch = [
      '340 STYLE NOTES',
      '341 BLOCK_RECORD _DOT',
      '342 BLOCK_RECORD _ARCHTICK',
      '345 LTYPE DIMDASH',
    ];
    expect(at(source, 'styles.ARCH')).toEqual(arch);
    expect(at(seen, 'styles.ARCH')).toEqual(arch);
    const overrides = {
      'DIMENSION ARCH': ['343 BLOCK_RECORD _OPEN', '344 BLOCK_RECORD _OBLIQUE'],
      'LEADER ARCH': [],
    };
    expect(at(source, 'overrides')).toEqual(overrides);
    expect(at(seen, 'overrides')).toEqual(overrides);
    // The target's own _DOT is as it was: its circle, not the source's arrow.
    expect(
      await python<string[]>(
        `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps(sorted(f"{e.dxftype()} {e.dxf.radius}" for e in doc.blocks.get("_DOT"))))
`,
        [file],
      ),
    ).toEqual(['CIRCLE 9.0']);
  });

  it("a real file's DIMENSION overriding its arrows (DIMBLK1/DIMBLK2 _ArchTick) and LEADER (netDxf's sample 2018.dxf) name the copied arrow block and ISO-25; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    // A target without arrow blocks (ezdxf's new drawing without its setup), so _ArchTick comes along.
    const bare = join(editor.dir, 'bare-target.dxf');
    await python<null>('import sys, ezdxf\nezdxf.new("R2010").saveas(sys.argv[1])\nprint("null")', [bare]);
    okBody(await editor.client.post('/api/v1/documents', { path: bare }), 201);
    const target = Number(at(okBody(await editor.client.get('/api/v1/state')), 'document_id'));
    const real = join(import.meta.dirname, '../../fixtures/dxf-corpus/netdxf-sample-2018.dxf');
    okBody(await editor.client.post('/api/v1/documents', { path: real }), 201);
    const copied = await post(
      '/api/v1/entities/copy-to',
      { document_id: target, handles: ['13E5', '980'] },
      201,
    );
    expect(at(copied, 'result.count')).toBe(2);
    expect(strings(copied, 'result.blocks_created')).toContain('_ArchTick');
    expect(strings(copied, 'result.dimension_styles_created')).toEqual(['ISO-25']);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('netdxf-dimstyle-target.dxf');
    await expectAuditClean(file);
    const seen = await python<Json>(HANDLES_NAMED, [file]);
    expect(at(seen, 'overrides')).toEqual({
      'DIMENSION ISO-25': ['343 BLOCK_RECORD _ArchTick', '344 BLOCK_RECORD _ArchTick'],
      'LEADER ISO-25': [],
    });
    expect(Object.keys(at(seen, 'styles') as Json)).toContain('ISO-25');
  });

  it('a MULTILEADER on a style the target lacks brings that MLEADERSTYLE, with its text style, arrow block and content block; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    const drawn = join(editor.dir, 'mleaderstyle-source.dxf');
    await python<null>(
      `
import sys, ezdxf
from ezdxf.math import Vec2
from ezdxf.render import mleader
doc = ezdxf.new("R2010", setup=True)
doc.styles.add("NOTES", font="arialbd.ttf")
flag = doc.blocks.new("FLAG")
flag.add_circle((0, 0), 1)
style = doc.mleader_styles.duplicate_entry("Standard", "CALLOUT")
style.set_mtext_style("NOTES")
style.set_arrow_head("DOT")
style.dxf.block_record_handle = flag.block_record_handle
builder = doc.modelspace().add_multileader_mtext("CALLOUT")
builder.set_content("note", style="NOTES")
builder.add_leader_line(mleader.ConnectionSide.left, [Vec2(-5, -5)])
builder.build(insert=Vec2(10, 10))
doc.saveas(sys.argv[1])
print("null")
`,
      [drawn],
    );
    const target = await newDocument(editor.client);
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const source = Number(at(okBody(await editor.client.get('/api/v1/state')), 'document_id'));
    const handles = await listed('MULTILEADER');
    expect(handles).toHaveLength(1);
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.mleader_styles_created')).toEqual(['CALLOUT']);
    expect(strings(copied, 'result.blocks_created').sort()).toEqual(['FLAG', '_DOT']);
    expect(at(copied, 'result.text_styles_created')).toEqual(['NOTES']);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('mleaderstyle-target.dxf');
    await expectAuditClean(file);
    const seen = await python<Json>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
db = doc.entitydb
def named(h):
    e = db.get(h)
    return "none" if e is None else e.dxftype() + " " + e.dxf.name
m = doc.modelspace().query("MULTILEADER")[0]
style = db[m.dxf.style_handle]
entry = next(k for k, v in doc.rootdict["ACAD_MLEADERSTYLE"].items() if v is style)
print(json.dumps({"style": style.dxftype() + " " + entry, "owner": db[style.dxf.owner].dxftype(),
  "text": named(style.dxf.text_style_handle), "arrow": named(style.dxf.arrow_head_handle),
  "block": named(style.dxf.block_record_handle), "entries": sorted(doc.rootdict["ACAD_MLEADERSTYLE"].keys())}))
`,
      [file],
    );
    expect(seen).toEqual({
      style: 'MLEADERSTYLE CALLOUT',
      owner: 'DICTIONARY',
      text: 'STYLE NOTES',
      arrow: 'BLOCK_RECORD _DOT',
      block: 'BLOCK_RECORD FLAG',
      entries: expect.arrayContaining(['CALLOUT', 'Standard']),
    });
    // A second copy uses the CALLOUT the first brought.
    await post('/api/v1/activate', { document_id: source });
    const again = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(again, 'result.mleader_styles_created')).toEqual([]);
  });

  it("a LEADER's annotation is the copy of its MTEXT when that is copied too, and none when it stays behind; the saved targets audit clean", async (ctx) => {
    needEzdxf(ctx);
    const drawn = join(editor.dir, 'leader-source.dxf');
    const [leader, mtext] = await python<[string, string]>(
      `
import sys, json, ezdxf
doc = ezdxf.new("R2010", setup=True)
msp = doc.modelspace()
mtext = msp.add_mtext("see note", dxfattribs={"insert": (8, 5), "char_height": 1})
leader = msp.add_leader([(0, 0), (5, 5), (8, 5)])
leader.dxf.annotation_type = 0
leader.dxf.annotation_handle = mtext.dxf.handle
doc.saveas(sys.argv[1])
print(json.dumps([leader.dxf.handle, mtext.dxf.handle]))
`,
      [drawn],
    );
    const ANNOTATION = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
l = doc.modelspace().query("LEADER")[0]
h = l.dxf.get("annotation_handle")
e = doc.entitydb.get(h) if h else None
print(json.dumps(None if e is None else e.dxftype() + " " + e.text))
`;
    expect(await python<string>(ANNOTATION, [drawn])).toBe('MTEXT see note');
    const both = await newDocument(editor.client);
    const alone = await newDocument(editor.client);
    okBody(await editor.client.post('/api/v1/documents', { path: drawn }), 201);
    const source = Number(at(okBody(await editor.client.get('/api/v1/state')), 'document_id'));
    await post('/api/v1/entities/copy-to', { document_id: both, handles: [leader, mtext] }, 201);
    await post('/api/v1/entities/copy-to', { document_id: alone, handles: [leader] }, 201);
    expect(source).not.toBe(both);
    await post('/api/v1/activate', { document_id: both });
    const bothFile = await editor.save('leader-both.dxf');
    await expectAuditClean(bothFile);
    expect(await python<string>(ANNOTATION, [bothFile])).toBe('MTEXT see note');
    await post('/api/v1/activate', { document_id: alone });
    const aloneFile = await editor.save('leader-alone.dxf');
    await expectAuditClean(aloneFile);
    expect(await python<string | null>(ANNOTATION, [aloneFile])).toBeNull();
  });
});
