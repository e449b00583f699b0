/**
 * `npm run bench -- editor`: the editor engine through its real dispatcher (EditorSession over a
 * LevelDB event store in a temporary directory, durable appends: every batch is fsynced, as the product
 * runs it).
 *
 *  1. (in a child process per round, BENCH_ROUNDS rounds: medians and spreads; steps 3 and 4 too)
 *     create 100,000 entities as 100 `entities_create` requests of 1,000 mixed entities: entities/s,
 *     RSS after (target < 400 MB) and the process's peak RSS so far; then the peak RSS through the
 *     session's close, held to the same 400 MB (the close writes the read model's verification digest
 *     for `replay --verify`, ~3.5 MB, not the whole state: 59 MB of JSON, which pushed the peak to ~430 MB);
 *  2. `open` a 100,000-entity DXF made by ezdxf at bench time, until the answer, against ezdxf's own
 *     `readfile` of the same file, timed inside Python (interpreter start and `import ezdxf` excluded),
 *     the two in turn for BENCH_ROUNDS rounds after a warm-up; target: the median of the rounds' ratios
 *     at least 3x;
 *  3. window `query` with `bounds` on the 100,000-entity document: p50/p99 over random windows, against
 *     a full scan (every entity's bounds, tested against the window: a query without the index);
 *     target: p50 under 1/100 of the scan's, printed as scan p50 / query p50 > 100;
 *  4. `undo` of a 1,000-entity `entities_create` step on the 100,000-entity document.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bounds, documentContext } from '../src/editor/geometry/index.js';
import { editorOps } from '../src/editor/ops/index.js';
import { EditorSession } from '../src/editor/session.js';
import { openStore } from '../src/store/open.js';
import type { EventStore } from '../src/store/types.js';
import type { Answer } from '../streams/editor.js';
import { ownPeakRssMb } from './process-usage.js';
import {
  type BenchReport,
  interleaved,
  percentile,
  printReport,
  ROUNDS,
  ratioOf,
  spreadCell,
} from './report.js';

const run = promisify(execFile);
/** Debian's interpreter, where python3-ezdxf is installed (the `python3` on PATH may be another one). */
const PYTHON = '/usr/bin/python3';

const BATCHES = Number(process.env.BENCH_EDITOR_BATCHES ?? 100);
const BATCH = 1_000;
const DXF_ENTITIES = Number(process.env.BENCH_DXF_ENTITIES ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const SCANS = Number(process.env.BENCH_SCANS ?? 20);
const UNDOS = Number(process.env.BENCH_UNDOS ?? 5);
const EXTENT = 10_000;
const WINDOW = 100;
const MB = 1024 * 1024;

/** The process's peak RSS so far, MB. */
const peakRssMb = () => Math.round(ownPeakRssMb());

/** A small deterministic generator, so runs compare. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` request entities in turn: line, circle, arc, text, lwpolyline, spread over the extent. */
export function mixedEntities(
  rnd: () => number,
  count: number,
  first: number,
): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, k) => {
    const i = first + k;
    const x = rnd() * EXTENT;
    const y = rnd() * EXTENT;
    const size = 1 + rnd() * 20;
    const layer = `L${i % 10}`;
    switch (i % 5) {
      case 0:
        return {
          type: 'line',
          layer,
          start: [x, y, 0],
          end: [x + size * (rnd() - 0.5), y + size * (rnd() - 0.5), 0],
        };
      case 1:
        return { type: 'circle', layer, center: [x, y, 0], radius: size / 2 };
      case 2:
        return {
          type: 'arc',
          layer,
          center: [x, y, 0],
          radius: size / 2,
          start_angle: rnd() * 360,
          end_angle: rnd() * 360,
        };
      case 3:
        return { type: 'text', layer, value: `T${i}`, position: [x, y, 0], height: size / 5 };
      default:
        return {
          type: 'lwpolyline',
          layer,
          points: [
            [x, y],
            [x + size, y, 0.3],
            [x + size, y + size],
          ],
          closed: true,
        };
    }
  });
}

/** Writes `count` entities (lines, circles, arcs, lwpolylines, texts in turn) with ezdxf, R2018. */
const MAKE_DXF = `
import sys, ezdxf
path, count = sys.argv[1], int(sys.argv[2])
doc = ezdxf.new("R2018")
msp = doc.modelspace()
for i in range(count):
    x, y = (i % 1000) * 1.5, (i // 1000) * 1.5
    k = i % 5
    layer = {"layer": "L%d" % (i % 10)}
    if k == 0: msp.add_line((x, y), (x + 1, y + 1), dxfattribs=layer)
    elif k == 1: msp.add_circle((x, y), 0.5, dxfattribs=layer)
    elif k == 2: msp.add_arc((x, y), 0.5, 30, 250, dxfattribs=layer)
    elif k == 3: msp.add_lwpolyline([(x, y), (x + 1, y), (x + 1, y + 1)], dxfattribs=layer)
    else: msp.add_text("T%d" % i, dxfattribs={"insert": (x, y), "height": 0.25, **layer})
doc.saveas(path)
`;

/**
 * ezdxf.readfile timed inside Python, once per line read from standard input, in one interpreter that
 * stays up between rounds as our session does (interpreter start and `import ezdxf` are not counted).
 */
const READ_DXF = `
import sys, time, json, ezdxf
path = sys.argv[1]
for _ in sys.stdin:
    t = time.perf_counter()
    doc = ezdxf.readfile(path)
    ms = (time.perf_counter() - t) * 1000
    print(json.dumps({"ms": ms, "entities": len(doc.modelspace())}), flush=True)
`;

/** A Python process reading `path` with ezdxf on demand: `read()` times one readfile. */
function ezdxfReader(path: string) {
  const child = spawn(PYTHON, ['-c', READ_DXF, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  return {
    read(): Promise<number> {
      return new Promise((resolve, reject) => {
        waiting.push((line) => {
          const answer = JSON.parse(line) as { ms: number; entities: number };
          if (answer.entities !== DXF_ENTITIES)
            reject(new Error(`ezdxf read ${answer.entities} entities, not ${DXF_ENTITIES}`));
          else resolve(answer.ms);
        });
        child.stdin.write('go\n');
      });
    },
    stop(): void {
      child.stdin.end();
    },
  };
}

/** Dispatches one request; a failed answer stops the benchmark (it would time an error path). */
async function ok(session: EditorSession, request: Record<string, unknown>): Promise<Answer> {
  const answer = await session.dispatch({ protocol: 1, ...request });
  if (!answer.ok) throw new Error(`${String(request.op)} failed: ${answer.code}: ${answer.error}`);
  return answer;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await work();
  return { ms: performance.now() - t0, value };
}

interface Harness {
  dir: string;
  store: EventStore;
  session: EditorSession;
  requests: number;
}

async function harness(label: string): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), `chronicle-bench-editor-${label}-`));
  const store = await openStore(`level:${dir}`);
  const session = await EditorSession.start(store, editorOps, { version: 'bench' });
  return { dir, store, session, requests: 0 };
}

const requestId = (h: Harness) => `bench-${++h.requests}`;

async function dispose(h: Harness): Promise<void> {
  await h.session.close();
  await h.store.close();
  await rm(h.dir, { recursive: true, force: true });
}

/** (1) The 100,000-entity document, made by `entities_create` batches; (3) queries and (4) undo on it. */
export async function createQueryUndo(rows: BenchReport['rows'], ratios: BenchReport['ratios']) {
  const h = await harness('create');
  const created = await ok(h.session, { op: 'new', request_id: requestId(h) });
  const documentId = created.document_id as number;
  const rnd = random(1);

  const batchMs: number[] = [];
  let total = 0;
  for (let b = 0; b < BATCHES; b++) {
    const entities = mixedEntities(rnd, BATCH, b * BATCH);
    const { ms } = await timed(() =>
      ok(h.session, {
        op: 'entities_create',
        request_id: requestId(h),
        document_id: documentId,
        entities,
      }),
    );
    batchMs.push(ms);
    total += ms;
  }
  const entityCount = BATCHES * BATCH;
  const rssMb = process.memoryUsage().rss / MB;
  const maxRssMb = peakRssMb();
  const heapMb = process.memoryUsage().heapUsed / MB;
  const perSecond = entityCount / (total / 1000);
  batchMs.sort((a, b) => a - b);
  rows.push({
    case: `entities_create ${BATCHES} x ${BATCH} mixed`,
    'entities/s': Math.round(perSecond),
    'p50 ms': percentile(batchMs, 50),
    'p99 ms': percentile(batchMs, 99),
    'RSS MB': Math.round(rssMb),
    'peak RSS MB': maxRssMb,
    'heap MB': Math.round(heapMb),
  });
  ratios[`RSS after creating ${entityCount} entities (MB)`] = {
    value: rssMb,
    target: 400,
    ok: rssMb < 400,
    max: true,
  };

  // (3) Window queries through the dispatcher. The full scan they are compared with runs after the
  // session is closed, so that the garbage of its 100,000 bounds per window is not in the RSS figures.
  const doc = h.session.state.documents[String(documentId)];
  if (!doc) throw new Error('the benchmark document is not open');
  const model = doc.model;
  const windows = Array.from({ length: QUERIES }, () => {
    const x = rnd() * (EXTENT - WINDOW);
    const y = rnd() * (EXTENT - WINDOW);
    return [x, y, x + WINDOW, y + WINDOW] as const;
  });
  const query = (w: readonly number[], extra: Record<string, unknown> = {}) =>
    ok(h.session, { op: 'query', document_id: documentId, bounds: [...w], ...extra });
  // The first spatial query builds the document's index (one bulk load); it is reported on its own.
  const first = await timed(() => query(windows[0] as readonly number[]));
  rows.push({
    case: 'query bounds: first (builds the spatial index)',
    'p50 ms': first.ms,
    'RSS MB': Math.round(process.memoryUsage().rss / MB),
    'peak RSS MB': peakRssMb(),
  });
  for (const w of windows.slice(1, 21)) await query(w);
  const latencies: number[] = [];
  let matches = 0;
  for (const w of windows) {
    const { ms, value } = await timed(() => query(w));
    latencies.push(ms);
    matches += value.count as number;
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  rows.push({
    case: `query bounds ${WINDOW}x${WINDOW}, ${QUERIES} windows`,
    'p50 ms': p50,
    'p99 ms': percentile(latencies, 99),
    'mean matches': matches / QUERIES,
  });
  // Every entity of a few windows, to check against the scan.
  const checked = new Map<number, string>();
  for (let i = 0; i < 5; i++) {
    const answer = await query(windows[i] as readonly number[], { detail: 'summary', limit: 10_000 });
    checked.set(
      i,
      (answer.entities as Array<{ handle: string }>)
        .map((e) => e.handle)
        .sort()
        .join(),
    );
  }

  // (4) Undo of a 1,000-entity entities_create step on the 100,000-entity document, a few times over
  // (each undo leaves the document as it was, so the scan below sees what the queries saw).
  const undoMs: number[] = [];
  for (let i = 0; i < UNDOS; i++) {
    await ok(h.session, {
      op: 'entities_create',
      request_id: requestId(h),
      document_id: documentId,
      entities: mixedEntities(rnd, BATCH, entityCount + i * BATCH),
    });
    const { ms, value } = await timed(() =>
      ok(h.session, { op: 'undo', request_id: requestId(h), document_id: documentId }),
    );
    if ((value.changes as unknown[]).length !== BATCH) throw new Error('undo did not erase the batch');
    undoMs.push(ms);
  }
  undoMs.sort((a, b) => a - b);
  rows.push({
    case: `undo of a ${BATCH}-entity entities_create (x${UNDOS})`,
    'p50 ms': percentile(undoMs, 50),
    'max ms': undoMs.at(-1) ?? 0,
    'RSS MB': Math.round(process.memoryUsage().rss / MB),
    'peak RSS MB': peakRssMb(),
  });

  // Closing the session records its end; the peak RSS of the whole run so far is held to the target.
  const rssBeforeClose = process.memoryUsage().rss / MB;
  const closed = await timed(() => dispose(h));
  const closePeak = peakRssMb();
  rows.push({
    case: 'session close',
    'p50 ms': closed.ms,
    'RSS MB': Math.round(rssBeforeClose),
    'peak RSS MB': closePeak,
  });
  ratios['peak RSS through close (MB)'] = {
    value: closePeak,
    target: 400,
    ok: closePeak < 400,
    max: true,
  };

  // The same answers without the index: every entity's bounds, tested against the window.
  const ctx = documentContext(model);
  const scan = (w: readonly [number, number, number, number]) => {
    const out: string[] = [];
    for (const handle of model.order) {
      const e = model.entities[handle];
      const b = e && bounds(e, ctx);
      if (b && b.min[0] <= w[2] && b.max[0] >= w[0] && b.min[1] <= w[3] && b.max[1] >= w[1]) out.push(handle);
    }
    return out;
  };
  const scans = windows.slice(0, SCANS).map((w) => {
    const t0 = performance.now();
    scan(w);
    return performance.now() - t0;
  });
  for (const [i, handles] of checked) {
    if (
      handles !==
      scan(windows[i] as [number, number, number, number])
        .sort()
        .join()
    )
      throw new Error('query and full scan disagree');
  }
  scans.sort((a, b) => a - b);
  const scanP50 = percentile(scans, 50);
  rows.push({
    case: `full bounds scan of ${model.order.length} entities (no index)`,
    'p50 ms': scanP50,
    'p99 ms': percentile(scans, 99),
  });
  // "p50 under 1/100 of the scan's", the other way up: printed with two decimals, p50 / scan is 0.00.
  ratios.scan_p50_over_query_p50 = { value: scanP50 / p50, target: 100, ok: scanP50 / p50 > 100 };
  return { entities: entityCount, meanMatches: matches / QUERIES };
}

/** (2) `open` of a DXF made by ezdxf, through the dispatcher, against ezdxf.readfile of the same file. */
async function openDxf(rows: BenchReport['rows'], ratios: BenchReport['ratios']) {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-editor-dxf-'));
  const path = join(dir, `entities-${DXF_ENTITIES}.dxf`);
  await run(PYTHON, ['-c', MAKE_DXF, path, String(DXF_ENTITIES)], { maxBuffer: 64 * MB });
  try {
    return await openAndCompare(path, rows, ratios);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function openAndCompare(path: string, rows: BenchReport['rows'], ratios: BenchReport['ratios']) {
  const bytes = (await stat(path)).size;
  const h = await harness('open');
  const ezdxf = ezdxfReader(path);
  const ours = async () => {
    const { ms, value } = await timed(() => ok(h.session, { op: 'open', request_id: requestId(h), path }));
    const documentId = value.document_id as number;
    const doc = h.session.state.documents[String(documentId)];
    if (!doc || doc.model.order.length !== DXF_ENTITIES)
      throw new Error(`open read ${doc?.model.order.length} entities, not ${DXF_ENTITIES}`);
    // Each document is closed again, so the session holds one at most.
    await ok(h.session, { op: 'close', request_id: requestId(h), document_id: documentId });
    return ms;
  };
  let pairs: Array<{ ours: number; limit: number }>;
  try {
    // A warm-up round each (the JIT, ezdxf's caches), then the rounds, ours and ezdxf in turn.
    pairs = await interleaved(ROUNDS, ours, () => ezdxf.read(), 1);
  } finally {
    ezdxf.stop();
    await dispose(h);
  }
  const oursMs = pairs.map((p) => p.ours);
  const ezdxfMs = pairs.map((p) => p.limit);
  rows.push(
    {
      case: `open ${DXF_ENTITIES}-entity DXF (${(bytes / 1e6).toFixed(1)} MB) via dispatcher`,
      'p50 ms': spreadCell(oursMs),
    },
    {
      case: `ezdxf.readfile same file (${PYTHON}, timed in Python)`,
      'p50 ms': spreadCell(ezdxfMs),
    },
  );
  ratios.open_ezdxf_over_ours = ratioOf(
    pairs.map((p) => p.limit / p.ours),
    3,
  );
  return { bytes };
}

const CREATE_CHILD = fileURLToPath(new URL('./editor-create-child.js', import.meta.url));

/**
 * (1), (3) and (4) in BENCH_ROUNDS child processes: each row's numbers and each ratio as the median of
 * the rounds, with their spread.
 */
async function createRounds(rows: BenchReport['rows'], ratios: BenchReport['ratios']) {
  const rounds: Array<{
    rows: BenchReport['rows'];
    ratios: BenchReport['ratios'];
    created: { entities: number; meanMatches: number };
  }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    const { stdout } = await run(process.execPath, [CREATE_CHILD], { maxBuffer: 1 << 20 });
    rounds.push(JSON.parse(stdout));
  }
  const first = rounds[0] as (typeof rounds)[number];
  for (const [i, row] of first.rows.entries()) {
    const merged: Record<string, string | number> = {};
    for (const [key, value] of Object.entries(row)) {
      const values = rounds.map((r) => r.rows[i]?.[key]);
      merged[key] =
        typeof value === 'number'
          ? spreadCell(values as number[], Number.isInteger(value) ? 0 : 2)
          : (value as string);
    }
    rows.push(merged);
  }
  for (const [key, ratio] of Object.entries(first.ratios)) {
    ratios[key] = ratioOf(
      rounds.map((r) => r.ratios[key]?.value as number),
      ratio.target,
      ratio.max ? { max: true } : {},
    );
  }
  return first.created;
}

export async function benchEditor(): Promise<void> {
  const rows: BenchReport['rows'] = [];
  const ratios: BenchReport['ratios'] = {};
  // Creation, queries, undo and close run in a child process per round, so that each round's RSS and
  // peak RSS are of its own 100,000 created entities alone (this process has loaded every benchmark's
  // modules: resvg, playwright, ... ~50 MB the editor does not have); the medians meet the targets.
  const created = await createRounds(rows, ratios);
  const opened = await openDxf(rows, ratios);
  printReport({
    name: 'editor: EditorSession.dispatch over a LevelDB event store in a temp dir (durable appends, fsync per batch)',
    rows,
    ratios,
    extra: {
      store: 'level (classic-level, sync: true)',
      entities: created.entities,
      batch: BATCH,
      queries: QUERIES,
      window: WINDOW,
      extent: EXTENT,
      mean_matches: created.meanMatches,
      dxf_entities: DXF_ENTITIES,
      dxf_bytes: opened.bytes,
      ezdxf_timing: 'ezdxf.readfile inside Python (time.perf_counter), interpreter start and import excluded',
      node: process.version,
    },
  });
}
