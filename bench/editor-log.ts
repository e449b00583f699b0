/**
 * A synthetic editor log for the replay benchmarks, in the shapes the dispatcher records
 * (streams/editor.ts): sessions that open a document of `entities` entities (DocumentOpened and its
 * EntitiesLoaded batches), then edit it — moves, property changes, undo and redo, new entities,
 * selections — every mutation followed by its OperationAnswered. Appended straight to the store in
 * large batches (no dispatcher: the log is the input here, not what is measured).
 */
import { createHash } from 'node:crypto';
import { readDxf, templateDxf } from '../src/editor/dxf/index.js';
import { LOAD_BATCH } from '../src/editor/dxf/load.js';
import type { Entity } from '../src/editor/model.js';
import type { EventData, EventStore } from '../src/store/types.js';
import { type Change, editorEvent, type NewEditorEvent, sessionStream } from '../streams/editor.js';

const APPEND_BATCH = 2_000;

function entityAt(i: number, handle: string): Entity {
  const common = {
    handle,
    space: '*Model_Space',
    layer: `L${i % 16}`,
    color: 256,
    linetype: 'BYLAYER',
    lineweight: -1,
  };
  const x = (i % 1000) * 10;
  const y = Math.floor(i / 1000) * 10;
  switch (i % 3) {
    case 0:
      return { ...common, type: 'Line', start: [x, y, 0], end: [x + 5, y + 5, 0] };
    case 1:
      return { ...common, type: 'Circle', center: [x, y, 0], radius: 1 + (i % 7) };
    default:
      return { ...common, type: 'Point', location: [x, y, 0] };
  }
}

const hex = (n: number) => n.toString(16).toUpperCase();

/** One session's events, generated lazily; `budget` events in all. */
function* sessionEvents(sessionId: string, entities: number, budget: number): Generator<EventData> {
  let emitted = 0;
  const doc = 1;
  let revision = 0;
  let request = 0;
  const current = new Map<string, Entity>();
  const handles: string[] = [];
  let seed = 0x100;
  const model = { ...readDxf(templateDxf('metric')), entities: {}, order: [] };
  const plain = (event: NewEditorEvent, requestId?: string): EventData => ({
    type: event.type,
    data: event.data,
    ...(requestId ? { metadata: { requestId } } : {}),
  });
  yield plain(editorEvent('SessionStarted', { session_id: sessionId, version: 'bench', pid: 1 }));
  const batches = Math.ceil(entities / LOAD_BATCH);
  yield plain(
    editorEvent('DocumentOpened', {
      document_id: doc,
      revision: 0,
      title: 'bench.dxf',
      path: '/bench/bench.dxf',
      bytes: entities * 120,
      sha256: createHash('sha256').update(sessionId).digest('hex'),
      model,
      entity_batches: batches,
    }),
  );
  emitted += 2;
  for (let b = 0; b < batches; b++) {
    const batch: Entity[] = [];
    for (let i = b * LOAD_BATCH; i < Math.min(entities, (b + 1) * LOAD_BATCH); i++) {
      const handle = hex(seed++);
      const entity = entityAt(i, handle);
      current.set(handle, entity);
      handles.push(handle);
      batch.push(entity);
    }
    yield plain(
      editorEvent('EntitiesLoaded', {
        document_id: doc,
        batch: b,
        entities: batch,
        order: batch.map((e) => e.handle),
      }),
    );
    emitted += 1;
  }
  const answered = (op: string, requestId: string, changes: Change[]): EventData =>
    plain(
      editorEvent('OperationAnswered', {
        request_id: requestId,
        op,
        body_hash: createHash('sha256').update(requestId).digest('hex'),
        document_id: doc,
        revision,
        answer: {
          ok: true,
          status: 'completed',
          request_id: requestId,
          document_id: doc,
          result: {},
          changes: changes
            .filter((c) => c.kind === 'entity')
            .map((c) => ({ handle: c.key, kind: c.before === null ? 'created' : 'modified' })),
        },
      }),
      requestId,
    );
  /** A step and its answer. */
  function* step(
    type: 'EntitiesTransformed' | 'PropertiesSet' | 'EntitiesCreated',
    op: string,
    changes: Change[],
  ): Generator<EventData> {
    revision += 1;
    const requestId = `bench-${sessionId}-${++request}`;
    yield plain(editorEvent(type, { document_id: doc, revision, op, changes }), requestId);
    yield answered(op, requestId, changes);
  }
  const set = (handle: string, after: Entity): Change => {
    const before = current.get(handle) as Entity;
    current.set(handle, after);
    return { kind: 'entity', key: handle, before, after };
  };
  const back = (changes: readonly Change[], forwards: boolean) => {
    for (const c of changes)
      if (c.kind === 'entity') {
        const to = forwards ? c.after : c.before;
        if (to) current.set(c.key, to);
        else current.delete(c.key);
      }
  };
  let cycle = 0;
  // One cycle: a move, a colour change, its undo and redo, a new entity, a selection: 11 events.
  while (emitted + 11 <= budget) {
    cycle += 1;
    const a = handles[(cycle * 7919) % handles.length] as string;
    const b = handles[(cycle * 104729) % handles.length] as string;
    const moved = current.get(a) as Entity;
    yield* step('EntitiesTransformed', 'entities_transform', [set(a, shifted(moved, cycle % 5))]);
    const recolored = current.get(b) as Entity;
    const colorChanges = [set(b, { ...recolored, color: 1 + (cycle % 255) })];
    yield* step('PropertiesSet', 'set_properties', colorChanges);
    const stepRevision = revision;
    for (const kind of ['undo', 'redo'] as const) {
      revision += 1;
      back(colorChanges, kind === 'redo');
      const requestId = `bench-${sessionId}-${++request}`;
      yield plain(
        editorEvent(kind === 'undo' ? 'StepUndone' : 'StepRedone', {
          document_id: doc,
          revision,
          step_revision: stepRevision,
        }),
        requestId,
      );
      yield answered(kind, requestId, []);
    }
    const handle = hex(seed);
    const created = entityAt(cycle, handle);
    current.set(handle, created);
    handles.push(handle);
    yield* step('EntitiesCreated', 'entities_create', [
      { kind: 'entity', key: handle, before: null, after: created },
      { kind: 'handseed', key: 'handseed', before: seed, after: seed + 1 },
    ]);
    seed += 1;
    yield plain(editorEvent('SelectionChanged', { document_id: doc, handles: [a, b], source: 'command' }));
    emitted += 11;
  }
  for (; emitted < budget; emitted++)
    yield plain(editorEvent('SelectionChanged', { document_id: doc, handles: [], source: 'command' }));
}

function shifted(entity: Entity, by: number): Entity {
  const move = (p: readonly number[]) =>
    [(p[0] ?? 0) + by, (p[1] ?? 0) + by, p[2] ?? 0] as [number, number, number];
  switch (entity.type) {
    case 'Line':
      return { ...entity, start: move(entity.start), end: move(entity.end) };
    case 'Circle':
      return { ...entity, center: move(entity.center) };
    case 'Point':
      return { ...entity, location: move(entity.location) };
    default:
      return entity;
  }
}

/**
 * Appends `total` editor events: `sessions` sessions, each with a document of `entities` entities,
 * their appends interleaved (sessions run one after another in time, but the log mixes their batches
 * as concurrent writers would).
 */
export async function writeEditorLog(
  store: EventStore,
  options: { total: number; sessions: number; entities: number },
): Promise<void> {
  const per = Math.floor(options.total / options.sessions);
  const sources = Array.from({ length: options.sessions }, (_, s) => {
    const id = `bench-${s}`;
    const budget = s === options.sessions - 1 ? options.total - per * (options.sessions - 1) : per;
    return { stream: sessionStream(id), events: sessionEvents(id, options.entities, budget) };
  });
  let live = sources;
  while (live.length > 0) {
    // The sessions' appends of a round go together: they share the store's group commit.
    const appended = await Promise.all(
      live.map(async (source) => {
        const batch: EventData[] = [];
        let bytes = 0;
        for (let r = source.events.next(); !r.done; r = source.events.next()) {
          batch.push(r.value);
          // EntitiesLoaded batches are large: keep an append to a few of them.
          bytes += r.value.type === 'EntitiesLoaded' ? 500_000 : 500;
          if (batch.length >= APPEND_BATCH || bytes >= 8_000_000) break;
        }
        if (batch.length === 0) return undefined;
        await store.append(source.stream, batch);
        return source;
      }),
    );
    live = appended.filter((source) => source !== undefined);
  }
}
