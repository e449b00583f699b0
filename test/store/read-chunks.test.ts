import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore, RecordedEvent } from '../../src/store/types.js';
import { openHarness, type StoreHarness, storeKinds } from '../projections/helpers.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe.each(storeKinds)('readAllChunks over the %s store', (kind) => {
  let harness: StoreHarness;
  let store: EventStore;

  beforeEach(async () => {
    harness = await openHarness(kind);
    store = harness.store;
  });

  afterEach(async () => {
    await harness.dispose();
  });

  it('gives what readAll gives, in chunks, from a position, over deleted streams', async () => {
    for (let i = 0; i < 5; i++)
      await store.append(
        `s-${i % 2}`,
        Array.from({ length: 900 }, (_, k) => ({ type: 'T', data: { i, k } })),
      );
    await store.deleteStream('s-1');
    await store.append('s-2', [{ type: 'Last', data: null }]);
    const readAllChunks = store.readAllChunks?.bind(store);
    if (!readAllChunks) throw new Error('the store has no readAllChunks');
    const chunks = await collect(readAllChunks({ from: 100 }));
    expect(chunks.length).toBeGreaterThan(1);
    const flat: RecordedEvent[] = chunks.flat();
    expect(flat).toEqual(await collect(store.readAll({ from: 100 })));
    expect(flat.at(-1)?.type).toBe('Last');
    // Stopping early closes the iterator (with a read in flight) without an error.
    for await (const chunk of readAllChunks()) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
  });
});
