/**
 * What the stacks server lets one caller hold (docs/stacks.md#limits-reconcile-settings-and-schedules): time to send a
 * request, connections, and body sizes per route. Without them a client trickling its headers or body
 * kept a connection for minutes, and enough of them (no connection cap) held the server.
 *
 * The time-outs cover the arrival of a request only (Node's `headersTimeout` and `requestTimeout`):
 * once a request is read, its answer may take as long as it takes — a job answered with `Accept:
 * application/json`, or an event stream (`/api/jobs/{id}/events`, `…/log?follow=true`) that lives as
 * long as its job.
 */

const MiB = 1024 * 1024;

export interface StacksHttpLimits {
  /** Time for the request line and headers to arrive, from the connection (or the previous answer). */
  headersTimeoutMs: number;
  /** Time for the whole request (headers and body) to arrive. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections at once (event streams included); a further one is closed at once, unanswered. */
  maxConnections: number;
  /**
   * Connections on which no request has authenticated yet (connection-budget.ts); past it a new one
   * closes the oldest of them that has had unauthenticatedGraceMs to send a request, so callers with a
   * token are let in.
   */
  unauthenticatedConnections: number;
  /** How long a new connection may take to authenticate before a newer one may close it. */
  unauthenticatedGraceMs: number;
  /** Event streams, followed logs and stats one user holds at once (stream-budget.ts); past it, 429. */
  streamsPerUser: number;
  /** The same, per browser session (below its user's bound). */
  streamsPerSession: number;
  /** Failed sign-ins from one address within signInWindowMs, past which sign-in answers 429. */
  signInAttempts: number;
  signInWindowMs: number;
  /**
   * An event stream client dropped as too slow gets this long to take what was written to it (the
   * reason, last) before its connection is closed.
   */
  droppedClientGraceMs: number;
  /**
   * A job event client more than 16 MiB behind its job is dropped once it has taken nothing for this
   * long: one that reads, however slowly, catches up from the store at its own pace (JobBook stalledMs).
   */
  stalledClientMs: number;
}

export const DEFAULT_STACKS_HTTP_LIMITS: StacksHttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 512,
  unauthenticatedConnections: 64,
  unauthenticatedGraceMs: 2_000,
  streamsPerUser: 32,
  streamsPerSession: 16,
  signInAttempts: 10,
  signInWindowMs: 60_000,
  droppedClientGraceMs: 30_000,
  stalledClientMs: 10_000,
};

/**
 * FOR TESTS ONLY: JSON with any of the fields of StacksHttpLimits, so a test can see the limits act
 * without waiting out the defaults. Not a setting: the defaults above are the server's limits.
 */
const TEST_LIMITS_VARIABLE = 'CHRONICLE_TEST_STACKS_HTTP_LIMITS';

/** The limits in force: the defaults, or (tests) those of TEST_LIMITS_VARIABLE; throws on a bad value. */
export function stacksHttpLimits(env: NodeJS.ProcessEnv = process.env): StacksHttpLimits {
  const raw = env[TEST_LIMITS_VARIABLE];
  if (raw === undefined || raw === '') return DEFAULT_STACKS_HTTP_LIMITS;
  const given: unknown = JSON.parse(raw);
  const limits = { ...DEFAULT_STACKS_HTTP_LIMITS };
  for (const [key, value] of Object.entries(given as Record<string, unknown>)) {
    if (!Object.hasOwn(limits, key) || typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
      throw new Error(`${TEST_LIMITS_VARIABLE}: ${key} must be one of the limits, a positive integer`);
    limits[key as keyof StacksHttpLimits] = value;
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new Error(`${TEST_LIMITS_VARIABLE}: headersTimeoutMs must not exceed requestTimeoutMs`);
  if (limits.unauthenticatedConnections >= limits.maxConnections)
    throw new Error(`${TEST_LIMITS_VARIABLE}: unauthenticatedConnections must be below maxConnections`);
  return limits;
}

/** Compose files and variable sets: room for large ones, and still a bound. */
const COMPOSE_BODY_LIMIT = 8 * MiB;
/** Every other route's body: job options, settings, schedule toggles. */
export const SMALL_BODY_LIMIT = 64 * 1024;
/** GitHub caps its webhook payloads at 25 MB; a delivery is never larger. */
export const WEBHOOK_BODY_LIMIT = 25 * MiB;
/**
 * Webhook bodies being received at once, in bytes. A delivery's body must be kept whole until its
 * signature is checked (its branch is read from it after), so without this bound callers who know a git
 * stack's name could hold 25 MiB each on every connection.
 */
export const WEBHOOK_BUFFER_BUDGET = 64 * MiB;

/** Routes that take a compose file or variables ("METHOD url" as registered). */
const LARGE_BODY_ROUTES = new Set([
  'POST /api/stacks',
  'PUT /api/stacks/:name/compose',
  'PUT /api/stacks/:name/variables',
  'POST /api/git-stacks',
  'PUT /api/git-stacks/:name',
]);

/** The body limit of a route that sets none itself. */
export const bodyLimitOf = (method: string, url: string): number =>
  LARGE_BODY_ROUTES.has(`${method} ${url}`) ? COMPOSE_BODY_LIMIT : SMALL_BODY_LIMIT;

/** Bytes reserved by webhook bodies being received; a reservation that does not fit is refused. */
export class BufferBudget {
  private used = 0;
  constructor(private readonly total: number) {}

  /** Reserves `bytes`, or returns undefined when they do not fit; the release is idempotent. */
  reserve(bytes: number): (() => void) | undefined {
    if (this.used + bytes > this.total) return undefined;
    this.used += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
    };
  }
}
