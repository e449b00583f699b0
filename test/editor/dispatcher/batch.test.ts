/**
 * `batch`: steps in order in one session, stop at the first failure, atomic = all or nothing and one
 * undo step; the read model rebuilt from the log equals the live one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editorSessionProjection } from '../../../projections/editor-session.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { type Harness, type Reply, startHarness } from './helpers.js';

let h: Harness;
let doc: number;
beforeEach(async () => {
  h = await startHarness();
  doc = await h.newDoc();
});
afterEach(async () => {
  await h.close();
});

const CIRCLE = { type: 'Circle', center: [0, 0], radius: 1 };
const create = (n = 1) => ({ op: 'entities_create', entities: Array.from({ length: n }, () => CIRCLE) });
const batch = (steps: unknown, fields: Record<string, unknown> = {}) => h.call('batch', { steps, ...fields });
const docState = () => h.session.state.documents[String(doc)];
const count = async () => ((await h.ok('query', {})).count as number) ?? 0;
type Results = Array<Record<string, unknown> & { result: Record<string, unknown> }>;

describe('plain batch', () => {
  it('runs the steps in order, each against what the earlier left; each is its own undo step', async () => {
    const answer = await batch([
      create(2),
      { op: 'query', detail: 'summary' },
      { op: 'run', cmd: 'CIRCLE 5,5 1' },
      { op: 'sysvar', set: { LTSCALE: 3 } },
    ]);
    expect(answer).toMatchObject({
      ok: true,
      status: 'completed',
      document_id: doc,
      completed_steps: 4,
      next_step: null,
      result: { completed_steps: 4, atomic: false },
    });
    const results = answer.results as Results;
    expect(results.map((r) => r.op)).toEqual(['entities_create', 'query', 'run', 'sysvar']);
    // The query saw the two circles created by the step before it.
    expect(results[1]).toMatchObject({ ok: true, count: 2 });
    expect(results[0]?.result.handles).toHaveLength(2);
    expect(answer.changes).toHaveLength(3);
    expect(await count()).toBe(3);
    expect(docState()?.undo.map((s) => s.op)).toEqual(['entities_create', 'entities_create', 'sysvar']);
    // Undo takes back the last step only.
    await h.ok('undo');
    expect(await count()).toBe(3);
    await h.ok('undo');
    expect(await count()).toBe(2);
  });

  it('stops at the first failure: the step code and error, completed_steps, next_step; earlier steps stay', async () => {
    const answer = await batch([create(), { op: 'entities_delete', handles: ['DEAD'] }, create()]);
    expect(answer).toMatchObject({
      ok: false,
      code: 'entity_absent',
      completed_steps: 1,
      next_step: 1,
      failed_op: 'entities_delete',
      atomic: false,
    });
    expect(answer.error).toContain('DEAD');
    expect(answer.status).toBeUndefined();
    expect(answer.results as Results).toHaveLength(1);
    expect(await count()).toBe(1);
    expect(docState()?.undo).toHaveLength(1);
    // The recorded answer is the failure: `operation` reads it back.
    const op = await h.raw({ protocol: 1, op: 'operation', request_id: answer.request_id });
    expect(op.result).toMatchObject({
      status: 'failed',
      answer: { code: 'entity_absent', completed_steps: 1 },
    });
  });

  it('steps without document_id act on the document active at that point', async () => {
    const answer = await batch([{ op: 'new' }, create(2)]);
    expect(answer.ok, answer.error).toBe(true);
    const second = (answer.results as Results)[0]?.document_id as number;
    expect(second).not.toBe(doc);
    expect(answer.document_id).toBe(second);
    expect(h.session.state.documents[String(second)]?.model.order).toHaveLength(2);
    expect(docState()?.model.order).toHaveLength(0);
  });

  it("a step's checks are the dispatcher's: stale revision, closed document, unknown op", async () => {
    const stale = await batch([create(), { ...create(), revision: 0 }]);
    expect(stale).toMatchObject({ ok: false, code: 'stale_state', next_step: 1 });
    const closed = await batch([{ ...create(), document_id: 99 }]);
    expect(closed).toMatchObject({ ok: false, code: 'document_closed', completed_steps: 0, next_step: 0 });
    const unknown = await batch([{ op: 'frobnicate' }]);
    expect(unknown).toMatchObject({ ok: false, code: 'unknown_operation', next_step: 0 });
  });

  it('refuses what a batch cannot hold', async () => {
    const cases: Array<[unknown, string]> = [
      [undefined, 'invalid_request'],
      ['steps', 'invalid_request'],
      [[], 'invalid_request'],
      [[42], 'invalid_request'],
      [[{ entities: [] }], 'invalid_request'],
      [[{ op: 'state', protocol: 2 }], 'protocol_mismatch'],
      [[{ op: 'batch', steps: [create()] }], 'nested_batch'],
      [[{ op: 'getpoint' }], 'not_batchable'],
      [[{ op: 'user_select' }], 'not_batchable'],
    ];
    for (const [steps, code] of cases) {
      const answer = await batch(steps);
      expect(answer, JSON.stringify(steps)).toMatchObject({ ok: false, code });
    }
    expect(await batch([create()], { atomic: 'yes' })).toMatchObject({ ok: false, code: 'invalid_request' });
    expect(await count()).toBe(0);
  });

  it('holds at most 64 steps: 64 run, 65 are batch_too_large', async () => {
    const many = await batch(Array.from({ length: 64 }, () => create()));
    expect(many).toMatchObject({ ok: true, completed_steps: 64 });
    const tooMany = await batch(Array.from({ length: 65 }, () => create()));
    expect(tooMany).toMatchObject({ ok: false, code: 'batch_too_large' });
    expect(tooMany.error).toContain('64');
    expect(await count()).toBe(64);
  });

  it('a retry with the same request_id answers the same and applies nothing again', async () => {
    const request = { protocol: 1, op: 'batch', request_id: 'batch-once', steps: [create()] };
    const first = await h.raw(request);
    const again = await h.raw(request);
    const { state: _a, ...one } = first;
    const { state: _b, ...two } = again;
    expect(two).toEqual(one);
    expect(await count()).toBe(1);
  });
});

describe('atomic batch', () => {
  it('applies every step as ONE undo step; one undo reverts all of it, redo brings it back', async () => {
    const [kept] = await h.create([CIRCLE]);
    const before = docState()?.revision as number;
    const answer = await batch(
      [
        create(2),
        { op: 'entities_transform', handles: [kept], action: 'move', vector: [5, 0] },
        { op: 'set_properties', handles: [kept], properties: { layer: 'Moved' } },
        { op: 'run', cmd: 'LINE 0,0 1,1; SELECT ALL' },
      ],
      { atomic: true },
    );
    expect(answer).toMatchObject({ ok: true, completed_steps: 4, result: { atomic: true } });
    expect(docState()?.revision).toBe(before + 1);
    expect(docState()?.undo.map((s) => s.op)).toEqual(['entities_create', 'batch']);
    expect(docState()?.selection).toHaveLength(4);
    const types = (await h.events()).map((e) => e.type);
    expect(types.filter((t) => t === 'BatchApplied')).toHaveLength(1);
    expect(types.slice(-3)).toEqual(['BatchApplied', 'SelectionChanged', 'OperationAnswered']);
    expect(await count()).toBe(4);
    const undone = await h.ok('undo');
    expect(undone.result).toMatchObject({ undone: 'batch' });
    expect(await count()).toBe(1);
    expect(docState()?.model.entities[kept as string]).toMatchObject({ center: [0, 0, 0], layer: '0' });
    expect(docState()?.model.layers.Moved).toBeUndefined();
    expect(docState()?.selection).toEqual([kept]);
    await h.ok('redo');
    expect(await count()).toBe(4);
    expect(docState()?.model.entities[kept as string]).toMatchObject({ center: [5, 0, 0], layer: 'Moved' });
  });

  it('on failure records nothing but the answer', async () => {
    // A spatial query builds the live document's index: the batch's own copy must not leak into it.
    expect((await h.ok('query', { bounds: [-5, -5, 5, 5] })).count).toBe(0);
    const before = (await h.events()).length;
    const revision = docState()?.revision;
    const answer = await batch([create(3), { op: 'run', cmd: 'ERASE FFFF' }], { atomic: true });
    expect(answer).toMatchObject({
      ok: false,
      code: 'entity_absent',
      completed_steps: 1,
      next_step: 1,
      failed_op: 'run',
      atomic: true,
    });
    expect((answer.results as Results)[0]?.result.handles).toHaveLength(3);
    const events = await h.events();
    expect(events.slice(before).map((e) => e.type)).toEqual(['OperationAnswered']);
    expect(docState()?.revision).toBe(revision);
    expect(await count()).toBe(0);
    expect((await h.ok('query', { bounds: [-5, -5, 5, 5] })).count).toBe(0);
  });

  it('refuses steps that cannot be part of one undo step: not_atomic', async () => {
    await h.create([CIRCLE]);
    for (const step of [
      { op: 'undo' },
      { op: 'save', path: '/tmp/never.dxf' },
      { op: 'new' },
      { op: 'run', cmd: 'UNDO' },
    ]) {
      const answer = await batch([create(), step], { atomic: true });
      expect(answer, JSON.stringify(step)).toMatchObject({ ok: false, code: 'not_atomic', next_step: 1 });
    }
    expect(await count()).toBe(1);
  });
});

it('the read model rebuilt from the log equals the live one after batches', async () => {
  const [a] = await h.create([CIRCLE]);
  await batch([create(2), { op: 'entities_transform', handles: [a], action: 'copy', vector: [1, 1] }]);
  await batch([create(), { op: 'run', cmd: 'SELECT ALL; ZOOM E; LAYER M X' }, { op: 'undo' }], {});
  await batch([create(), { op: 'entities_delete', handles: [a] }, { op: 'run', cmd: 'SELECT ALL' }], {
    atomic: true,
  });
  await batch([create(), { op: 'entities_delete', handles: ['DEAD'] }]);
  await batch([create(), { op: 'entities_delete', handles: ['DEAD'] }], { atomic: true });
  await h.ok('undo');
  await h.ok('redo');
  await batch([{ op: 'new' }, create(), { op: 'activate', document_id: doc }, create()]);
  const live: Reply['state'] = JSON.parse(JSON.stringify(h.session.state));
  const rebuilt = await rebuildProjection(h.store, editorSessionProjection(h.session.sessionId));
  expect(JSON.parse(JSON.stringify(rebuilt.state))).toEqual(live);
});
