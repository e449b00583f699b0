import { StoreFailedError } from '../../store/errors.js';
import type { EventStore } from '../../store/types.js';

/** The first wait before a write is tried again, and the longest (ms). */
const FIRST_WAIT_MS = 200;
const LONGEST_WAIT_MS = 5_000;

/**
 * Makes `write` (an append that ends something: a run's completion, a job's result) until the store
 * takes it. Only a network store's failure is waited out (src/store/failed-state.ts: it clears with
 * the next write it takes): a local store failed until a restart, the store closing, or a refusal of
 * the caller's own (a revision, a deleted stream) are thrown at once. `waiting` hears of each failed try.
 */
export async function untilRecorded<T>(
  store: EventStore,
  write: () => Promise<T>,
  waiting?: (error: StoreFailedError) => void,
): Promise<T> {
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof StoreFailedError) || store.failure?.clears === 'restart') throw error;
      waiting?.(error);
    }
    // Unref'd: a server that stops does not wait for the store to come back (the write then meets a
    // closed store, and the next start closes what was left open).
    await new Promise((resolve) => setTimeout(resolve, wait).unref());
  }
}
