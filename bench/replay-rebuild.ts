/**
 * The rebuild half of `npm run bench -- replay`: `chronicle rebuild editor-models` over 1,000,000
 * editor events (sessions each editing a document of 100,000 entities), events/s and peak RSS, against
 * a raw read of the same events (classic-level iterator + JSON.parse) in the same run; targets: events/s
 * >= 0.5 of the raw read's, peak RSS < 400 MB. Each pass runs in a child process of its own (its peak
 * RSS is its own); the raw read goes first once unmeasured, so both measured passes find the file cache
 * equally warm; then both run in turn for BENCH_REPLAY_ROUNDS rounds (default 3), and the median of the
 * rounds decides, their spread printed (the machine is shared).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { LevelEventStore } from '../src/store/level-store.js';
import { writeEditorLog } from './editor-log.js';
import { type BenchReport, interleaved, ratioOf, spreadCell } from './report.js';

const EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
const SESSIONS = Number(process.env.BENCH_REPLAY_SESSIONS ?? 4);
const ENTITIES = Number(process.env.BENCH_REPLAY_ENTITIES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_REPLAY_ROUNDS ?? 3);

interface Pass {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  sessions: number;
  entities: number;
  peakRssMb: number;
}

function pass(mode: 'rebuild' | 'raw', dir: string): Pass {
  const child = fileURLToPath(new URL('./replay-rebuild-child.js', import.meta.url));
  const out = execFileSync(process.execPath, [child, mode, dir], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out) as Pass;
}

export async function benchReplayRebuild(): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-bench-replay-'));
  try {
    // Not synced: the log is the benchmark's input, and its durability is not what is measured.
    const store = await LevelEventStore.open(new Level<string, string>(dir), `level:${dir}`, { sync: false });
    const t0 = performance.now();
    await writeEditorLog(store, { total: EVENTS, sessions: SESSIONS, entities: ENTITIES });
    const fillSeconds = (performance.now() - t0) / 1000;
    const head = await store.headPosition();
    await store.close();

    pass('raw', dir);
    // The machine is shared: the two passes in turn, several rounds, the medians compared.
    const runs = await interleaved(
      ROUNDS,
      async () => pass('rebuild', dir),
      async () => pass('raw', dir),
    );
    const rebuilds = runs.map((r) => r.ours);
    const raws = runs.map((r) => r.limit);
    const perRound = runs.map((r) => r.ours.eventsPerSecond / r.limit.eventsPerSecond);
    const peaks = rebuilds.map((r) => r.peakRssMb);
    const cells = (passes: Pass[]) => ({
      events: passes[0]?.events ?? 0,
      s: spreadCell(
        passes.map((p) => p.seconds),
        2,
      ),
      'events/s': spreadCell(passes.map((p) => Math.round(p.eventsPerSecond))),
      'peak RSS MB': spreadCell(passes.map((p) => Math.round(p.peakRssMb))),
    });
    return {
      name:
        `replay (rebuild): editor-models over ${head} editor events, ${SESSIONS} sessions x ${ENTITIES} ` +
        `entities; ${ROUNDS} rounds, rebuild and raw read in turn, cells median [lowest–highest]`,
      rows: [
        { case: 'raw read (iterator + JSON.parse)', ...cells(raws) },
        { case: 'rebuild editor-models', ...cells(rebuilds), ratio: spreadCell(perRound, 2) },
      ],
      ratios: {
        'rebuild / raw read': ratioOf(perRound, 0.5),
        'rebuild peak RSS (MB)': ratioOf(peaks, 400, { max: true }),
      },
      extra: {
        fillSeconds,
        fillEventsPerSecond: Math.round(head / fillSeconds),
        rounds: runs.map((r) => ({
          rawEventsPerSecond: Math.round(r.limit.eventsPerSecond),
          rebuildEventsPerSecond: Math.round(r.ours.eventsPerSecond),
          rebuildPeakRssMb: Math.round(r.ours.peakRssMb),
          rawPeakRssMb: Math.round(r.limit.peakRssMb),
        })),
        rebuiltSessions: rebuilds[0]?.sessions,
        rebuiltEntities: rebuilds[0]?.entities,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
