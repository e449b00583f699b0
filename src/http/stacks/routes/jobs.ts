import type { FastifyRequest } from 'fastify';
import type { JobInfo } from '../../../../projections/jobs.js';
import { checkEnvAccess } from '../../../stacks/access/auth.js';
import { StacksError } from '../../../stacks/errors.js';
import { type JobChunk, JobSubscriberTooSlowError } from '../../../stacks/jobs/job-book.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import type { EndingStreams } from '../../sse/ending-streams.js';
import { EventStream, streamObserver } from '../../sse/event-stream.js';
import { indexedMessageFrames } from '../../sse/frames.js';
import { holdStream } from '../../sse/stream-budget.js';
import { stacksRoutes as routes } from '../api/routes.js';
import type { StacksHttpLimits } from '../limits.js';
import type { StacksFastify } from '../openapi.js';
import { allow, userOf } from '../request.js';

const JOB_NOT_FOUND = 'Job not found';

/**
 * SSE bytes by chunk: a live chunk reaches every subscriber as the same object (and a stored one, read
 * by several, too), so 50 clients of one job cost one framing of each chunk, not 50. A part of a chunk
 * (subscribers that fell behind resume inside one, each at its own index) is a view of the whole's
 * frames: the whole is framed once, its parts never. Weak: the bytes go with their chunk.
 */
const frames = new WeakMap<JobChunk, { bytes: Buffer; starts: Uint32Array }>();
function framed(chunk: JobChunk): { bytes: Buffer; starts: Uint32Array } {
  let known = frames.get(chunk);
  if (known === undefined) {
    known = indexedMessageFrames(chunk.from, chunk.messages);
    frames.set(chunk, known);
  }
  return known;
}
function framesOf(chunk: JobChunk): Buffer {
  if (chunk.whole === undefined) return framed(chunk).bytes;
  const whole = framed(chunk.whole);
  const skip = chunk.from - chunk.whole.from;
  return whole.bytes.subarray(whole.starts[skip], whole.starts[skip + chunk.messages.length]);
}

/**
 * The job poll and its event stream. Beyond the spec, on purpose (a job's output is its stack's): both need a token and
 * `view` on the job's stack, by the list rule for the job's environment.
 */
export function jobRoutes(
  app: StacksFastify,
  service: StacksService,
  limits: Pick<StacksHttpLimits, 'droppedClientGraceMs' | 'stalledClientMs'>,
  streams: EndingStreams,
): void {
  const jobOf = async (
    request: Pick<FastifyRequest, 'stacksUser'> & { params: { id: string } },
    action: 'view' | 'edit' = 'view',
  ): Promise<JobInfo> => {
    const info = await service.jobs.infoNow(request.params.id);
    if (!info) throw new StacksError('job_not_found', JOB_NOT_FOUND);
    allow(checkEnvAccess(userOf(request), action, info.environmentId));
    return info;
  };

  app.route({
    ...routes.cancelJob,
    handler: async (request, reply) => {
      const info = await jobOf(request, 'edit');
      const cancelled = service.cancelJob(info.id, userOf(request).name);
      return reply.code(202).send(cancelled);
    },
  });

  app.route({
    ...routes.getJob,
    handler: async (request) => {
      const info = await jobOf(request);
      const { after, limit } = request.query;
      const poll = await service.jobs.poll(info.id, { ...(after === undefined ? {} : { after }), limit });
      if (!poll) throw new StacksError('job_not_found', JOB_NOT_FOUND);
      return poll;
    },
  });

  app.route({
    ...routes.getJobEvents,
    handler: async (request, reply) => {
      const info = await jobOf(request);
      const from = resumeIndex(request.headers['last-event-id']);
      holdStream(request, reply);
      const stream = new EventStream(reply);
      streams.add(stream);
      const subscription = service.jobs
        .chunks(info.id, from, {
          ready: () => stream.ready(),
          stalledMs: limits.stalledClientMs,
        })
        .subscribe(
          streamObserver(stream, `stacks: events of job ${info.id}`, {
            next: (chunk) => stream.write(framesOf(chunk)),
            error: (error: unknown) => {
              if (!(error instanceof JobSubscriberTooSlowError)) return stream.end();
              // Too far behind the job: it is told why and where to resume (Last-Event-ID), then let go;
              // one that reads no more is cut off after droppedClientGraceMs (stacks/limits.ts).
              const lastEventId = error.lastIndex >= 0 ? String(error.lastIndex) : null;
              stream.send(JSON.stringify({ type: 'dropped', reason: error.message, lastEventId }));
              stream.end(limits.droppedClientGraceMs);
            },
          }),
        );
      stream.onClose(() => subscription.unsubscribe());
      return reply;
    },
  });
}

/** The index after `Last-Event-ID` (a message index); from the first message without a usable one. */
function resumeIndex(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d+$/.test(value.trim())) return 0;
  const last = Number(value.trim());
  return Number.isSafeInteger(last) ? last + 1 : 0;
}
