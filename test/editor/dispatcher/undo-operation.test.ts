/** undo / redo as events, `operation` by request id, and `capabilities`, through the dispatcher. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editorOps } from '../../../src/editor/ops/index.js';
import { freshId, type Harness, type Reply, resultOf, startHarness } from './helpers.js';

let h: Harness;
let doc: number;
beforeEach(async () => {
  h = await startHarness();
  doc = await h.newDoc();
});
afterEach(async () => {
  await h.close();
});

const LINE = { type: 'Line', start: [0, 0], end: [10, 0] };
const read = (op: string, fields: Record<string, unknown> = {}) => h.raw({ protocol: 1, op, ...fields });
/** Everything a client can read of the active document. */
const view = async () => ({
  entities: (await read('query', { detail: 'full' })).entities,
  layers: (await read('layers')).result,
  header: (await read('header')).result,
  records: (await read('records', { limit: 10_000 })).result,
  xdata: (await read('query', { limit: 0 })).count,
});
const types = async () => (await h.events()).map((e) => e.type);

describe('undo and redo', () => {
  it('nothing_to_undo and nothing_to_redo on a fresh document; refused undo records no step', async () => {
    const undo = await h.call('undo', { document_id: doc });
    expect(undo.code).toBe('nothing_to_undo');
    expect((await h.call('redo', { document_id: doc })).code).toBe('nothing_to_redo');
    expect(await h.revision()).toBe(0);
    expect((await types()).filter((t) => t === 'StepUndone' || t === 'StepRedone')).toEqual([]);
  });

  it('undo takes back one step (a new revision, inverted changes); redo puts it back', async () => {
    const [a, b] = (await h.create([LINE, { ...LINE, layer: 'NEW' }])) as [string, string];
    const undone = await h.ok('undo', { document_id: doc });
    expect(undone.result).toEqual({ undone: 'entities_create', step_revision: 1 });
    expect(undone.changes).toEqual([
      { handle: b, kind: 'erased' },
      { handle: a, kind: 'erased' },
    ]);
    expect(undone.state.revision).toBe(2);
    expect((await read('query', { limit: 0 })).count).toBe(0);
    const layers = resultOf<{ layers: Array<{ name: string }> }>(await read('layers')).layers.map(
      (l) => l.name,
    );
    expect(layers).not.toContain('NEW');
    expect((await h.call('undo', { document_id: doc })).code).toBe('nothing_to_undo');

    const redone = await h.ok('redo', { document_id: doc });
    expect(redone.result).toEqual({ redone: 'entities_create', step_revision: 1 });
    expect(redone.changes).toEqual([
      { handle: a, kind: 'created' },
      { handle: b, kind: 'created' },
    ]);
    expect(redone.state.revision).toBe(3);
    expect((await read('query', { detail: 'summary' })).entities).toEqual([
      { handle: a, type: 'Line', layer: '0' },
      { handle: b, type: 'Line', layer: 'NEW' },
    ]);
    expect((await h.call('redo', { document_id: doc })).code).toBe('nothing_to_redo');
  });

  it('a new mutation clears redo', async () => {
    await h.create([LINE]);
    await h.create([LINE]);
    await h.ok('undo', { document_id: doc });
    await h.create([{ type: 'Point', location: [1, 1] }]);
    expect((await h.call('redo', { document_id: doc })).code).toBe('nothing_to_redo');
    // The undo stack is the first create and the point.
    expect(resultOf<{ undone: string }>(await h.ok('undo', { document_id: doc })).undone).toBe(
      'entities_create',
    );
    expect((await read('query', { detail: 'summary' })).count).toBe(1);
  });

  it('undo and redo are events: the log grows with each and keeps the undone steps', async () => {
    await h.create([LINE]);
    const lengths = [(await h.events()).length];
    for (const op of ['undo', 'redo', 'undo', 'redo', 'undo']) {
      await h.ok(op, { document_id: doc });
      lengths.push((await h.events()).length);
    }
    for (let i = 1; i < lengths.length; i++) expect(lengths[i]).toBe((lengths[i - 1] as number) + 2);
    const log = await types();
    expect(log.filter((t) => t === 'EntitiesCreated')).toHaveLength(1);
    expect(log.filter((t) => t === 'StepUndone')).toHaveLength(3);
    expect(log.filter((t) => t === 'StepRedone')).toHaveLength(2);
    expect(await h.revision()).toBe(6);
  });

  it('undoing every kind of step restores the document exactly; redoing all restores the edits', async () => {
    const initial = await view();
    const [a, b, c] = (await h.create([
      LINE,
      { type: 'Circle', center: [3, 3], radius: 1, layer: 'C' },
      LINE,
    ])) as [string, string, string];
    const steps: Array<[string, Record<string, unknown>]> = [
      ['entities_delete', { handles: [b] }],
      ['entities_transform', { handles: [a], action: 'rotate', angle: 30 }],
      ['entities_transform', { handles: [c], action: 'copy', vector: [1, 1] }],
      ['set_properties', { handles: [a, c], properties: { layer: 'SET', color: 2 } }],
      ['xdata_set', { handles: [a], app: 'UNDOAPP', data: [{ code: 1000, value: 'v' }] }],
      ['block_define', { name: 'BLK', handles: [c] }],
      ['group_create', { name: 'G', handles: [a] }],
      ['selection_set_save', { name: 'SS', handles: [a] }],
      ['layout_create', { name: 'L2' }],
      ['page_setup_set', { layout: 'L2', paper: 'ISO A2' }],
      ['sysvar', { set: { LTSCALE: 3, GRIDMODE: 0, CLAYER: 'SET' } }],
    ];
    for (const [op, fields] of steps) await h.ok(op, { document_id: doc, ...fields });
    const edited = await view();
    for (let i = 0; i < steps.length + 1; i++) await h.ok('undo', { document_id: doc });
    expect(await view()).toEqual(initial);
    expect((await h.call('selection_set_load', { document_id: doc, name: 'SS' })).code).toBe(
      'selection_set_missing',
    );
    for (let i = 0; i < steps.length + 1; i++) await h.ok('redo', { document_id: doc });
    expect(await view()).toEqual(edited);
    expect(
      resultOf<{ values: Record<string, unknown> }>(
        await h.ok('sysvar', { document_id: doc, get: ['GRIDMODE', 'CLAYER'] }),
      ).values,
    ).toEqual({ GRIDMODE: 0, CLAYER: 'SET' });
  });

  it('undo of a copy_to undoes it in the target document', async () => {
    const [a] = (await h.create([LINE])) as [string];
    const target = await h.newDoc();
    await h.ok('activate', { document_id: doc });
    await h.ok('entities_copy_to', { document_id: target, handles: [a] });
    await h.ok('activate', { document_id: target });
    expect((await read('query', { limit: 0 })).count).toBe(1);
    expect(resultOf<{ undone: string }>(await h.ok('undo', { document_id: target })).undone).toBe(
      'entities_copy_to',
    );
    expect((await read('query', { limit: 0 })).count).toBe(0);
  });
});

describe('operation', () => {
  it('answers a completed mutation by its request id, with its recorded answer', async () => {
    const requestId = freshId('op');
    const original = (await h.raw({
      protocol: 1,
      op: 'entities_create',
      request_id: requestId,
      document_id: doc,
      entities: [LINE],
    })) as Reply;
    const { state: _state, ...recorded } = original;
    for (const key of ['request_id', 'id']) {
      const answer = await read('operation', { [key]: requestId });
      expect(answer.ok).toBe(true);
      expect(answer.status).toBe('completed');
      // The operation's own result fields, with its request id, op, status and whole answer.
      expect(answer.result).toEqual({
        ...(recorded.result as Record<string, unknown>),
        request_id: requestId,
        op: 'entities_create',
        status: 'completed',
        answer: recorded,
      });
      expect(answer.document_id).toBe(doc);
    }
  });

  it('a refused mutation is status failed, with its failure', async () => {
    const requestId = freshId('op');
    await h.raw({
      protocol: 1,
      op: 'entities_delete',
      request_id: requestId,
      document_id: doc,
      handles: ['DEAD'],
    });
    const answer = await read('operation', { request_id: requestId });
    const result = resultOf<{ status: string; answer: { ok: boolean; code: string } }>(answer);
    expect(result.status).toBe('failed');
    expect(result.answer).toMatchObject({ ok: false, code: 'entity_absent' });
  });

  it('an id never sent, or none, is unknown_operation; reads and refused envelopes are not operations', async () => {
    expect((await read('operation', { request_id: 'never-sent' })).code).toBe('unknown_operation');
    expect((await read('operation')).code).toBe('unknown_operation');
    const readId = freshId('read');
    await h.raw({ protocol: 1, op: 'layers', request_id: readId });
    expect((await read('operation', { request_id: readId })).code).toBe('unknown_operation');
    const mismatched = freshId('mismatch');
    await h.raw({ protocol: 2, op: 'new', request_id: mismatched });
    expect((await read('operation', { request_id: mismatched })).code).toBe('unknown_operation');
  });
});

describe('capabilities', () => {
  it('lists the ops, entity types, query operators, limits, papers and sysvars', async () => {
    const answer = await read('capabilities');
    expect(answer.ok).toBe(true);
    const caps = resultOf<{
      protocol: number;
      version: string;
      ops: string[];
      entity_types: string[];
      query: { operators: string[]; detail_levels: string[]; default_detail: string };
      transform_actions: string[];
      xdata: { group_codes: number[] };
      limits: Record<string, number>;
      papers: string[];
      sysvars: string[];
    }>(answer);
    expect(caps.protocol).toBe(1);
    expect(caps.version).toBe('9.9.9-test');
    expect(caps.ops).toEqual(expect.arrayContaining(Object.keys(editorOps)));
    expect(caps.entity_types).toEqual([
      'Line',
      'Circle',
      'Arc',
      'Ellipse',
      'Text',
      'MText',
      'Point',
      'LwPolyline',
      'Insert',
      'Image',
      'Solid',
      'Trace',
      'Face3d',
      'XLine',
      'Ray',
      'Polyline',
      'Spline',
    ]);
    expect(caps.query.operators.sort()).toEqual(
      [
        'eq',
        'ne',
        'lt',
        'lte',
        'gt',
        'gte',
        'contains',
        'starts_with',
        'ends_with',
        'in',
        'exists',
        'not_exists',
      ].sort(),
    );
    expect(caps.query.detail_levels).toEqual(['geometry', 'summary', 'full']);
    expect(caps.query.default_detail).toBe('geometry');
    expect(caps.transform_actions).toEqual(['move', 'copy', 'rotate', 'scale', 'mirror', 'array']);
    // The reference editor's clients feature-detect with operations.<op> === true, at the top level.
    const operations = (answer as unknown as { operations: Record<string, boolean> }).operations;
    expect(Object.keys(operations).sort()).toEqual([...caps.ops].sort());
    expect(Object.values(operations).every((v) => v === true)).toBe(true);
    expect(operations.entities_create).toBe(true);
    expect(caps.xdata.group_codes).toEqual([
      1000, 1002, 1003, 1004, 1005, 1010, 1011, 1012, 1013, 1040, 1041, 1042, 1070, 1071,
    ]);
    expect(caps.limits).toMatchObject({
      request_id_max_bytes: 128,
      query_limit_default: 1000,
      query_limit_max: 10_000,
      max_dxf_bytes: 256 * 1024 * 1024,
    });
    expect(caps.papers).toEqual(
      expect.arrayContaining([
        'ISO A0',
        'ISO A1',
        'ISO A2',
        'ISO A3',
        'ISO A4',
        'ANSI A',
        'ANSI B',
        'ANSI C',
        'ANSI D',
        'ANSI E',
      ]),
    );
    expect(caps.sysvars.length).toBeGreaterThanOrEqual(40);
    expect(caps.sysvars).toEqual(
      expect.arrayContaining([
        'CLAYER',
        'LTSCALE',
        'MIRRTEXT',
        'OSMODE',
        'PDMODE',
        'PDSIZE',
        'TEXTSIZE',
        'INSUNITS',
      ]),
    );
    // The limits it gives are the ones enforced.
    const tooMany = await read('query', { limit: (caps.limits.query_limit_max ?? 0) + 1 });
    expect(tooMany.code).toBe('invalid_query');
  });

  // capabilities lists only the ops this dispatcher answers (the output and interaction ops of the
  // protocol come with their own issue).
  it('every op capabilities lists is known to the dispatcher', async () => {
    const ops = resultOf<{ ops: string[] }>(await read('capabilities')).ops;
    const unknown: string[] = [];
    // `operation` of a request id never sent answers unknown_operation by design.
    for (const op of ops.filter((name) => name !== 'operation')) {
      // No document_id: an op the dispatcher knows never answers unknown_operation then.
      const answer = await h.call(op);
      if (answer.code === 'unknown_operation') unknown.push(op);
    }
    expect(ops).toContain('state');
    expect(ops).toContain('entities_create');
    expect(unknown.sort()).toEqual([]);
  });
});
