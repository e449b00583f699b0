/**
 * What the stacks routes take: path parameters, query parameters and bodies, as zod schemas. The routes
 * validate with them (through fastify-type-provider-zod) and the OpenAPI document is generated from them.
 *
 * A schema checks the shape (types, names, patterns) and says what is wrong in the words the routes
 * always used (`pull must be a boolean`, `Invalid stack name ...`); what needs the service (does the
 * environment exist, is the cron expression one node-cron takes, is the branch a branch) stays in the
 * service, behind the permission checks. This module imports no Node module: a browser client can use it.
 */
import { z } from 'zod';
import { ENV_NAME_PATTERN } from '../../../stacks/compose/env-file.js';
import {
  envMessage,
  parseEnvParam,
  parseRunId,
  runIdMessage,
  STACK_NAME_PATTERN,
  stackNameMessage,
} from '../../../stacks/names.js';
import { DEFAULT_POLL_LIMIT, MAX_POLL_LIMIT, pagingMessage, pagingParam } from '../../../stacks/paging.js';
import {
  MAX_COMPOSE_BYTES,
  MAX_VARIABLE_VALUE_BYTES,
  MAX_VARIABLES,
  MAX_VARIABLES_BYTES,
} from '../../../stacks/stack/input-limits.js';

// ------------------------------------------------------------------------------------------------
// Messages
// ------------------------------------------------------------------------------------------------

/** An issue's place as the routes name it: `variables[0].name`. */
export function pathText(path: readonly PropertyKey[] | undefined): string {
  return (path ?? [])
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`))
    .join('');
}

/** An error of a field: its place, then `text` (`pull` + `must be a boolean`). */
const must = (text: string) => (issue: z.core.$ZodRawIssue) => `${pathText(issue.path)} ${text}`;

const BODY_NOT_OBJECT = 'The body must be a JSON object';

/**
 * A parser of the stacks service as the last step of a schema: its 400 becomes the schema's issue, so
 * the message is the service's own.
 */
const byParser =
  <I, O>(parse: (value: I) => O) =>
  (value: I, context: z.core.$RefinementCtx<I>): O => {
    try {
      return parse(value);
    } catch (error) {
      context.issues.push({ code: 'custom', message: (error as Error).message, input: value });
      return z.NEVER;
    }
  };

// ------------------------------------------------------------------------------------------------
// Path and query parameters
// ------------------------------------------------------------------------------------------------

export const StackName = z
  .string({ error: (issue) => stackNameMessage(issue.input) })
  .regex(STACK_NAME_PATTERN, { error: (issue) => stackNameMessage(issue.input) })
  .meta({
    description: 'A stack name: lower-case letters, digits, `-` and `_`, at most 63 characters.',
    examples: ['web'],
  });

export const StackParams = z.object({ name: StackName });

export const RunParams = z.object({
  name: StackName,
  runId: z
    .string()
    .regex(/^[1-9][0-9]*$/, { error: (issue) => runIdMessage(String(issue.input)) })
    .meta({ description: 'The run id: a positive integer.', examples: ['1'] })
    .transform(byParser(parseRunId)),
});

export const JobParams = z.object({
  id: z.string().meta({
    description: 'The job id (`jobId` of a job answer). Any other word is 404 `Job not found`.',
    examples: ['0b1c7a52-4a0e-4a8e-9d8f-35c0e4a3b6f1'],
  }),
});

const ENV_PATTERN = /^(null|0|-?[1-9][0-9]*)$/;

/** `?env=`: omitted or `null` = the local environment, else an integer environment id (spec rule 1). */
export const EnvQuery = z.object({
  env: z
    .string()
    .regex(ENV_PATTERN, { error: (issue) => envMessage(String(issue.input)) })
    .meta({
      description:
        'The environment: an integer environment id, or `null` (or omitted) for the local environment.',
      examples: ['null', '1'],
    })
    .optional()
    .transform(byParser(parseEnvParam)),
});

/** An optional offset or index, 0 or more: undefined when omitted. */
const positionQuery = (name: string, description: string, example: string) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/, {
      error: (issue) => pagingMessage(name, issue.input, 0, Number.MAX_SAFE_INTEGER),
    })
    .meta({ description, examples: [example] })
    .optional()
    .transform(
      byParser((value: string | undefined) =>
        value === undefined ? undefined : pagingParam(value, name, 0, 0, Number.MAX_SAFE_INTEGER),
      ),
    );

/** A query switch: `true` (or `1`) turns it on; anything else, or omitted, leaves it off. */
const querySwitch = (description: string) =>
  z
    .string()
    .meta({ description, examples: ['true'] })
    .optional()
    .transform((value) => value === 'true' || value === '1');

export const DeleteStackQuery = EnvQuery.extend({
  down: querySwitch(
    '`true`: run `down` as a job first (the stack’s containers and networks removed), then delete the stack; a failed `down` deletes nothing.',
  ),
  keepContainers: querySwitch(
    '`true`: delete the stack’s files and leave its containers running on the engine (no longer managed; a stack made later under the name takes them over).',
  ),
});

export const LogQuery = z.object({
  follow: z
    .string()
    .meta({
      description:
        '`true` (or `1`): a `text/event-stream` of the log from its first line (or `offset`, or after `Last-Event-ID`), live until the run ends.',
      examples: ['true'],
    })
    .optional()
    .transform((value) => value === 'true' || value === '1'),
  download: z
    .string()
    .meta({ description: '`true`: the log as an attachment (`Content-Disposition`), issue 19.' })
    .optional()
    .transform((value) => value === 'true' || value === '1'),
  fromLine: z
    .string()
    .meta({ description: 'First line of a range (from 1): a JSON page (issue 19).' })
    .optional(),
  limit: z
    .string()
    .meta({ description: 'Lines (or matches) of a page, 1-10,000 (default 1,000).' })
    .optional(),
  q: z
    .string()
    .meta({ description: 'Plain text to search for, case-insensitive: a JSON page of matches.' })
    .optional(),
  offset: positionQuery(
    'offset',
    'A byte offset of the log, at the start of a line (400 otherwise): the text, or the followed log, from there. The `id:` of a followed line is the offset after it; `Last-Event-ID` wins over `offset` (issue 15).',
    '0',
  ),
});

const pagingQuery = (name: string, fallback: number, min: number, max: number, description: string) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/, { error: (issue) => pagingMessage(name, issue.input, min, max) })
    .meta({ description, examples: [String(fallback)] })
    .optional()
    .transform(byParser((value: string | undefined) => pagingParam(value, name, fallback, min, max)));

/** `GET /api/jobs/{id}`: the page after a message. */
export const JobPollQuery = z.object({
  after: positionQuery(
    'after',
    'Index of the last message the caller has (as `Last-Event-ID` of the event stream): the page starts after it. Without it, from the first.',
    '999',
  ),
  limit: pagingQuery(
    'limit',
    DEFAULT_POLL_LIMIT,
    1,
    MAX_POLL_LIMIT,
    `Messages per page, 1 to ${MAX_POLL_LIMIT} (default ${DEFAULT_POLL_LIMIT}); a page also ends at 1 MiB of message text (at least one message).`,
  ),
});

export const executionsQuery = (defaultLimit: number, maxLimit: number) =>
  z.object({
    limit: pagingQuery(
      'limit',
      defaultLimit,
      1,
      maxLimit,
      `Rows per page, 1 to ${maxLimit} (default ${defaultLimit}).`,
    ),
    offset: pagingQuery('offset', 0, 0, Number.MAX_SAFE_INTEGER, 'Rows to skip, from 0 (default 0).'),
  });

// ------------------------------------------------------------------------------------------------
// Bodies
// ------------------------------------------------------------------------------------------------

/** A JSON object body, required. */
const jsonBody = <T extends z.core.$ZodLooseShape>(shape: T, meta: z.core.GlobalMeta = {}) =>
  z.object(shape, { error: BODY_NOT_OBJECT }).meta(meta);

/** A JSON object body whose every key is known (`Unknown field "x"` otherwise), required. */
const strictBody = <T extends z.core.$ZodLooseShape>(
  shape: T,
  unknown: (keys: string[]) => string,
  meta: z.core.GlobalMeta = {},
) =>
  z
    .strictObject(shape, {
      error: (issue) => (issue.code === 'unrecognized_keys' ? unknown(issue.keys) : BODY_NOT_OBJECT),
    })
    .meta(meta);

/**
 * A body a client may leave out (or send as `null`): the route reads `{}` then, as it always did.
 * Fastify hands a missing body to the schema as null.
 */
const optional = <S extends z.ZodObject>(body: S) =>
  body.nullish().transform((value): z.output<S> => value ?? body.parse({}));

const optionalBody = <T extends z.core.$ZodLooseShape>(shape: T, meta: z.core.GlobalMeta = {}) =>
  optional(jsonBody(shape, meta));

const optionalStrict = <T extends z.core.$ZodLooseShape>(
  shape: T,
  unknown: (keys: string[]) => string,
  meta: z.core.GlobalMeta = {},
) => optional(strictBody(shape, unknown, meta));

const flag = (description: string) =>
  z
    .boolean({ error: must('must be a boolean') })
    .nullish()
    .meta({ description });

const PULL = flag('Pull the images first (default false).');
const BUILD = flag('Build the images that have a build section (default false).');

const VARIABLE_NAME = z
  .string({ error: must('must be a variable name (letters, digits and _, not starting with a digit)') })
  .regex(ENV_NAME_PATTERN, {
    error: must('must be a variable name (letters, digits and _, not starting with a digit)'),
  });
const VARIABLE_SECRET = z.boolean({ error: must('must be true or false') }).optional();
const VARIABLE_OBJECT = must('must be an object {name, value, secret}');

const Variable = z
  .object(
    { name: VARIABLE_NAME, value: z.string({ error: must('must be a string') }), secret: VARIABLE_SECRET },
    { error: VARIABLE_OBJECT },
  )
  .meta({
    id: 'Variable',
    description:
      "A stack variable. Its value is never answered when `secret`; every value (secret or not) longer than 5 characters is redacted from the stack's output.",
    examples: [{ name: 'DB_PASSWORD', value: 's3cret-value', secret: true }],
  });

/**
 * A variable of PUT …/variables: as Variable, but a secret may come back as `value: null` to keep the
 * value the stack holds (secret values are never answered, so a client cannot send them back;
 * stacks/kept-secrets.ts). A null anywhere else (a non-secret, a name with no stored secret) is refused
 * by the service's variables check: `variables[0].value (MODE) must be a string`.
 */
const KeptVariable = z
  .object(
    {
      name: VARIABLE_NAME,
      value: z.string({ error: must('must be a string') }).nullable(),
      secret: VARIABLE_SECRET,
    },
    { error: VARIABLE_OBJECT },
  )
  .meta({
    id: 'KeptVariable',
    description:
      'A stack variable to save. `{"secret": true, "value": null}` keeps the value the stack holds for that secret (400 `variables[i].value (NAME) must be a string` when it holds none); any other null is refused the same way.',
    examples: [
      { name: 'DB_PASSWORD', value: null, secret: true },
      { name: 'MODE', value: 'production', secret: false },
    ],
  });

/** At most MAX_VARIABLES, said before the items are looked at in the service (input-limits.ts). */
const variableCount = {
  error: (issue: z.core.$ZodRawIssue) =>
    `variables: ${Array.isArray(issue.input) ? issue.input.length : 'more'} given, over the limit of ${MAX_VARIABLES} variables`,
};

const VARIABLES = z
  .array(Variable, { error: must('must be a list of {name, value, secret}') })
  .max(MAX_VARIABLES, variableCount)
  .meta({
    description: `The variables, each name once: at most ${MAX_VARIABLES}, a value of at most ${MAX_VARIABLE_VALUE_BYTES} bytes, names and values at most ${MAX_VARIABLES_BYTES} bytes in all (UTF-8; over them: 413).`,
  });

const SECRET_PROVIDER = z
  .string({ error: 'secretProvider must be a provider name or null' })
  .min(1, { error: 'secretProvider must be a provider name or null' })
  .nullish()
  .meta({ description: 'A secret provider of the config whose values are redacted too, or null.' });

export const CreateStackBody = jsonBody(
  {
    name: StackName,
    compose: z.string({ error: 'compose must be the compose file text' }).meta({
      description: `The compose file (YAML), at most ${MAX_COMPOSE_BYTES} bytes (UTF-8; over it: 413).`,
    }),
    variables: VARIABLES.nullish(),
    secretProvider: SECRET_PROVIDER,
    pull: PULL,
    build: BUILD,
    forceRecreate: flag('Recreate containers even when nothing changed (default false).'),
  },
  {
    examples: [
      {
        name: 'web',
        compose: 'services:\n  web:\n    image: nginx:alpine\n',
        variables: [{ name: 'DB_PASSWORD', value: 's3cret-value', secret: true }],
        secretProvider: null,
        pull: false,
        build: false,
        forceRecreate: false,
      },
    ],
  },
);

export const VariablesBody = jsonBody(
  {
    variables: z
      .array(KeptVariable, { error: must('must be an array') })
      .max(MAX_VARIABLES, variableCount)
      .meta({
        description: `At most ${MAX_VARIABLES}, a value of at most ${MAX_VARIABLE_VALUE_BYTES} bytes, names and values at most ${MAX_VARIABLES_BYTES} bytes in all (UTF-8; over them: 413).`,
      }),
  },
  {
    examples: [
      { variables: [{ name: 'DB_PASSWORD', value: 'n3w-secret', secret: true }] },
      {
        variables: [
          { name: 'DB_PASSWORD', value: null, secret: true },
          { name: 'MODE', value: 'production', secret: false },
        ],
      },
    ],
  },
);

export const ComposeBody = jsonBody(
  {
    content: z.string({ error: 'content must be the compose file text' }).meta({
      description: `The new compose file (YAML), at most ${MAX_COMPOSE_BYTES} bytes (UTF-8; over it: 413).`,
    }),
    restart: flag('Save and redeploy as a job that records a run (default false: only save).'),
    pull: PULL,
    build: BUILD,
    forceRecreate: flag('Recreate containers even when nothing changed (default true when restart).'),
  },
  { examples: [{ content: 'services:\n  web:\n    image: nginx:alpine\n', restart: true }] },
);

export const DeployBody = optionalBody(
  {
    pull: PULL,
    build: BUILD,
    forceRecreate: flag('Recreate containers even when nothing changed (default false).'),
  },
  { examples: [{ pull: false, build: false, forceRecreate: true }] },
);

/** A body whose fields are ignored; it must still be a JSON object when given. */
export const EmptyBody = optional(jsonBody({}, { description: 'Ignored; a JSON object when given.' }));

const unknownFields = (keys: string[]) =>
  `Unknown field${keys.length > 1 ? 's' : ''} ${keys.map((k) => JSON.stringify(k)).join(', ')}`;

const REPOSITORY = z.string({ error: must('must be a string') }).meta({
  description:
    'The git repository URL (https, ssh, git or a local path); credentials in it are never answered.',
  examples: ['https://git.example.com/team/web.git'],
});
const BRANCH = z
  .string({ error: must('must be a string') })
  .meta({ description: 'The branch to follow (default main).', examples: ['main'] });
const COMPOSE_PATH = z
  .string({ error: must('must be a string') })
  .meta({ description: 'The compose file in the repository (default compose.yaml).' });
const FILES = z
  .array(z.string({ error: 'files must be a list of paths of compose files' }), {
    error: 'files must be a list of at most 16 paths of compose files',
  })
  .max(16, { error: 'files must be a list of at most 16 paths of compose files' })
  .meta({
    description:
      'Override files compose is given after `composePath`, in order (paths in the repository, like `composePath`; none twice, not `composePath` itself). Default: none.',
    examples: [['deploy/compose.prod.yaml']],
  });
const WEBHOOK_SECRET = z
  .string({ error: 'webhookSecret must be a non-empty string of at most 1024 characters, or null' })
  .min(1, { error: 'webhookSecret must be a non-empty string of at most 1024 characters, or null' })
  .max(1024, { error: 'webhookSecret must be a non-empty string of at most 1024 characters, or null' })
  .nullish()
  .meta({ description: 'The secret the webhook signature is made with; null: no webhook.' });
const AUTO_DEPLOY_CRON = z
  .string({ error: 'autoDeployCron must be a cron expression or null' })
  .nullish()
  .meta({
    description: 'A cron expression (5 or 6 fields): deploy when the branch has a new commit; null: never.',
    examples: ['*/5 * * * *'],
  });

/** The settings of a git stack besides its repository: optional when it is made and when it changes. */
const GIT_STACK_SETTINGS = {
  branch: BRANCH.optional(),
  composePath: COMPOSE_PATH.optional(),
  files: FILES.optional(),
  webhookSecret: WEBHOOK_SECRET,
  autoDeployCron: AUTO_DEPLOY_CRON,
  variables: VARIABLES.optional(),
};

export const NewGitStackBody = strictBody(
  {
    name: StackName,
    repository: REPOSITORY,
    ...GIT_STACK_SETTINGS,
    deploy: flag('Deploy at once (create-and-deploy): the answer is a job answer.'),
  },
  unknownFields,
  {
    examples: [
      {
        name: 'site',
        repository: 'https://git.example.com/team/site.git',
        branch: 'main',
        composePath: 'compose.yaml',
        webhookSecret: 'hook-secret-1',
        autoDeployCron: null,
        deploy: true,
      },
    ],
  },
);

export const GitStackChangesBody = optionalStrict(
  {
    repository: REPOSITORY.optional(),
    ...GIT_STACK_SETTINGS,
    redeploy: flag('Deploy with the new settings: the answer is a job answer.'),
  },
  unknownFields,
  { examples: [{ branch: 'release', redeploy: true }] },
);

export const IfMatchHeaders = z.looseObject({
  'if-match': z.string().optional().meta({
    description:
      'The `composeHash` of the version edited (quoted as an entity tag or bare; `*`: any). Another stored version answers 409 `compose_changed`; without it the save overwrites whatever is stored.',
  }),
});

/** The hash an `If-Match` names: its entity tag unquoted (`W/` dropped); undefined for none or `*`. */
export function editedHashOf(header: string | undefined): string | undefined {
  const tag = header?.trim();
  if (!tag || tag === '*') return undefined;
  return tag.replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}

export const WebhookHeaders = z.looseObject({
  'x-hub-signature-256': z.string().meta({
    description: '`sha256=<hex HMAC-SHA256 of the raw body with the stack’s webhookSecret>`.',
  }),
  'x-github-delivery': z
    .string()
    .optional()
    .meta({ description: 'The delivery id; a delivery already handled is ignored.' }),
  'x-github-event': z.string().optional().meta({ description: '`ping` is answered and ignored.' }),
});

/**
 * The webhook body is taken as the exact bytes it was signed as, whatever its type (a Buffer reaches
 * the handler): checked only for being bytes, described as the push event it is.
 */
export const WebhookBody = z.custom<Buffer | undefined>().meta({
  description:
    'The push event, as sent: its `ref` must be the followed branch (`refs/heads/<branch>`), else the delivery is ignored.',
  type: 'object',
  examples: [{ ref: 'refs/heads/main', after: '3f786850e387550fdab836ed7e6dc881de23001b' }],
});

const SETTING_KEYS = [
  'deployLogReconcileCron',
  'deployLogReconcileEnabled',
  'deployRunRetentionCron',
  'deployRunRetentionEnabled',
];

export const SettingsBody = optionalStrict(
  {
    deployLogReconcileCron: z
      .string({ error: must('must be a string') })
      .optional()
      .meta({ description: 'A cron expression node-cron takes (5 or 6 fields).', examples: ['0 3 * * *'] }),
    deployLogReconcileEnabled: z.boolean({ error: must('must be a boolean') }).optional(),
    deployRunRetentionCron: z
      .string({ error: must('must be a string') })
      .optional()
      .meta({ description: 'The deploy-run retention schedule (issue 19), a cron expression.' }),
    deployRunRetentionEnabled: z.boolean({ error: must('must be a boolean') }).optional(),
  },
  (keys) =>
    `Unknown setting ${keys.map((k) => JSON.stringify(k)).join(', ')}: expected ${SETTING_KEYS.join(', ')}`,
  { examples: [{ deployLogReconcileCron: '30 2 * * *', deployLogReconcileEnabled: true }] },
);

export const ScheduleRunParams = z.object({
  type: z.string().meta({
    description: 'The schedule type; only `deploy_log_reconcile` runs (any other: 404).',
    examples: ['deploy_log_reconcile'],
  }),
});

export const ScheduleToggleParams = z.object({
  type: z.string().meta({
    description:
      '`deploy_log_reconcile` and `stack_deploy` are refused (400): neither has a per-item schedule; any other: 404.',
    examples: ['deploy_log_reconcile'],
  }),
  id: z.string().meta({ description: 'The schedule id (a non-negative integer).', examples: ['0'] }),
});

export const SignInBody = jsonBody(
  {
    token: z
      .string({ error: 'token must be a string' })
      .min(1, { error: 'token must be a string' })
      .meta({ description: 'A token of the config’s `users`.' }),
  },
  { examples: [{ token: 't-admin' }] },
);
