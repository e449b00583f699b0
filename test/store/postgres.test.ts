import { afterAll, describe, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { describeStoreContract } from './contract/index.js';
import { postgresSchemas, postgresUnavailable } from './postgres-helpers.js';

const unavailable = await postgresUnavailable();
const schemas = postgresSchemas('contract');
afterAll(() => schemas.dropAll());

if (unavailable !== undefined) {
  console.log(`skipped: PostgreSQL adapter contract: ${unavailable}`);
  describe('event store contract: postgres', () => {
    it.skip(`skipped: ${unavailable}`, () => undefined);
  });
} else {
  // A fresh schema per store: each test starts on an empty log.
  describeStoreContract('postgres', {
    durable: true,
    shared: 'several chronicle processes share one PostgreSQL log',
    open: () => openStore(schemas.url()),
    reopen: async (store) => {
      await store.close();
      return openStore(store.location);
    },
  });
}
