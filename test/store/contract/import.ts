import { describe, expect, it } from 'vitest';
import { InvalidEventError, type RecordedEvent, StreamDeletedError } from '../../../src/store/index.js';
import { caught, collect, positions, range, readAll, readStream } from '../helpers.js';
import type { Harness } from './harness.js';

/** What a copy must keep of an event: everything but its global position. */
const copied = (events: readonly RecordedEvent[]) =>
  events.map(({ stream, revision, type, data, metadata }) => ({ stream, revision, type, data, metadata }));

export function importContract(h: Harness) {
  describe('importEvents (chronicle migrate)', () => {
    it('copies a log as it is: streams, revisions, types, data, metadata and tombstones; positions dense', async () => {
      const source = await h.open();
      await source.append('a', [{ type: 'One', data: { n: 1 }, metadata: { requestId: 'r-1', userId: 7 } }]);
      await source.append('gone', [
        { type: 'Secret', data: { token: 'x' } },
        { type: 'Secret', data: {} },
      ]);
      await source.append('b', [{ type: 'Two', data: { nested: { list: [1, 'two', null] } } }]);
      await source.deleteStream('gone');
      await source.append('a', [{ type: 'Three', data: { text: 'ünïcode \u2028 "quoted"' } }]);
      const original = await readAll(source);

      const target = await h.open();
      const seen = collect(target.subscribe(), { count: original.length });
      await target.importEvents(original.slice(0, 2));
      await target.importEvents(original.slice(2));
      const imported = await readAll(target);
      expect(copied(imported)).toEqual(copied(original));
      expect(positions(imported)).toEqual(range(1, original.length));
      expect(await target.headPosition()).toBe(original.length);
      await seen.outcome;
      expect(copied(seen.values)).toEqual(copied(original));

      // The tombstone came along: the deleted stream stays deleted, the others go on where they were.
      await caught(target.append('gone', [{ type: 'Again', data: {} }]), StreamDeletedError);
      expect(await target.streamRevision('a')).toBe(1);
      expect((await readStream(target, 'b')).map((e) => e.type)).toEqual(['Two']);
      expect(await target.append('a', [{ type: 'Four', data: {} }], { expectedRevision: 1 })).toEqual({
        nextRevision: 3,
        position: original.length + 1,
      });
    });

    it('refuses a batch whose revisions do not follow on, and writes none of it', async () => {
      const source = await h.open();
      await source.append('a', [
        { type: 'One', data: {} },
        { type: 'Two', data: {} },
      ]);
      const [first, second] = await readAll(source);
      const target = await h.open();
      await target.append('other', [{ type: 'Kept', data: {} }]);
      const error = await caught(
        target.importEvents([second as RecordedEvent, first as RecordedEvent]),
        InvalidEventError,
      );
      expect(error.message).toContain('"a"@1 does not follow its last revision -1');
      expect(copied(await readAll(target)).map((e) => e.type)).toEqual(['Kept']);
      expect(await target.headPosition()).toBe(1);
    });
  });
}
