import { resolve } from 'node:path';
import { defaultStoreUrl } from '../store/open.js';

export interface StoreOptions {
  data?: string;
  store?: string;
}

/** `--data DIR`, else $CHRONICLE_DATA, else ./data (CONTRACT.md). */
export const dataDirOf = (options: StoreOptions) =>
  resolve(options.data ?? process.env.CHRONICLE_DATA ?? './data');

/** `--store URL`, else the LevelDB store in the data dir. */
export const storeUrlOf = (options: StoreOptions) => options.store ?? defaultStoreUrl(dataDirOf(options));

/**
 * Whether a server on these options announces its control socket in the data dir (and `chronicle
 * rebuild` looks for one): only over a LevelDB store, the one another process cannot open.
 */
export const announcesControl = (options: StoreOptions) => storeUrlOf(options).startsWith('level:');
