import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DeployRun } from '../../projections/deploy-runs.js';
import { checkEnvAccess, checkRunAccess } from '../stacks/auth.js';
import { notFound, StacksError } from '../stacks/errors.js';
import { logDownloadName, parseLogQuery, queryLog } from '../stacks/history/log-query.js';
import { readLog } from '../stacks/log-files.js';
import type { StacksService } from '../stacks/service.js';
import type { StackAction } from '../stacks/types.js';
import { EventStream, streamObserver } from './event-stream.js';
import { stacksRoutes as routes } from './stacks-api/routes.js';
import type { StacksFastify } from './stacks-openapi.js';
import { allow, userOf } from './stacks-request.js';

/** Bytes a followed log may have waiting on a slow client before its stream is ended. */
const MAX_FOLLOW_BACKLOG = 8 * 1024 * 1024;

/**
 * The run endpoints of the spec: list (rule 3 with the list permission rule), and the three single-run
 * endpoints (rule 2: the run's own environment, never a caller's `env`).
 */
export function runRoutes(app: StacksFastify, service: StacksService): void {
  /**
   * The single-run checks, in the spec's order (the name and run id were checked by the schema): the
   * global permission, then that the run exists and is of the stack in the path (404 Run not found),
   * then the permission for the run's own environment.
   */
  const runOf = (
    request: Pick<FastifyRequest, 'stacksUser'> & { params: { name: string; runId: number } },
    action: StackAction,
  ): DeployRun => {
    const user = userOf(request);
    allow(checkRunAccess(user, action, null));
    const run = service.runs.get(request.params.runId);
    if (!run || run.stack !== request.params.name) throw notFound('Run not found');
    allow(checkRunAccess(user, action, run.environmentId));
    return run;
  };

  app.route({
    ...routes.listRuns,
    handler: async (request) => {
      const env = request.query.env;
      allow(checkEnvAccess(userOf(request), 'view', env));
      service.environment(env);
      return Promise.all(service.runs.list(request.params.name, env).map((run) => service.runs.json(run)));
    },
  });

  app.route({
    ...routes.getRun,
    handler: async (request) => service.runs.json(runOf(request, 'view')),
  });

  app.route({
    ...routes.deleteRun,
    handler: async (request) => {
      const run = runOf(request, 'edit');
      return service.runs.deleteRun(run.id, userOf(request).name, run.stack);
    },
  });

  app.route({
    ...routes.getRunLog,
    handler: async (request, reply) => {
      const run = runOf(request, 'view');
      if (request.query.follow) {
        followLog(service, run, reply);
        return reply;
      }
      // Issue 19 point 7: a range or a search of a large log, answered as JSON (history/log-query.ts).
      const page = parseLogQuery(request.query as Record<string, unknown>);
      if (page) {
        const answer = await queryLog(service.runs.logPathOf(run), page);
        if (answer === undefined) throw new StacksError(404, 'Log not found');
        return reply
          .type('application/json; charset=utf-8')
          .send(JSON.stringify({ runId: run.id, ...answer }));
      }
      const text = await readLog(service.runs.logPathOf(run));
      if (text === undefined) throw new StacksError(404, 'Log not found');
      if (request.query.download)
        reply.header('content-disposition', `attachment; filename="${logDownloadName(run.stack, run.id)}"`);
      return reply.type('text/plain; charset=utf-8').send(text);
    },
  });
}

/** `log?follow=true`: every line from the first, live while the run runs, then its final status. */
function followLog(service: StacksService, run: DeployRun, reply: FastifyReply): void {
  const stream = new EventStream(reply);
  const subscription = service.runs.followLog(run.id).subscribe(
    streamObserver(stream, `stacks: log of run ${run.id}`, {
      next: (event) => {
        stream.send(JSON.stringify(event));
        // The recorder's feed has no pause: a client this far behind is let go rather than buffered for.
        if (reply.raw.writableLength > MAX_FOLLOW_BACKLOG) stream.end();
      },
      error: (error: unknown) => {
        stream.send(JSON.stringify({ type: 'error', error: (error as Error).message }));
        stream.end();
      },
    }),
  );
  stream.onClose(() => subscription.unsubscribe());
}
