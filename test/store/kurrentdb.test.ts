import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type EventStore,
  InvalidEventError,
  openStore,
  type RecordedEvent,
  UnsupportedStoreError,
} from '../../src/store/index.js';
import { describeStoreContract } from './contract/index.js';
import { caught, positions, range, readAll } from './helpers.js';

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
  const freshUrl = () => {
    const separator = baseUrl.includes('?') ? '&' : '?';
    return `${baseUrl}${separator}namespace=adapter_${randomBytes(6).toString('hex')}`;
  };
  const opened: EventStore[] = [];
  const open = async (url: string) => {
    const store = await openStore(url);
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  describe('kurrentdb adapter: several processes, imports', () => {
    it('a lease is exclusive across stores on one log, and freed at once when its holder closes', async () => {
      const url = freshUrl();
      const a = await open(url);
      const b = await open(url);
      const held = await a.tryLease('reconcile-schedule');
      expect(held).toBeDefined();
      expect(await b.tryLease('reconcile-schedule')).toBeUndefined();
      await held?.release();
      const taken = await b.tryLease('reconcile-schedule');
      expect(taken).toBeDefined();
      expect(await a.tryLease('reconcile-schedule')).toBeUndefined();
      await b.close();
      const after = await a.tryLease('reconcile-schedule');
      expect(after).toBeDefined();
      await after?.release();
    });

    it('imports streams that interleave (several multi-stream appends) in their order, and another process sees them', async () => {
      const source = await open(freshUrl());
      for (let i = 0; i < 6; i++) {
        await source.append('a', [{ type: 'A', data: { i } }]);
        await source.append('b', [
          { type: 'B', data: { i } },
          { type: 'B', data: { i, second: true } },
        ]);
      }
      const original = await readAll(source);
      const url = freshUrl();
      const target = await open(url);
      const other = await open(url);
      await target.importEvents(original);
      const copied = (events: readonly RecordedEvent[]) =>
        events.map(({ stream, revision, type, data, metadata }) => ({
          stream,
          revision,
          type,
          data,
          metadata,
        }));
      for (const store of [target, other]) {
        const imported = await readAll(store);
        expect(copied(imported)).toEqual(copied(original));
        expect(positions(imported)).toEqual(range(1, original.length));
      }
      // A second import that does not follow on is refused whole.
      await caught(target.importEvents(original.slice(0, 1)), InvalidEventError);
      expect(await other.headPosition()).toBe(original.length);
    });
  });

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
  it('openStore fails with UnsupportedStoreError naming the place, without the password', async () => {
    const error = await caught(
      openStore('kurrentdb://admin:s3cret@127.0.0.1:1?tls=false&namespace=nobody_home'),
      UnsupportedStoreError,
    );
    expect(error.message).toContain('kurrentdb://admin:***@127.0.0.1:1?tls=false&namespace=nobody_home');
    expect(error.message).not.toContain('s3cret');
  }, 60_000);

  it('a bad KurrentDB URL is refused before anything connects', async () => {
    await caught(openStore('kurrentdb://127.0.0.1:2113?namespace=Not-Valid'), UnsupportedStoreError);
    await caught(openStore('esdb://'), UnsupportedStoreError);
  });
});
