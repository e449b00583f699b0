import { config, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  type EventStore,
  type RecordedEvent,
  StreamDeletedError,
  SubscriberTooSlowError,
} from '../../../src/store/index.js';
import {
  busyWait,
  type Collected,
  collect,
  nextTurn,
  positions,
  range,
  readAll,
  readStream,
  sleep,
  waitFor,
} from '../helpers.js';
import type { Harness } from './harness.js';

const counted = (n: number) => ({ type: 'Counted', data: { n } });

/** `loops` concurrent appenders, each making `appends` appends of 1 or 2 events to one of 3 streams. */
function appendConcurrently(
  store: EventStore,
  loops: number,
  appends: number,
  onAppended?: (loop: number, i: number) => void,
) {
  return Promise.all(
    range(0, loops - 1).map(async (loop) => {
      for (let i = 0; i < appends; i++) {
        const events = i % 4 === 0 ? [counted(i), counted(i)] : [counted(i)];
        await store.append(`busy-${loop % 3}`, events);
        onAppended?.(loop, i);
        if (i % 7 === 0) await nextTurn();
      }
    }),
  );
}

/** Waits until `collected` holds `count` values, then a little longer so a duplicate would show. */
async function settled(collected: Collected<RecordedEvent>, count: number) {
  await waitFor(() => collected.values.length >= count, `${count} events (have ${collected.values.length})`);
  await sleep(20);
}

export function subscribeContract(h: Harness) {
  describe('subscribe', () => {
    it('catches up then goes live with no gap and no duplicate while appends race', async () => {
      const store = await h.open();
      interface Started {
        from: number;
        headAtStart: number;
        collected: Collected<RecordedEvent>;
      }
      const started: Started[] = [];
      // Subscriptions are made by an appender right after its append resolved, so they start mid-stream
      // with other appends in flight; half replay everything, half start from a recent position.
      await appendConcurrently(store, 10, 60, (loop, i) => {
        if (loop !== 0 || i % 10 !== 5) return;
        const fromStart = i % 20 === 5;
        void store.headPosition().then((headAtStart) => {
          const from = fromStart ? 1 : Math.max(1, headAtStart - 3);
          const source = store.subscribe({ from: fromStart ? 'start' : from });
          started.push({ from, headAtStart, collected: collect(source, { timeoutMs: 20_000 }) });
        });
      });
      const all = await readAll(store);
      const final = await store.headPosition();
      expect(positions(all)).toEqual(range(1, final));
      expect(started).toHaveLength(6);

      for (const { from, headAtStart, collected } of started) {
        // It really started while appends were going on.
        expect(headAtStart).toBeLessThan(final);
        await settled(collected, final - from + 1);
        expect(positions(collected.values)).toEqual(range(from, final));
        expect(collected.values).toEqual(all.slice(from - 1));
        collected.stop();
      }
    }, 30_000);

    it('a stream subscription delivers only that stream, catch-up then live', async () => {
      const store = await h.open();
      for (let n = 0; n < 6; n++) await store.append(n % 2 === 0 ? 'wanted' : 'other', [counted(n)]);
      const wanted = collect(store.subscribe({ stream: 'wanted' }));
      const fromPosition = collect(store.subscribe({ stream: 'wanted', from: 4 }));
      await appendConcurrently(store, 6, 10);
      for (let n = 0; n < 6; n++) await store.append(n % 2 === 0 ? 'wanted' : 'other', [counted(n)]);

      const expected = await readStream(store, 'wanted');
      expect(expected).toHaveLength(6);
      await settled(wanted, expected.length);
      expect(wanted.values).toEqual(expected);
      await settled(fromPosition, expected.length - 2);
      expect(fromPosition.values).toEqual(expected.filter((e) => e.position >= 4));
    });

    it("from: 'end' delivers only what is appended after subscribing", async () => {
      const store = await h.open();
      await store.append('s', [counted(0), counted(1)]);
      const fromEnd = collect(store.subscribe({ from: 'end' }));
      const streamFromEnd = collect(store.subscribe({ stream: 's', from: 'end' }));
      await store.append('t', [counted(2)]);
      await store.append('s', [counted(3)]);
      await settled(fromEnd, 2);
      expect(positions(fromEnd.values)).toEqual([3, 4]);
      await settled(streamFromEnd, 1);
      expect(streamFromEnd.values.map((e) => [e.position, e.revision])).toEqual([[4, 2]]);
    });

    it('from: <position> starts at that global position, inclusive, also past the head', async () => {
      const store = await h.open();
      for (let n = 0; n < 10; n++) await store.append('s', [counted(n)]);
      const fromFour = collect(store.subscribe({ from: 4 }));
      const pastHead = collect(store.subscribe({ from: 13 }));
      await store.append('s', [counted(10), counted(11)]);
      await store.append('s', [counted(12), counted(13), counted(14)]);
      await settled(fromFour, 12);
      expect(positions(fromFour.values)).toEqual(range(4, 15));
      await settled(pastHead, 3);
      expect(positions(pastHead.values)).toEqual([13, 14, 15]);
    });

    it('a slow subscriber is dropped with SubscriberTooSlowError; resubscribing from lastPosition + 1 gives the rest', async () => {
      const store = await h.open();
      for (let n = 0; n < 30; n++) await store.append('s', [counted(n)]);
      const slow = collect(store.subscribe({ from: 'start', bufferSize: 10 }), {
        onValue: () => busyWait(3),
        timeoutMs: 20_000,
      });
      const fast = collect(store.subscribe({ from: 'start' }), { timeoutMs: 20_000 });
      // Once caught up (and then idle), the slow subscriber is live.
      await waitFor(() => slow.values.length === 30, 'the slow subscriber to catch up');
      await sleep(20);

      await appendConcurrently(store, 20, 20);
      const outcome = await slow.outcome;
      const final = await store.headPosition();
      expect(outcome.kind).toBe('error');
      const error = outcome.kind === 'error' ? outcome.error : undefined;
      expect(error).toBeInstanceOf(SubscriberTooSlowError);
      const { lastPosition } = error as SubscriberTooSlowError;
      expect((error as SubscriberTooSlowError).code).toBe('subscriber_too_slow');
      expect((error as SubscriberTooSlowError).message).toContain(String(lastPosition + 1));
      expect(lastPosition).toBeGreaterThanOrEqual(30);
      expect(lastPosition).toBeLessThan(final);
      // Everything before the drop arrived, in order; nothing after it.
      await sleep(20);
      expect(positions(slow.values)).toEqual(range(1, lastPosition));

      const resumed = collect(store.subscribe({ from: lastPosition + 1, bufferSize: 10 }));
      await settled(resumed, final - lastPosition);
      expect(positions([...slow.values, ...resumed.values])).toEqual(range(1, final));
      // Another subscriber was not disturbed by the slow one.
      await settled(fast, final);
      expect(positions(fast.values)).toEqual(range(1, final));
    }, 30_000);

    it('bufferSize is the number of live events that may wait: one more drops the subscriber', async () => {
      const store = await h.open();
      const live = collect(store.subscribe({ from: 'end', bufferSize: 5 }));
      await store.append('s', range(1, 5).map(counted));
      await settled(live, 5);
      expect(positions(live.values)).toEqual(range(1, 5));
      await store.append('s', range(6, 11).map(counted));
      const outcome = await live.outcome;
      expect(outcome.kind).toBe('error');
      expect(outcome.kind === 'error' && outcome.error).toBeInstanceOf(SubscriberTooSlowError);
      expect((outcome as { error: SubscriberTooSlowError }).error.lastPosition).toBe(5);
      expect(positions(live.values)).toEqual(range(1, 5));
    });

    it('a subscription to a deleted stream fails with StreamDeletedError', async () => {
      const store = await h.open();
      await store.append('gone', [counted(0)]);
      await store.deleteStream('gone');
      const outcome = await collect(store.subscribe({ stream: 'gone', from: 'start' })).outcome;
      expect(outcome.kind).toBe('error');
      expect(outcome.kind === 'error' && outcome.error).toBeInstanceOf(StreamDeletedError);
    });

    it('close() completes live and catching-up subscriptions', async () => {
      const store = await h.open();
      await store.append('a', [counted(0), counted(1)]);
      await store.append('b', [counted(2)]);
      const all = collect(store.subscribe({ from: 'start' }));
      const onlyA = collect(store.subscribe({ stream: 'a' }));
      const fromEnd = collect(store.subscribe({ from: 'end' }));
      await store.append('a', [counted(3)]);
      await settled(all, 4);
      await settled(onlyA, 3);
      await settled(fromEnd, 1);
      // Still catching up when close() comes: it has read nothing yet.
      const catchingUp = collect(store.subscribe({ from: 'start' }));
      await store.close();
      for (const subscription of [all, onlyA, fromEnd, catchingUp]) {
        expect(await subscription.outcome).toEqual({ kind: 'complete' });
      }
      expect(positions(catchingUp.values)).toEqual(range(1, catchingUp.values.length));
      expect(positions(all.values)).toEqual([1, 2, 3, 4]);
      expect(positions(onlyA.values)).toEqual([1, 2, 4]);
      expect(positions(fromEnd.values)).toEqual([4]);
    });

    it('an ended subscription gets nothing more pushed at it', async () => {
      const store = await h.open();
      const pushedAfterEnd: unknown[] = [];
      const previous = config.onStoppedNotification;
      // rxjs reports any notification sent to a subscriber that already unsubscribed or completed.
      config.onStoppedNotification = (notification) => pushedAfterEnd.push(notification);
      try {
        await store.append('s', range(0, 4).map(counted));
        // take(5) unsubscribes on the last event of the catch-up; bufferSize 2 makes a leftover listener
        // overflow (and push an error) at the next append.
        const taken = collect(store.subscribe({ from: 'start', bufferSize: 2 }).pipe(take(5)));
        expect(await taken.outcome).toEqual({ kind: 'complete' });
        // Unsubscribed before its catch-up (of a stream with no events) has even started.
        collect(store.subscribe({ stream: 'empty', from: 'start', bufferSize: 2 })).stop();
        const live = collect(store.subscribe({ from: 'end', bufferSize: 2 }));
        await sleep(10);
        live.stop();

        await store.append('s', range(5, 9).map(counted));
        await store.append('empty', range(10, 14).map(counted));
        await sleep(50);
        expect(pushedAfterEnd).toEqual([]);
        expect(positions(taken.values)).toEqual(range(1, 5));
        expect(live.values).toEqual([]);
      } finally {
        config.onStoppedNotification = previous;
      }
    });
  });
}
