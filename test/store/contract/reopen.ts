import { describe, expect, it } from 'vitest';
import { type EventStore, StoreClosedError, WrongExpectedRevisionError } from '../../../src/store/index.js';
import { caught, collect, positions, range, readAll, readStream, revisions } from '../helpers.js';
import { type Harness, requireDurable } from './harness.js';

const counted = (n: number) => ({ type: 'Counted', data: { n } });

async function seed(store: EventStore) {
  await store.append('a', [counted(0), counted(1), counted(2)]);
  await store.append('b', [counted(3)]);
  await store.append('a', [counted(4)]);
  await store.append('c', [counted(5), counted(6)]);
}

export function lifecycleContract(h: Harness) {
  describe('close and reopen', () => {
    it('refuses appends and deletes once closed', async () => {
      const store = await h.open();
      await store.append('a', [counted(0)]);
      await store.close();
      await store.close();
      await caught(store.append('a', [counted(1)]), StoreClosedError);
      await caught(store.deleteStream('a'), StoreClosedError);
    });

    it('close() lets the appends it found queued finish', async () => {
      const first = await h.open();
      const appends = range(0, 19).map((n) => first.append(`s-${n % 3}`, [counted(n)]));
      await first.close();
      const results = await Promise.allSettled(appends);
      const acknowledged = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.position] : []));
      expect(acknowledged.sort((x, y) => x - y)).toEqual(range(1, 20));
      if (!h.durable) return;
      const store = await h.reopen(first);
      expect(positions(await readAll(store))).toEqual(range(1, 20));
    });

    it('keeps everything across close and reopen, and continues positions and revisions', async (ctx) => {
      requireDurable(h, ctx, 'close');
      const first = await h.open();
      await seed(first);
      await first.saveSnapshot({ name: 'p', version: 1, position: 7, state: { seen: 7 } });
      const all = await readAll(first);
      const streamA = await readStream(first, 'a');

      const store = await h.reopen(first);
      expect(await store.headPosition()).toBe(7);
      expect(await readAll(store)).toEqual(all);
      expect(await readStream(store, 'a')).toEqual(streamA);
      expect(await readStream(store, 'a', { direction: 'backwards', maxCount: 2 })).toEqual(
        [...streamA].reverse().slice(0, 2),
      );
      expect(await store.streamRevision('a')).toBe(3);
      expect(await store.streamRevision('b')).toBe(0);
      expect(await store.streamRevision('c')).toBe(1);
      expect(await store.streamRevision('never')).toBeUndefined();

      // Expected revisions are checked against what is on disk, not against an empty cache.
      const stale = await caught(
        store.append('a', [counted(99)], { expectedRevision: 'no_stream' }),
        WrongExpectedRevisionError,
      );
      expect(stale.actual).toBe(3);
      await caught(store.append('b', [counted(99)], { expectedRevision: 5 }), WrongExpectedRevisionError);
      expect(await store.append('a', [counted(7)], { expectedRevision: 3 })).toEqual({
        nextRevision: 5,
        position: 8,
      });
      expect(await store.append('new', [counted(8)], { expectedRevision: 'no_stream' })).toEqual({
        nextRevision: 1,
        position: 9,
      });
      expect(
        await store.append('b', [counted(9), counted(10)], { expectedRevision: 'stream_exists' }),
      ).toEqual({
        nextRevision: 3,
        position: 11,
      });

      const replay = collect(store.subscribe({ from: 'start' }), { count: 11 });
      await replay.outcome;
      expect(positions(replay.values)).toEqual(range(1, 11));

      // And once more, to see the appends made after the first reopen.
      const again = await h.reopen(store);
      expect(positions(await readAll(again))).toEqual(range(1, 11));
      expect(revisions(await readStream(again, 'a'))).toEqual(range(0, 4));
      expect(revisions(await readStream(again, 'b'))).toEqual(range(0, 2));
      expect(await again.headPosition()).toBe(11);
      expect(await again.append('c', [counted(11)], { expectedRevision: 1 })).toEqual({
        nextRevision: 3,
        position: 12,
      });
      expect(await again.loadSnapshot('p')).toEqual({
        name: 'p',
        version: 1,
        position: 7,
        state: { seen: 7 },
      });
    });
  });
}
