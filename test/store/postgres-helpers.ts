import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The PostgreSQL the adapter's tests use: `CHRONICLE_TEST_POSTGRES_URL`, else the one of this machine
 * kind (127.0.0.1:5432, trust auth, database `test`). Each store gets a schema of its own, dropped at the end.
 */
export const POSTGRES_URL =
  process.env.CHRONICLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Undefined when PostgreSQL answers; else why the tests skip. */
export async function postgresUnavailable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `no PostgreSQL at ${POSTGRES_URL} (${(error as Error).message}); set CHRONICLE_TEST_POSTGRES_URL or start one (.ci/run does)`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs `work` on a connection of its own to the test PostgreSQL. */
export async function withPostgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Store URLs on fresh schemas, and dropping them all. */
export function postgresSchemas(prefix = 't') {
  const made: string[] = [];
  return {
    url(): string {
      const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
      made.push(schema);
      const url = new URL(POSTGRES_URL);
      url.searchParams.set('schema', schema);
      return url.toString();
    },
    async dropAll(): Promise<void> {
      if (made.length === 0) return;
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        for (const schema of made.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Whether any page of any table of `schema` (its indexes and TOAST tables included) holds `needle`,
 * read through pageinspect's get_raw_page: dead rows and free space included, which a SELECT never
 * shows. Undefined (with the reason) when pageinspect cannot be used here (not installed, no superuser).
 */
export async function pagesContaining(
  schema: string,
  needles: readonly string[],
): Promise<{ found: string[] } | { unavailable: string }> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
    } catch (error) {
      return { unavailable: `pageinspect cannot be used (${(error as Error).message})` };
    }
    const { rows } = await client.query<{ name: string; blocks: string }>(
      `WITH own AS (
         SELECT c.oid, c.reltoastrelid FROM pg_class c
         WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'i')
       )
       SELECT oid::regclass::text AS name, pg_relation_size(oid) / current_setting('block_size')::int AS blocks FROM own
       UNION ALL
       SELECT t.oid::regclass::text, pg_relation_size(t.oid) / current_setting('block_size')::int
       FROM own JOIN pg_class t ON t.oid = own.reltoastrelid`,
      [`"${schema}"`],
    );
    const found = new Set<string>();
    const bytes = needles.map((n) => Buffer.from(n));
    for (const { name, blocks } of rows) {
      for (let block = 0; block < Number(blocks); block++) {
        const page = await client.query<{ page: Buffer }>('SELECT get_raw_page($1, $2) AS page', [
          name,
          block,
        ]);
        const raw = page.rows[0]?.page;
        if (!raw) continue;
        bytes.forEach((needle, i) => {
          if (raw.includes(needle)) found.add(needles[i] as string);
        });
      }
    }
    return { found: [...found] };
  } finally {
    await client.end();
  }
}
