/**
 * The dispatcher decides the next mutation while the previous one's append waits for its fsync, and
 * answers each only once its events are durable. These tests hold it to that on a real LevelDB store:
 * concurrent mutations share synced batches and are answered in order with consecutive revisions, a
 * read waits for the mutations queued before it, and an append that fails leaves no trace in the state
 * and no `ok` answer for what the log does not have.
 */
import { describe, expect, it } from 'vitest';
import { editorSessionProjection } from '../../../projections/editor-session.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore } from '../../../src/store/types.js';
import { freshId, type Reply, scratchDir, startHarness } from './helpers.js';

const LINE = { type: 'line', layer: '0', start: [0, 0], end: [10, 5] };

/** The request ids of the session's OperationAnswered events, in log order. */
async function answeredIds(store: EventStore, stream: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const event of store.readStream(stream)) {
    if (event.type === 'OperationAnswered') ids.push((event.data as { request_id: string }).request_id);
  }
  return ids;
}

describe('pipelined mutations', () => {
  it('64 concurrent creates are answered in order, one revision each, and all are in the log', async () => {
    const dir = await scratchDir();
    const store = await openStore(`level:${dir.path('events')}`);
    const h = await startHarness({ store });
    try {
      const doc = await h.newDoc();
      const ids = Array.from({ length: 64 }, () => freshId('line'));
      const answers = await Promise.all(
        ids.map((request_id) =>
          h.raw({ protocol: 1, op: 'entities_create', request_id, document_id: doc, entities: [LINE] }),
        ),
      );
      expect(answers.every((a) => a.ok)).toBe(true);
      // Decided in arrival order: revision i + 1 for the i-th request, each answer's state right after it.
      expect(answers.map((a) => a.state.revision)).toEqual(ids.map((_, i) => i + 1));
      const logged = await answeredIds(store, `editor-session-${h.session.sessionId}`);
      expect(logged.slice(-64)).toEqual(ids);
      const rebuilt = await rebuildProjection(store, editorSessionProjection(h.session.sessionId));
      expect(JSON.parse(JSON.stringify(rebuilt.state))).toEqual(JSON.parse(JSON.stringify(h.session.state)));
    } finally {
      await h.close();
      await dir.remove();
    }
  });

  it('a read queued behind mutations answers with all of them applied', async () => {
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const creates = Array.from({ length: 10 }, () =>
        h.call('entities_create', { document_id: doc, entities: [LINE] }),
      );
      const count = h.call('query', { document_id: doc, limit: 0 });
      const [answer] = await Promise.all([count, ...creates]);
      expect(answer.ok).toBe(true);
      expect((answer as Reply).count).toBe(10);
    } finally {
      await h.close();
    }
  });

  it('an append that fails is answered internal_error, and the state keeps only what the log has', async () => {
    const dir = await scratchDir();
    const url = `level:${dir.path('events')}`;
    let store = await openStore(url);
    const h = await startHarness({ store, keepStore: true });
    const stream = `editor-session-${h.session.sessionId}`;
    try {
      const doc = await h.newDoc();
      await h.create([LINE]);
      // Closing the store under queued mutations makes their appends fail (StoreClosedError).
      const pending = Array.from({ length: 8 }, () =>
        h.call('entities_create', { document_id: doc, entities: [LINE] }),
      );
      await store.close();
      const answers = await Promise.all(pending);
      for (const answer of answers) {
        if (!answer.ok) expect(answer.code).toBe('internal_error');
      }
      const okIds = answers.filter((a) => a.ok).map((a) => a.request_id as string);
      const failedIds = answers.filter((a) => !a.ok).map((a) => a.request_id as string);
      expect(failedIds.length).toBeGreaterThan(0);

      store = await openStore(url);
      const logged = await answeredIds(store, stream);
      for (const id of okIds) expect(logged).toContain(id);
      for (const id of failedIds) expect(logged).not.toContain(id);
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  it('an event the store refuses (over 4 MiB) changes nothing, and the next request goes on from there', async () => {
    const dir = await scratchDir();
    const store = await openStore(`level:${dir.path('events')}`);
    const h = await startHarness({ store, keepStore: true });
    try {
      const doc = await h.newDoc();
      await h.create([LINE]);
      // The store's size check runs before anything is applied or appended.
      const huge = 'x'.repeat(5 * 1024 * 1024);
      const refused = await h.call('entities_create', {
        document_id: doc,
        entities: [{ type: 'text', layer: '0', position: [0, 0], height: 1, value: huge }],
      });
      expect(refused).toMatchObject({ ok: false, code: 'too_large' });
      expect(refused.error).toMatch(/EntitiesCreated.* bytes/);
      const after = await h.call('entities_create', { document_id: doc, entities: [LINE] });
      expect(after.ok).toBe(true);
      expect(after.state.revision).toBe(2);
      const rebuilt = await rebuildProjection(store, editorSessionProjection(h.session.sessionId));
      expect(JSON.parse(JSON.stringify(rebuilt.state))).toEqual(JSON.parse(JSON.stringify(h.session.state)));
    } finally {
      await h.close();
      await store.close();
      await dir.remove();
    }
  });
});
