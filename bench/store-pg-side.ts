/**
 * One measured side of `npm run bench -- store-pg`, in a process of its own: the peer's pools outlive
 * its close() (seen: 6 of its connections left open after 64 concurrent appenders), and a process that
 * exits takes every connection with it before the run's database is dropped.
 * argv: <chronicle|emmett> <appends|reads> <database url>; prints `{"perSecond": n}`.
 */
import { dumbo, endAllPools } from '@event-driven-io/dumbo';
import { getPostgreSQLEventStore, readMessagesBatch } from '@event-driven-io/emmett-postgresql';
import { openStore } from '../src/store/open.js';

const APPENDERS = 64;
const APPENDS = Number(process.env.BENCH_PG_APPENDS ?? 150);
const EVENTS = Number(process.env.BENCH_PG_EVENTS ?? 100_000);
const READ_BATCH = 1_000;

const payload = (appender: number, i: number) => ({
  appender,
  i,
  sku: `sku-${(appender * 7919 + i) % 10_000}`,
  quantity: (i % 9) + 1,
  note: 'x'.repeat(120),
});

interface Side {
  /** Appends/s of 64 appenders. */
  appends(url: string): Promise<number>;
  /** Events/s of reading the whole log of EVENTS events from the start. */
  reads(url: string): Promise<number>;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

const chronicle: Side = {
  async appends(url) {
    const store = await openStore(`${url}?schema=chronicle`);
    try {
      const seconds = await timed(() =>
        Promise.all(
          Array.from({ length: APPENDERS }, async (_, a) => {
            for (let i = 0; i < APPENDS; i++)
              await store.append(`order-${a}`, [{ type: 'ItemAdded', data: payload(a, i) }], {
                expectedRevision: i === 0 ? 'no_stream' : i - 1,
              });
          }),
        ),
      );
      return (APPENDERS * APPENDS) / seconds;
    } finally {
      await store.close();
    }
  },
  async reads(url) {
    const store = await openStore(`${url}?schema=chronicle`);
    try {
      for (let s = 0; s < EVENTS / 100; s++)
        await store.append(
          `cart-${s}`,
          Array.from({ length: 100 }, (_, i) => ({ type: 'ItemAdded', data: payload(s, i) })),
        );
      let read = 0;
      const seconds = await timed(async () => {
        for await (const _ of store.readAll()) read += 1;
      });
      if (read !== EVENTS) throw new Error(`chronicle read ${read} events, expected ${EVENTS}`);
      return read / seconds;
    } finally {
      await store.close();
    }
  },
};

const emmett: Side = {
  async appends(url) {
    const store = getPostgreSQLEventStore(url);
    try {
      // The schema is created on first use: not part of the measure.
      await store.appendToStream('warm-up', [{ type: 'WarmedUp', data: {} }]);
      const seconds = await timed(() =>
        Promise.all(
          Array.from({ length: APPENDERS }, async (_, a) => {
            for (let i = 0; i < APPENDS; i++)
              await store.appendToStream(`order-${a}`, [{ type: 'ItemAdded', data: payload(a, i) }], {
                expectedStreamVersion: BigInt(i),
              });
          }),
        ),
      );
      return (APPENDERS * APPENDS) / seconds;
    } finally {
      await store.close();
      await endAllPools();
    }
  },
  async reads(url) {
    const store = getPostgreSQLEventStore(url);
    const pool = dumbo({ connectionString: url });
    try {
      for (let s = 0; s < EVENTS / 100; s++)
        await store.appendToStream(
          `cart-${s}`,
          Array.from({ length: 100 }, (_, i) => ({ type: 'ItemAdded', data: payload(s, i) })),
        );
      let read = 0;
      const seconds = await timed(async () => {
        let after = 0n;
        for (;;) {
          const batch = await readMessagesBatch(pool.execute, { after, batchSize: READ_BATCH });
          read += batch.messages.length;
          if (batch.messages.length === 0) break;
          after = batch.currentGlobalPosition;
        }
      });
      if (read !== EVENTS) throw new Error(`emmett read ${read} events, expected ${EVENTS}`);
      return read / seconds;
    } finally {
      await pool.close();
      await store.close();
      await endAllPools();
    }
  },
};

const [side, phase, url] = process.argv.slice(2);
const chosen = side === 'chronicle' ? chronicle : side === 'emmett' ? emmett : undefined;
if (!chosen || (phase !== 'appends' && phase !== 'reads') || !url) {
  process.stderr.write('usage: store-pg-side <chronicle|emmett> <appends|reads> <database url>\n');
  process.exit(2);
}
const perSecond = await chosen[phase](url);
process.stdout.write(`${JSON.stringify({ perSecond })}\n`);
process.exit(0);
