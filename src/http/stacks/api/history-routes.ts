import { z } from 'zod';
import { RetentionExecution } from './answers.js';
import {
  AuditPage,
  DeliveriesPage,
  HistorySettings,
  HistorySettingsChange,
  NotificationChannels,
  NotificationTestOutcome,
  RunCompose,
  RunDiff,
  RunImages,
  RunVariables,
} from './history-answers.js';
import { RunParams, StackParams } from './requests.js';
import { fail, jobAnswers, json, UNAUTHORIZED } from './route-answers.js';

/**
 * Schemas of the deploy history, audit, retention and notification routes (deploy history, audit, retention, notifications): parameters, queries,
 * bodies, every status each answers and the exact answers (history-answers.ts). The queries are plain
 * optional strings: the handlers parse and word their own refusals.
 */
const text = (description: string, examples: string[]) =>
  z.string().meta({ description, examples }).optional();
const ENV = text('The environment: an integer id, or `null` (or omitted) for the local one.', ['null', '1']);
const PAGING = {
  limit: text('Entries of a page, 1-500 (default 50).', ['50']),
  offset: text('Entries to skip (default 0).', ['0']),
};
const BAD = fail('Bad input, naming the field (or a malformed stack name or run id).');
const RUN_FAILS = {
  400: BAD,
  401: UNAUTHORIZED,
  403: fail("The caller lacks the permission, globally or for the run's environment."),
  404: fail('No such run of that stack (`Run not found`), or a run without recorded content.'),
} as const;
const STACK_FAILS = {
  400: BAD,
  401: UNAUTHORIZED,
  403: fail("The caller lacks the permission for the stack's environment."),
  404: fail('No such stack or environment.'),
} as const;
const ADMIN_FAILS = {
  400: BAD,
  401: UNAUTHORIZED,
  403: fail('Only an admin may.'),
} as const;
const JOB = jobAnswers(
  'The job started: follow it by its id.',
  'With `Accept: application/json`: the job failed; or an internal error.',
);
const HISTORY = ['deploy history'];

/** A route: its method and URL (what the handlers register and the page calls), and its schema. */
const route = <M extends string, U extends string, E extends object, R extends object>(
  method: M,
  url: U,
  operationId: string,
  summary: string,
  extra: E,
  response: R,
) => ({ method, url, schema: { operationId, summary, tags: HISTORY, ...extra, response } });

export const historySchemas = {
  getRunCompose: route(
    'GET',
    '/api/stacks/:name/deploys/:runId/compose',
    'getRunCompose',
    'The compose text a run deployed',
    { params: RunParams },
    { 200: json('The text and its hash.', RunCompose), ...RUN_FAILS },
  ),
  getRunVariables: route(
    'GET',
    '/api/stacks/:name/deploys/:runId/variables',
    'getRunVariables',
    'The variables a run deployed (secrets by name only)',
    { params: RunParams },
    { 200: json('The variables.', RunVariables), ...RUN_FAILS },
  ),
  getRunImages: route(
    'GET',
    '/api/stacks/:name/deploys/:runId/images',
    'getRunImages',
    'The image each service of a run ran (id and registry digest)',
    { params: RunParams },
    { 200: json('The images.', RunImages), ...RUN_FAILS },
  ),
  getRunDiff: route(
    'GET',
    '/api/stacks/:name/deploys/:runId/diff',
    'getRunDiff',
    'The difference of two runs (`?to=<runId>`)',
    {
      params: RunParams,
      querystring: z.object({ to: text('The run to compare with (required), of the same stack.', ['2']) }),
    },
    {
      200: json('The diff.', RunDiff),
      ...RUN_FAILS,
      400: fail('No `to`, or a malformed stack name or run id.'),
    },
  ),
  redeployRun: route(
    'POST',
    '/api/stacks/:name/deploys/:runId/redeploy',
    'redeployRun',
    'Redeploy what a run deployed (a recorded run)',
    { params: RunParams },
    {
      ...JOB,
      ...RUN_FAILS,
      400: fail('A secret the run deployed is no longer a variable of the stack (named), or bad input.'),
      409: fail('The stack has a job running.'),
    },
  ),
  getHistorySettings: route(
    'GET',
    '/api/stacks/:name/history-settings',
    'getHistorySettings',
    "A stack's auto-rollback and retention settings",
    { params: StackParams, querystring: z.object({ env: ENV }) },
    { 200: json('The settings.', HistorySettings), ...STACK_FAILS },
  ),
  setHistorySettings: route(
    'PUT',
    '/api/stacks/:name/history-settings',
    'setHistorySettings',
    "Change a stack's auto-rollback and retention settings",
    {
      params: StackParams,
      querystring: z.object({ env: ENV }),
      body: HistorySettingsChange.nullish(),
    },
    { 200: json('The settings now.', HistorySettings), ...STACK_FAILS },
  ),
  listAudit: route(
    'GET',
    '/api/audit',
    'listAudit',
    'The audit trail, newest first (admins only); `format=ndjson` streams it',
    {
      querystring: z.object({
        user: text('Only what this user did.', ['admin']),
        stack: text('Only this stack.', ['web']),
        env: text('Only this environment (`null`: the local one); omitted: all.', ['null']),
        type: text('Only these types, comma-separated.', ['StackCreated,RunDeleted']),
        since: text('From this time on (ISO 8601).', ['2026-11-25T00:00:00Z']),
        until: text('Up to this time (ISO 8601).', ['2026-11-26T00:00:00Z']),
        format: text('`json` (default: a page) or `ndjson` (every matching entry, an attachment).', [
          'ndjson',
        ]),
        ...PAGING,
      }),
    },
    {
      200: {
        description:
          'A page of entries; with `format=ndjson` every matching entry, one AuditEntry (`#/components/schemas/AuditEntry`) a line, as the attachment `audit.ndjson`.',
        content: {
          'application/json': { schema: AuditPage },
          'application/x-ndjson': { schema: z.string() },
        },
      },
      ...ADMIN_FAILS,
    },
  ),
  runRetention: route(
    'POST',
    '/api/schedules/deploy_run_retention/run',
    'runRetention',
    'Run the deploy-run retention now',
    {},
    {
      200: json('The closed execution row.', RetentionExecution),
      401: UNAUTHORIZED,
      403: fail('Needs an admin or the stacks edit permission.'),
      409: fail('A retention is running.'),
    },
  ),
  listNotificationChannels: route(
    'GET',
    '/api/notifications',
    'listNotificationChannels',
    'The notification channels of the config (admins only)',
    {},
    {
      200: json('Every channel, in config order.', NotificationChannels),
      401: UNAUTHORIZED,
      403: fail('Only an admin may.'),
    },
  ),
  testNotification: route(
    'POST',
    '/api/notifications/:name/test',
    'testNotification',
    'Send a test message to a channel (admins only)',
    {
      params: z.object({
        name: z.string().meta({ description: 'A channel of the config.', examples: ['hook'] }),
      }),
    },
    {
      200: json('The outcome (a failed send is `ok: false`, still 200).', NotificationTestOutcome),
      401: UNAUTHORIZED,
      403: fail('Only an admin may.'),
      404: fail('No such channel.'),
    },
  ),
  listDeliveries: route(
    'GET',
    '/api/notifications/deliveries',
    'listDeliveries',
    'Notification deliveries and their attempts (admins only)',
    { querystring: z.object(PAGING) },
    { 200: json('A page of deliveries, newest first.', DeliveriesPage), ...ADMIN_FAILS },
  ),
};
