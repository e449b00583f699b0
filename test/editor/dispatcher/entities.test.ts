/**
 * Entity ops through the dispatcher: entities_create, entities_delete, entities_transform,
 * entities_copy_to, set_properties, property; and query's parameters as the dispatcher passes them.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type Harness,
  handMadeDxf,
  type Reply,
  resultOf,
  scratchDir,
  startHarness,
  writeText,
} from './helpers.js';

let h: Harness;
let doc: number;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.remove();
});
beforeEach(async () => {
  h = await startHarness();
  doc = await h.newDoc();
});
afterEach(async () => {
  await h.close();
});

type Geometry = Record<string, unknown> & { handle: string; type: string; layer: string };

const query = (fields: Record<string, unknown> = {}) => h.raw({ protocol: 1, op: 'query', ...fields });
const entities = async (fields: Record<string, unknown> = {}) => {
  const answer = await query(fields);
  expect(answer.ok, answer.error).toBe(true);
  return answer.entities as Geometry[];
};
const one = async (handle: string, detail = 'full') => {
  const [entity] = await entities({ handles: [handle], detail });
  if (!entity) throw new Error(`no entity ${handle}`);
  return entity;
};
const handseed = async () =>
  resultOf<{ values: { HANDSEED: string } }>(await h.ok('sysvar', { document_id: doc, get: ['HANDSEED'] }))
    .values.HANDSEED;
const layerNames = async () =>
  resultOf<{ layers: Array<{ name: string }> }>(await h.raw({ protocol: 1, op: 'layers' })).layers.map(
    (l) => l.name,
  );
/** Expects `answer` to fail with `code` and the document to be exactly as `before`. */
async function refusedWithNothingChanged(answer: Reply, code: string, before: unknown) {
  expect(answer.ok, JSON.stringify(answer.result)).toBe(false);
  expect(answer.code).toBe(code);
  expect(await snapshot()).toEqual(before);
}
/** What a failed mutation must leave alone: revision, entities, layers, handle seed. */
const snapshot = async () => ({
  revision: await h.revision(),
  entities: await entities({ detail: 'full' }),
  layers: await layerNames(),
  handseed: await handseed(),
});

const LINE = { type: 'Line', start: [0, 0], end: [10, 0] };

/** The hand-made drawing with its HATCH (2C) as a REGION: an ACIS body, which no transform moves. */
const opaqueDxf = () => handMadeDxf().replace('  0\nHATCH\n', '  0\nREGION\n');

describe('entities_create', () => {
  it('creates entities of every modeled type (Image aside): uppercase hex handles, unique, in order', async () => {
    const seed = Number.parseInt(await handseed(), 16);
    const answer = await h.ok('entities_create', {
      document_id: doc,
      entities: [
        LINE,
        { type: 'circle', center: [1, 2], radius: 3 },
        { type: 'ARC', center: [0, 0], radius: 1, start_angle: 0, end_angle: 90 },
        { type: 'Text', text: 'hi', position: [1, 1] },
        { type: 'MText', value: 'm', position: [2, 2] },
        { type: 'Point', position: [3, 3] },
        { type: 'polyline', points: [{ x: 0, y: 0 }, [1, 1, 0.5], [2, 0]] },
      ],
    });
    const result = resultOf<{ handles: string[]; created: number; layers_created: string[] }>(answer);
    expect(result.created).toBe(7);
    expect(result.layers_created).toEqual([]);
    expect(result.handles).toHaveLength(7);
    expect(new Set(result.handles).size).toBe(7);
    for (const handle of result.handles) expect(handle).toMatch(/^[0-9A-F]+$/);
    expect(result.handles.map((x) => Number.parseInt(x, 16))).toEqual(
      Array.from({ length: 7 }, (_, i) => seed + i),
    );
    expect(answer.changes).toEqual(result.handles.map((handle) => ({ handle, kind: 'created' })));
    expect(answer.state.revision).toBe(1);
    expect(answer.state.documents[0]?.dirty).toBe(true);
    expect(Number.parseInt(await handseed(), 16)).toBe(seed + 7);
    const listed = await entities({ detail: 'full' });
    expect(listed.map((e) => e.type)).toEqual([
      'Line',
      'Circle',
      'Arc',
      'Text',
      'MText',
      'Point',
      'LwPolyline',
    ]);
    expect(listed[0]).toMatchObject({ start: [0, 0, 0], end: [10, 0, 0], layer: '0', color: 256 });
    expect(listed[3]).toMatchObject({ value: 'hi', height: 2.5, style: 'Standard' });
  });

  it('creates missing layers, once, and puts entities on the current layer by default', async () => {
    const answer = await h.ok('entities_create', {
      document_id: doc,
      entities: [
        { ...LINE, layer: 'WALLS' },
        { ...LINE, layer: 'WALLS' },
        { ...LINE, layer: 'DOORS' },
      ],
    });
    expect(resultOf<{ layers_created: string[] }>(answer).layers_created).toEqual(['WALLS', 'DOORS']);
    expect(await layerNames()).toEqual(expect.arrayContaining(['WALLS', 'DOORS']));
    await h.ok('sysvar', { document_id: doc, set: { CLAYER: 'DOORS' } });
    const [handle] = await h.create([LINE]);
    expect((await one(handle as string)).layer).toBe('DOORS');
  });

  it('handles stay unique across many steps and layers created in the same step', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      for (const handle of await h.create([{ ...LINE, layer: `L${i}` }, LINE])) {
        expect(seen.has(handle)).toBe(false);
        seen.add(handle);
      }
    }
    const layerHandles = resultOf<{ layers: Array<{ handle: string }> }>(
      await h.raw({ protocol: 1, op: 'layers' }),
    ).layers.map((l) => l.handle);
    for (const handle of layerHandles) expect(seen.has(handle)).toBe(false);
  });

  it('is all or nothing: one bad entity creates nothing, no layer, and keeps the handle seed', async () => {
    await h.create([LINE]);
    const before = await snapshot();
    const answer = await h.call('entities_create', {
      document_id: doc,
      entities: [{ ...LINE, layer: 'NEW_ONE' }, { type: 'Circle', center: [0, 0], radius: -1 }, LINE],
    });
    await refusedWithNothingChanged(answer, 'invalid_radius', before);
    expect(answer.error).toMatch(/^entities\[1\]/);
  });

  it.each([
    ['no entities', undefined, 'entities_required'],
    ['an empty list', [], 'entities_required'],
    ['a list item that is not an object', ['Line'], 'unknown_entity_type'],
    ['an unknown type', [{ type: 'Mesh' }], 'unknown_entity_type'],
    ['no type', [{ start: [0, 0], end: [1, 1] }], 'unknown_entity_type'],
    ['a point of one number', [{ type: 'Line', start: [0], end: [1, 1] }], 'invalid_point'],
    ['a point with text in it', [{ type: 'Circle', center: ['a', 1], radius: 1 }], 'invalid_point'],
    ['a polyline of one point', [{ type: 'LwPolyline', points: [[0, 0]] }], 'invalid_vertices'],
    [
      'a polyline vertex of text',
      [
        {
          type: 'LwPolyline',
          vertices: [
            [0, 0],
            ['a', 1],
          ],
        },
      ],
      'invalid_vertices',
    ],
    ['a colour out of range', [{ ...LINE, color: 300 }], 'invalid_property'],
    ['a lineweight DXF has not', [{ ...LINE, lineweight: 7 }], 'invalid_property'],
    ['an undefined linetype', [{ ...LINE, linetype: 'NO_SUCH' }], 'invalid_property'],
    ['a layer name DXF cannot hold', [{ ...LINE, layer: 'a/b' }], 'invalid_property'],
    ['a negative radius', [{ type: 'Circle', center: [0, 0], radius: -1 }], 'invalid_radius'],
    [
      'an arc of radius 0',
      [{ type: 'Arc', center: [0, 0], radius: 0, start_angle: 0, end_angle: 90 }],
      'invalid_radius',
    ],
    [
      'an insert scale of 0',
      [{ type: 'Insert', block: '*Model_Space', position: [0, 0], scale: 0 }],
      'invalid_scale',
    ],
    [
      'an MText attachment of 10',
      [{ type: 'MText', value: 'x', position: [0, 0], attachment: 10 }],
      'invalid_property',
    ],
    ['text without a value', [{ type: 'Text', position: [0, 0] }], 'invalid_text'],
    ['text of an empty value', [{ type: 'Text', value: '', position: [0, 0] }], 'invalid_text'],
    [
      'an insert of a block that is not defined',
      [{ type: 'Insert', name: 'NOPE', position: [0, 0] }],
      'block_missing',
    ],
    [
      'an image without an IMAGEDEF',
      [{ type: 'Image', image_def: 'FFFF', position: [0, 0], size: [10, 10] }],
      'invalid_property',
    ],
  ])('refuses %s', async (_, list, code) => {
    const before = await snapshot();
    const answer = await h.call('entities_create', { document_id: doc, ...(list ? { entities: list } : {}) });
    await refusedWithNothingChanged(answer, code, before);
  });

  it('accepts the names bylayer/byblock and defined linetypes', async () => {
    const [handle] = await h.create([{ ...LINE, color: 'byblock', linetype: 'dashed', lineweight: 50 }]);
    // The linetype as the document spells it: DXF names are one name in any case.
    expect(await one(handle as string)).toMatchObject({ color: 0, linetype: 'DASHED', lineweight: 50 });
  });
});

describe('entities_delete', () => {
  it('erases entities (handles in any case) and answers erased and changes', async () => {
    const [a, b, c] = (await h.create([LINE, LINE, LINE])) as [string, string, string];
    const answer = await h.ok('entities_delete', { document_id: doc, handles: [a.toLowerCase(), c, a] });
    expect(resultOf<{ erased: number; handles: string[] }>(answer)).toEqual({ erased: 2, handles: [a, c] });
    expect(answer.changes?.map((x) => x.kind)).toEqual(['erased', 'erased']);
    expect(answer.changes?.map((x) => x.handle).sort()).toEqual([a, c].sort());
    expect((await entities()).map((e) => e.handle)).toEqual([b]);
  });

  it('an unknown handle is entity_absent and nothing is erased', async () => {
    const [a] = (await h.create([LINE])) as [string];
    const before = await snapshot();
    const answer = await h.call('entities_delete', { document_id: doc, handles: [a, 'ABCDEF'] });
    await refusedWithNothingChanged(answer, 'entity_absent', before);
    expect(answer.error).toMatch(/ABCDEF/);
  });

  it('handles that are not a list of strings, or none, are invalid_handles', async () => {
    await h.create([LINE]);
    const before = await snapshot();
    for (const handles of [undefined, 'A', [1], []]) {
      const answer = await h.call('entities_delete', { document_id: doc, handles });
      await refusedWithNothingChanged(answer, 'invalid_handles', before);
    }
  });
});

describe('entities_transform', () => {
  const close = (actual: unknown, expected: number[]) => {
    const got = actual as number[];
    expect(got).toHaveLength(expected.length);
    for (const [i, v] of expected.entries()) expect(got[i]).toBeCloseTo(v, 9);
  };

  it('move by a vector', async () => {
    const [line, circle] = (await h.create([LINE, { type: 'Circle', center: [1, 1], radius: 2 }])) as [
      string,
      string,
    ];
    const answer = await h.ok('entities_transform', {
      document_id: doc,
      handles: [line, circle],
      action: 'move',
      vector: [5, -1],
    });
    // `created` lists new handles (none for a move), as the reference editor answers; nothing was left.
    expect(resultOf<{ action: string; affected: number; handles: string[] }>(answer)).toEqual({
      action: 'move',
      affected: 2,
      handles: [line, circle],
      created: [],
      not_transformable: [],
    });
    expect(answer.changes).toEqual([
      { handle: line, kind: 'modified' },
      { handle: circle, kind: 'modified' },
    ]);
    const moved = await one(line);
    close(moved.start, [5, -1, 0]);
    close(moved.end, [15, -1, 0]);
    close((await one(circle)).center, [6, 0, 0]);
  });

  it('copy makes new entities with fresh handles; the originals stay', async () => {
    const [line] = (await h.create([LINE])) as [string];
    const answer = await h.ok('entities_transform', {
      document_id: doc,
      handles: [line],
      action: 'copy',
      vector: [0, 3, 1],
    });
    const [copy] = resultOf<{ handles: string[] }>(answer).handles as [string];
    expect(copy).not.toBe(line);
    expect(answer.changes).toEqual([{ handle: copy, kind: 'created' }]);
    close((await one(line)).start, [0, 0, 0]);
    const copied = await one(copy);
    close(copied.start, [0, 3, 1]);
    close(copied.end, [10, 3, 1]);
    expect(await entities()).toHaveLength(2);
  });

  it('copy, array and mirror with copy: true answer the new handles in created (the reference editor names)', async () => {
    const [line] = (await h.create([LINE])) as [string];
    const copied = resultOf<{ affected: number; created: string[] }>(
      await h.ok('entities_transform', {
        document_id: doc,
        handles: [line],
        action: 'copy',
        vector: [0, -10],
      }),
    );
    expect(copied.affected).toBe(1);
    expect(copied.created).toHaveLength(1);
    close((await one(copied.created[0] as string)).start, [0, -10, 0]);

    // array: rows x columns cells, the originals in the first; one undo step.
    const array = await h.ok('entities_transform', {
      document_id: doc,
      handles: [line],
      action: 'array',
      rows: 2,
      columns: 3,
      row_spacing: 5,
      column_spacing: 20,
    });
    const made = resultOf<{ affected: number; created: string[] }>(array);
    expect(made.affected).toBe(1);
    expect(made.created).toHaveLength(5);
    const starts = await Promise.all(made.created.map(async (h2) => (await one(h2)).start as number[]));
    expect(starts.map((p) => [p[0], p[1]])).toEqual([
      [20, 0],
      [40, 0],
      [0, 5],
      [20, 5],
      [40, 5],
    ]);
    await h.ok('undo', { document_id: doc });
    expect(await entities()).toHaveLength(2);

    // mirror with copy keeps the original; the reference names axis and angle_deg are understood.
    const mirrored = resultOf<{ created: string[] }>(
      await h.ok('entities_transform', {
        document_id: doc,
        handles: [line],
        action: 'mirror',
        axis: [
          [0, 0],
          [0, 10],
        ],
        copy: true,
      }),
    );
    close((await one(line)).end, [10, 0, 0]);
    close((await one(mirrored.created[0] as string)).end, [-10, 0, 0]);
    await h.ok('entities_transform', {
      document_id: doc,
      handles: [line],
      action: 'rotate',
      center: [0, 0],
      angle_deg: 90,
    });
    close((await one(line)).end, [0, 10, 0]);
    const bad = await h.call('entities_transform', {
      document_id: doc,
      handles: [line],
      action: 'array',
      rows: 0,
    });
    expect(bad.code).toBe('invalid_transform');
  });

  it('rotate about a center by degrees', async () => {
    const [line] = (await h.create([LINE])) as [string];
    await h.ok('entities_transform', {
      document_id: doc,
      handles: [line],
      action: 'rotate',
      center: [10, 0],
      angle: 90,
    });
    const rotated = await one(line);
    close(rotated.start, [10, -10, 0]);
    close(rotated.end, [10, 0, 0]);
  });

  it('scale about a center; a circle keeps being a circle', async () => {
    const [circle] = (await h.create([{ type: 'Circle', center: [2, 0], radius: 1 }])) as [string];
    await h.ok('entities_transform', { document_id: doc, handles: [circle], action: 'scale', factor: 3 });
    const scaled = await one(circle);
    close(scaled.center, [6, 0, 0]);
    expect(scaled.radius).toBeCloseTo(3, 9);
    await h.ok('entities_transform', {
      document_id: doc,
      handles: [circle],
      action: 'scale',
      factor: 0.5,
      center: [6, 0],
    });
    expect((await one(circle)).radius).toBeCloseTo(1.5, 9);
  });

  it('mirror about a line through two points; text stays readable', async () => {
    const [line, text] = (await h.create([
      { type: 'Line', start: [1, 1], end: [3, 2] },
      { type: 'Text', value: 'R', position: [2, 5] },
    ])) as [string, string];
    // MIRRTEXT 0: mirrored text keeps reading left to right.
    await h.ok('sysvar', { document_id: doc, set: { MIRRTEXT: 0 } });
    await h.ok('entities_transform', {
      document_id: doc,
      handles: [line, text],
      action: 'mirror',
      points: [
        [0, 0],
        [0, 10],
      ],
    });
    const mirrored = await one(line);
    close(mirrored.start, [-1, 1, 0]);
    close(mirrored.end, [-3, 2, 0]);
    const flipped = await one(text);
    expect(flipped.value).toBe('R');
    expect((flipped.position as number[])[0]).toBeLessThan(0);
  });

  it.each([
    ['an unknown action', { action: 'shear', vector: [1, 1] }, 'invalid_action'],
    ['an action that is not text', { action: 3, vector: [1, 1] }, 'invalid_action'],
    ['a rotation without an angle', { action: 'rotate' }, 'invalid_transform'],
    ['an angle that is text', { action: 'rotate', angle: '90' }, 'invalid_transform'],
    ['a zero scale factor', { action: 'scale', factor: 0 }, 'invalid_factor'],
    ['a scale without a factor', { action: 'scale' }, 'invalid_factor'],
    ['a move without a vector', { action: 'move' }, 'invalid_point'],
    ['a vector of one number', { action: 'move', vector: [1] }, 'invalid_point'],
    ['a copy vector with NaN-like text', { action: 'copy', vector: ['x', 1] }, 'invalid_point'],
    [
      'a rotation center of four numbers',
      { action: 'rotate', angle: 5, center: [1, 2, 3, 4] },
      'invalid_point',
    ],
    ['a mirror with one point', { action: 'mirror', points: [[0, 0]] }, 'invalid_axis'],
    ['a mirror with a bad point', { action: 'mirror', points: [[0, 0], 'up'] }, 'invalid_axis'],
    [
      'a mirror of one point twice',
      {
        action: 'mirror',
        axis: [
          [1, 1],
          [1, 1],
        ],
      },
      'invalid_axis',
    ],
  ])('refuses %s and changes nothing', async (_, fields, code) => {
    const [line] = (await h.create([LINE])) as [string];
    const before = await snapshot();
    const answer = await h.call('entities_transform', { document_id: doc, handles: [line], ...fields });
    await refusedWithNothingChanged(answer, code, before);
  });

  it('an unknown handle is entity_absent; nothing moves', async () => {
    const [line] = (await h.create([LINE])) as [string];
    const before = await snapshot();
    const answer = await h.call('entities_transform', {
      document_id: doc,
      handles: [line, 'BEEF'],
      action: 'move',
      vector: [1, 1],
    });
    await refusedWithNothingChanged(answer, 'entity_absent', before);
  });

  it('an entity kept raw (a REGION, an ACIS body) stays put and is listed not_transformable while the others move', async () => {
    const path = await writeText(scratch.path('region.dxf'), opaqueDxf());
    const opened = await h.ok('open', { path });
    doc = opened.document_id as number;
    const hatch = await one('2C', 'summary');
    expect(hatch.type).toBe('Raw');
    const hatchBefore = await one('2C');
    const listed = [
      { handle: '2C', type: 'REGION', reason: 'REGION is kept as read and cannot be transformed' },
    ];

    const moved = await h.ok('entities_transform', {
      document_id: doc,
      handles: ['2A', '2C'],
      vector: [1, 0],
    });
    expect(moved.result).toMatchObject({
      action: 'move',
      affected: 1,
      handles: ['2A'],
      not_transformable: listed,
    });
    close((await one('2A')).start, [1, 0, 0]);
    expect(await one('2C')).toEqual(hatchBefore);

    const copied = await h.ok('entities_transform', {
      document_id: doc,
      handles: ['2C', '2B'],
      action: 'copy',
      vector: [0, 5],
    });
    const result = resultOf<{ created: string[]; affected: number; not_transformable: unknown }>(copied);
    expect(result).toMatchObject({ affected: 1, not_transformable: listed });
    expect(result.created).toHaveLength(1);
    close((await one(result.created[0] as string)).center, [3, 9, 0]);

    // Nothing that can move: answered with the list, the drawing and its revision unchanged.
    const before = await snapshot();
    const none = await h.ok('entities_transform', { document_id: doc, handles: ['2C'], vector: [1, 1] });
    expect(none.result).toMatchObject({ affected: 0, handles: [], created: [], not_transformable: listed });
    expect(await snapshot()).toEqual(before);
  });

  it('with atomic: true an entity that cannot be transformed refuses the request, naming it, and nothing moves', async () => {
    const path = await writeText(scratch.path('region-atomic.dxf'), opaqueDxf());
    doc = (await h.ok('open', { path })).document_id as number;
    const before = await snapshot();
    for (const action of ['move', 'copy', 'rotate']) {
      const answer = await h.call('entities_transform', {
        document_id: doc,
        handles: ['2A', '2C', '2B'],
        action,
        vector: [1, 0],
        angle: 90,
        atomic: true,
      });
      await refusedWithNothingChanged(answer, 'not_transformable', before);
      expect(answer.error).toMatch(/REGION 2C/);
      expect((answer as unknown as { not_transformable: unknown }).not_transformable).toEqual([
        { handle: '2C', type: 'REGION', reason: 'REGION is kept as read and cannot be transformed' },
      ]);
    }
    const bad = await h.call('entities_transform', {
      document_id: doc,
      handles: ['2A'],
      vector: [1, 0],
      atomic: 'yes',
    });
    await refusedWithNothingChanged(bad, 'invalid_request', before);
    // All of them transformable: atomic moves them as any request does.
    await h.ok('entities_transform', {
      document_id: doc,
      handles: ['2A', '2B'],
      vector: [1, 0],
      atomic: true,
    });
    close((await one('2A')).start, [1, 0, 0]);
  });
});

describe('entities_copy_to', () => {
  it('copies into another open document with fresh handles there, creating layers it lacks', async () => {
    const source = doc;
    const [line, circle] = (await h.create([
      { ...LINE, layer: 'ONLY_HERE', color: 3 },
      { type: 'Circle', center: [4, 4], radius: 1 },
    ])) as [string, string];
    const target = await h.newDoc();
    await h.create([LINE], target);
    await h.ok('activate', { document_id: source });
    const answer = await h.ok('entities_copy_to', { document_id: target, handles: [line, circle] });
    const result = resultOf<{
      count: number;
      handles: string[];
      document_id: number;
      layers_created: string[];
    }>(answer);
    expect(result.count).toBe(2);
    expect(result.document_id).toBe(target);
    expect(result.layers_created).toEqual(['ONLY_HERE']);
    expect(answer.document_id).toBe(target);
    expect(answer.changes?.map((c) => c.kind)).toEqual(['created', 'created']);
    // The source is unchanged and stays active; the target got one step.
    expect(answer.state.document_id).toBe(source);
    expect(answer.state.documents.find((d) => d.id === source)?.revision).toBe(1);
    expect(answer.state.documents.find((d) => d.id === target)?.revision).toBe(2);
    const originals = await entities({ detail: 'full' });
    await h.ok('activate', { document_id: target });
    const there = await entities({ detail: 'full', handles: result.handles });
    expect(there.map((e) => e.handle)).toEqual(result.handles);
    const strip = ({ handle: _h, ...rest }: Geometry) => rest;
    expect(there.map(strip)).toEqual(originals.map(strip));
    // Its handles are the target's own: unique there.
    const all = (await entities()).map((e) => e.handle);
    expect(new Set(all).size).toBe(3);
  });

  it('source_document_id names the source; the target need not be active', async () => {
    const source = doc;
    const [line] = (await h.create([LINE])) as [string];
    const target = await h.newDoc();
    const third = await h.newDoc();
    const answer = await h.ok('entities_copy_to', {
      document_id: target,
      source_document_id: source,
      handles: [line],
    });
    expect(resultOf<{ count: number }>(answer).count).toBe(1);
    expect(answer.state.document_id).toBe(third);
  });

  it('refuses copying into the same document, unknown handles and unknown sources', async () => {
    const source = doc;
    const [line] = (await h.create([LINE])) as [string];
    const target = await h.newDoc();
    await h.ok('activate', { document_id: source });
    const revisions = async () =>
      (await h.raw({ protocol: 1, op: 'state' })).state.documents.map((d) => d.revision);
    const before = await revisions();

    expect((await h.call('entities_copy_to', { document_id: source, handles: [line] })).code).toBe(
      'invalid_target',
    );
    expect((await h.call('entities_copy_to', { document_id: target, handles: ['DEAD'] })).code).toBe(
      'entity_absent',
    );
    expect(
      (await h.call('entities_copy_to', { document_id: target, source_document_id: 77, handles: [line] }))
        .code,
    ).toBe('document_required');
    expect((await h.call('entities_copy_to', { document_id: target, handles: 'x' })).code).toBe(
      'invalid_handles',
    );
    expect(await revisions()).toEqual(before);
  });
});

describe('set_properties', () => {
  it('sets layer (creating it), color, linetype and lineweight on several entities in one step', async () => {
    const [a, b] = (await h.create([LINE, { type: 'Circle', center: [0, 0], radius: 1 }])) as [
      string,
      string,
    ];
    const answer = await h.ok('set_properties', {
      document_id: doc,
      handles: [a, b],
      properties: { layer: 'RED', color: 1, linetype: 'CENTER', lineweight: 25 },
    });
    expect(resultOf<{ affected: number; layers_created: string[] }>(answer)).toEqual({
      affected: 2,
      layers_created: ['RED'],
    });
    expect(answer.changes).toEqual([
      { handle: a, kind: 'modified' },
      { handle: b, kind: 'modified' },
    ]);
    expect(answer.state.revision).toBe(2);
    for (const handle of [a, b]) {
      expect(await one(handle)).toMatchObject({ layer: 'RED', color: 1, linetype: 'CENTER', lineweight: 25 });
    }
    expect(await layerNames()).toContain('RED');
  });

  it('sets geometry: a line end, a circle radius; xdata is kept', async () => {
    const [line, circle] = (await h.create([LINE, { type: 'Circle', center: [0, 0], radius: 1 }])) as [
      string,
      string,
    ];
    await h.ok('xdata_set', {
      document_id: doc,
      handles: [line],
      app: 'KEEP',
      data: [{ code: 1000, value: 'x' }],
    });
    await h.ok('set_properties', { document_id: doc, handles: [line], properties: { end: [4, 4, 4] } });
    await h.ok('set_properties', {
      document_id: doc,
      handles: [circle],
      properties: { radius: 7, center: [1, 1] },
    });
    expect(await one(line)).toMatchObject({ start: [0, 0, 0], end: [4, 4, 4] });
    expect(await one(circle)).toMatchObject({ center: [1, 1, 0], radius: 7 });
    const items = (await h.raw({ protocol: 1, op: 'xdata_get', handles: [line] })).items;
    expect(items).toEqual([
      { handle: line, xdata: { KEEP: ['x'] }, data: { KEEP: [{ code: 1000, value: 'x' }] } },
    ]);
  });

  it.each([
    ['a bad point', { end: [1] }, 'invalid_point'],
    ['a point of text', { start: 'origin' }, 'invalid_point'],
    ['a colour of 257', { color: 257 }, 'invalid_property'],
    ['a colour name it does not know', { color: 'red' }, 'invalid_property'],
    ['a lineweight of 7', { lineweight: 7 }, 'invalid_property'],
    ['an undefined linetype', { linetype: 'WAVY' }, 'invalid_property'],
    ['a layer name with a slash', { layer: 'a/b' }, 'invalid_property'],
    ['a property lines do not have', { radius: 3 }, 'invalid_property'],
    ['an unknown property', { shininess: 3 }, 'invalid_property'],
    ['the handle', { handle: 'FF' }, 'invalid_property'],
    ['the type', { type: 'Circle' }, 'invalid_property'],
  ])('refuses %s and changes nothing', async (_, properties, code) => {
    const [line] = (await h.create([LINE])) as [string];
    const before = await snapshot();
    const answer = await h.call('set_properties', { document_id: doc, handles: [line], properties });
    await refusedWithNothingChanged(answer, code, before);
  });

  it('refuses no properties, unknown handles, and a bad one among good ones (all or nothing)', async () => {
    const [a, b] = (await h.create([LINE, { type: 'Circle', center: [0, 0], radius: 1 }])) as [
      string,
      string,
    ];
    const before = await snapshot();
    for (const [fields, code] of [
      [{ handles: [a] }, 'invalid_property'],
      [{ handles: [a], properties: {} }, 'invalid_property'],
      [{ handles: [a], properties: [1] }, 'invalid_property'],
      [{ handles: [a, 'DEAD'], properties: { color: 2 } }, 'entity_absent'],
      [{ handles: 'nope', properties: { color: 2 } }, 'invalid_handles'],
      // `radius` is the circle's, not the line's: the line refuses and the circle is not changed either.
      [{ handles: [b, a], properties: { radius: 5 } }, 'invalid_property'],
    ] as const) {
      const answer = await h.call('set_properties', { document_id: doc, ...fields });
      await refusedWithNothingChanged(answer, code, before);
    }
  });

  it('a raw entity takes layer and colour, not geometry', async () => {
    const path = await writeText(scratch.path('raw-props.dxf'), handMadeDxf());
    doc = (await h.ok('open', { path })).document_id as number;
    await h.ok('set_properties', {
      document_id: doc,
      handles: ['2C'],
      properties: { layer: 'FILL', color: 5 },
    });
    expect(await one('2C')).toMatchObject({ layer: 'FILL', color: 5 });
    const answer = await h.call('set_properties', {
      document_id: doc,
      handles: ['2C'],
      properties: { elevation: 1 },
    });
    expect(answer.code).toBe('invalid_property');
  });
});

describe('property', () => {
  it('reads one property without a step, and sets one with a step', async () => {
    const [circle] = (await h.create([{ type: 'Circle', center: [0, 0], radius: 1 }])) as [string];
    const before = (await h.events()).length;
    const read = await h.ok('property', { document_id: doc, handle: circle.toLowerCase(), name: 'radius' });
    expect(read.result).toEqual({ handle: circle, name: 'radius', value: 1 });
    expect(read.state.revision).toBe(1);
    expect((await h.events()).slice(before).map((e) => e.type)).toEqual(['OperationAnswered']);

    const set = await h.ok('property', { document_id: doc, handle: circle, name: 'radius', value: 4 });
    expect(set.result).toEqual({ handle: circle, name: 'radius', value: 4, affected: 1 });
    expect(set.changes).toEqual([{ handle: circle, kind: 'modified' }]);
    expect(set.state.revision).toBe(2);
    const layer = await h.ok('property', { document_id: doc, handle: circle, property: 'layer', value: 'P' });
    expect(resultOf<{ value: string }>(layer).value).toBe('P');
    expect(await one(circle)).toMatchObject({ radius: 4, layer: 'P' });
    const lineweight = await h.ok('property', {
      document_id: doc,
      handle: circle,
      name: 'lineweight',
      value: 13,
    });
    expect(resultOf<{ value: number }>(lineweight).value).toBe(13);
  });

  it('refuses a missing handle or name, unknown properties and entities, and bad values', async () => {
    const [line] = (await h.create([LINE])) as [string];
    const before = await snapshot();
    for (const [fields, code] of [
      [{ name: 'layer' }, 'invalid_handles'],
      [{ handle: 5, name: 'layer' }, 'invalid_handles'],
      [{ handle: line }, 'invalid_property'],
      [{ handle: line, name: 'radius' }, 'invalid_property'],
      [{ handle: 'FEED', name: 'layer' }, 'entity_absent'],
      [{ handle: line, name: 'start', value: [1, 2, 3, 4] }, 'invalid_point'],
      [{ handle: line, name: 'color', value: -1 }, 'invalid_property'],
      [{ handle: line, name: 'radius', value: 2 }, 'invalid_property'],
    ] as const) {
      const answer = await h.call('property', { document_id: doc, ...fields });
      await refusedWithNothingChanged(answer, code, before);
    }
  });
});

describe('query through the dispatcher', () => {
  let hs: string[];
  beforeEach(async () => {
    hs = await h.create([
      { type: 'Line', start: [0, 0], end: [10, 0], layer: 'A' },
      { type: 'Circle', center: [5, 5], radius: 2, layer: 'B' },
      { type: 'Line', start: [5, -5], end: [5, 5], layer: 'a' },
      { type: 'Text', value: 'Label one', position: [20, 20] },
    ]);
  });

  it('type, layer (case-insensitive), handles, and the default geometry detail', async () => {
    expect((await entities({ type: 'line' })).map((e) => e.handle)).toEqual([hs[0], hs[2]]);
    expect((await entities({ type: 'Circle,Text' })).map((e) => e.handle)).toEqual([hs[1], hs[3]]);
    expect((await entities({ layer: 'A' })).map((e) => e.handle)).toEqual([hs[0], hs[2]]);
    const [first] = await entities({ handles: [hs[0]] });
    expect(first).toEqual({
      handle: hs[0],
      type: 'Line',
      layer: 'A',
      start: [0, 0, 0],
      end: [10, 0, 0],
      text: null,
      value: null,
    });
  });

  it('detail summary and full (bounds, 3-number points, every property); fields', async () => {
    expect(await entities({ detail: 'summary', handles: [hs[1]] })).toEqual([
      { handle: hs[1], type: 'Circle', layer: 'B' },
    ]);
    const [circle] = await entities({ detail: 'full', handles: [hs[1]] });
    expect(circle).toMatchObject({
      center: [5, 5, 0],
      radius: 2,
      color: 256,
      linetype: 'BYLAYER',
      space: '*Model_Space',
      bounds: { min: [3, 3, 0], max: [7, 7, 0] },
    });
    expect(await entities({ fields: ['handle', 'radius'], type: 'circle' })).toEqual([
      { handle: hs[1], radius: 2 },
    ]);
  });

  it('offset and limit page with returned and next_offset; limits are checked', async () => {
    const page = await query({ limit: 3 });
    expect(page).toMatchObject({ count: 4, returned: 3, next_offset: 3 });
    const rest = await query({ offset: '3', limit: '3' });
    expect(rest).toMatchObject({ count: 4, returned: 1, next_offset: null });
    expect((rest.entities as Geometry[])[0]?.handle).toBe(hs[3]);
    expect((await query({ limit: 10_001 })).code).toBe('invalid_query');
    expect((await query({ offset: -1 })).code).toBe('invalid_query');
    expect((await query({ detail: 'everything' })).code).toBe('invalid_query');
  });

  it('bounds, near, contains_point and intersections', async () => {
    expect((await entities({ bounds: [4, 4, 8, 8] })).map((e) => e.handle).sort()).toEqual(
      [hs[1], hs[2]].sort(),
    );
    const near = await entities({ near: [0, 0], limit: 2 });
    expect(near.map((e) => [e.handle, e.distance])).toEqual([
      [hs[0], 0],
      [hs[2], 5],
    ]);
    expect(near[1]?.closest_point).toEqual([5, 0, 0]);
    expect((await entities({ contains_point: [10, 0] })).map((e) => e.handle)).toEqual([hs[0]]);
    const crossing = await query({ intersections: [hs[0], hs[2]] });
    expect(crossing.points).toEqual([[5, 0, 0]]);
    expect((await query({ bounds: [1, 2, 3] })).code).toBe('invalid_point');
    expect((await query({ near: 'here' })).code).toBe('invalid_point');
    expect((await query({ handles: ['FFFF'] })).code).toBe('entity_absent');
  });

  it('where filters by JSON pointer; malformed filters are invalid_where', async () => {
    expect(
      (await entities({ where: [{ path: '/radius', op: 'gt', value: 1 }] })).map((e) => e.handle),
    ).toEqual([hs[1]]);
    expect(
      (await entities({ where: [{ path: '/value', op: 'starts_with', value: 'Label' }] })).map(
        (e) => e.handle,
      ),
    ).toEqual([hs[3]]);
    expect(
      (await entities({ where: '[{"path":"/layer","op":"in","value":["B","Z"]}]' })).map((e) => e.handle),
    ).toEqual([hs[1]]);
    for (const where of [
      'not json',
      { path: '/radius' },
      [{ path: 'radius', op: 'eq', value: 1 }],
      [{ path: '/radius', op: 'like', value: 1 }],
      [{ op: 'eq', value: 1 }],
    ]) {
      const answer = await query({ where });
      expect(answer.code, JSON.stringify(where)).toBe('invalid_where');
    }
  });
});
