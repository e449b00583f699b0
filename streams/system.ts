/** The store's own stream: what happened to streams themselves. Names starting with `$` are reserved for it. */
export const SYSTEM_STREAM = '$streams';

/** Appended by `deleteStream` in the same batch that removes the stream's events. */
export const STREAM_DELETED = 'StreamDeleted';

export interface StreamDeletedData {
  stream: string;
  /** Revision of the deleted stream's last event (-1 when it had none). */
  lastRevision: number;
}

/**
 * Streams whose name starts with this hold encryption keys (crypto-shredding: output is sealed with a
 * key kept in a stream of its own, and deleting that stream makes the output unreadable everywhere).
 * An adapter keeps no readable byte of such a stream once `deleteStream` has resolved: LevelDB compacts
 * the key's range, PostgreSQL keeps these streams in a table of their own that a delete rewrites;
 * KurrentDB tombstones the stream and its bytes go at the operator's next scavenge (docs/security.md#deleted-runs-crypto-shredding).
 */
export const KEY_STREAM_PREFIX = 'key-';
