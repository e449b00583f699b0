import type { Socket } from 'node:net';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ContainerEvents } from '../../stacks/engine/container-events.js';
import { Engines } from '../../stacks/engine/engines.js';
import type { Timers } from '../../stacks/engine/image-check-schedule.js';
import { isStacksError, STORE_FAILED, statusOf, storeFailed } from '../../stacks/errors.js';
import type { GitStacks } from '../../stacks/git/git-stacks.js';
import { StackStatusReader } from '../../stacks/stack/status.js';
import type { StacksService } from '../../stacks/stacks-service.js';
import { StoreFailedError } from '../../store/errors.js';
import { loopbackHost } from '../loopback-host.js';
import { parseQuery } from '../query-string.js';
import { EndingStreams } from '../sse/ending-streams.js';
import { StreamBudget } from '../sse/stream-budget.js';
import { fail } from './api/route-answers.js';
import { ConnectionBudget } from './connection-budget.js';
import {
  bodyLimitOf,
  DEFAULT_STACKS_HTTP_LIMITS,
  SMALL_BODY_LIMIT,
  type StacksHttpLimits,
} from './limits.js';
import {
  documentRoute,
  isPageRoute,
  SESSION_COOKIE,
  useStacksSchemas,
  validationMessage,
} from './openapi.js';
import { activityRoutes } from './routes/activity.js';
import { adoptionRoutes } from './routes/adoption.js';
import { auditRoutes } from './routes/audit.js';
import { consoleRoutes } from './routes/console.js';
import { containerRoutes } from './routes/containers.js';
import { engineRoutes } from './routes/engines.js';
import { changeRoutes, type EngineFeed } from './routes/events.js';
import { gitStackRoutes } from './routes/git.js';
import { healthRoutes } from './routes/health.js';
import { historyRoutes } from './routes/history.js';
import { jobRoutes } from './routes/jobs.js';
import { notificationRoutes } from './routes/notifications.js';
import { retentionRoutes } from './routes/retention.js';
import { runRoutes } from './routes/runs.js';
import { scheduleRoutes } from './routes/schedules.js';
import { stackRoutes } from './routes/stacks.js';
import { updateRoutes } from './routes/updates.js';
import { callerOf, cookieOf, Sessions, sessionRoutes } from './session.js';
import { SignInLimit } from './sign-in-limit.js';
import { uiRoutes } from './ui-static.js';

/** A route as the app registered it. */
interface RegisteredRoute {
  method: string;
  url: string;
}

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route the app registered (Fastify's own HEAD routes included), once it is ready. */
export const registeredRoutes = (app: FastifyInstance): readonly RegisteredRoute[] =>
  registered.get(app) ?? [];

/**
 * The stacks HTTP surface (docs/stacks.md): every route behind a bearer token or the web page's session
 * cookie (401 `unauthorized`) but the ones whose schema says `security: []` (the git webhook, signed
 * instead; the OpenAPI document; sign-in and sign-out) and the pages (isPageRoute: the docs page, the
 * web page's own files), errors as `{ "error": message }` with the StacksError's status. Every API
 * route declares its schemas (src/http/stacks/api/routes.ts): one without is refused when it is added.
 */
export function stacksApp(
  service: StacksService,
  parts: {
    git?: GitStacks;
    limits?: StacksHttpLimits;
    status?: StackStatusReader;
    /** The streams close() lets end first (ending-streams.ts). */
    streams?: EndingStreams;
    /** The Docker engines the container routes and the change feed follow (engine/). */
    engine?: EngineFeed;
    /**
     * The server listens on a loopback address: a request whose `Host` names anything but this machine
     * is refused (403), as the editor's are — a page whose name was rebound to 127.0.0.1 cannot reach
     * sign-in or a session's cookie.
     */
    loopback?: boolean;
    /** The time the scheduled image update check waits on (engine/image-check-schedule.ts; Node's). */
    timers?: Timers;
  } = {},
): FastifyInstance {
  const limits = parts.limits ?? DEFAULT_STACKS_HTTP_LIMITS;
  const streams = parts.streams ?? new EndingStreams();
  const sessions = new Sessions(service.config);
  const engines = parts.engine?.engines ?? new Engines(service.config);
  const engine: EngineFeed = parts.engine ?? { engines, events: new ContainerEvents(engines) };
  const status = parts.status ?? new StackStatusReader();
  const app = Fastify({
    bodyLimit: SMALL_BODY_LIMIT,
    logger: false,
    return503OnClosing: true,
    // Each parameter once, its first value (`?env=1&env=2` is environment 1, as the routes always read
    // it), on an object without a prototype: the schemas see strings only.
    routerOptions: { querystringParser: parseQuery },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two time-outs every connectionsCheckingInterval (30 s by default).
    // Node checks headersTimeout against the requestTimeout it is created with (Fastify sets its own after).
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
  });
  // The cap of all connections and the budget of unauthenticated ones (connection-budget.ts).
  const connections = new ConnectionBudget({
    max: limits.maxConnections,
    unauthenticated: limits.unauthenticatedConnections,
    graceMs: limits.unauthenticatedGraceMs,
  });
  app.server.on('connection', (socket: Socket) => connections.admit(socket));
  const streamBudget = new StreamBudget(limits.streamsPerUser, limits.streamsPerSession);

  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    const method = String(Array.isArray(route.method) ? route.method[0] : route.method);
    // Each route's own body limit (stacks/limits.ts), unless it sets one.
    route.bodyLimit ??= bodyLimitOf(method, route.url);
    routes.push({ method, url: route.url });
    // Every write may meet a failed store: its 503 is in the document with the route's own.
    if (writes(method, route.url) && route.schema?.response !== undefined)
      route.schema = { ...route.schema, response: withStoreFailed(route.schema.response) };
    // Pages, not API (isPageRoute): no token, no schemas, not in the document.
    if (isPageRoute(route)) {
      route.config = { ...route.config, withoutToken: true };
      return;
    }
    const schema = route.schema;
    if (schema?.response === undefined || (route.url.includes(':') && schema.params === undefined))
      throw new Error(
        `${method} ${route.url} declares no schemas: every stacks route takes its own from src/http/stacks/api/routes.ts`,
      );
    // The document and the token check read the same word: `security: []` is a route without a token.
    if (Array.isArray(schema.security) && schema.security.length === 0)
      route.config = { ...route.config, withoutToken: true };
  });

  // An answer given before the body was read (401, 404, 413...) closes the connection: otherwise Node
  // would read the rest of the body, and throw it away, to keep the connection for another request.
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) reply.header('connection', 'close');
  });

  app.addHook('onRequest', async (request, reply) => {
    if (parts.loopback && !loopbackHost(request.headers.host))
      return reply.code(statusOf('forbidden_host')).send({
        error: `Host ${JSON.stringify(request.headers.host ?? '')} is not allowed: this server listens on loopback; name it 127.0.0.1, localhost or [::1]`,
      });
    // A Bearer token (machines) or the web page's session cookie (stacks/session.ts). Asked on every
    // route, so that a connection known to carry a user leaves the unauthenticated budget.
    const user = callerOf(service.config, sessions, request);
    if (user) connections.authenticated(request.raw.socket);
    // The git webhook is signed with the stack's secret instead (stacks/routes/git.ts); sign-in carries
    // its token in the body; pages hold no data.
    if (request.routeOptions.config.withoutToken === true) {
      // A route that needs none may still say more to a caller with a token (GET /api/health).
      if (user) request.stacksUser = user;
      return;
    }
    if (!user) return reply.code(statusOf('unauthorized')).send({ error: 'unauthorized' });
    request.stacksUser = user;
    if (request.headers.authorization === undefined)
      request.stacksSession = cookieOf(request.headers.cookie, SESSION_COOKIE);
    request.stacksStreams = streamBudget;
  });

  // A local store that failed takes no write until a restart: a write is refused before it starts
  // anything (a compose job whose run could not be recorded). A network store is tried by each write.
  app.addHook('preHandler', async (request) => {
    const failure = service.store.failure;
    if (failure?.clears === 'restart' && writes(request.method, request.routeOptions.url ?? ''))
      throw storeFailed(failure);
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    // A write the store could not make, however it was wrapped on its way (docs/operations.md#when-the-store-fails).
    const failed = storeFailureOf(error);
    if (failed) {
      const refusal = storeFailed(service.store.failure ?? { reason: failed.reason, clears: 'next-write' });
      return reply.code(503).send({ error: refusal.message, ...refusal.fields });
    }
    if (isStacksError(error)) return reply.code(error.status).send({ error: error.message, ...error.fields });
    // A request its route's schema refuses: the schema's own words (api/requests.ts).
    if (hasZodFastifySchemaValidationErrors(error))
      return reply.code(statusOf('invalid_request')).send({ error: validationMessage(error.validation) });
    // Fastify's own request errors (bad JSON, body too large, unsupported media type).
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500)
      return reply.code(error.statusCode).send({ error: error.message });
    process.stderr.write(`stacks: ${error.stack ?? error.message}\n`);
    // A failure met outside the store's writes (a lease's own connection) while the store is known to
    // have failed: the store is why.
    const failure = service.store.failure;
    if (failure) {
      const refusal = storeFailed(failure);
      return reply.code(503).send({ error: refusal.message, ...refusal.fields });
    }
    return reply.code(statusOf('internal_error')).send({ error: `Internal error: ${error.message}` });
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(statusOf('route_not_found'))
      .send({ error: `No route ${request.method} ${request.url.split('?')[0]}` }),
  );

  // Before the routes: its hook turns a route with `wsHandler` into one that may upgrade (the console).
  void app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  const typed = useStacksSchemas(app);
  // After the document's plugin has loaded, so that it sees every route.
  typed.register(async (scope) => {
    uiRoutes(scope);
    sessionRoutes(
      scope,
      service.config,
      sessions,
      new SignInLimit(limits.signInAttempts, limits.signInWindowMs),
    );
    changeRoutes(scope, service, engine);
    stackRoutes(scope, service, status);
    containerRoutes(scope, service, engine, status, streams);
    consoleRoutes(scope, service, engine);
    engineRoutes(scope, service, engine);
    adoptionRoutes(scope, service, engine);
    updateRoutes(scope, service, engine, parts.timers);
    runRoutes(scope, service, streams);
    activityRoutes(scope, service);
    // The deploy history, audit, retention and notification routes: no zod schemas yet.
    historyRoutes(scope, service);
    auditRoutes(scope, service);
    retentionRoutes(scope, service);
    notificationRoutes(scope, service);
    jobRoutes(scope, service, limits, streams);
    healthRoutes(scope, service.store);
    if (parts.git) gitStackRoutes(scope, parts.git);
    scheduleRoutes(scope, service);
    documentRoute(scope);
  });
  return app;
}

/**
 * Whether a route writes (what a failed store refuses): every POST, PUT, PATCH and DELETE but sign-in
 * and sign-out, which record nothing.
 */
function writes(method: string, url: string): boolean {
  return ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) && url !== '/api/session';
}

/** The StoreFailedError among an error and its causes. */
function storeFailureOf(error: unknown): StoreFailedError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (e instanceof StoreFailedError) return e;
  return undefined;
}

const STORE_FAILED_ANSWER = fail(
  `The event store failed (\`${STORE_FAILED}\`, with its \`reason\`): nothing of the request was recorded. A local store takes writes again after a restart, a network store with the next write it takes (README, "When the store fails"; \`GET /api/health\`).`,
);

/** A route's answers with the failed store's 503 (beside a 503 of its own, when it has one). */
function withStoreFailed(response: unknown): Record<string, unknown> {
  const answers = { ...(response as Record<string, unknown>) };
  const own = answers[503] as { description?: string } | undefined;
  if (own?.description?.includes(STORE_FAILED)) return answers;
  answers[503] =
    own === undefined
      ? STORE_FAILED_ANSWER
      : { ...STORE_FAILED_ANSWER, description: `${own.description} Or: ${STORE_FAILED_ANSWER.description}` };
  return answers;
}
