import type { Json, RecordedEvent } from '../src/store/types.js';

/**
 * A read model: what `evolve` makes of the log, event by event.
 *
 * `evolve` is deterministic and synchronous, with no I/O: the same events always give the same state,
 * which is what lets a read model be thrown away and rebuilt. It may update the state it is given in
 * place and return it: the runtime owns that state and never hands it to two evolutions, and copying a
 * large read model on every event would make rebuilds quadratic.
 */
export interface Projection<State> {
  readonly name: string;
  /** Bump when `evolve` or the state's shape changes: a snapshot of another version is rebuilt. */
  readonly version: number;
  /** Feed only this stream's events (the whole log when absent): a read model of one stream. */
  readonly stream?: string;
  /**
   * False for a read model that lives only in the memory of the process serving it and is replayed from
   * the log when that process starts: an editor session's state holds whole drawings (59 MB of JSON at
   * 100,000 entities, past V8's longest string for a few of them) and its stream replays quickly. It gets
   * no snapshot and no rebuild checkpoint; `chronicle rebuild` replays it, and a running server swaps the
   * replayed state in.
   */
  readonly persist?: boolean;
  /**
   * A stream name prefix, for a read model made of independent parts, one per stream of that prefix
   * (the editor's sessions): one stream's events, evolved from `initial()` alone, give that stream's
   * part. A rebuild of such a read model that is not persisted replays one stream at a time and lets
   * each part go once it is replayed, so it holds the largest part, not all of them at once.
   */
  readonly partition?: string;
  initial(): State;
  evolve(state: State, event: RecordedEvent): State;
  /** For states that are not plain JSON (a Map, say): how to write and read them in a snapshot. */
  snapshot?: {
    save(state: State): Json;
    load(json: Json): State;
  };
}

/** Any projection, whatever its state (its methods are bivariant, so every Projection<S> fits). */
export type AnyProjection = Projection<unknown>;

export const saveState = <State>(projection: Projection<State>, state: State): unknown =>
  projection.snapshot ? projection.snapshot.save(state) : state;

export const loadState = <State>(projection: Projection<State>, json: unknown): State =>
  projection.snapshot ? projection.snapshot.load(json as Json) : (json as State);

/** Whether a projection's state is written out as snapshots (the default). */
export const persists = (projection: AnyProjection | Projection<never>) => projection.persist !== false;
