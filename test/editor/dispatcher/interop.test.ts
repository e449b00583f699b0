/**
 * DXF interop through the dispatcher: a drawing ezdxf writes at test time opens and queries as ezdxf
 * sees it; what `save` writes after edits reads back in ezdxf with the same entities and coordinates,
 * and `python3 -m ezdxf audit` finds no errors. Skips (with the reason printed) without python3-ezdxf.
 */
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import {
  ezdxfAudit,
  ezdxfUnavailable,
  type Harness,
  needEzdxf,
  python,
  resultOf,
  scratchDir,
  startHarness,
} from './helpers.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** One entity as ezdxf reads it (see DESCRIBE below). */
interface EzEntity {
  type: string;
  layer: string;
  space: string;
  color: number;
  attribs: Record<string, Json>;
  points?: number[][];
  closed?: boolean;
  text?: string;
  xdata: Record<string, Array<[number, Json]>>;
}
interface EzView {
  entities: Record<string, EzEntity>;
  layers: Record<string, { color: number; off: boolean; frozen: boolean; locked: boolean }>;
  appids: string[];
  groups: Record<string, string[]>;
  layouts: string[];
  blocks: Record<string, string[]>;
  audit_errors: string[];
}

/** Python: what ezdxf sees in a DXF file, as JSON (entities by handle, in every layout and block). */
const DESCRIBE = `
import json, sys
import ezdxf
from ezdxf import recover

def vec(v):
    return [float(v[0]), float(v[1]), float(v[2]) if len(v) > 2 else 0.0]

def plain(value):
    if hasattr(value, "x") and hasattr(value, "y"):
        return vec(value)
    if isinstance(value, (int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return vec(value)
    return str(value)

ATTRIBS = ["start", "end", "center", "radius", "start_angle", "end_angle", "insert", "height",
           "rotation", "name", "xscale", "yscale", "zscale", "char_height", "width", "location",
           "attachment_point", "text", "u_pixel", "v_pixel", "image_size", "image_def_handle"]

def describe(e, space):
    out = {"type": e.dxftype(), "layer": e.dxf.layer, "space": space, "color": e.dxf.color,
           "attribs": {}, "xdata": {}}
    for name in ATTRIBS:
        if e.dxf.hasattr(name):
            out["attribs"][name] = plain(e.dxf.get(name))
    if e.dxftype() == "LWPOLYLINE":
        out["points"] = [[float(x), float(y), float(b)] for x, y, b in e.get_points("xyb")]
        out["closed"] = bool(e.closed)
    if e.dxftype() == "MTEXT":
        out["text"] = e.text
    if e.xdata is not None:
        for app, tags in e.xdata.data.items():
            out["xdata"][app] = [[t.code, plain(t.value)] for t in tags]
    return out

doc, auditor = recover.readfile(sys.argv[1])
view = {"entities": {}, "layers": {}, "appids": [], "groups": {}, "layouts": [], "blocks": {},
        "audit_errors": [f"{e.code}: {e.message}" for e in auditor.errors]}
for layout in doc.layouts:
    view["layouts"].append(layout.name)
    for e in layout:
        view["entities"][e.dxf.handle] = describe(e, layout.name)
for block in doc.blocks:
    if block.is_any_layout:
        continue
    view["blocks"][block.name] = [e.dxf.handle for e in block]
    for e in block:
        view["entities"][e.dxf.handle] = describe(e, block.name)
for layer in doc.layers:
    view["layers"][layer.dxf.name] = {"color": abs(layer.dxf.color), "off": layer.is_off(),
                                      "frozen": layer.is_frozen(), "locked": layer.is_locked()}
view["appids"] = [a.dxf.name for a in doc.appids]
for name, group in doc.groups:
    view["groups"][name] = [e.dxf.handle for e in group]
print(json.dumps(view))
`;

/** Python: writes the fixture drawing with ezdxf and prints the handles the test needs. */
const WRITE = String.raw`
import json, sys
import ezdxf
ezdxf.options.write_fixed_meta_data_for_testing = True
doc = ezdxf.new("R2018", setup=True)
doc.layers.add("WALLS", color=1)
doc.layers.add("HIDDEN", color=3).off()
doc.appids.new("CHRONICLE")
msp = doc.modelspace()
h = {}
h["line"] = msp.add_line((0, 0, 0), (10.5, 20.25, 1.5), dxfattribs={"layer": "WALLS", "color": 3}).dxf.handle
tagged = msp.add_line((1, 2), (3, 4), dxfattribs={"layer": "WALLS"})
tagged.set_xdata("CHRONICLE", [(1000, "tag-a"), (1040, 2.5), (1070, 7), (1010, (1, 2, 3))])
h["tagged"] = tagged.dxf.handle
h["circle"] = msp.add_circle((5, 5), 2.5, dxfattribs={"layer": "HIDDEN"}).dxf.handle
h["arc"] = msp.add_arc((0, 0), 3, 10, 190).dxf.handle
h["text"] = msp.add_text("Hello DXF", dxfattribs={"height": 2.5, "rotation": 30, "insert": (7, 8)}).dxf.handle
h["mtext"] = msp.add_mtext("First\\PSecond", dxfattribs={"char_height": 1.5, "width": 40, "insert": (0, 50)}).dxf.handle
pl = msp.add_lwpolyline([(0, 0, 0.5), (10, 0, 0), (10, 10, -1)], format="xyb", close=True)
h["polyline"] = pl.dxf.handle
blk = doc.blocks.new("DOOR", base_point=(1, 1))
blk.add_line((0, 0), (1, 0))
blk.add_circle((0.5, 0.5), 0.25)
h["insert"] = msp.add_blockref("DOOR", (10, 10), dxfattribs={"xscale": 2, "yscale": 2, "rotation": 45}).dxf.handle
h["insert2"] = msp.add_blockref("DOOR", (30, 10)).dxf.handle
hatch = msp.add_hatch(color=2)
hatch.paths.add_polyline_path([(0, 0), (4, 0), (4, 4), (0, 4)], is_closed=True)
h["hatch"] = hatch.dxf.handle
image_def = doc.add_image_def("photo.png", size_in_pixel=(640, 480))
h["image_def"] = image_def.dxf.handle
h["image"] = msp.add_image(image_def, insert=(50, 50), size_in_units=(6.4, 4.8), rotation=0).dxf.handle
sheet = doc.layouts.new("Sheet A")
h["paper_line"] = sheet.add_line((0, 0), (100, 50), dxfattribs={"layer": "WALLS"}).dxf.handle
doc.saveas(sys.argv[1])
print(json.dumps(h))
`;

const TYPE_NAMES: Record<string, string> = {
  Line: 'LINE',
  Circle: 'CIRCLE',
  Arc: 'ARC',
  Text: 'TEXT',
  MText: 'MTEXT',
  Point: 'POINT',
  LwPolyline: 'LWPOLYLINE',
  Insert: 'INSERT',
  Image: 'IMAGE',
};

type Entity = Record<string, unknown> & { handle: string; type: string; layer: string; space: string };

function closeTo(actual: unknown, expected: unknown, what: string): void {
  expect(Array.isArray(actual), `${what}: ${JSON.stringify(actual)}`).toBe(true);
  const a = actual as number[];
  const e = expected as number[];
  expect(a.length, what).toBe(e.length);
  for (const [i, v] of e.entries()) expect(a[i], `${what}[${i}]`).toBeCloseTo(v, 9);
}

/** Our entity (query detail full) against ezdxf's view of the same handle. */
function sameEntity(ours: Entity, theirs: EzEntity | undefined): void {
  const what = `${ours.type} ${ours.handle}`;
  expect(theirs, `${what} is missing in ezdxf's view`).toBeDefined();
  if (!theirs) return;
  expect(theirs.type, what).toBe(ours.type === 'Raw' ? ours.dxf_type : TYPE_NAMES[ours.type]);
  expect(theirs.layer, what).toBe(ours.layer);
  expect(theirs.color, what).toBe(ours.color);
  const at = theirs.attribs;
  switch (ours.type) {
    case 'Line':
      closeTo(at.start, ours.start, `${what} start`);
      closeTo(at.end, ours.end, `${what} end`);
      break;
    case 'Circle':
    case 'Arc':
      closeTo(at.center, ours.center, `${what} center`);
      expect(at.radius).toBeCloseTo(ours.radius as number, 9);
      if (ours.type === 'Arc') {
        expect(at.start_angle).toBeCloseTo(ours.start_angle as number, 9);
        expect(at.end_angle).toBeCloseTo(ours.end_angle as number, 9);
      }
      break;
    case 'Text':
      closeTo(at.insert, ours.position, `${what} insert`);
      expect(at.text).toBe(ours.value);
      expect(at.height).toBeCloseTo(ours.height as number, 9);
      break;
    case 'MText':
      closeTo(at.insert, ours.position, `${what} insert`);
      expect(theirs.text).toBe(ours.value);
      break;
    case 'Point':
      closeTo(at.location, ours.location, `${what} location`);
      break;
    case 'LwPolyline': {
      const vertices = ours.vertices as Array<{ x: number; y: number; bulge: number }>;
      closeTo(
        theirs.points?.flat(),
        vertices.flatMap((v) => [v.x, v.y, v.bulge]),
        `${what} vertices`,
      );
      expect(theirs.closed).toBe(ours.closed);
      break;
    }
    case 'Image':
      closeTo(at.insert, ours.position, `${what} insert`);
      closeTo(at.u_pixel, ours.u_vector, `${what} u_pixel`);
      closeTo(at.v_pixel, ours.v_vector, `${what} v_pixel`);
      closeTo((at.image_size as number[]).slice(0, 2), ours.size, `${what} image_size`);
      expect(at.image_def_handle).toBe(ours.image_def);
      break;
    case 'Insert':
      expect(at.name).toBe(ours.name);
      closeTo(at.insert, ours.position, `${what} insert`);
      closeTo([at.xscale ?? 1, at.yscale ?? 1, at.zscale ?? 1], ours.scale, `${what} scale`);
      expect((at.rotation as number | undefined) ?? 0).toBeCloseTo(ours.rotation as number, 9);
      break;
  }
}

let h: Harness;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let fixture = '';
let handles: Record<string, string> = {};
beforeAll(async () => {
  scratch = await scratchDir();
  h = await startHarness();
  if (ezdxfUnavailable) return;
  fixture = scratch.path('ezdxf-made.dxf');
  handles = await python<Record<string, string>>(WRITE, [fixture]);
});
afterAll(async () => {
  await h.close();
  await scratch.remove();
});

const read = (op: string, fields: Record<string, unknown> = {}) => h.raw({ protocol: 1, op, ...fields });
const allEntities = async () => {
  const answer = await read('query', { detail: 'full', limit: 10_000 });
  expect(answer.ok, answer.error).toBe(true);
  return answer.entities as Entity[];
};
/**
 * The entities a plain query lists, as ezdxf sees the file: those of the layouts, and the contents of
 * the blocks they insert (and of the blocks those insert).
 */
function listedBy(view: EzView): string[] {
  const out = Object.entries(view.entities)
    .filter(([, e]) => view.layouts.includes(e.space))
    .map(([key]) => key);
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const h of view.blocks[name] ?? []) {
      out.push(h);
      const e = view.entities[h];
      if (e?.type === 'INSERT') visit(String(e.attribs.name));
    }
  };
  for (const key of [...out]) {
    const e = view.entities[key];
    if (e?.type === 'INSERT') visit(String(e.attribs.name));
  }
  return out;
}
const handle = (name: string) => {
  const value = handles[name];
  if (!value) throw new Error(`the fixture has no ${name}`);
  return value;
};

describe('a drawing written by ezdxf', () => {
  it('opens and queries as ezdxf sees it', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const opened = await h.ok('open', { path: fixture });
    const doc = opened.document_id as number;
    const theirs = await python<EzView>(DESCRIBE, [fixture]);
    const ours = await allEntities();
    // Model and paper space, and the blocks they insert: what ezdxf finds there, by handle.
    const inLayouts = listedBy(theirs);
    expect(ours.map((e) => e.handle).sort()).toEqual(inLayouts.sort());
    for (const entity of ours) sameEntity(entity, theirs.entities[entity.handle]);

    // The filters see the file's entities.
    const count = async (fields: Record<string, unknown>) =>
      (await read('query', { ...fields, limit: 0 })).count;
    // Three in model space, one in the DOOR block the inserts show.
    expect(await count({ type: 'line' })).toBe(4);
    expect(await count({ type: 'insert' })).toBe(2);
    expect(await count({ type: 'hatch' })).toBe(1);
    // The HATCH ezdxf wrote reads out like one the editor makes: its fill and its boundary loop.
    const [fileHatch] = (await read('query', { handles: [handle('hatch')] })).entities as [Entity];
    expect(fileHatch).toMatchObject({
      dxf_type: 'HATCH',
      solid: true,
      pattern: 'SOLID',
      boundary: [
        [
          [0, 0],
          [4, 0],
          [4, 4],
          [0, 4],
        ],
      ],
    });
    expect(await count({ type: 'image' })).toBe(1);
    expect(await count({ layer: 'walls' })).toBe(3);
    expect((await read('query', { bounds: [4, 4, 6, 6], type: 'circle' })).count).toBe(1);
    const [paperLine] = (await read('query', { handles: [handle('paper_line')], detail: 'full' }))
      .entities as [Entity];
    expect(paperLine.space).not.toBe('*Model_Space');
    expect(paperLine.space).toMatch(/^\*Paper_Space/);

    // Layers, xdata, blocks and layouts came through.
    const layers = resultOf<{ layers: Array<{ name: string; color: number; off: boolean }> }>(
      await read('layers'),
    ).layers;
    expect(layers.find((l) => l.name === 'WALLS')).toMatchObject({ color: 1, off: false });
    expect(layers.find((l) => l.name === 'HIDDEN')).toMatchObject({ color: 3, off: true });
    const [tagged] = (await read('xdata_get', { handles: [handle('tagged')], app: 'chronicle' })).items as [
      { data: { CHRONICLE: Array<{ code: number; value: unknown }> } },
    ];
    expect(tagged.data.CHRONICLE).toEqual([
      { code: 1000, value: 'tag-a' },
      { code: 1040, value: 2.5 },
      { code: 1070, value: 7 },
      { code: 1010, value: [1, 2, 3] },
    ]);
    expect((await h.call('block_define', { document_id: doc, name: 'DOOR', handles: [] })).code).toBe(
      'block_exists',
    );
    expect((await h.call('layout_create', { document_id: doc, name: 'Sheet A' })).code).toBe('layout_exists');
    expect((await read('state')).state.revision).toBe(0);
    // The HATCH ezdxf wrote moves (its boundary with it); undo puts it back.
    const hatch = await h.ok('entities_transform', {
      document_id: doc,
      handles: [handle('hatch')],
      action: 'move',
      vector: [1, 1],
    });
    expect(hatch.result).toMatchObject({ affected: 1, not_transformable: [] });
    const [movedHatch] = (await read('query', { handles: [handle('hatch')] })).entities as [Entity];
    expect((movedHatch as unknown as { boundary: number[][][] }).boundary[0]?.[0]).toEqual([1, 1]);
    await h.ok('undo', { document_id: doc });
  });

  it('after edits through the dispatcher, saves a file ezdxf audits clean and reads back the same', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const doc = (await h.ok('open', { path: fixture })).document_id as number;
    const created = await h.ok('entities_create', {
      document_id: doc,
      entities: [
        { type: 'Line', start: [100, 200], end: [300, 400, 5], layer: 'NEWLAYER' },
        { type: 'Circle', center: [-3, 7.125], radius: 0.75, color: 5 },
        { type: 'Text', value: 'Saved by chronicle', position: [1, -1], height: 0.5, rotation: 15 },
        { type: 'MText', value: 'multi\\Pline', position: [2, 2], height: 1, width: 10 },
        { type: 'Point', location: [4, 5, 6] },
        {
          type: 'LwPolyline',
          points: [
            [0, 0],
            [2, 0, 1],
            [2, 2],
          ],
          closed: false,
        },
        { type: 'Insert', name: 'DOOR', position: [50, 50], scale: [1, 2, 1], rotation: 90 },
        {
          type: 'Image',
          image_def: handle('image_def'),
          position: [-20, -20],
          size: [640, 480],
          u_vector: [0.02, 0],
        },
      ],
    });
    const made = resultOf<{ handles: string[] }>(created).handles;
    await h.ok('entities_transform', {
      document_id: doc,
      handles: [handle('polyline'), handle('arc')],
      action: 'rotate',
      center: [1, 1],
      angle: 33,
    });
    await h.ok('entities_transform', {
      document_id: doc,
      handles: [handle('insert')],
      action: 'move',
      vector: [1, 2],
    });
    await h.ok('entities_transform', {
      document_id: doc,
      handles: [handle('image')],
      action: 'rotate',
      center: [50, 50],
      angle: 90,
    });
    await h.ok('entities_transform', {
      document_id: doc,
      handles: [handle('line')],
      action: 'mirror',
      points: [
        [0, 0],
        [1, 1],
      ],
    });
    await h.ok('set_properties', {
      document_id: doc,
      handles: [handle('circle')],
      properties: { layer: 'WALLS', color: 6 },
    });
    await h.ok('xdata_set', {
      document_id: doc,
      handles: [made[0] as string],
      app: 'SAVEDAPP',
      data: [
        { code: 1000, value: 'x' },
        { code: 1071, value: 123456 },
        { code: 1011, value: [1, 2, 3] },
      ],
    });
    await h.ok('block_define', {
      document_id: doc,
      name: 'NEWBLK',
      base: [0, 0],
      handles: [made[1] as string],
    });
    const [newInsert] = (await h.create([{ type: 'Insert', name: 'NEWBLK', position: [7, 7] }], doc)) as [
      string,
    ];
    await h.ok('group_create', { document_id: doc, name: 'SAVED', handles: [made[0] as string, newInsert] });
    await h.ok('layout_create', { document_id: doc, name: 'Sheet B' });
    await h.ok('page_setup_set', { document_id: doc, layout: 'Sheet B', paper: 'ISO A3', scale: '1:100' });
    await h.ok('entities_delete', { document_id: doc, handles: [handle('insert2')] });

    const path = scratch.path('saved-by-us.dxf');
    await h.ok('save', { document_id: doc, path });

    const audit = await ezdxfAudit(path);
    expect(audit.output).toMatch(/No errors found/);
    expect(audit.output).not.toMatch(/Invalid|corrupt|error\(s\)/i);

    const theirs = await python<EzView>(DESCRIBE, [path]);
    expect(theirs.audit_errors).toEqual([]);
    const ours = await allEntities();
    const inLayouts = listedBy(theirs);
    expect(ours.map((e) => e.handle).sort()).toEqual(inLayouts.sort());
    expect(inLayouts).not.toContain(handle('insert2'));
    for (const entity of ours) sameEntity(entity, theirs.entities[entity.handle]);

    expect(theirs.layouts).toEqual(expect.arrayContaining(['Model', 'Sheet A', 'Sheet B']));
    expect(Object.keys(theirs.layers)).toEqual(expect.arrayContaining(['NEWLAYER', 'WALLS', 'HIDDEN']));
    expect(theirs.appids).toEqual(expect.arrayContaining(['CHRONICLE', 'SAVEDAPP']));
    // ezdxf's tags of an application start with its 1001 tag.
    expect(theirs.entities[made[0] as string]?.xdata.SAVEDAPP).toEqual([
      [1001, 'SAVEDAPP'],
      [1000, 'x'],
      [1071, 123456],
      [1011, [1, 2, 3]],
    ]);
    expect(theirs.entities[handle('tagged')]?.xdata.CHRONICLE?.slice(0, 2)).toEqual([
      [1001, 'CHRONICLE'],
      [1000, 'tag-a'],
    ]);
    // The file lists the members in order; ezdxf 0.18 hands them back in an order of its own.
    expect(theirs.groups.SAVED?.sort()).toEqual([made[0], newInsert].sort());
    expect(theirs.blocks.NEWBLK).toHaveLength(1);
    expect(theirs.entities[theirs.blocks.NEWBLK?.[0] as string]).toMatchObject({
      type: 'CIRCLE',
      attribs: { center: [-3, 7.125, 0], radius: 0.75 },
    });
    expect(theirs.blocks.DOOR).toHaveLength(2);

    // And it opens again through the dispatcher with the same entities. The save gives an Image made
    // without a reactor one of its own (an IMAGEDEF_REACTOR): only that Image's unmodeled tags differ.
    const before = await allEntities();
    await h.ok('open', { path });
    const createdImage = made[7] as string;
    const withoutExtra = (entities: Entity[]) =>
      entities.map(({ extra, ...rest }) => (rest.handle === createdImage ? rest : { ...rest, extra }));
    const after = await allEntities();
    expect(withoutExtra(after)).toEqual(withoutExtra(before));
    const imageExtra = after.find((e) => e.handle === createdImage)?.extra as Array<{ code: number }>;
    expect(imageExtra.filter((t) => t.code === 360)).toHaveLength(1);
  });

  it('a blank drawing saved as it is audits clean', async (ctx: TestContext) => {
    needEzdxf(ctx);
    await h.ok('new', { template: 'imperial' });
    const path = scratch.path('blank.dxf');
    await h.ok('save', { path, document_id: (await read('state')).state.document_id });
    const audit = await ezdxfAudit(path);
    expect(audit.output).toMatch(/No errors found/);
  });
});
