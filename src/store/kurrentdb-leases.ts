import { randomUUID } from 'node:crypto';
import {
  afterFailedRenewal,
  LEASE_TTL_MS,
  type LeaseRecord,
  renewLease,
  takeLease,
} from './kurrentdb-mapping.js';
import type { Lease } from './types.js';

/** The lease streams as the leases need them; kurrentdb-store.ts gives them on KurrentDB, tests in memory. */
export interface LeaseStreams {
  /** The stream's last record and its revision; undefined when the stream has none. */
  last(stream: string): Promise<{ revision: number; record: LeaseRecord } | undefined>;
  /**
   * Appends `record` when the stream's last revision is `expected` (-1: no stream yet); false when it
   * is not (another process wrote first). Throws on any other failure.
   */
  append(stream: string, record: LeaseRecord, expected: number): Promise<boolean>;
  /** A new lease stream: keep only its last few records (renewals would grow it forever). */
  created(stream: string): Promise<void>;
}

interface LeaseOptions {
  ttlMs?: number;
  now?: () => number;
}

/**
 * Named leases on KurrentDB, which has no session locks: one stream per name whose last record says who
 * holds it until when (kurrentdb-mapping.ts decides). Taking and renewing append with the stream's
 * expected revision, so of two processes only one commits. A holder renews every third of the TTL; its
 * `lost` settles when a renewal conflicts (someone else took the lease), when none has committed by the
 * lease's expiry (server unreachable, process stalled), or when its store closes. A holder that dies
 * frees its lease when the TTL (plus the allowance for clocks) has run out, not at once.
 */
export class KurrentLeases {
  private readonly held = new Set<HeldLease>();
  private readonly taking = new Set<Promise<void>>();
  private ending = false;
  private readonly ttl: number;
  private readonly now: () => number;

  constructor(
    private readonly streams: LeaseStreams,
    private readonly streamOf: (name: string) => string,
    options: LeaseOptions = {},
  ) {
    this.ttl = options.ttlMs ?? LEASE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  take(name: string): Promise<Lease | undefined> {
    const taking = this.takeOnce(name);
    const settled = taking.then(
      () => undefined,
      () => undefined,
    );
    this.taking.add(settled);
    void settled.then(() => this.taking.delete(settled));
    return taking;
  }

  private async takeOnce(name: string): Promise<Lease | undefined> {
    const stream = this.streamOf(name);
    const last = await this.streams.last(stream);
    const holder = randomUUID();
    const record = takeLease(last?.record, holder, this.now(), this.ttl);
    if (record === undefined) return undefined;
    const expected = last?.revision ?? -1;
    if (!(await this.streams.append(stream, record, expected))) return undefined;
    if (expected === -1) await this.streams.created(stream).catch(() => undefined);
    const lease = new HeldLease(name, stream, holder, expected + 1, record.until, this.streams, {
      ttl: this.ttl,
      now: this.now,
      forget: (done) => this.held.delete(done),
    });
    this.held.add(lease);
    // Taken while the store closed: it ends with the others.
    if (this.ending) await lease.end();
    return lease;
  }

  /** The store closes: each lease is released (so another process need not wait for its expiry) and lost. */
  async endAll(): Promise<void> {
    this.ending = true;
    await Promise.all(this.taking);
    await Promise.all([...this.held].map((lease) => lease.end()));
  }
}

class HeldLease implements Lease {
  readonly lost: Promise<void>;
  private lose: () => void = () => undefined;
  private done = false;
  private renewTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  /** Renewals and the release take turns: each appends at the revision the one before left. */
  private turn: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly stream: string,
    private readonly holder: string,
    private revision: number,
    private until: number,
    private readonly streams: LeaseStreams,
    private readonly options: { ttl: number; now: () => number; forget: (lease: HeldLease) => void },
  ) {
    this.lost = new Promise<void>((resolve) => {
      this.lose = resolve;
    });
    this.schedule(options.ttl / 3);
    this.watchExpiry();
  }

  release(): Promise<void> {
    return this.finish(false);
  }

  /** Released and lost: its store closed. */
  end(): Promise<void> {
    return this.finish(true);
  }

  private finish(lost: boolean): Promise<void> {
    if (this.done) return this.turn;
    this.stop();
    return this.writeRelease().then(() => {
      if (lost) this.lose();
    });
  }

  /** Best effort, after any renewal in flight: a release that cannot be written leaves the lease to expire. */
  private writeRelease(): Promise<void> {
    return this.inTurn(async () => {
      const released: LeaseRecord = { kind: 'released', holder: this.holder };
      await this.streams.append(this.stream, released, this.revision).catch(() => false);
    });
  }

  private stop(): void {
    this.done = true;
    clearTimeout(this.renewTimer);
    clearTimeout(this.expiryTimer);
    this.options.forget(this);
  }

  /** Lost at `until` unless a renewal moved it, also when a renewal hangs rather than fails. */
  private watchExpiry(): void {
    clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(
      () => {
        if (this.done) return;
        if (this.options.now() < this.until) return this.watchExpiry();
        this.stop();
        this.lose();
        // A renewal may still hang; should it commit after all, the lease is not left held.
        void this.writeRelease();
      },
      Math.max(1, this.until - this.options.now()),
    );
    this.expiryTimer.unref?.();
  }

  private inTurn(step: () => Promise<void>): Promise<void> {
    const run = this.turn.then(step);
    this.turn = run.catch(() => undefined);
    return run;
  }

  private schedule(ms: number): void {
    this.renewTimer = setTimeout(() => void this.inTurn(() => this.renew()), ms);
    this.renewTimer.unref?.();
  }

  private async renew(): Promise<void> {
    if (this.done) return;
    const { ttl, now } = this.options;
    let conflict = false;
    if (now() < this.until) {
      const record = renewLease(this.holder, now(), ttl);
      try {
        if (await this.streams.append(this.stream, record, this.revision)) {
          this.revision += 1;
          this.until = record.until;
          // Given up while this renewal hung: the release queued behind it writes at the new revision.
          if (this.done) return;
          this.schedule(ttl / 3);
          this.watchExpiry();
          return;
        }
        conflict = true;
      } catch {
        // Unreachable for now: tried again below while the lease is still ours.
      }
    }
    if (this.done) return;
    if (afterFailedRenewal(conflict, now(), this.until) === 'lost') {
      this.stop();
      this.lose();
      // Expired rather than taken: say so, unless someone has written since (the revision is checked).
      if (!conflict) void this.writeRelease();
      return;
    }
    // Again soon, and once more right at the expiry at the latest, so a lost lease is noticed then.
    this.schedule(Math.max(1, Math.min(ttl / 6, this.until - now())));
  }
}
