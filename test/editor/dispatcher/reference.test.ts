/**
 * The facts the reference editor's own tests pin for its P1/P2 operations (OpenCADStudio,
 * src/app/control/p1_tests.rs), checked against chronicle's dispatcher: template flows, close, sysvar,
 * layouts and page setups, cross-document copy, groups, selection sets, per-page plotting, where
 * filters, hatch read-out, block define/replace/delete, wblock with a template or normalized, file
 * identity and the handle seed. Where chronicle answers otherwise by design, the test says so.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Harness, resultOf, scratchDir, startHarness } from './helpers.js';

// Plots and saves write files: leave room for a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

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

const read = (op: string, fields: Record<string, unknown> = {}) => h.raw({ protocol: 1, op, ...fields });
const countType = async (type: string) => (await read('query', { type, detail: 'summary' })).count as number;
const active = async () => (await read('state')).state.document_id as number;

describe('the reference editor p1 facts', () => {
  it('query where filters on entity properties; a bad pointer or an unknown operator fails', async () => {
    await h.create([
      { type: 'Circle', center: [0, 0], radius: 1 },
      { type: 'Circle', center: [20, 0], radius: 5 },
    ]);
    const q = await read('query', {
      type: 'Circle',
      detail: 'geometry',
      where: [{ path: '/radius', op: 'gt', value: 2 }],
    });
    expect(q).toMatchObject({ ok: true, count: 1 });
    expect((q.entities as Array<{ radius: number }>)[0]?.radius).toBe(5);
    for (const where of [
      [{ path: 'radius', op: 'eq', value: 1 }],
      [{ path: '/radius', op: 'between', value: 1 }],
    ]) {
      expect((await read('query', { type: 'Circle', where })).ok, JSON.stringify(where)).toBe(false);
    }
  });

  it('close guards a dirty document, discards, leaves a fresh drawing after the last; document_closed for one not open', async () => {
    await h.create([{ type: 'Line', start: [0, 0], end: [1, 1] }]);
    expect((await h.call('close', { document_id: doc })).code).toBe('document_dirty');
    const closed = await h.call('close', { document_id: doc, discard: true });
    expect(closed).toMatchObject({ ok: true, result: { closed: true } });
    expect((await read('query', { limit: 0 })).count).toBe(0);
    expect(await active()).not.toBe(doc);
    expect((await h.call('close', { document_id: 9999 })).code).toBe('document_closed');
  });

  it('sysvar round-trips and refuses unknowns; clayer takes only an existing layer', async () => {
    const set = await h.call('sysvar', { document_id: doc, set: { ltscale: 2.5, mirrtext: 0 } });
    expect(set.ok, set.error).toBe(true);
    const got = await h.call('sysvar', { document_id: doc, get: ['ltscale', 'mirrtext'] });
    expect(resultOf<{ values: Record<string, unknown> }>(got).values).toEqual({ ltscale: 2.5, mirrtext: 0 });
    await h.create([{ type: 'Point', location: [0, 0], layer: 'Walls' }]);
    expect((await h.call('sysvar', { document_id: doc, set: { clayer: 'Walls' } })).ok).toBe(true);
    const clayer = await h.call('sysvar', { document_id: doc, get: ['clayer'] });
    expect(resultOf<{ values: Record<string, unknown> }>(clayer).values.clayer).toBe('Walls');
    expect((await h.call('sysvar', { document_id: doc, set: { clayer: 'NOPE' } })).code).toBe(
      'invalid_sysvar_value',
    );
    expect((await h.call('sysvar', { document_id: doc, set: { not_a_sysvar: 1 } })).code).toBe(
      'unknown_sysvar',
    );
  });

  it('layout_create and page_setup_set configure sheets; layout_exists, invalid_scale, layout_missing', async () => {
    const made = await h.call('layout_create', { document_id: doc, name: 'PLAN' });
    expect(resultOf<{ layouts: string[] }>(made).layouts).toContain('PLAN');
    expect((await h.call('layout_create', { document_id: doc, name: 'PLAN' })).code).toBe('layout_exists');
    const setup = await h.call('page_setup_set', {
      document_id: doc,
      layout: 'PLAN',
      paper: 'ISO_A4_(210.00_x_297.00_MM)',
      orientation: 'landscape',
      fit: true,
      center: true,
    });
    expect(setup.ok, setup.error).toBe(true);
    const stored = h.session.state.documents[String(doc)]?.model.layouts.PLAN?.page_setup;
    expect(stored?.paper).toContain('ISO_A4');
    expect(stored).toMatchObject({ center: true, fit: true });
    expect(
      (await h.call('page_setup_set', { document_id: doc, layout: 'PLAN', scale: 'nonsense' })).code,
    ).toBe('invalid_scale');
    expect((await h.call('page_setup_set', { document_id: doc, layout: 'GHOST' })).code).toBe(
      'layout_missing',
    );
  });

  it('a drawing saved as a template gives a new untitled drawing its entities: total, no path', async () => {
    await h.create([{ type: 'Circle', center: [5, 5], radius: 2 }]);
    const template = scratch.path('template.dxf');
    await h.ok('save', { document_id: doc, path: template });
    const made = await h.ok('new', { template });
    expect(made.result).toMatchObject({ total: 1 });
    const state = (await read('state')).state;
    expect(state.documents.find((d) => d.id === made.document_id)?.path).toBeNull();
  });

  it('wblock with a template keeps the template tables (its layer TPL)', async () => {
    await h.create([{ type: 'Line', start: [0, 0], end: [5, 5], layer: 'TPL' }]);
    const template = scratch.path('wblock-template.dxf');
    await h.ok('save', { document_id: doc, path: template });
    const other = await h.newDoc();
    const [circle] = await h.create([{ type: 'Circle', center: [1, 1], radius: 2 }], other);
    const out = scratch.path('wblock-out.dxf');
    const written = await h.ok('wblock', { document_id: other, path: out, template, handles: [circle] });
    expect(written.result).toMatchObject({ entities: 1, normalized: false });
    const opened = await h.ok('open', { path: out });
    const layers = resultOf<{ layers: Array<{ name: string }> }>(
      await read('layers', { document_id: opened.document_id }),
    ).layers;
    expect(layers.map((l) => l.name)).toContain('TPL');
    // The exported circle, and none of the template's own entities.
    expect((await read('query', { limit: 10 })).entities).toEqual([
      expect.objectContaining({ type: 'Circle', radius: 2 }),
    ]);
  });

  it('entities_copy_to copies into another open document; a missing target is document_closed', async () => {
    const [circle] = await h.create([{ type: 'Circle', center: [5, 5], radius: 2 }]);
    const target = await h.newDoc();
    await h.ok('activate', { document_id: doc });
    const copied = await h.call('entities_copy_to', { document_id: target, handles: [circle] });
    expect(copied).toMatchObject({ ok: true, result: { count: 1 } });
    expect(await countType('Circle')).toBe(1);
    await h.ok('activate', { document_id: target });
    expect(await countType('Circle')).toBe(1);
    await h.ok('activate', { document_id: doc });
    expect((await h.call('entities_copy_to', { document_id: 4242, handles: [circle] })).code).toBe(
      'document_closed',
    );
  });

  it('group_create and selection sets; a load selects by default; selection_set_missing', async () => {
    const handles = await h.create([
      { type: 'Line', start: [0, 0], end: [1, 0] },
      { type: 'Circle', center: [5, 5], radius: 2 },
    ]);
    const group = await h.call('group_create', { document_id: doc, name: 'FRAME', handles });
    expect(group).toMatchObject({ ok: true, result: { group: 'FRAME' } });
    expect(h.session.state.documents[String(doc)]?.model.groups.FRAME?.handles).toEqual(handles);
    const saved = await h.call('selection_set_save', { document_id: doc, name: 'frame-set', handles });
    expect(resultOf<{ count: number }>(saved).count).toBe(2);
    await h.ok('select', { clear: true });
    const loaded = await h.call('selection_set_load', { document_id: doc, name: 'frame-set' });
    expect(loaded).toMatchObject({ ok: true, result: { selected: 2 } });
    expect(loaded.state.selection?.handles).toEqual(handles);
    expect((await h.call('selection_set_load', { document_id: doc, name: 'ghost' })).code).toBe(
      'selection_set_missing',
    );
  });

  it('plot per_page writes one PDF per layout', async () => {
    await h.create([{ type: 'Line', start: [0, 0], end: [100, 80] }]);
    await h.ok('layout_create', { document_id: doc, name: 'PLAN' });
    const path = scratch.path('per-page.pdf');
    const plotted = await h.call('plot', { document_id: doc, path, layout: 'all', per_page: true });
    expect(plotted.ok, plotted.error).toBe(true);
    const files = resultOf<{ files: Array<{ path: string; layout: string }> }>(plotted).files;
    const layouts = Object.keys(h.session.state.documents[String(doc)]?.model.layouts ?? {});
    expect(files).toHaveLength(layouts.length);
    expect(files.map((f) => f.layout).sort()).toEqual([...layouts].sort());
    for (const file of files)
      expect((await readFile(file.path)).subarray(0, 4).toString('latin1')).toBe('%PDF');
  });

  it('a hatch boundary reads back flattened in query', async () => {
    const made = await h.call('entities_create', {
      document_id: doc,
      entities: [
        {
          type: 'Hatch',
          boundary: [
            [0, 0],
            [10, 0],
            [10, 10],
            [0, 10],
          ],
          solid: true,
        },
      ],
    });
    expect(made.ok, made.error).toBe(true);
    const q = await read('query', { type: 'Hatch', detail: 'full' });
    expect(q.count).toBe(1);
    const boundary = (q.entities as Array<{ boundary: number[][][] }>)[0]?.boundary;
    expect(boundary?.[0]).toHaveLength(4);
  });

  it('layers_created names the layer made; it survives a save and open', async () => {
    const made = await h.call('entities_create', {
      document_id: doc,
      entities: [{ type: 'Point', location: [1, 1], layer: 'Walls' }],
    });
    expect(resultOf<{ layers_created: string[] }>(made).layers_created).toEqual(['Walls']);
    const path = scratch.path('walls.dxf');
    await h.ok('save', { document_id: doc, path });
    const opened = await h.ok('open', { path });
    const layers = resultOf<{ layers: Array<{ name: string }> }>(
      await read('layers', { document_id: opened.document_id }),
    ).layers;
    expect(layers.map((l) => l.name)).toContain('Walls');
  });

  it('block_delete and block_define replace manage definitions; block_missing, block_protected', async () => {
    const handles = await h.create([
      { type: 'Line', start: [0, 0], end: [1, 0] },
      { type: 'Circle', center: [5, 5], radius: 2 },
    ]);
    expect(
      (await h.call('block_define', { document_id: doc, name: 'MARK', base: [0, 0, 0], handles })).ok,
    ).toBe(true);
    expect(await countType('Insert')).toBe(1);
    const [point] = await h.create([{ type: 'Point', location: [9, 9] }]);
    const replaced = await h.call('block_define', {
      document_id: doc,
      name: 'MARK',
      base: [0, 0, 0],
      handles: [point],
      replace: true,
    });
    expect(replaced.ok, replaced.error).toBe(true);
    expect(await countType('Insert')).toBe(1);
    expect(await countType('Line')).toBe(0);
    expect(await countType('Circle')).toBe(0);
    const deleted = await h.call('block_delete', { document_id: doc, name: 'MARK' });
    expect(deleted.ok).toBe(true);
    // chronicle counts the references it erased (the reference adds the children and its markers).
    expect(resultOf<{ erased: number }>(deleted).erased).toBeGreaterThanOrEqual(1);
    expect(await countType('Insert')).toBe(0);
    expect(h.session.state.documents[String(doc)]?.model.blocks.MARK).toBeUndefined();
    expect((await h.call('block_delete', { document_id: doc, name: 'GHOST' })).code).toBe('block_missing');
    expect((await h.call('block_delete', { document_id: doc, name: '*Model_Space' })).code).toBe(
      'block_protected',
    );
  });

  it('wblock normalize shifts the export to the origin', async () => {
    const [line] = await h.create([{ type: 'Line', start: [100, 200], end: [110, 210] }]);
    const out = scratch.path('normalized.dxf');
    const written = await h.call('wblock', { document_id: doc, path: out, handles: [line], normalize: true });
    expect(written).toMatchObject({ ok: true, result: { normalized: true } });
    await h.ok('open', { path: out });
    const [moved] = (await read('query', { type: 'Line', detail: 'full' })).entities as Array<{
      start: number[];
      end: number[];
    }>;
    expect(moved?.start).toEqual([0, 0, 0]);
    expect(moved?.end).toEqual([10, 10, 0]);
  });

  it('file_identity is stable, renewable, and survives a save and open', async () => {
    // The first call mints the identity (API-SPEC.md §7.4: the first answer is created: true).
    const first = await h.call('file_identity', { document_id: doc });
    expect(resultOf<{ created: boolean }>(first).created).toBe(true);
    const identity = resultOf<{ identity: string; created: boolean }>(first).identity;
    expect(identity).toHaveLength(36);
    expect(identity[8]).toBe('-');
    const again = await h.call('file_identity', { document_id: doc });
    expect(again.result).toEqual({ identity, created: false });
    const renewed = await h.call('file_identity', { document_id: doc, renew: true });
    expect(renewed.result).toMatchObject({ created: true });
    const fresh = resultOf<{ identity: string }>(renewed).identity;
    expect(fresh).not.toBe(identity);
    const path = scratch.path('identity.dxf');
    await h.ok('save', { document_id: doc, path });
    const opened = await h.ok('open', { path });
    expect(
      resultOf<{ identity: string }>(await h.call('file_identity', { document_id: opened.document_id }))
        .identity,
    ).toBe(fresh);
  });

  it('state reports the handle seed; issuing a handle advances it', async () => {
    const before = Number.parseInt((await read('state')).hand_seed as string, 16);
    await h.create([{ type: 'Line', start: [0, 0], end: [1, 1] }]);
    const after = Number.parseInt((await read('state')).hand_seed as string, 16);
    expect(after).toBeGreaterThan(before);
  });
});
