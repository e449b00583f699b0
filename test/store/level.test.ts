import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { describeStoreContract } from './contract/index.js';
import { tempDirs } from './helpers.js';

const dirs = tempDirs('chronicle-level-');
afterAll(() => dirs.removeAll());

// classic-level on disk with synced writes: a fresh directory per test.
describeStoreContract('level', {
  durable: true,
  open: async () => openStore(`level:${join(await dirs.make(), 'events')}`),
  reopen: async (store) => {
    await store.close();
    return openStore(store.location);
  },
  directoryOf: (store) => store.location.slice('level:'.length),
});
