import type { Socket } from 'node:net';

/**
 * The server's connections, and a budget of their own for those on which no request has authenticated
 * yet. Every connection starts so: its headers (and token) have not arrived. Node's `maxConnections`
 * alone let anyone without a token hold every slot with unfinished headers until the headers time-out,
 * and refuse everyone meanwhile, admins too.
 *
 * So: past `budget` unauthenticated connections, a new connection closes the oldest one that has had
 * `graceMs` to send its request and has not, and at the server's cap of all connections it does the
 * same before it is itself refused. A caller who sends its request at once is let in and answered; a
 * burst of new connections (young ones all) is not cut by itself, and keeps the server's cap. Once a
 * request on a connection authenticates the connection leaves the budget (its user's bounds apply then:
 * stream-budget.ts). This replaces Node's `maxConnections`, which refuses before anything can be closed.
 */
export class ConnectionBudget {
  private readonly all = new Set<Socket>();
  /** In arrival order: the first is the oldest. */
  private readonly waiting = new Map<Socket, number>();

  constructor(
    private readonly limits: { max: number; unauthenticated: number; graceMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** A new connection: let in (counted until it closes, and as unauthenticated until it is not), or closed. */
  admit(socket: Socket): void {
    const now = this.now();
    while (this.waiting.size >= this.limits.unauthenticated && this.closeOldest(now)) {}
    if (this.all.size >= this.limits.max && !this.closeOldest(now)) {
      socket.destroy();
      return;
    }
    this.all.add(socket);
    this.waiting.set(socket, now);
    socket.once('close', () => {
      this.all.delete(socket);
      this.waiting.delete(socket);
    });
  }

  /** A request on this connection authenticated: it no longer counts as unauthenticated. */
  authenticated(socket: Socket): void {
    this.waiting.delete(socket);
  }

  /** Closes the oldest unauthenticated connection if it has waited its grace; whether one was closed. */
  private closeOldest(now: number): boolean {
    const oldest = this.waiting.entries().next().value;
    if (oldest === undefined || now - oldest[1] < this.limits.graceMs) return false;
    const [socket] = oldest;
    this.waiting.delete(socket);
    this.all.delete(socket);
    socket.destroy();
    return true;
  }
}
