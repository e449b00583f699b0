import { StoreError, StoreFailedError } from './errors.js';
import type { StoreFailure } from './types.js';

export type { StoreFailure };

/** Errors that are the caller's (a revision, a deleted stream, a bad event), not the store's failing. */
const isCallersError = (error: unknown) =>
  error instanceof StoreError && !(error instanceof StoreFailedError);

/**
 * The failed state of one store, shared by every adapter (write-queue.ts puts each write through it):
 * a write that fails for a reason of the store's (not the caller's) fails the store; while it is failed
 * `guard` refuses writes (`restart`), or lets the next one try (`next-write`) and `succeeded` clears it.
 * Each change of state is said once on stderr, with the store's location.
 */
export class FailedState {
  private current: StoreFailure | undefined;

  constructor(
    private readonly location: string,
    private readonly clears: StoreFailure['clears'],
    private readonly say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  get failure(): StoreFailure | undefined {
    return this.current;
  }

  /** Throws StoreFailedError while the store is failed until a restart. */
  guard(): void {
    if (this.current?.clears === 'restart') throw new StoreFailedError(this.current.reason);
  }

  /**
   * What a write that failed with `error` answers: the caller's own errors as they are; any other one
   * fails the store (the first such error names the reason) and is answered as StoreFailedError.
   */
  failed(error: unknown): unknown {
    if (isCallersError(error)) return error;
    if (error instanceof StoreFailedError && this.current) return error;
    const reason = describe(error);
    if (!this.current) {
      this.current = { reason, since: new Date().toISOString(), clears: this.clears };
      this.say(
        this.clears === 'restart'
          ? `store: ${this.location} failed: ${reason}; it takes no more writes until the server is restarted`
          : `store: ${this.location} failed: ${reason}; writes are answered store_failed until it takes one again`,
      );
    }
    return new StoreFailedError(this.clears === 'restart' ? this.current.reason : reason, { cause: error });
  }

  /** A write was taken: a `next-write` failure is over. */
  succeeded(): void {
    if (this.current?.clears !== 'next-write') return;
    this.current = undefined;
    this.say(`store: ${this.location} takes writes again`);
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // classic-level wraps LevelDB's status in LEVEL_IO_ERROR: its cause or message holds the OS's words.
  const cause = (error as { cause?: unknown }).cause;
  const code = (error as { code?: unknown }).code;
  const own = error.message || error.name;
  const why =
    cause instanceof Error && cause.message !== '' && !own.includes(cause.message)
      ? `: ${cause.message}`
      : '';
  return `${own}${why}${typeof code === 'string' && !own.includes(code) ? ` (${code})` : ''}`;
}
