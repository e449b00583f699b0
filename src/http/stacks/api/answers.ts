/**
 * What the stacks routes answer, as zod schemas: each named one is a component of the OpenAPI document
 * (`meta({ id })`). They describe the answers as the routes give them (docs/stacks.md): the server
 * checks every JSON answer against its route's schema and sends it unchanged (src/http/stacks/app.ts), so
 * a schema can never drop a field a client reads. A plain `z.object` lists every field (the document
 * says `additionalProperties: false`, and the tests hold the answers to it); `details` of a run stays
 * open, as a kind of deploy may add its own keys there.
 *
 * The examples are answers the tests got. This module imports no Node module: a browser client can use it.
 */
import { z } from 'zod';

const TIME = z.iso.datetime({ offset: true });
const STARTED = '2026-11-25T09:14:02.118Z';
const FINISHED = '2026-11-25T09:14:03.540Z';

export const ErrorBody = z
  .object({
    error: z
      .string()
      .meta({ description: 'What went wrong (or a code: `compose_changed`, `store_failed`).' }),
    message: z.string().optional().meta({ description: 'With a code: what it means.' }),
    reason: z
      .string()
      .optional()
      .meta({ description: 'With `store_failed`: why the event store failed, in its own words.' }),
    composeHash: z
      .string()
      .optional()
      .meta({ description: 'With `compose_changed`: the hash of the stored compose file.' }),
  })
  .meta({
    id: 'Error',
    description: 'Every failure of the stacks routes answers this body.',
    examples: [{ error: 'Stack not found' }],
  });

export const EnvironmentId = z
  .number()
  .int()
  .nullable()
  .meta({ id: 'EnvironmentId', description: 'An environment id; null is the local environment.' });

export const StackContainer = z
  .object({
    service: z.string().nullable().meta({ description: 'The compose service (its label).' }),
    name: z.string(),
    state: z
      .string()
      .meta({ description: "The engine's: created, running, paused, restarting, removing, exited, dead." }),
    health: z
      .string()
      .nullable()
      .meta({ description: 'healthy, unhealthy or starting; null without a health check.' }),
    exitCode: z.number().int().nullable().meta({
      description:
        'The exit code of a container that exited (or is dead); null while it runs or before it ran.',
    }),
    image: z.string().meta({ description: 'The image as the compose file names it.' }),
    imageId: z.string().meta({ description: 'The image id (`sha256:…`), the digest of its configuration.' }),
    imageDigest: z
      .string()
      .nullable()
      .meta({ description: 'A registry digest (`nginx@sha256:…`); null for an image no registry gave.' }),
    ports: z.array(
      z.object({
        containerPort: z.number().int(),
        protocol: z.string(),
        hostIp: z.string().nullable(),
        hostPort: z.number().int().nullable(),
      }),
    ),
    startedAt: TIME.nullable().meta({ description: 'Its last start; null when it never started.' }),
    finishedAt: TIME.nullable().meta({ description: 'When it last stopped; null when it never did.' }),
    restartCount: z
      .number()
      .int()
      .meta({ description: 'How often the engine restarted it (restart policy).' }),
  })
  .meta({ id: 'StackContainer', description: "One of a stack's containers, as the Docker engine shows it." });

/** A stack's state word (src/stacks/stack/status.ts `stackStateOf`). */
export const STACK_STATE = z
  .enum(['running', 'unhealthy', 'partial', 'stopped', 'not deployed', 'unknown'])
  .meta({
    description:
      '`running`: every container runs (or is a one-shot that completed: exit 0 of a service declared one by `restart: "no"`/`on-failure` or `service_completed_successfully`) and every service `up` starts has one; `unhealthy`: one that runs fails its health check; `partial`: some run; `stopped`: none does; `not deployed`: no container; `unknown`: the engine did not answer within 2 s or cannot be reached.',
  });

/** A stack's state on its engine, read when the stack is read (src/stacks/stack/status.ts). */
const STACK_STATUS = {
  state: STACK_STATE,
  stateReason: z.string().nullable().meta({ description: 'Why the state is `unknown`; null otherwise.' }),
  containers: z
    .array(StackContainer)
    .nullable()
    .meta({ description: 'By the `com.docker.compose.project` label; null when the state is unknown.' }),
};
const CONTAINER_EXAMPLE = {
  service: 'web',
  name: 'web-web-1',
  state: 'running',
  health: null,
  exitCode: null,
  image: 'nginx:alpine',
  imageId: 'sha256:c8f58e35cd9393b51b135bef09177afb42cec4564175029a8a07ae7485bdd902',
  imageDigest: null,
  ports: [],
  startedAt: '2026-11-26T01:34:29.99094112Z',
  finishedAt: null,
  restartCount: 0,
};

export const StackSummary = z
  .object({
    name: z.string(),
    environmentId: EnvironmentId,
    secretProvider: z.string().nullable(),
    variables: z.array(z.object({ name: z.string(), secret: z.boolean() })),
    ...STACK_STATUS,
  })
  .meta({
    id: 'StackSummary',
    description: 'A stack in the list: its variables by name and secret flag, no values.',
    examples: [
      {
        name: 'web',
        environmentId: null,
        secretProvider: null,
        variables: [{ name: 'DB_PASSWORD', secret: true }],
        state: 'running',
        stateReason: null,
        containers: [CONTAINER_EXAMPLE],
      },
    ],
  });

/** The job of a stack that runs now (`Stack.job`): what the page says while it runs, and what Cancel stops. */
const StackJob = z
  .object({
    id: z
      .string()
      .meta({ description: 'The job id: poll it, stream it, or cancel it (`POST /api/jobs/{id}/cancel`).' }),
    kind: z.enum(['deploy', 'create', 'compose_save', 'start', 'stop', 'restart', 'down']),
    runId: z
      .number()
      .int()
      .positive()
      .nullable()
      .meta({ description: 'The run it records; null for start, stop, restart, down.' }),
    userId: z.string().nullable().meta({ description: 'Who started it (null: a webhook, a schedule).' }),
    startedAt: z.string().meta({ description: 'ISO 8601.' }),
    cancelledBy: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Set once someone cancelled it (it is stopping): who.' }),
  })
  .meta({ id: 'StackJob' });

export const Stack = z
  .object({
    name: z.string(),
    environmentId: EnvironmentId,
    compose: z.string().meta({ description: 'The compose file.' }),
    composeHash: z.string().meta({
      description: 'SHA-256 of the compose file, hex: what a save sends as `If-Match` to edit this version.',
    }),
    secretProvider: z.string().nullable(),
    variables: z.array(
      z.object({
        name: z.string(),
        secret: z.boolean(),
        value: z.string().nullable().meta({ description: 'null for a secret variable.' }),
      }),
    ),
    ...STACK_STATUS,
    job: StackJob.nullable().meta({
      description:
        'The job of the stack that runs now (one at a time: other jobs of the stack answer 409 meanwhile); null when none runs.',
    }),
  })
  .meta({
    id: 'Stack',
    description:
      'A stack: its compose file, its variables (values of secret ones withheld) and its state on its Docker engine.',
    examples: [
      {
        name: 'web',
        environmentId: null,
        compose: 'services:\n  web:\n    image: nginx:alpine\n',
        composeHash: '0c3f7e9a5d1b2c4e6f8a0b2d4c6e8f0a1b3d5c7e9f1a3b5d7c9e1f3a5b7d9c1e',
        secretProvider: null,
        variables: [
          { name: 'DB_PASSWORD', secret: true, value: null },
          { name: 'MODE', secret: false, value: 'production' },
        ],
        state: 'running',
        stateReason: null,
        containers: [CONTAINER_EXAMPLE],
        job: null,
      },
    ],
  });

const ShortValueWarning = z
  .object({
    variable: z.string(),
    secret: z.boolean(),
    withheldLines: z.number().int().nullable().meta({
      description: "Lines of the stack's last run's log holding the value; null without a run (or its log).",
    }),
    loggedLines: z.number().int().nullable().meta({ description: 'Lines of that log; null without one.' }),
    message: z.string().meta({ description: 'The warning in words (never the value).' }),
  })
  .meta({
    id: 'ShortValueWarning',
    description:
      'A variable whose value has 5 characters or fewer: too short to replace with `***`, so every output line holding it is withheld (spec, Output redaction 1).',
  });

export const StackVariablesSaved = Stack.extend({
  warnings: z.array(ShortValueWarning).optional().meta({
    description: 'Variables whose values withhold lines; absent when none does (the answer is then GET’s).',
  }),
}).meta({
  id: 'StackVariablesSaved',
  description: 'The stack with its new variables, and the warnings of them.',
});

export const StackDeleted = z
  .object({
    deleted: z.literal(true),
    jobId: z.string().optional().meta({ description: 'With `down`: the `down` job that ran first.' }),
  })
  .meta({ id: 'StackDeleted' });

export const ComposeSaved = z
  .object({
    saved: z.literal(true),
    composeHash: z.string().meta({ description: 'SHA-256 of the saved file: the next save’s `If-Match`.' }),
  })
  .meta({ id: 'ComposeSaved', description: 'Saved without a deploy (`restart` false): no run.' });

// ------------------------------------------------------------------------------------------------
// Jobs
// ------------------------------------------------------------------------------------------------

const JOB_ID = z.string().meta({ description: 'The job: poll `GET /api/jobs/{id}` or stream its events.' });
const RUN_ID = z
  .number()
  .int()
  .positive()
  .nullable()
  .meta({ description: 'The run the job records; null for a job that records none (start, stop...).' });

export const JobAccepted = z.object({ jobId: JOB_ID, runId: RUN_ID }).meta({
  id: 'JobAccepted',
  description:
    'The job started; it goes on in the background (the streaming path: no `Accept: application/json`).',
  examples: [{ jobId: '0b1c7a52-4a0e-4a8e-9d8f-35c0e4a3b6f1', runId: 1 }],
});

export const JobCancelled = z
  .object({
    jobId: JOB_ID,
    runId: RUN_ID,
    cancelledBy: z.string().nullable().meta({ description: 'Who cancelled it (the first to ask).' }),
  })
  .meta({
    id: 'JobCancelled',
    description:
      "The cancel is under way: the job's compose process group is stopped (SIGTERM, SIGKILL after 2 s), and the job ends with a failed result `Cancelled by <user>; compose was stopped`, its run `cancelled` with `details.cancelledBy`. Poll the job for its end.",
    examples: [{ jobId: '0b1c7a52-4a0e-4a8e-9d8f-35c0e4a3b6f1', runId: 7, cancelledBy: 'admin' }],
  });

export const JobOutcome = z
  .object({
    error: z.string().optional().meta({ description: 'The redacted error of a failed job.' }),
    jobId: JOB_ID,
    runId: RUN_ID,
    success: z.boolean(),
    exitCode: z.number().int().optional().meta({ description: "Compose's exit code, when known." }),
    output: z.array(z.string()).meta({ description: 'The redacted output lines.' }),
  })
  .meta({
    id: 'JobOutcome',
    description:
      'The job once it ended (`Accept: application/json`): 200 when it succeeded, 500 with `error` when it failed.',
    examples: [
      {
        jobId: '0b1c7a52-4a0e-4a8e-9d8f-35c0e4a3b6f1',
        runId: 1,
        success: true,
        exitCode: 0,
        output: ['Container web-web-1  Started'],
      },
      {
        error: 'compose exited with code 3',
        jobId: '5e0f4d8e-2b7c-4d1e-8a59-7f0e9c1d2a34',
        runId: 2,
        success: false,
        exitCode: 3,
        output: ['pulling', 'DB_PASSWORD=***'],
      },
    ],
  });

const JobResult = z
  .object({
    type: z.literal('result'),
    success: z.boolean(),
    error: z.string().optional(),
    exitCode: z.number().int().optional(),
    output: z.array(z.string()),
  })
  .meta({ id: 'JobResult', description: 'The last message of a job; nothing follows a failed result.' });

const JobMessage = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('line'), line: z.string().meta({ description: 'A redacted output line.' }) }),
    z.object({ type: z.literal('status'), status: z.string().meta({ description: 'A progress stage.' }) }),
    JobResult,
  ])
  .meta({
    id: 'JobMessage',
    description:
      'One message of a job: what `GET /api/jobs/{id}` lists and each event of `GET /api/jobs/{id}/events` carries as its data.',
    examples: [{ type: 'line', line: 'Container web-web-1  Started' }],
  });

export const Job = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'running', 'done']).meta({
      description:
        '`queued` while the job waits for a compose slot (config `jobs.maxConcurrent`, first come first served), `running`, then `done` with its result.',
    }),
    from: z.number().int().meta({ description: 'Index of the first message of the page (from 0).' }),
    messages: z.array(JobMessage),
    more: z.boolean().meta({ description: 'Whether messages after this page exist now.' }),
    next: z.number().int().nullable().meta({
      description: '`after` for the next page: the index of the last message given (else the `after` asked).',
    }),
    result: JobResult.nullable(),
  })
  .meta({
    id: 'Job',
    description:
      'A job: a page of its messages (1,000 by default, at most 1 MiB of text; the next with `after=next`), and its result once done.',
    examples: [
      {
        id: '0b1c7a52-4a0e-4a8e-9d8f-35c0e4a3b6f1',
        status: 'done',
        from: 0,
        messages: [
          { type: 'line', line: 'created web' },
          { type: 'result', success: true, exitCode: 0, output: ['created web'] },
        ],
        more: false,
        next: 1,
        result: { type: 'result', success: true, exitCode: 0, output: ['created web'] },
      },
    ],
  });

// ------------------------------------------------------------------------------------------------
// Runs and executions
// ------------------------------------------------------------------------------------------------

const DeployOptions = z
  .object({ pull: z.boolean(), build: z.boolean(), forceRecreate: z.boolean() })
  .meta({ id: 'DeployOptions' });

const DeploySummary = z
  .object({
    containersCreated: z.number().int().optional(),
    containersStarted: z.number().int().optional(),
    containersRecreated: z.number().int().optional(),
    containersRemoved: z.number().int().optional(),
    imagesPulled: z.number().int().optional(),
    imagesBuilt: z.number().int().optional(),
    buildStepsCached: z.number().int().optional().meta({
      description:
        "Build steps taken from the cache (BuildKit's `#N CACHED`, the classic `---> Using cache`).",
    }),
  })
  .meta({
    id: 'DeploySummary',
    description:
      "Counts read from compose's output (v1 or v2); absent when compose printed nothing (unknown, not zero). Only what was seen: the container counts when a container line was recognised, `imagesPulled` when a pull line was, `imagesBuilt` and `buildStepsCached` when a build line was (runs recorded before that hold all six counts).",
  });

export const Run = z
  .object({
    id: z.number().int().positive(),
    scheduleType: z.literal('stack_deploy'),
    scheduleId: z.literal(0),
    entityName: z.string().meta({ description: 'The stack.' }),
    environmentId: EnvironmentId,
    status: z.string().meta({
      description:
        '`running` (or `queued`) until it ends; then `success` or `failed` (other terminal words: skipped, warning, error, cancelled, stale); `adopted` for the run that recorded an adopted compose project as it ran (compose did not run).',
    }),
    trigger: z.enum(['manual', 'webhook', 'cron']),
    errorMessage: z.string().nullable().meta({ description: 'The redacted error of a failed run.' }),
    startedAt: TIME,
    finishedAt: TIME.nullable(),
    jobId: z.string(),
    details: z
      .looseObject({
        options: DeployOptions,
        summary: DeploySummary.optional(),
        exitCode: z.number().int().optional(),
        composeHash: z.string(),
        envHash: z.string(),
        logFile: z.string().meta({ description: 'The log file’s name, `<runId>.log`.' }),
        truncated: z.boolean().meta({ description: 'Lines were dropped past the log budget.' }),
        logMissing: z
          .boolean()
          .optional()
          .meta({ description: 'Set by the reconcile: the log file is gone.' }),
        userId: z.string().nullable(),
        source: z.literal('git').optional().meta({ description: 'A git stack’s run.' }),
        repository: z.string().optional().meta({ description: 'Of a git run, without credentials.' }),
        branch: z.string().optional(),
        composePath: z.string().optional(),
        commit: z.string().optional().meta({ description: 'Of a git run, once fetched.' }),
        leftoversRemoved: z.array(z.string()).optional().meta({
          description:
            'Containers an interrupted compose left under its temporary name (`<12 hex>_<name>`, a server stopped while compose recreated them) that were removed before the run’s `up`, each also a line of its log; absent when there were none.',
        }),
        withheld: z
          .object({
            lines: z.number().int().meta({ description: 'Output lines withheld in all.' }),
            at: z
              .array(
                z.object({
                  afterLine: z.number().int().meta({
                    description:
                      'The log line (1-based) they followed in the output; 0: before the first line.',
                  }),
                  lines: z
                    .number()
                    .int()
                    .meta({ description: 'How many were withheld there, one after the other.' }),
                }),
              )
              .meta({
                description:
                  'Where, in the order of the log: at most 1,000 places (lines withheld past the last are in `lines` only).',
              }),
          })
          .optional()
          .meta({
            description:
              'Output lines redaction withheld (each held a value of 5 characters or fewer, too short to replace with `***`): the log file holds only the lines shown, so its lines and offsets are those of what was shown; this says how many were left out and where. Never their text. Recorded when the run ends; absent when none was withheld.',
          }),
      })
      .meta({ description: 'Open: a kind of deploy may add keys of its own (plain JSON values).' }),
  })
  .meta({
    id: 'Run',
    description: 'A deploy run (a `stack_deploy` execution row).',
    examples: [
      {
        id: 1,
        scheduleType: 'stack_deploy',
        scheduleId: 0,
        entityName: 'web',
        environmentId: null,
        status: 'success',
        trigger: 'manual',
        errorMessage: null,
        startedAt: STARTED,
        finishedAt: FINISHED,
        jobId: '0b1c7a52-4a0e-4a8e-9d8f-35c0e4a3b6f1',
        details: {
          options: { pull: false, build: false, forceRecreate: false },
          summary: {
            containersCreated: 1,
            containersStarted: 1,
            containersRecreated: 0,
            containersRemoved: 0,
          },
          exitCode: 0,
          composeHash: '9b1e0c6d4f2a',
          envHash: '4c2a7e9d1b3f',
          logFile: '1.log',
          truncated: false,
          userId: 'admin',
        },
      },
    ],
  });

export const RunDeleted = z
  .object({ deleted: z.literal(true), id: z.number().int().positive() })
  .meta({ id: 'RunDeleted', description: 'The run, its log, its job and its output key are gone.' });

export const ReconcileExecution = z
  .object({
    id: z.number().int().positive(),
    scheduleType: z.literal('deploy_log_reconcile'),
    scheduleId: z.literal(0),
    entityName: z.literal('deploy_log_reconcile'),
    environmentId: z.null(),
    status: z.string().meta({ description: '`running`, then `success`, `warning` or `failed`.' }),
    trigger: z.enum(['manual', 'cron']),
    errorMessage: z.string().nullable(),
    startedAt: TIME,
    finishedAt: TIME.nullable(),
    details: z.object({
      deletedFiles: z.number().int(),
      markedRecords: z.number().int(),
      failed: z.number().int(),
      keptFresh: z.number().int(),
      ignoredFiles: z.number().int(),
      environments: z.array(EnvironmentId),
      failures: z.array(
        z.union([
          z.object({
            path: z.string().meta({ description: 'Relative to the data folder.' }),
            error: z.string(),
          }),
          z.object({ runId: z.number().int(), error: z.string() }),
        ]),
      ),
      userId: z.string().nullable(),
    }),
  })
  .meta({
    id: 'ReconcileExecution',
    description: 'A run of the deploy-log reconcile.',
    examples: [
      {
        id: 1,
        scheduleType: 'deploy_log_reconcile',
        scheduleId: 0,
        entityName: 'deploy_log_reconcile',
        environmentId: null,
        status: 'success',
        trigger: 'manual',
        errorMessage: null,
        startedAt: STARTED,
        finishedAt: FINISHED,
        details: {
          deletedFiles: 1,
          markedRecords: 0,
          failed: 0,
          keptFresh: 0,
          ignoredFiles: 0,
          environments: [null],
          failures: [],
          userId: 'admin',
        },
      },
    ],
  });

/** A run of the deploy-run retention (docs/stacks.md#deploy-run-retention). */
export const RetentionExecution = z
  .object({
    id: z.number().int(),
    scheduleType: z.literal('deploy_run_retention'),
    scheduleId: z.literal(0),
    entityName: z.literal('deploy_run_retention'),
    environmentId: z.null(),
    status: z.string(),
    trigger: z.enum(['manual', 'cron']),
    errorMessage: z.string().nullable(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    details: z.object({
      deletedRuns: z.array(z.number().int()),
      keptLastGood: z.array(z.number().int()),
      failed: z.number().int(),
      failures: z.array(z.object({ runId: z.number().int(), error: z.string() })),
      userId: z.string().nullable(),
    }),
  })
  .meta({ id: 'RetentionExecution', description: 'A run of the deploy-run retention.' });

export const ExecutionsPage = z
  .object({
    executions: z.array(z.union([Run, ReconcileExecution, RetentionExecution])),
    total: z.number().int().meta({ description: 'Rows the caller may see, over every page.' }),
  })
  .meta({ id: 'ExecutionsPage', description: 'Execution rows, newest first.' });

export const Settings = z
  .object({
    deployLogReconcileCron: z.string(),
    deployLogReconcileEnabled: z.boolean(),
    deployRunRetentionCron: z.string(),
    deployRunRetentionEnabled: z.boolean(),
  })
  .meta({
    id: 'Settings',
    description: 'The general settings.',
    examples: [
      {
        deployLogReconcileCron: '0 3 * * *',
        deployLogReconcileEnabled: true,
        deployRunRetentionCron: '30 3 * * *',
        deployRunRetentionEnabled: true,
      },
    ],
  });

// ------------------------------------------------------------------------------------------------
// Git stacks
// ------------------------------------------------------------------------------------------------

const GIT_STACK_EXAMPLE = {
  name: 'site',
  environmentId: null,
  repository: 'https://git.example.com/team/site.git',
  branch: 'main',
  composePath: 'compose.yaml',
  files: [],
  autoDeployCron: null,
  webhookSecretSet: true,
  lastCommit: '3f786850e387550fdab836ed7e6dc881de23001b',
  lastRunId: 4,
};

export const GitStack = z
  .object({
    name: z.string(),
    environmentId: EnvironmentId,
    repository: z.string().meta({ description: 'Without credentials.' }),
    branch: z.string(),
    composePath: z.string(),
    files: z
      .array(z.string())
      .meta({ description: 'Override files compose is given after `composePath`, in order.' }),
    autoDeployCron: z.string().nullable(),
    webhookSecretSet: z.boolean(),
    lastCommit: z
      .string()
      .nullable()
      .meta({ description: 'The commit of the newest git run that fetched one.' }),
    lastRunId: z.number().int().nullable(),
  })
  .meta({
    id: 'GitStack',
    description: 'A git stack’s settings (never its secret).',
    examples: [GIT_STACK_EXAMPLE],
  });

export const GitStackCreated = GitStack.extend({
  commit: z.string().meta({ description: 'The commit its compose file was taken from.' }),
}).meta({
  id: 'GitStackCreated',
  examples: [{ ...GIT_STACK_EXAMPLE, lastRunId: null, commit: GIT_STACK_EXAMPLE.lastCommit }],
});

export const WebhookIgnored = z.object({ ignored: z.literal(true), reason: z.string() }).meta({
  id: 'WebhookIgnored',
  description: 'A delivery that deploys nothing: a ping, a replayed delivery, a push to another branch.',
  examples: [{ ignored: true, reason: 'ping' }],
});

// ------------------------------------------------------------------------------------------------
// Event streams
// ------------------------------------------------------------------------------------------------

// Referenced by id only (the log route's description names it): `.meta` with an id puts it in zod's
// registry, which the document is made from, so nothing holds it by name.
z.discriminatedUnion('type', [
  z.object({ type: z.literal('line'), line: z.string() }),
  z.object({ type: z.literal('end'), status: z.string().meta({ description: 'The run’s final status.' }) }),
  z.object({ type: z.literal('error'), error: z.string() }),
]).meta({
  id: 'LogFollowEvent',
  description: 'The data of each event of `GET …/log?follow=true`: the lines, then `end` (or `error`).',
  examples: [{ type: 'end', status: 'success' }],
});

/** An event stream's body: what `text/event-stream` answers are, for the document. */
export const EventStreamText = z.string().meta({
  description: 'Server-sent events: `id:` (job events) and one `data:` line of JSON per event.',
});

// ------------------------------------------------------------------------------------------------
// The web page's session and change feed
// ------------------------------------------------------------------------------------------------

export const SessionUser = z
  .object({
    name: z.string(),
    admin: z.boolean(),
    mayRunSchedules: z
      .boolean()
      .meta({ description: 'Admin, or the stacks `edit` permission in any grant: may run the reconcile.' }),
    environments: z.array(
      z.object({
        id: EnvironmentId,
        name: z.string(),
        view: z.boolean().meta({ description: 'May read stacks and runs there.' }),
        edit: z.boolean().meta({ description: 'May create, deploy, operate and delete there.' }),
        editByGlobalCheck: z.boolean().meta({
          description:
            'The local environment only: `edit` comes from the rule that the local environment uses the global check (a grant of edit listing other environments, none listing null).',
        }),
      }),
    ),
  })
  .meta({
    id: 'SessionUser',
    description: 'Who is signed in, and what they may do where (the page shows only what the server allows).',
    examples: [
      {
        name: 'admin',
        admin: true,
        mayRunSchedules: true,
        environments: [
          { id: null, name: 'local', view: true, edit: true, editByGlobalCheck: false },
          { id: 1, name: 'edge', view: true, edit: true, editByGlobalCheck: false },
        ],
      },
    ],
  });

export const SignedOut = z
  .object({ signedOut: z.literal(true) })
  .meta({ id: 'SignedOut', description: 'The session is gone and its cookie cleared.' });

const PLACE = { stack: z.string(), environmentId: EnvironmentId };

export const Change = z
  .union([
    z.object({ kind: z.literal('run'), type: z.string(), runId: z.number().int(), ...PLACE }),
    z.object({
      kind: z.literal('job'),
      type: z.string(),
      jobId: z.string(),
      ...PLACE,
      runId: z.number().int().nullable(),
    }),
    z.object({ kind: z.literal('stack'), type: z.string(), ...PLACE }),
    z.object({ kind: z.enum(['settings', 'schedule']), type: z.string() }),
    z.object({
      kind: z.literal('container'),
      type: z.string().meta({
        description:
          "The engine's action: `create`, `start`, `restart`, `stop`, `die`, `kill`, `oom`, `pause`, `unpause`, `destroy`, `rename`, `update`, or `health_status: healthy` (`unhealthy`, `starting`).",
      }),
      ...PLACE,
      container: z.string().meta({ description: "The container's name." }),
      service: z.string().nullable(),
      exitCode: z.number().int().nullable().meta({ description: 'What a `die` reports; null otherwise.' }),
      at: TIME,
    }),
    z.object({
      kind: z.literal('engine'),
      type: z.enum(['connected', 'disconnected']).meta({
        description:
          "The engine's event stream opened (again) or ended: what the page shows of it may have changed meanwhile.",
      }),
      environmentId: EnvironmentId,
      reason: z.string().nullable(),
    }),
  ])
  .meta({
    id: 'Change',
    description:
      "The data of each event of `GET /api/events`: what changed (`type` is the event recorded, or the Docker engine's action on a container of a stack); the client re-reads what it shows.",
    examples: [
      { kind: 'run', type: 'RunFinished', runId: 3, stack: 'web', environmentId: null },
      { kind: 'settings', type: 'SettingsChanged' },
      {
        kind: 'container',
        type: 'die',
        stack: 'web',
        environmentId: null,
        container: 'web-web-1',
        service: 'web',
        exitCode: 137,
        at: '2026-11-26T01:40:12.502Z',
      },
    ],
  });

export const Health = z
  .object({
    status: z.literal('ok').meta({ description: 'The event store takes writes.' }),
  })
  .meta({
    id: 'Health',
    description: 'The server takes writes: its event store has not failed.',
    examples: [{ status: 'ok' }],
  });
