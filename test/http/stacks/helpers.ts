/**
 * Black-box client of `chronicle stacks`: starts the built CLI as a child process on a temporary data
 * directory and config file, reads the listening line from standard error, and talks to it over real
 * sockets with bearer tokens. The compose command is test/fixtures/fake-compose.mjs, steered by the
 * `x-fake` line of each stack's compose file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import {
  assertBuilt,
  type CliChild,
  type CliResult,
  listeningPort,
  mainJs,
  repoRoot,
  startCli,
  tempDir,
  watch,
} from '../../cli/helpers.js';
import { type Answer, type CallOptions, call } from '../editor/helpers.js';

export type Json = Record<string, unknown>;
export type Env = number | null;

export const FAKE_COMPOSE = join(repoRoot, 'test', 'fixtures', 'fake-compose.mjs');
export const LISTENING = /^stacks listening on http:\/\/127\.0\.0\.1:(\d+)$/m;

// ------------------------------------------------------------------------------------------------
// Whether the command exists yet
// ------------------------------------------------------------------------------------------------

/**
 * The suite needs the `stacks` command. Before its routes land, `chronicle stacks --help` prints the
 * top-level usage (commander's answer for an unknown command under --help; without --help it says
 * `unknown command 'stacks'`); only then does the suite skip. Anything else (a crash, a missing build)
 * fails the suite rather than hiding it.
 */
function probeStacksCommand(): { available: true } | { available: false; reason: string } {
  assertBuilt();
  const help = spawnSync(process.execPath, [mainJs, 'stacks', '--help'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  const output = `${help.stdout}${help.stderr}`;
  if (/Usage: chronicle stacks\b/.test(output)) return { available: true };
  const topLevel = /Usage: chronicle \[options\] \[command\]/.test(output);
  const listed = /^\s+stacks\b/m.test(output);
  if (/unknown command 'stacks'/.test(output) || (topLevel && !listed))
    return {
      available: false,
      reason: `\`${mainJs} stacks --help\` reports no stacks command yet (the routes have not landed)`,
    };
  throw new Error(`cannot tell whether \`chronicle stacks\` exists; \`stacks --help\` printed: ${output}`);
}

export const stacksCommand = probeStacksCommand();

/** `describe`, skipped with a printed reason while the stacks command does not exist. */
export function describeStacks(name: string, body: () => void): void {
  if (!stacksCommand.available) {
    console.log(`skipped: ${name}: ${stacksCommand.reason}`);
    describe.skip(name, body);
  } else {
    describe(name, body);
  }
}

// ------------------------------------------------------------------------------------------------
// Users and config
// ------------------------------------------------------------------------------------------------

export const TOKENS = {
  admin: 't-admin',
  /** view on every environment, access to every environment */
  viewer: 't-viewer',
  /** view scoped to environment 1, access to 1 */
  viewer1: 't-viewer1',
  /** view and edit scoped to environment 1, access to 1 */
  editor1: 't-editor1',
  /** no grant at all, access to everything */
  nogrant: 't-nogrant',
  /** view and edit everywhere, but access to no environment */
  noaccess: 't-noaccess',
  /** view from a grant without an environment list (global only), access to no environment */
  globalviewer: 't-globalviewer',
} as const;
export type UserKind = keyof typeof TOKENS;
export const USER_KINDS = Object.keys(TOKENS) as UserKind[];

export interface GrantJson {
  resource: string;
  actions: string[];
  environments?: Array<number | null> | '*';
}
export interface UserJson {
  name: string;
  token: string;
  admin?: boolean;
  grants?: GrantJson[];
  environmentAccess?: number[] | '*';
}

export const USERS: Record<UserKind, UserJson> = {
  admin: { name: 'admin', token: TOKENS.admin, admin: true },
  viewer: {
    name: 'viewer',
    token: TOKENS.viewer,
    grants: [{ resource: 'stacks', actions: ['view'], environments: '*' }],
    environmentAccess: '*',
  },
  viewer1: {
    name: 'viewer1',
    token: TOKENS.viewer1,
    grants: [{ resource: 'stacks', actions: ['view'], environments: [1] }],
    environmentAccess: [1],
  },
  editor1: {
    name: 'editor1',
    token: TOKENS.editor1,
    grants: [{ resource: 'stacks', actions: ['view', 'edit'], environments: [1] }],
    environmentAccess: [1],
  },
  nogrant: { name: 'nogrant', token: TOKENS.nogrant, grants: [], environmentAccess: '*' },
  noaccess: {
    name: 'noaccess',
    token: TOKENS.noaccess,
    grants: [{ resource: 'stacks', actions: ['view', 'edit'], environments: '*' }],
    environmentAccess: [],
  },
  globalviewer: {
    name: 'globalviewer',
    token: TOKENS.globalviewer,
    grants: [{ resource: 'stacks', actions: ['view'] }],
    environmentAccess: [],
  },
};

/** An environment's `security` settings (docs/security.md#what-an-edit-grant-can-reach). */
export type SecurityJson = Record<string, unknown>;

export interface ConfigJson {
  environments?: Array<{ id: number; name: string; dockerHost?: string; security?: SecurityJson }>;
  localEnvironmentSecurity?: SecurityJson;
  users?: UserJson[];
  compose?: { command: string[] };
  secretProviders?: Record<string, { command: string[]; environments?: Array<number | null> | '*' }>;
  deployLogs?: { budgetBytes: number; remeasureBytes: number };
  jobs?: { timeoutSeconds?: number; retentionHours?: number; maxConcurrent?: number };
  /** Notification channels and deploy-run retention per environment. */
  notifications?: Array<Record<string, unknown>>;
  retention?: Array<{ environment: number | null; keepRuns?: number; keepDays?: number }>;
}

export const ENVIRONMENTS = [
  { id: 1, name: 'edge', dockerHost: 'tcp://10.0.0.5:2375' },
  { id: 2, name: 'core', dockerHost: 'tcp://10.0.0.6:2375' },
];

export function stacksConfig(overrides: ConfigJson = {}): ConfigJson {
  return {
    environments: ENVIRONMENTS,
    users: Object.values(USERS),
    compose: { command: [process.execPath, FAKE_COMPOSE] },
    ...overrides,
  };
}

// ------------------------------------------------------------------------------------------------
// The server
// ------------------------------------------------------------------------------------------------

export interface StacksServer {
  port: number;
  pid: number;
  dataDir: string;
  configFile: string;
  /** Where the fake compose appends `{argv, cwd}` per call. */
  argvLog: string;
  child: CliChild;
  stderr(): string;
  done: Promise<CliResult>;
  /** SIGTERM, then the exit (SIGKILL after a few seconds). */
  stop(): Promise<CliResult>;
  /** SIGKILL: the server dies at once, as in a crash. */
  kill9(): Promise<CliResult>;
  as(kind: UserKind): StacksClient;
}

export interface StartOptions {
  /** null: no `--config` at all (the server makes an admin token and prints it). */
  config?: ConfigJson | null;
  /** Reuse a data directory (and its config file): a restart, or a second instance beside the first. */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** `--store URL` (default: the LevelDB store in the data directory). */
  storeUrl?: string;
}

export async function startStacks(options: StartOptions = {}): Promise<StacksServer> {
  assertBuilt();
  const dataDir = options.dataDir ?? (await tempDir());
  const configFile = join(dataDir, 'config.json');
  if (options.config !== null && (options.config || !existsSync(configFile)))
    await writeFile(configFile, JSON.stringify(options.config ?? stacksConfig(), null, 2));
  const configArgs = options.config === null ? [] : ['--config', configFile];
  const argvLog = join(dataDir, 'fake-compose-argv.log');
  const { CHRONICLE_DATA: _ignored, ...inherited } = process.env;
  const storeArgs = options.storeUrl === undefined ? [] : ['--store', options.storeUrl];
  const child = startCli(['stacks', '--port', '0', '--data', dataDir, ...configArgs, ...storeArgs], {
    env: { ...inherited, FAKE_COMPOSE_ARGV_LOG: argvLog, ...options.env },
  });
  const watched = watch(child, 600_000);
  const port = await listeningPort(child, watched, LISTENING, 'chronicle stacks');
  const pid = child.pid;
  if (pid === undefined) throw new Error('the child has no pid');
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    port,
    pid,
    dataDir,
    configFile,
    argvLog,
    child,
    stderr: watched.stderr,
    done: watched.done,
    stop: async () => {
      if (running()) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        try {
          return await watched.done;
        } finally {
          clearTimeout(timer);
        }
      }
      return watched.done;
    },
    kill9: async () => {
      if (running()) child.kill('SIGKILL');
      return watched.done;
    },
    as: (kind) => new StacksClient(port, TOKENS[kind]),
  };
}

/** The server of a `describe` (or of a whole file), set once its `beforeAll` ran. */
export interface SharedStacks {
  readonly server: StacksServer;
  /** `server.as('admin')`. */
  readonly admin: StacksClient;
  /** Stops the server and starts it again on the same data directory (a restart). */
  restart(options?: StartOptions): Promise<void>;
}

/**
 * Starts one server before the tests of the enclosing `describe` (or file) and stops it after them.
 * `options` may be a function, for a config that needs something made first (a provider script);
 * `timeoutMs` is the start's (vitest's hook time-out without it).
 */
export function serveStacks(
  options: StartOptions | (() => Promise<StartOptions>) = {},
  timeoutMs?: number,
): SharedStacks {
  let current: StacksServer | undefined;
  const server = () => {
    if (current === undefined) throw new Error('the shared stacks server starts in beforeAll');
    return current;
  };
  beforeAll(async () => {
    current = await startStacks(typeof options === 'function' ? await options() : options);
  }, timeoutMs);
  afterAll(async () => {
    await current?.stop();
  });
  return {
    get server() {
      return server();
    },
    get admin() {
      return server().as('admin');
    },
    async restart(again: StartOptions = {}) {
      const { dataDir } = server();
      await server().stop();
      current = await startStacks({ ...again, dataDir });
    },
  };
}

/** Runs `work` on a server of its own, stopped when the work ends (whether it failed or not). */
export async function withStacks<T>(
  options: StartOptions,
  work: (server: StacksServer) => Promise<T>,
): Promise<T> {
  const server = await startStacks(options);
  try {
    return await work(server);
  } finally {
    await server.stop();
  }
}

// ------------------------------------------------------------------------------------------------
// HTTP
// ------------------------------------------------------------------------------------------------

export interface Reply extends Answer {
  /** The body parsed as JSON (objects and arrays), or undefined. */
  value: unknown;
}

function withValue(answer: Answer): Reply {
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    value = undefined;
  }
  return { ...answer, value };
}

/** Requests with one bearer token (or none: `token` null). */
export class StacksClient {
  constructor(
    readonly port: number,
    readonly token: string | null,
  ) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.token !== null) headers.Authorization = `Bearer ${this.token}`;
    return withValue(await call(this.port, method, path, { ...options, headers }));
  }
  get = (path: string, options?: CallOptions) => this.call('GET', path, options);
  post = (path: string, json?: unknown, options: CallOptions = {}) =>
    this.call('POST', path, json === undefined ? options : { ...options, json });
  put = (path: string, json?: unknown, options: CallOptions = {}) =>
    this.call('PUT', path, json === undefined ? options : { ...options, json });
  del = (path: string, options?: CallOptions) => this.call('DELETE', path, options);
  /** The same request path with `Accept: application/json`: the answer comes after the job ends. */
  postJson = (path: string, json?: unknown) =>
    this.post(path, json ?? {}, { headers: { Accept: 'application/json' }, timeoutMs: 120_000 });
}

/** `?env=` for an environment (`null` spelled out: the tests of the omitted form say so themselves). */
export const q = (env: Env) => `?env=${env === null ? 'null' : env}`;

/** The body as a JSON object; throws (failing the test) otherwise. */
export function objectOf(reply: Reply): Json {
  const v = reply.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new Error(`expected a JSON object, got ${reply.status} ${reply.text.slice(0, 500)}`);
  return v as Json;
}

export function arrayOf(reply: Reply): Json[] {
  if (!Array.isArray(reply.value))
    throw new Error(`expected a JSON array, got ${reply.status} ${reply.text.slice(0, 500)}`);
  return reply.value as Json[];
}

export function expectStatus(reply: Reply, status: number, what = ''): void {
  if (reply.status !== status)
    throw new Error(`${what} expected ${status}, got ${reply.status} ${reply.text.slice(0, 500)}`);
}

// ------------------------------------------------------------------------------------------------
// Compose files, stacks, jobs
// ------------------------------------------------------------------------------------------------

export interface FakeBehaviour {
  lines?: string[];
  repeat?: number;
  env?: string[];
  longLine?: number;
  /** N numbered lines padded with dots to `width` bytes, printed first and fast (big outputs). */
  count?: { lines: number; width?: number };
  stderr?: string[];
  perLineMs?: number;
  /** After the first `afterLines` lines, the program waits until `file` exists (fake-compose.mjs). */
  gate?: { afterLines: number; file: string };
  crlf?: boolean;
  sleepMs?: number;
  exit?: number;
  /** A file the program appends `start <pid>` and `exit <pid>` to. */
  marker?: string;
  /** A grandchild in the program's process group that appends `tick <pid>` to `marker`. */
  grandchild?: { tickMs?: number; ignoreTerm?: boolean; lifeMs?: number };
}

/** A compose file with these services and (when given) an `x-fake` line, see fake-compose.mjs. */
export function composeText(
  fake?: FakeBehaviour | Record<string, FakeBehaviour>,
  services: readonly string[] = ['web'],
): string {
  const body = services.map((s) => `  ${s}:\n    image: nginx:alpine\n`).join('');
  return `services:\n${body}${fake ? `x-fake: ${JSON.stringify(fake)}\n` : ''}`;
}

export interface VariableJson {
  name: string;
  value: string;
  secret: boolean;
}

export interface JobAck {
  jobId: string;
  runId: number | null;
}

export function ackOf(reply: Reply): JobAck {
  expectStatus(reply, 202, 'job response');
  const body = objectOf(reply);
  if (typeof body.jobId !== 'string') throw new Error(`no jobId in ${reply.text}`);
  if (body.runId !== null && typeof body.runId !== 'number') throw new Error(`bad runId in ${reply.text}`);
  return { jobId: body.jobId, runId: body.runId as number | null };
}

export interface CreateOptions {
  compose?: string;
  variables?: VariableJson[];
  secretProvider?: string | null;
  pull?: boolean;
  build?: boolean;
  forceRecreate?: boolean;
}

/** POST /api/stacks (create and start) on the streaming path; the 202's ids. */
export async function createStack(client: StacksClient, name: string, env: Env, options: CreateOptions = {}) {
  const reply = await client.post(`/api/stacks${q(env)}`, {
    name,
    compose: options.compose ?? composeText({ lines: [`created ${name}`] }),
    variables: options.variables ?? [],
    secretProvider: options.secretProvider ?? null,
    pull: options.pull ?? false,
    build: options.build ?? false,
    forceRecreate: options.forceRecreate ?? false,
  });
  return ackOf(reply);
}

export interface JobJson {
  id: string;
  status: 'running' | 'done';
  messages: Json[];
  result: Json | null;
}

/** Polls GET /api/jobs/{id} until the job is done. */
export async function waitJob(client: StacksClient, jobId: string, timeoutMs = 60_000): Promise<JobJson> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await client.get(`/api/jobs/${jobId}`);
    expectStatus(reply, 200, `GET /api/jobs/${jobId}`);
    const job = objectOf(reply) as unknown as JobJson;
    if (job.status === 'done') return job;
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} not done within ${timeoutMs} ms: ${reply.text.slice(0, 500)}`);
    await sleep(50);
  }
}

/** Creates a stack and waits for its create-and-start job; returns its ids. */
export async function createStackDone(
  client: StacksClient,
  name: string,
  env: Env,
  options: CreateOptions = {},
) {
  const ack = await createStack(client, name, env, options);
  const job = await waitJob(client, ack.jobId);
  return { ...ack, job };
}

/** POST /api/stacks/{name}/deploy on the streaming path. */
export async function deploy(
  client: StacksClient,
  name: string,
  env: Env,
  options: Json = {},
): Promise<JobAck> {
  return ackOf(await client.post(`/api/stacks/${name}/deploy${q(env)}`, options));
}

export async function deployDone(client: StacksClient, name: string, env: Env, options: Json = {}) {
  const ack = await deploy(client, name, env, options);
  const job = await waitJob(client, ack.jobId);
  return { ...ack, job };
}

/** Replaces a stack's compose file without a run (restart false). */
export async function saveCompose(
  client: StacksClient,
  name: string,
  env: Env,
  content: string,
): Promise<void> {
  const reply = await client.put(`/api/stacks/${name}/compose${q(env)}`, { content, restart: false });
  expectStatus(reply, 200, 'PUT compose');
}

export async function getRun(client: StacksClient, name: string, runId: number): Promise<Json> {
  const reply = await client.get(`/api/stacks/${name}/deploys/${runId}`);
  expectStatus(reply, 200, `GET run ${runId}`);
  return objectOf(reply);
}

/** Polls the run until `finishedAt` is set. */
export async function waitRun(
  client: StacksClient,
  name: string,
  runId: number,
  timeoutMs = 60_000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await getRun(client, name, runId);
    if (run.status !== 'running' && run.status !== 'queued' && run.finishedAt !== null) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} not finished: ${JSON.stringify(run)}`);
    await sleep(50);
  }
}

// ------------------------------------------------------------------------------------------------
// Files (docs/operations.md#where-the-data-lives)
// ------------------------------------------------------------------------------------------------

export const logPath = (dataDir: string, env: Env, runId: number) =>
  join(dataDir, 'deploy-logs', env === null ? 'null' : String(env), `${runId}.log`);
export const stackDir = (dataDir: string, env: Env, name: string) =>
  join(dataDir, 'stacks', env === null ? 'local' : String(env), name);

/** The log file's lines (without the final empty one), or null when there is no file. */
export async function logLines(dataDir: string, env: Env, runId: number): Promise<string[] | null> {
  try {
    const text = await readFile(logPath(dataDir, env, runId), 'utf8');
    return text.split('\n').filter((line, i, all) => !(i === all.length - 1 && line === ''));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export async function argvCalls(server: StacksServer): Promise<Array<{ argv: string[]; cwd: string }>> {
  if (!existsSync(server.argvLog)) return [];
  const text = await readFile(server.argvLog, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as { argv: string[]; cwd: string });
}

// ------------------------------------------------------------------------------------------------
// Server-sent events
// ------------------------------------------------------------------------------------------------

export interface SseEvent {
  id?: string;
  data: string;
}

export interface SseStream {
  status: number;
  contentType: string | undefined;
  /** Events received so far (grows while the stream is open). */
  events: SseEvent[];
  /** Error bodies of non-stream answers. */
  text(): string;
  /** Resolves when the server ends the stream. */
  closed: Promise<void>;
  /** Closes the connection from this side. */
  close(): void;
}

/** Opens an SSE request; resolves once the head arrived. Parses `id:` and `data:` fields per event. */
export function openSse(
  port: number,
  path: string,
  token: string | null,
  options: { lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<SseStream> {
  const headers: Record<string, string> = { Accept: 'text/event-stream', ...options.headers };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = options.lastEventId;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'GET', path, headers, agent: false },
      (res) => {
        const events: SseEvent[] = [];
        let buffer = '';
        let raw = '';
        let resolveClosed: () => void = () => {};
        const closed = new Promise<void>((r) => {
          resolveClosed = r;
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          raw += chunk;
          buffer += chunk;
          for (;;) {
            const end = buffer.indexOf('\n\n');
            if (end < 0) break;
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id: string | undefined;
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('id:')) id = line.slice(3).trimStart();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (data.length > 0)
              events.push(id === undefined ? { data: data.join('\n') } : { id, data: data.join('\n') });
          }
        });
        res.on('end', resolveClosed);
        res.on('close', resolveClosed);
        res.on('error', resolveClosed);
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          events,
          text: () => raw,
          closed,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The parsed `data` of each event. */
export const dataOf = (stream: SseStream): Json[] => stream.events.map((e) => JSON.parse(e.data) as Json);

/** Waits for the stream to end, failing after the timeout. */
export async function ended(stream: SseStream, timeoutMs = 60_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stream.close();
      reject(new Error(`SSE stream not ended within ${timeoutMs} ms; got ${stream.text().slice(-500)}`));
    }, timeoutMs);
  });
  try {
    await Promise.race([stream.closed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value other than undefined. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// ------------------------------------------------------------------------------------------------
// Suites on a real Docker engine
// ------------------------------------------------------------------------------------------------

/** The server of a suite on the real engine: its compose chosen by `command`, its stacks cleaned up. */
export interface EngineSuite {
  readonly server: StacksServer;
  readonly admin: StacksClient;
}

/**
 * Starts a server with `compose.command` set (one generation of the matrix, test/docker-helpers.ts)
 * before the suite's tests, after importing the test image; stops it and runs `cleanUp` after them.
 */
export function serveEngineStacks(
  command: readonly string[],
  cleanUp: () => Promise<void>,
  config: ConfigJson = {},
): EngineSuite {
  let current: StacksServer | undefined;
  beforeAll(async () => {
    const { ensureTestImage } = await import('../../docker-helpers.js');
    await ensureTestImage();
    current = await startStacks({
      config: { users: [USERS.admin], compose: { command: [...command] }, ...config },
    });
  }, 120_000);
  afterAll(async () => {
    await current?.stop();
    await cleanUp();
  }, 120_000);
  const server = () => {
    if (current === undefined) throw new Error('the engine suite starts its server in beforeAll');
    return current;
  };
  return {
    get server() {
      return server();
    },
    get admin() {
      return server().as('admin');
    },
  };
}
