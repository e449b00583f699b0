/**
 * The answer entries both route tables (routes.ts, history-routes.ts) build their `response` maps from:
 * a JSON answer with what it means, a failure, and the failure of a missing or unknown token.
 */
import type { z } from 'zod';
import { ErrorBody } from './answers.js';

/** A JSON answer and what it means. */
export const json = <S extends z.ZodType>(description: string, schema: S) =>
  ({ description, content: { 'application/json': { schema } } }) as const;

/** A failure; its description starts with a capital, whatever the phrase it starts with. */
export const fail = (description: string) =>
  json(`${description.charAt(0).toUpperCase()}${description.slice(1)}`, ErrorBody);

export const UNAUTHORIZED = fail('No `Authorization: Bearer <token>`, or an unknown token (`unauthorized`).');
