import type pg from 'pg';
import { KEY_STREAM_PREFIX } from '../../streams/system.js';

/**
 * The PostgreSQL adapter's tables, created or migrated at start. Each store lives in its own schema
 * (`?schema=` of the store URL, default `chronicle`), so several logs can share a database.
 *
 * - `events`: the log. `body` is the stored event as the LevelDB adapter stores it
 *   (`{"s":stream,"r":revision,"t":type,"d":data,"m":metadata}`), read back with one JSON.parse and
 *   never re-serialized, so a migrated log is byte for byte the same. `type` is a column for operators.
 * - `streams`: each stream's last revision and its tombstone.
 * - `head`: one row, the last position given out. Appends lock it for their transaction, which is what
 *   makes positions dense and commit order equal to position order (see postgres-store.ts).
 * - `snapshots`: projection snapshots by name.
 * - `key_events`: the events of key streams (`key-…`, streams/system.ts), in the shape of `events` and
 *   on the same positions: kept apart so that deleting one can rewrite this small table (VACUUM FULL),
 *   which leaves no byte of the deleted key in it, where a deleted row of `events` stays in its page.
 * Migrations are numbered; each runs once, in a transaction, under an advisory lock so that instances
 * starting together do not race.
 */
const MIGRATIONS: ReadonlyArray<(schema: string) => string> = [
  (s) => `
    CREATE TABLE ${s}.events (
      position bigint PRIMARY KEY,
      stream text NOT NULL,
      revision integer NOT NULL,
      type text NOT NULL,
      body text NOT NULL,
      UNIQUE (stream, revision)
    );
    CREATE TABLE ${s}.streams (
      stream text PRIMARY KEY,
      revision integer NOT NULL,
      deleted_at timestamptz
    );
    CREATE TABLE ${s}.head (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      position bigint NOT NULL
    );
    INSERT INTO ${s}.head (id, position) VALUES (true, 0);
    CREATE TABLE ${s}.snapshots (
      name text PRIMARY KEY,
      body text NOT NULL
    );`,
  (s) => `
    CREATE TABLE ${s}.key_events (LIKE ${s}.events INCLUDING ALL);
    INSERT INTO ${s}.key_events SELECT * FROM ${s}.events WHERE starts_with(stream, '${KEY_STREAM_PREFIX}');
    DELETE FROM ${s}.events WHERE starts_with(stream, '${KEY_STREAM_PREFIX}');`,
];

const SCHEMA_VERSION = MIGRATIONS.length;

/** `"name"` with quotes doubled: an identifier that cannot break out of its place in SQL. */
export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A stable 64-bit advisory lock key for one schema's migrations. */
const lockKeyOf = (schema: string) => {
  let hash = 0n;
  for (const byte of Buffer.from(`chronicle-migrate:${schema}`))
    hash = (hash * 131n + BigInt(byte)) & 0x7fffffffffffffffn;
  return hash.toString();
};

/** Creates the schema and brings its tables to SCHEMA_VERSION; throws when the schema is newer than this build. */
export async function migrate(client: pg.ClientBase, schema: string): Promise<void> {
  const s = quoteIdentifier(schema);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKeyOf(schema)]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
    const found = await client.query<{ version: number }>(`SELECT version FROM ${s}.schema_version`);
    const current = found.rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION)
      throw new Error(
        `schema ${schema} is at version ${current}, newer than this chronicle (${SCHEMA_VERSION}); upgrade chronicle`,
      );
    for (let version = current; version < SCHEMA_VERSION; version++)
      await client.query((MIGRATIONS[version] as (schema: string) => string)(s));
    if (found.rows.length === 0)
      await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [SCHEMA_VERSION]);
    else await client.query(`UPDATE ${s}.schema_version SET version = $1`, [SCHEMA_VERSION]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
