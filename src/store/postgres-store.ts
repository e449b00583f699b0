import pg from 'pg';
import {
  KEY_STREAM_PREFIX,
  STREAM_DELETED,
  type StreamDeletedData,
  SYSTEM_STREAM,
} from '../../streams/system.js';
import { StoreClosedError, StreamDeletedError, UnsupportedStoreError } from './errors.js';
import { importedValue, planImport } from './import.js';
import { decodeEvent } from './keys.js';
import { LiveDelivery, readByRanges } from './live-delivery.js';
import { migrate, quoteIdentifier } from './postgres-schema.js';
import { PolledEventStore } from './queued-store.js';
import type {
  AppendResult,
  EventStore,
  Lease,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  Snapshot,
} from './types.js';
import { assertStreamName, serializeEventBody, storedValue } from './validate.js';
import { checkExpected, type PendingAppend, type PendingDelete, type PendingImport } from './write-queue.js';

export interface PostgresStoreOptions {
  /** A libpq-style URL without chronicle's own parameters. */
  connectionString: string;
  schema: string;
  /** What `location` says: the URL without its password. */
  location: string;
  poolSize?: number;
}

const READ_PAGE = 2_000;
const RECONNECT_MS = 500;

/**
 * The event store on PostgreSQL, shared by any number of chronicle processes.
 *
 * Positions are dense and never seen out of order. Every append transaction first locks the one `head`
 * row and keeps the lock until it commits, so the next transaction takes its positions only after the
 * previous one is committed and visible: commit order is position order, and a reader that has seen
 * position p can never later find a smaller one appear (the in-flight problem of sequences, where a
 * transaction holding position 7 commits after the one holding 8, cannot happen). The price is that
 * writers take turns on that row; within a process, appends that wait while a transaction runs are
 * committed together in the next one (group commit), so a turn carries many appends and one fsync.
 *
 * Live delivery: each transaction sends `pg_notify(channel, head)` (delivered at commit). Every process
 * LISTENs on a connection of its own and, on a notification, on its own commits and on a periodic read
 * of the head (the net under a lost notification), reads the events after the head it has published
 * and hands them to its subscribers in order (live-delivery.ts; subscription.ts does catch-up and the
 * per-subscriber queues).
 */
export class PostgresEventStore extends PolledEventStore implements EventStore {
  private readonly pool: pg.Pool;
  private readonly connectionString: string;
  private readonly schema: string;
  private readonly sql: { events: string; keys: string; streams: string; head: string; snapshots: string };
  private readonly channel: string;
  protected readonly delivery: LiveDelivery;
  private listener: pg.Client | undefined;
  /** Each lease's own connection: a session advisory lock lives as long as its session. */
  private readonly leaseClients = new Set<pg.Client>();

  private constructor(options: PostgresStoreOptions) {
    // A failed write is cleared by the next write it takes (failed-state.ts).
    super(options.location, 'next-write', true);
    this.connectionString = options.connectionString;
    this.schema = options.schema;
    const s = quoteIdentifier(options.schema);
    this.sql = {
      events: `${s}.events`,
      keys: `${s}.key_events`,
      streams: `${s}.streams`,
      head: `${s}.head`,
      snapshots: `${s}.snapshots`,
    };
    this.channel = `chronicle_${options.schema}`.slice(0, 63);
    this.pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize ?? 8 });
    // An idle pooled connection that the server drops must not crash the process.
    this.pool.on('error', () => undefined);
    this.delivery = new LiveDelivery(
      (stream, from, to) => this.readRange(stream, from, to),
      readByRanges((from, to, limit) => this.range(undefined, from, to, limit), READ_PAGE),
    );
  }

  static async open(options: PostgresStoreOptions): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(options);
    try {
      const client = await store.pool.connect();
      try {
        await migrate(client, options.schema);
      } finally {
        client.release();
      }
      // A key deleted just before a crash may not have been rewritten away yet (see runDelete).
      await store.rewriteKeys();
      // Subscribers start from the head of the moment of opening, like the LevelDB adapter's.
      store.delivery.startAt(await store.readHead());
      await store.startListening();
      store.startPolling();
      return store;
    } catch (error) {
      await store.pool.end().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A session-level advisory lock (keyed by schema and name) on a connection of the lease's own: the
   * server lets it go when that session ends, so a crashed holder frees its leases by itself.
   */
  async tryLease(name: string): Promise<Lease | undefined> {
    if (this.closed) throw new StoreClosedError();
    const client = new pg.Client({ connectionString: this.connectionString });
    let lose: () => void = () => undefined;
    const lost = new Promise<void>((resolve) => {
      lose = resolve;
    });
    let released = false;
    client.on('error', () => undefined);
    client.on('end', () => {
      this.leaseClients.delete(client);
      if (!released) lose();
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ taken: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS taken',
        [this.schema, name],
      );
      if (rows[0]?.taken !== true) {
        released = true;
        await client.end();
        return undefined;
      }
    } catch (error) {
      released = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    this.leaseClients.add(client);
    return {
      name,
      lost,
      release: async () => {
        if (released) return;
        released = true;
        this.leaseClients.delete(client);
        await client.end().catch(() => undefined);
      },
    };
  }

  async streamRevision(stream: string): Promise<number | undefined> {
    assertStreamName(stream);
    const head = await this.streamHead(this.pool, stream);
    if (head.deleted) throw new StreamDeletedError(stream);
    return head.revision === -1 ? undefined : head.revision;
  }

  async *readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    assertStreamName(stream);
    const head = await this.streamHead(this.pool, stream);
    if (head.deleted) throw new StreamDeletedError(stream);
    if (head.revision === -1) return;
    const backwards = options.direction === 'backwards';
    let left = options.maxCount ?? Number.POSITIVE_INFINITY;
    let next =
      options.from === 'end'
        ? head.revision
        : options.from === 'start' || options.from === undefined
          ? backwards
            ? head.revision
            : 0
          : options.from;
    while (left > 0) {
      const limit = Math.min(READ_PAGE, left);
      const { rows } = await this.pool.query<{ position: string; revision: number; body: string }>(
        backwards
          ? `SELECT position, revision, body FROM ${this.tableOf(stream)} WHERE stream = $1 AND revision <= $2 ORDER BY revision DESC LIMIT $3`
          : `SELECT position, revision, body FROM ${this.tableOf(stream)} WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
        [stream, next, limit],
      );
      for (const row of rows) yield decodeEvent(Number(row.position), row.body);
      left -= rows.length;
      if (rows.length < limit) return;
      next = (rows.at(-1)?.revision as number) + (backwards ? -1 : 1);
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    const to = await this.readHead();
    let from = Math.max(1, options.from ?? 1);
    let left = options.maxCount ?? Number.POSITIVE_INFINITY;
    while (left > 0 && from <= to) {
      const limit = Math.min(READ_PAGE, left);
      const events = await this.range(undefined, from, to, limit);
      for (const event of events) yield event;
      left -= events.length;
      if (events.length < limit) return;
      from = (events.at(-1) as RecordedEvent).position + 1;
    }
  }

  async *listStreams(prefix: string): AsyncIterable<string> {
    const { rows } = await this.pool.query<{ stream: string }>(
      `SELECT stream FROM ${this.sql.streams} WHERE deleted_at IS NULL AND revision >= 0 AND starts_with(stream, $1) ORDER BY stream COLLATE "C"`,
      [prefix],
    );
    for (const row of rows) yield row.stream;
  }

  async loadSnapshot<State>(name: string): Promise<Snapshot<State> | undefined> {
    const { rows } = await this.pool.query<{ body: string }>(
      `SELECT body FROM ${this.sql.snapshots} WHERE name = $1`,
      [name],
    );
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].body) as Snapshot<State>);
  }

  async saveSnapshot<State>(snapshot: Snapshot<State>): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.sql.snapshots} (name, body) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET body = EXCLUDED.body`,
      [snapshot.name, JSON.stringify(snapshot)],
    );
  }

  async deleteSnapshot(name: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.sql.snapshots} WHERE name = $1`, [name]);
  }

  protected async release(): Promise<void> {
    await this.delivery.settled();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    this.delivery.close();
    // Ending a lease's session releases its lock; `lost` settles for whoever still held one.
    await Promise.all([...this.leaseClients].map((client) => client.end().catch(() => undefined)));
    await this.pool.end();
  }

  // ----------------------------------------------------------------------------------------------
  // Live delivery
  // ----------------------------------------------------------------------------------------------

  protected async readHead(): Promise<number> {
    const { rows } = await this.pool.query<{ position: string }>(`SELECT position FROM ${this.sql.head}`);
    return Number(rows[0]?.position ?? 0);
  }

  private async startListening(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (message) => {
      const head = Number(message.payload);
      if (Number.isSafeInteger(head)) this.delivery.advanceTo(head).catch(() => undefined);
    });
    client.on('error', () => this.relisten(client));
    client.on('end', () => this.relisten(client));
    await client.connect();
    await client.query(`LISTEN ${quoteIdentifier(this.channel)}`);
    this.listener = client;
  }

  /** The LISTEN connection broke: connect again, and read the head for what was missed meanwhile. */
  private relisten(broken: pg.Client): void {
    if (this.closed || this.listener !== broken) return;
    this.listener = undefined;
    broken.end().catch(() => undefined);
    const retry = () => {
      if (this.closed) return;
      this.startListening()
        .then(() => this.poll())
        .catch(() => setTimeout(retry, RECONNECT_MS).unref());
    };
    setTimeout(retry, RECONNECT_MS).unref();
  }

  // ----------------------------------------------------------------------------------------------
  // Reads
  // ----------------------------------------------------------------------------------------------

  private async streamHead(
    db: pg.Pool | pg.PoolClient,
    stream: string,
  ): Promise<{ revision: number; deleted: boolean }> {
    const { rows } = await db.query<{ revision: number; deleted: boolean }>(
      `SELECT revision, deleted_at IS NOT NULL AS deleted FROM ${this.sql.streams} WHERE stream = $1`,
      [stream],
    );
    const row = rows[0];
    return row === undefined ? { revision: -1, deleted: false } : row;
  }

  /** Up to `limit` events with from <= position <= to, in order (of one stream when given). */
  private async range(
    stream: string | undefined,
    from: number,
    to: number,
    limit: number,
  ): Promise<RecordedEvent[]> {
    // The log is both tables merged by position (key streams have their own: see postgres-schema.ts).
    const { rows } = await this.pool.query<{ position: string; body: string }>(
      stream === undefined
        ? `(SELECT position, body FROM ${this.sql.events} WHERE position >= $1 AND position <= $2 ORDER BY position LIMIT $3)
           UNION ALL
           (SELECT position, body FROM ${this.sql.keys} WHERE position >= $1 AND position <= $2 ORDER BY position LIMIT $3)
           ORDER BY position LIMIT $3`
        : `SELECT position, body FROM ${this.tableOf(stream)} WHERE stream = $4 AND position >= $1 AND position <= $2 ORDER BY revision LIMIT $3`,
      stream === undefined ? [from, to, limit] : [from, to, limit, stream],
    );
    return rows.map((row) => decodeEvent(Number(row.position), row.body));
  }

  private async *readRange(
    stream: string | undefined,
    from: number,
    to: number,
  ): AsyncIterable<RecordedEvent> {
    if (stream !== undefined && (await this.streamHead(this.pool, stream)).deleted)
      throw new StreamDeletedError(stream);
    let next = from;
    while (next <= to) {
      const events = await this.range(stream, next, to, READ_PAGE);
      for (const event of events) yield event;
      if (events.length < READ_PAGE) return;
      next = (events.at(-1) as RecordedEvent).position + 1;
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Writes
  // ----------------------------------------------------------------------------------------------

  /** Runs `work` in a transaction that holds the head row: see the class comment. */
  private async inHeadTransaction<T>(work: (client: pg.PoolClient, head: number) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // The pool listens for errors only on idle connections: one that breaks while it is checked out
    // (the server gone between two queries) would crash the process. Its next query fails instead, and
    // the broken connection is dropped from the pool rather than handed out again.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      try {
        const { rows } = await client.query<{ position: string }>(
          `SELECT position FROM ${this.sql.head} FOR UPDATE`,
        );
        const result = await work(client, Number(rows[0]?.position ?? 0));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        broken ??= error instanceof Error && isConnectionError(error) ? error : undefined;
        if (!broken) await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  protected async commitAppends(appends: PendingAppend[]): Promise<void> {
    const accepted: Array<{ append: PendingAppend; result: AppendResult }> = [];
    const refused: Array<{ append: PendingAppend; error: unknown }> = [];
    let recorded: RecordedEvent[] = [];
    let head = 0;
    try {
      await this.inHeadTransaction(async (client, locked) => {
        accepted.length = 0;
        refused.length = 0;
        const names = [...new Set(appends.map((a) => a.stream))];
        // Read after the head row is ours: the previous holder's streams are committed by now.
        const { rows } = await client.query<{ stream: string; revision: number; deleted: boolean }>(
          `SELECT stream, revision, deleted_at IS NOT NULL AS deleted FROM ${this.sql.streams} WHERE stream = ANY($1::text[])`,
          [names],
        );
        const heads = new Map(rows.map((row) => [row.stream, row]));
        const next = new Map<string, number>();
        const positions: number[] = [];
        const streams: string[] = [];
        const revisions: number[] = [];
        const types: string[] = [];
        const bodies: string[] = [];
        let position = locked;
        for (const append of appends) {
          const known = heads.get(append.stream);
          if (known?.deleted) {
            refused.push({ append, error: new StreamDeletedError(append.stream) });
            continue;
          }
          let revision = next.get(append.stream) ?? known?.revision ?? -1;
          try {
            checkExpected(append.stream, append.expected, revision);
          } catch (error) {
            refused.push({ append, error });
            continue;
          }
          const streamJson = JSON.stringify(append.stream);
          append.bodies.forEach((body, i) => {
            revision += 1;
            position += 1;
            positions.push(position);
            streams.push(append.stream);
            revisions.push(revision);
            types.push(append.types[i] as string);
            bodies.push(storedValue(streamJson, revision, body));
          });
          next.set(append.stream, revision);
          accepted.push({ append, result: { nextRevision: revision + 1, position } });
        }
        if (accepted.length === 0) return;
        await client.query(
          `WITH ${this.insertRows('$11')}, heads AS (
             INSERT INTO ${this.sql.streams} (stream, revision)
             SELECT * FROM unnest($6::text[], $7::integer[])
             ON CONFLICT (stream) DO UPDATE SET revision = EXCLUDED.revision
           ), moved AS (
             UPDATE ${this.sql.head} SET position = $8
           )
           SELECT pg_notify($9, $10)`,
          [
            positions,
            streams,
            revisions,
            types,
            bodies,
            [...next.keys()],
            [...next.values()],
            position,
            this.channel,
            String(position),
            KEY_STREAM_PREFIX,
          ],
        );
        head = position;
        recorded = bodies.map((body, i) => decodeEvent(positions[i] as number, body));
      });
    } catch (error) {
      for (const append of appends) append.reject(error);
      return;
    }
    for (const { append, error } of refused) append.reject(error);
    if (accepted.length === 0) return;
    await this.delivery.advanceTo(head, recorded).catch(() => undefined);
    for (const { append, result } of accepted) append.resolve(result);
  }

  /** See `EventStore.importEvents`: one transaction, positions after the head, revisions checked. */
  protected async runImport(task: PendingImport): Promise<void> {
    let recorded: RecordedEvent[] = [];
    let head = 0;
    try {
      await this.inHeadTransaction(async (client, locked) => {
        const plan = await planImport(task.events, (stream) => this.streamHead(client, stream));
        const values = task.events.map(importedValue);
        const positions = task.events.map((_, i) => locked + 1 + i);
        const heads = [...plan];
        await client.query(
          `WITH ${this.insertRows('$12')}, heads AS (
             INSERT INTO ${this.sql.streams} (stream, revision, deleted_at)
             SELECT * FROM unnest($6::text[], $7::integer[], $8::timestamptz[])
             ON CONFLICT (stream) DO UPDATE SET revision = EXCLUDED.revision, deleted_at = EXCLUDED.deleted_at
           ), moved AS (
             UPDATE ${this.sql.head} SET position = $9
           )
           SELECT pg_notify($10, $11)`,
          [
            positions,
            task.events.map((e) => e.stream),
            task.events.map((e) => e.revision),
            task.events.map((e) => e.type),
            values,
            heads.map(([stream]) => stream),
            heads.map(([, h]) => h.revision),
            heads.map(([, h]) => (h.deleted ? (h.deletedAt ?? new Date().toISOString()) : null)),
            locked + task.events.length,
            this.channel,
            String(locked + task.events.length),
            KEY_STREAM_PREFIX,
          ],
        );
        head = locked + task.events.length;
        recorded = values.map((value, i) => decodeEvent(positions[i] as number, value));
      });
    } catch (error) {
      task.reject(error);
      return;
    }
    await this.delivery.advanceTo(head, recorded).catch(() => undefined);
    task.resolve();
  }

  /**
   * Deletes the stream's events, leaves a tombstone, and records `StreamDeleted` in `$streams` in the
   * same transaction, as the LevelDB adapter does. PostgreSQL keeps deleted rows' bytes in their pages
   * (until VACUUM, and even after it in a page's free space): a deleted key stream's table is therefore
   * rewritten (`rewriteKeys`) before the delete resolves, which leaves none of its bytes in it.
   */
  protected async runDelete(task: PendingDelete): Promise<void> {
    let event: RecordedEvent | undefined;
    try {
      await this.inHeadTransaction(async (client, locked) => {
        const head = await this.streamHead(client, task.stream);
        if (head.deleted) throw new StreamDeletedError(task.stream);
        const system = await this.streamHead(client, SYSTEM_STREAM);
        const at = new Date().toISOString();
        const position = locked + 1;
        const revision = system.revision + 1;
        const data: StreamDeletedData = { stream: task.stream, lastRevision: head.revision };
        const value = storedValue(
          JSON.stringify(SYSTEM_STREAM),
          revision,
          serializeEventBody({ type: STREAM_DELETED, data }, at),
        );
        await client.query(
          `WITH gone AS (
             DELETE FROM ${this.tableOf(task.stream)} WHERE stream = $1
           ), tombstone AS (
             INSERT INTO ${this.sql.streams} (stream, revision, deleted_at) VALUES ($1, $2, $3)
             ON CONFLICT (stream) DO UPDATE SET deleted_at = EXCLUDED.deleted_at
           ), written AS (
             INSERT INTO ${this.sql.events} (position, stream, revision, type, body) VALUES ($4, $5, $6, $7, $8)
           ), system AS (
             INSERT INTO ${this.sql.streams} (stream, revision) VALUES ($5, $6)
             ON CONFLICT (stream) DO UPDATE SET revision = EXCLUDED.revision
           ), moved AS (
             UPDATE ${this.sql.head} SET position = $4
           )
           SELECT pg_notify($9, $10)`,
          [
            task.stream,
            head.revision,
            at,
            position,
            SYSTEM_STREAM,
            revision,
            STREAM_DELETED,
            value,
            this.channel,
            String(position),
          ],
        );
        event = decodeEvent(position, value);
      });
    } catch (error) {
      task.reject(error);
      return;
    }
    const done = event as RecordedEvent;
    await this.delivery.advanceTo(done.position, [done]).catch(() => undefined);
    if (isKeyStream(task.stream)) {
      try {
        await this.rewriteKeys();
      } catch (error) {
        task.reject(error);
        return;
      }
    }
    task.resolve();
  }

  /**
   * The first parts of a WITH: inserts the rows given as arrays in $1-$5 (position, stream, revision,
   * type, body), those of key streams into their own table; `prefix` names the parameter holding
   * KEY_STREAM_PREFIX.
   */
  private insertRows(prefix: string): string {
    return `rows AS (
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::text[])
               AS r(position, stream, revision, type, body)
           ), written AS (
             INSERT INTO ${this.sql.events} (position, stream, revision, type, body)
             SELECT * FROM rows WHERE NOT starts_with(rows.stream, ${prefix})
           ), keyed AS (
             INSERT INTO ${this.sql.keys} (position, stream, revision, type, body)
             SELECT * FROM rows WHERE starts_with(rows.stream, ${prefix})
           )`;
  }

  /** The table a stream's events live in. */
  private tableOf(stream: string): string {
    return isKeyStream(stream) ? this.sql.keys : this.sql.events;
  }

  /**
   * Rewrites the key streams' table into new files holding only its live rows (VACUUM FULL; the old
   * files are truncated at commit): no byte of a deleted key stays in the table. The table is small
   * (one row per key), so this is quick; it holds the table's lock meanwhile.
   */
  private async rewriteKeys(): Promise<void> {
    await this.pool.query(`VACUUM FULL ${this.sql.keys}`);
  }
}

const isKeyStream = (stream: string) => stream.startsWith(KEY_STREAM_PREFIX);

/**
 * An error of the connection itself: no SQLSTATE (pg's "Connection terminated", a Node socket error such
 * as ECONNRESET) or a connection class one (08xxx, 57Pxx: the server shut down or ended the session).
 */
function isConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== 'string' || /^(08|57P)/.test(code) || /^E[A-Z]+$/.test(code);
}

/** The schema a URL names (`?schema=`, default `chronicle`), and the URL without it and without a password. */
export function parsePostgresUrl(url: string): {
  connectionString: string;
  schema: string;
  location: string;
} {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? 'chronicle';
  if (!/^[a-z_][a-z0-9_]{0,50}$/.test(schema))
    throw new UnsupportedStoreError(
      `schema ${JSON.stringify(schema)} in the store URL: lower-case letters, digits and _ only, starting with a letter or _`,
    );
  parsed.searchParams.delete('schema');
  const connectionString = parsed.toString();
  const shown = new URL(parsed.toString());
  if (shown.password !== '') shown.password = '***';
  shown.searchParams.set('schema', schema);
  return { connectionString, schema, location: shown.toString() };
}
