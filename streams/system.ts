/** The store's own stream: what happened to streams themselves. Names starting with `$` are reserved for it. */
export const SYSTEM_STREAM = '$streams';

/** Appended by `deleteStream` in the same batch that removes the stream's events. */
export const STREAM_DELETED = 'StreamDeleted';

export interface StreamDeletedData {
  stream: string;
  /** Revision of the deleted stream's last event (-1 when it had none). */
  lastRevision: number;
}
