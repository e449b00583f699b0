/**
 * Sign-in attempts per client address (POST /api/session): a token guessed by the page's form costs
 * one request, so without a bound a client could try thousands a second. Past `attempts` failed
 * sign-ins within `windowMs`, every sign-in from that address (a right token too) answers 429 with
 * `Retry-After` until the oldest failure leaves the window. The address is the connection's own (no
 * `X-Forwarded-For`: the server trusts no proxy).
 */
export class SignInLimit {
  /** Failure times per address, oldest first; addresses in first-failure order. */
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly attempts: number,
    private readonly windowMs: number,
    /** Addresses remembered at once; the oldest is forgotten past it (memory stays bounded). */
    private readonly maxAddresses = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait before `address` may try again, or 0 when it may now. */
  retryAfter(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.attempts) return 0;
    const oldest = recent[recent.length - this.attempts] as number;
    return Math.max(1, Math.ceil((oldest + this.windowMs - this.now()) / 1000));
  }

  /** A failed sign-in from `address`. */
  failed(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    // Only the last `attempts` failures decide anything.
    if (recent.length > this.attempts) recent.splice(0, recent.length - this.attempts);
    this.failures.delete(address);
    if (this.failures.size >= this.maxAddresses) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    this.failures.set(address, recent);
  }

  /** The failures of `address` still in the window (older ones dropped). */
  private recent(address: string): number[] {
    const times = this.failures.get(address);
    if (!times) return [];
    const since = this.now() - this.windowMs;
    const kept = times.filter((t) => t > since);
    if (kept.length === 0) this.failures.delete(address);
    else this.failures.set(address, kept);
    return kept;
  }
}
