/**
 * Every route of the stacks service with its schemas, once: the server registers its handlers from this
 * table (stacks-routes-*.ts), the OpenAPI document is generated from it (`GET /api/openapi.json`), and a
 * client takes its types from it (client.ts). A route's answers are listed by status, each with what it
 * means; every failure answers `{ "error": message }`.
 */

import { z } from 'zod';
import { DEFAULT_EXECUTIONS_LIMIT, MAX_EXECUTIONS_LIMIT } from '../../../stacks/paging.js';
import {
  MAX_COMPOSE_BYTES,
  MAX_VARIABLE_VALUE_BYTES,
  MAX_VARIABLES_BYTES,
} from '../../../stacks/stack/input-limits.js';
import {
  ComposeSaved,
  EventStreamText,
  ExecutionsPage,
  GitStack,
  GitStackCreated,
  Health,
  Job,
  JobCancelled,
  JobOutcome,
  ReconcileExecution,
  Run,
  RunDeleted,
  SessionUser,
  Settings,
  SignedOut,
  Stack,
  StackDeleted,
  StackSummary,
  StackVariablesSaved,
  WebhookIgnored,
} from './answers.js';
import { LogPage } from './history-answers.js';
import {
  ComposeBody,
  CreateStackBody,
  DeleteStackQuery,
  DeployBody,
  EmptyBody,
  EnvQuery,
  executionsQuery,
  GitStackChangesBody,
  IfMatchHeaders,
  JobParams,
  JobPollQuery,
  LogQuery,
  NewGitStackBody,
  RunParams,
  ScheduleRunParams,
  ScheduleToggleParams,
  SettingsBody,
  SignInBody,
  StackParams,
  VariablesBody,
  WebhookBody,
  WebhookHeaders,
} from './requests.js';
import { fail, jobAnswers, json, TOO_MANY_STREAMS, UNAUTHORIZED } from './route-answers.js';

// ------------------------------------------------------------------------------------------------
// Answers by status
// ------------------------------------------------------------------------------------------------

const ENV_400 = 'the `env` query is neither omitted, `null` nor an integer';
const NAME_400 = 'the stack name breaks the name rule';
const ENV_403 = (action: 'view' | 'edit') =>
  `The caller lacks \`${action}\` for this environment, or access to it (\`forbidden: needs the stacks ${action} permission for environment 1\`).`;
const ENV_404 = 'No environment with that id (`Environment not found`)';
const STACK_404 = `${ENV_404}, or no such stack (\`Stack not found\`).`;
const GIT_STACK_404 = 'No such git stack (`Git stack not found`).';
/** A compose file the compose that will run it refuses (src/stacks/compose/check.ts). */
const COMPOSE_422 = fail(
  "The compose that will run the stack refuses the file (`config --quiet`, with the stack's variables, beside its compose file): `The compose file is invalid (compose config): <compose's message>`, ending `(at line N, column M)` when the key it names is found. Nothing is saved.",
);
const BODY_413 = fail('The body is larger than the route takes.');
const CONTENT_413 = fail(
  `The body is larger than the route takes, or the compose file (${MAX_COMPOSE_BYTES} bytes), a variable's value (${MAX_VARIABLE_VALUE_BYTES} bytes) or all variables' names and values (${MAX_VARIABLES_BYTES} bytes) are over their limits (\`Compose file is 5300000 bytes, over the limit of 1048576 bytes (1 MiB)\`).`,
);

/**
 * The failures of a route that works in one environment: `bad` and `missing` are the whole 400 and 404
 * descriptions, `action` the permission the 403 names.
 */
const envFailures = (action: 'view' | 'edit', bad: string, missing = `${ENV_404}.`) =>
  ({ 400: fail(bad), 401: UNAUTHORIZED, 403: fail(ENV_403(action)), 404: fail(missing) }) as const;

/** The three answers of a job route: at once (202), or after the job with `Accept: application/json`. */
const JOB_ANSWERS = jobAnswers(
  'The job started (without `Accept: application/json`): follow it by its id.',
  'With `Accept: application/json`: the job ended and failed (a JobOutcome with `error`); or an internal error.',
);

const STACKS = ['stacks'];
const RUNS = ['deploy runs'];
const JOBS = ['jobs'];
const GIT = ['git stacks'];
const SCHEDULES = ['settings and schedules'];
const SESSION = ['web page session and changes'];

// ------------------------------------------------------------------------------------------------
// The routes
// ------------------------------------------------------------------------------------------------

const stackOperation = (operation: 'start' | 'stop' | 'restart' | 'down', summary: string) =>
  ({
    method: 'POST',
    url: `/api/stacks/:name/${operation}`,
    schema: {
      operationId: `${operation}Stack`,
      summary,
      description: 'A job that records no run (`runId` null).',
      tags: STACKS,
      params: StackParams,
      querystring: EnvQuery,
      response: {
        ...JOB_ANSWERS,
        ...envFailures('edit', `${ENV_400}, or ${NAME_400}.`, STACK_404),
        409: fail('The stack has a job running, or the server is stopping.'),
      },
    },
  }) as const;

export const stacksRoutes = {
  listStacks: {
    method: 'GET',
    url: '/api/stacks',
    schema: {
      operationId: 'listStacks',
      summary: 'List the stacks of an environment',
      tags: STACKS,
      querystring: EnvQuery,
      response: {
        200: json(
          'The stacks, by name, each with its state and containers on its Docker engine (asked for at most 2 s; `unknown` with the reason past that).',
          z.array(StackSummary),
        ),
        ...envFailures('view', `${ENV_400}.`),
      },
    },
  },
  createStack: {
    method: 'POST',
    url: '/api/stacks',
    schema: {
      operationId: 'createStack',
      summary: 'Create a stack and start it (a recorded run)',
      tags: STACKS,
      querystring: EnvQuery,
      body: CreateStackBody,
      response: {
        ...JOB_ANSWERS,
        ...envFailures(
          'edit',
          `${ENV_400}; the body is no JSON object, a field has the wrong type, ${NAME_400}, the compose file is no YAML mapping or breaks the environment's security settings (a non-admin's: README "Security model"), a variable is malformed or of a refused name, or the secret provider is unknown.`,
        ),
        403: fail(
          `${ENV_403('edit')} Or a non-admin names a secret provider that does not serve this environment (\`forbidden: secret provider "vault" does not serve stacks of environment 1 (config secretProviders["vault"].environments)\`).`,
        ),
        409: fail('A stack of that name exists (`Stack already exists`), or the server is stopping.'),
        413: CONTENT_413,
        422: COMPOSE_422,
      },
    },
  },
  getStack: {
    method: 'GET',
    url: '/api/stacks/:name',
    schema: {
      operationId: 'getStack',
      summary: 'Read a stack',
      tags: STACKS,
      params: StackParams,
      querystring: EnvQuery,
      response: {
        200: json('The stack, with its state and containers on its Docker engine.', Stack),
        ...envFailures('view', `${ENV_400}, or ${NAME_400}.`, STACK_404),
      },
    },
  },
  deleteStack: {
    method: 'DELETE',
    url: '/api/stacks/:name',
    schema: {
      operationId: 'deleteStack',
      summary:
        'Delete a stack (its files; its runs stay): refused while its engine has containers of it, unless `down` (remove them first) or `keepContainers`',
      tags: STACKS,
      params: StackParams,
      querystring: DeleteStackQuery,
      response: {
        200: json('The stack is gone (with `down`: after its `down` job succeeded, `jobId`).', StackDeleted),
        ...envFailures('edit', `${ENV_400}, or ${NAME_400}.`, STACK_404),
        409: fail(
          'The stack has a job running; or its engine has containers of it (neither `down` nor `keepContainers`): the message counts them.',
        ),
        500: fail('With `down`: the `down` job failed (its error); the stack was not deleted.'),
      },
    },
  },
  setVariables: {
    method: 'PUT',
    url: '/api/stacks/:name/variables',
    schema: {
      operationId: 'setVariables',
      summary: "Replace a stack's variables",
      tags: STACKS,
      params: StackParams,
      querystring: EnvQuery,
      body: VariablesBody,
      response: {
        200: json(
          'The stack with its new variables, and a warning for each whose value is too short to replace (how many lines of the last run it withholds).',
          StackVariablesSaved,
        ),
        ...envFailures(
          'edit',
          `${ENV_400}, ${NAME_400}, a variable is malformed, given twice or of a refused name (\`PATH\`, \`DOCKER_*\`...), or with these values the compose file breaks the environment's security settings (a non-admin's: README "Security model").`,
          STACK_404,
        ),
        409: fail('The stack has a job running.'),
        413: CONTENT_413,
      },
    },
  },
  saveCompose: {
    method: 'PUT',
    url: '/api/stacks/:name/compose',
    schema: {
      operationId: 'saveCompose',
      summary: "Replace a stack's compose file; with `restart`, save and redeploy (a recorded run)",
      tags: STACKS,
      params: StackParams,
      querystring: EnvQuery,
      headers: IfMatchHeaders,
      body: ComposeBody,
      response: {
        ...JOB_ANSWERS,
        200: json(
          'Saved (`restart` false: `{"saved": true}`); or, with `restart` and `Accept: application/json`, the job ended and succeeded.',
          z.union([ComposeSaved, JobOutcome]),
        ),
        ...envFailures(
          'edit',
          `${ENV_400}, ${NAME_400}, a field has the wrong type, the compose file is no YAML mapping, or it breaks the environment's security settings (a non-admin's: README "Security model").`,
          STACK_404,
        ),
        409: fail(
          '`compose_changed`: `If-Match` names another version than the stored one (the answer names the stored hash); or the stack has a job running, or the server is stopping.',
        ),
        413: CONTENT_413,
        422: COMPOSE_422,
      },
    },
  },
  deployStack: {
    method: 'POST',
    url: '/api/stacks/:name/deploy',
    schema: {
      operationId: 'deployStack',
      summary: 'Deploy a stack (a recorded run)',
      tags: STACKS,
      params: StackParams,
      querystring: EnvQuery,
      body: DeployBody,
      response: {
        ...JOB_ANSWERS,
        ...envFailures('edit', `${ENV_400}, ${NAME_400}, or an option is not a boolean.`, STACK_404),
        409: fail('The stack has a job running, or the server is stopping.'),
      },
    },
  },
  startStack: stackOperation('start', 'Start the containers of a stack'),
  stopStack: stackOperation('stop', 'Stop the containers of a stack'),
  restartStack: stackOperation('restart', 'Restart the containers of a stack'),
  downStack: stackOperation('down', 'Stop and remove the containers of a stack'),

  listRuns: {
    method: 'GET',
    url: '/api/stacks/:name/deploys',
    schema: {
      operationId: 'listRuns',
      summary: 'List the deploy runs of a stack in an environment, newest first',
      tags: RUNS,
      params: StackParams,
      querystring: EnvQuery,
      response: {
        200: json('The runs of that stack in that environment only.', z.array(Run)),
        ...envFailures('view', `${ENV_400}, or ${NAME_400}.`),
      },
    },
  },
  getRun: {
    method: 'GET',
    url: '/api/stacks/:name/deploys/:runId',
    schema: {
      operationId: 'getRun',
      summary: 'Read a deploy run',
      description: "The run's own environment is used, never an `env` query.",
      tags: RUNS,
      params: RunParams,
      response: {
        200: json('The run.', Run),
        400: fail(`${NAME_400}, or the run id is no positive integer.`),
        401: UNAUTHORIZED,
        403: fail(
          "The caller lacks `view`, globally or for the run's environment (`forbidden: needs the stacks view permission`).",
        ),
        404: fail('No such run of that stack (`Run not found`).'),
      },
    },
  },
  deleteRun: {
    method: 'DELETE',
    url: '/api/stacks/:name/deploys/:runId',
    schema: {
      operationId: 'deleteRun',
      summary: 'Delete a finished deploy run and its log',
      tags: RUNS,
      params: RunParams,
      response: {
        200: json('The run and its log are gone.', RunDeleted),
        400: fail(`${NAME_400}, or the run id is no positive integer.`),
        401: UNAUTHORIZED,
        403: fail(
          "The caller lacks `edit`, globally or for the run's environment (`forbidden: needs the stacks edit permission`).",
        ),
        404: fail('No such run of that stack (`Run not found`).'),
        409: fail('The run has not ended: neither its row nor its log is touched.'),
      },
    },
  },
  getRunLog: {
    method: 'GET',
    url: '/api/stacks/:name/deploys/:runId/log',
    schema: {
      operationId: 'getRunLog',
      summary: "Read a run's redacted log, or follow it live",
      tags: RUNS,
      params: RunParams,
      querystring: LogQuery,
      response: {
        200: {
          description:
            'The log text (with `download=true` as the attachment `<stack>-run-<id>.log`); with `follow=true` a `text/event-stream` whose events carry a LogFollowEvent each (`#/components/schemas/LogFollowEvent`): every line from the first, live while the run runs, then `end` with its status; with `fromLine`, `limit` or `q` a JSON page (LogPage).',
          content: {
            'text/plain': { schema: z.string() },
            'text/event-stream': { schema: EventStreamText },
            'application/json': { schema: LogPage },
          },
        },
        400: fail(
          `${NAME_400}, or the run id is no positive integer, or a bad \`fromLine\`, \`limit\` or \`q\`.`,
        ),
        401: UNAUTHORIZED,
        403: fail(
          "The caller lacks `view`, globally or for the run's environment (`forbidden: needs the stacks view permission`).",
        ),
        404: fail('No such run of that stack (`Run not found`), or it has no log (`Log not found`).'),
        429: TOO_MANY_STREAMS,
      },
    },
  },

  getJob: {
    method: 'GET',
    url: '/api/jobs/:id',
    schema: {
      operationId: 'getJob',
      summary: 'Poll a job',
      description:
        'A page of its messages: 1,000 by default (`limit`, up to 10,000), and never more than 1 MiB of their text; the next page with `after` = `next` while `more`. The result is answered whatever the page.',
      tags: JOBS,
      params: JobParams,
      querystring: JobPollQuery,
      response: {
        200: json('The job.', Job),
        401: UNAUTHORIZED,
        403: fail("The caller lacks `view` on the job's stack environment."),
        404: fail('No such job, or it was deleted (`Job not found`).'),
      },
    },
  },
  getJobEvents: {
    method: 'GET',
    url: '/api/jobs/:id/events',
    schema: {
      operationId: 'getJobEvents',
      summary: "Stream a job's messages",
      description:
        'Every message so far, then live ones; the stream ends after the result. Resume with `Last-Event-ID` (the `id:` of the last event read). Read from the store at the client\'s pace: a slow client holds no backlog in memory; one that falls more than 16 MiB of output behind the running job and takes nothing for 10 s gets a last event `{"type":"dropped","reason":"too slow: ...","lastEventId":"<id>"}` and the stream ends (resume with that `Last-Event-ID`).',
      tags: JOBS,
      params: JobParams,
      response: {
        200: {
          description:
            'A `text/event-stream`: each event has an `id:` (the message index) and a JobMessage as its data (`#/components/schemas/JobMessage`).',
          content: { 'text/event-stream': { schema: EventStreamText } },
        },
        401: UNAUTHORIZED,
        403: fail("The caller lacks `view` on the job's stack environment."),
        404: fail('No such job, or it was deleted (`Job not found`).'),
        429: TOO_MANY_STREAMS,
      },
    },
  },
  cancelJob: {
    method: 'POST',
    url: '/api/jobs/:id/cancel',
    schema: {
      operationId: 'cancelJob',
      summary: 'Cancel a running job (a deploy, start, stop, restart, down...)',
      description:
        "Stops the job's compose process group and ends the job `cancelled` (a recorded deploy's run too: status `cancelled`, `details.cancelledBy`); a job still preparing (a git fetch, a secret provider) stops before compose starts. Audited (`job.cancelled`). Asking again while it stops answers the same.",
      tags: JOBS,
      params: JobParams,
      response: {
        202: json('The cancel is under way; the job ends shortly (poll it).', JobCancelled),
        401: UNAUTHORIZED,
        403: fail("The caller lacks `edit` on the job's stack environment."),
        404: fail('No such job, or it was deleted (`Job not found`).'),
        409: fail(
          'The job has ended (`The job has ended`), or it runs in another chronicle instance on the same log (`The job runs in another chronicle instance: ...`).',
        ),
      },
    },
  },

  listGitStacks: {
    method: 'GET',
    url: '/api/git-stacks',
    schema: {
      operationId: 'listGitStacks',
      summary: 'List the git stacks of an environment',
      tags: GIT,
      querystring: EnvQuery,
      response: {
        200: json('The git stacks.', z.array(GitStack)),
        400: fail(`${ENV_400}.`),
        401: UNAUTHORIZED,
        403: fail(ENV_403('view')),
      },
    },
  },
  createGitStack: {
    method: 'POST',
    url: '/api/git-stacks',
    schema: {
      operationId: 'createGitStack',
      summary: 'Create a stack from a git repository; with `deploy`, deploy it (a recorded run)',
      tags: GIT,
      querystring: EnvQuery,
      body: NewGitStackBody,
      response: {
        ...JOB_ANSWERS,
        201: json(
          'Created, not deployed: the stack and the commit its compose file came from.',
          GitStackCreated,
        ),
        ...envFailures(
          'edit',
          `${ENV_400}; ${NAME_400}, an unknown field, or a field that is wrong (URL, branch, path, cron).`,
        ),
        409: fail('A stack of that name exists, or the server is stopping.'),
        413: CONTENT_413,
        422: fail(
          'The repository, its branch or the compose file in it cannot be had, or is no compose file.',
        ),
      },
    },
  },
  getGitStack: {
    method: 'GET',
    url: '/api/git-stacks/:name',
    schema: {
      operationId: 'getGitStack',
      summary: "Read a git stack's settings",
      tags: GIT,
      params: StackParams,
      querystring: EnvQuery,
      response: {
        200: json('The git stack.', GitStack),
        ...envFailures('view', `${ENV_400}, or ${NAME_400}.`, GIT_STACK_404),
      },
    },
  },
  configureGitStack: {
    method: 'PUT',
    url: '/api/git-stacks/:name',
    schema: {
      operationId: 'configureGitStack',
      summary: "Change a git stack's settings; with `redeploy`, deploy with them (a recorded run)",
      tags: GIT,
      params: StackParams,
      querystring: EnvQuery,
      body: GitStackChangesBody,
      response: {
        ...JOB_ANSWERS,
        200: json(
          'The new settings; or, with `redeploy` and `Accept: application/json`, the job ended and succeeded.',
          z.union([GitStack, JobOutcome]),
        ),
        ...envFailures(
          'edit',
          `${ENV_400}; ${NAME_400}, an unknown field, or a field that is wrong (URL, branch, path, cron).`,
          GIT_STACK_404,
        ),
        409: fail('The stack has a job running, or the server is stopping.'),
        413: CONTENT_413,
        422: fail(
          'The new settings give no compose file (repository, branch or file missing): nothing changed.',
        ),
      },
    },
  },
  deployGitStack: {
    method: 'POST',
    url: '/api/git-stacks/:name/deploy',
    schema: {
      operationId: 'deployGitStack',
      summary: "Deploy a git stack's branch as it is now (a recorded run)",
      tags: GIT,
      params: StackParams,
      querystring: EnvQuery,
      body: EmptyBody,
      response: {
        ...JOB_ANSWERS,
        ...envFailures('edit', `${ENV_400}, ${NAME_400}, or the body is no JSON object.`, GIT_STACK_404),
        409: fail('The stack has a job running, or the server is stopping.'),
      },
    },
  },
  gitStackWebhook: {
    method: 'POST',
    url: '/api/git-stacks/:name/webhook',
    schema: {
      operationId: 'gitStackWebhook',
      summary: 'The git webhook: a signed push deploys (a recorded run, trigger webhook)',
      description:
        'No bearer token: the `X-Hub-Signature-256` header proves the caller. The signature header, the stack and its secret are checked before the body is read.',
      tags: GIT,
      security: [],
      params: StackParams,
      querystring: EnvQuery,
      headers: WebhookHeaders,
      body: WebhookBody,
      response: {
        ...JOB_ANSWERS,
        200: json(
          'Ignored (a ping, a delivery already handled, a push to another branch); or, with `Accept: application/json`, the job ended and succeeded.',
          z.union([WebhookIgnored, JobOutcome]),
        ),
        400: fail(`${ENV_400}, ${NAME_400}, or the delivery id is too long.`),
        401: fail('The signature is missing or wrong, or the stack has no webhook secret.'),
        409: fail('The stack has a job running, or the server is stopping.'),
        413: fail('The body is larger than 25 MiB.'),
        503: fail('Too many deliveries are being received at once; retry later (`Retry-After`).'),
      },
    },
  },

  getSettings: {
    method: 'GET',
    url: '/api/settings/general',
    schema: {
      operationId: 'getSettings',
      summary: 'Read the general settings',
      tags: SCHEDULES,
      response: { 200: json('The settings.', Settings), 401: UNAUTHORIZED },
    },
  },
  changeSettings: {
    method: 'POST',
    url: '/api/settings/general',
    schema: {
      operationId: 'changeSettings',
      summary: 'Change the general settings (admin)',
      tags: SCHEDULES,
      body: SettingsBody,
      response: {
        200: json('The settings after the change; the reconcile schedule follows them at once.', Settings),
        400: fail('An unknown key, a value of the wrong type, or a cron expression node-cron refuses.'),
        401: UNAUTHORIZED,
        403: fail('The caller is no admin.'),
        413: BODY_413,
      },
    },
  },
  runSchedule: {
    method: 'POST',
    url: '/api/schedules/:type/run',
    schema: {
      operationId: 'runSchedule',
      summary: 'Run the deploy-log reconcile now (answered once it has ended)',
      tags: SCHEDULES,
      params: ScheduleRunParams,
      response: {
        200: json('The closed execution row, whatever its status.', ReconcileExecution),
        401: UNAUTHORIZED,
        403: fail('The caller is no admin and has no stacks `edit` permission.'),
        404: fail('Another schedule type.'),
        409: fail('A reconcile is running.'),
      },
    },
  },
  toggleSchedule: {
    method: 'POST',
    url: '/api/schedules/:type/:id/toggle',
    schema: {
      operationId: 'toggleSchedule',
      summary: 'Pause or resume one schedule: refused for both schedule types the service has',
      tags: SCHEDULES,
      params: ScheduleToggleParams,
      response: {
        400: fail(
          '`deploy_log_reconcile` (use `deployLogReconcileEnabled`) and `stack_deploy` (no schedule of its own), or a malformed id.',
        ),
        401: UNAUTHORIZED,
        404: fail('Another schedule type.'),
      },
    },
  },
  listExecutions: {
    method: 'GET',
    url: '/api/schedules/executions',
    schema: {
      operationId: 'listExecutions',
      summary: 'List schedule executions (deploy runs and reconcile runs), newest first',
      tags: SCHEDULES,
      querystring: executionsQuery(DEFAULT_EXECUTIONS_LIMIT, MAX_EXECUTIONS_LIMIT),
      response: {
        200: json(
          'One page: deploy runs only of environments the caller may view; reconcile runs for everyone.',
          ExecutionsPage,
        ),
        400: fail('`limit` or `offset` out of range or no decimal integer.'),
        401: UNAUTHORIZED,
      },
    },
  },

  signIn: {
    method: 'POST',
    url: '/api/session',
    schema: {
      operationId: 'signIn',
      summary: 'Sign in with a token: the web page’s session cookie',
      description:
        'No bearer token: the body carries it. The answer sets `chronicle_session`, an HttpOnly, `SameSite=Strict` cookie that stands for the token on every route (a Bearer header, when sent, wins). A session ends 8 hours after its last request, 7 days after sign-in, when its user leaves the config, or when the server restarts.',
      tags: SESSION,
      security: [],
      body: SignInBody,
      response: {
        200: json('Signed in (with `Set-Cookie`): who, and what they may do where.', SessionUser),
        400: fail('The body is no JSON object, or `token` is no non-empty string.'),
        401: fail('An unknown token (`unauthorized`).'),
        429: fail(
          'Ten failed sign-ins from this address within a minute: every sign-in from it (a right token too) waits the `Retry-After` seconds (`Too many failed sign-ins from <address>: try again in <n> s`).',
        ),
      },
    },
  },
  getSession: {
    method: 'GET',
    url: '/api/session',
    schema: {
      operationId: 'getSession',
      summary: 'Who is signed in (by the session cookie or the bearer token)',
      tags: SESSION,
      response: {
        200: json('The caller, and what they may do where.', SessionUser),
        401: fail('No token and no live session (`unauthorized`): the page shows its sign-in.'),
      },
    },
  },
  signOut: {
    method: 'DELETE',
    url: '/api/session',
    schema: {
      operationId: 'signOut',
      summary: 'Sign out: end the session and clear its cookie',
      description:
        'No token needed: an ended session can still clear its cookie. A request from another origin (its `Origin` header not this host) is refused.',
      tags: SESSION,
      security: [],
      response: {
        200: json(
          'Signed out (with `Set-Cookie` clearing the cookie), whether a session was live or not.',
          SignedOut,
        ),
        401: fail('The request came from another origin (`unauthorized`).'),
      },
    },
  },
  changeEvents: {
    method: 'GET',
    url: '/api/events',
    schema: {
      operationId: 'changeEvents',
      summary: 'Stream the changes of runs, jobs and stacks the caller may view',
      description:
        'Live only (no replay, no resume): a comment `: changes` first, then one event per change of a run, job or stack in an environment the caller may view, and of the settings and schedule executions. Job output lines are not changes (`GET /api/jobs/{id}/events` streams them). A client that falls 1 MiB behind is ended and reconnects.',
      tags: SESSION,
      response: {
        200: {
          description:
            'A `text/event-stream`: each event’s data is a Change (`#/components/schemas/Change`).',
          content: { 'text/event-stream': { schema: EventStreamText } },
        },
        401: UNAUTHORIZED,
        429: TOO_MANY_STREAMS,
      },
    },
  },

  health: {
    method: 'GET',
    url: '/api/health',
    schema: {
      operationId: 'health',
      summary: 'Whether the server takes writes (no token needed; the reason only with one)',
      description:
        'For a supervisor or a load balancer: 200 while the event store takes writes, 503 while it is failed (a write it could not make, such as on a full disk: README, "When the store fails"). With a token the answer says why, in the store\'s own words.',
      tags: ['documentation'],
      security: [],
      response: {
        200: json('The store takes writes.', Health),
        503: fail(
          "The store failed (`store_failed`): writes answer the same meanwhile. `message` says since when and what clears it; `reason` (with a token only: it may name paths) why, in the store's own words.",
        ),
      },
    },
  },

  openApiDocument: {
    method: 'GET',
    url: '/api/openapi.json',
    schema: {
      operationId: 'openApiDocument',
      summary: 'This OpenAPI document (no token needed)',
      tags: ['documentation'],
      security: [],
      response: {
        200: json(
          'The OpenAPI 3.1 document of the stacks service, generated from the routes’ schemas.',
          z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }),
        ),
      },
    },
  },
} as const;

export type StacksRoutes = typeof stacksRoutes;
export type StacksRouteName = keyof StacksRoutes;
