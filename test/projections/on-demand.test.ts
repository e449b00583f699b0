import { describe, expect, it } from 'vitest';
import { OnDemandProjection } from '../../projections/on-demand.js';
import type { Projection } from '../../projections/projection.js';
import { ProjectionHaltedError } from '../../projections/runtime.js';
import { openStore } from '../../src/store/open.js';

/** Counts events; throws on a `Poison` event. */
const counter: Projection<{ n: number }> = {
  name: 'counter',
  version: 1,
  initial: () => ({ n: 0 }),
  evolve(state, event) {
    if (event.type === 'Poison') throw new Error('poisoned');
    state.n += 1;
    return state;
  },
};

describe('OnDemandProjection', () => {
  it('catches up when read, snapshots, and a new instance resumes from the snapshot', async () => {
    const store = await openStore('memory:');
    try {
      const model = new OnDemandProjection(store, counter);
      expect(await model.read()).toEqual({ n: 0 });
      await store.append('s', [
        { type: 'A', data: {} },
        { type: 'A', data: {} },
      ]);
      expect(await model.read()).toEqual({ n: 2 });
      await store.append('s', [{ type: 'A', data: {} }]);
      const [a, b] = await Promise.all([model.read(), model.read()]);
      expect([a.n, b.n]).toEqual([3, 3]);
      expect(await store.loadSnapshot('counter')).toMatchObject({ position: 3, state: { n: 3 } });
      // A second reader starts from the snapshot: the events before it are not read again.
      await store.saveSnapshot({ name: 'counter', version: 1, position: 3, state: { n: 100 } });
      await store.append('s', [{ type: 'A', data: {} }]);
      expect(await new OnDemandProjection(store, counter).read()).toEqual({ n: 101 });
    } finally {
      await store.close();
    }
  });

  it('halts on an event evolve throws on, and never skips it', async () => {
    const store = await openStore('memory:');
    try {
      const model = new OnDemandProjection(store, counter);
      await store.append('s', [
        { type: 'A', data: {} },
        { type: 'Poison', data: {} },
      ]);
      await expect(model.read()).rejects.toBeInstanceOf(ProjectionHaltedError);
      await expect(model.read()).rejects.toThrow(/counter halted at event 2 \(Poison/);
    } finally {
      await store.close();
    }
  });
});
