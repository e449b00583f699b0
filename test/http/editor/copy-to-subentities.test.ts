/**
 * entities_copy_to of INSERTs with ATTRIBs, ATTDEFs and HATCHes, against the real CLI: what their
 * sub-entities and tags name (block, layer, text style, boundary objects) is the target's, as ezdxf's
 * Importer copies them. Every saved target is audited by ezdxf and read back by ezdxf. A file of its own
 * (its own server), so each run stays short.
 */

import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { needEzdxf, python } from '../../editor/dispatcher/helpers.js';
import { at, editorForFile, expectAuditClean, type Json, newDocument, okBody, strings } from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const editor = editorForFile();

/** Each INSERT of a saved file's modelspace: its block, and its ATTRIBs as `tag=text style layer`, by ezdxf. */
const INSERTS_SEEN = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps(sorted([i.dxf.name, [f"{a.dxf.tag}={a.dxf.text} {a.dxf.style} {a.dxf.layer}" for a in i.attribs],
  sorted(e.dxf.tag for e in doc.blocks.get(i.dxf.name) if e.dxftype() == "ATTDEF")]
  for i in doc.modelspace().query("INSERT"))))
`;

describe('copy-to carries what sub-entities and boundaries name', () => {
  const post = async (path: string, payload: Json, status = 200) =>
    okBody(await editor.client.post(path, payload), status);
  const sourceOf = async (path: string) => {
    okBody(await editor.client.post('/api/v1/documents', { path }), 201);
    return Number(at(okBody(await editor.client.get('/api/v1/state')), 'document_id'));
  };

  it("real files' INSERTs with ATTRIBs (ezdxf's multi_insert_with_attribs.dxf, netDxf's sample 2018.dxf) keep their ATTRIBs and bring their blocks with the ATTDEFs; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    const target = await newDocument(editor.client);
    const corpus = join(import.meta.dirname, '../../fixtures/dxf-corpus');
    const flagFile = join(corpus, 'ezdxf-multi_insert_with_attribs.dxf');
    const netdxf = join(corpus, 'netdxf-sample-2018.dxf');
    const expected = [
      ...(await python<Json[]>(INSERTS_SEEN, [flagFile])),
      ...(await python<Json[]>(INSERTS_SEEN, [netdxf])).filter((i) => i[0] === 'MyBlock'),
    ];
    await sourceOf(flagFile);
    const first = await post('/api/v1/entities/copy-to', { document_id: target, handles: ['3B'] }, 201);
    expect(at(first, 'result.blocks_created')).toEqual(['FLAG']);
    await sourceOf(netdxf);
    const second = await post('/api/v1/entities/copy-to', { document_id: target, handles: ['263'] }, 201);
    expect(at(second, 'result.blocks_created')).toEqual(['MyBlock']);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('attribs-target.dxf');
    await expectAuditClean(file);
    // Three ATTRIBs on FLAG, one on MyBlock, each block with its ATTDEFs.
    expect(expected.map((i) => (i[1] as string[]).length).sort()).toEqual([1, 3]);
    expect(await python<Json[]>(INSERTS_SEEN, [file])).toEqual(expected);
  });

  it('an ATTDEF and the ATTRIBs of an INSERT on a text style and layer the target lacks bring them along; the saved target audits clean', async (ctx) => {
    needEzdxf(ctx);
    const drawn = join(editor.dir, 'attdef-source.dxf');
    const handles = await python<string[]>(
      `
import sys, json, ezdxf
doc = ezdxf.new("R2010")
doc.styles.add("NOTES", font="arialbd.ttf")
doc.layers.add("ATTS", color=3)
doc.layers.add("TAGS", color=5)
tag = doc.blocks.new("TAG")
tag.add_attdef("NAME", (0, 0), dxfattribs={"style": "NOTES", "layer": "ATTS", "height": 2})
msp = doc.modelspace()
msp.add_attdef("LOOSE", (0, 10), dxfattribs={"style": "NOTES", "layer": "ATTS"})
ref = msp.add_blockref("TAG", (5, 5))
ref.add_attrib("NAME", "pump 1", (5, 5), dxfattribs={"style": "NOTES", "layer": "TAGS"})
doc.saveas(sys.argv[1])
print(json.dumps([e.dxf.handle for e in msp]))
`,
      [drawn],
    );
    const target = await newDocument(editor.client);
    await sourceOf(drawn);
    const copied = await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    expect(at(copied, 'result.count')).toBe(2);
    expect(at(copied, 'result.text_styles_created')).toEqual(['NOTES']);
    expect(strings(copied, 'result.layers_created').sort()).toEqual(['ATTS', 'TAGS']);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('attdef-target.dxf');
    await expectAuditClean(file);
    expect(await python<Json[]>(INSERTS_SEEN, [file])).toEqual([
      ['TAG', ['NAME=pump 1 NOTES TAGS'], ['NAME']],
    ]);
    const seen = await python<Json>(
      `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
a = doc.modelspace().query("ATTDEF")[0]
print(json.dumps({"attdef": [a.dxf.tag, a.dxf.style, a.dxf.layer], "font": doc.styles.get("NOTES").dxf.font,
  "colors": [doc.layers.get("ATTS").color, doc.layers.get("TAGS").color]}))
`,
      [file],
    );
    expect(seen).toEqual({ attdef: ['LOOSE', 'NOTES', 'ATTS'], font: 'arialbd.ttf', colors: [3, 5] });
  });

  it("a HATCH keeps its pattern and, as ezdxf's Importer copies it, is not associative and names no boundary objects of the source; real HATCHes (netDxf's sample 2018.dxf) copy whole; the saved target audits clean", async (ctx) => {
    needEzdxf(ctx);
    const drawn = join(editor.dir, 'hatch-source.dxf');
    await python<null>(
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
circle = msp.add_circle((0, 0), 5)
hatch = msp.add_hatch(color=1)
hatch.set_pattern_fill("ANSI31", scale=0.5)
path = hatch.paths.add_edge_path()
path.add_arc((0, 0), 5, 0, 360)
path.source_boundary_objects = [circle.dxf.handle]
hatch.dxf.associative = 1
doc.saveas(sys.argv[1])
print("null")
`,
      [drawn],
    );
    // What ezdxf sees of each HATCH: pattern, its lines, associativity, the boundary objects of each path.
    const HATCHES = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps(sorted([h.dxf.pattern_name, len(h.pattern.lines) if h.pattern else 0, h.dxf.associative,
  [len(p.source_boundary_objects) for p in h.paths], len(h.paths)] for h in doc.modelspace().query("HATCH"))))
`;
    expect(await python<Json[]>(HATCHES, [drawn])).toEqual([['ANSI31', 1, 1, [1], 1]]);
    const target = await newDocument(editor.client);
    await sourceOf(drawn);
    const hatch = (
      at(okBody(await editor.client.get('/api/v1/entities?type=HATCH')), 'entities') as Json[]
    )[0];
    await post('/api/v1/entities/copy-to', { document_id: target, handles: [hatch?.handle as string] }, 201);
    const real = join(import.meta.dirname, '../../fixtures/dxf-corpus/netdxf-sample-2018.dxf');
    await sourceOf(real);
    const handles = ['240', 'BD9', 'BDA'];
    await post('/api/v1/entities/copy-to', { document_id: target, handles }, 201);
    await post('/api/v1/activate', { document_id: target });
    const file = await editor.save('hatch-target.dxf');
    await expectAuditClean(file);
    const realSeen = await python<Json[]>(HATCHES, [real]);
    const seen = await python<Json[]>(HATCHES, [file]);
    expect(realSeen).toHaveLength(3);
    expect(seen).toHaveLength(4);
    expect(seen).toEqual(expect.arrayContaining([['ANSI31', 1, 0, [0], 1], ...realSeen]));
    // The real gradient HATCH's xdata applications are registered in the target.
    expect(
      await python<string[]>(
        `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
h = [h for h in doc.modelspace().query("HATCH") if h.xdata][0]
print(json.dumps(sorted(f"{app} {doc.appids.has_entry(app)}" for app in h.xdata.data)))
`,
        [file],
      ),
    ).toEqual(['ACAD True', 'GradientColor1ACI True', 'GradientColor2ACI True']);
  });
});
