import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { partReleaser } from '../../projections/heap.js';

/** A part of some 8 MB that nothing holds once this returns, and a way to see whether it is gone. */
function droppedPart(): WeakRef<number[]> {
  return new WeakRef(new Array<number>(1_000_000).fill(1.5));
}

describe('partReleaser', () => {
  it('collects a dropped part once the heap has grown past its threshold', async () => {
    const heap = partReleaser(1024 * 1024);
    const part = droppedPart();
    expect(part.deref()).toBeDefined();
    // A WeakRef keeps its target alive until the end of the turn that made it or read it.
    await nextTurn();
    expect(heap.release()).toBe(true);
    expect(part.deref()).toBeUndefined();
  });

  it('does not collect while the heap has grown less than its threshold', async () => {
    const heap = partReleaser(1024 * 1024 * 1024);
    const part = droppedPart();
    await nextTurn();
    expect(heap.release()).toBe(false);
    // Nothing collected it: 8 MB is far below what makes V8 collect on its own.
    expect(part.deref()).toBeDefined();
  });
});
