import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobInfo } from '../../projections/jobs.js';
import { checkEnvAccess } from '../stacks/auth.js';
import { notFound } from '../stacks/errors.js';
import { pagingParam } from '../stacks/executions-list.js';
import {
  DEFAULT_POLL_LIMIT,
  type JobChunk,
  JobSubscriberTooSlowError,
  MAX_POLL_LIMIT,
} from '../stacks/jobs.js';
import type { StacksService } from '../stacks/service.js';
import { EventStream, streamObserver } from './event-stream.js';
import { messageFrames } from './sse-frames.js';
import { allow, userOf } from './stacks-request.js';

const JOB_NOT_FOUND = 'Job not found';

/**
 * SSE bytes by chunk: a live chunk reaches every subscriber as the same object (and a stored one, read
 * by several, too), so 50 clients of one job cost one framing of each chunk, not 50. Weak: the bytes go
 * with their chunk.
 */
const frames = new WeakMap<JobChunk, Buffer>();
function framesOf(chunk: JobChunk): Buffer {
  let bytes = frames.get(chunk);
  if (bytes === undefined) {
    bytes = messageFrames(chunk.from, chunk.messages);
    frames.set(chunk, bytes);
  }
  return bytes;
}

/**
 * The job poll and its event stream. Beyond the spec, on purpose (issue 6): both need a token and
 * `view` on the job's stack, by the list rule for the job's environment.
 */
export function jobRoutes(app: FastifyInstance, service: StacksService, droppedClientGraceMs: number): void {
  const jobOf = (request: FastifyRequest): JobInfo => {
    const { id } = request.params as { id: string };
    const info = service.jobs.info(id);
    if (!info) throw notFound(JOB_NOT_FOUND);
    allow(checkEnvAccess(userOf(request), 'view', info.environmentId));
    return info;
  };

  app.get('/api/jobs/:id', async (request) => {
    const info = jobOf(request);
    const query = request.query as Record<string, unknown>;
    const after =
      query.after === undefined
        ? undefined
        : pagingParam(query.after, 'after', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = pagingParam(query.limit, 'limit', DEFAULT_POLL_LIMIT, 1, MAX_POLL_LIMIT);
    const poll = await service.jobs.poll(info.id, { ...(after === undefined ? {} : { after }), limit });
    if (!poll) throw notFound(JOB_NOT_FOUND);
    return poll;
  });

  app.get('/api/jobs/:id/events', async (request, reply) => {
    const info = jobOf(request);
    const from = resumeIndex(request.headers['last-event-id']);
    const stream = new EventStream(reply);
    const subscription = service.jobs.chunks(info.id, from, { ready: () => stream.ready() }).subscribe(
      streamObserver(stream, `stacks: events of job ${info.id}`, {
        next: (chunk) => stream.write(framesOf(chunk)),
        error: (error: unknown) => {
          if (!(error instanceof JobSubscriberTooSlowError)) return stream.end();
          // Too slow: more of the job's output waited for this client than it may hold. It is told why
          // and where to resume (Last-Event-ID), then let go; one that reads no more is cut off after
          // droppedClientGraceMs (stacks-limits.ts).
          const lastEventId = error.lastIndex >= 0 ? String(error.lastIndex) : null;
          stream.send(JSON.stringify({ type: 'dropped', reason: error.message, lastEventId }));
          stream.end(droppedClientGraceMs);
        },
      }),
    );
    stream.onClose(() => subscription.unsubscribe());
    return reply;
  });
}

/** The index after `Last-Event-ID` (a message index); from the first message without a usable one. */
function resumeIndex(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d+$/.test(value.trim())) return 0;
  const last = Number(value.trim());
  return Number.isSafeInteger(last) ? last + 1 : 0;
}
