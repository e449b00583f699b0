import { InvalidEventError, StoreClosedError, WrongExpectedRevisionError } from './errors.js';
import type { FailedState } from './failed-state.js';
import type { AppendOptions, AppendResult, EventData, ExpectedRevision, RecordedEvent } from './types.js';
import { assertExpectedRevision, assertStreamName, serializeEventBody } from './validate.js';

/** An append waiting for its turn: its events already checked and serialized (the bytes checked are the bytes written). */
export interface PendingAppend {
  kind: 'append';
  stream: string;
  types: string[];
  bodies: string[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

export interface PendingDelete {
  kind: 'delete';
  stream: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface PendingImport {
  kind: 'import';
  events: readonly RecordedEvent[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** What an adapter does with its turn; each settles every task it is given. */
interface WriteHandlers {
  /** Commits appends that waited together (one of them when the queue does not group). */
  appends(batch: PendingAppend[]): Promise<void>;
  remove(task: PendingDelete): Promise<void>;
  import(task: PendingImport): Promise<void>;
}

/** Throws WrongExpectedRevisionError unless a stream at `current` (-1: no events) satisfies `expected`. */
export function checkExpected(stream: string, expected: ExpectedRevision, current: number): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === -1) ||
    (expected === 'stream_exists' && current >= 0) ||
    expected === current;
  if (!ok) throw new WrongExpectedRevisionError(stream, expected, current === -1 ? undefined : current);
}

/**
 * The writes of one store, in the order they were asked for, one turn at a time: the part of append,
 * deleteStream and importEvents every adapter shares. Input is checked when a write is asked for (so a
 * bad one fails at once and nothing of it is queued). With `group`, appends that wait while a turn runs
 * are handed over together in the next one (group commit: one fsync or transaction for all of them);
 * a delete or an import always has a turn of its own.
 *
 * Every write goes through the store's failed state (failed-state.ts): one the store fails to make
 * fails the store, and is answered StoreFailedError; while a local store is failed nothing more is
 * tried, so nothing more is acknowledged (writes already waiting included).
 */
export class WriteQueue {
  private pending: Array<PendingAppend | PendingDelete | PendingImport> = [];
  private writing = false;

  constructor(
    private readonly handlers: WriteHandlers,
    private readonly options: { group: boolean; closed: () => boolean; failed: FailedState },
  ) {}

  append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      if (this.options.closed()) throw new StoreClosedError();
      this.options.failed.guard();
      assertStreamName(stream);
      if (!Array.isArray(events) || events.length === 0)
        throw new InvalidEventError('append needs a non-empty array of events');
      const expected = options.expectedRevision ?? 'any';
      assertExpectedRevision(expected);
      const at = new Date().toISOString();
      const bodies = events.map((event) => serializeEventBody(event, at));
      const types = events.map((event) => event.type);
      this.push({ kind: 'append', stream, types, bodies, expected, ...this.settling(resolve, reject) });
    });
  }

  deleteStream(stream: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.options.closed()) throw new StoreClosedError();
      this.options.failed.guard();
      assertStreamName(stream);
      this.push({ kind: 'delete', stream, ...this.settling(resolve, reject) });
    });
  }

  importEvents(events: readonly RecordedEvent[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.options.closed()) throw new StoreClosedError();
      this.options.failed.guard();
      if (events.length === 0) return resolve();
      this.push({ kind: 'import', events, ...this.settling(resolve, reject) });
    });
  }

  /** Resolves once every write asked for so far has had its turn (what close() waits for). */
  async drained(): Promise<void> {
    while (this.writing || this.pending.length > 0) await new Promise((resolve) => setImmediate(resolve));
  }

  /** A task's settling through the failed state: taken clears a `next-write` failure, failed fails it. */
  private settling<T>(
    resolve: (value: T) => void,
    reject: (error: unknown) => void,
  ): { resolve: (value: T) => void; reject: (error: unknown) => void } {
    const failed = this.options.failed;
    return {
      resolve: (value) => {
        failed.succeeded();
        resolve(value);
      },
      reject: (error) => reject(failed.failed(error)),
    };
  }

  /** Refuses `tasks` when the store failed after they were asked for; false when they may go on. */
  private refused(tasks: ReadonlyArray<PendingAppend | PendingDelete | PendingImport>): boolean {
    try {
      this.options.failed.guard();
      return false;
    } catch (error) {
      for (const task of tasks) task.reject(error);
      return true;
    }
  }

  private push(task: PendingAppend | PendingDelete | PendingImport): void {
    this.pending.push(task);
    if (this.writing) return;
    this.writing = true;
    // setImmediate, not a microtask: appenders woken by the previous turn get to enqueue first, so they
    // share the next turn instead of each paying for one.
    setImmediate(() => {
      this.run().catch(() => undefined);
    });
  }

  private async run(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const first = this.pending[0] as PendingAppend | PendingDelete | PendingImport;
        if (first.kind === 'delete') {
          this.pending.shift();
          if (!this.refused([first])) await this.handlers.remove(first);
        } else if (first.kind === 'import') {
          this.pending.shift();
          if (!this.refused([first])) await this.handlers.import(first);
        } else {
          const end = this.options.group ? this.pending.findIndex((task) => task.kind !== 'append') : 1;
          const batch = this.pending.splice(0, end === -1 ? this.pending.length : end) as PendingAppend[];
          if (!this.refused(batch)) await this.handlers.appends(batch);
        }
        if (this.pending.length > 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.writing = false;
    }
  }
}
