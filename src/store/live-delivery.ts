import type { LiveLog } from './subscription.js';
import type { RecordedEvent } from './types.js';

/** Hands `events` (in order, after everything published) to the listeners and moves the published head to `head`. */
type Publish = (events: readonly RecordedEvent[], head: number) => void;

/**
 * An adapter's read step: publishes, in order and a page at a time, the events committed after
 * `published`, and moves the published head to `target` at least (positions of deleted streams are
 * holes: a head may pass positions no event holds).
 */
export type ReadNew = (published: number, target: number, publish: Publish) => Promise<void>;

/**
 * Live delivery for a log that several processes share (the PostgreSQL and KurrentDB adapters): the
 * published head, and advances to a newer head that run one at a time, in the order asked for, so
 * subscribers see every event once and in position order whatever wakes the adapter (its own commits,
 * a notification, a poll). An adapter's own commits directly following what is published are handed on
 * as they are; anything else is read by the adapter's read step. subscription.ts does catch-up and the
 * per-subscriber queues on top of `log`.
 */
export class LiveDelivery {
  /** What subscribeToLog reads from and listens to. */
  readonly log: LiveLog;
  /** The last position handed to subscribers; everything up to it is published, in order. */
  private published = 0;
  private advancing: Promise<void> = Promise.resolve();
  private readonly commitListeners = new Set<(events: readonly RecordedEvent[]) => void>();
  private readonly closeListeners = new Set<() => void>();

  constructor(
    readRange: LiveLog['readRange'],
    private readonly readNew: ReadNew,
  ) {
    this.log = {
      head: () => this.published,
      readRange,
      listen: (listener) => addTo(this.commitListeners, listener),
      onClose: (listener) => addTo(this.closeListeners, listener),
    };
  }

  /** Where subscribers start when the store opens: the head of that moment. */
  startAt(head: number): void {
    this.published = head;
  }

  /**
   * Publishes everything up to `target`, after the advances asked for before. `known` are events this
   * process just committed: when they directly follow what is published they are handed on without
   * reading them back.
   */
  advanceTo(target: number, known?: readonly RecordedEvent[]): Promise<void> {
    return this.inTurn(() => this.advance(target, known));
  }

  /**
   * In turn like advanceTo: advances to `target` when it is past the published head, else runs
   * `published` (KurrentDB moves its read cursor past its own appends then).
   */
  advanceOr(target: number, published: () => void): Promise<void> {
    return this.inTurn(async () => (target > this.published ? this.advance(target) : published()));
  }

  /** Settles when the advances asked for so far have run. */
  settled(): Promise<void> {
    return this.advancing;
  }

  /** The store closed: subscriptions complete. */
  close(): void {
    for (const listener of [...this.closeListeners]) listener();
  }

  private inTurn(work: () => Promise<void>): Promise<void> {
    const run = this.advancing.then(work);
    this.advancing = run.catch(() => undefined);
    return run;
  }

  private async advance(target: number, known?: readonly RecordedEvent[]): Promise<void> {
    if (target <= this.published) return;
    if (known !== undefined && known[0]?.position === this.published + 1) {
      this.publish(known, Math.max(target, (known.at(-1) as RecordedEvent).position));
      return;
    }
    await this.readNew(this.published, target, this.publish);
  }

  private readonly publish: Publish = (events, head) => {
    if (head > this.published) this.published = head;
    if (events.length === 0 || this.commitListeners.size === 0) return;
    for (const listener of [...this.commitListeners]) listener(events);
  };
}

/**
 * The read step of a log read by position ranges (PostgreSQL): `range(from, to, limit)` gives up to
 * `limit` events with from <= position <= to, in order. A short page means nothing more up to `to`.
 */
export function readByRanges(
  range: (from: number, to: number, limit: number) => Promise<readonly RecordedEvent[]>,
  page: number,
): ReadNew {
  return async (published, target, publish) => {
    for (let from = published + 1; from <= target; ) {
      const events = await range(from, target, page);
      const head = events.length < page ? target : (events.at(-1) as RecordedEvent).position;
      publish(events, head);
      from = head + 1;
    }
  };
}

function addTo<L>(set: Set<L>, listener: L): () => void {
  set.add(listener);
  return () => set.delete(listener);
}
