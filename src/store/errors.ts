import type { ExpectedRevision } from './types.js';

/** Base class so callers can tell store failures from their own. */
export class StoreError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class WrongExpectedRevisionError extends StoreError {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  /** The stream's last revision, or undefined when it has no events. */
  readonly actual: number | undefined;
  constructor(stream: string, expected: ExpectedRevision, actual: number | undefined) {
    super(
      'wrong_expected_revision',
      `stream "${stream}": expected revision ${String(expected)}, actual ${actual === undefined ? 'no_stream' : actual}`,
    );
    this.stream = stream;
    this.expected = expected;
    this.actual = actual;
  }
}

export class StreamDeletedError extends StoreError {
  readonly stream: string;
  constructor(stream: string) {
    super('stream_deleted', `stream "${stream}" was deleted and cannot be read or appended to`);
    this.stream = stream;
  }
}

export class InvalidStreamNameError extends StoreError {
  constructor(stream: unknown, reason: string) {
    super('invalid_stream_name', `invalid stream name ${JSON.stringify(stream)}: ${reason}`);
  }
}

export class InvalidEventError extends StoreError {
  constructor(message: string) {
    super('invalid_event', message);
  }
}

export class EventTooLargeError extends StoreError {
  readonly size: number;
  readonly limit: number;
  constructor(type: string, size: number, limit: number) {
    super('event_too_large', `event "${type}" is ${size} bytes, over the limit of ${limit} bytes`);
    this.size = size;
    this.limit = limit;
  }
}

export class StoreLockedError extends StoreError {
  readonly dir: string;
  constructor(dir: string, options?: ErrorOptions) {
    super(
      'store_locked',
      `the data directory ${dir} is in use by another process (is a chronicle server running on it?)`,
      options,
    );
    this.dir = dir;
  }
}

export class StoreClosedError extends StoreError {
  constructor() {
    super('store_closed', 'the event store is closed');
  }
}

/** A subscriber whose buffer of live events filled up; resubscribe from `lastPosition + 1`. */
export class SubscriberTooSlowError extends StoreError {
  readonly lastPosition: number;
  constructor(bufferSize: number, lastPosition: number) {
    super(
      'subscriber_too_slow',
      `subscriber dropped: more than ${bufferSize} live events waited for it; resubscribe from position ${lastPosition + 1}`,
    );
    this.lastPosition = lastPosition;
  }
}

export class UnsupportedStoreError extends StoreError {
  constructor(message: string) {
    super('unsupported_store', message);
  }
}

/**
 * A write the store did not take because it is in its failed state (failed-state.ts): an earlier write
 * failed (a full disk, a lost connection) and nothing more is acknowledged until it is cleared.
 */
export class StoreFailedError extends StoreError {
  /** Why the store failed: the first failed write's own words (`ENOSPC: no space left on device`). */
  readonly reason: string;
  constructor(reason: string, options?: ErrorOptions) {
    super('store_failed', `the event store failed and takes no more writes: ${reason}`, options);
    this.reason = reason;
  }
}
