import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../../src/store/index.js';
import { readAll } from '../helpers.js';
import { type Harness, requireDurable } from './harness.js';

interface CatalogState {
  streams: Record<string, { events: number; deleted: boolean }>;
  names: string[];
}

const snapshot = (position: number): Snapshot<CatalogState> => ({
  name: 'stream-catalog',
  version: 3,
  position,
  state: { streams: { 'order-1': { events: position, deleted: false } }, names: ['order-1', 'é 🎉'] },
});

export function snapshotContract(h: Harness) {
  describe('snapshots', () => {
    it('saves, loads, replaces and deletes snapshots by name, apart from the event log', async () => {
      const store = await h.open();
      expect(await store.loadSnapshot('stream-catalog')).toBeUndefined();
      await store.append('order-1', [{ type: 'Placed', data: {} }]);

      await store.saveSnapshot(snapshot(1));
      await store.saveSnapshot({ name: 'other', version: 1, position: 0, state: null });
      expect(await store.loadSnapshot<CatalogState>('stream-catalog')).toEqual(snapshot(1));
      await store.saveSnapshot(snapshot(5));
      expect(await store.loadSnapshot<CatalogState>('stream-catalog')).toEqual(snapshot(5));
      expect(await store.loadSnapshot('other')).toEqual({
        name: 'other',
        version: 1,
        position: 0,
        state: null,
      });

      // Snapshots are not events.
      expect(await store.headPosition()).toBe(1);
      expect(await readAll(store)).toHaveLength(1);

      await store.deleteSnapshot('stream-catalog');
      expect(await store.loadSnapshot('stream-catalog')).toBeUndefined();
      expect(await store.loadSnapshot('other')).not.toBeUndefined();
      await store.deleteSnapshot('never-saved');
    });

    it('keeps a snapshot of many MB of JSON whole: saved, replaced, shrunk and deleted', async () => {
      const store = await h.open();
      // A drawing-like state: a wide dictionary of entities and a long list, about 6 MB of JSON.
      const big = (mark: number) => {
        const entities: Record<string, unknown> = {};
        for (let i = 0; i < 30_000; i++)
          entities[`H${i}`] = { handle: `H${i}`, mark, start: [i, i / 3, 0], text: 'é 🎉 "quoted" \\' };
        return {
          name: 'editor-session-live:big',
          version: 6,
          position: mark,
          state: { entities, order: Object.keys(entities) },
        };
      };
      await store.saveSnapshot(big(1));
      expect(await store.loadSnapshot('editor-session-live:big')).toEqual(big(1));
      await store.saveSnapshot(big(2));
      expect(await store.loadSnapshot('editor-session-live:big')).toEqual(big(2));
      const small = { name: 'editor-session-live:big', version: 6, position: 3, state: { entities: {} } };
      await store.saveSnapshot(small);
      expect(await store.loadSnapshot('editor-session-live:big')).toEqual(small);
      await store.saveSnapshot(big(4));
      await store.deleteSnapshot('editor-session-live:big');
      expect(await store.loadSnapshot('editor-session-live:big')).toBeUndefined();
    });

    it('snapshots and their deletion survive reopen', async (ctx) => {
      requireDurable(h, ctx, 'close');
      const first = await h.open();
      await first.saveSnapshot(snapshot(9));
      await first.saveSnapshot({ name: 'doomed', version: 1, position: 2, state: { x: 1 } });
      await first.deleteSnapshot('doomed');
      const store = await h.reopen(first);
      expect(await store.loadSnapshot<CatalogState>('stream-catalog')).toEqual(snapshot(9));
      expect(await store.loadSnapshot('doomed')).toBeUndefined();
      await store.deleteSnapshot('stream-catalog');
      const again = await h.reopen(store);
      expect(await again.loadSnapshot('stream-catalog')).toBeUndefined();
    });
  });
}
