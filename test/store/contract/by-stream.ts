import { describe, expect, it, type TestContext } from 'vitest';
import type { RecordedEvent } from '../../../src/store/index.js';
import { readStream, toArray } from '../helpers.js';
import type { Harness } from './harness.js';

/** Skips the test, saying why, when the adapter lacks an optional by-stream read (callers read the log). */
function requireOptional(present: boolean, name: string, ctx: TestContext): void {
  if (present) return;
  console.log(`skipped: the adapter has no ${name} (optional)`);
  ctx.skip();
}

async function* none<T>(): AsyncIterable<T> {}

export function byStreamContract(h: Harness) {
  describe('reading stream by stream', () => {
    it('lists the streams of a prefix that have events, in name order, without deleted ones', async (ctx) => {
      const store = await h.open();
      requireOptional(store.listStreams !== undefined, 'listStreams', ctx);
      const list = (prefix: string) => toArray(store.listStreams?.(prefix) ?? none<string>());
      for (const stream of ['s-b', 's-a', 'other', 's-a2', 's-é', 's-gone', 's'])
        await store.append(stream, [{ type: 'T', data: { stream } }]);
      await store.deleteStream('s-gone');
      expect(await list('s-')).toEqual(['s-a', 's-a2', 's-b', 's-é']);
      expect(await list('none-')).toEqual([]);
      // The system stream holds the deletion's StreamDeleted: it has events too.
      expect((await list('')).sort()).toEqual(['$streams', 'other', 's', 's-a', 's-a2', 's-b', 's-é'].sort());
    });

    it('reads a stream in chunks as readStream does, its events interleaved with others in runs and one by one', async (ctx) => {
      const store = await h.open();
      requireOptional(store.readStreamChunks !== undefined, 'readStreamChunks', ctx);
      const chunks = (stream: string) => store.readStreamChunks?.(stream) ?? none<readonly RecordedEvent[]>();
      for (let round = 0; round < 6; round++) {
        // Runs of the stream between runs of others (read as spans), and single events far apart.
        await store.append(
          'mine',
          Array.from({ length: 700 }, (_, k) => ({ type: 'M', data: { round, k } })),
        );
        await store.append(
          'theirs',
          Array.from({ length: round * 300 }, (_, k) => ({ type: 'O', data: { k } })).concat([
            { type: 'O', data: { k: -1 } },
          ]),
        );
        await store.append('mine-too', [{ type: 'N', data: { round } }]);
      }
      for (let i = 0; i < 50; i++) {
        await store.append(
          'theirs',
          Array.from({ length: 200 }, () => ({ type: 'O', data: null })),
        );
        await store.append('mine', [{ type: 'M', data: { late: i } }]);
      }
      const read: RecordedEvent[] = [];
      for await (const chunk of chunks('mine')) read.push(...chunk);
      expect(read).toEqual(await readStream(store, 'mine'));
      expect(read).toHaveLength(6 * 700 + 50);
      const other: RecordedEvent[] = [];
      for await (const chunk of chunks('mine-too')) other.push(...chunk);
      expect(other.map((e) => e.data)).toEqual([0, 1, 2, 3, 4, 5].map((round) => ({ round })));
    });
  });
}
