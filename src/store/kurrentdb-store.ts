import { randomUUID } from 'node:crypto';
import {
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  ANY,
  type AppendStreamRequest,
  BACKWARDS,
  binaryEvent,
  type EventData as ClientEventData,
  END,
  FORWARDS,
  KurrentDBClient,
  type MultiAppendResult,
  NO_STREAM,
  type Position,
  type ReadPosition,
  START,
  streamNameFilter,
} from '@kurrent/kurrentdb-client';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../../streams/system.js';
import {
  InvalidEventError,
  StoreClosedError,
  StoreError,
  StreamDeletedError,
  UnsupportedStoreError,
  WrongExpectedRevisionError,
} from './errors.js';
import { planImport } from './import.js';
import { KurrentLeases, type LeaseStreams } from './kurrentdb-leases.js';
import {
  type AppendFailure,
  classifyAppendError,
  comparePositions,
  decodeEventBody,
  decodeLeaseRecord,
  decodeLogEntry,
  encodeEventBody,
  encodeLeaseRecord,
  encodeLogEntry,
  importedStreamState,
  importSegments,
  isStreamDeleted,
  isStreamNotFound,
  isWrongExpectedVersion,
  type KurrentNames,
  type KurrentUrl,
  kurrentNames,
  LOG_ENTRY,
  type LogEntry,
  lastWhere,
  logState,
  planStreamRead,
  SNAPSHOT_SAVED,
  toStreamState,
} from './kurrentdb-mapping.js';
import { LiveDelivery, type ReadNew } from './live-delivery.js';
import { PolledEventStore } from './queued-store.js';
import type {
  EventStore,
  ExpectedRevision,
  Lease,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  Snapshot,
} from './types.js';
import { assertStreamName, serializeEventBody } from './validate.js';
import type { PendingAppend, PendingDelete, PendingImport } from './write-queue.js';

/** A position-log entry with where it sits in `$all` (known on KurrentDB 22.6 and later). */
interface PlacedEntry extends LogEntry {
  revision: number;
  at: Position | undefined;
}

const READ_PAGE = 1_000;
const RECONNECT_MS = 500;
/** Appends that lose the race for the position log try again; past this many turns something is wrong. */
const MAX_LOG_RETRIES = 1_000;
const ENTRY_CACHE = 10_000;
/**
 * Bodies per multi-stream append of an import: under KurrentDB's default `MaxAppendSize` (1 MiB), with
 * room for the records' own bytes, so `chronicle migrate` works against a server as it comes.
 */
const IMPORT_APPEND_BYTES = 900 * 1024;
/** Records a lease stream keeps: the last one is all that counts. */
const LEASE_STREAM_MAX_COUNT = 16;

/**
 * The event store on KurrentDB (EventStoreDB's successor), shared by any number of chronicle processes.
 *
 * Positions. The port wants global positions from 1, dense, in append order; `$all` commit positions are
 * sparse byte offsets, shared with everything else in the database. So positions are ours, and a
 * *position log* stream (`<ns>~log`) is where they are handed out: every append is one atomic
 * multi-stream append (KurrentDB 25.1+) of the events to their stream plus one entry `{first, last}` to
 * the position log, the latter with the log's expected revision. The events carry their position in
 * their stored bytes. Two appends expecting the same log revision cannot both commit, so the entries, and
 * with them the positions, are dense and in commit order, and since a multi-stream append commits as one
 * transaction, the order of `$all` is the order of our positions (across all processes: the server is
 * the referee, not a lock of ours). Reads by position scan `$all`, filtered on the namespace, from the
 * `$all` place of the log entry before the wanted position (found by a binary search of the log:
 * O(log n) point reads); a stream read uses the stream itself.
 *
 * The trade-off: every append of every process takes its turn on that one log stream, one round trip
 * each, and an append that lost the race re-reads the log's head and tries again. Appends are therefore
 * not grouped (one chronicle append per KurrentDB transaction, so the order of a transaction's records
 * never matters), and write throughput is bounded by the server's round trip and by contention, where
 * `$all` alone would scale further but give no dense positions. Reading, catch-up and live delivery
 * stay as fast as KurrentDB reads `$all`.
 *
 * Live delivery: like the PostgreSQL adapter, each process publishes the log to its subscribers in
 * order by reading `$all` after the last place it has read (live-delivery.ts; subscription.ts does
 * catch-up and the per-subscriber queues). What makes it read: its own commits (published without a
 * read), a filtered `$all` subscription to the position log (system events excluded by the filter;
 * resubscribed after a drop), and a read of the log's head every second as the net under a lost
 * subscription.
 *
 * Deletion: `StreamDeleted` is recorded in `<ns>:$streams` through the position log first (so every
 * append of any process after it knows: appends check the deleted streams they have read up to the log
 * revision they expect, and a stale process loses the log race and re-reads), then the stream is
 * tombstoned, so KurrentDB refuses it for good and a scavenge removes its bytes. Reads skip the streams
 * `<ns>:$streams` names, also before the scavenge.
 *
 * Import (`chronicle migrate`): events go in as they are, through the same position log, at the next
 * positions. KurrentDB 25.1 writes a multi-stream append stream by stream, so one append keeps the
 * order of a batch only while each stream's events in it are consecutive: a batch takes as many appends
 * as that and the server's default append limit need (importSegments), each atomic with its log entry
 * and with every stream's expected revision. One `importEvents` call is atomic when it fits one append;
 * otherwise a failure between its appends leaves the first ones written (migrate then reports a partial
 * copy). What is refused (a revision that does not follow, a deleted stream) is refused by planImport
 * before anything is written, as on the other adapters. (KurrentDB 26.1's `appendRecords` keeps any
 * order in one append; using it would make every call atomic on servers that have it.)
 *
 * Leases (`tryLease`): KurrentDB has no session locks, so a lease is a stream (`<ns>~lease-<name>`) whose
 * last record says who holds it until when, written with optimistic concurrency and renewed every
 * third of its TTL (kurrentdb-leases.ts). Unlike PostgreSQL, where the server frees a dead holder's lock
 * with its session at once, *a holder that dies frees its lease only when its TTL (15 s, plus 2 s for
 * disagreeing clocks) has run out*; closing the store releases its leases at once. The clocks of the
 * processes sharing a log must agree to within that allowance.
 */
export class KurrentEventStore extends PolledEventStore implements EventStore {
  private readonly client: KurrentDBClient;
  private readonly names: KurrentNames;
  private readonly systemStream: string;
  /** Revision of the position log and the last position, as this process last knew them. */
  private logRevision = -1;
  private head = 0;
  /** False after another process won the log or an append failed in an unknown way: re-read first. */
  private logKnown = false;
  protected readonly delivery: LiveDelivery;
  /** Where in `$all` the publisher reads on from: a record of this log, or the start. */
  private cursor: ReadPosition = START;
  /** Streams `<ns>:$streams` says are deleted, read up to `deletedRevision`. */
  private readonly deleted = new Set<string>();
  private deletedRevision = -1;
  private deletedRead: Promise<void> = Promise.resolve();
  private readonly entries = new Map<number, PlacedEntry>();
  private readonly snapshotStreams = new Set<string>();
  /** `$all` filter for this log's event streams; KurrentDB's `$` streams never match it. */
  private readonly filter: ReturnType<typeof streamNameFilter>;
  private feed: AllStreamSubscription | undefined;
  private feedFrom: ReadPosition = END;
  private readonly leases: KurrentLeases;

  private constructor(options: KurrentUrl) {
    // A failed write is cleared by the next write it takes (failed-state.ts). One write at a time,
    // never grouped: each append is its own multi-stream append on the position log.
    super(options.location, 'next-write', false);
    this.names = kurrentNames(options.namespace);
    this.systemStream = this.names.events(SYSTEM_STREAM);
    this.filter = streamNameFilter({ prefixes: [this.names.eventPrefix] });
    this.client = KurrentDBClient.connectionString(options.connectionString);
    this.delivery = new LiveDelivery((stream, from, to) => this.readRange(stream, from, to), this.readNew);
    this.leases = new KurrentLeases(this.leaseStreams(), (name) => this.names.lease(name));
  }

  static async open(options: KurrentUrl): Promise<KurrentEventStore> {
    const store = new KurrentEventStore(options);
    try {
      const top = await store.syncLog();
      // Subscribers start from the head of the moment of opening, like the other adapters'.
      store.delivery.startAt(store.head);
      if (top?.at !== undefined) {
        store.cursor = top.at;
        store.feedFrom = top.at;
      }
      store.startFeed();
      store.startPolling();
      return store;
    } catch (error) {
      await store.client.dispose().catch(() => undefined);
      throw error;
    }
  }

  protected async readHead(): Promise<number> {
    return (await this.readLogTop())?.last ?? 0;
  }

  /** A lease stream per name, with optimistic concurrency: see kurrentdb-leases.ts. */
  async tryLease(name: string): Promise<Lease | undefined> {
    if (this.closed) throw new StoreClosedError();
    return this.leases.take(name);
  }

  async streamRevision(stream: string): Promise<number | undefined> {
    assertStreamName(stream);
    return this.lastRevision(stream);
  }

  async *readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    assertStreamName(stream);
    if (this.deleted.has(stream)) throw new StreamDeletedError(stream);
    const plan = planStreamRead(options);
    if (plan === undefined) {
      // Nothing to read, but a deleted stream still says so.
      await this.lastRevision(stream);
      return;
    }
    let from = plan.from;
    if (plan.clampToLast && typeof from === 'number') {
      const last = await this.lastRevision(stream);
      if (last === undefined) return;
      from = Math.min(from, last);
    }
    yield* this.streamEvents(stream, {
      direction: plan.direction === 'backwards' ? BACKWARDS : FORWARDS,
      fromRevision: from === 'start' ? START : from === 'end' ? END : BigInt(from),
      maxCount: plan.maxCount,
    });
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    const to = await this.readHead();
    const from = Math.max(1, options.from ?? 1);
    let left = options.maxCount ?? Number.POSITIVE_INFINITY;
    if (!(left > 0) || from > to) return;
    for await (const event of this.scan(await this.allStartFor(from), from, to)) {
      yield event;
      if (--left <= 0) return;
    }
  }

  async loadSnapshot<State>(name: string): Promise<Snapshot<State> | undefined> {
    try {
      for await (const resolved of this.client.readStream(this.names.snapshot(name), {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        const data = resolved.event?.data;
        if (data instanceof Uint8Array)
          return JSON.parse(Buffer.from(data).toString('utf8')) as Snapshot<State>;
        if (data !== undefined) return data as unknown as Snapshot<State>;
      }
    } catch (error) {
      if (isStreamNotFound(error) || isStreamDeleted(error)) return undefined;
      throw error;
    }
    return undefined;
  }

  /** A stream per snapshot name whose `$maxCount` is 1: KurrentDB keeps only the last one. */
  async saveSnapshot<State>(snapshot: Snapshot<State>): Promise<void> {
    const stream = this.names.snapshot(snapshot.name);
    await this.client.appendToStream(
      stream,
      binaryEvent({ type: SNAPSHOT_SAVED, data: Buffer.from(JSON.stringify(snapshot)) }),
    );
    if (!this.snapshotStreams.has(stream)) {
      await this.client.setStreamMetadata(stream, { maxCount: 1 });
      this.snapshotStreams.add(stream);
    }
  }

  async deleteSnapshot(name: string): Promise<void> {
    try {
      // Soft delete: the name can be saved again.
      await this.client.deleteStream(this.names.snapshot(name));
    } catch (error) {
      if (!isStreamNotFound(error) && !isStreamDeleted(error)) throw error;
    }
  }

  protected async release(): Promise<void> {
    // Released, so that other processes need not wait for their expiry.
    await this.leases.endAll();
    await this.delivery.settled();
    const feed = this.feed;
    this.feed = undefined;
    await feed?.unsubscribe().catch(() => undefined);
    this.delivery.close();
    await this.client.dispose().catch(() => undefined);
  }

  // ----------------------------------------------------------------------------------------------
  // The position log
  // ----------------------------------------------------------------------------------------------

  private async readEntry(revision: number): Promise<PlacedEntry> {
    const cached = this.entries.get(revision);
    if (cached !== undefined) return cached;
    for await (const resolved of this.client.readStream(this.names.log, {
      fromRevision: BigInt(revision),
      maxCount: 1,
    })) {
      const event = resolved.event;
      if (event === undefined || Number(event.revision) !== revision) break;
      const entry: PlacedEntry = { ...decodeLogEntry(event.data), revision, at: event.position };
      // Entries never change: a bounded cache spares binary searches their point reads.
      if (this.entries.size >= ENTRY_CACHE) this.entries.clear();
      this.entries.set(revision, entry);
      return entry;
    }
    throw new StoreError('log_damaged', `the position log ${this.names.log} has no entry ${revision}`);
  }

  /** The position log's last entry, or undefined for an empty log. */
  private async readLogTop(): Promise<PlacedEntry | undefined> {
    try {
      for await (const resolved of this.client.readStream(this.names.log, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        const event = resolved.event;
        if (event === undefined) continue;
        return { ...decodeLogEntry(event.data), revision: Number(event.revision), at: event.position };
      }
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
    }
    return undefined;
  }

  /**
   * Re-reads the log's head, then the deleted streams: what this process knows is then at least as new as
   * the log revision its next append expects (see the class comment on deletion).
   */
  private async syncLog(): Promise<PlacedEntry | undefined> {
    const top = await this.readLogTop();
    this.logRevision = top?.revision ?? -1;
    this.head = top?.last ?? 0;
    await this.refreshDeleted();
    this.logKnown = true;
    return top;
  }

  /** Where to start reading `$all` to find position `from`: the place of the entry before its entry. */
  private async allStartFor(from: number): Promise<ReadPosition> {
    if (from <= 1) return START;
    const top = await this.readLogTop();
    if (top === undefined) return START;
    const holding = await lastWhere(0, top.revision, async (i) => (await this.readEntry(i)).first <= from);
    // The entry before is committed before every record of the append holding `from`, whatever the
    // order of records inside that append's transaction.
    if (holding <= 0) return START;
    return (await this.readEntry(holding - 1)).at ?? START;
  }

  // ----------------------------------------------------------------------------------------------
  // Deleted streams
  // ----------------------------------------------------------------------------------------------

  private refreshDeleted(): Promise<void> {
    const run = this.deletedRead.then(() => this.readDeleted());
    this.deletedRead = run.catch(() => undefined);
    return run;
  }

  private async readDeleted(): Promise<void> {
    try {
      for await (const resolved of this.client.readStream(this.systemStream, {
        fromRevision: BigInt(this.deletedRevision + 1),
      })) {
        const event = resolved.event;
        if (event === undefined || event.type.startsWith('$')) continue;
        const recorded = decodeEventBody(SYSTEM_STREAM, Number(event.revision), event.data);
        if (recorded.type === STREAM_DELETED) this.deleted.add((recorded.data as StreamDeletedData).stream);
        this.deletedRevision = recorded.revision;
      }
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Reads
  // ----------------------------------------------------------------------------------------------

  /** Our event from a `$all` or stream record; undefined for KurrentDB's own records (`$`-typed). */
  private toRecorded(resolved: {
    event?: { type: string; streamId: string; revision: bigint; data: unknown };
  }): RecordedEvent | undefined {
    const event = resolved.event;
    if (event === undefined || event.type.startsWith('$')) return undefined;
    const stream = this.names.streamOf(event.streamId);
    if (stream === undefined) return undefined;
    return decodeEventBody(stream, Number(event.revision), event.data);
  }

  /** The stream's last revision, undefined when it has none; throws when it is deleted. */
  private async lastRevision(stream: string): Promise<number | undefined> {
    if (this.deleted.has(stream)) throw new StreamDeletedError(stream);
    try {
      for await (const resolved of this.client.readStream(this.names.events(stream), {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        if (resolved.event !== undefined) return Number(resolved.event.revision);
      }
    } catch (error) {
      if (isStreamNotFound(error)) return undefined;
      if (isStreamDeleted(error)) throw new StreamDeletedError(stream);
      throw error;
    }
    return undefined;
  }

  private async *streamEvents(
    stream: string,
    options: Parameters<KurrentDBClient['readStream']>[1],
  ): AsyncIterable<RecordedEvent> {
    try {
      for await (const resolved of this.client.readStream(this.names.events(stream), options)) {
        const event = this.toRecorded(resolved);
        if (event !== undefined) yield event;
      }
    } catch (error) {
      if (isStreamNotFound(error)) return;
      if (isStreamDeleted(error)) throw new StreamDeletedError(stream);
      throw error;
    }
  }

  /** Events with from <= position <= to, in order, from `$all` read on from `start`; deleted streams skipped. */
  /**
   * This log's records in `$all` from `start` (inclusive) to its end as it is when reached. A read that
   * ends is followed by another from its last record until one brings nothing new, so an early end of a
   * filtered read (a server search window) cannot pass for the end of the log.
   */
  private async *tail(start: ReadPosition): AsyncIterable<AllStreamResolvedEvent> {
    let from = start;
    let last: Position | undefined;
    for (;;) {
      let fresh = 0;
      for await (const resolved of this.client.readAll({ fromPosition: from, filter: this.filter })) {
        const at = resolved.event?.position;
        if (at === undefined || (last !== undefined && comparePositions(at, last) <= 0)) continue;
        last = at;
        fresh++;
        yield resolved;
      }
      if (fresh === 0 || last === undefined) return;
      from = last;
    }
  }

  /** Events with from <= position <= to, in order, from `$all` read on from `start`; deleted streams skipped. */
  private async *scan(start: ReadPosition, from: number, to: number): AsyncIterable<RecordedEvent> {
    await this.refreshDeleted();
    for await (const resolved of this.tail(start)) {
      const event = this.toRecorded(resolved);
      if (event === undefined) continue;
      // `$all` order is position order (see the class comment): past `to`, nothing more is wanted.
      if (event.position > to) return;
      if (event.position < from || this.deleted.has(event.stream)) continue;
      yield event;
    }
  }

  private async *readRange(
    stream: string | undefined,
    from: number,
    to: number,
  ): AsyncIterable<RecordedEvent> {
    if (stream === undefined) {
      yield* this.scan(await this.allStartFor(from), from, to);
      return;
    }
    const last = await this.lastRevision(stream);
    if (last === undefined) return;
    // Positions grow with revisions: the first revision at or after `from`, by binary search.
    const before = await lastWhere(0, last, async (revision) => {
      for await (const event of this.streamEvents(stream, { fromRevision: BigInt(revision), maxCount: 1 }))
        return event.position < from;
      return false;
    });
    for await (const event of this.streamEvents(stream, { fromRevision: BigInt(before + 1) })) {
      if (event.position > to) return;
      yield event;
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Live delivery
  // ----------------------------------------------------------------------------------------------

  /**
   * The read step of live delivery (live-delivery.ts): `$all` read on from the cursor, this log's
   * events published a page at a time.
   */
  private readonly readNew: ReadNew = async (published, target, publish) => {
    await this.refreshDeleted();
    let events: RecordedEvent[] = [];
    let last = published;
    for await (const resolved of this.tail(this.cursor)) {
      this.cursor = (resolved.event as { position: Position }).position;
      const event = this.toRecorded(resolved);
      if (event === undefined || event.position <= last) continue;
      last = event.position;
      if (!this.deleted.has(event.stream)) events.push(event);
      if (events.length >= READ_PAGE) {
        publish(events, last);
        events = [];
      }
    }
    // The tail reached the end of `$all` as it was after `target` was committed: positions up to it that
    // were not there belong to deleted streams.
    publish(events, Math.max(target, last));
  };

  /**
   * A position-log entry arrived through the subscription. Entries this process has published already
   * (its own appends) move the read cursor up to them, so the next read does not walk over its own events.
   */
  private notice(entry: LogEntry, at: Position | undefined): void {
    this.delivery
      .advanceOr(entry.last, () => {
        if (
          at !== undefined &&
          (this.cursor === START || this.cursor === END || comparePositions(this.cursor, at) < 0)
        )
          this.cursor = at;
      })
      .catch(() => undefined);
  }

  private startFeed(): void {
    if (this.closed) return;
    const feed = this.client.subscribeToAll({
      fromPosition: this.feedFrom,
      // Only the position log: its names start with the namespace, so KurrentDB's system events never pass.
      filter: streamNameFilter({ prefixes: [this.names.log] }),
    });
    feed.on('data', (resolved: AllStreamResolvedEvent) => {
      const event = resolved.event;
      if (event === undefined || event.streamId !== this.names.log || event.type !== LOG_ENTRY) return;
      this.feedFrom = event.position;
      try {
        this.notice(decodeLogEntry(event.data), event.position);
      } catch {
        // A damaged entry is for a reader of the log to report; the poll keeps delivery going.
      }
    });
    const dropped = () => this.refeed(feed);
    feed.on('error', dropped);
    feed.on('end', dropped);
    feed.on('close', dropped);
    this.feed = feed;
  }

  /** The subscription dropped: subscribe again from the last entry seen, and poll for what was missed. */
  private refeed(broken: AllStreamSubscription): void {
    if (this.closed || this.feed !== broken) return;
    this.feed = undefined;
    broken.unsubscribe().catch(() => undefined);
    setTimeout(() => {
      this.startFeed();
      this.poll();
    }, RECONNECT_MS).unref();
  }

  // ----------------------------------------------------------------------------------------------
  // Writes
  // ----------------------------------------------------------------------------------------------

  /**
   * Commits the writes `build` makes for the positions from `first` on (`count` of them) together with
   * their entry on the position log, in one multi-stream append. Retries, building again, when another
   * process took the log first (undefined instead when `retry` is false); a failure the caller can name
   * is thrown as `refuse` makes it, any other as it came.
   */
  private async commitWithPositions(
    count: number,
    build: (first: number) => AppendStreamRequest[],
    refuse: (failure: Exclude<AppendFailure, { kind: 'log_conflict' | 'other' }>, error: unknown) => unknown,
    retry = true,
  ): Promise<{ first: number; result: MultiAppendResult } | undefined> {
    for (let attempt = 0; ; attempt++) {
      if (!this.logKnown) await this.syncLog();
      const first = this.head + 1;
      const last = first + count - 1;
      const writes = build(first);
      try {
        const result = await this.client.multiStreamAppend([
          ...writes,
          {
            streamName: this.names.log,
            expectedState: logState(this.logRevision),
            events: [
              binaryEvent({ type: LOG_ENTRY, data: encodeLogEntry({ first, last }) }) as ClientEventData,
            ],
          },
        ]);
        // The log was at logRevision (checked by the server) and got one entry.
        this.logRevision += 1;
        this.head = last;
        return { first, result };
      } catch (error) {
        const failure = classifyAppendError(error, this.names.log);
        if (failure.kind === 'log_conflict') {
          this.logKnown = false;
          if (!retry) return undefined;
          if (attempt >= MAX_LOG_RETRIES)
            throw new StoreError(
              'log_contention',
              `gave up taking positions on ${this.names.log} after ${attempt} tries`,
            );
          // Past a few lost races, step back a little so that competing processes spread out.
          if (attempt >= 3)
            await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt * 2)));
          continue;
        }
        if (failure.kind === 'other') {
          // The append may or may not have committed: learn the log's state again before the next one.
          this.logKnown = false;
          throw failure.error;
        }
        throw refuse(failure, error);
      }
    }
  }

  /** Our error for a refused append whose stream conflict `conflict` describes. */
  private refusal(
    failure: Exclude<AppendFailure, { kind: 'log_conflict' | 'other' }>,
    conflict: (actual: number | undefined) => StoreError,
    stream: string,
  ): StoreError {
    switch (failure.kind) {
      case 'conflict':
        return conflict(failure.actual);
      case 'deleted':
        return new StreamDeletedError(stream);
      case 'too_large':
        return new InvalidEventError(
          `the append is larger than the KurrentDB server accepts (${failure.message}); raise the server's MaxAppendSize`,
        );
      case 'unsupported':
        return new UnsupportedStoreError(
          `the KurrentDB adapter needs multi-stream appends (KurrentDB 25.1 or later): ${failure.message}`,
        );
    }
  }

  /**
   * Appends `bodies` to `stream` and takes their positions on the position log, in one transaction.
   * Retries when another process took the log first; any other failure is thrown as our error.
   */
  private async appendWithPositions(
    stream: string,
    expected: ExpectedRevision,
    types: readonly string[],
    bodies: readonly string[],
    retry: false,
  ): Promise<{ events: RecordedEvent[]; nextRevision: number } | undefined>;
  private async appendWithPositions(
    stream: string,
    expected: ExpectedRevision,
    types: readonly string[],
    bodies: readonly string[],
    retry?: true,
  ): Promise<{ events: RecordedEvent[]; nextRevision: number }>;
  private async appendWithPositions(
    stream: string,
    expected: ExpectedRevision,
    types: readonly string[],
    bodies: readonly string[],
    retry = true,
  ): Promise<{ events: RecordedEvent[]; nextRevision: number } | undefined> {
    const physical = this.names.events(stream);
    let stored: Buffer[] = [];
    const committed = await this.commitWithPositions(
      bodies.length,
      (first) => {
        if (this.deleted.has(stream)) throw new StreamDeletedError(stream);
        stored = bodies.map((body, i) => encodeEventBody(first + i, body));
        const records = stored.map(
          (data, i) => binaryEvent({ id: randomUUID(), type: types[i] as string, data }) as ClientEventData,
        );
        return [{ streamName: physical, expectedState: toStreamState(expected), events: records }];
      },
      (failure) =>
        this.refusal(failure, (actual) => new WrongExpectedRevisionError(stream, expected, actual), stream),
      retry,
    );
    if (committed === undefined) return undefined;
    // An exact expectation says where the append ended; otherwise the server's answer does (the
    // revision of the stream's last record, as v1 appends answer it).
    const n = stored.length;
    const written = committed.result.responses.find((r) => r.streamName === physical)?.revision;
    const end =
      typeof expected === 'number'
        ? expected + n
        : expected === 'no_stream'
          ? n - 1
          : written !== undefined
            ? Number(written)
            : ((await this.lastRevision(stream)) ?? n - 1);
    const events = stored.map((data, i) => decodeEventBody(stream, end - n + 1 + i, data));
    return { events, nextRevision: end + 1 };
  }

  /**
   * See `EventStore.importEvents`. planImport checks the whole call first (as on the other adapters),
   * then the events go in as few multi-stream appends as keep their order (importSegments), each with
   * its position-log entry and each stream's expected revision (the one before its first event), so a
   * concurrent append to an imported stream fails the import instead of interleaving. A `StreamDeleted`
   * tombstones the stream it names once its append has committed, as deleteStream does. A call that
   * needs several appends is not atomic as a whole: a failure between them leaves the first ones
   * written (migrate reports a partial copy); one that fits one append is.
   */
  protected async runImport(task: PendingImport): Promise<void> {
    const recorded: RecordedEvent[] = [];
    try {
      if (!this.logKnown) await this.syncLog();
      else await this.refreshDeleted();
      await planImport(task.events, (stream) => this.importHead(stream));
      const bodies = task.events.map((event) =>
        JSON.stringify({ t: event.type, d: event.data ?? null, m: event.metadata }),
      );
      const sized = task.events.map((event, i) => ({
        stream: event.stream,
        bytes: Buffer.byteLength(bodies[i] as string),
      }));
      for (const groups of importSegments(sized, IMPORT_APPEND_BYTES)) {
        const start = (groups[0] as { start: number }).start;
        const end = (groups.at(-1) as { end: number }).end;
        let stored: Buffer[] = [];
        await this.commitWithPositions(
          end - start,
          (first) => {
            stored = bodies.slice(start, end).map((body, i) => encodeEventBody(first + i, body as string));
            return groups.map((group) => ({
              streamName: this.names.events(group.stream),
              expectedState: importedStreamState((task.events[group.start] as RecordedEvent).revision),
              events: stored.slice(group.start - start, group.end - start).map(
                (data, i) =>
                  binaryEvent({
                    id: randomUUID(),
                    type: (task.events[group.start + i] as RecordedEvent).type,
                    data,
                  }) as ClientEventData,
              ),
            }));
          },
          (failure, error) => {
            const physical = (error as { streamName?: unknown } | undefined)?.streamName;
            const stream =
              (typeof physical === 'string' ? this.names.streamOf(physical) : undefined) ?? 'a stream';
            return this.refusal(
              failure,
              (actual) =>
                new InvalidEventError(
                  `import: "${stream}" changed while it was imported (now at ${actual ?? 'no revision'}); another process appends to this log`,
                ),
              stream,
            );
          },
        );
        const segment = task.events.slice(start, end);
        const written = stored.map((data, i) => {
          const event = segment[i] as RecordedEvent;
          return decodeEventBody(event.stream, event.revision, data);
        });
        recorded.push(...written);
        for (const event of written) {
          if (event.stream !== SYSTEM_STREAM || event.type !== STREAM_DELETED) continue;
          const gone = (event.data as StreamDeletedData).stream;
          this.deleted.add(gone);
          await this.tombstone(gone);
        }
      }
    } catch (error) {
      await this.publishImported(recorded);
      task.reject(error);
      return;
    }
    await this.publishImported(recorded);
    task.resolve();
  }

  private async publishImported(recorded: readonly RecordedEvent[]): Promise<void> {
    const last = recorded.at(-1);
    if (last !== undefined) await this.delivery.advanceTo(last.position, recorded).catch(() => undefined);
  }

  /** A stream's head as planImport wants it: its last revision (-1 for none), or deleted. */
  private async importHead(stream: string): Promise<{ revision: number; deleted: boolean }> {
    try {
      return { revision: (await this.lastRevision(stream)) ?? -1, deleted: false };
    } catch (error) {
      if (error instanceof StreamDeletedError) return { revision: -1, deleted: true };
      throw error;
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Leases
  // ----------------------------------------------------------------------------------------------

  private leaseStreams(): LeaseStreams {
    return {
      last: async (stream) => {
        try {
          for await (const resolved of this.client.readStream(stream, {
            direction: BACKWARDS,
            fromRevision: END,
            maxCount: 1,
          })) {
            const event = resolved.event;
            if (event === undefined) continue;
            return { revision: Number(event.revision), record: decodeLeaseRecord(event.type, event.data) };
          }
        } catch (error) {
          if (!isStreamNotFound(error)) throw error;
        }
        return undefined;
      },
      append: async (stream, record, expected) => {
        const { type, data } = encodeLeaseRecord(record);
        try {
          await this.client.appendToStream(stream, binaryEvent({ type, data }), {
            streamState: logState(expected),
          });
          return true;
        } catch (error) {
          if (isWrongExpectedVersion(error)) return false;
          throw error;
        }
      },
      created: async (stream) => {
        await this.client.setStreamMetadata(stream, { maxCount: LEASE_STREAM_MAX_COUNT });
      },
    };
  }

  /** Never more than one: the queue does not group (see the constructor). */
  protected async commitAppends(batch: PendingAppend[]): Promise<void> {
    for (const task of batch) await this.runAppend(task);
  }

  private async runAppend(task: PendingAppend): Promise<void> {
    let written: { events: RecordedEvent[]; nextRevision: number };
    try {
      written = await this.appendWithPositions(task.stream, task.expected, task.types, task.bodies);
    } catch (error) {
      task.reject(error);
      return;
    }
    const last = written.events.at(-1) as RecordedEvent;
    await this.delivery.advanceTo(last.position, written.events).catch(() => undefined);
    task.resolve({ nextRevision: written.nextRevision, position: last.position });
  }

  /** Records `StreamDeleted` (taking a position), then tombstones the stream: see the class comment. */
  protected async runDelete(task: PendingDelete): Promise<void> {
    let event: RecordedEvent;
    try {
      if (this.deleted.has(task.stream)) {
        // Deleted before; a crash may have come between the record and the tombstone, so tombstone again.
        await this.tombstone(task.stream).catch(() => undefined);
        throw new StreamDeletedError(task.stream);
      }
      for (;;) {
        if (!this.logKnown) await this.syncLog();
        if (this.deleted.has(task.stream)) throw new StreamDeletedError(task.stream);
        const lastRevision = (await this.lastRevision(task.stream)) ?? -1;
        const data: StreamDeletedData = { stream: task.stream, lastRevision };
        const body = serializeEventBody({ type: STREAM_DELETED, data }, new Date().toISOString());
        // One try at the log revision known before reading lastRevision: when it commits, no append of
        // any process came in between, so lastRevision is exact. Losing the log race reads both again.
        const written = await this.appendWithPositions(SYSTEM_STREAM, 'any', [STREAM_DELETED], [body], false);
        if (written === undefined) continue;
        event = written.events[0] as RecordedEvent;
        this.deleted.add(task.stream);
        break;
      }
      await this.tombstone(task.stream);
    } catch (error) {
      task.reject(error);
      return;
    }
    await this.delivery.advanceTo(event.position, [event]).catch(() => undefined);
    task.resolve();
  }

  private async tombstone(stream: string): Promise<void> {
    try {
      await this.client.tombstoneStream(this.names.events(stream), { expectedRevision: ANY });
    } catch (error) {
      if (isStreamDeleted(error)) return;
      // Tombstoning a stream that never had events: KurrentDB may want NO_STREAM.
      if (isWrongExpectedVersion(error)) {
        await this.client.tombstoneStream(this.names.events(stream), { expectedRevision: NO_STREAM });
        return;
      }
      throw error;
    }
  }
}
