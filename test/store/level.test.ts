import { join } from 'node:path';
import { Level } from 'level';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { snapshotPartKey, snapshotPartRange } from '../../src/store/keys.js';
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

describe('level snapshots in parts', () => {
  const big = (mark: number) => {
    const entities: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) entities[`H${i}`] = { handle: `H${i}`, mark, at: [i, i, 0] };
    return { name: 'live', version: 1, position: mark, state: { entities } };
  };
  const partKeys = async (dir: string) => {
    const db = new Level<string, string>(dir);
    await db.open();
    const keys = await db.keys(snapshotPartRange('live')).all();
    await db.close();
    return keys;
  };

  it('leaves the previous snapshot in force when a save stopped part-way, and the next save clears its parts', async () => {
    const dir = join(await dirs.make(), 'events');
    let store = await openStore(`level:${dir}`);
    await store.saveSnapshot(big(1));
    await store.close();
    const saved = await partKeys(dir);
    expect(saved.length).toBeGreaterThan(1);

    // What a save killed after its first parts leaves: parts of a generation no value names.
    const db = new Level<string, string>(dir);
    await db.open();
    await db.put(snapshotPartKey('live', 'killed', 0), '{"name":"live","version":1,"position":99,');
    await db.close();

    store = await openStore(`level:${dir}`);
    expect(await store.loadSnapshot('live')).toEqual(big(1));
    await store.saveSnapshot({ name: 'live', version: 1, position: 2, state: {} });
    await store.close();
    expect(await partKeys(dir)).toEqual([]);
  });
});
