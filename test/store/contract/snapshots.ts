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
