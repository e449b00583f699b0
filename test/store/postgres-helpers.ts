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
