import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnvironmentId } from '../../streams/stacks.js';
import type { AccessDecision } from '../stacks/auth.js';
import { badRequest, StacksError } from '../stacks/errors.js';
import { parseEnvParam } from '../stacks/names.js';
import type { StartedJob } from '../stacks/service.js';
import type { User } from '../stacks/types.js';

/**
 * What every stacks route reads from a request: the authenticated user (set by the app's hook), the
 * `env` query, boolean options of a body, and the two answers of a job (STACKS.md "Job responses").
 */

declare module 'fastify' {
  interface FastifyRequest {
    stacksUser?: User;
  }
}

export function userOf(request: FastifyRequest): User {
  const user = request.stacksUser;
  // The app's onRequest hook answers 401 before any route runs; reaching here without a user is a bug.
  if (!user) throw new StacksError(500, 'no authenticated user on the request');
  return user;
}

/** Throws the 403 of a refused decision. */
export function allow(decision: AccessDecision): void {
  if (!decision.ok) throw new StacksError(403, decision.error);
}

export function envOf(request: FastifyRequest): EnvironmentId {
  const query = request.query as Record<string, string | string[] | undefined>;
  const raw = query.env;
  return parseEnvParam(Array.isArray(raw) ? raw[0] : raw);
}

export function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object');
  return body as Record<string, unknown>;
}

/** An optional boolean field: absent or null = the default; anything but a boolean is a 400. */
export function flag(body: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = body[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw badRequest(`${name} must be a boolean`);
  return value;
}

/** Whether the caller asked for the answer after the job (`Accept: application/json`). */
export const wantsJson = (request: FastifyRequest): boolean =>
  (request.headers.accept ?? '').toLowerCase().includes('application/json');

/**
 * The job answer: 202 with the ids at once on the streaming path; with `Accept: application/json` the
 * result once the job has ended (200 on success, 500 with the redacted error otherwise).
 */
export async function answerJob(request: FastifyRequest, reply: FastifyReply, started: StartedJob) {
  const ids = { jobId: started.jobId, runId: started.runId };
  if (!wantsJson(request)) return reply.code(202).send(ids);
  const result = await started.result;
  const body = {
    ...(result.success ? {} : { error: result.error ?? 'The job failed' }),
    ...ids,
    success: result.success,
    ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
    output: result.output,
  };
  return reply.code(result.success ? 200 : 500).send(body);
}
