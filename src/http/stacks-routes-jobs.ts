import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobInfo } from '../../projections/jobs.js';
import { checkEnvAccess } from '../stacks/auth.js';
import { notFound } from '../stacks/errors.js';
import type { StacksService } from '../stacks/service.js';
import { EventStream, eventFrame } from './event-stream.js';
import { allow, userOf } from './stacks-request.js';

const JOB_NOT_FOUND = 'Job not found';

/**
 * Frames by message object: a live message reaches every subscriber as the same object, so 50 clients
 * of one job cost one JSON.stringify per message, not 50. Weak: frames go with their messages.
 */
const frames = new WeakMap<object, string>();
function frameOf(index: number, message: object): string {
  let frame = frames.get(message);
  if (frame === undefined) {
    frame = eventFrame(JSON.stringify(message), index);
    frames.set(message, frame);
  }
  return frame;
}

/**
 * The job poll and its event stream. Beyond the spec, on purpose (issue 6): both need a token and
 * `view` on the job's stack, by the list rule for the job's environment.
 */
export function jobRoutes(app: FastifyInstance, service: StacksService): void {
  const jobOf = (request: FastifyRequest): JobInfo => {
    const { id } = request.params as { id: string };
    const info = service.jobs.info(id);
    if (!info) throw notFound(JOB_NOT_FOUND);
    allow(checkEnvAccess(userOf(request), 'view', info.environmentId));
    return info;
  };

  app.get('/api/jobs/:id', async (request) => {
    const info = jobOf(request);
    const poll = await service.jobs.poll(info.id);
    if (!poll) throw notFound(JOB_NOT_FOUND);
    return poll;
  });

  app.get('/api/jobs/:id/events', async (request, reply) => {
    const info = jobOf(request);
    const from = resumeIndex(request.headers['last-event-id']);
    const stream = new EventStream(reply);
    const subscription = service.jobs.messages(info.id, from, { ready: () => stream.ready() }).subscribe({
      next: ({ index, message }) => stream.write(frameOf(index, message)),
      complete: () => stream.end(),
      // Too slow, or the job's stream was deleted: the client may resume with Last-Event-ID.
      error: () => stream.end(),
    });
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
