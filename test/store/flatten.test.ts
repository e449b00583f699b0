import { describe, expect, it } from 'vitest';
import { flatten } from '../../src/store/flatten.js';

/** Chunks from a generator that records whether it was closed. */
function source(chunks: number[][], fail?: Error) {
  const seen = { closed: false, pulled: 0 };
  async function* gen() {
    try {
      for (const chunk of chunks) {
        seen.pulled += 1;
        yield chunk;
      }
      if (fail) throw fail;
    } finally {
      seen.closed = true;
    }
  }
  return { items: flatten(gen()), seen };
}

describe('flatten', () => {
  it('gives every item in order, over empty chunks, pulling a chunk only when the last is used up', async () => {
    const { items, seen } = source([[1, 2], [], [3], [4, 5, 6]]);
    const out: number[] = [];
    for await (const item of items) {
      out.push(item);
      if (item === 2) expect(seen.pulled).toBe(1);
    }
    expect(out).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.closed).toBe(true);
  });

  it('closes the source when the reader stops early', async () => {
    const { items, seen } = source([[1, 2], [3]]);
    for await (const item of items) if (item === 1) break;
    expect(seen.closed).toBe(true);
    expect(seen.pulled).toBe(1);
  });

  it('passes the source failure on after the items before it', async () => {
    const { items } = source([[1]], new Error('disk gone'));
    const out: number[] = [];
    await expect(
      (async () => {
        for await (const item of items) out.push(item);
      })(),
    ).rejects.toThrow('disk gone');
    expect(out).toEqual([1]);
  });
});
