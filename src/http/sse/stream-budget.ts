import type { FastifyReply, FastifyRequest } from 'fastify';
import { StacksError } from '../../stacks/errors.js';
import { userOf } from '../stacks/request.js';

/**
 * Long-lived answers (event streams, followed logs, stats) one caller may hold at once. Each holds a
 * connection for as long as the client likes, and the server takes a bounded number of connections
 * (stacks/limits.ts `maxConnections`): without a bound per caller, one viewer opening 512 streams
 * locked every other user out. A browser session has a bound of its own below its user's, so one
 * signed-in page (or a script holding its cookie) cannot take all of its user's streams either.
 */
export class StreamBudget {
  private readonly users = new Map<string, number>();
  private readonly sessions = new Map<string, number>();

  constructor(
    private readonly perUser: number,
    private readonly perSession: number,
  ) {}

  /**
   * Takes a stream for `user` (and `session`, when the caller came with the page's cookie): the release
   * (idempotent), or the refusal's message when a bound is reached.
   */
  take(user: string, session: string | undefined): (() => void) | string {
    const ofUser = this.users.get(user) ?? 0;
    if (ofUser >= this.perUser)
      return `Too many streams: user "${user}" holds ${ofUser} event streams, the most one user may hold at once`;
    const ofSession = session === undefined ? 0 : (this.sessions.get(session) ?? 0);
    if (session !== undefined && ofSession >= this.perSession)
      return `Too many streams: this session holds ${ofSession} event streams, the most one session may hold at once`;
    this.users.set(user, ofUser + 1);
    if (session !== undefined) this.sessions.set(session, ofSession + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.users, user);
      if (session !== undefined) decrement(this.sessions, session);
    };
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The browser session the caller came with (its cookie), undefined for a Bearer token. */
    stacksSession?: string;
    /** The app's stream budget (stacks/app.ts sets it with the user). */
    stacksStreams?: StreamBudget;
  }
}

/**
 * Holds one of the caller's streams until the answer's connection closes; throws 429 (the connection
 * closed after it, so that refused callers do not keep connections either) when the caller holds its
 * most. Called by every route that answers with a stream, before it starts the stream.
 */
export function holdStream(request: FastifyRequest, reply: FastifyReply): void {
  const budget = request.stacksStreams;
  if (!budget) return;
  const taken = budget.take(userOf(request).name, request.stacksSession);
  if (typeof taken === 'string') {
    reply.header('connection', 'close');
    throw new StacksError('too_many_requests', taken);
  }
  reply.raw.once('close', taken);
}
