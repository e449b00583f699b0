import { resolve } from 'node:path';
import { defaultStoreUrl, openStore } from '../store/open.js';
import type { EventStore } from '../store/types.js';
import { stopRequested } from './stop-signals.js';

export interface StoreOptions {
  data?: string;
  store?: string;
}

/** `--data DIR`, else $CHRONICLE_DATA, else ./data (docs/operations.md#where-the-data-lives). */
export const dataDirOf = (options: StoreOptions) =>
  resolve(options.data ?? process.env.CHRONICLE_DATA ?? './data');

/** `--store URL`, else the LevelDB store in the data dir. */
export const storeUrlOf = (options: StoreOptions) => options.store ?? defaultStoreUrl(dataDirOf(options));

/**
 * Whether a server on these options announces its control socket in the data dir (and `chronicle
 * rebuild` looks for one): only over a LevelDB store, the one another process cannot open.
 */
export const announcesControl = (options: StoreOptions) => storeUrlOf(options).startsWith('level:');

/**
 * Opens the store a server runs on; undefined when a stop signal came while it opened (nothing was
 * served yet: the store is closed again and the command exits 0).
 */
export async function openStoreUnlessStopped(options: StoreOptions): Promise<EventStore | undefined> {
  const store = await openStore(storeUrlOf(options));
  if (!stopRequested()) return store;
  await store.close();
  return undefined;
}
