import type { AbstractBatchOptions, AbstractIterator, AbstractLevel } from 'abstract-level';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../../streams/system.js';
import { chunkedJson } from './chunked-json.js';
import { StoreClosedError, StreamDeletedError } from './errors.js';
import { flatten } from './flatten.js';
import { importedValue, planImport } from './import.js';
import {
  afterStreamRevisions,
  decodeEvent,
  eventKey,
  eventRange,
  HEAD_KEY,
  isEventKey,
  parsePositionValue,
  positionOfEventKey,
  positionValue,
  revisionKey,
  revisionKeysOf,
  revisionRange,
  shredKey,
  shredRange,
  snapshotKey,
  snapshotPartKey,
  snapshotPartRange,
  streamOfRevisionKey,
  tombstoneKey,
} from './keys.js';
import { LocalLeases } from './local-leases.js';
import { QueuedEventStore } from './queued-store.js';
import type { LiveLog } from './subscription.js';
import type {
  AppendResult,
  EventStore,
  Lease,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  Snapshot,
} from './types.js';
import { assertStreamName, serializeEventBody, storedValue } from './validate.js';
import { checkExpected, type PendingAppend, type PendingDelete, type PendingImport } from './write-queue.js';

type StringLevel = AbstractLevel<string | Uint8Array, string, string>;
type StringIterator = AbstractIterator<StringLevel, string, string>;
/** classic-level's `sync` write option; abstract-level does not declare it, memory-level ignores it. */
type WriteOptions = AbstractBatchOptions<string, string>;

/** Longest stretch of filling a write batch before other work is let in (ms). */
const BREATH_MS = 8;

type BatchOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/** Key ranges that held a deleted stream, to be compacted until no byte of it is left on disk. */
interface ShredRanges {
  stream: string;
  events: { gte: string; lte: string } | undefined;
}

/** classic-level compacts; memory-level has nothing on disk to compact. */
interface Compactable {
  compactRange(start: string, end: string): Promise<void>;
}

/** What is known of a stream: its last revision (-1 = no events) and whether it was deleted. */
interface StreamHead {
  revision: number;
  deleted: boolean;
}

const READ_CHUNK = 1_000;
/** Consecutive positions of a stream from this many on are read as one range rather than key by key. */
const MIN_RUN = 8;
/** Characters of snapshot JSON per stored part, and per write batch of parts. */
const SNAPSHOT_PART_CHARS = 1 << 20;
const SNAPSHOT_BATCH_CHARS = 4 << 20;

/** The value under a snapshot's key when the snapshot is stored in parts (see saveSnapshot). */
interface PartedSnapshot {
  name: string;
  parts: number;
  generation: string;
}

/**
 * The event store over any abstract-level database: classic-level on disk (the default) or
 * memory-level. One process owns the database (LevelDB's lock), so the head position and stream
 * revisions cached here are authoritative.
 *
 * Writes go through one queue. Appends that wait while a batch is being synced are committed together
 * in the next batch (group commit): one fsync acknowledges all of them, and each append is still atomic
 * because a LevelDB batch is.
 */
export class LevelEventStore extends QueuedEventStore implements EventStore {
  private readonly db: StringLevel;
  private readonly writeOptions: WriteOptions;
  private head = 0;
  private readonly streams = new Map<string, StreamHead>();
  private readonly commitListeners = new Set<(events: readonly RecordedEvent[]) => void>();
  private readonly closeListeners = new Set<() => void>();
  private readonly live: LiveLog;
  private readonly leases = new LocalLeases();
  private readonly snapshotSaves = new Map<string, Promise<void>>();
  private snapshotGeneration = 0;

  private constructor(db: StringLevel, location: string, sync: boolean) {
    // A failed write stays failed until a restart (failed-state.ts): LevelDB's log is shared.
    super(location, 'restart', true);
    this.db = db;
    this.writeOptions = { sync } as WriteOptions;
    this.live = {
      head: () => this.head,
      readRange: (stream, from, to) => this.readRange(stream, from, to),
      listen: (listener) => this.addListener(this.commitListeners, listener),
      onClose: (listener) => this.addListener(this.closeListeners, listener),
    };
  }

  /** Opens an already constructed (not yet opened) database; `sync` makes every batch durable. */
  static async open(db: StringLevel, location: string, options: { sync: boolean }): Promise<LevelEventStore> {
    await db.open();
    const store = new LevelEventStore(db, location, options.sync);
    const head = await db.get(HEAD_KEY);
    store.head = head === undefined ? 0 : parsePositionValue(head);
    await store.finishShredding();
    return store;
  }

  protected get liveLog(): LiveLog {
    return this.live;
  }

  async headPosition(): Promise<number> {
    return this.head;
  }

  /** LevelDB is held by one process (its lock): a lease is free when no lease of this store has it. */
  async tryLease(name: string): Promise<Lease | undefined> {
    if (this.closed) throw new StoreClosedError();
    return this.leases.take(name);
  }

  async streamRevision(stream: string): Promise<number | undefined> {
    assertStreamName(stream);
    const head = await this.streamHead(stream);
    if (head.deleted) throw new StreamDeletedError(stream);
    return head.revision === -1 ? undefined : head.revision;
  }

  async *readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    assertStreamName(stream);
    const head = await this.streamHead(stream);
    if (head.deleted) throw new StreamDeletedError(stream);
    const backwards = options.direction === 'backwards';
    const last = head.revision;
    const from = options.from === 'end' ? last : options.from === 'start' ? undefined : options.from;
    const range = backwards ? revisionRange(stream, 0, from ?? last) : revisionRange(stream, from ?? 0);
    yield* this.eventsOfIndex(
      this.db.iterator({ ...range, reverse: backwards, limit: options.maxCount ?? -1 }),
    );
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    return flatten(this.readAllChunks(options));
  }

  async *readAllChunks(options: ReadAllOptions = {}): AsyncIterable<readonly RecordedEvent[]> {
    const from = Math.max(1, options.from ?? 1);
    const iterator = this.db.iterator({ ...eventRange(from, this.head), limit: options.maxCount ?? -1 });
    for await (const entries of prefetched(iterator)) {
      const events: RecordedEvent[] = new Array(entries.length);
      for (let i = 0; i < entries.length; i++) {
        const [key, value] = entries[i] as [string, string];
        events[i] = decodeEvent(positionOfEventKey(key), value);
      }
      yield events;
    }
  }

  async *readStreamChunks(stream: string): AsyncIterable<readonly RecordedEvent[]> {
    assertStreamName(stream);
    const head = await this.streamHead(stream);
    if (head.deleted) throw new StreamDeletedError(stream);
    // The index entries point to the events: the next chunk's are read with them, while this one is
    // used (a rebuild otherwise waited for every chunk's reads in turn: 15% of its time idle).
    yield* prefetched(this.db.iterator(revisionRange(stream)), (entries) => this.eventsAt(entries));
  }

  /**
   * The events a chunk of `stream`'s index points to. A stream's events mostly lie in runs of
   * consecutive positions (an append is one run): a run is read as one range in order, which LevelDB
   * does several times faster than a lookup per key; the events between runs are looked up key by key.
   */
  private async eventsAt(entries: ReadonlyArray<[string, string]>): Promise<RecordedEvent[]> {
    const positions = entries.map(([, value]) => parsePositionValue(value));
    const events: RecordedEvent[] = [];
    let lone: number[] = [];
    const lookUp = async () => {
      if (lone.length === 0) return;
      const values = await this.db.getMany(lone.map(eventKey));
      for (let i = 0; i < lone.length; i++) {
        const value = values[i];
        // Absent only when the stream is being deleted under the reader: the delete wins.
        if (value !== undefined) events.push(decodeEvent(lone[i] as number, value));
      }
      lone = [];
    };
    for (let i = 0; i < positions.length; ) {
      const first = positions[i] as number;
      let end = i + 1;
      while (end < positions.length && positions[end] === first + (end - i)) end += 1;
      if (end - i < MIN_RUN) {
        lone.push(...positions.slice(i, end));
      } else {
        await lookUp();
        const run = await this.db.iterator(eventRange(first, first + (end - i) - 1)).all();
        for (const [key, value] of run) events.push(decodeEvent(positionOfEventKey(key), value));
      }
      i = end;
    }
    await lookUp();
    return events;
  }

  async *listStreams(prefix: string): AsyncIterable<string> {
    // One seek per stream, past its last revision key: a deleted stream has none left.
    const first = revisionKeysOf(prefix);
    const iterator = this.db.keys({ gte: first });
    try {
      for (let key = await iterator.next(); key?.startsWith(first); key = await iterator.next()) {
        const stream = streamOfRevisionKey(key);
        yield stream;
        iterator.seek(afterStreamRevisions(stream));
      }
    } finally {
      await iterator.close();
    }
  }

  async loadSnapshot<State>(name: string): Promise<Snapshot<State> | undefined> {
    const value = await this.db.get(snapshotKey(name));
    if (value === undefined) return undefined;
    const stored = JSON.parse(value) as Snapshot<State> | PartedSnapshot;
    if (!('parts' in stored)) return stored;
    const parts = await this.db.values(snapshotPartRange(name, stored.generation)).all();
    if (parts.length !== stored.parts)
      throw new Error(`snapshot ${name}: ${parts.length} of its ${stored.parts} parts are in the store`);
    return JSON.parse(parts.join('')) as Snapshot<State>;
  }

  /**
   * A snapshot that serializes to one part is one value, as ever. A larger one (an editor session's
   * read model is tens of MB) is serialized and written a part at a time, so neither its JSON nor
   * LevelDB's copies of it (native string, write batch, memtable) are ever held whole; a value naming
   * the parts' generation is written last, with the deletion of the previous generation's parts, in one
   * batch: a save that stops part-way leaves the previous snapshot in force.
   */
  saveSnapshot<State>(snapshot: Snapshot<State>): Promise<void> {
    const name = snapshot.name;
    // Two saves of one name at once would each delete the other's parts: they go one after the other.
    const previous = this.snapshotSaves.get(name) ?? Promise.resolve();
    const saved = previous
      .catch(() => undefined)
      .then(() => this.guarded(() => this.writeSnapshot(snapshot)));
    this.snapshotSaves.set(name, saved);
    const forget = () => {
      if (this.snapshotSaves.get(name) === saved) this.snapshotSaves.delete(name);
    };
    saved.then(forget, forget);
    return saved;
  }

  private async writeSnapshot<State>(snapshot: Snapshot<State>): Promise<void> {
    const name = snapshot.name;
    const pieces = chunkedJson(snapshot, SNAPSHOT_PART_CHARS);
    const first = pieces.next();
    const second = pieces.next();
    const stale = () => this.db.keys(snapshotPartRange(name)).all();
    if (first.done || second.done) {
      const batch = this.db.batch().put(snapshotKey(name), first.done ? 'null' : first.value);
      for (const key of await stale()) batch.del(key);
      await batch.write(this.writeOptions);
      return;
    }
    const generation = `${Date.now().toString(36)}.${(this.snapshotGeneration++).toString(36)}`;
    let parts = 0;
    let batch = this.db.batch();
    let batched = 0;
    const put = async (piece: string) => {
      batch.put(snapshotPartKey(name, generation, parts++), piece);
      batched += piece.length;
      if (batched < SNAPSHOT_BATCH_CHARS) return;
      await batch.write(this.writeOptions);
      batch = this.db.batch();
      batched = 0;
    };
    await put(first.value);
    await put(second.value);
    for (let piece = pieces.next(); !piece.done; piece = pieces.next()) await put(piece.value);
    const mine = snapshotPartRange(name, generation);
    for (const key of await stale()) if (key < mine.gte || key >= mine.lt) batch.del(key);
    const parted: PartedSnapshot = { name, parts, generation };
    batch.put(snapshotKey(name), JSON.stringify(parted));
    await batch.write(this.writeOptions);
  }

  deleteSnapshot(name: string): Promise<void> {
    return this.guarded(async () => {
      const parts = await this.db.keys(snapshotPartRange(name)).all();
      const batch = this.db.batch().del(snapshotKey(name));
      for (const key of parts) batch.del(key);
      await batch.write(this.writeOptions);
    });
  }

  /**
   * A write outside the queue (snapshots) through the failed state too: LevelDB's log is shared, so a
   * snapshot's failed write leaves the same partial record an append's would.
   */
  private async guarded(write: () => Promise<void>): Promise<void> {
    this.failed.guard();
    try {
      await write();
    } catch (error) {
      throw this.failed.failed(error);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let queued writes finish: they were accepted before close was asked for.
    await this.writes.drained();
    for (const listener of [...this.closeListeners]) listener();
    this.leases.endAll();
    await this.db.close();
  }

  private addListener<L>(set: Set<L>, listener: L): () => void {
    set.add(listener);
    return () => set.delete(listener);
  }

  private async streamHead(stream: string): Promise<StreamHead> {
    const cached = this.streams.get(stream);
    if (cached) return cached;
    const [tombstone, lastKeys] = await Promise.all([
      this.db.get(tombstoneKey(stream)),
      this.db.keys({ ...revisionRange(stream), reverse: true, limit: 1 }).all(),
    ]);
    let head: StreamHead;
    if (tombstone !== undefined) {
      head = { revision: (JSON.parse(tombstone) as { lastRevision: number }).lastRevision, deleted: true };
    } else {
      const last = lastKeys[0];
      head = {
        revision: last === undefined ? -1 : parsePositionValue(last.slice(last.lastIndexOf('\u0000') + 1)),
        deleted: false,
      };
    }
    // A write may have cached this stream while we were reading; the writer's value is newer.
    const raced = this.streams.get(stream);
    if (raced) return raced;
    this.streams.set(stream, head);
    return head;
  }

  protected async commitAppends(appends: PendingAppend[]): Promise<void> {
    try {
      await Promise.all([...new Set(appends.map((a) => a.stream))].map((stream) => this.streamHead(stream)));
    } catch (error) {
      for (const append of appends) append.reject(error);
      return;
    }
    // Decide every append against the heads as they will be once the earlier appends of this batch
    // are committed; nothing is cached until the batch is on disk.
    const next = new Map<string, number>();
    const ops: BatchOp[] = [];
    const accepted: Array<{ append: PendingAppend; result: AppendResult }> = [];
    let position = this.head;
    for (const append of appends) {
      const head = this.streams.get(append.stream) as StreamHead;
      if (head.deleted) {
        append.reject(new StreamDeletedError(append.stream));
        continue;
      }
      let revision = next.get(append.stream) ?? head.revision;
      try {
        checkExpected(append.stream, append.expected, revision);
      } catch (error) {
        append.reject(error);
        continue;
      }
      const streamJson = JSON.stringify(append.stream);
      for (const body of append.bodies) {
        revision += 1;
        position += 1;
        ops.push({ type: 'put', key: eventKey(position), value: storedValue(streamJson, revision, body) });
        ops.push({ type: 'put', key: revisionKey(append.stream, revision), value: positionValue(position) });
      }
      next.set(append.stream, revision);
      accepted.push({ append, result: { nextRevision: revision + 1, position } });
    }
    if (accepted.length === 0) return;
    ops.push({ type: 'put', key: HEAD_KEY, value: positionValue(position) });
    try {
      await this.write(ops);
    } catch (error) {
      for (const { append } of accepted) append.reject(error);
      return;
    }
    for (const [stream, revision] of next) this.streams.set(stream, { revision, deleted: false });
    this.publish(position, ops);
    for (const { append, result } of accepted) append.resolve(result);
  }

  /**
   * Writes `ops` atomically. The chained form, not `db.batch(ops, options)`: the array form copies the
   * options into every operation, and with `sync` among them that copy made a put about 4x dearer on the
   * main thread (10 µs against 2.4 µs, measured with classic-level); the chained form takes `sync` once.
   * Handing a large batch to LevelDB copies every value (130 ms for the 100 MB of a 300,000-entity open),
   * so the batch is filled a slice at a time, with other work let in between.
   */
  private async write(ops: readonly BatchOp[]): Promise<void> {
    const batch = this.db.batch();
    try {
      let breath = performance.now();
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value);
        else batch.del(op.key);
        if (performance.now() - breath > BREATH_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          breath = performance.now();
        }
      }
    } catch (error) {
      await batch.close();
      throw error;
    }
    await batch.write(this.writeOptions);
  }

  /** Moves the head and hands the committed events (the `e:` puts among `ops`) to live subscribers. */
  private publish(head: number, ops: readonly BatchOp[]): void {
    this.head = head;
    if (this.commitListeners.size === 0) return;
    const recorded: RecordedEvent[] = [];
    for (const op of ops) {
      if (op.type === 'put' && isEventKey(op.key))
        recorded.push(decodeEvent(positionOfEventKey(op.key), op.value));
    }
    for (const listener of [...this.commitListeners]) listener(recorded);
  }

  /**
   * Deletes the stream's events and index, leaves a tombstone, and records a `StreamDeleted` event in
   * the system stream `$streams` in the same batch: projections hear of the deletion like of anything
   * else, so a rebuilt read model agrees with the live one.
   *
   * "For good" includes the disk: a LevelDB delete only writes a deletion marker, and the old values
   * stay in log and table files until a compaction merges the two. So the key ranges are compacted
   * before the delete (the values move into a table file) and after it (the markers are flushed above
   * that table and merged into it, dropping both). A reader's open snapshot can keep values alive
   * through that compaction, so the ranges are remembered under a shred key and compacted again at the
   * next open.
   */
  protected async runDelete(task: PendingDelete): Promise<void> {
    try {
      const [head, system] = await Promise.all([
        this.streamHead(task.stream),
        this.streamHead(SYSTEM_STREAM),
      ]);
      if (head.deleted) throw new StreamDeletedError(task.stream);
      const ops: BatchOp[] = [];
      let first = Number.POSITIVE_INFINITY;
      let last = 0;
      for await (const [key, value] of this.db.iterator(revisionRange(task.stream))) {
        const position = parsePositionValue(value);
        first = Math.min(first, position);
        last = Math.max(last, position);
        ops.push({ type: 'del', key }, { type: 'del', key: eventKey(position) });
      }
      const shred: ShredRanges = {
        stream: task.stream,
        events: last > 0 ? eventRange(first, last) : undefined,
      };
      await this.compact(shred);
      const at = new Date().toISOString();
      ops.push(
        {
          type: 'put',
          key: tombstoneKey(task.stream),
          value: JSON.stringify({ lastRevision: head.revision, deletedAt: at }),
        },
        { type: 'put', key: shredKey(task.stream), value: JSON.stringify(shred) },
      );
      const position = this.head + 1;
      const revision = system.revision + 1;
      const data: StreamDeletedData = { stream: task.stream, lastRevision: head.revision };
      const body = serializeEventBody({ type: STREAM_DELETED, data }, at);
      ops.push(
        {
          type: 'put',
          key: eventKey(position),
          value: storedValue(JSON.stringify(SYSTEM_STREAM), revision, body),
        },
        { type: 'put', key: revisionKey(SYSTEM_STREAM, revision), value: positionValue(position) },
        { type: 'put', key: HEAD_KEY, value: positionValue(position) },
      );
      await this.write(ops);
      this.streams.set(task.stream, { revision: head.revision, deleted: true });
      this.streams.set(SYSTEM_STREAM, { revision, deleted: false });
      this.publish(position, ops);
      await this.compact(shred);
      task.resolve();
    } catch (error) {
      task.reject(error);
    }
  }

  /** See `EventStore.importEvents`: one batch, positions after the head, revisions checked. */
  protected async runImport(task: PendingImport): Promise<void> {
    try {
      const plan = await planImport(task.events, (stream) => this.streamHead(stream));
      const ops: BatchOp[] = [];
      let position = this.head;
      for (const event of task.events) {
        position += 1;
        ops.push(
          { type: 'put', key: eventKey(position), value: importedValue(event) },
          { type: 'put', key: revisionKey(event.stream, event.revision), value: positionValue(position) },
        );
      }
      for (const [stream, head] of plan)
        if (head.deleted)
          ops.push({
            type: 'put',
            key: tombstoneKey(stream),
            value: JSON.stringify({ lastRevision: head.revision, deletedAt: head.deletedAt }),
          });
      ops.push({ type: 'put', key: HEAD_KEY, value: positionValue(position) });
      await this.write(ops);
      for (const [stream, head] of plan)
        this.streams.set(stream, { revision: head.revision, deleted: head.deleted });
      this.publish(position, ops);
      task.resolve();
    } catch (error) {
      task.reject(error);
    }
  }

  private async compact(shred: ShredRanges): Promise<void> {
    const db = this.db as StringLevel & Partial<Compactable>;
    if (typeof db.compactRange !== 'function') return;
    const index = revisionRange(shred.stream);
    await db.compactRange(index.gte, index.lte);
    if (shred.events) await db.compactRange(shred.events.gte, shred.events.lte);
  }

  /** Compacts again what deletes of an earlier run left (see runDelete), then forgets it. */
  private async finishShredding(): Promise<void> {
    const pending = await this.db.iterator(shredRange).all();
    for (const [key, value] of pending) {
      await this.compact(JSON.parse(value) as ShredRanges);
      await this.db.del(key, this.writeOptions);
    }
  }

  /** Events with from <= position <= to, of one stream or of all. */
  private async *readRange(
    stream: string | undefined,
    from: number,
    to: number,
  ): AsyncIterable<RecordedEvent> {
    if (stream === undefined) {
      yield* this.decodeEntries(this.db.iterator(eventRange(from, to)));
      return;
    }
    const head = await this.streamHead(stream);
    if (head.deleted) throw new StreamDeletedError(stream);
    // The stream index holds revisions, not positions: skip the revisions before `from`.
    for await (const event of this.eventsOfIndex(this.db.iterator(revisionRange(stream)))) {
      if (event.position > to) return;
      if (event.position >= from) yield event;
    }
  }

  private async *decodeEntries(iterator: StringIterator): AsyncIterable<RecordedEvent> {
    try {
      for (;;) {
        const entries = await iterator.nextv(READ_CHUNK);
        if (entries.length === 0) return;
        for (const [key, value] of entries) yield decodeEvent(positionOfEventKey(key), value);
      }
    } finally {
      await iterator.close();
    }
  }

  /** Follows a stream index iterator (revision key -> position) to the events. */
  private async *eventsOfIndex(iterator: StringIterator): AsyncIterable<RecordedEvent> {
    try {
      for (;;) {
        const entries = await iterator.nextv(READ_CHUNK);
        if (entries.length === 0) return;
        const keys = entries.map(([, value]) => eventKey(parsePositionValue(value)));
        const values = await this.db.getMany(keys);
        for (let i = 0; i < keys.length; i++) {
          const value = values[i];
          // Absent only when the stream is being deleted under the reader: the delete wins.
          if (value !== undefined) yield decodeEvent(positionOfEventKey(keys[i] as string), value);
        }
      }
    } finally {
      await iterator.close();
    }
  }
}

/**
 * The iterator's entries a chunk at a time, the next chunk read (on LevelDB's thread), and given to
 * `load` when there is one, while this one is used; the iterator is closed when the reader is done or
 * stops.
 */
function prefetched(iterator: StringIterator): AsyncIterable<Array<[string, string]>>;
function prefetched<T>(
  iterator: StringIterator,
  load: (entries: Array<[string, string]>) => Promise<T>,
): AsyncIterable<T>;
async function* prefetched<T>(
  iterator: StringIterator,
  load?: (entries: Array<[string, string]>) => Promise<T>,
): AsyncIterable<T | Array<[string, string]>> {
  const read = async () => {
    const entries: Array<[string, string]> = await iterator.nextv(READ_CHUNK);
    if (entries.length === 0) return undefined;
    return { value: load ? await load(entries) : entries };
  };
  let next: ReturnType<typeof read> | undefined = read();
  try {
    for (;;) {
      const chunk = await next;
      next = undefined;
      if (chunk === undefined) return;
      next = read();
      yield chunk.value;
    }
  } finally {
    // A read still in flight must end before the iterator closes.
    await next?.catch(() => undefined);
    await iterator.close();
  }
}
