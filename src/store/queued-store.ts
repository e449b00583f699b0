import type { Observable } from 'rxjs';
import { FailedState, type StoreFailure } from './failed-state.js';
import type { LiveDelivery } from './live-delivery.js';
import { type LiveLog, subscribeToLog } from './subscription.js';
import type { AppendOptions, AppendResult, EventData, RecordedEvent, SubscribeOptions } from './types.js';
import { assertStreamName } from './validate.js';
import { type PendingAppend, type PendingDelete, type PendingImport, WriteQueue } from './write-queue.js';

/**
 * What every adapter of the store port does the same way: its writes go through one write queue and
 * one failed state, and its subscriptions read one live log. An adapter says how a turn of the queue
 * is written (commitAppends, runDelete, runImport) and where its live log is; the rest is here.
 */
export abstract class QueuedEventStore {
  readonly location: string;
  protected readonly writes: WriteQueue;
  protected readonly failed: FailedState;
  protected closed = false;

  /** `group`: appends waiting together are handed over in one turn (one transaction or batch). */
  protected constructor(location: string, clears: StoreFailure['clears'], group: boolean) {
    this.location = location;
    this.failed = new FailedState(location, clears);
    this.writes = new WriteQueue(
      {
        appends: (batch) => this.commitAppends(batch),
        remove: (task) => this.runDelete(task),
        import: (task) => this.runImport(task),
      },
      { group, closed: () => this.closed, failed: this.failed },
    );
  }

  protected abstract commitAppends(appends: PendingAppend[]): Promise<void>;
  protected abstract runDelete(task: PendingDelete): Promise<void>;
  protected abstract runImport(task: PendingImport): Promise<void>;
  /** The log subscriptions catch up from and then follow. */
  protected abstract get liveLog(): LiveLog;

  get failure(): StoreFailure | undefined {
    return this.failed.failure;
  }

  append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    return this.writes.append(stream, events, options);
  }

  deleteStream(stream: string): Promise<void> {
    return this.writes.deleteStream(stream);
  }

  importEvents(events: readonly RecordedEvent[]): Promise<void> {
    return this.writes.importEvents(events);
  }

  subscribe(options: SubscribeOptions = {}): Observable<RecordedEvent> {
    if (options.stream !== undefined) assertStreamName(options.stream);
    return subscribeToLog(this.liveLog, options);
  }
}

/** How often the head is read even without a notification: the net under a dropped notification feed. */
const POLL_MS = 1_000;

/**
 * An adapter over a server other processes write to as well: its live log is a LiveDelivery that
 * learns of new events by polling (and notifications), so asking for the head also brings the
 * subscriptions up to it.
 */
export abstract class PolledEventStore extends QueuedEventStore {
  protected abstract readonly delivery: LiveDelivery;
  private pollTimer: NodeJS.Timeout | undefined;
  /** The position of the last event in the server's log (0: none). */
  protected abstract readHead(): Promise<number>;
  /** Ends what the adapter holds once its writes are done and polling has stopped, in its own order. */
  protected abstract release(): Promise<void>;

  protected get liveLog(): LiveLog {
    return this.delivery.log;
  }

  async headPosition(): Promise<number> {
    const head = await this.readHead();
    await this.delivery.advanceTo(head);
    return head;
  }

  /** Reads the head every POLL_MS from now on (a timer that does not hold the process open). */
  protected startPolling(): void {
    this.pollTimer = setInterval(() => this.poll(), POLL_MS);
    this.pollTimer.unref();
  }

  /** Brings the subscriptions up to the server's head; a failed read waits for the next turn. */
  protected poll(): void {
    if (this.closed) return;
    this.readHead()
      .then((head) => this.delivery.advanceTo(head))
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Queued writes were accepted before close was asked for: let them finish.
    await this.writes.drained();
    clearInterval(this.pollTimer);
    await this.release();
  }
}
