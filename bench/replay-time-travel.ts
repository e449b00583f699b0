/**
 * Time travel in a long document: a session stream of 100,000 events of one document (entities
 * created, moved, recoloured, erased; undo and redo, with new steps after undos) in a LevelDB store.
 * Against a full replay of that document (its stream read and evolved from the start, what time travel
 * would cost without checkpoints), in the same run: the document at random revisions from the
 * session's history (built once), p50 and p99, in BENCH_ROUNDS rounds with a full replay in turn.
 * Target: p99 <= 1/20 of the full replay (the median of the rounds; their spread printed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editorSessionProjection } from '../projections/editor-session.js';
import { readDxf, templateDxf } from '../src/editor/dxf/index.js';
import { formatHandle } from '../src/editor/handles.js';
import { documentAt, headRevision, readSessionHistory } from '../src/editor/history/index.js';
import type { Entity } from '../src/editor/model.js';
import { openStore } from '../src/store/open.js';
import type { EventData, EventStore } from '../src/store/types.js';
import { type Change, sessionStream } from '../streams/editor.js';
import { type BenchReport, interleaved, percentile, ROUNDS, ratioOf, spreadCell } from './report.js';

const EVENTS = Number(process.env.BENCH_TIME_TRAVEL_EVENTS ?? 100_000);
const TRAVELS = Number(process.env.BENCH_TIME_TRAVELS ?? 300);
const SESSION = 'bench-time-travel';
const DOC = 1;

/** A deterministic generator, so every run builds the same document. */
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

const line = (handle: string, x: number, y: number): Entity =>
  ({
    type: 'Line',
    handle,
    space: '*Model_Space',
    layer: '0',
    color: 256,
    linetype: 'BYLAYER',
    lineweight: -1,
    start: [x, y, 0],
    end: [x + 10, y + 5, 0],
  }) as Entity;

interface Step {
  revision: number;
  changes: Change[];
}

/**
 * The document's events, as the dispatcher would decide them: every step has its changes' before and
 * after, undo and redo name the top of their stack, and a new step clears the redo stack.
 */
function* documentEvents(count: number): Generator<EventData> {
  const next = random(42);
  const at = new Date(0).toISOString();
  const model = readDxf(templateDxf('metric'));
  yield {
    type: 'DocumentCreated',
    data: { document_id: DOC, revision: 0, title: 'Drawing1.dxf', path: null, template: null, model },
    metadata: { requestId: 'bench-0', at },
  };
  const entities = new Map<string, Entity>();
  const handles: string[] = [];
  let seed = model.handseed;
  let revision = 0;
  const undo: Step[] = [];
  let redo: Step[] = [];
  const pick = () => handles[Math.floor(next() * handles.length)] as string;
  for (let i = 1; i < count; i++) {
    revision += 1;
    const metadata = { requestId: `bench-${i}`, at };
    const roll = next();
    if (roll < 0.12 && undo.length > 0) {
      const step = undo.pop() as Step;
      applyBackwards(step.changes, entities, handles);
      redo.push(step);
      yield {
        type: 'StepUndone',
        data: { document_id: DOC, revision, step_revision: step.revision },
        metadata,
      };
      continue;
    }
    if (roll < 0.18 && redo.length > 0) {
      const step = redo.pop() as Step;
      applyForwards(step.changes, entities, handles);
      undo.push(step);
      yield {
        type: 'StepRedone',
        data: { document_id: DOC, revision, step_revision: step.revision },
        metadata,
      };
      continue;
    }
    let type: string;
    let op: string;
    let changes: Change[];
    const kind = next();
    if (handles.length < 10 || kind < 0.55) {
      const handle = formatHandle(seed);
      changes = [
        { kind: 'handseed', key: 'handseed', before: seed, after: seed + 1 },
        { kind: 'entity', key: handle, before: null, after: line(handle, next() * 1000, next() * 1000) },
      ];
      seed += 1;
      [type, op] = ['EntitiesCreated', 'entities_create'];
    } else if (kind < 0.8) {
      const handle = pick();
      const before = entities.get(handle) as Entity & { start: number[]; end: number[] };
      const [dx, dy] = [next() * 10 - 5, next() * 10 - 5];
      const after = {
        ...before,
        start: [(before.start[0] ?? 0) + dx, (before.start[1] ?? 0) + dy, 0],
        end: [(before.end[0] ?? 0) + dx, (before.end[1] ?? 0) + dy, 0],
      } as Entity;
      changes = [{ kind: 'entity', key: handle, before, after }];
      [type, op] = ['EntitiesTransformed', 'entities_transform'];
    } else if (kind < 0.95) {
      const handle = pick();
      const before = entities.get(handle) as Entity;
      changes = [
        { kind: 'entity', key: handle, before, after: { ...before, color: 1 + Math.floor(next() * 255) } },
      ];
      [type, op] = ['PropertiesSet', 'set_properties'];
    } else {
      const handle = pick();
      changes = [
        {
          kind: 'entity',
          key: handle,
          before: entities.get(handle) as Entity,
          after: null,
          index: handles.indexOf(handle),
        },
      ];
      [type, op] = ['EntitiesErased', 'entities_delete'];
    }
    applyForwards(changes, entities, handles);
    undo.push({ revision, changes });
    redo = [];
    yield { type, data: { document_id: DOC, revision, op, changes }, metadata };
  }
}

function applyForwards(changes: readonly Change[], entities: Map<string, Entity>, handles: string[]): void {
  for (const c of changes) if (c.kind === 'entity') put(c.key, c.after, entities, handles, c.index);
}

function applyBackwards(changes: readonly Change[], entities: Map<string, Entity>, handles: string[]): void {
  for (let i = changes.length - 1; i >= 0; i--) {
    const c = changes[i] as Change;
    if (c.kind === 'entity') put(c.key, c.before, entities, handles, c.index);
  }
}

/** The generator's own view of the drawing order, as evolve keeps it (an erased entity comes back where it was). */
function put(
  handle: string,
  entity: Entity | null,
  entities: Map<string, Entity>,
  handles: string[],
  index: number | undefined,
): void {
  const had = entities.has(handle);
  if (entity === null) {
    entities.delete(handle);
    const at = handles.lastIndexOf(handle);
    if (at >= 0) handles.splice(at, 1);
    return;
  }
  entities.set(handle, entity);
  if (!had) handles.splice(Math.min(index ?? handles.length, handles.length), 0, handle);
}

export async function writeDocument(store: EventStore): Promise<void> {
  const stream = sessionStream(SESSION);
  let batch: EventData[] = [];
  for (const event of documentEvents(EVENTS)) {
    batch.push(event);
    if (batch.length === 1000) {
      await store.append(stream, batch);
      batch = [];
    }
  }
  if (batch.length > 0) await store.append(stream, batch);
}

/** The document as a replay from the start of its stream gives it: what time travel avoids. */
async function fullReplay(store: EventStore): Promise<{ ms: number; entities: number }> {
  const t0 = performance.now();
  const projection = editorSessionProjection(SESSION);
  let state = projection.initial();
  for await (const event of store.readStream(sessionStream(SESSION))) state = projection.evolve(state, event);
  const ms = performance.now() - t0;
  return { ms, entities: Object.keys(state.documents[String(DOC)]?.model.entities ?? {}).length };
}

export async function benchReplayTimeTravel(): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-bench-time-travel-'));
  const store = await openStore(`level:${dir}`);
  try {
    await writeDocument(store);
    const t0 = performance.now();
    const history = await readSessionHistory(store, SESSION);
    const buildMs = performance.now() - t0;
    const doc = history.documents[String(DOC)];
    if (!doc) throw new Error('the benchmark document is not in the history');
    const head = headRevision(doc);
    const next = random(7);
    /** TRAVELS travels to random revisions: their p50 and p99. */
    const travels = async () => {
      const times: number[] = [];
      for (let i = 0; i < TRAVELS; i++) {
        const revision = Math.floor(next() * (head + 1));
        const t = performance.now();
        const state = documentAt(doc, revision);
        times.push(performance.now() - t);
        if (state.revision !== revision) throw new Error(`time travel to ${revision} gave ${state.revision}`);
      }
      times.sort((a, b) => a - b);
      return { p50: percentile(times, 50), p99: percentile(times, 99) };
    };
    // Rounds of travels and of a full replay in turn: each round's p99 against its own replay.
    const rounds = await interleaved(ROUNDS, travels, () => fullReplay(store));
    const entities = rounds[0]?.limit.entities ?? 0;
    const full = rounds.map((r) => r.limit.ms);
    const perRound = rounds.map((r) => r.ours.p99 / r.limit.ms);
    return {
      name:
        `replay: time travel in a ${EVENTS.toLocaleString('en')}-event document; ${ROUNDS} rounds, travels and a ` +
        'full replay in turn, cells median [lowest–highest]',
      rows: [
        { measure: 'full replay of the document', ms: spreadCell(full, 1), events: EVENTS, entities },
        {
          measure: 'history build, once (fold + checkpoints)',
          ms: buildMs,
          checkpoints: doc.checkpoints.length,
        },
        {
          measure: `time travel p50 (${TRAVELS} random revisions a round)`,
          ms: spreadCell(
            rounds.map((r) => r.ours.p50),
            2,
          ),
        },
        {
          measure: `time travel p99 (${TRAVELS} random revisions a round)`,
          ms: spreadCell(
            rounds.map((r) => r.ours.p99),
            2,
          ),
        },
      ],
      ratios: { 'time travel p99 / full replay': ratioOf(perRound, 0.05, { max: true }) },
      extra: { events: EVENTS, travels: TRAVELS, revisions: head + 1, fullReplayMs: full, buildMs },
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
