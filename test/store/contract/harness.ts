import type { TestContext } from 'vitest';
import type { EventStore } from '../../../src/store/index.js';

/** How the contract suite gets stores of one adapter. */
export interface StoreAdapter {
  /** Opens a new, empty store. The suite closes it after the test. */
  open(): Promise<EventStore>;
  /** Closes `store` and opens the same log again. Only for durable adapters. */
  reopen?(store: EventStore): Promise<EventStore>;
  /** The directory holding a durable store, for another process to open. */
  directoryOf?(store: EventStore): string;
  /** The log outlives close and the process: reopen and crash tests apply. */
  durable: boolean;
  /**
   * Why the adapter is not held by one process at a time (the lock test does not apply), e.g. a server
   * that many processes share; absent for an exclusive adapter.
   */
  shared?: string;
}

/** What each part of the contract works with: the adapter plus bookkeeping of the stores it opened. */
export interface Harness {
  readonly name: string;
  readonly durable: boolean;
  readonly shared: string | undefined;
  /** Whether the log lives in a directory the tests can search (`directoryOf`). */
  readonly hasDirectory: boolean;
  open(): Promise<EventStore>;
  reopen(store: EventStore): Promise<EventStore>;
  directoryOf(store: EventStore): string;
  /** Closes every store opened during the test (close is idempotent). */
  closeAll(): Promise<void>;
}

/**
 * Skips the running test, saying why, for an adapter whose log does not outlive `what`; vitest's
 * default reporter hides skip notes, so the reason is logged as well.
 */
export function requireDurable(h: Harness, ctx: TestContext, what: 'close' | 'processes'): void {
  if (h.durable) return;
  const reason = `${h.name} adapter keeps nothing across ${what} by design`;
  console.log(`skipped: ${reason}`);
  ctx.skip(reason);
}

export function harness(name: string, adapter: StoreAdapter): Harness {
  const opened: EventStore[] = [];
  const track = (store: EventStore) => {
    opened.push(store);
    return store;
  };
  return {
    name,
    durable: adapter.durable,
    shared: adapter.shared,
    hasDirectory: adapter.directoryOf !== undefined,
    open: async () => track(await adapter.open()),
    reopen: async (store) => {
      if (!adapter.reopen) throw new Error(`${name}: the adapter cannot reopen a store`);
      return track(await adapter.reopen(store));
    },
    directoryOf: (store) => {
      if (!adapter.directoryOf) throw new Error(`${name}: the adapter has no directory`);
      return adapter.directoryOf(store);
    },
    closeAll: async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    },
  };
}

/** Skips the running test, saying why, unless the adapter has what it checks. */
export function requireCapability(h: Harness, ctx: TestContext, what: 'exclusive' | 'directory'): void {
  let reason: string | undefined;
  if (what === 'exclusive' && h.shared !== undefined)
    reason = `${h.name} adapter is shared on purpose: ${h.shared}`;
  if (what === 'directory' && !h.hasDirectory)
    reason = `${h.name} adapter keeps its log outside a directory of ours`;
  if (reason === undefined) return;
  console.log(`skipped: ${reason}`);
  ctx.skip(reason);
}
