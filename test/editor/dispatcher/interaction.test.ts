/**
 * view_focus, and the interactive picks of a headless editor: getpoint and user_select are refused
 * with gui_required (nothing waits), cancel answers at once.
 */
import { describe, expect, it } from 'vitest';
import { startHarness } from './helpers.js';

const line = (a: number[], b: number[]) => ({ type: 'line', layer: '0', start: a, end: b });

describe('view_focus', () => {
  it('frames the joint extent of handles with a 5% margin, records it, and is not an undo step', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const [a, b] = await h.create([line([0, 0], [10, 0]), line([0, 0], [0, 4])]);
      const revision = await h.revision();
      const focused = await h.ok('view_focus', { document_id: doc, handles: [a, b] });
      expect(focused.result).toEqual({ center: [5, 2], width: 11, height: 11, handles: [a, b] });
      expect(h.session.state.documents[String(doc)]?.view).toEqual({ center: [5, 2], width: 11, height: 11 });
      // Not a step: the revision stays, and undo undoes the create before it.
      expect(await h.revision()).toBe(revision);
      const undone = await h.ok('undo', { document_id: doc });
      expect(undone.changes?.map((c) => c.handle).sort()).toEqual([a, b].sort());
      const events = await h.events();
      expect(events.filter((e) => e.type === 'ViewFocused')).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('frames a window given in any corner order; a single point gets a unit view', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const window = await h.ok('view_focus', { document_id: doc, window: [20, 10, 0, 0] });
      expect(window.result).toMatchObject({ center: [10, 5], width: 22, height: 22 });
      const point = await h.ok('view_focus', { document_id: doc, window: [3, 3, 3, 3] });
      expect(point.result).toMatchObject({ center: [3, 3], width: 1, height: 1 });
    } finally {
      await h.close();
    }
  });

  it('refuses what it cannot frame, each with its code, and records no view', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'invalid_request'],
        [{ handles: ['1'], window: [0, 0, 1, 1] }, 'invalid_request'],
        [{ window: [0, 0, 1] }, 'invalid_point'],
        [{ window: [0, 0, 1, 'x'] }, 'invalid_point'],
        [{ handles: 'A' }, 'invalid_handles'],
        [{ handles: [] }, 'invalid_handles'],
        [{ handles: ['FFFF'] }, 'entity_absent'],
      ];
      for (const [fields, code] of cases) {
        const answer = await h.call('view_focus', { document_id: doc, ...fields });
        expect(answer, JSON.stringify(fields)).toMatchObject({ ok: false, code });
      }
      expect(h.session.state.documents[String(doc)]?.view).toBeNull();
    } finally {
      await h.close();
    }
  });
});

describe('interactive picks in a headless editor', () => {
  it('getpoint and user_select answer gui_required at once and record nothing', async () => {
    const h = await startHarness();
    try {
      await h.newDoc();
      const before = (await h.events()).length;
      for (const op of ['getpoint', 'user_select']) {
        const answer = await h.call(op, { prompt: 'pick' });
        expect(answer).toMatchObject({ ok: false, code: 'gui_required' });
        expect(answer.error).toContain('headless');
      }
      expect((await h.events()).length).toBe(before);
    } finally {
      await h.close();
    }
  });

  it('cancel answers at once with nothing cancelled; an id it never saw is unknown_operation', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const created = await h.ok('entities_create', { document_id: doc, entities: [line([0, 0], [1, 1])] });
      expect(await h.call('cancel')).toMatchObject({ ok: true, result: { cancelled: false, count: 0 } });
      expect(await h.call('cancel', { id: created.request_id })).toMatchObject({ ok: true });
      expect(await h.call('cancel', { id: 'never-sent' })).toMatchObject({
        ok: false,
        code: 'unknown_operation',
      });
    } finally {
      await h.close();
    }
  });
});
