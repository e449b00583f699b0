import { describe, expect, it } from 'vitest';
import type { EventData, EventStore, RecordedEvent } from '../../../src/store/index.js';
import { positions, range, readAll, readStream, revisions } from '../helpers.js';
import type { Harness } from './harness.js';

const event = (type: string, data: unknown): EventData => ({ type, data });

/** Appends `count` one-event appends to `stream`, with data {stream, n}. */
async function appendSeveral(store: EventStore, stream: string, count: number) {
  for (let n = 0; n < count; n++) await store.append(stream, [event('Counted', { stream, n })]);
}

const summary = (events: readonly RecordedEvent[]) =>
  events.map((e) => `${e.position}:${e.stream}@${e.revision}:${e.type}`);

export function appendAndReadContract(h: Harness) {
  describe('append and read', () => {
    it('starts empty', async () => {
      const store = await h.open();
      expect(await store.headPosition()).toBe(0);
      expect(await readAll(store)).toEqual([]);
      expect(await readStream(store, 'nothing-here')).toEqual([]);
      expect(await readStream(store, 'nothing-here', { direction: 'backwards' })).toEqual([]);
      expect(await store.streamRevision('nothing-here')).toBeUndefined();
    });

    it('appends several events atomically with dense global positions from 1 and revisions from 0', async () => {
      const store = await h.open();
      const first = await store.append('order-1', [
        event('OrderPlaced', { id: 1 }),
        event('ItemAdded', { sku: 'a' }),
        event('ItemAdded', { sku: 'b' }),
      ]);
      expect(first).toEqual({ nextRevision: 3, position: 3 });
      expect(
        await store.append('order-2', [event('OrderPlaced', { id: 2 }), event('OrderPaid', {})]),
      ).toEqual({
        nextRevision: 2,
        position: 5,
      });
      expect(await store.append('order-1', [event('OrderPaid', { amount: 12.5 })])).toEqual({
        nextRevision: 4,
        position: 6,
      });

      const all = await readAll(store);
      expect(summary(all)).toEqual([
        '1:order-1@0:OrderPlaced',
        '2:order-1@1:ItemAdded',
        '3:order-1@2:ItemAdded',
        '4:order-2@0:OrderPlaced',
        '5:order-2@1:OrderPaid',
        '6:order-1@3:OrderPaid',
      ]);
      expect(all.map((e) => e.data)).toEqual([
        { id: 1 },
        { sku: 'a' },
        { sku: 'b' },
        { id: 2 },
        {},
        { amount: 12.5 },
      ]);
      expect(await store.headPosition()).toBe(6);
      expect(await store.streamRevision('order-1')).toBe(3);
      expect(await store.streamRevision('order-2')).toBe(1);
      expect(summary(await readStream(store, 'order-1'))).toEqual([
        '1:order-1@0:OrderPlaced',
        '2:order-1@1:ItemAdded',
        '3:order-1@2:ItemAdded',
        '6:order-1@3:OrderPaid',
      ]);
    });

    it('keeps event data as it was given (any JSON)', async () => {
      const store = await h.open();
      const data = [
        { nested: { list: [1, 'two', null, true, { deep: [] }] }, float: -0.125, big: 2 ** 53 - 1 },
        'a string',
        42,
        null,
        [],
        { unicode: 'é 漢字 🎉 \u2028', quote: '"\\' },
      ];
      await store.append(
        'json',
        data.map((d) => event('Data', d)),
      );
      const read = await readStream(store, 'json');
      expect(read.map((e) => e.data)).toEqual(data);
      expect((await readAll(store)).map((e) => e.data)).toEqual(data);
    });

    it('readStream goes forwards or backwards, from a revision, up to maxCount', async () => {
      const store = await h.open();
      // Interleave another stream so that revisions and positions differ.
      for (let n = 0; n < 5; n++) {
        await store.append('s', [event('S', { n })]);
        await store.append('other', [event('O', { n })]);
      }
      const all = await readStream(store, 's');
      expect(revisions(all)).toEqual([0, 1, 2, 3, 4]);
      expect(positions(all)).toEqual([1, 3, 5, 7, 9]);
      expect(all.map((e) => e.data)).toEqual(range(0, 4).map((n) => ({ n })));
      expect(all.every((e) => e.stream === 's')).toBe(true);

      const read = async (options: Parameters<EventStore['readStream']>[1]) =>
        revisions(await readStream(store, 's', options));
      expect(await read({ from: 'start' })).toEqual([0, 1, 2, 3, 4]);
      expect(await read({ from: 2 })).toEqual([2, 3, 4]);
      expect(await read({ from: 5 })).toEqual([]);
      expect(await read({ maxCount: 2 })).toEqual([0, 1]);
      expect(await read({ from: 1, maxCount: 3 })).toEqual([1, 2, 3]);
      expect(await read({ from: 3, maxCount: 10 })).toEqual([3, 4]);
      expect(await read({ direction: 'forwards', from: 4 })).toEqual([4]);
      expect(await read({ direction: 'backwards' })).toEqual([4, 3, 2, 1, 0]);
      expect(await read({ direction: 'backwards', from: 'end' })).toEqual([4, 3, 2, 1, 0]);
      expect(await read({ direction: 'backwards', from: 2 })).toEqual([2, 1, 0]);
      expect(await read({ direction: 'backwards', maxCount: 2 })).toEqual([4, 3]);
      expect(await read({ direction: 'backwards', from: 3, maxCount: 2 })).toEqual([3, 2]);
      expect(await read({ direction: 'backwards', from: 0 })).toEqual([0]);
      expect(await read({ direction: 'backwards', from: 100 })).toEqual([4, 3, 2, 1, 0]);
      expect(await read({ maxCount: 0 })).toEqual([]);

      const backwards = await readStream(store, 's', { direction: 'backwards' });
      expect(backwards).toEqual([...all].reverse());
    });

    it('readAll reads the whole log from a position, up to maxCount', async () => {
      const store = await h.open();
      await appendSeveral(store, 'a', 4);
      await appendSeveral(store, 'b', 3);
      await appendSeveral(store, 'a', 3);
      const all = await readAll(store);
      expect(positions(all)).toEqual(range(1, 10));

      const read = async (options: Parameters<EventStore['readAll']>[0]) =>
        positions(await readAll(store, options));
      expect(await read({ from: 4 })).toEqual(range(4, 10));
      expect(await read({ from: 1 })).toEqual(range(1, 10));
      expect(await read({ from: 10 })).toEqual([10]);
      expect(await read({ from: 11 })).toEqual([]);
      expect(await read({ maxCount: 3 })).toEqual([1, 2, 3]);
      expect(await read({ from: 4, maxCount: 3 })).toEqual([4, 5, 6]);
      expect(await read({ from: 9, maxCount: 3 })).toEqual([9, 10]);
      expect(await read({ maxCount: 0 })).toEqual([]);
      expect(await readAll(store, { from: 5, maxCount: 2 })).toEqual(all.slice(4, 6));
    });

    it('fills in metadata.at and keeps the caller metadata', async () => {
      const store = await h.open();
      const before = Date.now();
      await store.append('meta', [
        {
          type: 'WithMetadata',
          data: {},
          metadata: {
            correlationId: 'corr-1',
            causationId: 'cause-1',
            requestId: 'req-1',
            userId: 'user-7',
            extra: { nested: [1, 2] },
          },
        },
        { type: 'WithoutMetadata', data: {} },
        { type: 'NumericUser', data: {}, metadata: { userId: 42 } },
        { type: 'NullUser', data: {}, metadata: { userId: null } },
        { type: 'OwnTime', data: {}, metadata: { at: '2020-01-02T03:04:05.000Z', requestId: 'req-2' } },
      ]);
      const after = Date.now();
      const [withMeta, without, numeric, nullUser, ownTime] = await readStream(store, 'meta');

      expect(withMeta?.metadata).toMatchObject({
        correlationId: 'corr-1',
        causationId: 'cause-1',
        requestId: 'req-1',
        userId: 'user-7',
        extra: { nested: [1, 2] },
      });
      for (const recorded of [withMeta, without, numeric, nullUser]) {
        const at = recorded?.metadata.at;
        expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
        const time = Date.parse(at ?? '');
        expect(time).toBeGreaterThanOrEqual(before - 1);
        expect(time).toBeLessThanOrEqual(after + 1);
      }
      expect(without?.metadata).toEqual({ at: without?.metadata.at });
      expect(numeric?.metadata.userId).toBe(42);
      expect(nullUser?.metadata.userId).toBeNull();
      expect(ownTime?.metadata).toEqual({ at: '2020-01-02T03:04:05.000Z', requestId: 'req-2' });
      // The same metadata through readAll.
      expect((await readAll(store)).map((e) => e.metadata)).toEqual(
        [withMeta, without, numeric, nullUser, ownTime].map((e) => e?.metadata),
      );
    });

    it('does not change what the caller passed in', async () => {
      const store = await h.open();
      const events: EventData[] = [{ type: 'T', data: { a: 1 }, metadata: { requestId: 'r' } }];
      const copy = structuredClone(events);
      await store.append('untouched', events);
      expect(events).toEqual(copy);
    });
  });
}
