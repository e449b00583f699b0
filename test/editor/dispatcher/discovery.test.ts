/**
 * The ops of the reference editor's dispatcher chronicle gained (docs/editor.md): `hello`, `select`,
 * `measure`, `entities`, `commands`, `history`, `capture` (a PNG: docs/editor.md#capture), and the top-level fields of `state`,
 * `layers`, `header` and `records` its clients read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, resultOf, startHarness } from './helpers.js';

let h: Harness;
let doc: number;
beforeEach(async () => {
  h = await startHarness();
  doc = await h.newDoc();
});
afterEach(async () => {
  await h.close();
});

const read = (op: string, fields: Record<string, unknown> = {}) => h.raw({ protocol: 1, op, ...fields });

describe('state and hello', () => {
  it('answer the state at the top level too, in the reference editor shapes', async () => {
    const [a, b] = await h.create([
      { type: 'Line', start: [0, 0], end: [1, 0] },
      { type: 'Line', start: [0, 1], end: [1, 1] },
    ]);
    await h.ok('select', { handles: [b, a] });
    for (const op of ['state', 'hello']) {
      const answer = await read(op);
      expect(answer, op).toMatchObject({
        ok: true,
        protocol: 1,
        mode: 'headless',
        session_id: h.session.sessionId,
        version: '9.9.9-test',
        document_id: doc,
        // One create; a selection is no undo step.
        revision: 1,
        documents: [{ id: doc, title: 'Drawing1.dxf', path: null, dirty: true, revision: 1 }],
        selection: [b, a],
        operation: null,
      });
      expect(answer.hand_seed).toBe(
        h.session.state.documents[String(doc)]?.model.handseed.toString(16).toUpperCase(),
      );
      // The `state` object keeps chronicle's fuller forms.
      expect(answer.state.selection).toEqual({ document_id: doc, handles: [b, a], count: 2 });
    }
  });
});

describe('select', () => {
  it('selects handles in order, by type and layer, clears; refuses unknown handles', async () => {
    const [line, circle, wall] = await h.create([
      { type: 'Line', start: [0, 0], end: [1, 0] },
      { type: 'Circle', center: [0, 0], radius: 1 },
      { type: 'Line', start: [0, 5], end: [1, 5], layer: 'WALLS' },
    ]);
    const byHandles = await h.ok('select', { handles: [circle, line] });
    expect(byHandles.result).toEqual({ selected: 2, handles: [circle, line] });
    expect((await h.ok('select', { type: 'LINE' })).result).toEqual({ selected: 2, handles: [line, wall] });
    expect((await h.ok('select', { layer: 'walls' })).result).toEqual({ selected: 1, handles: [wall] });
    expect((await h.ok('select', { type: 'line', layer: '0' })).result).toEqual({
      selected: 1,
      handles: [line],
    });
    const cleared = await h.ok('select', { clear: true, handles: [line] });
    expect(cleared.result).toEqual({ selected: 0, handles: [] });
    expect((await h.call('select', { handles: ['FFFF'] })).code).toBe('entity_absent');
    // Not an undo step: the selection is recorded, the drawing's revision stays.
    expect(await h.revision()).toBe(1);
    const got = resultOf<{ entities: Array<{ handle: string }> }>(await read('get_selection'));
    expect(got.entities).toEqual([]);
  });
});

describe('measure', () => {
  it('answers length, closure and area of curves, bounds of every entity (the selection by default)', async () => {
    const [line, circle, square, arc, text] = await h.create([
      { type: 'Line', start: [0, 0], end: [3, 4] },
      { type: 'Circle', center: [0, 0], radius: 2 },
      {
        type: 'LwPolyline',
        vertices: [
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 10],
        ],
        closed: true,
      },
      { type: 'Arc', center: [0, 0], radius: 1, start_angle: 0, end_angle: 90 },
      { type: 'Text', value: 'X', position: [0, 0] },
    ]);
    const answer = await read('measure', { handles: [line, circle, square, arc, text] });
    const m = answer.measurements as Array<{
      handle: string;
      type: string;
      bounds: unknown;
      curve: { length: number; closed: boolean; area: number | null } | null;
    }>;
    expect(m.map((x) => x.handle)).toEqual([line, circle, square, arc, text]);
    expect(m[0]?.curve).toEqual({ bounded: true, length: 5, closed: false, area: null });
    expect(m[1]?.curve?.length).toBeCloseTo(4 * Math.PI, 9);
    expect(m[1]?.curve?.area).toBeCloseTo(4 * Math.PI, 9);
    expect(m[2]?.curve).toMatchObject({ length: 40, closed: true, area: 100 });
    expect(m[3]?.curve?.length).toBeCloseTo(Math.PI / 2, 9);
    expect(m[4]).toMatchObject({ type: 'Text', curve: null, bounds: expect.any(Object) });
    expect(m[0]?.bounds).toEqual({ min: [0, 0, 0], max: [3, 4, 0] });
    // A bulged closed polyline: the half-disc on a 2-unit chord adds π/2 to the square's area.
    const [bulged] = await h.create([
      {
        type: 'LwPolyline',
        vertices: [
          [0, 0],
          [2, 0],
          [2, 2, 1],
          [0, 2],
        ],
        closed: true,
      },
    ]);
    const [one] = (await read('measure', { handles: [bulged] })).measurements as Array<{
      curve: { area: number };
    }>;
    expect(one?.curve.area).toBeCloseTo(4 + Math.PI / 2, 9);
    await h.ok('select', { handles: [circle] });
    expect(((await read('measure')).measurements as unknown[]).length).toBe(1);
    expect((await read('measure', { handles: ['FFFF'] })).code).toBe('entity_absent');
  });
});

describe('entities, commands, history, capture', () => {
  it('entities counts what a plain query lists, in all and by type', async () => {
    const parts = await h.create([
      { type: 'Line', start: [0, 0], end: [1, 0] },
      { type: 'Circle', center: [0, 0], radius: 1 },
    ]);
    await h.ok('block_define', { document_id: doc, name: 'B', handles: parts });
    await h.create([{ type: 'Point', location: [5, 5] }]);
    const summary = await read('entities');
    expect(summary).toMatchObject({ total: 4, by_type: { Line: 1, Circle: 1, Insert: 1, Point: 1 } });
    expect(summary.total).toBe((await read('query', { limit: 0 })).count);
  });

  it('commands lists the command line and describes one; unknown_command otherwise', async () => {
    const list = await read('commands');
    expect(list).toMatchObject({ ok: true, count: 14, next_offset: null });
    expect(list.commands).toEqual(expect.arrayContaining(['LINE', 'CIRCLE', 'MOVE', 'UNDO']));
    expect((await read('commands', { search: 'ci' })).commands).toEqual(['CIRCLE']);
    const paged = await read('commands', { limit: 2 });
    expect(paged).toMatchObject({ returned: 2, next_offset: 2 });
    const one = await read('commands', { name: 'l' });
    expect(one.command).toMatchObject({
      name: 'LINE',
      category: 'create',
      batch: { op: 'run', examples: expect.arrayContaining(['LINE 0,0 10,10']) },
    });
    // Every example runs as it says.
    for (const example of (one.command as { batch: { examples: string[] } }).batch.examples)
      expect((await h.call('run', { cmd: example })).ok, example).toBe(true);
    expect((await read('commands', { name: 'NOT_A_COMMAND' })).code).toBe('unknown_command');
  });

  it('history lists the operations answered, oldest first, failures as errors', async () => {
    await h.create([{ type: 'Point', location: [0, 0] }]);
    await h.call('entities_delete', { document_id: doc, handles: ['FFFF'] });
    const entries = (await read('history')).entries as Array<Record<string, unknown>>;
    expect(entries.map((e) => [e.op, e.status, e.kind])).toEqual([
      ['new', 'completed', 'Operation'],
      ['entities_create', 'completed', 'Operation'],
      ['entities_delete', 'failed', 'Error'],
    ]);
    expect(String(entries[2]?.text)).toMatch(/entity FFFF does not exist/);
    expect(((await read('history', { limit: 1 })).entries as unknown[]).length).toBe(1);
  });

  it('capture draws a PNG, headless and GUI-hosted alike; its arguments are checked', async () => {
    await h.create([{ type: 'Line', start: [0, 0], end: [10, 0] }]);
    const gui = await startHarness({ gui: true });
    try {
      await gui.newDoc();
      await gui.create([{ type: 'Circle', center: [0, 0], radius: 5 }]);
      for (const harness of [h, gui]) {
        const answer = await harness.raw({ protocol: 1, op: 'capture', width: 256 });
        expect(answer).toMatchObject({
          ok: true,
          result: { format: 'png', mime_type: 'image/png', width: 256, entities: 1 },
        });
        const png = Buffer.from(String((answer.result as { data: string }).data), 'base64');
        expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      }
    } finally {
      await gui.close();
    }
    expect(await read('capture', { width: 100 })).toMatchObject({ ok: false, code: 'invalid_width' });
    expect(await read('capture', { window: [0, 0, 0, 5] })).toMatchObject({
      ok: false,
      code: 'invalid_point',
    });
    expect(await read('capture', { layout: 'Nope' })).toMatchObject({ ok: false, code: 'layout_missing' });
    expect(await read('capture', { background: 'teal' })).toMatchObject({
      ok: false,
      code: 'invalid_background',
    });
  });
});

describe('layers, header, records at the top level', () => {
  it('answer what the reference editor puts there', async () => {
    await h.create([{ type: 'Point', location: [0, 0], layer: 'MARKS' }]);
    const layers = await read('layers');
    expect(layers).toMatchObject({ current: '0', count: (layers.layers as unknown[]).length });
    expect((layers.layers as Array<{ name: string }>).map((l) => l.name)).toContain('MARKS');
    const header = await read('header');
    expect(header).toMatchObject({ current_layer: '0', ltscale: 1, pdmode: 0, insertion_units: 4 });
    const records = await read('records', { collection: 'tables', type: 'LTYPE', limit: 2 });
    expect(records).toMatchObject({ collection: 'tables', returned: 2, next_offset: 2 });
    expect(records.records).toEqual(resultOf<{ records: unknown[] }>(records).records);
  });
});
