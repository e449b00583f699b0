/**
 * `npm run bench -- capture`: the `capture` op on a 100,000-entity drawing (the mixed entities of the
 * editor benchmark: lines, circles, arcs, texts, polylines over 10,000 x 10,000 units), 2048 pixels wide,
 * through the real dispatcher (EditorSession over LevelDB in a temporary directory):
 *
 *  1. cold: the first capture of a revision whose styles changed ($LTSCALE set: no scene and no piece
 *     kept) — the target, under 1.5 s — median and spread of a few. Not interleaved with the peer (4):
 *     a capture right after a plot pays for collecting the plot's garbage (interleaved, the captures'
 *     median CPU time was 1.39 s against 0.97 s in a run after at load 5), the plot's cost, not theirs;
 *  2. after a change: one entity added (the others' pieces kept);
 *  3. again: the same revision (its scene kept);
 *  4. the peer: the same drawing written as SVG alone by `plot` (the plot's own SVG writer, from the same
 *     scene, fitted to the sheet so every entity is on it; no rasteriser), so the table shows the
 *     rasteriser's share;
 *
 * with where the time of a capture goes (scene, SVG, the rasteriser's parse, render, PNG encoding), the
 * RSS before and the peak RSS sampled while capturing, and the load average (the machine is shared).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureDocument } from '../src/editor/capture/index.js';
import { editorOps } from '../src/editor/ops/index.js';
import { EditorSession } from '../src/editor/session.js';
import { openStore } from '../src/store/open.js';
import type { Answer } from '../streams/editor.js';
import { mixedEntities, random } from './editor.js';
import { type BenchReport, percentile, printReport, ratioOf, spreadCell } from './report.js';

const ENTITIES = Number(process.env.BENCH_CAPTURE_ENTITIES ?? 100_000);
const WIDTH = Number(process.env.BENCH_CAPTURE_WIDTH ?? 2048);
const RUNS = Number(process.env.BENCH_CAPTURE_RUNS ?? 5);
const BATCH = 1_000;
const TARGET_MS = 1_500;
const MB = 1024 * 1024;

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

let serial = 0;
async function ok(session: EditorSession, request: Record<string, unknown>): Promise<Answer> {
  const answer = await session.dispatch({ protocol: 1, request_id: `bench-${++serial}`, ...request });
  if (!answer.ok) throw new Error(`${String(request.op)} failed: ${answer.code}: ${answer.error}`);
  return answer;
}

/**
 * The highest RSS seen while `work` runs, sampled every 5 ms (the capture leaves the loop free), and the
 * process's CPU time (every thread: the rasteriser's worker too) — on a shared machine, what the wall
 * time would be with the cores to itself.
 */
async function sampled<T>(
  work: () => Promise<T>,
): Promise<{ value: T; ms: number; cpuMs: number; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const t0 = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    const used = process.cpuUsage(cpu);
    return { value, ms: performance.now() - t0, cpuMs: (used.user + used.system) / 1000, peakMb: peak / MB };
  } finally {
    clearInterval(timer);
  }
}

export async function benchCapture(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-capture-'));
  const store = await openStore(`level:${dir}/events`);
  const session = await EditorSession.start(store, editorOps, { version: 'bench' });
  const rows: BenchReport['rows'] = [];
  const ratios: BenchReport['ratios'] = {};
  try {
    const documentId = (await ok(session, { op: 'new' })).document_id as number;
    const rnd = random(1);
    for (let b = 0; b < ENTITIES / BATCH; b++)
      await ok(session, {
        op: 'entities_create',
        document_id: documentId,
        entities: mixedEntities(rnd, BATCH, b * BATCH),
      });
    const doc = session.state.documents[String(documentId)];
    if (!doc) throw new Error('the benchmark document is not open');
    const request = {
      space: '*Model_Space',
      width: WIDTH,
      window: undefined,
      colors: { background: '#1e2227', foreground: '#ffffff' },
      selection: [],
    };
    const capture = () => sampled(() => captureDocument(doc, request));
    type Shot = Awaited<ReturnType<typeof capture>>;
    const row = (name: string, shots: Shot[]) => {
      const pick = (f: (s: Shot) => number) => Math.round(median(shots.map(f)));
      const first = shots[0] as Shot;
      rows.push({
        case: name,
        'ms median [spread]': spreadCell(shots.map((s) => s.ms)),
        'CPU ms': spreadCell(shots.map((s) => s.cpuMs)),
        'scene ms': pick((s) => s.value.ms.scene),
        'svg ms': pick((s) => s.value.ms.svg),
        'parse ms': pick((s) => s.value.ms.parse),
        'render ms': pick((s) => s.value.ms.render),
        'encode ms': pick((s) => s.value.ms.encode),
        'PNG KB': Math.round(first.value.png.byteLength / 1024),
        'peak RSS MB': Math.round(Math.max(...shots.map((s) => s.peakMb))),
      });
    };
    const rssBefore = process.memoryUsage().rss / MB;

    // (1) Cold: $LTSCALE set anew before each, so neither the scene nor any entity's piece is kept.
    const cold: Shot[] = [];
    for (let i = 0; i < RUNS; i++) {
      await ok(session, { op: 'sysvar', document_id: documentId, set: { ltscale: 1 + (i + 1) * 1e-6 } });
      const shot = await capture();
      if (shot.value.cached || shot.value.reused > 0) throw new Error('a cold capture reused a kept scene');
      cold.push(shot);
    }
    const shot = cold[0] as Shot;
    row(`capture ${ENTITIES} entities at ${WIDTH} px: cold (x${RUNS})`, cold);

    // (2) After a change: one entity more, the others' pieces reused.
    const changed: Shot[] = [];
    for (let i = 0; i < RUNS; i++) {
      await ok(session, {
        op: 'entities_create',
        document_id: documentId,
        entities: [{ type: 'Circle', center: [5_000, 5_000], radius: 100 + i }],
      });
      changed.push(await capture());
    }
    row('capture after one entity added', changed);

    // (3) The same revision again: its scene kept.
    const again: Shot[] = [];
    for (let i = 0; i < RUNS; i++) again.push(await capture());
    row('capture of the same revision again', again);

    // (4) The peer: the plot's SVG of the same drawing (its own writer, an element per entity), no raster.
    const plotted: Array<{ ms: number; cpuMs: number; peakMb: number }> = [];
    let svgBytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const path = join(dir, `plot-${i}.svg`);
      plotted.push(
        await sampled(() => ok(session, { op: 'plot', document_id: documentId, path, fit: true })),
      );
      svgBytes = (await stat(path)).size;
    }
    rows.push({
      case: `peer: plot of the same drawing to SVG (no rasteriser; x${RUNS})`,
      'ms median [spread]': spreadCell(plotted.map((p) => p.ms)),
      'CPU ms': spreadCell(plotted.map((p) => p.cpuMs)),
      'PNG KB': `SVG ${Math.round(svgBytes / 1024)}`,
      'peak RSS MB': Math.round(Math.max(...plotted.map((p) => p.peakMb))),
    });

    const coldMs = median(cold.map((s) => s.ms));
    const rasterMs = median(cold.map((s) => s.value.ms.parse + s.value.ms.render + s.value.ms.encode));
    ratios[`cold capture of ${ENTITIES} entities at ${WIDTH} px (ms)`] = ratioOf(
      cold.map((s) => s.ms),
      TARGET_MS,
      { max: true },
    );
    ratios['cold capture, CPU time of all threads (ms)'] = ratioOf(
      cold.map((s) => s.cpuMs),
      TARGET_MS,
      { max: true },
    );
    const plotMs = median(plotted.map((p) => p.ms));
    ratios['cold capture / plot to SVG of the same drawing (medians)'] = {
      value: coldMs / plotMs,
      target: 1,
      ok: coldMs / plotMs < 1,
      max: true,
    };
    printReport({
      name: `capture: ${ENTITIES} mixed entities, ${WIDTH} px wide`,
      rows,
      ratios,
      extra: {
        entities: ENTITIES,
        width: WIDTH,
        height: shot.value.view.height,
        drawn: shot.value.entities,
        dots: shot.value.dots,
        rasteriserShareOfCold: rasterMs / coldMs,
        rssBeforeMb: Math.round(rssBefore),
        loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
      },
    });
  } finally {
    await session.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
