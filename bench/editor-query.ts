/**
 * Window queries on 100,000 random entities through the spatial index, against a full scan that computes
 * every entity's bounds and tests it (what a query without the index would do). Target: the indexed
 * query's p50 under 1/100 of the scan's. Also the nearest-first walk and incremental index updates.
 * Exported for `npm run bench -- editor` to call (bench/run.ts wires it).
 */
import { bounds, documentContext } from '../src/editor/geometry/index.js';
import type { DxfDocumentModel, Entity, EntityCommon } from '../src/editor/model.js';
import { runQuery, SpatialIndex } from '../src/editor/query/index.js';
import { type BenchReport, percentile, printReport } from './report.js';

const ENTITIES = Number(process.env.BENCH_QUERY_ENTITIES ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500);
const SCANS = Number(process.env.BENCH_SCANS ?? 20);
const EXTENT = 10_000;
const WINDOW = 100;

/** A small deterministic generator, so runs compare. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomModel(count: number, seed = 1): DxfDocumentModel {
  const rnd = random(seed);
  const model: DxfDocumentModel = {
    version: 'AC1027',
    header: {},
    handseed: count + 0x100,
    classes: [],
    layers: {},
    tables: {},
    table_handles: {},
    appids: [],
    blocks: {},
    layouts: {},
    groups: {},
    entities: {},
    order: [],
    objects: [],
  };
  for (let i = 0; i < count; i++) {
    const handle = (i + 0x100).toString(16).toUpperCase();
    const common: EntityCommon = {
      handle,
      space: '*Model_Space',
      layer: `L${i % 10}`,
      color: 256,
      linetype: 'BYLAYER',
      lineweight: -1,
    };
    const x = rnd() * EXTENT;
    const y = rnd() * EXTENT;
    const size = 1 + rnd() * 20;
    let entity: Entity;
    switch (i % 5) {
      case 0:
        entity = {
          ...common,
          type: 'Line',
          start: [x, y, 0],
          end: [x + size * (rnd() - 0.5), y + size * (rnd() - 0.5), 0],
        };
        break;
      case 1:
        entity = { ...common, type: 'Circle', center: [x, y, 0], radius: size / 2 };
        break;
      case 2:
        entity = {
          ...common,
          type: 'Arc',
          center: [x, y, 0],
          radius: size / 2,
          start_angle: rnd() * 360,
          end_angle: rnd() * 360,
        };
        break;
      case 3:
        entity = {
          ...common,
          type: 'Text',
          value: `T${i}`,
          position: [x, y, 0],
          height: size / 5,
          rotation: rnd() * 360,
          style: 'Standard',
        };
        break;
      default:
        entity = {
          ...common,
          type: 'LwPolyline',
          vertices: [
            { x, y, bulge: 0 },
            { x: x + size, y, bulge: 0.3 },
            { x: x + size, y: y + size, bulge: 0 },
          ],
          closed: true,
          elevation: 0,
        };
    }
    model.entities[handle] = entity;
    model.order.push(handle);
  }
  return model;
}

function time(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

export async function benchEditorQuery(): Promise<void> {
  const model = randomModel(ENTITIES);
  const ctx = documentContext(model);
  let index = new SpatialIndex();
  const buildMs = time(() => {
    index = SpatialIndex.ofModel(model, ctx);
  });
  const rnd = random(2);
  const windows = Array.from({ length: QUERIES }, () => {
    const x = rnd() * (EXTENT - WINDOW);
    const y = rnd() * (EXTENT - WINDOW);
    return [x, y, x + WINDOW, y + WINDOW] as const;
  });

  // The same answer without the index: every entity's bounds, tested against the window.
  const scan = (w: readonly [number, number, number, number]) => {
    const out: string[] = [];
    for (const h of model.order) {
      const e = model.entities[h];
      const b = e && bounds(e, ctx);
      if (b && b.min[0] <= w[2] && b.max[0] >= w[0] && b.min[1] <= w[3] && b.max[1] >= w[1]) out.push(h);
    }
    return out;
  };

  for (const w of windows.slice(0, 20)) runQuery(model, index, { bounds: [...w] }, ctx);
  let found = 0;
  const indexed = windows.map((w) =>
    time(() => {
      found += runQuery(model, index, { bounds: [...w] }, ctx).count;
    }),
  );
  const scans = windows.slice(0, SCANS).map((w) => time(() => scan(w)));
  // The scan and the index agree on what a window holds.
  for (const w of windows.slice(0, 5)) {
    const viaIndex = runQuery(
      model,
      index,
      { bounds: [...w], limit: 10_000, detail: 'summary' },
      ctx,
    ).entities.map((e) => e.handle);
    if (viaIndex.sort().join() !== scan(w).sort().join()) throw new Error('index and scan disagree');
  }
  const nearest = windows
    .slice(0, 200)
    .map(([x, y]) => time(() => runQuery(model, index, { near: [x, y], limit: 10 }, ctx)));
  const updates = time(() => {
    for (let i = 0; i < 10_000; i++) {
      const h = model.order[i] as string;
      const e = model.entities[h] as Entity;
      index.setEntity(e.type === 'Line' ? { ...e, start: [e.start[0] + 1, e.start[1], 0] } : e, ctx);
    }
  });

  for (const list of [indexed, scans, nearest]) list.sort((a, b) => a - b);
  const p50 = percentile(indexed, 50);
  const scanP50 = percentile(scans, 50);
  const report: BenchReport = {
    name: `editor query: window ${WINDOW}x${WINDOW} on ${ENTITIES} entities in ${EXTENT}x${EXTENT}`,
    rows: [
      { measure: 'index build (bulk, bounds of every entity)', ms: buildMs },
      { measure: 'window query via index, p50', ms: p50 },
      { measure: 'window query via index, p99', ms: percentile(indexed, 99) },
      { measure: 'full scan (bounds + test), p50', ms: scanP50 },
      { measure: 'full scan (bounds + test), p99', ms: percentile(scans, 99) },
      { measure: 'near [x, y] limit 10, p50', ms: percentile(nearest, 50) },
      { measure: 'near [x, y] limit 10, p99', ms: percentile(nearest, 99) },
      { measure: 'index updates, per 1,000', ms: updates / 10 },
    ],
    ratios: {
      window_p50_over_scan_p50: { value: p50 / scanP50, target: 0.01, ok: p50 / scanP50 < 0.01, max: true },
    },
    extra: { entities: ENTITIES, queries: QUERIES, mean_matches: found / QUERIES },
  };
  printReport(report);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchEditorQuery();
