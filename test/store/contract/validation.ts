import { describe, expect, it } from 'vitest';
import {
  type EventData,
  type EventStore,
  EventTooLargeError,
  InvalidEventError,
  InvalidStreamNameError,
} from '../../../src/store/index.js';
import { caught, collect, readAll, readStream } from '../helpers.js';
import type { Harness } from './harness.js';

const MiB = 1024 * 1024;
const ok = { type: 'Fine', data: { fine: true } };

/** Stream names every adapter must refuse, with why. */
const invalidNames: Array<[string, unknown]> = [
  ['empty', ''],
  ['a number', 42],
  ['null', null],
  ['undefined', undefined],
  ['an object', { name: 's' }],
  ['NUL', 'a\u0000b'],
  ['a newline', 'line\nbreak'],
  ['a tab', 'tab\there'],
  ['ESC', 'esc\u001b[31m'],
  ['DEL', 'del\u007f'],
  ['a leading $', '$streams'],
  ['another leading $', '$mine'],
  ['257 ASCII bytes', 'x'.repeat(257)],
  ['258 bytes in 129 characters', 'é'.repeat(129)],
  // Not encodable as UTF-8: both would be stored as U+FFFD and share one stream.
  ['a lone high surrogate', 'a\uD800'],
  ['a lone low surrogate', 'a\uDC00'],
];

/** Checks that appending `events` fails with `type` and leaves the store as it was. */
async function refused<E>(
  store: EventStore,
  events: readonly EventData[],
  type: abstract new (...args: never[]) => E,
) {
  const head = await store.headPosition();
  const error = await caught(store.append('target', events), type);
  expect(await store.headPosition()).toBe(head);
  expect(await readStream(store, 'target')).toEqual([]);
  expect(await store.streamRevision('target')).toBeUndefined();
  return error;
}

export function validationContract(h: Harness) {
  describe('validation', () => {
    it.each(invalidNames)('refuses a stream name with %s everywhere a name is taken', async (_, name) => {
      const store = await h.open();
      const stream = name as string;
      for (const use of [
        () => store.append(stream, [ok]),
        () => store.append(stream, [ok], { expectedRevision: 'no_stream' }),
        () => readStream(store, stream),
        () => store.streamRevision(stream),
        () => store.deleteStream(stream),
      ]) {
        const error = await caught(use, InvalidStreamNameError);
        expect(error.code).toBe('invalid_stream_name');
      }
      // For subscribe, no stream (undefined) means the whole log.
      if (name !== undefined) {
        let subscribeError: unknown;
        try {
          const outcome = await collect(store.subscribe({ stream }), { timeoutMs: 1_000 }).outcome;
          subscribeError = outcome.kind === 'error' ? outcome.error : outcome;
        } catch (error) {
          subscribeError = error;
        }
        expect(subscribeError).toBeInstanceOf(InvalidStreamNameError);
      }
      expect(await store.headPosition()).toBe(0);
    });

    it('accepts names up to 256 bytes, any other printable text, and keeps distinct names apart', async () => {
      const store = await h.open();
      const names = [
        'x'.repeat(256),
        'é'.repeat(128),
        'order-1',
        'Order-1',
        'order-1 ',
        'é',
        'e\u0301',
        'a$',
        'with/slash:colon',
        'emoji-🎉',
        'r:order-1',
      ];
      for (const name of names) {
        expect(
          await store.append(name, [{ type: 'Named', data: { name } }], { expectedRevision: 'no_stream' }),
        ).toEqual(expect.objectContaining({ nextRevision: 1 }));
      }
      for (const name of names) {
        const events = await readStream(store, name);
        expect(events.map((e) => [e.stream, e.data])).toEqual([[name, { name }]]);
        expect(await store.streamRevision(name)).toBe(0);
      }
      expect(await readAll(store)).toHaveLength(names.length);
    });

    it('refuses an event over 4 MiB with EventTooLargeError and writes nothing of the append', async () => {
      const store = await h.open();
      const huge = { type: 'Huge', data: { blob: 'x'.repeat(4 * MiB) } };
      const error = await refused(store, [huge], EventTooLargeError);
      expect(error.code).toBe('event_too_large');
      expect(error.limit).toBe(4 * MiB);
      expect(error.size).toBeGreaterThan(4 * MiB);
      // The limit is in bytes, not characters.
      await refused(
        store,
        [{ type: 'Wide', data: { blob: 'é'.repeat(Math.ceil(2.1 * MiB)) } }],
        EventTooLargeError,
      );
      // Atomic: a valid event in the same append is not written either.
      await refused(store, [ok, huge, ok], EventTooLargeError);

      const big = { type: 'Big', data: { blob: 'y'.repeat(4 * MiB - 1024) } };
      expect(await store.append('target', [big])).toEqual({ nextRevision: 1, position: 1 });
      const [read] = await readStream(store, 'target');
      expect(read?.data).toEqual(big.data);
    });

    it('refuses an empty, missing, overlong or control-character event type with InvalidEventError', async () => {
      const store = await h.open();
      for (const type of ['', undefined, 42, null, 'T'.repeat(257), 'Line\nBreak']) {
        const event = { type, data: {} } as unknown as EventData;
        const error = await refused(store, [event], InvalidEventError);
        expect(error.code).toBe('invalid_event');
        await refused(store, [ok, event], InvalidEventError);
      }
    });

    it('refuses data or metadata that JSON cannot hold with InvalidEventError', async () => {
      const store = await h.open();
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const events: EventData[] = [
        { type: 'Big', data: { amount: 10n } },
        { type: 'Big', data: [1, 2, 3n] },
        { type: 'BigMeta', data: {}, metadata: { userId: 1n as unknown as number } },
        { type: 'Circular', data: circular },
      ];
      for (const event of events) {
        await refused(store, [event], InvalidEventError);
        await refused(store, [ok, event], InvalidEventError);
      }
    });

    it('refuses an event that is not an object with InvalidEventError', async () => {
      const store = await h.open();
      for (const event of [null, 'Happened', 42]) {
        await refused(store, [event as unknown as EventData], InvalidEventError);
      }
      expect(await store.append('target', [{ type: 'T'.repeat(256), data: {} }])).toEqual({
        nextRevision: 1,
        position: 1,
      });
    });

    it('refuses an append without events', async () => {
      const store = await h.open();
      await caught(store.append('target', []), Error);
      expect(await store.headPosition()).toBe(0);
      expect(await store.streamRevision('target')).toBeUndefined();
    });
  });
}
