import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type EventStore, openStore, type RecordedEvent } from '../../src/store/index.js';
import { LiveDelivery, type ReadNew, readByRanges } from '../../src/store/live-delivery.js';
import { subscribeToLog } from '../../src/store/subscription.js';
import { collect, positions, range, readAll, waitFor } from './helpers.js';
import { postgresSchemas, postgresUnavailable } from './postgres-helpers.js';

/**
 * The contract of live delivery (live-delivery.ts), the part the PostgreSQL and KurrentDB adapters
 * share, run over a log kept in a real store: the store stands for the other processes' writes and
 * its reads for the adapter's, through the read step the PostgreSQL adapter uses (`readByRanges`).
 */
const counted = (n: number) => ({ type: 'Counted', data: { n } });

function describeLiveDelivery(name: string, open: () => Promise<EventStore>): void {
  describe(`live delivery: ${name}`, () => {
    const opened: EventStore[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    /** A delivery over `store`'s log, counting its reads; `failReads` reads fail before the others. */
    async function setUp(options: { page?: number; failReads?: number } = {}) {
      const store = await open();
      opened.push(store);
      const counts = { reads: 0 };
      let failing = options.failReads ?? 0;
      const byRanges = readByRanges(async (from, to, limit) => {
        const events = await readAll(store, { from, maxCount: limit });
        return events.filter((event) => event.position <= to);
      }, options.page ?? 1_000);
      const readNew: ReadNew = async (published, target, publish) => {
        counts.reads += 1;
        if (failing > 0) {
          failing -= 1;
          throw new Error('the read failed');
        }
        await byRanges(published, target, publish);
      };
      const delivery = new LiveDelivery(async function* (stream, from, to) {
        for (const event of await readAll(store, { from })) {
          if (event.position > to) return;
          if (stream === undefined || event.stream === stream) yield event;
        }
      }, readNew);
      const delivered: RecordedEvent[][] = [];
      delivery.log.listen((events) => delivered.push([...events]));
      return { store, delivery, counts, delivered, flat: () => positions(delivered.flat()) };
    }

    it('hands own commits that follow the published head on without a read', async () => {
      const { store, delivery, counts, delivered } = await setUp();
      await store.append('own', [counted(1), counted(2)]);
      const known = await readAll(store);
      await delivery.advanceTo(2, known);
      expect(delivered).toEqual([known]);
      expect(counts.reads).toBe(0);
      expect(delivery.log.head()).toBe(2);
    });

    it('reads what another process committed: every event once, in order, whatever the order of the advances asked for', async () => {
      const { store, delivery, counts, flat } = await setUp({ page: 2 });
      for (let i = 0; i < 4; i++) await store.append(`s-${i % 2}`, [counted(i), counted(i)]);
      await Promise.all([delivery.advanceTo(3), delivery.advanceTo(8), delivery.advanceTo(5)]);
      expect(flat()).toEqual(range(1, 8));
      expect(delivery.log.head()).toBe(8);
      // The third advance found its target published: two reads.
      expect(counts.reads).toBe(2);
    });

    it('reads own commits that do not follow the published head, with what came before them', async () => {
      const { store, delivery, counts, flat } = await setUp();
      await store.append('theirs', [counted(1), counted(2)]);
      await store.append('own', [counted(3)]);
      const known = (await readAll(store)).filter((event) => event.stream === 'own');
      await delivery.advanceTo(3, known);
      expect(flat()).toEqual([1, 2, 3]);
      expect(counts.reads).toBe(1);
    });

    it('moves the head over the positions of a deleted stream, delivering what is left', async () => {
      const { store, delivery, flat } = await setUp({ page: 2 });
      await store.append('gone', [counted(1), counted(2)]);
      await store.append('kept', [counted(3)]);
      await store.deleteStream('gone');
      const head = await store.headPosition();
      await delivery.advanceTo(head);
      expect(flat()).toEqual([3, head]);
      expect(delivery.log.head()).toBe(head);
    });

    it('a failed read rejects its advance only: the next one runs and delivers all', async () => {
      const { store, delivery, flat } = await setUp({ failReads: 1 });
      await store.append('s', [counted(1), counted(2), counted(3)]);
      const failed = delivery.advanceTo(3);
      const next = delivery.advanceTo(3);
      await expect(failed).rejects.toThrow('the read failed');
      await next;
      expect(flat()).toEqual([1, 2, 3]);
    });

    it('a target at or below the published head reads nothing; advanceOr runs its alternative then', async () => {
      const { store, delivery, counts, delivered } = await setUp();
      await store.append('s', [counted(1), counted(2), counted(3)]);
      delivery.startAt(2);
      await delivery.advanceTo(1);
      const alternatives: number[] = [];
      await delivery.advanceOr(2, () => alternatives.push(2));
      expect(counts.reads).toBe(0);
      await delivery.advanceOr(3, () => alternatives.push(3));
      expect(alternatives).toEqual([2]);
      expect(positions(delivered.flat())).toEqual([3]);
      expect(counts.reads).toBe(1);
    });

    it('serves subscribeToLog: catch-up, then live, then complete on close', async () => {
      const { store, delivery } = await setUp();
      await store.append('s', [counted(1), counted(2)]);
      delivery.startAt(2);
      const collected = collect(subscribeToLog(delivery.log, { from: 'start' }));
      await store.append('s', [counted(3)]);
      await delivery.advanceTo(3);
      await waitFor(() => collected.values.length >= 3, 'three events');
      await delivery.settled();
      delivery.close();
      expect(await collected.outcome).toEqual({ kind: 'complete' });
      expect(positions(collected.values)).toEqual([1, 2, 3]);
    });
  });
}

describeLiveDelivery('memory', () => openStore('memory:'));

const unavailable = await postgresUnavailable();
const schemas = postgresSchemas('live');
afterAll(() => schemas.dropAll());
if (unavailable !== undefined) {
  console.log(`skipped: live delivery on PostgreSQL: ${unavailable}`);
  describe('live delivery: postgres', () => {
    it.skip(`skipped: ${unavailable}`, () => undefined);
  });
} else {
  describeLiveDelivery('postgres', () => openStore(schemas.url()));
}
