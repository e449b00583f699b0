import { readFileSync } from 'node:fs';
/**
 * xdata, blocks, groups, selection sets and the selection, layouts and page setups, system variables,
 * and the layers / header / records reads, through the dispatcher.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Reply, resultOf, scratchDir, startHarness } from './helpers.js';

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

const LINE = { type: 'Line', start: [0, 0], end: [10, 0] };
const read = (op: string, fields: Record<string, unknown> = {}) => h.raw({ protocol: 1, op, ...fields });
/** Each entity's xdata items with their group codes (`data`; `xdata` answers the values alone). */
const xdataOf = async (handles: string[], app?: string) => {
  const answer = await read('xdata_get', { handles, ...(app ? { app } : {}) });
  expect(answer.ok, answer.error).toBe(true);
  const items = answer.items as Array<{
    handle: string;
    data: Record<string, Array<{ code: number; value: unknown }>>;
  }>;
  return items.map(({ handle, data }) => ({ handle, xdata: data }));
};
/** The answer failed with `code` and the document's revision did not move. */
async function refused(answer: Reply, code: string, revision: number) {
  expect(answer.ok, JSON.stringify(answer.result)).toBe(false);
  expect(answer.code).toBe(code);
  expect(await h.revision()).toBe(revision);
}
const recordsOf = async (fields: Record<string, unknown>) =>
  resultOf<{
    records: Array<{
      type: string;
      handle: string;
      collection: string;
      tags: Array<{ code: number; value: string }>;
    }>;
    count: number;
    returned: number;
    next_offset: number | null;
  }>(await read('records', fields));
const nameOf = (record: { tags: Array<{ code: number; value: string }> }) =>
  record.tags.find((t) => t.code === 2)?.value;
/** Saves the document and opens the file as a new one (made active); its id. */
async function saveAndReopen(name: string): Promise<number> {
  const path = scratch.path(name);
  await h.ok('save', { document_id: doc, path });
  return (await h.ok('open', { path })).document_id as number;
}

describe('xdata_set and xdata_get', () => {
  const EVERY_CODE = [
    { code: 1000, value: 'a string' },
    { code: 1002, value: '{' },
    { code: 1003, value: '0' },
    { code: 1004, value: '0aFF10' },
    { code: 1005, value: '1f' },
    { code: 1002, value: '}' },
    { code: 1010, value: [1, 2, 3] },
    { code: 1011, value: [4, 5] },
    { code: 1012, value: [0.5, 0.25, -1] },
    { code: 1013, value: [7, 8, 9] },
    { code: 1040, value: 2.5 },
    { code: 1041, value: -3.75 },
    { code: 1042, value: 1e-3 },
    { code: 1070, value: -32768 },
    { code: 1071, value: 2147483647 },
  ];

  it('sets every allowed group code, reads it back normalized, registers the APPID on save', async () => {
    const [a, b] = (await h.create([LINE, LINE])) as [string, string];
    const answer = await h.ok('xdata_set', {
      document_id: doc,
      handles: [a, b],
      app: 'chronicle',
      data: EVERY_CODE,
    });
    expect(answer.result).toEqual({
      updated: 2,
      affected: 2,
      app: 'chronicle',
      items: EVERY_CODE.length,
      cleared: false,
    });
    expect(answer.changes).toEqual([
      { handle: a, kind: 'modified' },
      { handle: b, kind: 'modified' },
    ]);
    const expected = EVERY_CODE.map((item) => {
      if (item.code === 1004 || item.code === 1005)
        return { ...item, value: String(item.value).toUpperCase() };
      if (item.code === 1011) return { ...item, value: [4, 5, 0] };
      return item;
    });
    expect(await xdataOf([a, b])).toEqual([
      { handle: a, xdata: { chronicle: expected } },
      { handle: b, xdata: { chronicle: expected } },
    ]);
    // `xdata.<app>` is the values in order, as the reference editor answers them (binary as { binary }),
    // under the name as first given, whatever the case asked with.
    const values = (await read('xdata_get', { handles: [a], app: 'CHRONICLE' })).items as Array<{
      xdata: Record<string, unknown[]>;
    }>;
    expect(values[0]?.xdata.chronicle).toEqual(
      expected.map((item) => (item.code === 1004 ? { binary: item.value } : item.value)),
    );

    // The APPID is in the saved file's APPID table, and the xdata survives save and open.
    doc = await saveAndReopen('xdata.dxf');
    const appids = (await recordsOf({ type: 'APPID' })).records.map(nameOf);
    expect(appids).toContain('chronicle');
    expect(await xdataOf([a])).toEqual([{ handle: a, xdata: { chronicle: expected } }]);
  });

  it('keeps other applications, filters by app on read, and empty data clears one app', async () => {
    const [a] = (await h.create([LINE])) as [string];
    await h.ok('xdata_set', {
      document_id: doc,
      handles: [a],
      app: 'ONE',
      data: [{ code: 1000, value: '1' }],
    });
    await h.ok('xdata_set', { document_id: doc, handles: [a], app: 'TWO', data: [{ code: 1070, value: 2 }] });
    expect(await xdataOf([a], 'two')).toEqual([{ handle: a, xdata: { TWO: [{ code: 1070, value: 2 }] } }]);
    expect(await xdataOf([a], 'THREE')).toEqual([{ handle: a, xdata: {} }]);
    const cleared = await h.ok('xdata_set', { document_id: doc, handles: [a], app: 'ONE', data: [] });
    expect(resultOf<{ cleared: boolean; items: number }>(cleared)).toMatchObject({ cleared: true, items: 0 });
    expect(await xdataOf([a])).toEqual([{ handle: a, xdata: { TWO: [{ code: 1070, value: 2 }] } }]);
    // No data at all clears too.
    await h.ok('xdata_set', { document_id: doc, handles: [a], app: 'TWO' });
    expect(await xdataOf([a])).toEqual([{ handle: a, xdata: {} }]);
  });

  it.each([
    ['the APPID code 1001', [{ code: 1001, value: 'X' }]],
    ['a code below the xdata range', [{ code: 999, value: 'x' }]],
    ['code 1006', [{ code: 1006, value: 'x' }]],
    ['code 1072', [{ code: 1072, value: 1 }]],
    ['a code as text', [{ code: '1000', value: 'x' }]],
    ['an item that is not an object', ['x']],
    ['a number for a string', [{ code: 1000, value: 5 }]],
    ['a string over 255 characters', [{ code: 1000, value: 'x'.repeat(256) }]],
    ['a control string that is not a brace', [{ code: 1002, value: '(' }]],
    ['binary data that is not hex', [{ code: 1004, value: 'XYZ0' }]],
    ['binary data of half a byte', [{ code: 1004, value: 'ABC' }]],
    ['a handle that is not hex', [{ code: 1005, value: 'G1' }]],
    ['a real that is text', [{ code: 1040, value: '2.5' }]],
    ['a 16-bit integer out of range', [{ code: 1070, value: 32768 }]],
    ['a 32-bit integer that is not whole', [{ code: 1071, value: 1.5 }]],
    ['data that is not a list', { code: 1000, value: 'x' }],
  ])('refuses %s with invalid_xdata', async (_, data) => {
    const [a] = (await h.create([LINE])) as [string];
    const answer = await h.call('xdata_set', { document_id: doc, handles: [a], app: 'APP', data });
    await refused(answer, 'invalid_xdata', 1);
    expect(await xdataOf([a])).toEqual([{ handle: a, xdata: {} }]);
  });

  it('a point of one number is invalid_point; bad app names are invalid_xdata; unknown handles entity_absent', async () => {
    const [a] = (await h.create([LINE])) as [string];
    const good = [{ code: 1000, value: 'x' }];
    await refused(
      await h.call('xdata_set', {
        document_id: doc,
        handles: [a],
        app: 'APP',
        data: [{ code: 1010, value: [1] }],
      }),
      'invalid_point',
      1,
    );
    for (const app of ['A/B', 7]) {
      const answer = await h.call('xdata_set', { document_id: doc, handles: [a], app, data: good });
      await refused(answer, 'invalid_xdata', 1);
    }
    for (const app of [undefined, '']) {
      const answer = await h.call('xdata_set', { document_id: doc, handles: [a], app, data: good });
      await refused(answer, 'app_required', 1);
    }
    await refused(
      await h.call('xdata_set', { document_id: doc, handles: [a, 'DEAD'], app: 'APP', data: good }),
      'entity_absent',
      1,
    );
    expect((await read('xdata_get', { handles: ['DEAD'] })).code).toBe('entity_absent');
    expect((await read('xdata_get', {})).code).toBe('invalid_handles');
  });
});

describe('blocks', () => {
  // Blocks are modeled, not raw records: whether one is defined shows in what block_define and
  // block_delete refuse (neither refusal changes anything).
  const defined = async (name: string) =>
    (await h.call('block_define', { document_id: doc, name, handles: [] })).code === 'block_exists';
  const undefinedBlock = async (name: string) =>
    (await h.call('block_delete', { document_id: doc, name })).code === 'block_missing';
  const insertBounds = async (handle: string) => {
    const answer = await read('query', { handles: [handle], detail: 'full' });
    return (answer.entities as Array<{ bounds: { min: number[]; max: number[] } }>)[0]?.bounds;
  };

  it('block_define moves the sources into the block and puts one insert in their place, as BLOCK does', async () => {
    const [line, circle] = (await h.create([LINE, { type: 'Circle', center: [0, 0], radius: 1 }])) as [
      string,
      string,
    ];
    const answer = await h.ok('block_define', {
      document_id: doc,
      name: 'BOX',
      base: [0, 0, 0],
      handles: [line],
    });
    const result = resultOf<{
      block: string;
      insert: string;
      name: string;
      handles: string[];
      count: number;
      replaced: boolean;
    }>(answer);
    expect(result).toMatchObject({ block: 'BOX', name: 'BOX', handles: [line], count: 1, replaced: false });
    // The line keeps its handle and coordinates, now in the block; the insert draws it where it was.
    const [moved] = (await read('query', { handles: [line], detail: 'full' })).entities as Array<
      Record<string, unknown>
    >;
    expect(moved).toMatchObject({ space: 'BOX', start: [0, 0, 0], end: [10, 0, 0] });
    expect(await insertBounds(result.insert)).toEqual({ min: [0, 0, 0], max: [10, 0, 0] });
    expect((await read('query', { type: 'Insert' })).count).toBe(1);
    // A plain query lists block contents too (the reference editor's every entity): line, circle, insert.
    expect((await read('query', { limit: 0 })).count).toBe(3);
    const [insert] = (await h.create([{ type: 'Insert', name: 'BOX', position: [100, 0] }])) as [string];
    expect(await insertBounds(insert)).toEqual({ min: [100, 0, 0], max: [110, 0, 0] });

    // block_exists without replace; replace drops the old contents and every insert, and blocks the circle.
    const again = await h.call('block_define', { document_id: doc, name: 'BOX', handles: [circle] });
    await refused(again, 'block_exists', 3);
    const replaced = await h.ok('block_define', {
      document_id: doc,
      name: 'BOX',
      handles: [circle],
      replace: true,
    });
    const second = resultOf<{ replaced: boolean; erased: number; insert: string }>(replaced);
    expect(second).toMatchObject({ replaced: true, erased: 2 });
    expect((await read('query', { handles: [line] })).code).toBe('entity_absent');
    expect((await read('query', { handles: [insert] })).code).toBe('entity_absent');
    expect((await read('query', { type: 'Insert' })).count).toBe(1);
    expect(await insertBounds(second.insert)).toEqual({ min: [-1, -1, 0], max: [1, 1, 0] });

    // One undo step each: undo brings the line's block and both inserts back, then the line itself.
    await h.ok('undo', { document_id: doc });
    expect((await read('query', { type: 'Insert' })).count).toBe(2);
    expect(await insertBounds(insert)).toEqual({ min: [100, 0, 0], max: [110, 0, 0] });
    await h.ok('redo', { document_id: doc });
    doc = await saveAndReopen('blocks.dxf');
    expect(await defined('BOX')).toBe(true);
    expect(await insertBounds(second.insert)).toEqual({ min: [-1, -1, 0], max: [1, 1, 0] });
  });

  it('block_define at insert_at, undone in one step: the sources go back to their places in the drawing order', async () => {
    const handles = await h.create([
      LINE,
      { type: 'Point', location: [1, 1] },
      LINE,
      { type: 'Point', location: [2, 2] },
    ]);
    const before = (await read('query', {})).entities as Array<{ handle: string }>;
    const answer = await h.ok('block_define', {
      document_id: doc,
      name: 'TWO',
      base: [0, 0],
      insert_at: [50, 0],
      handles: [handles[3], handles[1]],
    });
    const { insert } = resultOf<{ insert: string }>(answer);
    // Moved by insert_at - base: the points show at x + 50.
    expect(await insertBounds(insert)).toEqual({ min: [51, 1, 0], max: [52, 2, 0] });
    await h.ok('undo', { document_id: doc });
    expect((await read('query', {})).entities).toEqual(before);
    const order = h.session.state.documents[String(doc)]?.model.order;
    expect(order).toEqual(handles);
  });

  it('refuses bad names, bad base points, unknown handles and a block containing itself', async () => {
    const [line] = (await h.create([LINE])) as [string];
    await h.ok('block_define', { document_id: doc, name: 'SELF', handles: [line] });
    const [insert] = (await h.create([{ type: 'Insert', name: 'SELF', position: [0, 0] }])) as [string];
    const revision = await h.revision();
    for (const [fields, code] of [
      [{ name: '*U1', handles: [line] }, 'invalid_name'],
      [{ name: '', handles: [line] }, 'name_required'],
      [{ handles: [line] }, 'name_required'],
      [{ name: 'a<b', handles: [line] }, 'invalid_name'],
      [{ name: 'B2', base: [1], handles: [line] }, 'invalid_point'],
      [{ name: 'B2', handles: [line, 'DEAD'] }, 'entity_absent'],
      [{ name: 'SELF', handles: [insert], replace: true }, 'invalid_block'],
    ] as const) {
      await refused(await h.call('block_define', { document_id: doc, ...fields }), code, revision);
    }
  });

  it('block_delete erases the block, its contents and its inserts; block_missing otherwise', async () => {
    const [line] = (await h.create([LINE])) as [string];
    await h.ok('block_define', { document_id: doc, name: 'GONE', handles: [line] });
    await h.create([
      { type: 'Insert', name: 'GONE', position: [0, 0] },
      { type: 'Insert', name: 'GONE', position: [5, 5] },
    ]);
    const answer = await h.ok('block_delete', { document_id: doc, name: 'GONE' });
    // The insert block_define placed and the two made here; the line went into the block and goes with it.
    expect(answer.result).toEqual({ block: 'GONE', name: 'GONE', erased: 3, contents: 1 });
    expect((await read('query', { type: 'Insert' })).count).toBe(0);
    expect((await read('query', { limit: 0 })).count).toBe(0);
    const revision = await h.revision();
    await refused(
      await h.call('entities_create', {
        document_id: doc,
        entities: [{ type: 'Insert', name: 'GONE', position: [0, 0] }],
      }),
      'block_missing',
      revision,
    );
    for (const name of ['GONE', 'NEVER']) {
      await refused(await h.call('block_delete', { document_id: doc, name }), 'block_missing', revision);
    }
    // Layout and other `*` records are the reference editor's block_protected.
    for (const name of ['*Model_Space', '*Paper_Space', '*U1']) {
      await refused(await h.call('block_delete', { document_id: doc, name }), 'block_protected', revision);
    }
    await refused(await h.call('block_delete', { document_id: doc, name: 3 }), 'invalid_name', revision);
    doc = await saveAndReopen('block-deleted.dxf');
    expect(await undefinedBlock('GONE')).toBe(true);
    expect(await h.revision()).toBe(0);
  });
});

describe('group_create', () => {
  it('creates a named group of entities; group_exists for the same name', async () => {
    const [a, b] = (await h.create([LINE, LINE])) as [string, string];
    const answer = await h.ok('group_create', {
      document_id: doc,
      name: 'PAIR',
      handles: [a, b],
      description: 'two',
    });
    const result = resultOf<{ name: string; handle: string; count: number }>(answer);
    expect(result).toMatchObject({ name: 'PAIR', count: 2 });
    expect(result.handle).toMatch(/^[0-9A-F]+$/);
    expect([a, b]).not.toContain(result.handle);
    await refused(
      await h.call('group_create', { document_id: doc, name: 'PAIR', handles: [a] }),
      'group_exists',
      2,
    );
    await refused(
      await h.call('group_create', { document_id: doc, name: 'OTHER', handles: [a, 'DEAD'] }),
      'entity_absent',
      2,
    );
    await refused(
      await h.call('group_create', { document_id: doc, name: '', handles: [a] }),
      'invalid_name',
      2,
    );
    // It is written to the file: the saved OBJECTS name it with its members.
    const path = scratch.path('group.dxf');
    await h.ok('save', { document_id: doc, path });
    const text = await readFile(path, 'utf8');
    expect(text).toMatch(/\n\s*0\nGROUP\n/);
    expect(text).toMatch(/\n\s*3\nPAIR\n/);
    doc = (await h.ok('open', { path })).document_id as number;
    await refused(
      await h.call('group_create', { document_id: doc, name: 'PAIR', handles: [a] }),
      'group_exists',
      0,
    );
  });
});

describe('selection sets and get_selection', () => {
  it('selection_set_save stores handles; load with select makes them the selection; without it, selects none', async () => {
    const [a, b, c] = (await h.create([LINE, { type: 'Text', value: 'T', position: [1, 1] }, LINE])) as [
      string,
      string,
      string,
    ];
    const saved = await h.ok('selection_set_save', { document_id: doc, name: 'S1', handles: [b, a] });
    expect(saved.result).toEqual({ name: 'S1', handles: [b, a], count: 2 });

    const quiet = await h.ok('selection_set_load', { document_id: doc, name: 'S1', select: false });
    expect(quiet.result).toEqual({ name: 'S1', handles: [b, a], selected: 0 });
    expect(quiet.state.selection).toEqual({ document_id: doc, handles: [], count: 0 });

    const loaded = await h.ok('selection_set_load', { document_id: doc, name: 'S1', select: true });
    expect(loaded.result).toEqual({ name: 'S1', handles: [b, a], selected: 2 });
    expect(loaded.state.selection).toEqual({ document_id: doc, handles: [b, a], count: 2 });

    // Entities erased since are left out.
    await h.ok('entities_delete', { document_id: doc, handles: [a] });
    const after = await h.ok('selection_set_load', { document_id: doc, name: 'S1', select: true });
    expect(after.result).toEqual({ name: 'S1', handles: [b], selected: 1 });
    expect(c).toBeDefined();
  });

  it('refuses a missing set, unknown handles and bad names', async () => {
    const [a] = (await h.create([LINE])) as [string];
    await refused(
      await h.call('selection_set_load', { document_id: doc, name: 'NOPE', select: true }),
      'selection_set_missing',
      1,
    );
    await refused(
      await h.call('selection_set_save', { document_id: doc, name: 'S', handles: [a, 'DEAD'] }),
      'entity_absent',
      1,
    );
    await refused(
      await h.call('selection_set_save', { document_id: doc, name: '', handles: [a] }),
      'invalid_name',
      1,
    );
    expect((await h.call('selection_set_load', { document_id: doc, select: true })).code).toBe(
      'selection_set_missing',
    );
  });

  it('get_selection is passive: the same answer on every read, nothing recorded', async () => {
    const [a, b] = (await h.create([LINE, { type: 'Text', value: 'Hi', position: [2, 3], height: 1 }])) as [
      string,
      string,
    ];
    const empty = await read('get_selection');
    expect(empty.status).toBe('completed');
    expect(empty.result).toEqual({ count: 0, entities: [] });

    await h.ok('selection_set_save', { document_id: doc, name: 'S', handles: [b, a] });
    await h.ok('selection_set_load', { document_id: doc, name: 'S', select: true });
    const events = (await h.events()).length;
    const first = await read('get_selection');
    const second = await read('get_selection');
    expect(second).toEqual(first);
    expect((await h.events()).length).toBe(events);
    const result = resultOf<{
      count: number;
      entities: Array<{ handle: string; type: string; text: string | null; bounds: unknown }>;
    }>(first);
    expect(result.count).toBe(2);
    expect(result.entities.map((e) => [e.handle, e.type, e.text])).toEqual([
      [b, 'Text', 'Hi'],
      [a, 'Line', null],
    ]);
    expect(result.entities[1]?.bounds).toEqual({ min: [0, 0, 0], max: [10, 0, 0] });
  });
});

describe('layouts and page setups', () => {
  it('layout_create adds a paper space layout; layout_exists for a name taken (any case)', async () => {
    const answer = await h.ok('layout_create', { document_id: doc, name: 'Sheet A' });
    expect(answer.result).toEqual({ layout: 'Sheet A', layouts: ['Model', 'Layout1', 'Sheet A'] });
    await refused(await h.call('layout_create', { document_id: doc, name: 'sheet a' }), 'layout_exists', 1);
    await refused(await h.call('layout_create', { document_id: doc, name: 'Model' }), 'layout_exists', 1);
    await refused(await h.call('layout_create', { document_id: doc, name: 'a:b' }), 'invalid_name', 1);
    const next = await h.ok('layout_create', { document_id: doc, name: 'Sheet B' });
    expect(resultOf<{ layouts: string[] }>(next).layouts).toEqual(['Model', 'Layout1', 'Sheet A', 'Sheet B']);
    doc = await saveAndReopen('layouts.dxf');
    const again = await h.call('layout_create', { document_id: doc, name: 'Sheet B' });
    expect(again.code).toBe('layout_exists');
  });

  it('page_setup_set sets paper, orientation, fit, center and scale', async () => {
    await h.ok('layout_create', { document_id: doc, name: 'Plot' });
    const answer = await h.ok('page_setup_set', {
      document_id: doc,
      layout: 'plot',
      paper: 'ISO A3',
      orientation: 'portrait',
      center: false,
      scale: '1:50',
    });
    // `paper` is the canonical media name (a short name given becomes it); `paper_name` the short one.
    expect(answer.result).toEqual({
      layout: 'Plot',
      paper: 'ISO_A3_(297.00_x_420.00_MM)',
      paper_name: 'ISO A3',
      orientation: 'portrait',
      center: false,
      scale: { fit: false, numerator: 1, denominator: 50, ratio: [1, 50], text: '1:50' },
    });
    const fit = await h.ok('page_setup_set', {
      document_id: doc,
      layout: 'Plot',
      paper: 'ANSI D',
      fit: true,
    });
    expect(resultOf<{ paper_name: string; scale: { fit: boolean }; orientation: string }>(fit)).toMatchObject(
      {
        paper_name: 'ANSI D',
        orientation: 'portrait',
        scale: { fit: true },
      },
    );
    for (const paper of ['ISO A0', 'ISO A1', 'ISO A2', 'ISO A4', 'ANSI A', 'ANSI B', 'ANSI C', 'ANSI E']) {
      const set = await h.ok('page_setup_set', { document_id: doc, layout: 'Plot', paper });
      expect(resultOf<{ paper_name: string }>(set).paper_name).toBe(paper);
    }
    // A media name given is kept as given (here the landscape one).
    const media = await h.ok('page_setup_set', {
      document_id: doc,
      layout: 'Plot',
      paper: 'ISO_A4_(297.00_x_210.00_MM)',
    });
    expect(resultOf<{ paper: string; paper_name: string }>(media)).toMatchObject({
      paper: 'ISO_A4_(297.00_x_210.00_MM)',
      paper_name: 'ISO A4',
    });
  });

  it('refuses a missing layout, a bad scale, an unknown paper and a bad orientation', async () => {
    await h.ok('layout_create', { document_id: doc, name: 'Plot' });
    for (const [fields, code] of [
      [{ layout: 'Nope', paper: 'ISO A4' }, 'layout_missing'],
      [{ paper: 'ISO A4' }, 'layout_missing'],
      [{ layout: 'Plot', scale: '0:1' }, 'invalid_scale'],
      [{ layout: 'Plot', scale: -2 }, 'invalid_scale'],
      [{ layout: 'Plot', scale: 'huge' }, 'invalid_scale'],
      [{ layout: 'Plot', scale: [1, 2, 3] }, 'invalid_scale'],
      [{ layout: 'Plot', paper: 'ISO A9' }, 'invalid_paper'],
      [{ layout: 'Plot', paper: 'Letter-ish' }, 'invalid_paper'],
      [{ layout: 'Plot', paper: 4 }, 'invalid_paper'],
      [{ layout: 'Plot', orientation: 'sideways' }, 'invalid_orientation'],
    ] as const) {
      await refused(await h.call('page_setup_set', { document_id: doc, ...fields }), code, 1);
    }
  });
});

describe('sysvar', () => {
  const sysvar = async (fields: Record<string, unknown>) =>
    resultOf<{ values: Record<string, unknown> }>(await h.ok('sysvar', { document_id: doc, ...fields }))
      .values;

  it('gets values without a step, sets them with one; header variables survive save and open', async () => {
    const before = await sysvar({
      get: ['clayer', '$LTSCALE', 'PDMODE', 'INSUNITS', 'TEXTSIZE', 'MIRRTEXT'],
    });
    // Keyed by the names as asked (the reference editor's `ltscale`, not `LTSCALE`).
    expect(before).toEqual({
      clayer: '0',
      $LTSCALE: 1,
      PDMODE: 0,
      INSUNITS: 4,
      TEXTSIZE: 2.5,
      // AutoCAD's default in a new drawing, as the reference editor's.
      MIRRTEXT: 0,
    });
    expect(await h.revision()).toBe(0);
    await h.create([{ ...LINE, layer: 'WORK' }]);
    const set = await h.ok('sysvar', {
      document_id: doc,
      set: { CLAYER: 'work', LTSCALE: '2.5', PDMODE: 35, PDSIZE: -5, MIRRTEXT: 1, GRIDMODE: 0 },
    });
    expect(set.state.revision).toBe(2);
    expect(resultOf<{ values: Record<string, unknown> }>(set).values).toEqual({
      CLAYER: 'WORK',
      LTSCALE: 2.5,
      PDMODE: 35,
      PDSIZE: -5,
      MIRRTEXT: 1,
      GRIDMODE: 0,
    });
    // `set` echoes what was set under the lower-case names.
    expect(resultOf<{ set: Record<string, unknown> }>(set).set).toEqual({
      clayer: 'WORK',
      ltscale: 2.5,
      pdmode: 35,
      pdsize: -5,
      mirrtext: 1,
      gridmode: 0,
    });
    const got = await sysvar({ get: ['CLAYER', 'LTSCALE', 'PDMODE', 'PDSIZE', 'MIRRTEXT', 'GRIDMODE'] });
    expect(got).toEqual({ CLAYER: 'WORK', LTSCALE: 2.5, PDMODE: 35, PDSIZE: -5, MIRRTEXT: 1, GRIDMODE: 0 });
    doc = await saveAndReopen('sysvars.dxf');
    expect(await sysvar({ get: ['CLAYER', 'LTSCALE', 'PDMODE', 'MIRRTEXT'] })).toEqual({
      CLAYER: 'WORK',
      LTSCALE: 2.5,
      PDMODE: 35,
      MIRRTEXT: 1,
    });
  });

  it('keeps a variable the saved version has no header entry for (OSMODE after R12) with the session, not in the file', async () => {
    expect(await sysvar({ set: { OSMODE: 37 } })).toEqual({ OSMODE: 37 });
    expect(await sysvar({ get: ['OSMODE'] })).toEqual({ OSMODE: 37 });
    const path = scratch.path('osmode.dxf');
    await h.ok('save', { document_id: doc, path });
    expect(readFileSync(path, 'latin1')).not.toMatch(/\$OSMODE/);
  });

  it('refuses unknown variables and bad values, setting none of a request', async () => {
    const revision = await h.revision();
    for (const [fields, code] of [
      [{ get: ['NOSUCHVAR'] }, 'unknown_sysvar'],
      [{ set: { NOSUCHVAR: 1 } }, 'unknown_sysvar'],
      [{ set: { LTSCALE: 2, BOGUS: 1 } }, 'unknown_sysvar'],
      [{ get: 'CLAYER' }, 'invalid_sysvar_value'],
      [{ set: ['CLAYER'] }, 'invalid_sysvar_value'],
      [{ set: { CLAYER: 'NO_SUCH_LAYER' } }, 'invalid_sysvar_value'],
      [{ set: { LTSCALE: 0 } }, 'invalid_sysvar_value'],
      [{ set: { LTSCALE: 'big' } }, 'invalid_sysvar_value'],
      [{ set: { PDMODE: 5 } }, 'invalid_sysvar_value'],
      [{ set: { MIRRTEXT: 2 } }, 'invalid_sysvar_value'],
      [{ set: { OSMODE: 1.5 } }, 'invalid_sysvar_value'],
      [{ set: { ACADVER: 'AC1015' } }, 'invalid_sysvar_value'],
      [{ set: { LTSCALE: 3, PDMODE: 7 } }, 'invalid_sysvar_value'],
    ] as const) {
      const answer = await h.call('sysvar', { document_id: doc, ...fields });
      expect(answer.code, JSON.stringify(fields)).toBe(code);
    }
    expect(await h.revision()).toBe(revision);
    expect(await sysvar({ get: ['LTSCALE', 'CLAYER'] })).toEqual({ LTSCALE: 1, CLAYER: '0' });
  });
});

describe('layers, header, records', () => {
  it('layers lists every layer, sorted, with its entity count', async () => {
    await h.create([
      { ...LINE, layer: 'Zeta' },
      { ...LINE, layer: 'Zeta' },
      { ...LINE, layer: 'alpha' },
    ]);
    const answer = await read('layers');
    const result = resultOf<{
      layers: Array<{ name: string; entities: number; color: number }>;
      count: number;
    }>(answer);
    expect(result.count).toBe(result.layers.length);
    expect(answer.count).toBe(result.layers.length);
    const names = result.layers.map((l) => l.name);
    expect(names).toEqual([...names].sort((x, y) => x.localeCompare(y)));
    expect(result.layers.find((l) => l.name === 'Zeta')).toMatchObject({ entities: 2, color: 7 });
    expect(result.layers.find((l) => l.name === 'alpha')?.entities).toBe(1);
  });

  it('header gives the version and the header variables as values', async () => {
    const result = resultOf<{ version: string; values: Record<string, unknown>; count: number }>(
      await read('header'),
    );
    expect(result.version).toBe('AC1032');
    expect(result.values.$ACADVER).toBe('AC1032');
    expect(result.values.$INSUNITS).toBe(4);
    expect(result.count).toBe(Object.keys(result.values).length);
    await h.ok('sysvar', { document_id: doc, set: { LTSCALE: 4 } });
    expect(resultOf<{ values: Record<string, unknown> }>(await read('header')).values.$LTSCALE).toBe(4);
  });

  it('records pages through tables and objects by collection and type', async () => {
    const all = await recordsOf({ limit: 10_000 });
    expect(all.returned).toBe(all.count);
    expect(all.next_offset).toBeNull();
    const tables = await recordsOf({ collection: 'tables', limit: 10_000 });
    const objects = await recordsOf({ collection: 'OBJECTS', limit: 10_000 });
    expect(tables.count + objects.count).toBe(all.count);
    expect(new Set(tables.records.map((r) => r.collection))).toEqual(new Set(['tables']));
    expect(new Set(objects.records.map((r) => r.collection))).toEqual(new Set(['objects']));

    const first = await recordsOf({ limit: 5 });
    expect(first).toMatchObject({ count: all.count, returned: 5, next_offset: 5 });
    const second = await recordsOf({ offset: '5', limit: '5' });
    expect(second.returned).toBe(5);
    expect([...first.records, ...second.records]).toEqual(all.records.slice(0, 10));
    const last = await recordsOf({ offset: all.count - 2 });
    expect(last).toMatchObject({ returned: 2, next_offset: null });

    const ltypes = await recordsOf({ type: 'ltype' });
    expect(ltypes.count).toBeGreaterThan(3);
    expect(new Set(ltypes.records.map((r) => r.type))).toEqual(new Set(['LTYPE']));
    expect(ltypes.records.map(nameOf)).toEqual(expect.arrayContaining(['Continuous', 'DASHED']));

    for (const fields of [{ collection: 'entities' }, { limit: 10_001 }, { offset: -1 }, { limit: 'many' }]) {
      expect((await read('records', fields)).code, JSON.stringify(fields)).toBe('invalid_query');
    }
  });
});
