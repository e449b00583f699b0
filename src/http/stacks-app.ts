import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { userByToken } from '../stacks/auth.js';
import { isStacksError } from '../stacks/errors.js';
import type { GitStacks } from '../stacks/git-stacks.js';
import type { StacksService } from '../stacks/service.js';
import type { StackStatusReader } from '../stacks/stack-status.js';
import {
  bodyLimitOf,
  DEFAULT_STACKS_HTTP_LIMITS,
  SMALL_BODY_LIMIT,
  type StacksHttpLimits,
} from './stacks-limits.js';
import { gitStackRoutes } from './stacks-routes-git.js';
import { jobRoutes } from './stacks-routes-jobs.js';
import { runRoutes } from './stacks-routes-runs.js';
import { scheduleRoutes } from './stacks-routes-schedules.js';
import { stackRoutes } from './stacks-routes-stacks.js';

/**
 * The stacks HTTP surface (STACKS.md): every route behind a bearer token (401 `unauthorized`) but the
 * git webhook (signed instead), errors
 * as `{ "error": message }` with the StacksError's status.
 */
export function stacksApp(
  service: StacksService,
  parts: { git?: GitStacks; limits?: StacksHttpLimits; status?: StackStatusReader } = {},
): FastifyInstance {
  const limits = parts.limits ?? DEFAULT_STACKS_HTTP_LIMITS;
  const app = Fastify({
    bodyLimit: SMALL_BODY_LIMIT,
    logger: false,
    return503OnClosing: true,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two time-outs every connectionsCheckingInterval (30 s by default).
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
  });
  app.server.maxConnections = limits.maxConnections;

  // Each route's own body limit (stacks-limits.ts), unless it sets one.
  app.addHook('onRoute', (route) => {
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    route.bodyLimit ??= bodyLimitOf(String(method), route.url);
  });

  // An answer given before the body was read (401, 404, 413...) closes the connection: otherwise Node
  // would read the rest of the body, and throw it away, to keep the connection for another request.
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) reply.header('connection', 'close');
  });

  app.addHook('onRequest', async (request, reply) => {
    // The git webhook is signed with the stack's secret instead (stacks-routes-git.ts).
    if (request.routeOptions.config.withoutToken === true) return;
    const user = userByToken(service.config, request.headers.authorization);
    if (!user) return reply.code(401).send({ error: 'unauthorized' });
    request.stacksUser = user;
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (isStacksError(error)) return reply.code(error.status).send({ error: error.message });
    // Fastify's own request errors (bad JSON, body too large, unsupported media type).
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500)
      return reply.code(error.statusCode).send({ error: error.message });
    process.stderr.write(`stacks: ${error.stack ?? error.message}\n`);
    return reply.code(500).send({ error: `Internal error: ${error.message}` });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: `No route ${request.method} ${request.url.split('?')[0]}` }),
  );

  stackRoutes(app, service, parts.status);
  runRoutes(app, service);
  jobRoutes(app, service);
  if (parts.git) gitStackRoutes(app, parts.git);
  scheduleRoutes(app, service);
  return app;
}
