/**
 * What the deploy history, audit, retention and notification routes answer (deploy history, audit, retention, notifications, a log's range or
 * search), as zod schemas: each named one is a component of the OpenAPI document. They describe the
 * answers exactly as the handlers give them (the server checks each JSON answer against its schema and
 * sends it unchanged). The examples are answers the tests got. No Node module: a browser may import it.
 */
import { z } from 'zod';
import { EnvironmentId } from './answers.js';

const AT = '2026-11-25T09:14:02.118Z';
const RUN_ID = z.number().int().positive();

export const RunCompose = z
  .object({
    runId: RUN_ID,
    composeHash: z.string().meta({ description: 'SHA-256 of the compose text, hex.' }),
    compose: z.string().meta({ description: 'The compose file the run deployed.' }),
  })
  .meta({
    id: 'RunCompose',
    description: 'The compose text a run deployed, read from its content stream.',
    examples: [
      {
        runId: 1,
        composeHash: '9f2c4e0b7a1d3c5e8f6a2b4d0c1e3f5a7b9d1c3e5f7a9b1d3c5e7f9a1b3d5c7e',
        compose: 'services:\n  app:\n    image: local/busybox:1\n',
      },
    ],
  });

/** A recorded variable as shown: a secret by name only. */
const ShownVariable = z
  .union([
    z.object({ name: z.string(), secret: z.literal(false), value: z.string() }),
    z.object({ name: z.string(), secret: z.literal(true) }),
  ])
  .meta({ id: 'ShownVariable', description: 'A variable a run deployed; a secret shows no value.' });

export const RunVariables = z
  .object({
    runId: RUN_ID,
    secretProvider: z.string().nullable(),
    variables: z.array(ShownVariable),
  })
  .meta({
    id: 'RunVariables',
    description: 'The variables a run deployed: values of the plain ones, secrets by name only.',
    examples: [
      {
        runId: 1,
        secretProvider: null,
        variables: [
          { name: 'GREETING', secret: false, value: 'hello' },
          { name: 'DB_PASSWORD', secret: true },
        ],
      },
    ],
  });

const IMAGE_ID = `sha256:${'3f'.repeat(32)}`;

const RunImage = z
  .object({
    service: z.string(),
    image: z.string().meta({ description: 'The reference its container was created from.' }),
    imageId: z.string().meta({ description: 'The image id (`sha256:…`) the container ran.' }),
    repoDigest: z
      .string()
      .nullable()
      .meta({ description: 'A registry digest (`name@sha256:…`); null for a built or imported image.' }),
  })
  .meta({ id: 'RunImage', description: "A service's image after the run's `up`, as the engine showed it." });

export const RunImages = z
  .object({
    runId: RUN_ID,
    images: z.array(RunImage).meta({
      description: 'One per service, by name; empty when the engine showed none (no engine, a fake compose).',
    }),
  })
  .meta({
    id: 'RunImages',
    description: 'The image each service ran after the run, recorded when the engine reported it.',
    examples: [
      {
        runId: 1,
        images: [{ service: 'app', image: 'local/busybox:1', imageId: IMAGE_ID, repoDigest: null }],
      },
    ],
  });

const FromTo = <S extends z.ZodType>(s: S) => z.object({ from: s, to: s });

export const RunDiff = z
  .object({
    from: RUN_ID,
    to: RUN_ID,
    compose: z.object({
      changed: z.boolean(),
      patch: z.string().meta({ description: 'A unified diff (3 lines of context); empty when unchanged.' }),
    }),
    variables: z.object({
      added: z.array(ShownVariable),
      removed: z.array(ShownVariable),
      changed: z.array(
        z.object({
          name: z.string(),
          secret: z.boolean().meta({ description: 'Secret on either side: then no value is shown.' }),
          from: z.string().optional(),
          to: z.string().optional(),
          secretChanged: z.literal(true).optional(),
        }),
      ),
    }),
    secretProvider: FromTo(z.string().nullable()).nullable(),
    options: z.array(
      z.object({ name: z.enum(['pull', 'build', 'forceRecreate']), from: z.boolean(), to: z.boolean() }),
    ),
    images: z.array(z.object({ service: z.string(), from: RunImage.nullable(), to: RunImage.nullable() })),
    commit: FromTo(z.string().nullable()).nullable(),
  })
  .meta({
    id: 'RunDiff',
    description: 'What deploying run `to` after run `from` changed. A changed secret shows no value.',
    examples: [
      {
        from: 1,
        to: 2,
        compose: {
          changed: true,
          patch:
            '===================================================================\n--- run-1/compose.yaml\n+++ run-2/compose.yaml\n@@ -1,3 +1,3 @@\n services:\n   app:\n-    command: echo one\n+    command: echo two\n',
        },
        variables: {
          added: [{ name: 'EXTRA', secret: false, value: 'x' }],
          removed: [],
          changed: [{ name: 'DB_PASSWORD', secret: true }],
        },
        secretProvider: null,
        options: [],
        images: [],
        commit: null,
      },
    ],
  });

export const HistorySettings = z
  .object({
    autoRollback: z.boolean().meta({ description: 'Redeploy the last good run when a deploy fails.' }),
    keepRuns: z.number().int().nullable().meta({ description: 'Runs kept by the retention; null: all.' }),
    keepDays: z.number().int().nullable().meta({ description: 'Days runs are kept; null: no limit.' }),
  })
  .meta({
    id: 'HistorySettings',
    description: "A stack's auto-rollback and retention settings.",
    examples: [{ autoRollback: true, keepRuns: 5, keepDays: null }],
  });

/** The body of `PUT history-settings`: any of the fields; the handler words its own refusals. */
export const HistorySettingsChange = z
  .record(z.string(), z.unknown(), { error: 'The body must be a JSON object' })
  .meta({
    id: 'HistorySettingsChange',
    description:
      'Any of `autoRollback` (boolean), `keepRuns` (integer 1-1,000,000 or null), `keepDays` (integer 1-36,500 or null); another field is 400.',
    examples: [{ autoRollback: true, keepRuns: 5 }],
  });

const AuditEntry = z
  .object({
    id: z.number().int(),
    at: z.string(),
    type: z.string().meta({ description: 'What happened (`StackCreated`, `RunDeleted`, ...).' }),
    user: z.string().nullable(),
    stack: z.string().nullable(),
    environmentId: EnvironmentId,
    details: z.record(z.string(), z.unknown()),
  })
  .meta({
    id: 'AuditEntry',
    description: 'One entry of the audit trail.',
    examples: [
      {
        id: 3,
        at: AT,
        type: 'StackCreated',
        user: 'admin',
        stack: 'web',
        environmentId: null,
        details: { variables: ['DB_PASSWORD'] },
      },
    ],
  });

export const AuditPage = z
  .object({ entries: z.array(AuditEntry), total: z.number().int() })
  .meta({ id: 'AuditPage', description: 'A page of the audit trail, newest first, and how many match.' });

const ChannelStart = z.object({
  position: z.number().int().meta({ description: 'The log position it started at.' }),
  at: z
    .string()
    .nullable()
    .meta({ description: 'When it first appeared; null: known from deliveries older than this record.' }),
});

export const NotificationChannels = z
  .object({
    channels: z.array(
      z.object({
        name: z.string(),
        type: z.enum(['webhook', 'ntfy', 'gotify', 'slack']),
        host: z
          .string()
          .meta({ description: "The URL's host: its path, query and the token are not shown." }),
        events: z.array(z.string()),
        stacks: z.array(z.string()).nullable().meta({ description: 'Only these stacks; null: all.' }),
        environments: z
          .array(z.number().int().nullable())
          .nullable()
          .meta({ description: 'Only these environments (null: the local one); null: all.' }),
        maxAttempts: z.number().int(),
        retryBaseMs: z.number().int(),
        started: ChannelStart.nullable().meta({
          description: 'Where the channel started: it is given the events after this log position only.',
        }),
      }),
    ),
  })
  .meta({
    id: 'NotificationChannels',
    description: "The config's notification channels, in config order, without their URL's path or token.",
    examples: [
      {
        channels: [
          {
            name: 'ops',
            type: 'webhook',
            host: 'hooks.example.com',
            events: ['run.failed'],
            stacks: null,
            environments: null,
            maxAttempts: 6,
            retryBaseMs: 2000,
            started: { position: 1234, at: '2026-12-02T10:00:00.000Z' },
          },
        ],
      },
    ],
  });

export const NotificationTestOutcome = z
  .object({
    key: z.string(),
    ok: z.boolean(),
    status: z.number().int().nullable().meta({ description: "The channel's HTTP status, if it answered." }),
    error: z.string().nullable(),
  })
  .meta({
    id: 'NotificationTestOutcome',
    description: 'The outcome of one test message (recorded as a delivery).',
    examples: [{ key: 'hook:test:6f1c2a9e-1b2d-4c3e-8f4a-5b6c7d8e9f0a', ok: true, status: 200, error: null }],
  });

const Delivery = z
  .object({
    key: z.string(),
    channel: z.string(),
    event: z.string(),
    occurrence: z.number().int(),
    stack: z
      .string()
      .nullable()
      .meta({ description: 'The stack the event is of (null for a test message).' }),
    environmentId: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The stack's environment (null: local)." }),
    runId: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The run the event is of (null: none, as a test).' }),
    attempts: z.array(
      z.object({
        attempt: z.number().int(),
        at: z.string(),
        ok: z.boolean(),
        status: z.number().int().nullable(),
        error: z.string().nullable(),
      }),
    ),
    state: z.enum(['pending', 'delivered', 'failed']),
  })
  .meta({ id: 'Delivery', description: 'A notification to a channel and every attempt to send it.' });

export const DeliveriesPage = z
  .object({
    deliveries: z.array(Delivery),
    total: z.number().int(),
    starts: z.array(ChannelStart.extend({ channel: z.string() })).meta({
      description:
        'Where each configured channel started, in config order: a channel that first appears (a config ' +
        'change and a restart) starts at the log head and is given no notification of the events before.',
    }),
  })
  .meta({
    id: 'DeliveriesPage',
    description: 'Deliveries, newest first, how many there are, and where each channel started.',
  });

export const LogPage = z
  .object({
    runId: RUN_ID,
    fromLine: z.number().int(),
    limit: z.number().int(),
    q: z.string().optional().meta({ description: 'The search text, lower-cased.' }),
    lines: z.array(z.object({ line: z.number().int(), text: z.string() })),
    nextLine: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Where the next page starts; null at the end.' }),
    totalLines: z.number().int(),
    matches: z.number().int().optional().meta({ description: 'With `q`: how many lines hold it.' }),
  })
  .meta({
    id: 'LogPage',
    description: 'A range of a run log (`fromLine`, `limit`), or with `q` the lines that hold it.',
    examples: [
      {
        runId: 1,
        fromLine: 2,
        limit: 2,
        lines: [
          { line: 2, text: 'line 2' },
          { line: 3, text: 'line 3' },
        ],
        nextLine: 4,
        totalLines: 10,
      },
    ],
  });
