import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Projection } from '../../projections/projection.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore, RecordedEvent } from '../../src/store/types.js';

/** A store to run a suite against, and how to throw it away. */
export interface StoreHarness {
  store: EventStore;
  /** Set for stores on disk: the URL to reopen the same log with. */
  url?: string;
  dispose(): Promise<void>;
}

export type StoreKind = 'memory' | 'level';

export const storeKinds: readonly StoreKind[] = ['memory', 'level'];

export async function tempDir(prefix = 'chronicle-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function openHarness(kind: StoreKind): Promise<StoreHarness> {
  if (kind === 'memory') {
    const store = await openStore('memory:');
    return { store, dispose: () => store.close() };
  }
  const dir = await tempDir();
  const url = `level:${join(dir, 'events')}`;
  const harness: StoreHarness = {
    store: await openStore(url),
    url,
    async dispose() {
      await harness.store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

export interface Tally {
  count: number;
  positions: number[];
  types: string[];
}

/**
 * A projection that remembers every event it saw in its state, and every evolve call in a closure
 * (`seen`), so a test can tell events replayed into this instance from state loaded from a snapshot.
 */
export function tallyProjection(options: { name?: string; version?: number; throwOn?: string } = {}): {
  projection: Projection<Tally>;
  seen: number[];
} {
  const seen: number[] = [];
  const projection: Projection<Tally> = {
    name: options.name ?? 'tally',
    version: options.version ?? 1,
    initial: () => ({ count: 0, positions: [], types: [] }),
    evolve(state, event: RecordedEvent) {
      seen.push(event.position);
      if (event.type === options.throwOn) throw new Error(`cannot apply ${event.type}`);
      state.count += 1;
      state.positions.push(event.position);
      state.types.push(event.type);
      return state;
    },
  };
  return { projection, seen };
}

export const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
