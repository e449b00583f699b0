import type { EventStore } from '../src/store/types.js';
import { type Projection, saveState } from './projection.js';
import { failureOf, ProjectionHaltedError } from './runtime.js';

export interface RebuildProgress {
  projection: string;
  done: number;
  total: number;
  position: number;
}

export interface RebuildResult<State> {
  state: State;
  position: number;
  events: number;
  seconds: number;
}

/**
 * Replays the whole log from position 1 into a fresh state, then replaces the projection's snapshot.
 * The old snapshot stays until the new state is complete, so an interrupted rebuild loses nothing.
 * It reads up to the head of the moment it starts; later events are picked up by the runtime from the
 * new snapshot's checkpoint.
 */
export async function rebuildProjection<State>(
  store: EventStore,
  projection: Projection<State>,
  onProgress?: (progress: RebuildProgress) => void,
  progressEvery = 10_000,
): Promise<RebuildResult<State>> {
  const started = performance.now();
  const head = await store.headPosition();
  let state = projection.initial();
  let position = 0;
  let events = 0;
  // readAll ends at the head of the moment it starts, also when the newest events were deleted
  // (a subscription would wait for them forever).
  for await (const event of store.readAll({ from: 1 })) {
    try {
      state = projection.evolve(state, event);
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
    position = event.position;
    events += 1;
    if (events % progressEvery === 0)
      onProgress?.({ projection: projection.name, done: events, total: head, position });
  }
  // Deleted streams leave holes in the positions, so `done` can end below `total`: report the end as whole.
  onProgress?.({ projection: projection.name, done: head, total: head, position });
  await store.saveSnapshot({
    name: projection.name,
    version: projection.version,
    position,
    state: saveState(projection, state),
  });
  return { state, position, events, seconds: (performance.now() - started) / 1000 };
}
