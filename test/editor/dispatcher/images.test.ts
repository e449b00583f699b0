/**
 * `embed_image`: an IMAGE and its IMAGEDEF from a PNG or JPEG file made in the test; pixel size from
 * the file; every refusal with its code; one undo step; a saved drawing that ezdxf audits clean and
 * reads back with the file name, pixel size and vectors (skipped, with the reason, without ezdxf).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { editorSessionProjection } from '../../../projections/editor-session.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { jpegBytes, pngBytes } from '../raster-files.js';
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

interface Embedded {
  handle: string;
  imagedef: string;
  imagedef_created: boolean;
  name: string;
  pixels: [number, number];
  size: [number, number];
  path: string;
  format: 'png' | 'jpeg';
  layer: string;
}

/** Python: the images of a DXF file as ezdxf reads them, with their definitions and reactors. */
const READ_IMAGES = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
msp = doc.modelspace()
def v(p): return [float(p[0]), float(p[1]), float(p[2]) if len(p) > 2 else 0.0]
out = {"images": {}}
for e in msp.query("IMAGE"):
    d = e.image_def
    out["images"][e.dxf.handle] = {
        "layer": e.dxf.layer, "insert": v(e.dxf.insert), "u": v(e.dxf.u_pixel), "v": v(e.dxf.v_pixel),
        "size": v(e.dxf.image_size)[:2], "def": e.dxf.image_def_handle,
        "reactor": e.dxf.get("image_def_reactor_handle"),
        "filename": d.dxf.filename if d else None,
        "def_size": v(d.dxf.image_size)[:2] if d else None,
        "boundary": [v(p)[:2] for p in e.boundary_path],
    }
image_dict = doc.rootdict.get("ACAD_IMAGE_DICT")
out["dict"] = {k: o.dxf.handle for k, o in image_dict.items()} if image_dict is not None else None
out["imagedefs"] = {o.dxf.handle: list(o.reactors.get() if o.reactors else []) for o in doc.objects.query("IMAGEDEF")}
out["reactors"] = {o.dxf.handle: o.dxf.image_handle for o in doc.objects.query("IMAGEDEF_REACTOR")}
print(json.dumps(out))
`;

interface EzImages {
  images: Record<
    string,
    {
      layer: string;
      insert: number[];
      u: number[];
      v: number[];
      size: number[];
      def: string;
      reactor: string | null;
      filename: string | null;
      def_size: number[] | null;
      boundary: number[][];
    }
  >;
  dict: Record<string, string> | null;
  imagedefs: Record<string, string[]>;
  reactors: Record<string, string>;
}

function closeTo(actual: readonly number[], expected: readonly number[], what: string): void {
  expect(actual.length, what).toBe(expected.length);
  for (const [i, x] of expected.entries()) expect(actual[i], `${what}[${i}]`).toBeCloseTo(x, 9);
}

let h: Harness;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let png = '';
let jpeg = '';
beforeAll(async () => {
  scratch = await scratchDir();
  h = await startHarness();
  png = scratch.path('logo.png');
  jpeg = scratch.path('site photo.jpg');
  await writeFile(png, pngBytes(40, 30));
  await writeFile(jpeg, jpegBytes(24, 16));
});
afterAll(async () => {
  await h.close();
  await scratch.remove();
});

const embed = async (fields: Record<string, unknown>) =>
  resultOf<Embedded>(await h.ok('embed_image', fields));
const imageDefs = async (doc: number) =>
  (await h.raw({ protocol: 1, op: 'records', document_id: doc, collection: 'objects', type: 'IMAGEDEF' }))
    .result as { records: Array<{ handle: string; tags: Array<{ code: number; value: string }> }> };
const entity = async (handle: string) =>
  (await h.raw({ protocol: 1, op: 'query', handles: [handle], detail: 'full' })).entities as Array<
    Record<string, unknown>
  >;

describe('embed_image', () => {
  it('embeds a PNG at one drawing unit per pixel by default, named after the file', async () => {
    const doc = await h.newDoc();
    const answer = await h.ok('embed_image', { document_id: doc, path: png });
    const result = resultOf<Embedded>(answer);
    expect(result).toMatchObject({
      pixels: [40, 30],
      size: [40, 30],
      path: png,
      format: 'png',
      name: 'logo',
      layer: '0',
      imagedef_created: true,
    });
    expect(result.handle).toMatch(/^[0-9A-F]+$/);
    expect(result.imagedef).toMatch(/^[0-9A-F]+$/);
    expect(result.imagedef).not.toBe(result.handle);
    expect(answer.changes).toEqual([{ handle: result.handle, kind: 'created' }]);

    const [image] = await entity(result.handle);
    expect(image).toMatchObject({
      type: 'Image',
      layer: '0',
      position: [0, 0, 0],
      u_vector: [1, 0, 0],
      v_vector: [0, 1, 0],
      size: [40, 30],
    });
    const defs = (await imageDefs(doc)).records;
    expect(defs.map((d) => d.handle)).toEqual([result.imagedef]);
    expect(defs[0]?.tags).toEqual(
      expect.arrayContaining([
        { code: 1, value: png },
        { code: 10, value: '40.0' },
        { code: 20, value: '30.0' },
      ]),
    );
    const events = (await h.events()).filter((e) => e.type === 'ImageEmbedded');
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ document_id: doc, op: 'embed_image' });
  });

  it('embeds a JPEG with a width in drawing units, rotated, on a new layer', async () => {
    const doc = await h.newDoc();
    // `at`, the reference editor's name for `insert`; its answer fields kind, linked, width, height.
    const result = await embed({
      document_id: doc,
      path: jpeg,
      at: [5, 6],
      width: 12,
      rotation: 90,
      layer: 'PHOTOS',
    });
    expect(result).toMatchObject({
      pixels: [24, 16],
      size: [12, 8],
      format: 'jpeg',
      name: 'site photo',
      layer: 'PHOTOS',
      kind: 'RasterImage',
      linked: true,
      width: 12,
      height: 8,
    });
    const [image] = await entity(result.handle);
    expect(image?.position).toEqual([5, 6, 0]);
    closeTo(image?.u_vector as number[], [0, 0.5, 0], 'u_vector');
    closeTo(image?.v_vector as number[], [-0.5, 0, 0], 'v_vector');
    const layers = resultOf<{ layers: Array<{ name: string }> }>(
      await h.raw({ protocol: 1, op: 'layers', document_id: doc }),
    ).layers;
    expect(layers.map((l) => l.name)).toContain('PHOTOS');
  });

  it('takes scale as drawing units per pixel, a relative path, and the current layer', async () => {
    const doc = await h.newDoc();
    await h.create([{ type: 'Point', location: [0, 0], layer: 'PICS' }], doc);
    await h.ok('sysvar', { document_id: doc, set: { CLAYER: 'PICS' } });
    const result = await embed({ document_id: doc, path: relative(process.cwd(), png), scale: 0.25 });
    expect(result).toMatchObject({ path: png, size: [10, 7.5], layer: 'PICS' });
    // A file name with characters a dictionary key cannot hold gives a name with underscores.
    const odd = scratch.path('plan;v2=final.png');
    await writeFile(odd, pngBytes(2, 2));
    expect(await embed({ document_id: doc, path: odd })).toMatchObject({ name: 'plan_v2_final' });
  });

  it('reuses the definition of a file embedded before, and gives a clashing default name a suffix', async () => {
    const doc = await h.newDoc();
    const first = await embed({ document_id: doc, path: png });
    const second = await embed({ document_id: doc, path: png, insert: [100, 0] });
    expect(second.imagedef).toBe(first.imagedef);
    expect(second).toMatchObject({ imagedef_created: false, name: 'logo' });
    expect(second.handle).not.toBe(first.handle);

    const other = scratch.path('other/logo.png');
    await mkdir(scratch.path('other'), { recursive: true });
    await writeFile(other, pngBytes(8, 8));
    const third = await embed({ document_id: doc, path: other });
    expect(third).toMatchObject({ name: 'logo_2', imagedef_created: true, pixels: [8, 8] });
    expect((await imageDefs(doc)).records).toHaveLength(2);

    // An explicit name that another file's definition has is refused.
    const taken = await h.call('embed_image', { document_id: doc, path: jpeg, name: 'LOGO' });
    expect(taken).toMatchObject({ ok: false, code: 'image_name_taken' });
    expect(taken.error).toContain(png);
  });

  it('refuses what it cannot embed, each with its code, and changes nothing', async () => {
    const doc = await h.newDoc();
    const revision = await h.revision();
    const text = scratch.path('notes.png');
    await writeFile(text, 'just some notes\n');
    const gif = scratch.path('anim.gif');
    await writeFile(gif, Buffer.from('GIF89a\x0a\x00\x0a\x00\x00\x00\x00;', 'latin1'));
    const empty = scratch.path('empty.jpg');
    await writeFile(empty, Buffer.alloc(0));
    const binary = scratch.path('blob.jpg');
    await writeFile(binary, Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe, 0xfd, 0x10, 0x20, 0x30]));
    const broken = scratch.path('broken.jpg');
    // A JPEG start with no frame header: the size cannot be found.
    await writeFile(broken, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xd9]));
    const cases: Array<[string, Record<string, unknown>, string, RegExp?]> = [
      ['no such file', { path: scratch.path('missing.png') }, 'file_not_found', /missing\.png/],
      ['a directory', { path: scratch.dir }, 'file_unreadable', /is not a file/],
      [
        'a text file',
        { path: text },
        'invalid_image',
        /notes\.png is not a PNG or JPEG image \(it is text\)$/,
      ],
      ['a GIF', { path: gif }, 'invalid_image', /anim\.gif is an image of type GIF, not PNG or JPEG/],
      ['an empty file', { path: empty }, 'invalid_image', /empty\.jpg is an empty file/],
      [
        'binary bytes',
        { path: binary },
        'invalid_image',
        /blob\.jpg is not a PNG or JPEG image \(no image signature at its start\)$/,
      ],
      ['a broken JPEG', { path: broken }, 'invalid_image', /broken\.jpg is not a readable PNG or JPEG image/],
      ['no path', {}, 'invalid_path'],
      ['an empty path', { path: ' ' }, 'invalid_path'],
      ['a bad insert', { path: png, insert: [1] }, 'invalid_point', /insert/],
      ['a non-numeric insert', { path: png, insert: ['a', 2] }, 'invalid_point'],
      ['a zero width', { path: png, width: 0 }, 'invalid_property', /width/],
      ['a negative scale', { path: png, scale: -2 }, 'invalid_property', /scale/],
      ['width and scale', { path: png, width: 3, scale: 2 }, 'invalid_property', /not both/],
      ['a text rotation', { path: png, rotation: '90' }, 'invalid_property', /rotation/],
      ['a bad layer', { path: png, layer: 'a/b' }, 'invalid_property', /layer/],
      ['a bad name', { path: png, name: 'x*y' }, 'invalid_name', /name/],
    ];
    for (const [what, fields, code, message] of cases) {
      const answer = await h.call('embed_image', { document_id: doc, ...fields });
      expect(answer.ok, what).toBe(false);
      expect(answer.code, `${what}: ${answer.error}`).toBe(code);
      if (message) expect(answer.error, what).toMatch(message);
    }
    expect(await h.revision()).toBe(revision);
    expect((await imageDefs(doc)).records).toEqual([]);
  });

  it('needs a document', async () => {
    const bare = await startHarness();
    try {
      const answer = await bare.call('embed_image', { path: png });
      expect(answer.code).toBe('document_required');
    } finally {
      await bare.close();
    }
  });

  it('is one undo step: undo removes the image and its definition, redo restores both', async () => {
    const doc = await h.newDoc();
    const before = await h.revision();
    const result = await embed({ document_id: doc, path: png, layer: 'NEWPICS' });
    expect(await h.revision()).toBe(before + 1);

    const undo = await h.ok('undo', { document_id: doc });
    expect(undo.changes).toEqual([{ handle: result.handle, kind: 'erased' }]);
    const gone = await h.raw({ protocol: 1, op: 'query', handles: [result.handle] });
    expect(gone.code).toBe('entity_absent');
    expect((await imageDefs(doc)).records).toEqual([]);
    const layers = resultOf<{ layers: Array<{ name: string }> }>(
      await h.raw({ protocol: 1, op: 'layers', document_id: doc }),
    ).layers;
    expect(layers.map((l) => l.name)).not.toContain('NEWPICS');
    // The definition is gone: an Image cannot refer to it.
    const refused = await h.call('entities_create', {
      document_id: doc,
      entities: [{ type: 'Image', image_def: result.imagedef, position: [0, 0], size: [40, 30] }],
    });
    expect(refused.code).toBe('invalid_property');

    await h.ok('redo', { document_id: doc });
    expect(await entity(result.handle)).toHaveLength(1);
    expect((await imageDefs(doc)).records.map((r) => r.handle)).toEqual([result.imagedef]);
    await h.ok('entities_create', {
      document_id: doc,
      entities: [{ type: 'Image', image_def: result.imagedef, position: [0, 0], size: [40, 30] }],
    });
    // A second embed after the redo takes fresh handles.
    const next = await embed({ document_id: doc, path: jpeg });
    expect([next.handle, next.imagedef]).not.toContain(result.handle);
    expect([next.handle, next.imagedef]).not.toContain(result.imagedef);
  });

  it('rebuilds from the log to the same read model, objects and undo stacks included', async () => {
    const own = await startHarness();
    try {
      const doc = await own.newDoc();
      await own.ok('embed_image', { document_id: doc, path: png });
      await own.ok('embed_image', { document_id: doc, path: jpeg, layer: 'PHOTOS' });
      await own.ok('embed_image', { document_id: doc, path: png, insert: [9, 9] });
      await own.ok('undo', { document_id: doc });
      await own.ok('undo', { document_id: doc });
      await own.ok('redo', { document_id: doc });
      const live = JSON.parse(JSON.stringify(own.session.state));
      const rebuilt = await rebuildProjection(own.store, editorSessionProjection(own.session.sessionId));
      expect(JSON.parse(JSON.stringify(rebuilt.state))).toEqual(live);
      const objects = live.documents[String(doc)].model.objects as Array<{ type: string }>;
      expect(objects.filter((o) => o.type === 'IMAGEDEF')).toHaveLength(2);
      expect(objects.filter((o) => o.type === 'IMAGEDEF_REACTOR')).toHaveLength(2);
    } finally {
      await own.close();
    }
  });

  it('saves a drawing ezdxf audits clean, with the file name, pixel size and vectors read back', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const doc = await h.newDoc();
    const a = await embed({ document_id: doc, path: png, insert: [10, 20, 0], width: 80, rotation: 30 });
    const b = await embed({ document_id: doc, path: jpeg, insert: [-5, -5], layer: 'PHOTOS' });
    const c = await embed({ document_id: doc, path: png, insert: [100, 100] });
    const path = scratch.path('with-images.dxf');
    await h.ok('save', { document_id: doc, path });

    const audit = await ezdxfAudit(path);
    expect(audit.output).toMatch(/No errors found/);
    const back = await python<EzImages>(READ_IMAGES, [path]);
    expect(Object.keys(back.images).sort()).toEqual([a.handle, b.handle, c.handle].sort());
    const cos = Math.cos(Math.PI / 6) * 2;
    const sin = Math.sin(Math.PI / 6) * 2;
    const ia = back.images[a.handle];
    expect(ia).toMatchObject({ def: a.imagedef, filename: png, def_size: [40, 30], size: [40, 30] });
    closeTo(ia?.insert ?? [], [10, 20, 0], 'insert');
    closeTo(ia?.u ?? [], [cos, sin, 0], 'u_pixel');
    closeTo(ia?.v ?? [], [-sin, cos, 0], 'v_pixel');
    expect(ia?.boundary).toEqual([
      [-0.5, -0.5],
      [39.5, 29.5],
    ]);
    expect(back.images[b.handle]).toMatchObject({
      layer: 'PHOTOS',
      def: b.imagedef,
      filename: jpeg,
      def_size: [24, 16],
      insert: [-5, -5, 0],
      u: [1, 0, 0],
      v: [0, 1, 0],
    });
    expect(back.images[c.handle]?.def).toBe(a.imagedef);
    expect(back.dict).toEqual({ logo: a.imagedef, 'site photo': b.imagedef });
    // Each image has its own reactor, owned by it and listed by its definition.
    const reactorOf = (handle: string) => back.images[handle]?.reactor as string;
    for (const image of [a, b, c]) expect(back.reactors[reactorOf(image.handle)]).toBe(image.handle);
    expect(back.imagedefs[a.imagedef]).toEqual(
      expect.arrayContaining([reactorOf(a.handle), reactorOf(c.handle)]),
    );
    expect(back.imagedefs[b.imagedef]).toEqual(expect.arrayContaining([reactorOf(b.handle)]));

    // Undone, the saved drawing has neither the image nor its definition, and still audits clean.
    await h.ok('undo', { document_id: doc });
    await h.ok('undo', { document_id: doc });
    const undone = scratch.path('undone.dxf');
    await h.ok('save', { document_id: doc, path: undone });
    expect((await ezdxfAudit(undone)).output).toMatch(/No errors found/);
    const left = await python<EzImages>(READ_IMAGES, [undone]);
    expect(Object.keys(left.images)).toEqual([a.handle]);
    expect(Object.keys(left.imagedefs)).toEqual([a.imagedef]);
    expect(left.dict).toEqual({ logo: a.imagedef });
    expect(left.imagedefs[a.imagedef]).not.toContain(reactorOf(c.handle));
  });

  it('saves every image with a reactor of its own: copies, created Images, none left for erased ones', async () => {
    const doc = await h.newDoc();
    const first = await embed({ document_id: doc, path: png });
    const second = await embed({ document_id: doc, path: png, insert: [50, 0] });
    const copy = resultOf<{ handles: string[] }>(
      await h.ok('entities_transform', {
        document_id: doc,
        handles: [first.handle],
        action: 'copy',
        vector: [0, 50],
      }),
    ).handles[0] as string;
    const [created] = await h.create(
      [{ type: 'Image', image_def: first.imagedef, position: [0, 100], size: [40, 30] }],
      doc,
    );
    await h.ok('entities_delete', { document_id: doc, handles: [second.handle] });
    const path = scratch.path('reactors.dxf');
    await h.ok('save', { document_id: doc, path });

    // Read back by the editor itself: one reactor per written image, owned by it, listed by the definition.
    const opened = (await h.ok('open', { path })).document_id as number;
    const records = async (type: string) =>
      (
        (await h.raw({ protocol: 1, op: 'records', document_id: opened, collection: 'objects', type }))
          .result as { records: Array<{ handle: string; tags: Array<{ code: number; value: string }> }> }
      ).records;
    const reactors = await records('IMAGEDEF_REACTOR');
    const ownerOf = (r: { tags: Array<{ code: number; value: string }> }) =>
      r.tags.find((x) => x.code === 330)?.value;
    expect(reactors.map(ownerOf).sort()).toEqual([first.handle, copy, created].sort());
    const [def] = await records('IMAGEDEF');
    // The definition's ACAD_REACTORS group: its owner dictionary and the written images' reactors.
    const tags = def?.tags ?? [];
    const open = tags.findIndex((x) => x.code === 102 && x.value === '{ACAD_REACTORS');
    const close = tags.findIndex((x, i) => i > open && x.code === 102);
    const listed = tags.slice(open + 1, close).map((x) => x.value);
    expect(open).toBeGreaterThan(0);
    expect(listed.slice(1).sort()).toEqual(reactors.map((r) => r.handle).sort());
    const images = (
      await h.raw({ protocol: 1, op: 'query', document_id: opened, type: 'image', detail: 'full' })
    ).entities as Array<{ handle: string; extra: Array<{ code: number; value: string }> }>;
    expect(images).toHaveLength(3);
    for (const image of images) {
      const reactor = image.extra.find((x) => x.code === 360)?.value;
      expect(ownerOf(reactors.find((r) => r.handle === reactor) ?? { tags: [] }), image.handle).toBe(
        image.handle,
      );
    }

    if (ezdxfUnavailable) {
      console.log(`ezdxf part skipped: ${ezdxfUnavailable}`);
      return;
    }
    expect((await ezdxfAudit(path)).output).toMatch(/No errors found/);
    const back = await python<EzImages>(READ_IMAGES, [path]);
    for (const handle of [first.handle, copy, created as string]) {
      const reactor = back.images[handle]?.reactor as string;
      expect(back.reactors[reactor], handle).toBe(handle);
      expect(back.imagedefs[first.imagedef]).toContain(reactor);
    }
  });

  it('embeds into a drawing opened from a file that has images of its own', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const fixture = scratch.path('ezdxf-images.dxf');
    await python(
      `
import sys, json, ezdxf
doc = ezdxf.new("R2018")
d = doc.add_image_def("logo.png", size_in_pixel=(64, 48))
doc.modelspace().add_image(d, insert=(0, 0), size_in_units=(6.4, 4.8))
doc.saveas(sys.argv[1])
print(json.dumps(d.dxf.handle))
`,
      [fixture],
    );
    const doc = (await h.ok('open', { path: fixture })).document_id as number;
    const result = await embed({ document_id: doc, path: png });
    // ezdxf names its definition by the file name, "logo.png": "logo" is free.
    expect(result).toMatchObject({ name: 'logo', imagedef_created: true });
    const path = scratch.path('ezdxf-images-and-ours.dxf');
    await h.ok('save', { document_id: doc, path });
    expect((await ezdxfAudit(path)).output).toMatch(/No errors found/);
    const back = await python<EzImages>(READ_IMAGES, [path]);
    expect(Object.keys(back.images)).toHaveLength(2);
    expect(back.images[result.handle]).toMatchObject({ filename: png, def_size: [40, 30] });
    expect(Object.keys(back.dict ?? {}).sort()).toEqual(['logo', 'logo.png']);
  });
});
