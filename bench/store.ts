import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AbstractBatchOptions } from 'abstract-level';
import { Level } from 'level';
import { eventKey } from '../src/store/keys.js';
import { openStore } from '../src/store/open.js';
import type { EventStore } from '../src/store/types.js';
import { serializeEventBody, storedValue } from '../src/store/validate.js';
import {
  type BenchReport,
  interleaved,
  median,
  percentile,
  printReport,
  ROUNDS,
  ratioOf,
  spreadCell,
} from './report.js';

const CONCURRENCY = [1, 16, 64, 256];
const SECONDS_PER_LEVEL = Number(process.env.BENCH_SECONDS ?? 2);
const REBUILD_EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 1_000_000);
const REBUILD_STREAMS = 1_000;

/** A typical small event: an editor entity change or a deploy output line. */
const sampleEvent = (i: number) => ({
  type: 'LineAppended',
  data: { line: `#${i} Container chronicle-web-1  Started ${'x'.repeat(96)}`, stream: 'stdout' },
  metadata: { correlationId: `job-${i % 97}` },
});

// classic-level's sync option is not in abstract-level's types.
const SYNCED = { sync: true } as AbstractBatchOptions<string, string>;

const tempDir = (label: string) => mkdtempSync(join(tmpdir(), `chronicle-bench-${label}-`));

/** (a) `concurrency` appenders, each awaiting one single-event durable append after another. */
async function durableAppends(concurrency: number) {
  const dir = tempDir('append');
  const store = await openStore(`level:${dir}`);
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS_PER_LEVEL * 1000;
  const started = performance.now();
  let count = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, appender) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await store.append(`bench-${appender}`, [sampleEvent(count)]);
        latencies.push(performance.now() - t0);
        count += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  return { eventsPerSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * (b) The physical limit for the same work: raw classic-level synced batches of `batchSize` events,
 * written back to back, each event the same key and value bytes the store writes for it.
 */
async function rawSyncedBatches(batchSize: number) {
  const dir = tempDir('raw');
  const db = new Level<string, string>(dir);
  await db.open();
  const at = new Date().toISOString();
  const deadline = performance.now() + SECONDS_PER_LEVEL * 1000;
  const started = performance.now();
  let position = 0;
  while (performance.now() < deadline) {
    // The chained form: the fastest way to hand classic-level a synced batch (the array form copies
    // the sync option into every operation), as the store itself writes.
    const batch = db.batch();
    for (let i = 0; i < batchSize; i++) {
      position += 1;
      const body = serializeEventBody(sampleEvent(position), at);
      batch.put(eventKey(position), storedValue(`"bench-${i}"`, position, body));
    }
    await batch.write(SYNCED);
  }
  const seconds = (performance.now() - started) / 1000;
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return { eventsPerSecond: position / seconds };
}

/** Fills a store with `total` events over REBUILD_STREAMS streams, in large appends. */
async function fill(store: EventStore, total: number) {
  const perAppend = 1_000;
  for (let done = 0; done < total; ) {
    const batch = await Promise.all(
      Array.from({ length: 4 }, (_, k) => {
        const n = Math.min(perAppend, total - done - k * perAppend);
        if (n <= 0) return Promise.resolve(0);
        const base = done + k * perAppend;
        const events = Array.from({ length: n }, (_, i) => sampleEvent(base + i));
        return store.append(`stream-${(base / perAppend) % REBUILD_STREAMS}`, events).then(() => n);
      }),
    );
    done += batch.reduce((a, b) => a + b, 0);
  }
}

/** (c) the store's readAll over the database in `dir`: events/s. */
async function readStore(dir: string) {
  const store = await openStore(`level:${dir}`);
  const t0 = performance.now();
  let n = 0;
  for await (const _ of store.readAll()) n += 1;
  const rate = n / ((performance.now() - t0) / 1000);
  await store.close();
  return { events: n, rate };
}

/** (c) its limit: a raw iterator over the same event records that parses each value. */
async function readRaw(dir: string) {
  const db = new Level<string, string>(dir);
  await db.open();
  const iterator = db.iterator({ gte: 'e:', lt: 'e;' });
  const t0 = performance.now();
  let m = 0;
  for (;;) {
    const entries = await iterator.nextv(1_000);
    if (entries.length === 0) break;
    for (const [, value] of entries) {
      JSON.parse(value);
      m += 1;
    }
  }
  const rate = m / ((performance.now() - t0) / 1000);
  await iterator.close();
  await db.close();
  return { events: m, rate };
}

/** (d) `chronicle rebuild stream-catalog` in its own process, so its peak RSS is its own. */
function rebuildInChild(dir: string) {
  const child = fileURLToPath(new URL('./rebuild-child.js', import.meta.url));
  const out = execFileSync(process.execPath, [child, dir], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out) as { events: number; seconds: number; eventsPerSecond: number; peakRssMb: number };
}

const rounded = (values: readonly number[]) => spreadCell(values.map(Math.round));

export async function benchStore(): Promise<void> {
  const rows: BenchReport['rows'] = [];
  const ratios: BenchReport['ratios'] = {};
  for (const concurrency of CONCURRENCY) {
    const pairs = await interleaved(
      ROUNDS,
      () => durableAppends(concurrency),
      () => rawSyncedBatches(concurrency),
    );
    const perRound = pairs.map((p) => p.ours.eventsPerSecond / p.limit.eventsPerSecond);
    rows.push({
      case: `durable appends x${concurrency}`,
      'events/s': rounded(pairs.map((p) => p.ours.eventsPerSecond)),
      'p50 ms': median(pairs.map((p) => p.ours.p50)),
      'p99 ms': median(pairs.map((p) => p.ours.p99)),
      'limit events/s': rounded(pairs.map((p) => p.limit.eventsPerSecond)),
      ratio: spreadCell(perRound, 2),
    });
    if (concurrency === 64) ratios['appends x64 / raw synced batches'] = ratioOf(perRound, 0.5);
  }

  const dir = tempDir('rebuild');
  const store = await openStore(`level:${dir}`);
  const fillStart = performance.now();
  await fill(store, REBUILD_EVENTS);
  const fillRate = REBUILD_EVENTS / ((performance.now() - fillStart) / 1000);
  await store.close();

  // One unmeasured pass of each first, so that both find the file cache equally warm.
  const reads = await interleaved(
    ROUNDS,
    () => readStore(dir),
    () => readRaw(dir),
    1,
  );
  const readRatios = reads.map((p) => p.ours.rate / p.limit.rate);
  rows.push({
    case: `readAll ${reads[0]?.ours.events} events`,
    'events/s': rounded(reads.map((p) => p.ours.rate)),
    'limit events/s': rounded(reads.map((p) => p.limit.rate)),
    ratio: spreadCell(readRatios, 2),
  });
  ratios['readAll / raw iterator'] = ratioOf(readRatios, 0.6);

  const rebuilds = await interleaved(
    ROUNDS,
    async () => rebuildInChild(dir),
    () => readRaw(dir),
  );
  const rebuildRatios = rebuilds.map((p) => p.ours.eventsPerSecond / p.limit.rate);
  const peaks = rebuilds.map((p) => p.ours.peakRssMb);
  rows.push({
    case: `rebuild stream-catalog ${rebuilds[0]?.ours.events} events`,
    'events/s': rounded(rebuilds.map((p) => p.ours.eventsPerSecond)),
    'limit events/s': rounded(rebuilds.map((p) => p.limit.rate)),
    'peak RSS MB': rounded(peaks),
    ratio: spreadCell(rebuildRatios, 2),
  });
  ratios['rebuild / raw iterator'] = ratioOf(rebuildRatios, 0.6);
  ratios['rebuild peak RSS (MB)'] = ratioOf(peaks, 300, { max: true });
  rmSync(dir, { recursive: true, force: true });

  printReport({
    name:
      'store: LevelDB event store (durable) against raw classic-level on the same disk; ' +
      `each pair run ${ROUNDS} times interleaved, cells median [lowest–highest]; limit = raw classic-level`,
    rows,
    ratios,
    extra: {
      rounds: ROUNDS,
      secondsPerLevel: SECONDS_PER_LEVEL,
      fillEventsPerSecond: Math.round(fillRate),
      rebuildEvents: REBUILD_EVENTS,
    },
  });
}
