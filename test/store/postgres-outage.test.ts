import { afterAll, describe, expect, it } from 'vitest';
import { StoreFailedError, WrongExpectedRevisionError } from '../../src/store/errors.js';
import { openStore } from '../../src/store/index.js';
import type { EventStore } from '../../src/store/types.js';
import { type CuttableProxy, cuttableProxy } from '../cuttable-proxy.js';
import { readStream } from './helpers.js';
import { POSTGRES_URL, postgresSchemas, postgresUnavailable } from './postgres-helpers.js';

/**
 * The PostgreSQL adapter's failed state (src/store/failed-state.ts): a write the database does not take
 * (its connections dropped, through a proxy of the test's) fails the store, and the next write it takes
 * clears it; nothing of a failed write is left behind.
 */
const unavailable = await postgresUnavailable();
const schemas = postgresSchemas('outage');
const proxies: CuttableProxy[] = [];
const stores: EventStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const proxy of proxies) await proxy.close();
  await schemas.dropAll();
});

const event = (i: number) => ({ type: 'Noted', data: { i } });

if (unavailable !== undefined) {
  console.log(`skipped: PostgreSQL store outage: ${unavailable}`);
  describe('PostgreSQL store outage', () => {
    it.skip(`skipped: ${unavailable}`, () => undefined);
  });
} else {
  describe('PostgreSQL store outage', () => {
    it('fails the store while the database is away and clears it with the next write it takes', async () => {
      const proxy = await cuttableProxy(new URL(POSTGRES_URL));
      proxies.push(proxy);
      const url = new URL(schemas.url());
      url.host = `127.0.0.1:${proxy.port}`;
      const said: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((line: string) => {
        said.push(String(line));
        return true;
      }) as typeof process.stderr.write;
      try {
        const store = await openStore(url.toString());
        stores.push(store);
        await store.append('run-1', [event(1)], { expectedRevision: 'no_stream' });
        expect(store.failure).toBeUndefined();

        proxy.cut();
        const refused = await store.append('run-1', [event(2)], { expectedRevision: 0 }).catch((e) => e);
        expect(refused).toBeInstanceOf(StoreFailedError);
        expect(store.failure?.clears).toBe('next-write');
        expect(store.failure?.reason).toBe((refused as StoreFailedError).reason);
        // Still away: the next write is tried, and refused the same way.
        await expect(store.append('run-2', [event(3)])).rejects.toBeInstanceOf(StoreFailedError);
        // Back: a refusal of the caller's own is not the store failing, nor a write it took.
        proxy.restore();
        await expect(
          store.append('run-1', [event(2)], { expectedRevision: 'no_stream' }),
        ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(store.failure?.clears).toBe('next-write');
        // The failed appends left nothing: the one tried again is the stream's second event, and clears it.
        await store.append('run-1', [event(2)], { expectedRevision: 0 });
        expect(store.failure).toBeUndefined();
        expect((await readStream(store, 'run-1')).map((e) => (e.data as { i: number }).i)).toEqual([1, 2]);
        expect(said.filter((line) => line.startsWith('store: '))).toEqual([
          expect.stringMatching(
            /^store: postgres:\/\/.* failed: .*; writes are answered store_failed until it takes one again\n$/,
          ),
          expect.stringMatching(/^store: postgres:\/\/.* takes writes again\n$/),
        ]);
      } finally {
        process.stderr.write = write;
      }
    });
  });
}
