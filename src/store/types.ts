import type { Observable } from 'rxjs';

import type { EventMetadata, Json, RecordedEvent } from '../../streams/recorded-event.js';

/** What the store gives back (`RecordedEvent`) is the shape the event catalog builds its events on. */
export type { Json, RecordedEvent };

/** Why a store takes no more writes (`EventStore.failure`; src/store/failed-state.ts). */
export interface StoreFailure {
  /** The failed write's own words. */
  reason: string;
  /** When the write failed (ISO time). */
  since: string;
  /**
   * `restart`: a local store stays failed until the process opens it again (a write that failed part
   * way may have left a partial record its log would put later writes behind, so none may follow).
   * `next-write`: a network store is tried again by the next write, and a write it takes clears it
   * (its transactions are all or nothing: a failed one left nothing behind).
   */
  clears: 'restart' | 'next-write';
}

/** What a caller appends. `Type` and `Data` flow from the event catalog in streams/. */
export interface EventData<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
  metadata?: EventMetadata;
}

/** A revision the stream must be at (its last event's revision), or a condition on its existence. */
export type ExpectedRevision = number | 'any' | 'no_stream' | 'stream_exists';

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
}

export interface AppendResult {
  /** Revision the stream's next event will get. */
  nextRevision: number;
  /** Global position of the last event of this append. */
  position: number;
}

export interface ReadStreamOptions {
  /** First revision to read (forwards) or last (backwards). */
  from?: number | 'start' | 'end';
  direction?: 'forwards' | 'backwards';
  maxCount?: number;
}

export interface ReadAllOptions {
  /** First global position to read, inclusive. */
  from?: number;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Only this stream's events; the whole log when absent. */
  stream?: string;
  /**
   * First global position to deliver, inclusive; `start` (the default) replays everything,
   * `end` delivers only what is appended after subscribing.
   */
  from?: number | 'start' | 'end';
  /** Live events a subscriber may have waiting before it is dropped as too slow. */
  bufferSize?: number;
}

/** Persisted state of a projection: what it has seen (`position`) and what it made of it. */
export interface Snapshot<State = unknown> {
  name: string;
  version: number;
  position: number;
  state: State;
}

interface SnapshotStore {
  loadSnapshot<State>(name: string): Promise<Snapshot<State> | undefined>;
  saveSnapshot<State>(snapshot: Snapshot<State>): Promise<void>;
  deleteSnapshot(name: string): Promise<void>;
}

/** An exclusive named lease (see `EventStore.tryLease`). */
export interface Lease {
  readonly name: string;
  /** Settles when the lease ends without release(): its store closed, or its connection broke. */
  readonly lost: Promise<void>;
  release(): Promise<void>;
}

export interface EventStore extends SnapshotStore {
  /** Human-readable place of the log, e.g. `level:/srv/chronicle/data/events`. */
  readonly location: string;
  /**
   * Set while the store is in its failed state (failed-state.ts): a write failed for a reason of the
   * store's own, and writes are answered StoreFailedError — until a restart (a local store) or until
   * the next write it takes (a network store).
   */
  readonly failure: StoreFailure | undefined;
  append(stream: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;
  /**
   * readAll in chunks, for replays of the whole log (rebuilds): one await per chunk instead of one per
   * event, and the next chunk read while the caller works on this one. Optional: a caller falls back to
   * readAll.
   */
  readAllChunks?(options?: ReadAllOptions): AsyncIterable<readonly RecordedEvent[]>;
  /**
   * The names of the streams that start with `prefix` and have events (deleted ones are not), in name
   * order: for replays that go one stream at a time (see Projection.partition). Optional: a caller
   * falls back to reading the whole log.
   */
  listStreams?(prefix: string): AsyncIterable<string>;
  /** readStream forwards from its start, in chunks (see readAllChunks). Optional, like it. */
  readStreamChunks?(stream: string): AsyncIterable<readonly RecordedEvent[]>;
  subscribe(options?: SubscribeOptions): Observable<RecordedEvent>;
  /** Removes a stream's events for good and leaves a tombstone. */
  deleteStream(stream: string): Promise<void>;
  /** Position of the last committed event (0 for an empty log). */
  headPosition(): Promise<number>;
  /**
   * Copies events of another log in as they are (stream, revision, type, data, metadata with its
   * time), at the next positions; a `StreamDeleted` of the system stream leaves the tombstone it
   * describes. For `chronicle migrate` into an empty log: a revision that does not follow its stream's
   * last one is refused (InvalidEventError), and nothing of that call is written.
   */
  importEvents(events: readonly RecordedEvent[]): Promise<void>;
  /**
   * Takes the named lease when no one holds it, among every process on this log: held until released,
   * until this store closes, or until the process ends, a crash included. Undefined when it is held.
   * What several instances on one log coordinate with (one reconcile scheduler; whether the instance
   * that started a run is still alive).
   */
  tryLease(name: string): Promise<Lease | undefined>;
  /** The stream's last revision, or undefined when it has no events; throws when deleted. */
  streamRevision(stream: string): Promise<number | undefined>;
  close(): Promise<void>;
}
