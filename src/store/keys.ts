import type { RecordedEvent } from './types.js';

// One LevelDB keyspace, prefixed by what a key holds. Numbers are fixed-width hex so that the
// byte order LevelDB sorts by is numeric order. Stream names cannot hold control characters, so NUL
// safely ends a stream name inside a key.
const EVENT = 'e:';
const REVISION = 'r:';
const TOMBSTONE = 't:';
const SNAPSHOT = 'p:';
const SHRED = 's:';
const SNAPSHOT_PART = 'q:';
export const HEAD_KEY = 'h:head';

const hex = (n: number) => n.toString(16).padStart(14, '0');

export const eventKey = (position: number) => EVENT + hex(position);
export const eventRange = (from: number, to = Number.MAX_SAFE_INTEGER) => ({
  gte: eventKey(from),
  lte: eventKey(to),
});
export const isEventKey = (key: string) => key.startsWith(EVENT);
export const positionOfEventKey = (key: string) => Number.parseInt(key.slice(EVENT.length), 16);

export const revisionKey = (stream: string, revision: number) => `${REVISION}${stream}\u0000${hex(revision)}`;
export const revisionRange = (stream: string, from = 0, to = Number.MAX_SAFE_INTEGER) => ({
  gte: revisionKey(stream, from),
  lte: revisionKey(stream, to),
});
/** Where the revision keys of the streams whose names start with `prefix` begin. */
export const revisionKeysOf = (prefix: string) => REVISION + prefix;
/** The stream a revision key belongs to. */
export const streamOfRevisionKey = (key: string) => key.slice(REVISION.length, key.indexOf('\u0000'));
/** The first key after every revision key of `stream`. */
export const afterStreamRevisions = (stream: string) => `${REVISION}${stream}\u0001`;
export const positionValue = (position: number) => hex(position);
export const parsePositionValue = (value: string) => Number.parseInt(value, 16);

export const tombstoneKey = (stream: string) => TOMBSTONE + stream;
export const snapshotKey = (name: string) => SNAPSHOT + name;
/** A piece of a snapshot written in parts: its name, the generation (one per save) and its number. */
export const snapshotPartKey = (name: string, generation: string, part: number) =>
  `${SNAPSHOT_PART}${name}\u0000${generation}\u0000${hex(part)}`;
/** Every part of the snapshot `name` (of one generation when given). */
export const snapshotPartRange = (name: string, generation?: string) =>
  generation === undefined
    ? { gte: `${SNAPSHOT_PART}${name}\u0000`, lt: `${SNAPSHOT_PART}${name}\u0001` }
    : {
        gte: `${SNAPSHOT_PART}${name}\u0000${generation}\u0000`,
        lt: `${SNAPSHOT_PART}${name}\u0000${generation}\u0001`,
      };
export const shredKey = (stream: string) => SHRED + stream;
export const shredRange = { gte: SHRED, lt: 's;' };

interface StoredEvent {
  s: string;
  r: number;
  t: string;
  d: unknown;
  m: RecordedEvent['metadata'];
}

export function decodeEvent(position: number, value: string): RecordedEvent {
  const stored = JSON.parse(value) as StoredEvent;
  return {
    stream: stored.s,
    revision: stored.r,
    position,
    type: stored.t,
    data: stored.d,
    metadata: stored.m,
  };
}
