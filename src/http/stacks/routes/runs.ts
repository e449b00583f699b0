import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DeployRun } from '../../../../projections/deploy-runs.js';
import { checkGlobal, checkRunAccess } from '../../../stacks/access/auth.js';
import type { StackAction } from '../../../stacks/contracts.js';
import { StacksError } from '../../../stacks/errors.js';
import { logDownloadName, parseLogQuery, queryLog } from '../../../stacks/history/log-query.js';
import { pagingParam } from '../../../stacks/paging.js';
import {
  checkLogOffset,
  followLog as followLogFile,
  LogOffsetError,
  openLogText,
} from '../../../stacks/runs/log-reader.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import type { EndingStreams } from '../../sse/ending-streams.js';
import { EventStream } from '../../sse/event-stream.js';
import { logLineFrames } from '../../sse/frames.js';
import { holdStream } from '../../sse/stream-budget.js';
import { stacksRoutes as routes } from '../api/routes.js';
import type { StacksFastify } from '../openapi.js';
import { allow, userOf, viewedEnvironment } from '../request.js';

/**
 * The run endpoints of the spec: list (rule 3 with the list permission rule), and the three single-run
 * endpoints (rule 2: the run's own environment, never a caller's `env`).
 */
export function runRoutes(app: StacksFastify, service: StacksService, streams: EndingStreams): void {
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
    allow(checkGlobal(user, action));
    const run = service.runs.get(request.params.runId);
    if (!run || run.stack !== request.params.name) throw new StacksError('run_not_found', 'Run not found');
    allow(checkRunAccess(user, action, run.environmentId));
    return run;
  };

  app.route({
    ...routes.listRuns,
    handler: async (request) => {
      const env = viewedEnvironment(request, service);
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
      const path = service.runs.logPathOf(run);
      if (request.query.follow) {
        const offset = resumeOffset(request.headers['last-event-id'], request.query.offset);
        await checked(checkLogOffset(path, offset));
        holdStream(request, reply);
        followLog(service, streams, run, offset, reply);
        return reply;
      }
      // A range or a search of a large log (docs/stacks.md#run-logs-download-range-search), answered as JSON (history/log-query.ts).
      const page = parseLogQuery(request.query as Record<string, unknown>);
      if (page) {
        const answer = await queryLog(service.runs.logPathOf(run), page);
        if (answer === undefined) throw new StacksError('log_not_found', 'Log not found');
        return reply
          .type('application/json; charset=utf-8')
          .send(JSON.stringify({ runId: run.id, ...answer }));
      }
      // Streamed from the file (from `offset`, a line start): the log is never held whole.
      const text = await checked(openLogText(path, request.query.offset ?? 0));
      if (text === undefined) throw new StacksError('log_not_found', 'Log not found');
      if (request.query.download)
        reply.header('content-disposition', `attachment; filename="${logDownloadName(run.stack, run.id)}"`);
      return (
        reply
          .type('text/plain; charset=utf-8')
          .header('content-length', text.bytes)
          .header('x-log-size', text.size)
          // The text, read from the file as the socket takes it (the schema describes the text it carries).
          .send(text.stream as unknown as string)
      );
    },
  });
}

/** A log offset that is not a line start answers 400. */
async function checked<T>(reading: Promise<T>): Promise<T> {
  try {
    return await reading;
  } catch (error) {
    if (error instanceof LogOffsetError) throw new StacksError('invalid_query', error.message);
    throw error;
  }
}

/**
 * Where a followed log starts: after the line whose id a reconnecting client sends (`Last-Event-ID`, a
 * byte offset), else `?offset=`, else the first line.
 */
function resumeOffset(header: string | string[] | undefined, offset: number | undefined): number {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value !== undefined && value !== '')
    return pagingParam(value, 'Last-Event-ID', 0, 0, Number.MAX_SAFE_INTEGER);
  return offset ?? 0;
}

/**
 * `log?follow=true`: the lines from `offset` (a line start), read from the file as the client takes
 * them — a read at a time, the next one only once the socket has drained — live while the run runs,
 * then `{type: 'end', status}`. Each line an event whose id is the byte offset after it. A slow client's
 * backlog stays in the file: it is never dropped for it.
 */
function followLog(
  service: StacksService,
  streams: EndingStreams,
  run: DeployRun,
  offset: number,
  reply: FastifyReply,
): void {
  const follow = service.runs.followLog(run.id);
  const stream = new EventStream(reply);
  streams.add(stream);
  const pump = async () => {
    // Read by hand: the generator's return value says whether the log was read to its end.
    const batches = followLogFile(follow.source, offset, Promise.race([stream.closed, streams.closing]));
    for (let next = await batches.next(); stream.open; next = await batches.next()) {
      // Not read to its end (the server stops while the run goes on elsewhere): no `end`, the client
      // resumes from its Last-Event-ID.
      if (next.done) {
        if (next.value) stream.send(JSON.stringify({ type: 'end', status: await follow.status() }));
        return;
      }
      stream.write(logLineFrames(next.value.bytes, next.value.at));
      await stream.ready();
    }
    // The client has gone: the generator's finally closes the file.
    await batches.return(false);
  };
  pump()
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`stacks: log of run ${run.id}: the event stream was ended: ${message}\n`);
      stream.send(JSON.stringify({ type: 'error', error: message }));
    })
    .finally(() => stream.end());
}
