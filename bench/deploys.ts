/**
 * `npm run bench -- deploys`: one deploy emitting 200,000 lines with 100 secrets to redact,
 * watched by 50 SSE clients, against the real CLI.
 *
 *  - the server: `chronicle stacks --port 0 --data <temp> --config <temp>/config.json` (the LevelDB store,
 *    the default), its compose command the bench compose program (bench/fixtures/bench-compose.mjs): for
 *    `up` it prints `BENCH_DEPLOY_LINES` ~100-byte lines, each starting with its sequence number and the
 *    time it went to stdout; every 50th line holds one of the stack's 100 secret values (8-40 chars);
 *  - the deploy: `POST /api/stacks` (create and start) with the 100 variables `secret: true`, streaming
 *    path (202 with the job id), then at once 50 clients on `GET /api/jobs/{id}/events`, each reading
 *    every message until the result (reconnecting with `Last-Event-ID` if the server ends a stream early);
 *    the clients (bench/sse-client.ts) run in worker threads, one per core (bench/sse-client-pool.ts):
 *    fifty readers in one thread measured that thread rather than the server;
 *  - checks: every client got every line once, in order; no secret value ever arrives (`leaks` must be 0:
 *    client 0 checks every line, every client checks the lines that held a secret, which must show `***`);
 *    the run ends `success`, and its stored log holds no secret either;
 *  - end to end: lines / (first line emitted .. last line received by the slowest client); latency from
 *    the child's stdout to the SSE client, p50/p99 over every line of every client (emit and receive
 *    times are both `performance.timeOrigin + performance.now()`, of two processes on one machine);
 *  - the raw limit, once, before the rounds: the same program's lines read through a plain pipe by a
 *    Node child (bench/pipe-reader-child.ts), with nothing in between; reported as end-to-end / raw;
 *  - the fan-out limit, each round: the same lines framed the same way by a bare node:http server
 *    (bench/sse-fanout-child.ts) to the same clients making the same checks (`clientChecks`; the bare
 *    server does not redact, so its clients' leak counts are not looked at); reported as end-to-end /
 *    fan-out limit;
 *  - redaction, same run: `measureRedaction()` (bench/redaction.ts): the compiled one-pass redactor
 *    against a naive `replaceAll` per secret, on the same 100 secrets and line shapes.
 *  - the real engine, same run (bench/deploys-engine.ts): create-and-start of a one-service stack on the
 *    machine's Docker engine through chronicle, against `up -d` of the same file by hand, for each
 *    Compose generation found (v2 and v1), with chronicle's own share before and after compose's `up`;
 *    skipped, saying why, without an engine.
 *  - rounds: after one unmeasured fan-out run that warms the client threads up, chronicle (a
 *    fresh server and data dir each time) and the fan-out limit run in turn, BENCH_ROUNDS times
 *    (bench/report.ts `interleaved`), so load that comes and goes on a shared machine falls on both
 *    alike; lines/s are printed as median [lowest–highest], and the median of the rounds (and of each
 *    round's chronicle / limit ratio) is what the targets hold.
 * Targets: >= 50,000 lines/s end to end and >= 0.9 of the fan-out limit; redaction >= 5x the naive loop;
 * the real engine within 1.2x.
 * `npm run bench -- deploys-engine` runs the real-engine line alone.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createRedactor } from '../src/stacks/output/redaction.js';
import { measureEngine, type StartEngineServer } from './deploys-engine.js';
import { cpuSeconds, peakRssBytes } from './process-usage.js';
import { measureRedaction, redactionWorkload } from './redaction.js';
import {
  type BenchReport,
  interleaved,
  median,
  percentile,
  printReport,
  ROUNDS,
  ratioOf,
  spreadCell,
} from './report.js';
import { type ClientCheck, type ClientResult, now } from './sse-client.js';
import { ClientPool } from './sse-client-pool.js';

const LINES = Number(process.env.BENCH_DEPLOY_LINES ?? 200_000);
const CLIENTS = Number(process.env.BENCH_DEPLOY_CLIENTS ?? 50);
const TOKEN = 'bench-admin-token';
const TARGET_LINES_PER_SECOND = 50_000;
const TARGET_REDACTION_RATIO = 5;
/** Of the bare fan-out limit, the same clients served the same frames by bare node:http. */
const TARGET_FANOUT_RATIO = 0.9;
/** Megabytes as memory is reported (10^6 bytes). */
const MB = 1_000_000;
/** Extra node options for the server only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
const NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

const MAIN_JS = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const PIPE_READER_JS = fileURLToPath(new URL('./pipe-reader-child.js', import.meta.url));
const FANOUT_JS = fileURLToPath(new URL('./sse-fanout-child.js', import.meta.url));
// The compose program is plain JavaScript that tsc does not copy: it runs from the source tree.
const BENCH_COMPOSE = fileURLToPath(new URL('../../bench/fixtures/bench-compose.mjs', import.meta.url));

type Child = ChildProcessByStdio<null, Readable, Readable>;

/** Starts `chronicle stacks` and waits for its listening line. */
export function startServer(
  dataDir: string,
  config: string,
): Promise<{ child: Child; port: number; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [...NODE_ARGS, MAIN_JS, 'stacks', '--port', '0', '--data', dataDir, '--config', config],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`chronicle stacks did not report a port within 20 s: ${output}`));
    }, 20_000);
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString('utf8');
      const port = /stacks listening on http:\/\/[^\s]+:(\d+)/.exec(output)?.[1];
      if (port === undefined) return;
      clearTimeout(timer);
      resolve({ child, port: Number(port), stderr: () => output });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`chronicle stacks exited (${code}) before listening: ${output}`));
    });
  });
}

export function stopServer(child: Child): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/** One JSON request to the stacks surface; the status and the body as text. */
export function call(
  port: number,
  method: string,
  path: string,
  body?: unknown,
  accept = '*/*',
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          accept,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The raw limit: the program's lines through a plain pipe into a Node child. */
function rawPipe(env: NodeJS.ProcessEnv): Promise<{
  lines: number;
  outOfOrder: number;
  firstEmitMs: number;
  lastReceivedMs: number;
  p50: number;
  p99: number;
}> {
  const child = spawn(process.execPath, [PIPE_READER_JS, BENCH_COMPOSE], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    text += c;
  });
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`pipe reader exited ${code}`));
      resolve(JSON.parse(text));
    });
  });
}

/**
 * The fan-out limit: the same program's lines, framed as chronicle frames them, from a bare node:http
 * server to the same number of the same clients (no store, no redaction): what this machine delivers.
 * Lines/s of the slowest client, first emit to last line received, as for chronicle.
 */
async function fanoutLimit(
  env: NodeJS.ProcessEnv,
  secrets: readonly string[],
  pool: ClientPool,
): Promise<{ perSecond: number; seconds: number; serverCpu: number; serverPeakMb: number }> {
  const child = spawn(process.execPath, [FANOUT_JS, BENCH_COMPOSE], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.setEncoding('utf8').once('data', (line: string) => {
        const m = /listening (\d+)/.exec(line);
        if (m) resolve(Number(m[1]));
        else reject(new Error(`fan-out child said ${line}`));
      });
      child.once('exit', (code) => reject(new Error(`fan-out child exited ${code}`)));
    });
    const clients = pool.run({ port, path: '/events', token: TOKEN }, clientChecks(secrets));
    // The bare server starts the program with the first POST; clients connecting late still get it all.
    const cpu0 = cpuSeconds(child.pid);
    await call(port, 'POST', '/start');
    const done = await clients;
    const serverCpu = cpuSeconds(child.pid) - cpu0;
    const serverPeakMb = peakRssBytes(child.pid) / MB;
    const failed = done.filter((c) => c.lines !== LINES || c.outOfOrder > 0);
    if (failed.length > 0)
      throw new Error(`fan-out limit: ${failed.length} clients did not get every line in order`);
    const first = Math.min(...done.map((c) => c.firstEmitMs));
    const last = Math.max(...done.map((c) => c.lastLineAt));
    const seconds = (last - first) / 1000;
    return { perSecond: LINES / seconds, seconds, serverCpu, serverPeakMb };
  } finally {
    child.kill();
  }
}

/** `chronicle stacks` with one generation's compose command, for the engine lines. */
const engineServer: StartEngineServer = async (composeCommand) => {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-engine-data-'));
  const config = join(dir, 'config.json');
  await writeFile(
    config,
    JSON.stringify({
      users: [{ name: 'bench', token: TOKEN, admin: true }],
      compose: { command: composeCommand },
    }),
  );
  const started = await startServer(join(dir, 'data'), config);
  return {
    server: {
      port: started.port,
      call: (method, path, body, accept) => call(started.port, method, path, body, accept),
    },
    stop: async () => {
      const code = await stopServer(started.child);
      if (code !== 0) process.stderr.write(`chronicle stacks exited ${code}: ${started.stderr()}\n`);
      await rm(dir, { recursive: true, force: true });
    },
  };
};

/** The real-engine lines alone. */
export async function benchDeploysEngine(): Promise<void> {
  printReport({
    name: 'deploys: create-and-start on the real Docker engine',
    ...(await measureEngine(engineServer)),
  });
}

/**
 * What a deploy benchmark's server and stack need: the 100 secrets (8-40 chars) the redaction measure
 * uses as secret variables beside `BENCH_LINES`, and a config (admin `TOKEN`, the bench compose program)
 * in a new temporary folder.
 */
export async function benchStackSetup(folder: string, lines: number) {
  const { secrets } = redactionWorkload(0);
  const variables = [
    ...secrets.map((value, i) => ({
      name: `BENCH_SECRET_${String(i).padStart(3, '0')}`,
      value,
      secret: true,
    })),
    { name: 'BENCH_LINES', value: String(lines), secret: false },
  ];
  const dir = await mkdtemp(join(tmpdir(), folder));
  const config = join(dir, 'config.json');
  await writeFile(
    config,
    JSON.stringify({
      users: [{ name: 'bench', token: TOKEN, admin: true }],
      compose: { command: [process.execPath, BENCH_COMPOSE] },
      jobs: { timeoutSeconds: 600, retentionHours: 24 },
    }),
  );
  return { secrets, variables, dir, config };
}

/**
 * What each of the CLIENTS clients checks, the same against chronicle and the fan-out limit: client 0
 * every line for a secret, every client the lines that held one (JSON.parse and the redactor, in the
 * client's thread). The bare server redacts nothing, so what its clients count as leaks is not looked
 * at; before, they checked nothing, and were spared work chronicle's clients did.
 */
function clientChecks(secrets: readonly string[]): ClientCheck[] {
  return Array.from({ length: CLIENTS }, (_, i) => ({
    secrets,
    checkEveryLine: i === 0,
    expectedLines: LINES,
  }));
}

/** One chronicle round: a fresh server and data dir, one deploy watched by CLIENTS clients. */
interface ChronicleRound {
  perSecond: number;
  fastest: number;
  seconds: number;
  p50: number;
  p99: number;
  /** The recorded run's own duration (startedAt .. finishedAt): compose output into the store and log. */
  runSeconds: number;
  /** CPU seconds the server used from the POST until the last client had its result. */
  serverCpu: number;
  /** The server's peak resident memory (VmHWM) once the log was read, in MB. */
  serverPeakMb: number;
  runStatus: string;
  logLines: number;
  postMs: number;
  leaks: number;
  outOfOrder: number;
  unredacted: number;
  reconnects: number;
  failed: Array<{ lines: number; error: string | undefined; result: ClientResult['result'] }>;
}

async function chronicleRound(pool: ClientPool): Promise<ChronicleRound> {
  const { secrets, variables, dir, config } = await benchStackSetup('chronicle-bench-deploys-', LINES);
  const server = await startServer(join(dir, 'data'), config);
  let clients: ClientResult[];
  let runStatus = '';
  let logLeaks = 0;
  let logLines = 0;
  let postMs = 0;
  let runSeconds = Number.NaN;
  let serverCpu = Number.NaN;
  let serverPeakMb = Number.NaN;
  try {
    const cpu0 = cpuSeconds(server.child.pid);
    const t0 = now();
    const created = await call(server.port, 'POST', '/api/stacks', {
      name: 'bench',
      compose: 'services:\n  app:\n    image: bench/app:1\n',
      variables,
    });
    postMs = now() - t0;
    if (created.status !== 202)
      throw new Error(`POST /api/stacks answered ${created.status}: ${created.text}`);
    const { jobId, runId } = JSON.parse(created.text) as { jobId: string; runId: number };
    clients = await pool.run(
      { port: server.port, path: `/api/jobs/${encodeURIComponent(jobId)}/events`, token: TOKEN },
      clientChecks(secrets),
    );
    serverCpu = cpuSeconds(server.child.pid) - cpu0;

    // The run is completed on its own stream, maybe a moment after the job's result went out.
    let run = await call(server.port, 'GET', `/api/stacks/bench/deploys/${runId}`);
    for (
      let tries = 0;
      tries < 100 && run.status === 200 && run.text.includes('"finishedAt":null');
      tries++
    ) {
      await new Promise((r) => setTimeout(r, 100));
      run = await call(server.port, 'GET', `/api/stacks/bench/deploys/${runId}`);
    }
    if (run.status === 200) {
      const row = JSON.parse(run.text) as { status: string; startedAt: string; finishedAt: string | null };
      runStatus = row.status;
      if (row.finishedAt !== null)
        runSeconds = (Date.parse(row.finishedAt) - Date.parse(row.startedAt)) / 1000;
    } else runStatus = `HTTP ${run.status}`;
    const log = await call(server.port, 'GET', `/api/stacks/bench/deploys/${runId}/log`);
    const redactor = createRedactor(secrets);
    for (const line of log.text.split('\n')) {
      if (line === '') continue;
      logLines++;
      if (redactor.line(line) !== line) logLeaks++;
    }
    serverPeakMb = peakRssBytes(server.child.pid) / MB;
  } finally {
    const code = await stopServer(server.child);
    if (code !== 0) process.stderr.write(`chronicle stacks exited ${code}: ${server.stderr()}\n`);
    await rm(dir, { recursive: true, force: true });
  }

  const firstEmit = Math.min(...clients.map((c) => c.firstEmitMs));
  const lastReceived = Math.max(...clients.map((c) => c.lastLineAt));
  const seconds = (lastReceived - firstEmit) / 1000;
  const all = new Float64Array(clients.reduce((n, c) => n + Math.min(c.lines, LINES), 0));
  let at = 0;
  for (const c of clients) {
    all.set(c.latencies.subarray(0, Math.min(c.lines, LINES)), at);
    at += Math.min(c.lines, LINES);
  }
  all.sort();
  const sorted = Array.from(all);
  const failed = clients.filter(
    (c) => c.error !== undefined || c.result?.success !== true || c.lines !== LINES,
  );
  return {
    perSecond: LINES / seconds,
    fastest: LINES / ((Math.min(...clients.map((c) => c.lastLineAt)) - firstEmit) / 1000),
    seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    runSeconds,
    serverCpu,
    serverPeakMb,
    runStatus,
    logLines,
    postMs,
    leaks: clients.reduce((n, c) => n + c.leaks, 0) + logLeaks,
    outOfOrder: clients.reduce((n, c) => n + c.outOfOrder, 0),
    unredacted: clients.reduce((n, c) => n + c.unredacted, 0),
    reconnects: clients.reduce((n, c) => n + c.reconnects, 0),
    failed: failed.map((c) => ({ lines: c.lines, error: c.error, result: c.result })),
  };
}

export async function benchDeploys(): Promise<void> {
  const { secrets, variables, dir } = await benchStackSetup('chronicle-bench-deploys-', LINES);
  await rm(dir, { recursive: true, force: true });
  const programEnv = Object.fromEntries(variables.map((v) => [v.name, v.value]));

  // The raw limit first, while nothing else runs.
  const raw = await rawPipe(programEnv);
  const rawSeconds = (raw.lastReceivedMs - raw.firstEmitMs) / 1000;
  const rawPerSecond = raw.lines / rawSeconds;

  // Chronicle and the fan-out limit in turn, ROUNDS times, on the same client threads: load that comes
  // and goes on a shared machine falls on both alike, and each round's pair is compared with itself.
  const pool = await ClientPool.start();
  let pairs: Array<{ ours: ChronicleRound; limit: Awaited<ReturnType<typeof fanoutLimit>> }>;
  try {
    // The client threads' code is compiled as it runs: one unmeasured run first, or the first measured
    // round (chronicle's) gets cold clients (8.2 CPU-s of client threads against 6.3-7.2 later).
    await fanoutLimit(programEnv, secrets, pool);
    pairs = await interleaved(
      ROUNDS,
      () => chronicleRound(pool),
      () => fanoutLimit(programEnv, secrets, pool),
    );
  } finally {
    await pool.close();
  }
  const ours = pairs.map((p) => p.ours);
  const limits = pairs.map((p) => p.limit);
  const fanoutRatios = pairs.map((p) => p.ours.perSecond / p.limit.perSecond);
  const sum = (f: (r: ChronicleRound) => number) => ours.reduce((n, r) => n + f(r), 0);
  const totals = {
    leaks: sum((r) => r.leaks),
    outOfOrder: sum((r) => r.outOfOrder),
    unredacted: sum((r) => r.unredacted),
    reconnects: sum((r) => r.reconnects),
  };
  const failed = ours.flatMap((r) => r.failed);
  const runStatuses = ours.map((r) => r.runStatus);
  const runsFailed = runStatuses.filter((s) => s !== 'success').length;

  const redaction = await measureRedaction();
  const redactionRatio = redaction.compiled / redaction.naive;
  const engine = await measureEngine(engineServer);

  const report: BenchReport = {
    name:
      `deploys: ${LINES} lines, ${secrets.length} secrets, ${CLIENTS} SSE clients (chronicle stacks, ` +
      `LevelDB); ${ROUNDS} rounds with chronicle and the fan-out limit in turn, cells median ` +
      `[lowest–highest]; clients and servers share this ${availableParallelism()}-core machine`,
    rows: [
      {
        case: 'end to end (slowest client)',
        'lines/s': spreadCell(ours.map((r) => r.perSecond)),
        seconds: median(ours.map((r) => r.seconds)),
        'p50 ms': median(ours.map((r) => r.p50)),
        'p99 ms': median(ours.map((r) => r.p99)),
        'server CPU s': median(ours.map((r) => r.serverCpu)),
        'server peak MB': median(ours.map((r) => r.serverPeakMb)),
        '% of raw': (100 * median(ours.map((r) => r.perSecond))) / rawPerSecond,
      },
      { case: 'end to end (fastest client)', 'lines/s': spreadCell(ours.map((r) => r.fastest)) },
      {
        case: 'deploy run (startedAt..finishedAt)',
        'lines/s': spreadCell(ours.map((r) => LINES / r.runSeconds)),
        seconds: median(ours.map((r) => r.runSeconds)),
      },
      {
        case: `fan-out limit (bare server, ${CLIENTS} clients)`,
        'lines/s': spreadCell(limits.map((r) => r.perSecond)),
        seconds: median(limits.map((r) => r.seconds)),
        'server CPU s': median(limits.map((r) => r.serverCpu)),
        'server peak MB': median(limits.map((r) => r.serverPeakMb)),
      },
      {
        case: 'raw pipe into a Node child (one run)',
        'lines/s': Math.round(rawPerSecond),
        seconds: rawSeconds,
        'p50 ms': raw.p50,
        'p99 ms': raw.p99,
      },
      { case: 'redaction: compiled', 'lines/s': Math.round(redaction.compiled) },
      { case: 'redaction: one RegExp', 'lines/s': Math.round(redaction.regex) },
      { case: 'redaction: naive replaceAll', 'lines/s': Math.round(redaction.naive) },
      ...engine.rows,
    ],
    ratios: {
      'end-to-end lines/s': ratioOf(
        ours.map((r) => r.perSecond),
        TARGET_LINES_PER_SECOND,
      ),
      'end-to-end / fan-out limit (same clients, bare server)': ratioOf(fanoutRatios, TARGET_FANOUT_RATIO),
      'redaction compiled/naive': {
        value: redactionRatio,
        target: TARGET_REDACTION_RATIO,
        ok: redactionRatio >= TARGET_REDACTION_RATIO,
      },
      'leaks (secrets seen by clients or in the log)': {
        value: totals.leaks,
        target: 1,
        ok: totals.leaks === 0,
        max: true,
      },
      'failed clients': { value: failed.length, target: 1, ok: failed.length === 0, max: true },
      'lines out of order': { value: totals.outOfOrder, target: 1, ok: totals.outOfOrder === 0, max: true },
      'runs not ending success': { value: runsFailed, target: 1, ok: runsFailed === 0, max: true },
      ...engine.ratios,
    },
    extra: {
      rounds: ROUNDS,
      cores: availableParallelism(),
      perSecond: ours.map((r) => r.perSecond),
      fanoutLimitPerSecond: limits.map((r) => r.perSecond),
      fanoutRatios,
      runStatuses,
      runSeconds: ours.map((r) => r.runSeconds),
      serverCpuSeconds: ours.map((r) => r.serverCpu),
      fanoutServerCpuSeconds: limits.map((r) => r.serverCpu),
      serverPeakMb: ours.map((r) => r.serverPeakMb),
      fanoutServerPeakMb: limits.map((r) => r.serverPeakMb),
      endToEndOfRaw: median(ours.map((r) => r.perSecond)) / rawPerSecond,
      logLines: ours.map((r) => r.logLines),
      postMs: ours.map((r) => r.postMs),
      ...totals,
      rawLines: raw.lines,
      rawOutOfOrder: raw.outOfOrder,
      failedClients: failed,
      ...engine.extra,
    },
  };
  printReport(report);
  if (
    failed.length > 0 ||
    totals.leaks > 0 ||
    totals.outOfOrder > 0 ||
    runsFailed > 0 ||
    ours.some((r) => r.logLines !== LINES)
  )
    process.exitCode = 1;
}
