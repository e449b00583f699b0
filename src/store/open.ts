import { resolve } from 'node:path';
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { StoreLockedError, UnsupportedStoreError } from './errors.js';
import { LevelEventStore } from './level-store.js';
import type { EventStore } from './types.js';

/**
 * LevelDB maps each table file it keeps open into memory whole (up to 1,000 of them on a 64-bit
 * machine), and the pages read through a mapping count in the process's RSS until the table is
 * closed: with the default of 1,000 open files, a replay of a 170 MB log ended with every table
 * mapped (180 MB of the editor-models rebuild's 427 MB peak). LevelDB's smallest table cache (74 open
 * files, of which 64 tables, some 128 MB at 2 MB a table) bounds that share whatever the log's size;
 * a table closed is reopened by its next read (its index block read again, a few KB).
 */
const MAX_OPEN_FILES = 74;

/** The store URL when none is given: `level:<data>/events`. */
export const defaultStoreUrl = (dataDir: string) => `level:${resolve(dataDir, 'events')}`;

function isLockError(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === 'LEVEL_LOCKED') return true;
  }
  return false;
}

/**
 * Opens the event store a `--store` URL names: `level:<dir>`, `memory:`, `postgres://...` (optional
 * `?schema=`, default `chronicle`), `kurrentdb://...` or `esdb://...` (optional `?namespace=`, default
 * `chronicle`; KurrentDB 25.1 or later).
 */
export async function openStore(url: string): Promise<EventStore> {
  if (url === 'memory:' || url === 'memory://') {
    return LevelEventStore.open(new MemoryLevel<string, string>(), 'memory:', { sync: false });
  }
  if (url.startsWith('level:')) {
    const dir = resolve(url.slice('level:'.length).replace(/^\/\/(?=\/)/, ''));
    if (dir === '' || url === 'level:')
      throw new UnsupportedStoreError('level: needs a directory, e.g. level:./data/events');
    const db = new Level<string, string>(dir, { maxOpenFiles: MAX_OPEN_FILES });
    try {
      return await LevelEventStore.open(db, `level:${dir}`, { sync: true });
    } catch (error) {
      if (isLockError(error)) throw new StoreLockedError(dir, { cause: error });
      throw new UnsupportedStoreError(
        `cannot open the event store in ${dir}: ${(error as Error).cause ?? (error as Error).message}`,
      );
    }
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  if (scheme === 'postgres' || scheme === 'postgresql') return openPostgres(url);
  // The external engines' clients are loaded only for their URLs: KurrentDB's (gRPC) alone costs a
  // server on LevelDB some 25 MB of memory, and a larger heap for the collector to grow from.
  if (scheme && (await import('./kurrentdb-mapping.js')).isKurrentScheme(scheme)) return openKurrent(url);
  throw new UnsupportedStoreError(
    `unknown store URL ${JSON.stringify(url)}: expected level:<dir>, memory:, postgres://..., kurrentdb://... or esdb://...`,
  );
}

async function openPostgres(url: string): Promise<EventStore> {
  const { PostgresEventStore, parsePostgresUrl } = await import('./postgres-store.js');
  let parsed: ReturnType<typeof parsePostgresUrl>;
  try {
    parsed = parsePostgresUrl(url);
  } catch (error) {
    if (error instanceof UnsupportedStoreError) throw error;
    throw new UnsupportedStoreError(
      `the store URL is not a valid postgres:// URL: ${(error as Error).message}`,
    );
  }
  try {
    return await PostgresEventStore.open(parsed);
  } catch (error) {
    throw new UnsupportedStoreError(
      `cannot open the PostgreSQL event store at ${parsed.location}: ${(error as Error).message}`,
    );
  }
}

async function openKurrent(url: string): Promise<EventStore> {
  const { parseKurrentUrl } = await import('./kurrentdb-mapping.js');
  const { KurrentEventStore } = await import('./kurrentdb-store.js');
  const parsed = parseKurrentUrl(url);
  try {
    return await KurrentEventStore.open(parsed);
  } catch (error) {
    throw new UnsupportedStoreError(
      `cannot open the KurrentDB event store at ${parsed.location} (is it running, and is it 25.1 or later?): ${(error as Error).message || (error as Error).name}`,
    );
  }
}
