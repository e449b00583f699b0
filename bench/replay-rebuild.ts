/**
 * The rebuild half of `npm run bench -- replay`: `chronicle rebuild editor-models` over 1,000,000
 * editor events (sessions each editing a document of 100,000 entities), events/s and peak RSS, against
 * a raw read of the same events (classic-level iterator + JSON.parse) in the same run; target >= 0.5.
 * Each pass runs in a child process of its own (its peak RSS is its own); the raw read goes first
 * once unmeasured, so both measured passes find the file cache equally warm; then both run twice,
 * interleaved, and the faster run of each is compared (the machine is shared).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { LevelEventStore } from '../src/store/level-store.js';
import { writeEditorLog } from './editor-log.js';
import type { BenchReport } from './report.js';

const EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
const SESSIONS = Number(process.env.BENCH_REPLAY_SESSIONS ?? 4);
const ENTITIES = Number(process.env.BENCH_REPLAY_ENTITIES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_REPLAY_ROUNDS ?? 2);

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
    // The machine is shared: each pass twice, interleaved, and the faster of the two kept.
    const runs: Array<{ raw: Pass; rebuild: Pass }> = [];
    for (let i = 0; i < ROUNDS; i++) runs.push({ raw: pass('raw', dir), rebuild: pass('rebuild', dir) });
    const best = (mode: 'raw' | 'rebuild') =>
      runs.map((r) => r[mode]).reduce((a, b) => (b.eventsPerSecond > a.eventsPerSecond ? b : a));
    const raw = best('raw');
    const rebuild = best('rebuild');
    const ratio = rebuild.eventsPerSecond / raw.eventsPerSecond;
    return {
      name: `replay (rebuild): editor-models over ${head} editor events, ${SESSIONS} sessions x ${ENTITIES} entities`,
      rows: [
        {
          case: 'raw read (iterator + JSON.parse)',
          events: raw.events,
          s: raw.seconds,
          'events/s': Math.round(raw.eventsPerSecond),
          'peak RSS MB': Math.round(raw.peakRssMb),
        },
        {
          case: 'rebuild editor-models',
          events: rebuild.events,
          s: rebuild.seconds,
          'events/s': Math.round(rebuild.eventsPerSecond),
          'peak RSS MB': Math.round(rebuild.peakRssMb),
          ratio,
        },
      ],
      ratios: { 'rebuild / raw read': { value: ratio, target: 0.5, ok: ratio >= 0.5 } },
      extra: {
        fillSeconds,
        fillEventsPerSecond: Math.round(head / fillSeconds),
        rounds: runs.map((r) => ({
          rawEventsPerSecond: Math.round(r.raw.eventsPerSecond),
          rebuildEventsPerSecond: Math.round(r.rebuild.eventsPerSecond),
        })),
        rebuiltSessions: rebuild.sessions,
        rebuiltEntities: rebuild.entities,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
