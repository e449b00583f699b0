import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rebuildProjection } from '../../projections/rebuild.js';
import {
  ProjectionHaltedError,
  ProjectionRunner,
  ProjectionStoppedError,
} from '../../projections/runtime.js';
import { type StreamCatalog, streamCatalog } from '../../projections/stream-catalog.js';
import { openStore } from '../../src/store/open.js';
import type { EventData, EventStore } from '../../src/store/types.js';
import { openHarness, range, type StoreHarness, storeKinds, type Tally, tallyProjection } from './helpers.js';

const events = (type: string, n: number, data: Record<string, number> = {}): EventData[] =>
  Array.from({ length: n }, (_, i) => ({ type, data: { ...data, i } }));

// Long enough that no snapshot is taken behind a test's back unless it asks for one.
const QUIET = { snapshotIntervalMs: 60_000 };

/** Waits until every subscriber of the store has had the chance to see everything up to the head. */
async function settled(store: EventStore): Promise<void> {
  const witness = new ProjectionRunner(store, tallyProjection({ name: 'witness' }).projection, QUIET);
  await witness.start();
  await witness.waitFor(await store.headPosition());
  // Twice through the event loop: live deliveries are drained on setImmediate.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  await witness.stop();
  await store.deleteSnapshot('witness');
}

describe.each(storeKinds)('ProjectionRunner over the %s store', (kind) => {
  let harness: StoreHarness;
  let store: EventStore;
  const runners: ProjectionRunner<unknown>[] = [];
  const track = <S>(runner: ProjectionRunner<S>) => {
    runners.push(runner as ProjectionRunner<unknown>);
    return runner;
  };

  beforeEach(async () => {
    harness = await openHarness(kind);
    store = harness.store;
  });

  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
    await harness.dispose();
  });

  it('catches up with the log, then follows live appends', async () => {
    await store.append('doc-1', events('EntitiesCreated', 3));
    await store.append('run-7', events('RunStarted', 1));
    const runner = track(new ProjectionRunner(store, streamCatalog, QUIET));
    expect(runner.health()).toEqual({
      name: 'stream-catalog',
      version: 1,
      status: 'stopped',
      healthy: true,
      position: 0,
    });

    await runner.start();
    expect(runner.position).toBe(4);
    expect(runner.health()).toMatchObject({ status: 'live', healthy: true, position: 4 });
    expect(runner.state.events).toBe(4);
    expect(runner.state.streams['doc-1']?.events).toBe(3);

    const { position } = await store.append('doc-1', events('EntitiesMoved', 2));
    expect(position).toBe(6);
    await runner.waitFor(position);
    expect(runner.position).toBe(6);
    expect(runner.state.streams['doc-1']).toMatchObject({
      events: 5,
      lastPosition: 6,
      lastType: 'EntitiesMoved',
    });
    expect(runner.health().status).toBe('live');
  });

  it('resolves waitFor(position) only once that event has been applied', async () => {
    const runner = track(new ProjectionRunner(store, streamCatalog, QUIET));
    await runner.start();
    expect(runner.position).toBe(0);

    const seenAtResolve: Array<{ position: number; last: number | undefined }> = [];
    const waiting = runner.waitFor(3).then(() => {
      seenAtResolve.push({
        position: runner.position,
        last: runner.state.streams['doc-2']?.lastPosition,
      });
    });
    await store.append('doc-1', events('EntitiesCreated', 2));
    await store.append('doc-2', events('EntitiesCreated', 1));
    await waiting;
    expect(seenAtResolve).toEqual([{ position: 3, last: 3 }]);

    // Already applied: resolves at once, without another append.
    await expect(runner.waitFor(2)).resolves.toBeUndefined();
  });

  it('rejects waiters for a position it will not reach when stopped', async () => {
    await store.append('doc-1', events('EntitiesCreated', 2));
    const runner = new ProjectionRunner(store, streamCatalog, QUIET);
    await runner.start();
    const waiting = expect(runner.waitFor(99)).rejects.toBeInstanceOf(ProjectionStoppedError);
    await runner.stop();
    await waiting;
    expect(runner.health()).toMatchObject({ status: 'stopped', position: 2 });
  });

  it('feeds a projection of one stream only that stream, and is live although the log goes on past it', async () => {
    await store.append('doc-1', events('EntitiesCreated', 2));
    await store.append('run-7', events('RunStarted', 3));
    const { projection, seen } = tallyProjection();
    const runner = track(new ProjectionRunner(store, { ...projection, stream: 'doc-1' }, QUIET));
    await runner.start();
    expect(runner.health()).toMatchObject({ status: 'live', position: 2 });
    await store.append('run-7', events('RunStarted', 1));
    const { position } = await store.append('doc-1', events('EntitiesErased', 1));
    await runner.waitFor(position);
    expect(seen).toEqual([1, 2, position]);
  });

  it('writes no snapshot when snapshots are off, and starts from the log', async () => {
    await store.append('doc-1', events('EntitiesCreated', 3));
    const runner = new ProjectionRunner(store, tallyProjection().projection, {
      snapshots: false,
      snapshotIntervalMs: 10,
    });
    await runner.start();
    await new Promise((resolve) => setTimeout(resolve, 40));
    await runner.stop();
    expect(await store.loadSnapshot('tally')).toBeUndefined();
  });

  it('publishes state and position on updates', async () => {
    const runner = track(new ProjectionRunner(store, tallyProjection().projection, QUIET));
    const positions: number[] = [];
    const subscription = runner.updates.subscribe(({ position }) => positions.push(position));
    await runner.start();
    await runner.waitFor((await store.append('doc-1', events('EntitiesCreated', 2))).position);
    subscription.unsubscribe();
    expect(positions[0]).toBe(0);
    expect(positions.at(-1)).toBe(2);
  });

  it('holds the same state as a fresh rebuild over the same log', async () => {
    const runner = track(new ProjectionRunner(store, streamCatalog, QUIET));
    await store.append('doc-1', events('EntitiesCreated', 2));
    await runner.start();
    await store.append('run-1', events('RunStarted', 1));
    await store.append('doc-1', events('EntitiesMoved', 3));
    await store.deleteStream('run-1');
    const { position } = await store.append('doc-2', events('EntitiesCreated', 1));
    await runner.waitFor(position);

    const rebuilt = await rebuildProjection(store, streamCatalog);
    expect(rebuilt.position).toBe(runner.position);
    expect(runner.state).toEqual(rebuilt.state);
    expect(Object.keys(runner.state.streams).sort()).toEqual(['$streams', 'doc-1', 'doc-2']);
  });

  it('keeps following after being dropped as a slow subscriber, and reports itself live again', async () => {
    const { projection, seen } = tallyProjection();
    const runner = track(new ProjectionRunner(store, projection, { ...QUIET, bufferSize: 4 }));
    await runner.start();
    // One append of more events than the live buffer holds: the subscription is dropped and resumed.
    const { position } = await store.append('doc-1', events('EntitiesCreated', 50));
    await runner.waitFor(position);
    expect(seen).toEqual(range(1, 50));
    expect(runner.state.count).toBe(50);
    expect(runner.health()).toMatchObject({ status: 'live', healthy: true, position: 50 });
  });

  it('saves a snapshot with its checkpoint now and then while running', async () => {
    const runner = track(
      new ProjectionRunner(store, tallyProjection().projection, { snapshotIntervalMs: 20 }),
    );
    await runner.start();
    await runner.waitFor((await store.append('doc-1', events('EntitiesCreated', 3))).position);
    await vi.waitFor(async () => {
      const snapshot = await store.loadSnapshot<Tally>('tally');
      expect(snapshot).toMatchObject({ name: 'tally', version: 1, position: 3, state: { count: 3 } });
    });
  });

  describe('when evolve throws', () => {
    it('halts before the bad event, applies nothing after it and rejects waiters', async () => {
      const { projection, seen } = tallyProjection({ throwOn: 'Poison' });
      const runner = track(new ProjectionRunner(store, projection, QUIET));
      await store.append('doc-1', events('EntitiesCreated', 2));
      await runner.start();
      // Handled from the start: the rejection comes while the appends below are awaited.
      const pending = runner.waitFor(5).then(
        () => undefined,
        (e: unknown) => e,
      );

      await store.append('doc-1', events('EntitiesMoved', 1));
      const bad = await store.append('doc-2', [{ type: 'Poison', data: { oops: true } }]);
      await store.append('doc-1', events('EntitiesMoved', 1));
      expect(bad.position).toBe(4);

      const error = await pending;
      expect(error).toBeInstanceOf(ProjectionHaltedError);
      const expectedHealth = {
        name: 'tally',
        version: 1,
        status: 'halted',
        healthy: false,
        position: 3,
        failure: {
          position: 4,
          stream: 'doc-2',
          revision: 0,
          type: 'Poison',
          message: 'cannot apply Poison',
        },
      };
      expect((error as ProjectionHaltedError).health).toEqual(expectedHealth);
      expect((error as ProjectionHaltedError).message).toContain('Poison');
      expect(runner.health()).toEqual(expectedHealth);
      expect(runner.position).toBe(3);
      const before = structuredClone(runner.state);
      expect(before).toEqual({
        count: 3,
        positions: [1, 2, 3],
        types: ['EntitiesCreated', 'EntitiesCreated', 'EntitiesMoved'],
      });

      // More events: delivered to the store's other subscribers, never to the halted projection.
      await store.append('doc-1', events('EntitiesMoved', 3));
      await settled(store);
      expect(runner.state).toEqual(before);
      expect(runner.position).toBe(3);
      expect(seen).toEqual([1, 2, 3, 4]);
      expect(runner.health()).toEqual(expectedHealth);

      await expect(runner.waitFor(4)).rejects.toBeInstanceOf(ProjectionHaltedError);
      await expect(runner.waitFor(8)).rejects.toMatchObject({ health: expectedHealth });
      // What it did apply is still there to wait for.
      await expect(runner.waitFor(3)).resolves.toBeUndefined();

      // Stopping keeps the verdict and checkpoints before the bad event, so it is retried, not skipped.
      await runner.stop();
      expect(runner.health()).toEqual(expectedHealth);
      expect(await store.loadSnapshot('tally')).toMatchObject({ position: 3 });
    });

    it('rejects start() when the bad event is met while catching up', async () => {
      const { projection, seen } = tallyProjection({ throwOn: 'Poison' });
      await store.append('doc-1', events('EntitiesCreated', 1));
      await store.append('doc-1', [{ type: 'Poison', data: null }]);
      await store.append('doc-1', events('EntitiesCreated', 2));
      const runner = track(new ProjectionRunner(store, projection, QUIET));
      await expect(runner.start()).rejects.toBeInstanceOf(ProjectionHaltedError);
      expect(runner.health()).toMatchObject({
        status: 'halted',
        healthy: false,
        position: 1,
        failure: { position: 2, stream: 'doc-1', revision: 1, type: 'Poison' },
      });
      await settled(store);
      expect(seen).toEqual([1, 2]);
      expect(runner.state.count).toBe(1);
    });
  });
});

describe('ProjectionRunner snapshots across restarts (level store)', () => {
  let harness: StoreHarness;

  beforeEach(async () => {
    harness = await openHarness('level');
  });

  afterEach(async () => {
    await harness.dispose();
  });

  /** Closes the store and opens the same directory again, as a restarted process would. */
  async function reopen(): Promise<EventStore> {
    await harness.store.close();
    harness.store = await openStore(harness.url as string);
    return harness.store;
  }

  it('resumes from the persisted snapshot and evolves only the events after its checkpoint', async () => {
    const first = tallyProjection();
    const runner = new ProjectionRunner(harness.store, first.projection, QUIET);
    await runner.start();
    await runner.waitFor((await harness.store.append('doc-1', events('EntitiesCreated', 5))).position);
    await runner.stop();
    expect(first.seen).toEqual(range(1, 5));

    const store = await reopen();
    expect(await store.loadSnapshot('tally')).toMatchObject({ name: 'tally', version: 1, position: 5 });
    await store.append('doc-2', events('EntitiesCreated', 3));

    const second = tallyProjection();
    const resumed = new ProjectionRunner(store, second.projection, QUIET);
    await resumed.start();
    try {
      expect(second.seen).toEqual([6, 7, 8]);
      expect(resumed.position).toBe(8);
      expect(resumed.state.count).toBe(8);
      expect(resumed.state.positions).toEqual(range(1, 8));
      const rebuilt = await rebuildProjection(store, tallyProjection().projection);
      expect(resumed.state).toEqual(rebuilt.state);
    } finally {
      await resumed.stop();
    }
  });

  it('resumes the stream catalog from its snapshot to the same state a rebuild gives', async () => {
    const runner = new ProjectionRunner(harness.store, streamCatalog, QUIET);
    await runner.start();
    await harness.store.append('doc-1', events('EntitiesCreated', 2));
    await harness.store.append('run-1', events('RunStarted', 2));
    await runner.waitFor(await harness.store.headPosition());
    await runner.stop();

    const store = await reopen();
    await store.deleteStream('run-1');
    await store.append('doc-1', events('EntitiesMoved', 1));
    const resumed = new ProjectionRunner(store, streamCatalog, QUIET);
    await resumed.start();
    try {
      const rebuilt = await rebuildProjection<StreamCatalog>(store, streamCatalog);
      expect(resumed.state).toEqual(rebuilt.state);
      expect(resumed.state.streams['run-1']).toBeUndefined();
    } finally {
      await resumed.stop();
    }
  });

  it('the stream catalog counts streams named after Object.prototype properties, across a snapshot', async () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const runner = new ProjectionRunner(harness.store, streamCatalog, QUIET);
    await runner.start();
    for (const [i, name] of names.entries()) await harness.store.append(name, events('Named', i + 1));
    await runner.waitFor(await harness.store.headPosition());
    await runner.stop();

    const store = await reopen();
    await store.deleteStream('constructor');
    await store.append('__proto__', events('Named', 1));
    const resumed = new ProjectionRunner(store, streamCatalog, QUIET);
    await resumed.start();
    try {
      const counts = (catalog: StreamCatalog) =>
        Object.fromEntries(Object.entries(catalog.streams).map(([name, s]) => [name, s.events]));
      const rebuilt = await rebuildProjection<StreamCatalog>(store, streamCatalog);
      // `__proto__` as a key of the expected value: JSON text, where it is an own key.
      const expected = JSON.parse(
        '{"__proto__": 2, "toString": 3, "hasOwnProperty": 4, "$streams": 1}',
      ) as unknown;
      expect(counts(resumed.state)).toEqual(expected);
      expect(counts(rebuilt.state)).toEqual(expected);
      expect(Object.hasOwn(resumed.state.streams, 'valueOf')).toBe(false);
      expect(resumed.state.streams.valueOf).toBeUndefined();
    } finally {
      await resumed.stop();
    }
  });

  it('rebuilds from position 1 when the snapshot is of another version', async () => {
    const v1 = tallyProjection({ version: 1 });
    const runner = new ProjectionRunner(harness.store, v1.projection, QUIET);
    await runner.start();
    await runner.waitFor((await harness.store.append('doc-1', events('EntitiesCreated', 4))).position);
    await runner.stop();

    const store = await reopen();
    expect(await store.loadSnapshot('tally')).toMatchObject({ version: 1, position: 4 });
    await store.append('doc-1', events('EntitiesMoved', 2));

    const v2 = tallyProjection({ version: 2 });
    const rebuilt = new ProjectionRunner(store, v2.projection, QUIET);
    await rebuilt.start();
    expect(v2.seen).toEqual(range(1, 6));
    expect(rebuilt.state.positions).toEqual(range(1, 6));
    expect(rebuilt.health()).toMatchObject({ version: 2, position: 6, status: 'live' });
    await rebuilt.stop();
    expect(await store.loadSnapshot('tally')).toMatchObject({ version: 2, position: 6, state: { count: 6 } });
  });

  it('ignores the state of a snapshot of another version', async () => {
    await harness.store.append('doc-1', events('EntitiesCreated', 2));
    await harness.store.saveSnapshot<Tally>({
      name: 'tally',
      version: 1,
      position: 2,
      state: { count: 1000, positions: [], types: ['FromAnOldVersion'] },
    });
    const v2 = tallyProjection({ version: 2 });
    const runner = new ProjectionRunner(harness.store, v2.projection, QUIET);
    await runner.start();
    await runner.stop();
    expect(runner.state).toEqual({
      count: 2,
      positions: [1, 2],
      types: ['EntitiesCreated', 'EntitiesCreated'],
    });
  });
});
