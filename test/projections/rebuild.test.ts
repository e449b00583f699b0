import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partReleaser } from '../../projections/heap.js';
import { findProjection, projectionNames, projections } from '../../projections/index.js';
import { type RebuildProgress, rebuildProjection } from '../../projections/rebuild.js';
import { ProjectionHaltedError, ProjectionRunner } from '../../projections/runtime.js';
import { type StreamCatalog, streamCatalog } from '../../projections/stream-catalog.js';
import type { EventData, EventStore } from '../../src/store/types.js';
import { SYSTEM_STREAM } from '../../streams/system.js';
import { openHarness, range, type StoreHarness, storeKinds, type Tally, tallyProjection } from './helpers.js';

const QUIET = { snapshotIntervalMs: 60_000 };

const events = (type: string, n: number): EventData[] =>
  Array.from({ length: n }, (_, i) => ({ type, data: { i } }));

describe('the projection registry', () => {
  it('names each projection once and finds it by name', () => {
    const names = projectionNames();
    expect(names).toContain('stream-catalog');
    expect(new Set(names).size).toBe(names.length);
    for (const projection of projections) expect(findProjection(projection.name)).toBe(projection);
    expect(findProjection('no-such-projection')).toBeUndefined();
  });
});

describe.each(storeKinds)('rebuildProjection over the %s store', (kind) => {
  let harness: StoreHarness;
  let store: EventStore;

  beforeEach(async () => {
    harness = await openHarness(kind);
    store = harness.store;
  });

  afterEach(async () => {
    await harness.dispose();
  });

  it('replays a partitioned read model that is not persisted one stream at a time, as the whole log would', async () => {
    // Per stream of the prefix: how many events and the sum of their `i`, as the whole log's replay has it.
    type Parts = Record<string, { events: number; sum: number }>;
    const partitioned = {
      name: 'parts',
      version: 1,
      persist: false,
      partition: 'part-',
      initial: (): Parts => ({}),
      evolve(state: Parts, event: { stream: string; data: unknown }) {
        if (!event.stream.startsWith('part-')) return state;
        const part = state[event.stream] ?? { events: 0, sum: 0 };
        state[event.stream] = { events: part.events + 1, sum: part.sum + (event.data as { i: number }).i };
        return state;
      },
    };
    for (let round = 0; round < 3; round++) {
      await store.append('part-a', events('A', 1_500));
      await store.append('other', events('O', 10));
      await store.append('part-b', events('B', 2));
      await store.append('part-gone', events('G', 5));
    }
    await store.deleteStream('part-gone');
    const whole = await rebuildProjection(store, { ...partitioned, partition: undefined });
    const parts: Parts = {};
    const progress: RebuildProgress[] = [];
    const result = await rebuildProjection(store, partitioned, (p) => progress.push(p), 1_000, {
      onPart: (stream, part) => {
        expect(Object.keys(part)).toEqual([stream]);
        Object.assign(parts, part);
      },
    });
    expect(parts).toEqual(whole.state);
    expect(Object.keys(parts).sort()).toEqual(['part-a', 'part-b']);
    // Only the partition's events are read; the parts went to onPart, one at a time.
    expect(result.events).toBe(3 * 1_502);
    expect(result.state).toEqual({});
    expect(progress.at(-1)).toMatchObject({
      done: await store.headPosition(),
      total: await store.headPosition(),
    });
    expect(await store.loadSnapshot('parts')).toBeUndefined();
  });

  // A WeakRef holds its target to the end of the turn that made it; the memory store answers within
  // one turn (microtasks only), so only a store that reads from disk lets that turn end between parts.
  if (kind === 'memory')
    console.log(
      'skipped: "holds no part it handed to onPart" on the memory store: it answers within one turn, so a WeakRef cannot clear (LevelDB runs it)',
    );
  it.skipIf(kind === 'memory')('holds no part it handed to onPart while it builds the next', async () => {
    type Parts = Record<string, number[]>;
    const partitioned = {
      name: 'parts',
      version: 1,
      persist: false,
      partition: 'part-',
      initial: (): Parts => ({}),
      evolve(state: Parts, event: { stream: string }) {
        state[event.stream] = [...(state[event.stream] ?? []), event.stream.length];
        return state;
      },
    };
    await store.append('part-a', events('A', 20));
    await store.append('part-b', events('B', 20));
    const handed: Array<WeakRef<Parts>> = [];
    const heldWhileBuilding: boolean[] = [];
    await rebuildProjection(
      store,
      partitioned,
      () => {
        // Part way through part-b (progress every 10 events): is part-a still reachable?
        if (handed.length !== 1 || heldWhileBuilding.length > 0) return;
        partReleaser(0).release();
        heldWhileBuilding.push(handed[0]?.deref() !== undefined);
      },
      10,
      { onPart: (_stream, part) => handed.push(new WeakRef(part)) },
    );
    expect(handed).toHaveLength(2);
    expect(heldWhileBuilding).toEqual([false]);
  });

  it('gives the initial state at checkpoint 0 on an empty log, and saves it', async () => {
    const progress: RebuildProgress[] = [];
    const result = await rebuildProjection(store, streamCatalog, (p) => progress.push(p));
    expect(result).toMatchObject({ state: { events: 0, streams: {} }, position: 0, events: 0 });
    expect(progress).toEqual([{ projection: 'stream-catalog', done: 0, total: 0, position: 0 }]);
    expect(await store.loadSnapshot('stream-catalog')).toEqual({
      name: 'stream-catalog',
      version: 1,
      position: 0,
      state: { events: 0, streams: {} },
    });
  });

  it('replays every event from position 1 into a fresh state and replaces the snapshot', async () => {
    await store.append('doc-1', events('EntitiesCreated', 3));
    await store.saveSnapshot({ name: 'tally', version: 1, position: 1, state: { count: 99 } });
    const { projection, seen } = tallyProjection();
    const result = await rebuildProjection(store, projection);
    expect(seen).toEqual([1, 2, 3]);
    expect(result).toMatchObject({ position: 3, events: 3, state: { count: 3, positions: [1, 2, 3] } });
    expect(result.seconds).toBeGreaterThanOrEqual(0);
    expect(await store.loadSnapshot<Tally>('tally')).toEqual({
      name: 'tally',
      version: 1,
      position: 3,
      state: result.state,
    });
  });

  it('terminates over deleted streams, the newest events included, with the state the live runner has', async () => {
    const runner = new ProjectionRunner(store, streamCatalog, QUIET);
    await runner.start();
    try {
      await store.append('doc-1', events('EntitiesCreated', 2)); // 1-2
      await store.append('run-1', events('RunStarted', 3)); // 3-5
      await store.append('doc-2', events('EntitiesCreated', 1)); // 6
      await store.deleteStream('run-1'); // StreamDeleted at 7: a hole at 3-5
      await store.append('doc-1', events('EntitiesMoved', 1)); // 8
      await store.append('run-2', events('RunStarted', 4)); // 9-12, the newest events...
      await store.deleteStream('run-2'); // ...deleted: StreamDeleted at 13
      await store.deleteStream('never-written'); // StreamDeleted at 14
      const head = await store.headPosition();
      expect(head).toBe(14);
      await runner.waitFor(head);

      const progress: RebuildProgress[] = [];
      const result = await rebuildProjection(store, streamCatalog, (p) => progress.push(p), 1);
      expect(result.position).toBe(14);
      // 1-2, 6, 7, 8, 13, 14: the deleted streams' events are gone from the log.
      expect(result.events).toBe(7);
      expect(result.state).toEqual(runner.state);
      expect(Object.keys(result.state.streams).sort()).toEqual([SYSTEM_STREAM, 'doc-1', 'doc-2']);
      expect(result.state.events).toBe(7);
      expect(result.state.streams[SYSTEM_STREAM]?.events).toBe(3);

      // One report per event read, then the end reported whole although positions had holes.
      expect(progress.map((p) => p.done)).toEqual([1, 2, 3, 4, 5, 6, 7, 14]);
      for (const p of progress) expect(p).toMatchObject({ projection: 'stream-catalog', total: 14 });
      expect(progress.at(-1)).toEqual({ projection: 'stream-catalog', done: 14, total: 14, position: 14 });
      expect(progress.map((p) => p.position)).toEqual([1, 2, 6, 7, 8, 13, 14, 14]);

      const fresh = new ProjectionRunner(store, streamCatalog, QUIET);
      await fresh.start();
      await fresh.stop();
      expect(fresh.position).toBe(14);
      expect(fresh.state).toEqual(runner.state);
    } finally {
      await runner.stop();
    }
  });

  it('reports progress every `progressEvery` events and once at the end', async () => {
    await store.append('doc-1', events('EntitiesCreated', 7));
    const progress: RebuildProgress[] = [];
    await rebuildProjection(store, tallyProjection().projection, (p) => progress.push(p), 3);
    expect(progress).toEqual([
      { projection: 'tally', done: 3, total: 7, position: 3 },
      { projection: 'tally', done: 6, total: 7, position: 6 },
      { projection: 'tally', done: 7, total: 7, position: 7 },
    ]);
  });

  it('fails with the bad event and keeps the old snapshot when evolve throws', async () => {
    await store.append('doc-1', events('EntitiesCreated', 2));
    await store.append('doc-9', [{ type: 'Poison', data: null }]);
    await store.append('doc-1', events('EntitiesCreated', 1));
    const old = { name: 'tally', version: 1, position: 2, state: { count: 2, positions: [1, 2], types: [] } };
    await store.saveSnapshot(old);

    const { projection, seen } = tallyProjection({ throwOn: 'Poison' });
    const error = await rebuildProjection(store, projection).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProjectionHaltedError);
    expect((error as ProjectionHaltedError).health).toMatchObject({
      status: 'halted',
      healthy: false,
      position: 2,
      failure: { position: 3, stream: 'doc-9', revision: 0, type: 'Poison', message: 'cannot apply Poison' },
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(await store.loadSnapshot('tally')).toEqual(old);
  });

  it('lets a runner resume from the snapshot it saves', async () => {
    await store.append('doc-1', events('EntitiesCreated', 3));
    const rebuilt = await rebuildProjection<StreamCatalog>(store, streamCatalog);
    await store.append('doc-1', events('EntitiesMoved', 2));

    let evolved = 0;
    const counting = {
      ...streamCatalog,
      evolve(state: StreamCatalog, event: Parameters<typeof streamCatalog.evolve>[1]) {
        evolved += 1;
        return streamCatalog.evolve(state, event);
      },
    };
    const runner = new ProjectionRunner(store, counting, QUIET);
    await runner.start();
    await runner.stop();
    expect(evolved).toBe(2);
    expect(rebuilt.state.streams['doc-1']?.events).toBe(3);
    expect(runner.state.streams['doc-1']).toMatchObject({ events: 5, lastType: 'EntitiesMoved' });
  });

  it('an interrupted rebuild goes on from its last checkpoint and ends as a clean one; the live snapshot waits', async () => {
    await store.append('doc-1', events('EntitiesCreated', 5));
    await store.append('doc-9', [{ type: 'Poison', data: null }]);
    await store.append('doc-1', events('EntitiesCreated', 4));
    const old = { name: 'tally', version: 1, position: 1, state: { count: 1, positions: [1], types: ['x'] } };
    await store.saveSnapshot(old);

    // Interrupted at position 6, after checkpoints at 2 and 4.
    const broken = tallyProjection({ throwOn: 'Poison' });
    const checkpoints: number[] = [];
    await expect(
      rebuildProjection(store, broken.projection, undefined, 10_000, {
        checkpointEvery: 2,
        onCheckpoint: (p) => checkpoints.push(p),
      }),
    ).rejects.toBeInstanceOf(ProjectionHaltedError);
    expect(checkpoints).toEqual([2, 4]);
    expect(await store.loadSnapshot('tally')).toEqual(old);
    expect(await store.loadSnapshot('rebuild:tally')).toMatchObject({ position: 4 });

    const fixed = tallyProjection();
    const resumed: number[] = [];
    const result = await rebuildProjection(store, fixed.projection, undefined, 10_000, {
      checkpointEvery: 100,
      onResume: (p) => resumed.push(p),
    });
    expect(resumed).toEqual([4]);
    expect(fixed.seen).toEqual(range(5, 10));
    expect(result).toMatchObject({ resumedFrom: 4, events: 6, position: 10 });

    const clean = tallyProjection({ name: 'clean' });
    const reference = await rebuildProjection(store, clean.projection);
    expect(result.state).toEqual(reference.state);
    expect(await store.loadSnapshot('tally')).toEqual({
      name: 'tally',
      version: 1,
      position: 10,
      state: reference.state,
    });
    expect(await store.loadSnapshot('rebuild:tally')).toBeUndefined();
  });

  it('ignores a checkpoint of another version', async () => {
    await store.append('doc-1', events('EntitiesCreated', 3));
    await store.saveSnapshot({
      name: 'rebuild:tally',
      version: 7,
      position: 2,
      state: { events: 2, state: {} },
    });
    const { projection, seen } = tallyProjection();
    const result = await rebuildProjection(store, projection);
    expect(seen).toEqual([1, 2, 3]);
    expect(result.resumedFrom).toBeUndefined();
  });

  it('replays a projection that is not persisted without a snapshot or a checkpoint', async () => {
    await store.append('doc-1', events('EntitiesCreated', 3));
    const { projection } = tallyProjection({ name: 'memory-only' });
    const result = await rebuildProjection(store, { ...projection, persist: false }, undefined, 10_000, {
      checkpointEvery: 1,
    });
    expect(result.state.count).toBe(3);
    expect(await store.loadSnapshot('memory-only')).toBeUndefined();
    expect(await store.loadSnapshot('rebuild:memory-only')).toBeUndefined();
  });

  it('blue-green: a runner swaps in the rebuilt state, caught up with what it applied meanwhile', async () => {
    await store.append('doc-1', events('EntitiesCreated', 3));
    // A stale snapshot the runner starts from: it claims position 3 but saw nothing.
    await store.saveSnapshot({
      name: 'tally',
      version: 1,
      position: 3,
      state: { count: 0, positions: [], types: [] },
    });
    const runner = new ProjectionRunner(store, tallyProjection().projection, QUIET);
    await runner.start();
    expect(runner.state.count).toBe(0);
    const rebuilding = runner.rebuild();
    await store.append('doc-1', events('EntitiesMoved', 2));
    const result = await rebuilding;
    await runner.waitFor(5);
    await store.append('doc-1', events('EntitiesMoved', 1));
    await runner.waitFor(6);
    await runner.stop();
    expect(runner.state.positions).toEqual(range(1, 6));
    expect(result.position).toBeGreaterThanOrEqual(3);
    expect(await store.loadSnapshot('tally')).toMatchObject({ position: 6, state: { count: 6 } });
  });
});
