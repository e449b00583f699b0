/**
 * Every call the page makes to the stacks API, in one module, typed from the schemas the server
 * validates with (src/http/stacks/api: its types only, so no zod reaches the bundle). `ROUTES` names
 * each route the page calls with the method and URL the route table gives it, checked by `satisfies`:
 * a renamed route, a moved URL, a renamed field of an answer or body breaks `npm run lint` (tsc,
 * src/http/stacks/ui/tsconfig.json), not the page. esbuild bundles this file with the page
 * (scripts/build-ui.mjs).
 *
 * The page authenticates with its session cookie (same origin, sent by the browser); a 401 anywhere
 * means the session ended, and the app returns to the sign-in page with the address kept.
 */
import type { z } from 'zod';
import type { Change as ChangeSchema } from '../api/answers.js';
import type { ApiRouteName, ApiRoutes, StacksAnswer, StacksBody, StacksParams } from '../api/client.js';
import type {
  ContainerLogLine as ContainerLogLineSchema,
  StatsSample as StatsSampleSchema,
} from '../api/engine-routes.js';
import { fillPath } from '../api/route-path.js';

export type Env = number | null;
export type SessionUser = StacksAnswer<'getSession', 200>;
export type SessionEnv = SessionUser['environments'][number];
export type StackItem = StacksAnswer<'listStacks', 200>[number];
export type Stack = StacksAnswer<'getStack', 200>;
/** The answer of a variables save: the stack, and warnings of values too short to replace. */
export type StackVariablesSaved = StacksAnswer<'setVariables', 200>;
/** A variable to save: a secret as `value: null` keeps its stored value. */
type Variable = StacksBody<'setVariables'>['variables'][number];
export type DeployOptions = { pull: boolean; build: boolean; forceRecreate: boolean };
export type Run = StacksAnswer<'getRun', 200>;
export type Summary = NonNullable<Run['details']['summary']>;
/** A variable of a new stack (no stored secret to keep: every value is a string). */
export type NewVariable = NonNullable<StacksBody<'createStack'>['variables']>[number];
export type NewGitStack = StacksBody<'createGitStack'>;
export type GitStackChanges = NonNullable<StacksBody<'configureGitStack'>>;
type JobAck = StacksAnswer<'deployStack', 202>;
type Job = StacksAnswer<'getJob', 200>;
/** The job of a stack that runs now (`Stack.job`). */
export type StackJob = NonNullable<Stack['job']>;
type JobCancelled = StacksAnswer<'cancelJob', 202>;
export type Settings = StacksAnswer<'getSettings', 200>;
type ExecutionsPage = StacksAnswer<'listExecutions', 200>;
type ReconcileExecution = StacksAnswer<'runSchedule', 200>;
export type GitStack = StacksAnswer<'getGitStack', 200>;
export type Change = z.output<typeof ChangeSchema>;
export type StackContainers = StacksAnswer<'getStackContainers', 200>;
export type Container = NonNullable<StackContainers['containers']>[number];
export type ContainerLogLine = z.output<typeof ContainerLogLineSchema>;
export type EngineReach = StacksAnswer<'listEngines', 200>[number];
export type StatsSample = z.output<typeof StatsSampleSchema>;
type EngineInfo = StacksAnswer<'getEngineInfo', 200>;
type EngineProject = StacksAnswer<'listEngineProjects', 200>[number];
type Adopted = StacksAnswer<'adoptEngineProject', 201>;
type ImageUpdates = StacksAnswer<'getImageUpdates', 200>;
export type RunCompose = StacksAnswer<'getRunCompose', 200>;
export type RunVariables = StacksAnswer<'getRunVariables', 200>;
export type RunDiff = StacksAnswer<'getRunDiff', 200>;
export type HistorySettings = StacksAnswer<'getHistorySettings', 200>;
type AuditPage = StacksAnswer<'listAudit', 200>;
export type DeliveriesPage = StacksAnswer<'listDeliveries', 200>;
export type NotificationChannels = StacksAnswer<'listNotificationChannels', 200>;
type NotificationTest = StacksAnswer<'testNotification', 200>;
type RetentionExecution = StacksAnswer<'runRetention', 200>;
/** A stack operation (start, stop, restart, down) of its Activity, and one with its kept output. */
export type Operation = StacksAnswer<'listActivity', 200>['operations'][number];
type OperationOutput = StacksAnswer<'getActivity', 200>;
/** The audit filters as the route reads them (each optional). */
export type AuditFilter = {
  user?: string;
  stack?: string;
  env?: string;
  type?: string;
  since?: string;
  until?: string;
};

/** The routes the page calls: [method, URL] exactly as the route table has them. */
const ROUTES = {
  getSession: ['GET', '/api/session'],
  signIn: ['POST', '/api/session'],
  signOut: ['DELETE', '/api/session'],
  changeEvents: ['GET', '/api/events'],
  listStacks: ['GET', '/api/stacks'],
  createStack: ['POST', '/api/stacks'],
  getStack: ['GET', '/api/stacks/:name'],
  deleteStack: ['DELETE', '/api/stacks/:name'],
  setVariables: ['PUT', '/api/stacks/:name/variables'],
  saveCompose: ['PUT', '/api/stacks/:name/compose'],
  deployStack: ['POST', '/api/stacks/:name/deploy'],
  startStack: ['POST', '/api/stacks/:name/start'],
  stopStack: ['POST', '/api/stacks/:name/stop'],
  restartStack: ['POST', '/api/stacks/:name/restart'],
  downStack: ['POST', '/api/stacks/:name/down'],
  listRuns: ['GET', '/api/stacks/:name/deploys'],
  getRun: ['GET', '/api/stacks/:name/deploys/:runId'],
  deleteRun: ['DELETE', '/api/stacks/:name/deploys/:runId'],
  getRunLog: ['GET', '/api/stacks/:name/deploys/:runId/log'],
  getJob: ['GET', '/api/jobs/:id'],
  getJobEvents: ['GET', '/api/jobs/:id/events'],
  cancelJob: ['POST', '/api/jobs/:id/cancel'],
  getSettings: ['GET', '/api/settings/general'],
  changeSettings: ['POST', '/api/settings/general'],
  runSchedule: ['POST', '/api/schedules/:type/run'],
  listExecutions: ['GET', '/api/schedules/executions'],
  listGitStacks: ['GET', '/api/git-stacks'],
  createGitStack: ['POST', '/api/git-stacks'],
  getGitStack: ['GET', '/api/git-stacks/:name'],
  configureGitStack: ['PUT', '/api/git-stacks/:name'],
  deployGitStack: ['POST', '/api/git-stacks/:name/deploy'],
  gitStackWebhook: ['POST', '/api/git-stacks/:name/webhook'],
  openApiDocument: ['GET', '/api/openapi.json'],
  getRunCompose: ['GET', '/api/stacks/:name/deploys/:runId/compose'],
  getRunVariables: ['GET', '/api/stacks/:name/deploys/:runId/variables'],
  getRunDiff: ['GET', '/api/stacks/:name/deploys/:runId/diff'],
  redeployRun: ['POST', '/api/stacks/:name/deploys/:runId/redeploy'],
  getHistorySettings: ['GET', '/api/stacks/:name/history-settings'],
  setHistorySettings: ['PUT', '/api/stacks/:name/history-settings'],
  listAudit: ['GET', '/api/audit'],
  runRetention: ['POST', '/api/schedules/deploy_run_retention/run'],
  listNotificationChannels: ['GET', '/api/notifications'],
  testNotification: ['POST', '/api/notifications/:name/test'],
  listDeliveries: ['GET', '/api/notifications/deliveries'],
  getStackContainers: ['GET', '/api/stacks/:name/containers'],
  getContainerLogs: ['GET', '/api/stacks/:name/containers/:container/logs'],
  getStackLogs: ['GET', '/api/stacks/:name/logs'],
  openContainerConsole: ['GET', '/api/stacks/:name/containers/:container/console'],
  getStackStats: ['GET', '/api/stacks/:name/stats'],
  listEngines: ['GET', '/api/engines'],
  getEngineInfo: ['GET', '/api/engines/info'],
  listEngineProjects: ['GET', '/api/engines/projects'],
  adoptEngineProject: ['POST', '/api/engines/projects/:project/adopt'],
  getImageUpdates: ['GET', '/api/stacks/:name/updates'],
  checkImageUpdates: ['POST', '/api/stacks/:name/updates/check'],
  listActivity: ['GET', '/api/stacks/:name/activity'],
  getActivity: ['GET', '/api/stacks/:name/activity/:jobId'],
} as const satisfies Partial<{
  [N in ApiRouteName]: readonly [ApiRoutes[N]['method'], ApiRoutes[N]['url']];
}>;

type Called = keyof typeof ROUTES;

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The failure's JSON body (a code's fields: `compose_changed` names the stored hash). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** Whether a failure is the 409 of a save whose edited version is no longer the stored one. */
export const isComposeChanged = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 409 && messageCode(error.body) === 'compose_changed';

const messageCode = (body: unknown) =>
  body !== null && typeof body === 'object' && 'error' in body ? body.error : undefined;

/** Called on a 401 of any call but the sign-in itself (set by the app). */
let onUnauthorized = () => {};
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** `?env=` as the routes read it (EnvQuery). */
const envQuery = (env: Env): { env: string } => ({ env: env === null ? 'null' : String(env) });

/** A route's path with its parameters filled in (each URL-encoded) and its query. */
function pathOf<N extends Called>(
  name: N,
  params?: StacksParams<N>,
  query?: Record<string, string | undefined>,
): string {
  return fillPath(name, ROUTES[name][1], params ?? {}, query);
}

/** The server's `{error}` message of a failed answer, else its status line. */
function messageOf(response: Response, value: unknown): string {
  if (value !== null && typeof value === 'object' && 'error' in value && typeof value.error === 'string')
    return value.error;
  return `${response.status} ${response.statusText}`;
}

interface Call<N extends Called> {
  params?: StacksParams<N>;
  query?: Record<string, string | undefined>;
  body?: StacksBody<N>;
  headers?: Record<string, string>;
}

/**
 * One request; JSON in and out. Errors become ApiError with the server's `{error}` message. The answer
 * is the route's `A` (a type of its schema); the server checks every answer against that schema.
 */
async function call<N extends Called, A>(name: N, request: Call<N> = {}): Promise<A> {
  const headers: Record<string, string> = { ...request.headers };
  const init: RequestInit = { method: ROUTES[name][0], credentials: 'same-origin', headers };
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(request.body);
  }
  const path = pathOf(name, request.params, request.query);
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, `The server cannot be reached (${error instanceof Error ? error.message : error})`);
  }
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const value: unknown = type.includes('json') && text !== '' ? JSON.parse(text) : text;
  if (!response.ok) {
    if (response.status === 401 && name !== 'signIn') onUnauthorized();
    throw new ApiError(response.status, messageOf(response, value), value);
  }
  return value as A;
}

const runParams = (name: string, id: number) => ({ name, runId: String(id) });

/** How long a streamed read takes chunks before it lets the page paint (streamRunLog). */
const YIELD_MS = 50;

/** Resolves once the page painted a frame (a task after the next animation frame's callbacks). */
const afterPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

export const api = {
  session: () => call<'getSession', SessionUser>('getSession'),
  signIn: (token: string) => call<'signIn', SessionUser>('signIn', { body: { token } }),
  signOut: () => call<'signOut', StacksAnswer<'signOut', 200>>('signOut'),
  changesUrl: () => pathOf('changeEvents'),

  stacks: (env: Env) => call<'listStacks', StackItem[]>('listStacks', { query: envQuery(env) }),
  stack: (name: string, env: Env) =>
    call<'getStack', Stack>('getStack', { params: { name }, query: envQuery(env) }),
  createStack: (env: Env, body: StacksBody<'createStack'>) =>
    call<'createStack', JobAck>('createStack', { query: envQuery(env), body }),
  /**
   * Deletes a stack. While its engine has containers of it the server wants a choice: `down` removes
   * them first (a `down` job), `keep` leaves them running; `plain` is refused then (409).
   */
  deleteStack: (name: string, env: Env, containers: 'plain' | 'down' | 'keep' = 'plain') =>
    call<'deleteStack', StacksAnswer<'deleteStack', 200>>('deleteStack', {
      params: { name },
      query: {
        ...envQuery(env),
        ...(containers === 'down'
          ? { down: 'true' }
          : containers === 'keep'
            ? { keepContainers: 'true' }
            : {}),
      },
    }),
  setVariables: (name: string, env: Env, variables: Variable[]) =>
    call<'setVariables', StackVariablesSaved>('setVariables', {
      params: { name },
      query: envQuery(env),
      body: { variables },
    }),
  /**
   * Saves the compose file; with `restart` it redeploys as a job (a JobAck), else `{saved, composeHash}`.
   * `edited` is the hash of the version the text was edited from (`If-Match`): a 409 `compose_changed`
   * when the server holds another.
   */
  saveCompose: (name: string, env: Env, body: StacksBody<'saveCompose'>, edited: string | null) =>
    call<'saveCompose', JobAck | StacksAnswer<'saveCompose', 200>>('saveCompose', {
      params: { name },
      query: envQuery(env),
      body,
      ...(edited === null ? {} : { headers: { 'if-match': `"${edited}"` } }),
    }),
  deploy: (name: string, env: Env, options: DeployOptions) =>
    call<'deployStack', JobAck>('deployStack', { params: { name }, query: envQuery(env), body: options }),
  operate: (name: string, env: Env, operation: 'start' | 'stop' | 'restart' | 'down') =>
    call<`${typeof operation}Stack`, JobAck>(`${operation}Stack`, {
      params: { name },
      query: envQuery(env),
    }),

  /** Stops a running job (its compose process group); it ends `cancelled` shortly after. */
  cancelJob: (id: string) => call<'cancelJob', JobCancelled>('cancelJob', { params: { id } }),

  runs: (name: string, env: Env) =>
    call<'listRuns', Run[]>('listRuns', { params: { name }, query: envQuery(env) }),
  run: (name: string, id: number) => call<'getRun', Run>('getRun', { params: runParams(name, id) }),
  deleteRun: (name: string, id: number) =>
    call<'deleteRun', StacksAnswer<'deleteRun', 200>>('deleteRun', { params: runParams(name, id) }),
  runLog: (name: string, id: number) =>
    call<'getRunLog', string>('getRunLog', { params: runParams(name, id) }),
  /** The log text as it arrives, chunk by chunk (a long log shows its first lines at once). */
  streamRunLog: async (name: string, id: number, onChunk: (chunk: string) => void) => {
    const response = await fetch(pathOf('getRunLog', runParams(name, id)), { credentials: 'same-origin' });
    if (!response.ok || !response.body) {
      let value: unknown;
      try {
        value = await response.json();
      } catch {}
      if (response.status === 401) onUnauthorized();
      throw new ApiError(response.status, messageOf(response, value));
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    // Chunks the browser already holds are read one after the other in microtasks, never letting the
    // page paint: a fast server's 200,000 lines would all be taken before the first is shown. So the
    // page paints after the first chunk, and then after each YIELD_MS of taking chunks.
    let paintAt = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onChunk(value);
      if (performance.now() >= paintAt) {
        await afterPaint();
        paintAt = performance.now() + YIELD_MS;
      }
    }
  },
  runLogFollowUrl: (name: string, id: number) => pathOf('getRunLog', runParams(name, id), { follow: 'true' }),

  /** The stack's state and containers on its engine. */
  containers: (name: string, env: Env) =>
    call<'getStackContainers', StackContainers>('getStackContainers', {
      params: { name },
      query: envQuery(env),
    }),
  /** A container's log (or, without a container, the whole stack's) as a followed event stream. */
  containerLogsUrl: (name: string, env: Env, container: string | null, tail: number | 'all') =>
    container === null
      ? pathOf('getStackLogs', { name }, { ...envQuery(env), tail: String(tail), follow: 'true' })
      : pathOf(
          'getContainerLogs',
          { name, container },
          { ...envQuery(env), tail: String(tail), follow: 'true' },
        ),

  /** The console's WebSocket path (the page makes it a ws:// or wss:// address). */
  consoleUrl: (name: string, env: Env, container: string, command: string) =>
    pathOf('openContainerConsole', { name, container }, { ...envQuery(env), command }),

  /** The stack's containers' samples, as server-sent events. */
  statsUrl: (name: string, env: Env) => pathOf('getStackStats', { name }, envQuery(env)),
  engines: () => call<'listEngines', EngineReach[]>('listEngines'),
  engineInfo: (env: Env) => call<'getEngineInfo', EngineInfo>('getEngineInfo', { query: envQuery(env) }),
  engineProjects: (env: Env) =>
    call<'listEngineProjects', EngineProject[]>('listEngineProjects', { query: envQuery(env) }),
  imageUpdates: (name: string, env: Env) =>
    call<'getImageUpdates', ImageUpdates>('getImageUpdates', { params: { name }, query: envQuery(env) }),
  checkImageUpdates: (name: string, env: Env) =>
    call<'checkImageUpdates', ImageUpdates>('checkImageUpdates', { params: { name }, query: envQuery(env) }),
  adoptProject: (env: Env, project: string) =>
    call<'adoptEngineProject', Adopted>('adoptEngineProject', { params: { project }, query: envQuery(env) }),

  /** The stack's Activity: its start, stop, restart and down operations that ended, newest first. */
  activity: (name: string, env: Env) =>
    call<'listActivity', StacksAnswer<'listActivity', 200>>('listActivity', {
      params: { name },
      query: envQuery(env),
    }),
  operation: (name: string, env: Env, jobId: string) =>
    call<'getActivity', OperationOutput>('getActivity', { params: { name, jobId }, query: envQuery(env) }),

  job: (id: string) => call<'getJob', Job>('getJob', { params: { id } }),
  jobEventsUrl: (id: string) => pathOf('getJobEvents', { id }),

  settings: () => call<'getSettings', Settings>('getSettings'),
  saveSettings: (body: StacksBody<'changeSettings'>) =>
    call<'changeSettings', Settings>('changeSettings', { body }),
  runReconcile: () =>
    call<'runSchedule', ReconcileExecution>('runSchedule', { params: { type: 'deploy_log_reconcile' } }),
  executions: (limit: number, offset: number) =>
    call<'listExecutions', ExecutionsPage>('listExecutions', {
      query: { limit: String(limit), offset: String(offset) },
    }),

  gitStacks: (env: Env) => call<'listGitStacks', GitStack[]>('listGitStacks', { query: envQuery(env) }),
  gitStack: (name: string, env: Env) =>
    call<'getGitStack', GitStack>('getGitStack', { params: { name }, query: envQuery(env) }),
  createGitStack: (env: Env, body: StacksBody<'createGitStack'>) =>
    call<'createGitStack', JobAck | StacksAnswer<'createGitStack', 201>>('createGitStack', {
      query: envQuery(env),
      body,
    }),
  updateGitStack: (name: string, env: Env, body: GitStackChanges) =>
    call<'configureGitStack', JobAck | GitStack>('configureGitStack', {
      params: { name },
      query: envQuery(env),
      body,
    }),
  deployGitStack: (name: string, env: Env) =>
    call<'deployGitStack', JobAck>('deployGitStack', { params: { name }, query: envQuery(env), body: {} }),
  /** The webhook's path, for the person to copy into the git host. */
  webhookPath: (name: string, env: Env) => pathOf('gitStackWebhook', { name }, envQuery(env)),
  apiDocumentUrl: () => pathOf('openApiDocument'),

  runCompose: (name: string, id: number) =>
    call<'getRunCompose', RunCompose>('getRunCompose', { params: runParams(name, id) }),
  runVariables: (name: string, id: number) =>
    call<'getRunVariables', RunVariables>('getRunVariables', { params: runParams(name, id) }),
  runDiff: (name: string, from: number, to: number) =>
    call<'getRunDiff', RunDiff>('getRunDiff', { params: runParams(name, from), query: { to: String(to) } }),
  redeploy: (name: string, id: number) =>
    call<'redeployRun', JobAck>('redeployRun', { params: runParams(name, id) }),
  historySettings: (name: string, env: Env) =>
    call<'getHistorySettings', HistorySettings>('getHistorySettings', {
      params: { name },
      query: envQuery(env),
    }),
  saveHistorySettings: (name: string, env: Env, body: Partial<HistorySettings>) =>
    call<'setHistorySettings', HistorySettings>('setHistorySettings', {
      params: { name },
      query: envQuery(env),
      body,
    }),

  audit: (filter: AuditFilter, limit: number, offset: number) =>
    call<'listAudit', Extract<AuditPage, { entries: unknown }>>('listAudit', {
      query: { ...filter, limit: String(limit), offset: String(offset) },
    }),
  /** The whole filtered trail as NDJSON (the server answers it as the attachment `audit.ndjson`). */
  auditExportUrl: (filter: AuditFilter) => pathOf('listAudit', undefined, { ...filter, format: 'ndjson' }),
  runRetention: () => call<'runRetention', RetentionExecution>('runRetention'),
  notificationChannels: () =>
    call<'listNotificationChannels', NotificationChannels>('listNotificationChannels'),
  testNotification: (channel: string) =>
    call<'testNotification', NotificationTest>('testNotification', { params: { name: channel } }),
  deliveries: (limit: number, offset: number) =>
    call<'listDeliveries', DeliveriesPage>('listDeliveries', {
      query: { limit: String(limit), offset: String(offset) },
    }),
};

interface EventStreamHandlers {
  lastEventId?: string;
  onMessage: (data: string, id: string | undefined) => void;
  /** Each time the stream opens (again, after a drop): a stream that starts over says so. */
  onOpen?: () => void;
  onEnd?: () => void;
  onError?: (error: ApiError) => void;
  reconnect?: () => boolean;
}

/**
 * A server-sent event stream read with fetch (EventSource cannot send `Last-Event-ID` on a fresh page,
 * which a reload needs to resume). Reconnects after a drop from the last id seen; `onEnd` when the server
 * ends the stream for good (a finished job) or it is closed. Answers the function that closes it.
 */
export function openEventStream(url: string, handlers: EventStreamHandlers): () => void {
  const controller = new AbortController();
  let lastId = handlers.lastEventId;
  let closed = false;
  const run = async () => {
    for (let attempt = 0; !closed; attempt++) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (lastId !== undefined) headers['last-event-id'] = lastId;
        const response = await fetch(url, { headers, signal: controller.signal, credentials: 'same-origin' });
        if (!response.ok || !response.body) {
          const text = await response.text();
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {}
          if (response.status === 401) onUnauthorized();
          handlers.onError?.(new ApiError(response.status, messageOf(response, value)));
          return;
        }
        attempt = 0;
        handlers.onOpen?.();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          // The frames of a read are walked by position and what is left kept once: a read holds
          // hundreds of frames (a log's lines), and cutting the rest off after each one copied it again.
          let from = 0;
          let cut = buffer.indexOf('\n\n');
          while (cut >= 0) {
            const frame = buffer.slice(from, cut);
            from = cut + 2;
            let id: string | undefined;
            const data: string[] = [];
            for (const line of frame.split('\n')) {
              if (line.startsWith('id:')) id = line.slice(3).trim();
              else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
            }
            if (id !== undefined) lastId = id;
            if (data.length > 0) handlers.onMessage(data.join('\n'), id);
            cut = buffer.indexOf('\n\n', from);
          }
          buffer = buffer.slice(from);
        }
        // The server ended the stream: done unless the caller wants it again (a job still running).
        if (!handlers.reconnect?.()) break;
      } catch (error) {
        if (closed) return;
        if (!handlers.reconnect?.() && attempt > 5) {
          handlers.onError?.(new ApiError(0, error instanceof Error ? error.message : String(error)));
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** attempt)));
    }
    if (!closed) handlers.onEnd?.();
  };
  void run();
  return () => {
    closed = true;
    controller.abort();
  };
}
