import { z } from 'zod';
import { ErrorBody, JobAccepted, JobOutcome } from './answers.js';
import { RunParams, StackParams } from './requests.js';

/**
 * Schemas of issue 19's routes (deploy history, audit, retention, notifications): parameters and
 * statuses declared; the answers' own shapes are documented in the README and declared here as open
 * objects until they get zod schemas of their own.
 */
const json = <S extends z.ZodType>(description: string, schema: S) =>
  ({ description, content: { 'application/json': { schema } } }) as const;
const fail = (description: string) => json(description, ErrorBody);
const ANSWER = z.looseObject({});
const COMMON = {
  400: fail('Bad input, naming the field.'),
  401: fail('No `Authorization: Bearer <token>`, or an unknown token (`unauthorized`).'),
  403: fail('The caller lacks the permission the route needs.'),
  404: fail('No such stack, run, channel or environment, or a run without recorded content.'),
} as const;
const JOB = {
  202: json('The job started: follow it by its id.', JobAccepted),
  200: json('With `Accept: application/json`: the job ended and succeeded.', JobOutcome),
  500: json(
    'With `Accept: application/json`: the job failed; or an internal error.',
    z.union([JobOutcome, ErrorBody]),
  ),
} as const;
const HISTORY = ['deploy history'];

const route = (
  operationId: string,
  summary: string,
  extra: Record<string, unknown>,
  ok: Record<string, unknown>,
) => ({
  schema: { operationId, summary, tags: HISTORY, ...extra, response: { ...COMMON, ...ok } },
});

export const historySchemas = {
  getRunCompose: route(
    'getRunCompose',
    'The compose text a run deployed',
    { params: RunParams },
    { 200: json('The text.', ANSWER) },
  ),
  getRunVariables: route(
    'getRunVariables',
    'The variables a run deployed (secrets by name only)',
    { params: RunParams },
    { 200: json('The variables.', ANSWER) },
  ),
  getRunDiff: route(
    'getRunDiff',
    'The difference of two runs (`?to=<runId>`)',
    { params: RunParams },
    { 200: json('The diff.', ANSWER) },
  ),
  redeployRun: route(
    'redeployRun',
    'Redeploy what a run deployed (a recorded run)',
    { params: RunParams },
    { ...JOB, 409: fail('The stack has a job running.') },
  ),
  getHistorySettings: route(
    'getHistorySettings',
    "A stack's auto-rollback and retention settings",
    { params: StackParams },
    { 200: json('The settings.', ANSWER) },
  ),
  setHistorySettings: route(
    'setHistorySettings',
    "Change a stack's auto-rollback and retention settings",
    { params: StackParams },
    { 200: json('The settings.', ANSWER) },
  ),
  listAudit: route(
    'listAudit',
    'The audit trail, newest first (admins only); `format=ndjson` streams it',
    {},
    { 200: json('A page of entries.', ANSWER) },
  ),
  runRetention: route(
    'runRetention',
    'Run the deploy-run retention now',
    {},
    { 200: json('The closed execution row.', ANSWER), 409: fail('A retention is running.') },
  ),
  testNotification: route(
    'testNotification',
    'Send a test message to a channel (admins only)',
    { params: z.object({ name: z.string() }) },
    { 200: json('The outcome.', ANSWER) },
  ),
  listDeliveries: route(
    'listDeliveries',
    'Notification deliveries and their attempts (admins only)',
    {},
    { 200: json('A page of deliveries.', ANSWER) },
  ),
};
