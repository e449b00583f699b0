import { describe, expect, it } from 'vitest';
import {
  type EventData,
  type EventStore,
  type ExpectedRevision,
  StoreError,
  WrongExpectedRevisionError,
} from '../../../src/store/index.js';
import { caught, positions, range, readAll, readStream } from '../helpers.js';
import type { Harness } from './harness.js';

const one = (n: number): EventData[] => [{ type: 'Happened', data: { n } }];

async function conflict(store: EventStore, stream: string, expectedRevision: ExpectedRevision) {
  return caught(
    store.append(stream, [{ type: 'MustNotBeWritten', data: {} }], { expectedRevision }),
    WrongExpectedRevisionError,
  );
}

export function expectedRevisionContract(h: Harness) {
  describe('expectedRevision', () => {
    it('an exact revision succeeds only when it is the stream’s last revision', async () => {
      const store = await h.open();
      await store.append('s', [...one(0), ...one(1)]);
      expect(await store.append('s', one(2), { expectedRevision: 1 })).toEqual({
        nextRevision: 3,
        position: 3,
      });

      const stale = await conflict(store, 's', 1);
      expect(stale).toBeInstanceOf(StoreError);
      expect(stale.code).toBe('wrong_expected_revision');
      expect(stale.stream).toBe('s');
      expect(stale.expected).toBe(1);
      expect(stale.actual).toBe(2);
      expect(stale.message).toContain('"s"');

      const ahead = await conflict(store, 's', 7);
      expect([ahead.expected, ahead.actual]).toEqual([7, 2]);

      expect(await store.append('s', one(3), { expectedRevision: 2 })).toEqual({
        nextRevision: 4,
        position: 4,
      });
    });

    it('an exact revision on a missing stream conflicts with actual undefined', async () => {
      const store = await h.open();
      const error = await conflict(store, 'missing', 0);
      expect(error.stream).toBe('missing');
      expect(error.expected).toBe(0);
      expect(error.actual).toBeUndefined();
    });

    it("'any' (also the default) appends whatever the stream's state", async () => {
      const store = await h.open();
      expect(await store.append('s', one(0), { expectedRevision: 'any' })).toEqual({
        nextRevision: 1,
        position: 1,
      });
      expect(await store.append('s', one(1), { expectedRevision: 'any' })).toEqual({
        nextRevision: 2,
        position: 2,
      });
      expect(await store.append('s', one(2))).toEqual({ nextRevision: 3, position: 3 });
      expect(await store.append('s', one(3), {})).toEqual({ nextRevision: 4, position: 4 });
    });

    it("'no_stream' succeeds only on a stream without events", async () => {
      const store = await h.open();
      expect(await store.append('s', one(0), { expectedRevision: 'no_stream' })).toEqual({
        nextRevision: 1,
        position: 1,
      });
      const error = await conflict(store, 's', 'no_stream');
      expect(error.stream).toBe('s');
      expect(error.expected).toBe('no_stream');
      expect(error.actual).toBe(0);
    });

    it("'stream_exists' succeeds only on a stream with events", async () => {
      const store = await h.open();
      const error = await conflict(store, 's', 'stream_exists');
      expect(error.stream).toBe('s');
      expect(error.expected).toBe('stream_exists');
      expect(error.actual).toBeUndefined();
      await store.append('s', one(0));
      expect(await store.append('s', one(1), { expectedRevision: 'stream_exists' })).toEqual({
        nextRevision: 2,
        position: 2,
      });
    });

    it('a failed append writes nothing: positions stay dense', async () => {
      const store = await h.open();
      await store.append('a', one(0));
      await conflict(store, 'a', 'no_stream');
      await conflict(store, 'a', 5);
      await conflict(store, 'b', 'stream_exists');
      await conflict(store, 'b', 0);
      expect(await store.headPosition()).toBe(1);
      expect(await store.streamRevision('b')).toBeUndefined();
      expect(await store.append('b', one(1), { expectedRevision: 'no_stream' })).toEqual({
        nextRevision: 1,
        position: 2,
      });
      expect(await store.append('a', one(2), { expectedRevision: 0 })).toEqual({
        nextRevision: 2,
        position: 3,
      });
      const all = await readAll(store);
      expect(positions(all)).toEqual(range(1, 3));
      expect(all.some((e) => e.type === 'MustNotBeWritten')).toBe(false);
    });

    it('appends racing on the same expected revision: exactly one wins, the others see its revision', async () => {
      const store = await h.open();
      await store.append('race', one(0));
      const attempts = await Promise.allSettled(
        range(1, 10).map((n) => store.append('race', one(n), { expectedRevision: 0 })),
      );
      const won = attempts.filter((a) => a.status === 'fulfilled');
      const lost = attempts.flatMap((a) => (a.status === 'rejected' ? [a.reason] : []));
      expect(won).toHaveLength(1);
      expect(won[0]?.status === 'fulfilled' && won[0].value).toEqual({ nextRevision: 2, position: 2 });
      expect(lost).toHaveLength(9);
      for (const error of lost) {
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).toBe(1);
      }

      const created = await Promise.allSettled(
        range(1, 5).map((n) => store.append('fresh', one(n), { expectedRevision: 'no_stream' })),
      );
      expect(created.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      expect(await readStream(store, 'fresh')).toHaveLength(1);
      expect(positions(await readAll(store))).toEqual(range(1, 3));
    });
  });
}
