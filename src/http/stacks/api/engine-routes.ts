/**
 * Schemas of the routes that read a stack's containers on its Docker engine (src/http/
 * stacks/routes/containers.ts): their state, their logs, a stack's logs. Registered, documented and
 * typed for the page like the route table's (routes.ts, client.ts). This module imports no Node module.
 */
import { z } from 'zod';
import { DEFAULT_TAIL, MAX_TAIL } from '../../../stacks/engine/log-limits.js';
import { EnvironmentId, EventStreamText, STACK_STATE, StackContainer } from './answers.js';
import { EnvQuery, StackName } from './requests.js';
import { fail, json, TOO_MANY_STREAMS, UNAUTHORIZED } from './route-answers.js';

const CONTAINERS = ['containers'];

/** A container as a route names it: its name (or id), as the engine spells them. */
const CONTAINER_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$/;

const ContainerParams = z.object({
  name: StackName,
  container: z
    .string()
    .regex(CONTAINER_PATTERN, {
      error: (issue) => `Invalid container name ${JSON.stringify(issue.input)}`,
    })
    .meta({
      description: "The container's name (`containers[].name` of the stack) or id.",
      examples: ['web-web-1'],
    }),
});

const flag = (description: string) =>
  z
    .string()
    .meta({ description, examples: ['true'] })
    .optional()
    .transform((value) => value === 'true' || value === '1');

/** `since`: Unix seconds (a fraction allowed) or an RFC 3339 time; undefined when omitted. */
const since = z
  .string()
  .meta({
    description: 'Only lines from then on: Unix seconds (`1764633147.5`) or an RFC 3339 time.',
    examples: ['2026-12-01T23:00:00Z'],
  })
  .optional()
  .transform((value, context) => {
    if (value === undefined) return undefined;
    const seconds = /^[0-9]{1,12}(\.[0-9]{1,9})?$/.test(value)
      ? Number(value)
      : /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/i.test(value)
        ? Date.parse(value) / 1000
        : Number.NaN;
    if (Number.isFinite(seconds)) return seconds;
    context.issues.push({
      code: 'custom',
      message: `since must be Unix seconds or an RFC 3339 time, not ${JSON.stringify(value)}`,
      input: value,
    });
    return z.NEVER;
  });

const LogsQuery = EnvQuery.extend({
  tail: z
    .string()
    .meta({
      description: `The last lines of each container: 0-${MAX_TAIL.toLocaleString('en')}, or \`all\` (default ${DEFAULT_TAIL.toLocaleString('en')}).`,
      examples: ['100', 'all'],
    })
    .optional()
    .transform((value, context): number | 'all' => {
      if (value === undefined) return DEFAULT_TAIL;
      if (value === 'all') return 'all';
      const n = /^(0|[1-9][0-9]{0,9})$/.test(value) ? Number(value) : Number.NaN;
      if (Number.isSafeInteger(n) && n <= MAX_TAIL) return n;
      context.issues.push({
        code: 'custom',
        message: `tail must be an integer from 0 to ${MAX_TAIL} or "all", not ${JSON.stringify(value)}`,
        input: value,
      });
      return z.NEVER;
    }),
  since,
  follow: flag('`true` (or `1`): after the last lines, the new ones as they come, until the client leaves.'),
  timestamps: flag('`true`: each line of a `text/plain` answer starts with its time and a space.'),
});

const StackContainers = z
  .object({
    state: STACK_STATE,
    stateReason: z.string().nullable(),
    containers: z.array(StackContainer).nullable(),
  })
  .meta({
    id: 'StackContainers',
    description:
      "A stack's state and containers on its Docker engine (as `GET /api/stacks/{name}` has them).",
  });

const EngineReach = z
  .object({
    environmentId: EnvironmentId,
    name: z.string(),
    reachable: z.boolean(),
    version: z.string().nullable().meta({ description: "The engine's version; null when unreachable." }),
    apiVersion: z.string().nullable(),
    reason: z.string().nullable().meta({ description: 'Why it is unreachable; null otherwise.' }),
  })
  .meta({
    id: 'EngineReach',
    description: "An environment's Docker engine: whether it answered (within 2 s) and its version.",
    examples: [
      {
        environmentId: null,
        name: 'local',
        reachable: true,
        version: '20.10.24',
        apiVersion: '1.41',
        reason: null,
      },
    ],
  });

const bytes = (description: string) => z.number().int().meta({ description });

const EngineInfo = z
  .object({
    environmentId: EnvironmentId,
    where: z
      .string()
      .meta({ description: 'Where the engine is (`unix:///var/run/docker.sock`, `tcp://…`).' }),
    version: z.string(),
    apiVersion: z.string(),
    os: z.string(),
    kernel: z.string(),
    architecture: z.string(),
    cpus: z.number().int(),
    memoryBytes: bytes('Memory of the engine host.'),
    containers: z.object({
      total: z.number().int(),
      running: z.number().int(),
      paused: z.number().int(),
      stopped: z.number().int(),
    }),
    images: z.number().int(),
    disk: z
      .object({
        images: bytes("Images' layers."),
        containers: bytes("Containers' writable layers."),
        volumes: bytes('Volumes (those the engine measured).'),
        buildCache: bytes('The build cache.'),
      })
      .meta({ description: 'Bytes on the engine disk (`GET /system/df`).' }),
    compose: z
      .object({
        command: z.array(z.string()),
        generation: z.enum(['v1', 'v2']),
        version: z.string().nullable(),
      })
      .meta({ description: 'The compose program chronicle runs the stacks with.' }),
  })
  .meta({ id: 'EngineInfo', description: "An environment's Docker engine in detail (admins)." });

export const StatsSample = z
  .object({
    container: z.string(),
    service: z.string().nullable(),
    time: z.string().meta({ description: "The engine's time of the sample." }),
    cpuPercent: z.number().nullable().meta({
      description: 'Percent of one CPU core (more than 100 with several busy); null for the first sample.',
    }),
    memoryBytes: z.number().meta({ description: 'Memory used, without the page cache (as `docker stats`).' }),
    memoryLimitBytes: z.number().meta({ description: "The container's limit, or the host's memory." }),
    netRxBytes: z.number().meta({ description: 'Network bytes received since it started.' }),
    netTxBytes: z.number().meta({ description: 'Network bytes sent since it started.' }),
  })
  .meta({
    id: 'StatsSample',
    description: 'One sample of a container (the data of each event of `GET /api/stacks/{name}/stats`).',
  });

export const ContainerLogLine = z
  .object({
    container: z.string(),
    service: z.string().nullable(),
    stream: z.enum(['stdout', 'stderr']),
    time: z.string().meta({ description: "The engine's time of the line (RFC 3339, nanoseconds)." }),
    line: z.string().meta({ description: 'The redacted line.' }),
  })
  .meta({
    id: 'ContainerLogLine',
    description: 'One line of a container log (the data of each event of a `text/event-stream` logs answer).',
    examples: [
      {
        container: 'shop-db-1',
        service: 'db',
        stream: 'stderr',
        time: '2026-12-01T23:52:27.123456789Z',
        line: 'FATAL: could not connect to server',
      },
    ],
  });

const LOG_ANSWER = (what: string) => ({
  description: `${what}, redacted with the stack's values (a line holding a short value is withheld), each line cut at 64 KiB. \`text/plain\` (the default): one line per line; with \`Accept: text/event-stream\`: one event per line whose data is a ContainerLogLine (\`#/components/schemas/ContainerLogLine\`), then, when not followed, an event \`{"type":"end"}\`.`,
  content: {
    'text/plain': { schema: z.string() },
    'text/event-stream': { schema: EventStreamText },
  },
});

const FAILS = {
  400: fail('Bad `env`, stack name, container name, `tail` or `since`, naming it.'),
  401: UNAUTHORIZED,
  403: fail("The caller lacks `view` for the stack's environment."),
  404: fail(
    'No such environment or stack, or no container of that name in the stack (`Container not found`).',
  ),
  502: fail(
    "The stack's Docker engine cannot be reached, or its secret provider failed (nothing unredacted is sent).",
  ),
} as const;

export const engineSchemas = {
  getStackContainers: {
    method: 'GET',
    url: '/api/stacks/:name/containers',
    schema: {
      operationId: 'getStackContainers',
      summary: "A stack's state and containers on its engine",
      description:
        'What `GET /api/stacks/{name}` answers of the engine, without the files: read from the engine when asked (at most 2 s; `unknown` with the reason past that). `GET /api/events` says when it changes.',
      tags: CONTAINERS,
      params: z.object({ name: StackName }),
      querystring: EnvQuery,
      response: {
        200: json('The state and the containers.', StackContainers),
        400: FAILS[400],
        401: UNAUTHORIZED,
        403: FAILS[403],
        404: fail('No such environment or stack.'),
      },
    },
  },
  getContainerLogs: {
    method: 'GET',
    url: '/api/stacks/:name/containers/:container/logs',
    schema: {
      operationId: 'getContainerLogs',
      summary: "A container's log: its last lines, and followed live",
      description:
        "From the container's engine (both of its streams). Followed, a container that stops and starts again (or is recreated under its name) is followed on.",
      tags: CONTAINERS,
      params: ContainerParams,
      querystring: LogsQuery,
      response: { 200: LOG_ANSWER("The container's lines"), ...FAILS, 429: TOO_MANY_STREAMS },
    },
  },
  getStackLogs: {
    method: 'GET',
    url: '/api/stacks/:name/logs',
    schema: {
      operationId: 'getStackLogs',
      summary: "A stack's logs: every container's, interleaved by time",
      description:
        'The last `tail` lines of each container, merged by time; followed, the new lines of every container as they come, also of containers started later. The `text/plain` answer starts each line with the container name and ` | `.',
      tags: CONTAINERS,
      params: z.object({ name: StackName }),
      querystring: LogsQuery,
      response: { 200: LOG_ANSWER("The stack's lines"), ...FAILS, 429: TOO_MANY_STREAMS },
    },
  },
  getStackStats: {
    method: 'GET',
    url: '/api/stacks/:name/stats',
    schema: {
      operationId: 'getStackStats',
      summary: "The resource use of a stack's running containers, live",
      description:
        "A `text/event-stream`: a comment `: stats` first, then about one StatsSample per running container a second (the Engine API's `stats` stream), a container started meanwhile from its start, until the client leaves: the engine's streams are open only while someone reads them.",
      tags: CONTAINERS,
      params: z.object({ name: StackName }),
      querystring: EnvQuery,
      response: {
        200: {
          description: 'Each event’s data is a StatsSample (`#/components/schemas/StatsSample`).',
          content: { 'text/event-stream': { schema: EventStreamText } },
        },
        400: FAILS[400],
        401: UNAUTHORIZED,
        403: FAILS[403],
        404: fail('No such environment or stack.'),
        429: TOO_MANY_STREAMS,
        502: FAILS[502],
      },
    },
  },
  listEngines: {
    method: 'GET',
    url: '/api/engines',
    schema: {
      operationId: 'listEngines',
      summary: "Each environment's Docker engine: reachable, and its version",
      description:
        'Of the environments the caller may view (and access); each engine asked once, for at most 2 s.',
      tags: CONTAINERS,
      response: { 200: json('The engines, local first.', z.array(EngineReach)), 401: UNAUTHORIZED },
    },
  },
  getEngineInfo: {
    method: 'GET',
    url: '/api/engines/info',
    schema: {
      operationId: 'getEngineInfo',
      summary: "An environment's Docker engine in detail (admins)",
      tags: CONTAINERS,
      querystring: EnvQuery,
      response: {
        200: json('Version, host, containers, images, disk use and the compose program.', EngineInfo),
        400: FAILS[400],
        401: UNAUTHORIZED,
        403: fail('Only an admin may.'),
        404: fail('No such environment.'),
        502: fail('The engine cannot be reached, or did not answer within 4 s.'),
      },
    },
  },
  openContainerConsole: {
    method: 'GET',
    url: '/api/stacks/:name/containers/:container/console',
    schema: {
      operationId: 'openContainerConsole',
      summary: 'A console in a running container (WebSocket)',
      description:
        'A WebSocket (`Upgrade: websocket`) to an exec with a TTY in the container: binary messages are the terminal\'s bytes both ways; text messages are JSON — `{"type":"resize","cols","rows"}` to the server, `{"type":"exit","exitCode"}` or `{"type":"error","error"}` from it, then the socket closes. Needs `edit` on the stack\'s environment; a page\'s request (its session cookie) must come from this server\'s origin. Opening and closing are audited (`console.opened`, `console.closed`: who, which container, the command, its exit code); what is typed is never recorded. Values of the stack of more than 5 characters are masked in what it prints.',
      tags: CONTAINERS,
      params: ContainerParams,
      querystring: EnvQuery.extend({
        command: z
          .string()
          .max(4096)
          .meta({
            description:
              'The command, split into words as a shell would (quotes and backslashes; nothing expanded). Default `sh`.',
            examples: ['sh', 'bash -l'],
          })
          .optional(),
      }),
      response: {
        101: {
          description: "Switching Protocols: the console runs; the socket's messages are as described above.",
          content: {
            'application/octet-stream': {
              schema: z
                .string()
                .meta({ description: "WebSocket messages: the terminal's bytes, and JSON controls." }),
            },
          },
        },
        400: fail('Bad `env`, stack name, container name or command (an unclosed quote), naming it.'),
        401: UNAUTHORIZED,
        403: fail(
          "The caller lacks `edit` for the stack's environment, or the page's request came from another origin.",
        ),
        404: fail(
          'No such environment or stack, or no container of that name in the stack (`Container not found`).',
        ),
        409: fail('The container is not running, or too many consoles are open.'),
        426: fail('A plain HTTP request: the console needs `Upgrade: websocket`.'),
        502: FAILS[502],
      },
    },
  },
} as const;

export type EngineRoutes = typeof engineSchemas;
