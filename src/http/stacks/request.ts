import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { EnvironmentId } from '../../../streams/stacks.js';
import { type AccessDecision, checkEnvAccess } from '../../stacks/access/auth.js';
import type { User } from '../../stacks/contracts.js';
import { StacksError } from '../../stacks/errors.js';
import type { StacksService, StartedJob } from '../../stacks/stacks-service.js';
import type { JobAccepted, JobOutcome } from './api/answers.js';

/**
 * What every stacks route reads from a request (the authenticated user, set by the app's hook) and the
 * two answers of a job: 202 with its ids at once, or with `Accept: application/json` its result. What a request takes is checked by its schema.
 */

declare module 'fastify' {
  interface FastifyRequest {
    stacksUser?: User;
  }
}

export function userOf(request: Pick<FastifyRequest, 'stacksUser'>): User {
  const user = request.stacksUser;
  // The app's onRequest hook answers 401 before any route runs; reaching here without a user is a bug.
  if (!user) throw new StacksError('internal_error', 'no authenticated user on the request');
  return user;
}

/** Throws the 403 of a refused decision. */
export function allow(decision: AccessDecision): void {
  if (!decision.ok) throw new StacksError('forbidden', decision.error);
}

/**
 * The environment a read of a stack's records names (`?env=`): the caller may view it (else 403) and
 * it is configured (else 404), before anything of it is read.
 */
export function viewedEnvironment(
  request: Pick<FastifyRequest, 'stacksUser'> & { query: { env: EnvironmentId } },
  service: Pick<StacksService, 'environment'>,
): EnvironmentId {
  const env = request.query.env;
  allow(checkEnvAccess(userOf(request), 'view', env));
  service.environment(env);
  return env;
}

/** Whether the caller asked for the answer after the job (`Accept: application/json`). */
const wantsJson = (request: Pick<FastifyRequest, 'headers'>): boolean =>
  (request.headers.accept ?? '').toLowerCase().includes('application/json');

/**
 * The job answer: 202 with the ids at once on the streaming path; with `Accept: application/json` the
 * result once the job has ended (200 on success, 500 with the redacted error otherwise).
 */
export async function answerJob(
  request: Pick<FastifyRequest, 'headers'>,
  reply: JobReply,
  started: StartedJob,
): Promise<void> {
  const ids = { jobId: started.jobId, runId: started.runId };
  if (!wantsJson(request)) {
    reply.code(202).send(ids);
    return;
  }
  const result = await started.result;
  const body: z.output<typeof JobOutcome> = {
    ...(result.success ? {} : { error: result.error ?? 'The job failed' }),
    ...ids,
    success: result.success,
    ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
    output: result.output,
  };
  reply.code(result.success ? 200 : 500).send(body);
}

/** The reply of a route that answers a job (api/routes.ts, JOB_ANSWERS): typed by its schemas. */
interface JobReply {
  code(status: 202): { send(body: z.output<typeof JobAccepted>): unknown };
  code(status: 200 | 500): { send(body: z.output<typeof JobOutcome>): unknown };
}
