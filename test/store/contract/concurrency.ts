import { describe, expect, it } from 'vitest';
import { type RecordedEvent, WrongExpectedRevisionError } from '../../../src/store/index.js';
import { positions, range, readAll, readStream, revisions } from '../helpers.js';
import type { Harness } from './harness.js';

interface Part {
  appender: number;
  seq: number;
  part: number;
}

interface Ack {
  appender: number;
  seq: number;
  size: number;
  stream: string;
  nextRevision: number;
  position: number;
}

const partOf = (event: RecordedEvent) => event.data as Part;

/**
 * Checks that every acknowledged append is in the log exactly where its result says, whole and
 * uninterrupted, and that nothing else is there.
 */
function checkAcks(all: readonly RecordedEvent[], acks: readonly Ack[]) {
  const byPosition = new Map(all.map((event) => [event.position, event]));
  for (const ack of acks) {
    for (let part = 0; part < ack.size; part++) {
      const event = byPosition.get(ack.position - ack.size + 1 + part);
      expect(event?.stream).toBe(ack.stream);
      expect(event?.revision).toBe(ack.nextRevision - ack.size + part);
      expect(event && partOf(event)).toEqual({ appender: ack.appender, seq: ack.seq, part });
    }
  }
  const ackedEvents = acks.reduce((sum, ack) => sum + ack.size, 0);
  expect(all).toHaveLength(ackedEvents);
  const keys = new Set(all.map((event) => JSON.stringify(partOf(event))));
  expect(keys.size).toBe(all.length);
}

export function concurrencyContract(h: Harness) {
  describe('concurrent appenders', () => {
    it('50 appenders x 20 appends to one stream, each expecting what it last saw: nothing lost or duplicated', async () => {
      const store = await h.open();
      const APPENDERS = 50;
      const APPENDS = 20;
      const acks: Ack[] = [];
      let conflicts = 0;

      const appender = async (appender: number) => {
        // What this appender last saw of the stream: nothing yet.
        let seen: number | undefined;
        // 1 to 3 events per append, so atomicity is tested under contention too.
        const size = (appender % 3) + 1;
        for (let seq = 0; seq < APPENDS; ) {
          const events = range(0, size - 1).map((part) => ({ type: 'Part', data: { appender, seq, part } }));
          try {
            const result = await store.append('shared', events, { expectedRevision: seen ?? 'no_stream' });
            acks.push({ appender, seq, size, stream: 'shared', ...result });
            seen = result.nextRevision - 1;
            seq++;
          } catch (error) {
            if (!(error instanceof WrongExpectedRevisionError)) throw error;
            expect(error.actual).not.toBe(seen);
            seen = error.actual;
            conflicts++;
          }
        }
      };
      await Promise.all(range(0, APPENDERS - 1).map(appender));

      expect(acks).toHaveLength(APPENDERS * APPENDS);
      // The test is only meaningful if appenders really collided.
      expect(conflicts).toBeGreaterThan(0);
      const total = acks.reduce((sum, ack) => sum + ack.size, 0);
      const all = await readAll(store);
      expect(positions(all)).toEqual(range(1, total));
      const stream = await readStream(store, 'shared');
      expect(revisions(stream)).toEqual(range(0, total - 1));
      expect(stream).toEqual(all);
      checkAcks(all, acks);
      // Acknowledged results are unique and consistent with the order of the log.
      expect(new Set(acks.map((ack) => ack.position)).size).toBe(acks.length);
      for (let appender = 0; appender < APPENDERS; appender++) {
        const seqs = stream.filter((e) => partOf(e).appender === appender && partOf(e).part === 0);
        expect(seqs.map((e) => partOf(e).seq)).toEqual(range(0, APPENDS - 1));
      }
      expect(await store.headPosition()).toBe(total);
      expect(await store.streamRevision('shared')).toBe(total - 1);
    }, 30_000);

    it('50 appenders x 20 appends to their own streams: dense unique positions, no conflicts', async () => {
      const store = await h.open();
      const APPENDERS = 50;
      const APPENDS = 20;
      const acks: Ack[] = [];
      const appender = async (appender: number) => {
        const stream = `own-${appender}`;
        const size = (appender % 2) + 1;
        for (let seq = 0; seq < APPENDS; seq++) {
          const events = range(0, size - 1).map((part) => ({ type: 'Part', data: { appender, seq, part } }));
          // Half of them state what they expect; the other half append whatever the state.
          const expectedRevision = appender % 2 === 0 ? (seq === 0 ? 'no_stream' : seq * size - 1) : 'any';
          const result = await store.append(stream, events, { expectedRevision });
          expect(result.nextRevision).toBe((seq + 1) * size);
          acks.push({ appender, seq, size, stream, ...result });
        }
      };
      await Promise.all(range(0, APPENDERS - 1).map(appender));

      const total = acks.reduce((sum, ack) => sum + ack.size, 0);
      const all = await readAll(store);
      expect(positions(all)).toEqual(range(1, total));
      checkAcks(all, acks);
      for (let appender = 0; appender < APPENDERS; appender++) {
        const stream = await readStream(store, `own-${appender}`);
        const size = (appender % 2) + 1;
        expect(revisions(stream)).toEqual(range(0, APPENDS * size - 1));
        expect(stream.map((e) => partOf(e).seq)).toEqual(
          range(0, APPENDS * size - 1).map((i) => Math.floor(i / size)),
        );
        expect(await store.streamRevision(`own-${appender}`)).toBe(APPENDS * size - 1);
      }
    }, 30_000);

    it('every acknowledged append is readable as soon as it is acknowledged', async () => {
      const store = await h.open();
      const problems: string[] = [];
      const appender = async (appender: number) => {
        for (let seq = 0; seq < 10; seq++) {
          const result = await store.append(`read-own-${appender % 5}`, [
            { type: 'Part', data: { appender, seq, part: 0 } },
            { type: 'Part', data: { appender, seq, part: 1 } },
          ]);
          const [found] = await readAll(store, { from: result.position, maxCount: 1 });
          if (found === undefined || partOf(found).seq !== seq || partOf(found).appender !== appender) {
            problems.push(`append ${appender}/${seq} at ${result.position} not readable`);
          }
          if ((await store.headPosition()) < result.position) problems.push(`head behind ${result.position}`);
        }
      };
      await Promise.all(range(0, 19).map(appender));
      expect(problems).toEqual([]);
      expect(positions(await readAll(store))).toEqual(range(1, 400));
    });
  });
}
