/**
 * Schemas of a stack's Activity (src/http/stacks/routes/activity.ts, src/stacks/stack/activity.ts): the stack
 * operations (start, stop, restart, down) that ended, with who, when, how, and their kept output.
 * They are jobs, not deploy runs: `GET …/deploys` never lists them. Registered, documented and typed for
 * the page like the route table's (client.ts). This module imports no Node module.
 */
import { z } from 'zod';
import { EnvQuery, StackName } from './requests.js';
import { fail, json, UNAUTHORIZED } from './route-answers.js';

const KEPT = 'the last 200 lines it printed, at most 128 KiB';

const ActivityEntry = z
  .object({
    jobId: z.string().meta({ description: 'Its job (`GET /api/jobs/{id}` while the job is kept).' }),
    operation: z.enum(['start', 'stop', 'restart', 'down']),
    userId: z.string().nullable().meta({ description: 'Who asked for it.' }),
    startedAt: z.string().meta({ description: 'RFC 3339.' }),
    finishedAt: z.string().meta({ description: 'RFC 3339.' }),
    status: z.enum(['success', 'failed', 'cancelled']),
    exitCode: z
      .number()
      .nullable()
      .meta({ description: "Compose's exit code; null when unknown (a cancel, a time-out)." }),
    cancelledBy: z.string().nullable().optional().meta({ description: 'Of a cancelled one: who.' }),
    error: z.string().nullable().meta({ description: 'The redacted error of one that did not succeed.' }),
    lines: z.number().meta({ description: 'Output lines it printed (after redaction).' }),
    keptLines: z.number().meta({ description: `How many of them are kept (${KEPT}).` }),
  })
  .meta({ id: 'ActivityEntry' });

const ActivityOutput = ActivityEntry.extend({
  output: z.array(z.string()).meta({ description: `The kept output, redacted: ${KEPT}.` }),
}).meta({ id: 'ActivityOutput' });

const FAILS = {
  400: fail('Bad `env` or stack name.'),
  401: UNAUTHORIZED,
  403: fail("The caller lacks `view` for the stack's environment, or access to it."),
} as const;

export const activitySchemas = {
  listActivity: {
    method: 'GET',
    url: '/api/stacks/:name/activity',
    schema: {
      operationId: 'listActivity',
      summary: "A stack's Activity: its start, stop, restart and down operations, newest first",
      description: `Every operation that ended (success, failed or cancelled), kept after its job's retention (\`jobs.retentionHours\`): the newest 100 of the stack; older ones are deleted with their output. Each keeps ${KEPT}, redacted as every output is. Deploys are runs (\`GET …/deploys\`), not here.`,
      tags: ['stacks'],
      params: z.object({ name: StackName }),
      querystring: EnvQuery,
      response: {
        200: json('The operations, newest first.', z.object({ operations: z.array(ActivityEntry) })),
        ...FAILS,
        404: fail('No such environment (`Environment not found`).'),
      },
    },
  },
  getActivity: {
    method: 'GET',
    url: '/api/stacks/:name/activity/:jobId',
    schema: {
      operationId: 'getActivity',
      summary: 'One operation of a stack’s Activity with its kept output',
      tags: ['stacks'],
      params: z.object({ name: StackName, jobId: z.string().meta({ description: 'Its `jobId`.' }) }),
      querystring: EnvQuery,
      response: {
        200: json('The operation and its output.', ActivityOutput),
        ...FAILS,
        404: fail('No such environment, or no such operation of that stack (`Operation not found`).'),
      },
    },
  },
} as const;

export type ActivityRoutes = typeof activitySchemas;
