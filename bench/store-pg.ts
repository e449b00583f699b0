/**
 * `npm run bench -- store-pg`: chronicle's PostgreSQL adapter against Emmett's PostgreSQL event
 * store (`@event-driven-io/emmett-postgresql`, the peer people would pick), same server, same workload,
 * same run, each in a database of its own created for the run and dropped after it.
 *
 *  - appends: 64 concurrent appenders, each making `BENCH_PG_APPENDS` (default 150) appends of one
 *    ~200-byte event to its own stream, each expecting the revision it last wrote (optimistic concurrency
 *    on, as an aggregate's command handler would); appends/s from first to last acknowledgement;
 *  - catch-up reads: `BENCH_PG_EVENTS` (default 100,000) events in 1,000 streams, then the whole log read
 *    from the start, in order, in batches of 1,000 (Emmett: `readMessagesBatch`, what its consumers pull
 *    with; chronicle: `readAll`); events/s.
 * Each side runs once unmeasured (the server's caches), then BENCH_ROUNDS times, the two in turn; the
 * median of the rounds' ratios decides, the spread printed.
 * Target: >= 1.0x Emmett on both. The server is the PostgreSQL at `BENCH_PG_URL` (default the local one).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { type BenchReport, interleaved, printReport, ROUNDS, ratioOf, spreadCell } from './report.js';

const SERVER = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const APPENDERS = 64;
const APPENDS = Number(process.env.BENCH_PG_APPENDS ?? 150);
const EVENTS = Number(process.env.BENCH_PG_EVENTS ?? 100_000);
const TARGET = 1.0;

const SIDE_JS = fileURLToPath(new URL('./store-pg-side.js', import.meta.url));

/** One side's measure, in a child process, on a database made for it and dropped after it. */
function measure(side: 'chronicle' | 'emmett', phase: 'appends' | 'reads'): Promise<number> {
  return withDatabase(async (url) => {
    const { stdout } = await promisify(execFile)(process.execPath, [SIDE_JS, side, phase, url], {
      maxBuffer: 1024 * 1024,
    });
    return (JSON.parse(stdout) as { perSecond: number }).perSecond;
  });
}

/** A database made for this run, dropped at its end. */
async function withDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `chronicle_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(SERVER);
    url.pathname = `/${name}`;
    try {
      return await work(url.toString());
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

export async function benchStorePg(): Promise<void> {
  // A round of each first, unmeasured: the server's caches warm for both sides alike.
  const appends = await interleaved(
    ROUNDS,
    () => measure('chronicle', 'appends'),
    () => measure('emmett', 'appends'),
    1,
  );
  const reads = await interleaved(
    ROUNDS,
    () => measure('chronicle', 'reads'),
    () => measure('emmett', 'reads'),
    1,
  );
  const cell = (values: number[]) => spreadCell(values.map(Math.round));
  const report: BenchReport = {
    name:
      `store-pg: ${APPENDERS} appenders x ${APPENDS} appends; catch-up read of ${EVENTS} events (PostgreSQL ` +
      `${new URL(SERVER).host}); ${ROUNDS} rounds after a warm-up, the two sides in turn, cells median [lowest–highest]`,
    rows: [
      { case: `appends, ${APPENDERS} concurrent: chronicle`, 'per second': cell(appends.map((p) => p.ours)) },
      { case: `appends, ${APPENDERS} concurrent: emmett`, 'per second': cell(appends.map((p) => p.limit)) },
      { case: 'catch-up read: chronicle', 'per second': cell(reads.map((p) => p.ours)) },
      { case: 'catch-up read: emmett', 'per second': cell(reads.map((p) => p.limit)) },
    ],
    ratios: {
      'appends chronicle/emmett': ratioOf(
        appends.map((p) => p.ours / p.limit),
        TARGET,
      ),
      'catch-up reads chronicle/emmett': ratioOf(
        reads.map((p) => p.ours / p.limit),
        TARGET,
      ),
    },
  };
  printReport(report);
}
