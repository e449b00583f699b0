import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DeployRun } from '../../projections/deploy-runs.js';
import { checkEnvAccess, checkRunAccess } from '../stacks/auth.js';
import { badRequest, notFound, StacksError } from '../stacks/errors.js';
import { pagingParam } from '../stacks/executions-list.js';
import { checkLogOffset, followLog as followLogFile, LogOffsetError, logPage } from '../stacks/log-reader.js';
import { parseRunId, parseStackName } from '../stacks/names.js';
import type { StacksService } from '../stacks/service.js';
import type { StackAction } from '../stacks/types.js';
import { EventStream } from './event-stream.js';
import { logLineFrames } from './sse-frames.js';
import { allow, envOf, userOf } from './stacks-request.js';

/** The plain log read's page when `limit` is not given (bytes), and the largest one. */
export const DEFAULT_LOG_PAGE_BYTES = 4 * 1024 * 1024;
export const MAX_LOG_PAGE_BYTES = 64 * 1024 * 1024;

/**
 * The run endpoints of the spec: list (rule 3 with the list permission rule), and the three single-run
 * endpoints (rule 2: the run's own environment, never a caller's `env`).
 */
export function runRoutes(app: FastifyInstance, service: StacksService): void {
  /**
   * The single-run checks, in the spec's order: the global permission, then that the run exists and is
   * of the stack in the path (404 Run not found), then the permission for the run's own environment.
   */
  const runOf = (request: FastifyRequest, action: StackAction): DeployRun => {
    const { name, runId } = request.params as { name: string; runId: string };
    const user = userOf(request);
    const stack = parseStackName(name);
    const id = parseRunId(runId);
    allow(checkRunAccess(user, action, null));
    const run = service.runs.get(id);
    if (!run || run.stack !== stack) throw notFound('Run not found');
    allow(checkRunAccess(user, action, run.environmentId));
    return run;
  };

  app.get('/api/stacks/:name/deploys', async (request) => {
    const env = envOf(request);
    const user = userOf(request);
    allow(checkEnvAccess(user, 'view', env));
    service.environment(env);
    const stack = parseStackName((request.params as { name: string }).name);
    return Promise.all(service.runs.list(stack, env).map((run) => service.runs.json(run)));
  });

  app.get('/api/stacks/:name/deploys/:runId', async (request) => service.runs.json(runOf(request, 'view')));

  app.delete('/api/stacks/:name/deploys/:runId', async (request) => {
    const run = runOf(request, 'edit');
    return service.runs.deleteRun(run.id, userOf(request).name, run.stack);
  });

  app.get('/api/stacks/:name/deploys/:runId/log', async (request, reply) => {
    const run = runOf(request, 'view');
    const query = request.query as Record<string, unknown>;
    const follow = query.follow;
    if (follow === 'true' || follow === '1') {
      const offset = resumeOffset(request);
      await checked(checkLogOffset(service.runs.logPathOf(run), offset));
      followLog(service, run, offset, reply);
      return reply;
    }
    const offset = pagingParam(query.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = pagingParam(query.limit, 'limit', DEFAULT_LOG_PAGE_BYTES, 1, MAX_LOG_PAGE_BYTES);
    const page = await checked(logPage(service.runs.logPathOf(run), offset, limit));
    if (page === undefined) throw new StacksError(404, 'Log not found');
    reply
      .type('text/plain; charset=utf-8')
      .header('x-log-size', page.size)
      .header('x-log-next-offset', page.end);
    if (page.end === page.start) {
      await page.handle.close();
      return reply.send('');
    }
    // Streamed from the file: the page is never held whole (the stream closes the handle).
    const body = page.handle.createReadStream({ start: page.start, end: page.end - 1 });
    return reply.header('content-length', page.end - page.start).send(body);
  });
}

/** A log offset that is not a line start answers 400. */
async function checked<T>(reading: Promise<T>): Promise<T> {
  try {
    return await reading;
  } catch (error) {
    if (error instanceof LogOffsetError) throw badRequest(error.message);
    throw error;
  }
}

/**
 * Where a followed log starts: after the line whose id a reconnecting client sends (`Last-Event-ID`,
 * a byte offset), else `?offset=`, else the first line.
 */
function resumeOffset(request: FastifyRequest): number {
  const header = request.headers['last-event-id'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && value.trim() !== '')
    return pagingParam(value.trim(), 'Last-Event-ID', 0, 0, Number.MAX_SAFE_INTEGER);
  return pagingParam(
    (request.query as Record<string, unknown>).offset,
    'offset',
    0,
    0,
    Number.MAX_SAFE_INTEGER,
  );
}

/**
 * `log?follow=true`: the lines from `offset` (a line start), read from the file as the client takes
 * them — a read at a time, the next one only once the socket has drained — live while the run runs,
 * then `{type: 'end', status}`. A slow client's backlog stays in the file: it is never dropped for it.
 */
function followLog(service: StacksService, run: DeployRun, offset: number, reply: FastifyReply): void {
  const follow = service.runs.followLog(run.id);
  const stream = new EventStream(reply);
  const pump = async () => {
    for await (const batch of followLogFile(follow.source, offset, stream.closed)) {
      if (!stream.open) return;
      // Each line an event whose id is the byte offset after it: where a reconnecting client resumes.
      stream.write(logLineFrames(batch.bytes, batch.at));
      await stream.ready();
    }
    if (stream.open) stream.send(JSON.stringify({ type: 'end', status: await follow.status() }));
  };
  pump()
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`stacks: log of run ${run.id}: the event stream was ended: ${message}\n`);
      stream.send(JSON.stringify({ type: 'error', error: message }));
    })
    .finally(() => stream.end());
}
