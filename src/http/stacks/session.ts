import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { EnvironmentId } from '../../../streams/stacks.js';
import { checkEnvAccess, hasGlobal, localOnlyByRule, userByToken } from '../../stacks/access/auth.js';
import type { StacksConfig, User } from '../../stacks/contracts.js';
import { statusOf } from '../../stacks/errors.js';
import { stacksRoutes as routes } from './api/routes.js';
import { SESSION_COOKIE, type StacksFastify } from './openapi.js';
import { userOf } from './request.js';
import type { SignInLimit } from './sign-in-limit.js';

/**
 * Browser sessions of the stacks web page: a person signs in with a token once and the browser then
 * holds an HttpOnly, SameSite=Strict cookie naming a random session id; machines keep the Bearer token.
 * Sessions live in this process's memory only (a restart signs everyone out) and end after
 * SESSION_IDLE_MS without a request or SESSION_MAX_MS after sign-in.
 */

const SESSION_IDLE_MS = 8 * 60 * 60 * 1000;
const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** Sessions kept at once; the oldest is dropped past it (a token posted in a loop cannot fill memory). */
const MAX_SESSIONS = 10_000;

interface Session {
  userName: string;
  createdAt: number;
  lastSeen: number;
}

/** The session's lifetimes; tests shorten them through CHRONICLE_TEST_SESSION_IDLE_MS (not a setting). */
function idleMs(): number {
  const raw = Number(process.env.CHRONICLE_TEST_SESSION_IDLE_MS);
  return Number.isSafeInteger(raw) && raw > 0 ? raw : SESSION_IDLE_MS;
}

export class Sessions {
  private readonly sessions = new Map<string, Session>();
  private readonly idle = idleMs();

  constructor(private readonly config: StacksConfig) {}

  create(user: User, now = Date.now()): string {
    const id = randomBytes(32).toString('base64url');
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    this.sessions.set(id, { userName: user.name, createdAt: now, lastSeen: now });
    return id;
  }

  delete(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }

  /** The user of a live session (its idle clock restarted), or undefined for an unknown or ended one. */
  userOf(id: string | undefined, now = Date.now()): User | undefined {
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (now - session.lastSeen > this.idle || now - session.createdAt > SESSION_MAX_MS) {
      this.sessions.delete(id);
      return undefined;
    }
    // A user removed from the config loses their sessions with it.
    const user = this.config.users.find((u) => u.name === session.userName);
    if (!user) {
      this.sessions.delete(id);
      return undefined;
    }
    session.lastSeen = now;
    return user;
  }
}

/** The value of one cookie of a `Cookie` header, or undefined. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a cookie-authenticated request may act: SameSite=Strict already keeps the cookie off other
 * sites' requests; a changing request must also not come from another origin (an old browser, a
 * misconfigured proxy), so its `Origin`, when the browser sends one, must be this host.
 */
function sameOrigin(request: FastifyRequest): boolean {
  if (SAFE_METHODS.has(request.method)) return true;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/**
 * The caller of a request: the Bearer token first (machines), else the session cookie (the web page).
 * A cookie's unsafe request from another origin has no user.
 */
export function callerOf(
  config: StacksConfig,
  sessions: Sessions,
  request: FastifyRequest,
): User | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) return userByToken(config, header);
  const user = sessions.userOf(cookieOf(request.headers.cookie, SESSION_COOKIE));
  return user && sameOrigin(request) ? user : undefined;
}

const cookieHeader = (value: string, maxAgeSeconds: number) =>
  `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`;

/** What the page needs to know of its user: who, and what they may do where. */
function sessionView(config: StacksConfig, user: User) {
  const environments: Array<{ id: EnvironmentId; name: string }> = [
    { id: null, name: 'local' },
    ...config.environments.map((e) => ({ id: e.id, name: e.name })),
  ];
  return {
    name: user.name,
    admin: user.admin,
    // Schedules: admin or the stacks `edit` permission in any grant (docs/stacks.md#limits-reconcile-settings-and-schedules).
    mayRunSchedules: hasGlobal(user, 'edit'),
    environments: environments.map((e) => ({
      ...e,
      view: checkEnvAccess(user, 'view', e.id).ok,
      edit: checkEnvAccess(user, 'edit', e.id).ok,
      editByGlobalCheck: e.id === null && localOnlyByRule(user, 'edit'),
    })),
  };
}

/**
 * POST /api/session `{token}` signs in (200 with the session view and the cookie; 401 `unauthorized`
 * for a wrong token); GET /api/session says who is signed in; DELETE /api/session signs out. Their
 * schemas: api/routes.ts (`signIn`, `getSession`, `signOut`); the first and last say
 * `security: []`, so they run without a token.
 */
export function sessionRoutes(
  app: StacksFastify,
  config: StacksConfig,
  sessions: Sessions,
  limit: SignInLimit,
): void {
  app.route({
    ...routes.signIn,
    handler: async (request, reply) => {
      const wait = limit.retryAfter(request.ip);
      if (wait > 0)
        return reply
          .code(statusOf('too_many_requests'))
          .header('retry-after', String(wait))
          .send({ error: `Too many failed sign-ins from ${request.ip}: try again in ${wait} s` });
      const user = userByToken(config, `Bearer ${request.body.token}`);
      if (!user) {
        limit.failed(request.ip);
        return reply.code(statusOf('unauthorized')).send({ error: 'unauthorized' });
      }
      const id = sessions.create(user);
      reply.header('set-cookie', cookieHeader(id, Math.floor(SESSION_MAX_MS / 1000)));
      return sessionView(config, user);
    },
  });

  app.route({
    ...routes.getSession,
    handler: async (request) => sessionView(config, userOf(request)),
  });

  app.route({
    ...routes.signOut,
    handler: async (request, reply) => {
      if (!sameOrigin(request)) return reply.code(statusOf('unauthorized')).send({ error: 'unauthorized' });
      sessions.delete(cookieOf(request.headers.cookie, SESSION_COOKIE));
      reply.header('set-cookie', cookieHeader('', 0));
      return { signedOut: true as const };
    },
  });
}
