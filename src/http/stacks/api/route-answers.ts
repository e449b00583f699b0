/**
 * The answer entries both route tables (routes.ts, history-routes.ts) build their `response` maps from:
 * a JSON answer with what it means, a failure, the failure of a missing or unknown token, and the answers
 * of a job route.
 */
import { z } from 'zod';
import { ErrorBody, JobAccepted, JobOutcome } from './answers.js';

/** A JSON answer and what it means. */
export const json = <S extends z.ZodType>(description: string, schema: S) =>
  ({ description, content: { 'application/json': { schema } } }) as const;

/** A failure; its description starts with a capital, whatever the phrase it starts with. */
export const fail = (description: string) =>
  json(`${description.charAt(0).toUpperCase()}${description.slice(1)}`, ErrorBody);

export const UNAUTHORIZED = fail('No `Authorization: Bearer <token>`, or an unknown token (`unauthorized`).');

/** The refusal of a stream past its caller's bounds (docs/security.md#connections-and-streams). */
export const TOO_MANY_STREAMS = fail(
  'The caller already holds its most streams at once (32 per user, 16 per browser session: `Too many streams: ...`); the connection is closed after it.',
);

/**
 * The three answers of a job route: at once (202, `started`), or after the job with
 * `Accept: application/json` (200, or 500 as `failed` says).
 */
export const jobAnswers = (started: string, failed: string) =>
  ({
    202: json(started, JobAccepted),
    200: json('With `Accept: application/json`: the job ended and succeeded.', JobOutcome),
    500: json(failed, z.union([JobOutcome, ErrorBody])),
  }) as const;
