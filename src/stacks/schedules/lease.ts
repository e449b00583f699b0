import type { EventStore, Lease } from '../../store/types.js';

/** How often an instance without a schedule tries to take it (the holder may be gone). */
const LEAD_RETRY_MS = 10_000;

/**
 * The lease that lets one instance on the log run a schedule: with several instances, one holds it and
 * the others try again every few seconds, taking over when the holder is gone. `onLead` starts the
 * schedule once this instance holds it.
 */
export class ScheduleLease {
  private lease: Lease | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly store: EventStore,
    private readonly name: string,
    /** The schedule as the stderr line names it (`reconcile`, `retention`). */
    private readonly what: string,
    private readonly onLead: (lease: Lease) => void,
  ) {}

  /** The lease while this instance holds it. */
  get held(): Lease | undefined {
    return this.lease;
  }

  /** One attempt (a failed one schedules the next); resolves when it is decided. */
  async take(): Promise<void> {
    if (this.stopped) return;
    let lease: Lease | undefined;
    try {
      lease = await this.store.tryLease(this.name);
    } catch (error) {
      process.stderr.write(`stacks: could not take the ${this.what} schedule: ${(error as Error).message}\n`);
    }
    if (this.stopped) {
      await lease?.release();
      return;
    }
    if (!lease) {
      this.retry = setTimeout(() => void this.take(), LEAD_RETRY_MS);
      this.retry.unref();
      return;
    }
    this.lease = lease;
    this.onLead(lease);
  }

  /** Forgets a lease that was lost (its connection broke) and tries again at once. */
  retake(): Promise<void> {
    this.lease = undefined;
    return this.take();
  }

  /** No more attempts; an attempt under way releases what it gets. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Lets the lease go (after stop()). */
  async release(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    await lease?.release();
  }
}
