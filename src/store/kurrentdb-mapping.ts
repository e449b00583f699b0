import {
  ANY,
  type AppendStreamState,
  type CurrentStreamState,
  ErrorType,
  NO_STREAM,
  STREAM_EXISTS,
} from '@kurrent/kurrentdb-client';
import { UnsupportedStoreError } from './errors.js';
import type { ExpectedRevision, ReadStreamOptions, RecordedEvent } from './types.js';

/**
 * The pure half of the KurrentDB adapter (kurrentdb-store.ts): store URLs, stream names, the stored
 * bytes of events and of position-log entries, expected revisions and client errors. Nothing here talks
 * to a server, so all of it is unit-tested (test/store/kurrentdb-mapping.test.ts).
 */

// ------------------------------------------------------------------------------------------------
// Store URLs
// ------------------------------------------------------------------------------------------------

/** Our schemes and the client's: `esdb` is the client's deprecated spelling (it warns on stderr). */
const SCHEMES: Readonly<Record<string, string>> = {
  kurrentdb: 'kurrentdb',
  'kurrentdb+discover': 'kurrentdb+discover',
  kurrent: 'kurrentdb',
  'kurrent+discover': 'kurrentdb+discover',
  kdb: 'kurrentdb',
  'kdb+discover': 'kurrentdb+discover',
  esdb: 'kurrentdb',
  'esdb+discover': 'kurrentdb+discover',
};

export const isKurrentScheme = (scheme: string) => Object.hasOwn(SCHEMES, scheme.toLowerCase());

export const DEFAULT_NAMESPACE = 'chronicle';
const NAMESPACE = /^[a-z_][a-z0-9_]{0,39}$/;

export interface KurrentUrl {
  /** What the client gets: our parameters removed, `esdb` spelled `kurrentdb`, the rest as given. */
  connectionString: string;
  /** Prefix of every stream of this log (`?namespace=`), so that several logs share one database. */
  namespace: string;
  /** What `location` says: an openable URL without the password. */
  location: string;
}

/**
 * Splits a `kurrentdb://` / `esdb://` store URL. Hand-parsed rather than with `URL`: a cluster URL lists
 * several hosts (`kurrentdb://a:2113,b:2113,c:2113?tls=false`), which WHATWG URL parsing rejects.
 * `?namespace=` is ours; every other parameter (`tls`, `tlsVerifyCert`, `nodePreference`, ...) passes
 * through to the client untouched.
 */
export function parseKurrentUrl(url: string): KurrentUrl {
  const match = /^([a-z][a-z+]*):\/\/([^?#]*)(?:\?([^#]*))?$/i.exec(url.trim());
  const given = match?.[1]?.toLowerCase() ?? '';
  const scheme = isKurrentScheme(given) ? SCHEMES[given] : undefined;
  if (match === null || scheme === undefined)
    throw new UnsupportedStoreError(
      `${JSON.stringify(url)} is not a KurrentDB store URL: expected kurrentdb://host:2113[,host2:2113...][?tls=false&namespace=NAME] (esdb:// also works)`,
    );
  const authority = match[2] as string;
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host === '' || host.startsWith(',') || host.startsWith(':'))
    throw new UnsupportedStoreError(`the store URL ${JSON.stringify(url)} names no KurrentDB host`);
  const params = new URLSearchParams(match[3] ?? '');
  const namespace = params.get('namespace') ?? DEFAULT_NAMESPACE;
  if (!NAMESPACE.test(namespace))
    throw new UnsupportedStoreError(
      `namespace ${JSON.stringify(namespace)} in the store URL: lower-case letters, digits and _ only, starting with a letter or _, at most 40`,
    );
  params.delete('namespace');
  const query = params.toString();
  const connectionString = `${scheme}://${authority}${query === '' ? '' : `?${query}`}`;
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at);
  const colon = userinfo.indexOf(':');
  const shownUser = colon === -1 ? userinfo : `${userinfo.slice(0, colon)}:***`;
  params.set('namespace', namespace);
  const location = `${scheme}://${at === -1 ? '' : `${shownUser}@`}${host}?${params.toString()}`;
  return { connectionString, namespace, location };
}

// ------------------------------------------------------------------------------------------------
// Stream names
// ------------------------------------------------------------------------------------------------

/**
 * Where one log's streams live in KurrentDB. Every name starts with the namespace, so KurrentDB's own
 * `$` streams (reserved: system streams) never mix with ours, and our `$streams` system stream becomes
 * `<ns>:$streams`, an ordinary stream there. Our stream names never start with `$` (validate.ts), so
 * `<ns>:` + name is one-to-one, and the position log, the snapshots and the leases, behind `~`, cannot
 * collide with it (nor with each other: `~log`, `~snapshot:`, `~lease-`).
 */
export interface KurrentNames {
  /** Prefix of every event stream of the log: the filter of `$all` reads and subscriptions. */
  readonly eventPrefix: string;
  /** The position log: one entry per append, see kurrentdb-store.ts. */
  readonly log: string;
  events(stream: string): string;
  snapshot(name: string): string;
  /** The stream of a named lease (`EventStore.tryLease`), see kurrentdb-leases.ts. */
  lease(name: string): string;
  /** Our name of a KurrentDB stream, or undefined when the stream is not one of this log's event streams. */
  streamOf(physical: string): string | undefined;
}

export function kurrentNames(namespace: string): KurrentNames {
  if (!NAMESPACE.test(namespace))
    throw new UnsupportedStoreError(`invalid namespace ${JSON.stringify(namespace)}`);
  const eventPrefix = `${namespace}:`;
  return {
    eventPrefix,
    log: `${namespace}~log`,
    events: (stream) => eventPrefix + stream,
    snapshot: (name) => `${namespace}~snapshot:${name}`,
    lease: (name) => `${namespace}~lease-${name}`,
    streamOf: (physical) =>
      physical.startsWith(eventPrefix) ? physical.slice(eventPrefix.length) : undefined,
  };
}

// ------------------------------------------------------------------------------------------------
// Stored bytes
// ------------------------------------------------------------------------------------------------

/** Event type of position-log entries. */
export const LOG_ENTRY = 'PositionsTaken';
export const SNAPSHOT_SAVED = 'SnapshotSaved';

/**
 * An event's stored bytes: the body validate.ts made (`{"t":..,"d":..,"m":..}`, the bytes that were size
 * checked) with our global position in front. Stored as a binary event, so they are kept byte for byte.
 */
export const encodeEventBody = (position: number, body: string): Buffer =>
  Buffer.from(`{"p":${position},${body.slice(1)}`);

interface StoredBody {
  p: unknown;
  t: unknown;
  d: unknown;
  m: unknown;
}

/** Our event from one KurrentDB record. Throws on bytes that are not ours: a log never loses an event silently. */
export function decodeEventBody(stream: string, revision: number, data: unknown): RecordedEvent {
  const stored = parseStored(data) as StoredBody | null;
  if (
    stored === null ||
    typeof stored !== 'object' ||
    !Number.isSafeInteger(stored.p) ||
    (stored.p as number) < 1 ||
    typeof stored.t !== 'string' ||
    stored.m === null ||
    typeof stored.m !== 'object'
  )
    throw new Error(`event ${revision} of stream ${JSON.stringify(stream)} is not a chronicle event body`);
  return {
    stream,
    revision,
    position: stored.p as number,
    type: stored.t,
    data: stored.d,
    metadata: stored.m as RecordedEvent['metadata'],
  };
}

/** Binary records arrive as bytes; a server that labels them JSON makes the client parse them first. */
function parseStored(data: unknown): unknown {
  if (data instanceof Uint8Array)
    return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  return data;
}

/** One append's range of positions, as the position log holds it. */
export interface LogEntry {
  first: number;
  last: number;
}

export const encodeLogEntry = (entry: LogEntry): Buffer =>
  Buffer.from(`{"f":${entry.first},"l":${entry.last}}`);

export function decodeLogEntry(data: unknown): LogEntry {
  const stored = parseStored(data) as { f?: unknown; l?: unknown } | null;
  const first = stored?.f;
  const last = stored?.l;
  if (
    !Number.isSafeInteger(first) ||
    !Number.isSafeInteger(last) ||
    (first as number) < 1 ||
    (last as number) < (first as number)
  )
    throw new Error(`a position-log entry is damaged: ${JSON.stringify(stored)}`);
  return { first: first as number, last: last as number };
}

// ------------------------------------------------------------------------------------------------
// Expected revisions and stream states
// ------------------------------------------------------------------------------------------------

/** Our expected revision as the client's stream state: a revision means the stream's last event, as ours. */
export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

/** The position log's state for an append that expects it at `revision` (-1: not created yet). */
export const logState = (revision: number): AppendStreamState =>
  revision < 0 ? NO_STREAM : BigInt(revision);

/**
 * The client's "actual" state of a conflicting stream: its last revision, undefined when it has no events,
 * or `deleted` (the v2 protocol reports -5 for a deleted stream and -6 for a tombstoned one).
 */
export function fromCurrentState(state: CurrentStreamState): number | undefined | 'deleted' {
  if (state === NO_STREAM || state === -1n) return undefined;
  if (state < 0n) return 'deleted';
  return Number(state);
}

// ------------------------------------------------------------------------------------------------
// Client errors
// ------------------------------------------------------------------------------------------------

export type AppendFailure =
  | { kind: 'log_conflict' }
  | { kind: 'conflict'; actual: number | undefined }
  | { kind: 'deleted' }
  | { kind: 'too_large'; message: string }
  | { kind: 'unsupported'; message: string }
  | { kind: 'other'; error: unknown };

interface ClientErrorShape {
  type?: unknown;
  streamName?: unknown;
  actualState?: unknown;
  message?: unknown;
}

/** What a failed multi-stream append means for us; `log` is the position log's stream name. */
export function classifyAppendError(error: unknown, log: string): AppendFailure {
  const e = (error ?? {}) as ClientErrorShape;
  switch (e.type) {
    case ErrorType.WRONG_EXPECTED_VERSION: {
      if (e.streamName === log) return { kind: 'log_conflict' };
      const actual = fromCurrentState(e.actualState as CurrentStreamState);
      return actual === 'deleted' ? { kind: 'deleted' } : { kind: 'conflict', actual };
    }
    case ErrorType.STREAM_DELETED:
    case ErrorType.STREAM_TOMBSTONED:
      return { kind: 'deleted' };
    case ErrorType.MAXIMUM_APPEND_SIZE_EXCEEDED:
    case ErrorType.APPEND_RECORD_SIZE_EXCEEDED:
    case ErrorType.TRANSACTION_MAX_SIZE_EXCEEDED:
      return { kind: 'too_large', message: String(e.message) };
    case ErrorType.UNSUPPORTED:
      return { kind: 'unsupported', message: String(e.message) };
    default:
      return { kind: 'other', error };
  }
}

export const isStreamNotFound = (error: unknown) =>
  (error as ClientErrorShape | undefined)?.type === ErrorType.STREAM_NOT_FOUND;
export const isStreamDeleted = (error: unknown) => {
  const type = (error as ClientErrorShape | undefined)?.type;
  return type === ErrorType.STREAM_DELETED || type === ErrorType.STREAM_TOMBSTONED;
};
export const isWrongExpectedVersion = (error: unknown) =>
  (error as ClientErrorShape | undefined)?.type === ErrorType.WRONG_EXPECTED_VERSION;

// ------------------------------------------------------------------------------------------------
// Reads
// ------------------------------------------------------------------------------------------------

/** How one `readStream` call is asked of KurrentDB; undefined when it reads nothing. */
export interface StreamReadPlan {
  direction: 'forwards' | 'backwards';
  from: 'start' | 'end' | number;
  /** Undefined: no limit. */
  maxCount: number | undefined;
  /** A backwards read from a revision past the stream's end starts at its last event, as the port says. */
  clampToLast: boolean;
}

export function planStreamRead(options: ReadStreamOptions = {}): StreamReadPlan | undefined {
  const limit = options.maxCount ?? Number.POSITIVE_INFINITY;
  if (!(limit > 0)) return undefined;
  const maxCount = Number.isFinite(limit) ? Math.floor(limit) : undefined;
  const { from } = options;
  if (options.direction === 'backwards') {
    if (from === undefined || from === 'start' || from === 'end')
      return { direction: 'backwards', from: 'end', maxCount, clampToLast: false };
    if (from < 0) return undefined;
    return { direction: 'backwards', from, maxCount, clampToLast: true };
  }
  // Forwards from the end is the last event alone.
  if (from === 'end') return { direction: 'backwards', from: 'end', maxCount: 1, clampToLast: false };
  if (from === undefined || from === 'start' || from <= 0)
    return { direction: 'forwards', from: 'start', maxCount, clampToLast: false };
  return { direction: 'forwards', from, maxCount, clampToLast: false };
}

/**
 * The largest i in [lo, hi] for which `holds(i)`, where `holds` is true up to some index and false after
 * it; lo - 1 when it holds nowhere. Finds the position-log entry holding a position, and the first
 * revision of a stream at or after a position, in O(log n) point reads.
 */
export async function lastWhere(
  lo: number,
  hi: number,
  holds: (i: number) => Promise<boolean> | boolean,
): Promise<number> {
  let low = lo;
  let high = hi;
  let found = lo - 1;
  while (low <= high) {
    const mid = low + Math.floor((high - low) / 2);
    if (await holds(mid)) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/** Order of two `$all` positions. */
export function comparePositions(
  a: { commit: bigint; prepare: bigint },
  b: { commit: bigint; prepare: bigint },
) {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

// ------------------------------------------------------------------------------------------------
// Imports (chronicle migrate)
// ------------------------------------------------------------------------------------------------

/** One stream's part of a multi-stream append of imported events: `events[start..end)`. */
export interface ImportGroup {
  stream: string;
  start: number;
  end: number;
}

/**
 * Splits a batch of imported events, in position order, into the multi-stream appends that carry it.
 * KurrentDB 25.1 takes each stream's records of one append together (a stream may not come back after
 * another in the same append) and writes the streams in the order asked, so one append keeps the
 * batch's order only while each of its streams' events are consecutive. A segment therefore ends where
 * a stream it already has comes back after another one, or where its bodies would pass `maxBytes` (the
 * server's append limit; one event alone is never split, and may still be refused as too large).
 */
export function importSegments(
  events: readonly { stream: string; bytes: number }[],
  maxBytes: number,
): ImportGroup[][] {
  const segments: ImportGroup[][] = [];
  let groups: ImportGroup[] = [];
  let seen = new Set<string>();
  let bytes = 0;
  events.forEach((event, i) => {
    const current = groups.at(-1);
    const sameStream = current?.stream === event.stream;
    const full = groups.length > 0 && bytes + event.bytes > maxBytes;
    if (full || (!sameStream && seen.has(event.stream))) {
      segments.push(groups);
      groups = [];
      seen = new Set();
      bytes = 0;
    }
    const last = groups.at(-1);
    if (last?.stream === event.stream) last.end = i + 1;
    else {
      groups.push({ stream: event.stream, start: i, end: i + 1 });
      seen.add(event.stream);
    }
    bytes += event.bytes;
  });
  if (groups.length > 0) segments.push(groups);
  return segments;
}

/** The state an imported stream must be in for its event at `revision` to be the next one. */
export const importedStreamState = (revision: number): AppendStreamState =>
  revision <= 0 ? NO_STREAM : BigInt(revision - 1);

// ------------------------------------------------------------------------------------------------
// Leases (EventStore.tryLease)
// ------------------------------------------------------------------------------------------------

export const LEASE_HELD = 'LeaseHeld';
export const LEASE_RELEASED = 'LeaseReleased';
/** How long a lease lasts without a renewal: a holder that dies frees it this long after its last one. */
export const LEASE_TTL_MS = 15_000;
/**
 * What a process that wants a lease allows for clocks that disagree: `until` is the holder's clock, so
 * the lease counts as free only this long after it. The holder gives it up at `until` by its own clock.
 */
export const LEASE_CLOCK_SKEW_MS = 2_000;

/** The last record of a lease's stream: taken or renewed by `holder` until `until` (ms), or released. */
export type LeaseRecord = HeldLeaseRecord | { kind: 'released'; holder: string };
export type HeldLeaseRecord = { kind: 'held'; holder: string; until: number };

export function encodeLeaseRecord(record: LeaseRecord): { type: string; data: Buffer } {
  if (record.kind === 'held')
    return {
      type: LEASE_HELD,
      data: Buffer.from(JSON.stringify({ holder: record.holder, until: record.until })),
    };
  return { type: LEASE_RELEASED, data: Buffer.from(JSON.stringify({ holder: record.holder })) };
}

/** A lease record from its stream; throws on one that is not ours, rather than guess whether it is free. */
export function decodeLeaseRecord(type: string, data: unknown): LeaseRecord {
  const stored = parseStored(data) as { holder?: unknown; until?: unknown } | null;
  const holder = stored?.holder;
  if (typeof holder === 'string') {
    if (type === LEASE_RELEASED) return { kind: 'released', holder };
    if (type === LEASE_HELD && Number.isFinite(stored?.until))
      return { kind: 'held', holder, until: stored?.until as number };
  }
  throw new Error(`a lease record is damaged: ${type} ${JSON.stringify(stored)}`);
}

/**
 * Whether a lease whose stream ends with `last` may be taken at `now` (ms, this process's clock): never
 * taken, released, or held by a holder that has not renewed it in time (plus `skew` for the clocks).
 */
export function leaseIsFree(last: LeaseRecord | undefined, now: number, skew = LEASE_CLOCK_SKEW_MS): boolean {
  if (last === undefined || last.kind === 'released') return true;
  return now >= last.until + skew;
}

/** The record that takes the lease for `holder` at `now`, or undefined when someone holds it. */
export function takeLease(
  last: LeaseRecord | undefined,
  holder: string,
  now: number,
  ttl = LEASE_TTL_MS,
): HeldLeaseRecord | undefined {
  return leaseIsFree(last, now) ? { kind: 'held', holder, until: now + ttl } : undefined;
}

/** The record a holder renews its lease with at `now`. */
export const renewLease = (holder: string, now: number, ttl = LEASE_TTL_MS): HeldLeaseRecord => ({
  kind: 'held',
  holder,
  until: now + ttl,
});

/**
 * What a holder makes of a renewal that did not commit. A conflict means another process took the
 * lease (it found it expired); any other failure (the server unreachable) is tried again while the lease
 * is still ours by our clock, and is a loss once `until` has passed: from then on another process may
 * take it. A renewal that starts past `until` counts as failed too (the process was stalled).
 */
export function afterFailedRenewal(conflict: boolean, now: number, until: number): 'lost' | 'retry' {
  if (conflict || now >= until) return 'lost';
  return 'retry';
}
