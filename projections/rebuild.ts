import { StreamDeletedError } from '../src/store/errors.js';
import type { EventStore, RecordedEvent } from '../src/store/types.js';
import { failureOf, ProjectionHaltedError } from './health.js';
import { partReleaser } from './heap.js';
import { loadState, type Projection, persists, saveState } from './projection.js';

export interface RebuildProgress {
  projection: string;
  done: number;
  total: number;
  position: number;
}

interface RebuildResult<State> {
  state: State;
  position: number;
  /** Events applied by this run (after the checkpoint it resumed from, if any). */
  events: number;
  seconds: number;
  /** The checkpoint this run resumed from (its position), when it did. */
  resumedFrom?: number;
}

interface RebuildOptions<State = unknown> {
  /** Save a checkpoint every this many events (persisted projections only); 0 = never. */
  checkpointEvery?: number;
  /** Called after each checkpoint is saved. */
  onCheckpoint?: (position: number) => void;
  /** Called once, before replaying, when a checkpoint of an earlier, interrupted run is picked up. */
  onResume?: (position: number) => void;
  /** Replace the projection's live snapshot at the end (default true; a running server saves its own). */
  save?: boolean;
  /** A replay by stream (see Projection.partition) hands each stream's part here before letting it go. */
  onPart?: (stream: string, part: State) => void;
}

export const DEFAULT_CHECKPOINT_EVERY = 100_000;

/** Where a rebuild keeps its intermediate state: beside the live snapshot, never in its place. */
const checkpointName = (projection: string) => `rebuild:${projection}`;

/** A checkpoint's state: the projection's saved state and how many events it has seen. */
interface Checkpoint {
  events: number;
  state: unknown;
}

/**
 * The events a projection is fed from `from` on, in chunks: the whole log's (read a chunk at a time
 * when the store can: one await per event was most of a rebuild's cost), or its stream's.
 */
async function* feed(
  store: EventStore,
  stream: string | undefined,
  from: number,
): AsyncIterable<readonly RecordedEvent[]> {
  if (stream === undefined && store.readAllChunks) {
    yield* store.readAllChunks({ from });
    return;
  }
  const events = stream === undefined ? store.readAll({ from }) : store.readStream(stream);
  let chunk: RecordedEvent[] = [];
  for await (const event of events) {
    // A stream is read by revision; a checkpoint knows a position, so skip up to it.
    if (event.position < from) continue;
    chunk.push(event);
    if (chunk.length >= 1_000) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** A stream's events in chunks: the store's own chunked read when it has one. */
async function* streamChunks(store: EventStore, stream: string): AsyncIterable<readonly RecordedEvent[]> {
  if (store.readStreamChunks) {
    yield* store.readStreamChunks(stream);
    return;
  }
  let chunk: RecordedEvent[] = [];
  for await (const event of store.readStream(stream)) {
    chunk.push(event);
    if (chunk.length >= 1_000) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

async function feedHead(store: EventStore, stream: string | undefined): Promise<number> {
  if (stream === undefined) return store.headPosition();
  for await (const last of store.readStream(stream, { direction: 'backwards', maxCount: 1 }))
    return last.position;
  return 0;
}

/**
 * Replays the log into a fresh state, then replaces the projection's snapshot. The old snapshot stays
 * until the new state is complete, so an interrupted rebuild loses nothing; and every
 * `checkpointEvery` events the state so far is saved under `rebuild:<name>`, so the next rebuild goes
 * on from there instead of from position 1 (the checkpoint is dropped once the live snapshot is
 * replaced; one of another version is ignored). It reads up to the head of the moment it starts; later
 * events are picked up by the runtime from the new snapshot's checkpoint. A projection that is not
 * persisted is replayed the same way, with no checkpoint and no snapshot.
 */
export async function rebuildProjection<State>(
  store: EventStore,
  projection: Projection<State>,
  onProgress?: (progress: RebuildProgress) => void,
  progressEvery = 10_000,
  options: RebuildOptions<State> = {},
): Promise<RebuildResult<State>> {
  const started = performance.now();
  const persisted = persists(projection);
  if (!persisted && projection.partition !== undefined && store.listStreams) {
    const streams = store.listStreams(projection.partition);
    return replayByStream(store, streams, projection, onProgress, progressEvery, options);
  }
  const checkpointEvery = persisted ? (options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY) : 0;
  const checkpoint = checkpointName(projection.name);
  const head = await feedHead(store, projection.stream);
  let state = projection.initial();
  let position = 0;
  let events = 0;
  let seen = 0;
  let resumedFrom: number | undefined;
  if (persisted) {
    const saved = await store.loadSnapshot<Checkpoint>(checkpoint);
    if (saved && saved.version === projection.version && saved.position <= head) {
      state = loadState(projection, saved.state.state);
      position = resumedFrom = saved.position;
      seen = saved.state.events;
      options.onResume?.(saved.position);
    }
  }
  // readAll ends at the head of the moment it starts, also when the newest events were deleted
  // (a subscription would wait for them forever).
  replay: for await (const chunk of feed(store, projection.stream, position + 1)) {
    for (const event of chunk) {
      if (event.position > head) break replay;
      state = evolveOrHalt(projection, state, event, position);
      position = event.position;
      events += 1;
      seen += 1;
      if (seen % progressEvery === 0)
        onProgress?.({ projection: projection.name, done: seen, total: head, position });
      if (checkpointEvery > 0 && events % checkpointEvery === 0) {
        await store.saveSnapshot<Checkpoint>({
          name: checkpoint,
          version: projection.version,
          position,
          state: { events: seen, state: saveState(projection, state) },
        });
        options.onCheckpoint?.(position);
      }
    }
  }
  // Deleted streams leave holes in the positions, so `done` can end below `total`: report the end as whole.
  onProgress?.({ projection: projection.name, done: head, total: head, position });
  if (persisted && options.save !== false) {
    await store.saveSnapshot({
      name: projection.name,
      version: projection.version,
      position,
      state: saveState(projection, state),
    });
  }
  // A checkpoint left behind would make the next rebuild start part-way: it goes once the work is saved.
  if (persisted) await store.deleteSnapshot(checkpoint);
  return {
    state,
    position,
    events,
    seconds: (performance.now() - started) / 1000,
    ...(resumedFrom !== undefined ? { resumedFrom } : {}),
  };
}

/** `evolve`, or the halt of the projection at `position` with the event that broke it. */
function evolveOrHalt<State>(
  projection: Projection<State>,
  state: State,
  event: RecordedEvent,
  position: number,
): State {
  try {
    return projection.evolve(state, event);
  } catch (error) {
    throw new ProjectionHaltedError({
      name: projection.name,
      version: projection.version,
      status: 'halted',
      healthy: false,
      position,
      failure: failureOf(event, error, position),
    });
  }
}

/**
 * The replay of a read model of independent parts that is not persisted (see Projection.partition):
 * each stream of the prefix is read and evolved from `initial()` on its own, up to the head of the
 * moment the replay starts, handed to `onPart`, and let go, so the replay holds one part at a time
 * (the editor's sessions hold whole drawings: all of a log's at once took gigabytes). Events of other
 * streams are not read. The result's `state` is `initial()`: the parts went to `onPart`. The heap of
 * the parts let go is collected before the next is built (see partReleaser).
 */
async function replayByStream<State>(
  store: EventStore,
  streams: AsyncIterable<string>,
  projection: Projection<State>,
  onProgress: ((progress: RebuildProgress) => void) | undefined,
  progressEvery: number,
  options: RebuildOptions<State>,
): Promise<RebuildResult<State>> {
  const started = performance.now();
  const head = await store.headPosition();
  let events = 0;
  const applied = (position: number) => {
    events += 1;
    if (events % progressEvery === 0)
      onProgress?.({ projection: projection.name, done: events, total: head, position });
  };
  const heap = partReleaser();
  for await (const stream of streams) {
    heap.release();
    await replayPart(store, stream, projection, head, applied, options.onPart);
  }
  onProgress?.({ projection: projection.name, done: head, total: head, position: head });
  return {
    state: projection.initial(),
    position: head,
    events,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * One stream's part, evolved from `initial()` up to `head` and handed to `onPart`. A function of its
 * own so that nothing of the part outlives it: an async function keeps its locals (a loop's block-scoped
 * ones too) reachable across its awaits until they are overwritten, and the caller collects the heap of
 * the part it let go before building the next (see partReleaser).
 */
async function replayPart<State>(
  store: EventStore,
  stream: string,
  projection: Projection<State>,
  head: number,
  applied: (position: number) => void,
  onPart: ((stream: string, part: State) => void) | undefined,
): Promise<void> {
  let part = projection.initial();
  let position = 0;
  try {
    read: for await (const chunk of streamChunks(store, stream)) {
      for (const event of chunk) {
        if (event.position > head) break read;
        part = evolveOrHalt(projection, part, event, position);
        position = event.position;
        applied(position);
      }
    }
  } catch (error) {
    // Deleted since it was listed: gone from the read model as from the log.
    if (error instanceof StreamDeletedError) return;
    throw error;
  }
  onPart?.(stream, part);
}
