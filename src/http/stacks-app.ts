import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { userByToken } from '../stacks/auth.js';
import { isStacksError } from '../stacks/errors.js';
import type { GitStacks } from '../stacks/git-stacks.js';
import type { StacksService } from '../stacks/service.js';
import { gitStackRoutes } from './stacks-routes-git.js';
import { jobRoutes } from './stacks-routes-jobs.js';
import { runRoutes } from './stacks-routes-runs.js';
import { scheduleRoutes } from './stacks-routes-schedules.js';
import { stackRoutes } from './stacks-routes-stacks.js';

/** Compose files and variable sets are small; this leaves room and still bounds a request. */
const BODY_LIMIT = 8 * 1024 * 1024;

/**
 * The stacks HTTP surface (STACKS.md): every route behind a bearer token (401 `unauthorized`) but the
 * git webhook (signed instead), errors
 * as `{ "error": message }` with the StacksError's status.
 */
export function stacksApp(service: StacksService, parts: { git?: GitStacks } = {}): FastifyInstance {
  const app = Fastify({ bodyLimit: BODY_LIMIT, logger: false, return503OnClosing: true });

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

  stackRoutes(app, service);
  runRoutes(app, service);
  jobRoutes(app, service);
  if (parts.git) gitStackRoutes(app, parts.git);
  scheduleRoutes(app, service);
  return app;
}
