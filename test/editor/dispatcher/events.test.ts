/**
 * The `events` op: mutation answers after a cursor, read from the event log, so a cursor taken before
 * a restart still works with the next session on the same store.
 */
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open.js';
import { type Reply, scratchDir, startHarness } from './helpers.js';

const LINE = { type: 'line', layer: '0', start: [0, 0], end: [1, 1] };

interface Page {
  cursor: number;
  resync: boolean;
  count: number;
  events: Array<{
    sequence: number;
    request_id: string;
    op: string;
    status: string;
    document_id: number | null;
    revision: number | null;
  }>;
}
const pageOf = (answer: Reply) => answer.result as unknown as Page;

describe('events', () => {
  it('pages through answers in log order, failures included, and survives a restart', async () => {
    const dir = await scratchDir();
    const url = `level:${dir.path('events')}`;
    let store = await openStore(url);
    const first = await startHarness({ store, keepStore: true });
    let cursor = 0;
    try {
      const doc = await first.newDoc();
      const made = await first.ok('entities_create', { document_id: doc, entities: [LINE] });
      const failed = await first.call('entities_delete', { document_id: doc, handles: ['FFFF'] });
      expect(failed.ok).toBe(false);

      const all = pageOf(await first.ok('events', { after: 0 }));
      expect(all.resync).toBe(false);
      expect(all.events.map((e) => [e.op, e.status])).toEqual([
        ['new', 'completed'],
        ['entities_create', 'completed'],
        ['entities_delete', 'failed'],
      ]);
      expect(all.events[1]).toMatchObject({ request_id: made.request_id, document_id: doc, revision: 1 });
      const sequences = all.events.map((e) => e.sequence);
      expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
      expect(all.cursor).toBeGreaterThanOrEqual(sequences.at(-1) as number);

      // limit pages; the cursor of a page is where the next one starts.
      const one = pageOf(await first.ok('events', { after: 0, limit: 1 }));
      expect(one.events.map((e) => e.op)).toEqual(['new']);
      const next = pageOf(await first.ok('events', { after: one.cursor, limit: '2' }));
      expect(next.events.map((e) => e.op)).toEqual(['entities_create', 'entities_delete']);
      cursor = all.cursor;
      expect(pageOf(await first.ok('events', { after: cursor })).events).toEqual([]);
    } finally {
      await first.close();
      await store.close();
    }

    store = await openStore(url);
    const second = await startHarness({ store });
    try {
      const doc = await second.newDoc();
      await second.ok('entities_create', { document_id: doc, entities: [LINE] });
      const after = pageOf(await second.ok('events', { after: cursor }));
      expect(after.resync).toBe(false);
      expect(after.events.map((e) => e.op)).toEqual(['new', 'entities_create']);
      expect(pageOf(await second.ok('events', { after: 0 })).count).toBe(5);
    } finally {
      await second.close();
      await dir.remove();
    }
  });

  it('a cursor ahead of the log asks for a resync; bad cursors and limits are invalid_query', async () => {
    const h = await startHarness();
    try {
      const ahead = await h.ok('events', { after: 1_000_000 });
      expect(pageOf(ahead)).toMatchObject({ resync: true, events: [], count: 0 });
      expect(ahead.resync).toBe(true);
      for (const fields of [{ after: -1 }, { after: 'x' }, { after: 1.5 }, { limit: 0 }, { limit: 1001 }]) {
        expect(await h.call('events', fields), JSON.stringify(fields)).toMatchObject({
          ok: false,
          code: 'invalid_query',
        });
      }
    } finally {
      await h.close();
    }
  });
});
