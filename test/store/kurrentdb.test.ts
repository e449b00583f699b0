import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type EventStore, openStore, UnsupportedStoreError } from '../../src/store/index.js';
import { describeStoreContract } from './contract/index.js';
import { caught } from './helpers.js';

/**
 * The shared contract against a real KurrentDB (25.1 or later: the adapter needs multi-stream appends),
 * named by `KURRENTDB_URL`, e.g. `kurrentdb://127.0.0.1:2113?tls=false` (docker-compose.yml has one).
 * Each store gets a namespace of its own, so each test starts on an empty log in a shared database.
 * The crash test hands `store.location` to a child process: use a URL without a password (an insecure
 * test server), since location hides it.
 */
const KURRENTDB_URL = process.env.KURRENTDB_URL;

if (KURRENTDB_URL === undefined || KURRENTDB_URL === '') {
  const reason =
    'KurrentDB adapter contract: KURRENTDB_URL is not set (e.g. KURRENTDB_URL=kurrentdb://127.0.0.1:2113?tls=false; docker compose up kurrentdb1 kurrentdb2 kurrentdb3 starts one)';
  console.log(`skipped: ${reason}`);
  describe('event store contract: kurrentdb', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
} else {
  const baseUrl = KURRENTDB_URL;
  const urls = new WeakMap<EventStore, string>();
  const openFresh = async () => {
    const separator = baseUrl.includes('?') ? '&' : '?';
    const url = `${baseUrl}${separator}namespace=contract_${randomBytes(6).toString('hex')}`;
    const store = await openStore(url);
    urls.set(store, url);
    return store;
  };
  describeStoreContract('kurrentdb', {
    durable: true,
    shared: 'several chronicle processes share one KurrentDB log',
    open: openFresh,
    reopen: async (store) => {
      await store.close();
      const url = urls.get(store) ?? store.location;
      const again = await openStore(url);
      urls.set(again, url);
      return again;
    },
  });
}

// Needs no server: the real client against a port nobody listens on. Its reads go through the client's
// native bridge (@kurrent/bridge, a prebuilt .node), so this also proves that module loads here.
describe('kurrentdb adapter without a server', () => {
  it('openStore fails soon with UnsupportedStoreError naming the place, without the password', async () => {
    const started = Date.now();
    const error = await caught(
      openStore('kurrentdb://admin:s3cret@127.0.0.1:1?tls=false&namespace=nobody_home'),
      UnsupportedStoreError,
    );
    expect(error.message).toContain('kurrentdb://admin:***@127.0.0.1:1?tls=false&namespace=nobody_home');
    expect(error.message).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 15_000);

  it('a bad KurrentDB URL is refused before anything connects', async () => {
    await caught(openStore('kurrentdb://127.0.0.1:2113?namespace=Not-Valid'), UnsupportedStoreError);
    await caught(openStore('esdb://'), UnsupportedStoreError);
  });
});
