/**
 * The interactive picks of a GUI-hosted editor: getpoint and user_select answer `pending` at once and
 * wait for the person at the viewer (answered through `session.act`, as the viewer does), or for a
 * cancel; other mutations are `busy` meanwhile; reads, `operation` and `events` report it all.
 */
import { describe, expect, it } from 'vitest';
import { completePick, viewerSelection } from '../../../src/editor/picks.js';
import { openStore } from '../../../src/store/open.js';
import { type Harness, type Reply, resultOf, startHarness } from './helpers.js';

const line = (a: number[], b: number[]) => ({ type: 'line', layer: '0', start: a, end: b });

/** The person's answer in the viewer, as the viewer's server sends it. */
const answerPick = (h: Harness, requestId: string, input: Record<string, unknown>) =>
  h.session.act((state) => completePick(state, requestId, input));

describe('picks in a GUI-hosted editor', () => {
  it('getpoint is pending at once, then completed with the point the person picked', async () => {
    const h = await startHarness({ gui: true });
    try {
      const doc = await h.newDoc();
      const asked = await h.call('getpoint', { prompt: 'Centre of the hole' });
      expect(asked).toMatchObject({ ok: true, status: 'pending', document_id: doc });
      const id = asked.request_id as string;
      expect(asked.result).toMatchObject({ op: 'getpoint', prompt: 'Centre of the hole' });
      expect(asked.state.operation).toEqual({
        request_id: id,
        op: 'getpoint',
        status: 'pending',
        prompt: 'Centre of the hole',
      });
      expect(await h.call('operation', { request_id: id })).toMatchObject({
        ok: true,
        status: 'pending',
        result: { request_id: id, op: 'getpoint', status: 'pending' },
      });

      const answered = await answerPick(h, id, { point: [3, 4] });
      expect(answered).toMatchObject({ ok: true, result: { request_id: id, point: [3, 4, 0] } });
      const op = await h.call('operation', { request_id: id });
      expect(op.status).toBe('completed');
      expect(op.result).toMatchObject({
        point: [3, 4, 0],
        status: 'completed',
        answer: { ok: true, status: 'completed', request_id: id, result: { point: [3, 4, 0] } },
      });
      expect((await h.raw({ protocol: 1, op: 'state' })).state.operation).toBeNull();
      // An idempotent retry of the getpoint answers its final answer, not a second pick.
      const again = await h.raw({
        protocol: 1,
        op: 'getpoint',
        request_id: id,
        prompt: 'Centre of the hole',
      });
      expect(again).toMatchObject({ ok: true, status: 'completed', result: { point: [3, 4, 0] } });
      const types = (await h.events()).map((e) => e.type);
      expect(types.filter((t) => t.startsWith('Pick'))).toEqual(['PickRequested', 'PickCompleted']);
    } finally {
      await h.close();
    }
  });

  it('user_select completes with the handles in pick order; count caps them; the events op lists both answers', async () => {
    const h = await startHarness({ gui: true });
    try {
      await h.newDoc();
      const [a, b, c] = await h.create([line([0, 0], [1, 0]), line([0, 1], [1, 1]), line([0, 2], [1, 2])]);
      const cursor = (await h.call('events', {})).result?.cursor as number;
      const asked = await h.call('user_select', { count: 2 });
      expect(asked).toMatchObject({
        ok: true,
        status: 'pending',
        result: { prompt: 'Select objects', count: 2 },
      });
      const id = asked.request_id as string;
      expect(await answerPick(h, id, { handles: [a, b, c] })).toMatchObject({
        ok: false,
        code: 'invalid_handles',
      });
      expect(await answerPick(h, id, { handles: ['FFFF'] })).toMatchObject({
        ok: false,
        code: 'entity_absent',
      });
      expect(await answerPick(h, 'other', { handles: [a] })).toMatchObject({
        ok: false,
        code: 'no_pick_pending',
      });
      expect(await answerPick(h, id, { handles: [c, a] })).toMatchObject({ ok: true });
      const op = await h.call('operation', { request_id: id });
      expect(op.result).toMatchObject({
        status: 'completed',
        answer: { result: { cancelled: false, handles: [c, a], count: 2, ignored: 0 } },
      });
      // The entities come along, at detail full by default (as the reference editor's user_select).
      const answer = op.result?.answer as
        | { result: { entities: Array<Record<string, unknown>> } }
        | undefined;
      const picked = answer?.result.entities ?? [];
      expect(picked.map((e) => e.handle)).toEqual([c, a]);
      expect(picked[0]).toMatchObject({ type: 'Line', start: [0, 2, 0], bounds: expect.any(Object) });
      // No second answer: nothing is pending any more.
      expect(await answerPick(h, id, { handles: [b] })).toMatchObject({ ok: false, code: 'no_pick_pending' });
      const listed = (await h.call('events', { after: cursor })).result?.events as Array<
        Record<string, unknown>
      >;
      expect(listed.filter((e) => e.request_id === id).map((e) => e.status)).toEqual([
        'pending',
        'completed',
      ]);
    } finally {
      await h.close();
    }
  });

  it('user_select filters by type and layer (the others counted in ignored) and answers at its detail', async () => {
    const h = await startHarness({ gui: true });
    try {
      await h.newDoc();
      const [a, circle, b] = await h.create([
        line([0, 0], [1, 0]),
        { type: 'circle', layer: '0', center: [5, 5], radius: 1 },
        { ...line([0, 1], [1, 1]), layer: 'EDGES' },
      ]);
      expect(await h.call('user_select', { detail: 'everything' })).toMatchObject({
        ok: false,
        code: 'invalid_detail',
      });
      const id = (await h.call('user_select', { type: 'LINE', layer: 'edges', detail: 'summary' }))
        .request_id as string;
      expect(await answerPick(h, id, { handles: [a, circle, b] })).toMatchObject({ ok: true });
      const settled = (await h.call('operation', { request_id: id })).result;
      expect(settled).toMatchObject({
        status: 'completed',
        cancelled: false,
        handles: [b],
        count: 1,
        ignored: 2,
        entities: [{ handle: b, type: 'Line', layer: 'EDGES' }],
      });
      const entities = (settled?.entities ?? []) as Array<Record<string, unknown>>;
      expect(entities[0]).not.toHaveProperty('start');
    } finally {
      await h.close();
    }
  });

  it('while a pick is pending other mutations are busy, naming it; reads, state, get_selection, operation and events answer', async () => {
    const h = await startHarness({ gui: true });
    try {
      const doc = await h.newDoc();
      const [a] = await h.create([line([0, 0], [5, 5])]);
      const asked = await h.call('user_select', { prompt: 'Pick the edge' });
      const id = asked.request_id as string;
      const before = (await h.events()).length;
      for (const [op, fields, code] of [
        ['entities_create', { document_id: doc, entities: [line([0, 0], [1, 1])] }, 'busy'],
        ['new', {}, 'busy'],
        ['undo', {}, 'busy'],
        // Another pick is the reference editor's interactive_pending: one person answers one at a time.
        ['getpoint', {}, 'interactive_pending'],
        ['user_select', {}, 'interactive_pending'],
        ['view_focus', { document_id: doc, handles: [a] }, 'busy'],
      ] as const) {
        const answer = await h.call(op, fields);
        expect(answer, op).toMatchObject({
          ok: false,
          code,
          pending: { request_id: id, op: 'user_select' },
        });
        expect(answer.error).toContain(id);
      }
      // Busy answers are not recorded: a retry with the same request id runs once the pick is over.
      expect((await h.events()).length).toBe(before);
      // An op that does not exist is still named as such.
      expect(await h.call('no_such_op')).toMatchObject({ ok: false, code: 'unknown_operation' });
      expect(await h.call('query', { document_id: doc })).toMatchObject({ ok: true, count: 1 });
      expect(await h.call('get_selection')).toMatchObject({ ok: true, status: 'completed' });
      expect(await h.call('events', {})).toMatchObject({ ok: true });
      expect((await h.raw({ protocol: 1, op: 'state' })).state.operation).toMatchObject({ request_id: id });
      // The viewer cannot change the selection either while the pick waits.
      expect(await h.session.act((s) => viewerSelection(s, doc, [a]))).toMatchObject({
        ok: false,
        code: 'busy',
      });

      const retried = 'create-after-pick';
      const refused = await h.call('entities_create', {
        request_id: retried,
        document_id: doc,
        entities: [line([0, 0], [2, 2])],
      });
      expect(refused.code).toBe('busy');
      await h.ok('cancel', { id });
      const ran = await h.call('entities_create', {
        request_id: retried,
        document_id: doc,
        entities: [line([0, 0], [2, 2])],
      });
      expect(ran).toMatchObject({ ok: true, status: 'completed' });
    } finally {
      await h.close();
    }
  });

  it('cancel ends the pending pick (by id or without one); cancelling what is not pending says so', async () => {
    const h = await startHarness({ gui: true });
    try {
      await h.newDoc();
      const first = (await h.call('getpoint')).request_id as string;
      // The cancel answers as the pick settles (the reference editor's answer): status cancelled.
      const cancelled = await h.call('cancel', { target_request_id: first });
      expect(cancelled).toMatchObject({
        ok: true,
        status: 'cancelled',
        result: { cancelled: true, cancelled_request_id: first, op: 'getpoint' },
      });
      // The pick settles ok, status cancelled, result.cancelled: true; operation answers that status.
      const settled = await h.call('operation', { request_id: first });
      expect(settled).toMatchObject({
        ok: true,
        status: 'cancelled',
        result: {
          cancelled: true,
          status: 'cancelled',
          answer: { ok: true, status: 'cancelled', result: { cancelled: true } },
        },
      });
      const again = await h.call('cancel', { id: first });
      expect(again).toMatchObject({ ok: true, status: 'completed', result: { cancelled: false, count: 0 } });
      expect(again.result?.reason).toContain('cancelled');

      const second = (await h.call('user_select')).request_id as string;
      expect(await h.call('cancel', {})).toMatchObject({
        ok: true,
        result: { cancelled: true, count: 0, handles: [], entities: [], cancelled_request_id: second },
      });
      expect((await h.call('operation', { request_id: second })).result).toMatchObject({
        status: 'cancelled',
        cancelled: true,
        count: 0,
      });
      expect(await h.call('cancel', {})).toMatchObject({
        ok: true,
        result: { cancelled: false, count: 0, reason: 'no getpoint or user_select is pending' },
      });
      expect(await h.call('cancel', { id: 'never-sent' })).toMatchObject({
        ok: false,
        code: 'unknown_operation',
      });
      // Only the cancels that ended a pick are recorded with it.
      const events = await h.events();
      expect(
        events
          .filter((e) => e.type === 'PickCancelled')
          .map((e) => (e.data as { request_id: string }).request_id),
      ).toEqual([first, second]);
    } finally {
      await h.close();
    }
  });

  it('a pick needs an active document and valid fields', async () => {
    const h = await startHarness({ gui: true });
    try {
      expect(await h.call('getpoint')).toMatchObject({ ok: false, code: 'document_required' });
      await h.newDoc();
      expect(await h.call('getpoint', { prompt: 7 })).toMatchObject({ ok: false, code: 'invalid_request' });
      expect(await h.call('user_select', { count: 0 })).toMatchObject({ ok: false, code: 'invalid_request' });
      expect(await h.call('user_select', { single: 'yes' })).toMatchObject({
        ok: false,
        code: 'invalid_request',
      });
      const single = await h.call('user_select', { single: true });
      expect(single.result).toMatchObject({ single: true, count: 1 });
    } finally {
      await h.close();
    }
  });

  it('the viewer selection is recorded as SelectionChanged from the viewer, in the order picked', async () => {
    const h = await startHarness({ gui: true });
    try {
      const doc = await h.newDoc();
      const [a, b] = await h.create([line([0, 0], [1, 0]), line([0, 1], [1, 1])]);
      expect(await h.session.act((s) => viewerSelection(s, doc, [b, a]))).toMatchObject({
        ok: true,
        result: { handles: [b, a], count: 2 },
      });
      const selection = await h.call('get_selection');
      expect(
        resultOf<{ entities: Array<{ handle: string }> }>(selection).entities.map((e) => e.handle),
      ).toEqual([b, a]);
      const last = (await h.events()).filter((e) => e.type === 'SelectionChanged').at(-1);
      expect(last?.data).toEqual({ document_id: doc, handles: [b, a], source: 'viewer' });
      expect(await h.session.act((s) => viewerSelection(s, doc, ['FFFF']))).toMatchObject({
        ok: false,
        code: 'entity_absent',
      });
      expect(await h.session.act((s) => viewerSelection(s, 99, [a]))).toMatchObject({
        ok: false,
        code: 'document_closed',
      });
      const other = await h.newDoc();
      expect(other).not.toBe(doc);
      expect(await h.session.act((s) => viewerSelection(s, doc, [a]))).toMatchObject({
        ok: false,
        code: 'document_not_active',
      });
    } finally {
      await h.close();
    }
  });

  it('a pick pending at shutdown, or left by a crash, ends cancelled; operation reports it after the restart', async () => {
    const store = await openStore('memory:');
    try {
      const h = await startHarness({ gui: true, store, keepStore: true });
      await h.newDoc();
      const id = (await h.call('getpoint')).request_id as string;
      const sessionId = h.session.sessionId;
      await h.close();
      const resumed = await startHarness({ gui: true, store, keepStore: true, sessionId });
      expect((await resumed.raw({ protocol: 1, op: 'state' })).state.operation).toBeNull();
      const op = (await resumed.call('operation', { request_id: id })) as Reply;
      expect(op.result).toMatchObject({
        status: 'cancelled',
        answer: { ok: true, status: 'cancelled', result: { cancelled: true, by: 'shutdown' } },
      });

      // A crash: the session is dropped without close, and a new one over the same stream finds the pick.
      const crashed = (await resumed.call('user_select')).request_id as string;
      const again = await startHarness({ gui: true, store, keepStore: true, sessionId });
      expect(again.session.state.pick).toBeNull();
      expect((await again.call('operation', { request_id: crashed })).result).toMatchObject({
        status: 'cancelled',
        answer: { result: { cancelled: true, by: 'restart' } },
      });
      expect(
        await again.call('entities_create', { entities: [line([0, 0], [1, 1])], document_id: 1 }),
      ).toMatchObject({
        ok: true,
      });
      await again.close();
    } finally {
      await store.close();
    }
  });

  it('headless, the picks stay gui_required and record nothing', async () => {
    const h = await startHarness();
    try {
      await h.newDoc();
      const before = (await h.events()).length;
      expect(await h.call('getpoint')).toMatchObject({ ok: false, code: 'gui_required' });
      expect(await h.call('user_select')).toMatchObject({ ok: false, code: 'gui_required' });
      expect((await h.events()).length).toBe(before);
    } finally {
      await h.close();
    }
  });
});
