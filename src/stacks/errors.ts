/** The HTTP statuses a stacks failure maps to; routes answer `{ "error": message }` with it. */
export type StacksErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503;

/**
 * A failure the stacks routes turn straight into an answer: the status says which kind (bad input,
 * missing, conflict), the message is what the caller reads. Messages never hold variable values.
 */
export class StacksError extends Error {
  override name = 'StacksError';
  constructor(
    readonly status: StacksErrorStatus,
    message: string,
    options?: ErrorOptions,
    /** Fields the answer carries beside `error` (a conflict's current version, say). */
    readonly fields?: Readonly<Record<string, string>>,
  ) {
    super(message, options);
  }
}

export const badRequest = (message: string, options?: ErrorOptions) => new StacksError(400, message, options);
export const notFound = (message: string) => new StacksError(404, message);
export const conflict = (message: string) => new StacksError(409, message);

/**
 * A save that names the version it edits (`If-Match`) when the stored compose file has moved on: the
 * answer names the code and the current hash, so the caller can read it again and choose.
 */
export const composeChanged = (current: string) =>
  new StacksError(409, 'compose_changed', undefined, {
    message: 'The compose file changed on the server since this version was read: read it again and choose.',
    composeHash: current,
  });

export const isStacksError = (error: unknown): error is StacksError => error instanceof StacksError;

/** The code a write answers while the event store is failed (src/store/failed-state.ts). */
export const STORE_FAILED = 'store_failed';

/**
 * A write refused because the event store failed (a full disk, a lost database): 503, the code, what it
 * means for this store, and the store's own reason. Nothing of the request was recorded.
 */
export const storeFailed = (failure: { reason: string; clears: 'restart' | 'next-write' }) =>
  new StacksError(503, STORE_FAILED, undefined, {
    message:
      failure.clears === 'restart'
        ? 'The event store failed: nothing more is recorded until the server is restarted (see GET /api/health).'
        : 'The event store failed: nothing was recorded; it is tried again by the next write (see GET /api/health).',
    reason: failure.reason,
  });
