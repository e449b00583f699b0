/**
 * `npm run bench -- soak`: many deploys with many clients, some of which never read, and the
 * server's memory throughout, against the real CLI (`chronicle stacks`, LevelDB).
 *
 *  - 50 deploys (SOAK_DEPLOYS) of 20,000 lines each (SOAK_LINES; bench/fixtures/bench-compose.mjs, ~100
 *    bytes a line, every 50th holding one of 100 secret values), SOAK_CONCURRENCY (5) at a time, each a
 *    create-and-start of its own stack (a recorded run);
 *  - each deploy watched by 20 SSE clients on `GET /api/jobs/{id}/events` (SOAK_CLIENTS): 5 of them
 *    (SOAK_STALLED) send their request and never read a byte; the others read every message until the
 *    result (bench/sse-client.ts, in worker threads), checking order and redaction. A reading client
 *    whose stream the server ends early reconnects with Last-Event-ID: that counts as a drop;
 *  - once a deploy's run has finished, one more client follows its log (`log?follow=true`) to the end
 *    and counts its lines;
 *  - the server's resident memory (/proc/<pid>/status) is sampled every 50 ms; its peak is VmHWM.
 *  - the limit, same run: a bare node:http fan-out (bench/sse-fanout-child.ts: no store, no redaction,
 *    no files) of one run of the same program to SOAK_CONCURRENCY x (clients - stalled) reading clients
 *    and SOAK_CONCURRENCY x stalled ones: the lines/s it delivers to all its readers, against chronicle's.
 * Targets: peak RSS < 400 MB; no client dropped but the stalled ones; every line delivered, every log
 * whole.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { benchStackSetup, call, startServer, stopServer } from './deploys.js';
import { type BenchReport, printReport } from './report.js';
import { type ClientCheck, type ClientResult, now } from './sse-client.js';
import { ClientPool } from './sse-client-pool.js';

const DEPLOYS = Number(process.env.SOAK_DEPLOYS ?? 50);
const LINES = Number(process.env.SOAK_LINES ?? 20_000);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 20);
const STALLED = Number(process.env.SOAK_STALLED ?? 5);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 5);
const TOKEN = 'bench-admin-token';
const TARGET_PEAK_MB = 400;
/** Megabytes as the target is written (10^6 bytes; the JSON gives bytes). */
const MB = 1_000_000;

const FANOUT_JS = fileURLToPath(new URL('./sse-fanout-child.js', import.meta.url));
const BENCH_COMPOSE = fileURLToPath(new URL('../../bench/fixtures/bench-compose.mjs', import.meta.url));

function memoryOf(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Samples a process's RSS until stopped; the highest sample and the kernel's peak (VmHWM). */
function sampleMemory(pid: number): () => { maxSampled: number; peak: number } {
  let maxSampled = 0;
  const timer = setInterval(() => {
    try {
      maxSampled = Math.max(maxSampled, memoryOf(pid).rss);
    } catch {
      // The process has gone.
    }
  }, 50);
  return () => {
    clearInterval(timer);
    return { maxSampled, peak: memoryOf(pid).peak };
  };
}

/** A request whose answer is never read: the socket is paused for good once the request is sent. */
function stalledGet(port: number, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** Follows a finished run's log to its end: the number of line events and the status of its end event. */
function followLog(port: number, path: string): Promise<{ lines: number; end: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, agent: false, headers: { authorization: `Bearer ${TOKEN}` } },
      (res) => {
        let lines = 0;
        let end = '(no end event)';
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const text = rest + chunk;
          // Whole events only: up to the last blank line.
          const boundary = text.lastIndexOf('\n\n');
          const cut = boundary === -1 ? 0 : boundary + 2;
          for (
            let at = text.indexOf('"type":"line"');
            at !== -1 && at < cut;
            at = text.indexOf('"type":"line"', at + 1)
          )
            lines++;
          const last = /"type":"end","status":"([a-z]+)"/.exec(text.slice(0, cut));
          if (last?.[1]) end = last[1];
          rest = text.slice(cut);
        });
        res.on('end', () => resolve({ lines, end }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface DeployOutcome {
  clients: ClientResult[];
  runStatus: string;
  log: { lines: number; end: string };
}

/** One deploy: its stack created and started, watched by the clients, its log followed once it ended. */
async function oneDeploy(
  port: number,
  pool: ClientPool,
  index: number,
  variables: Array<{ name: string; value: string; secret: boolean }>,
  secrets: readonly string[],
): Promise<DeployOutcome> {
  const name = `soak-${index}`;
  const created = await call(port, 'POST', '/api/stacks', {
    name,
    compose: 'services:\n  app:\n    image: bench/app:1\n',
    variables,
  });
  if (created.status !== 202) throw new Error(`POST /api/stacks answered ${created.status}: ${created.text}`);
  const { jobId, runId } = JSON.parse(created.text) as { jobId: string; runId: number };
  const events = `/api/jobs/${encodeURIComponent(jobId)}/events`;
  const stalled = await Promise.all(Array.from({ length: STALLED }, () => stalledGet(port, events)));
  const check = (i: number): ClientCheck => ({ secrets, checkEveryLine: i === 0, expectedLines: LINES });
  const clients = await pool.run(
    { port, path: events, token: TOKEN },
    Array.from({ length: CLIENTS - STALLED }, (_, i) => check(i)),
  );
  for (const socket of stalled) socket.destroy();
  let run = await call(port, 'GET', `/api/stacks/${name}/deploys/${runId}`);
  for (let tries = 0; tries < 200 && run.status === 200 && run.text.includes('"finishedAt":null'); tries++) {
    await new Promise((r) => setTimeout(r, 50));
    run = await call(port, 'GET', `/api/stacks/${name}/deploys/${runId}`);
  }
  const runStatus =
    run.status === 200 ? (JSON.parse(run.text) as { status: string }).status : `HTTP ${run.status}`;
  const log = await followLog(port, `/api/stacks/${name}/deploys/${runId}/log?follow=true`);
  return { clients, runStatus, log };
}

/** The bare fan-out's delivery: CONCURRENCY x readers and CONCURRENCY x stalled clients of one run. */
async function fanoutLimit(
  env: NodeJS.ProcessEnv,
  pool: ClientPool,
): Promise<{ perSecond: number; seconds: number; peak: number }> {
  const child: ChildProcessByStdio<null, Readable, null> = spawn(
    process.execPath,
    [FANOUT_JS, BENCH_COMPOSE],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const sockets: Socket[] = [];
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.setEncoding('utf8').once('data', (line: string) => {
        const m = /listening (\d+)/.exec(line);
        if (m) resolve(Number(m[1]));
        else reject(new Error(`fan-out child said ${line}`));
      });
      child.once('exit', (code) => reject(new Error(`fan-out child exited ${code}`)));
    });
    const readers = CONCURRENCY * (CLIENTS - STALLED);
    for (let i = 0; i < CONCURRENCY * STALLED; i++) sockets.push(await stalledGet(port, '/events'));
    const check: ClientCheck = { secrets: [], checkEveryLine: false, expectedLines: LINES };
    const clients = pool.run(
      { port, path: '/events', token: TOKEN },
      Array.from({ length: readers }, () => check),
    );
    const started = now();
    await call(port, 'POST', '/start');
    const done = await clients;
    const seconds = (now() - started) / 1000;
    const failed = done.filter((c) => c.lines !== LINES || c.outOfOrder > 0);
    if (failed.length > 0)
      throw new Error(`fan-out limit: ${failed.length} clients did not get every line in order`);
    return { perSecond: (readers * LINES) / seconds, seconds, peak: memoryOf(child.pid as number).peak };
  } finally {
    for (const socket of sockets) socket.destroy();
    child.kill();
  }
}

export async function benchSoak(): Promise<void> {
  const { secrets, variables, dir, config } = await benchStackSetup('chronicle-bench-soak-', LINES);
  const pool = await ClientPool.start();
  let limit: { perSecond: number; seconds: number; peak: number };
  try {
    limit = await fanoutLimit(Object.fromEntries(variables.map((v) => [v.name, v.value])), pool);
  } catch (error) {
    await pool.close();
    throw error;
  }

  const server = await startServer(join(dir, 'data'), config);
  const idle = memoryOf(server.child.pid as number).rss;
  const stopSampling = sampleMemory(server.child.pid as number);
  const outcomes: DeployOutcome[] = [];
  let seconds = 0;
  let memory: { maxSampled: number; peak: number };
  try {
    const started = now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < DEPLOYS) {
          const index = next++;
          outcomes[index] = await oneDeploy(server.port, pool, index, variables, secrets);
        }
      }),
    );
    seconds = (now() - started) / 1000;
  } finally {
    memory = stopSampling();
    await pool.close();
    const code = await stopServer(server.child);
    if (code !== 0) process.stderr.write(`chronicle stacks exited ${code}: ${server.stderr()}\n`);
    await rm(dir, { recursive: true, force: true });
  }

  const clients = outcomes.flatMap((o) => o.clients);
  const delivered = clients.reduce((n, c) => n + c.lines, 0);
  const dropped = clients.filter((c) => c.reconnects > 0 || c.error !== undefined);
  const incomplete = clients.filter((c) => c.lines !== LINES || c.result?.success !== true);
  const leaks = clients.reduce((n, c) => n + c.leaks, 0);
  const outOfOrder = clients.reduce((n, c) => n + c.outOfOrder, 0);
  const badRuns = outcomes.filter((o) => o.runStatus !== 'success');
  const badLogs = outcomes.filter((o) => o.log.lines !== LINES || o.log.end !== 'success');
  const perSecond = delivered / seconds;
  const report: BenchReport = {
    name: `soak: ${DEPLOYS} deploys of ${LINES} lines, ${CONCURRENCY} at a time, ${CLIENTS} SSE clients each (${STALLED} never read), a follower of every finished log (chronicle stacks, LevelDB)`,
    rows: [
      {
        case: 'chronicle: lines to reading clients',
        'lines/s': Math.round(perSecond),
        seconds,
        'peak RSS MB': memory.peak / MB,
        'max sampled RSS MB': memory.maxSampled / MB,
      },
      {
        case: 'chronicle: deployed lines',
        'lines/s': Math.round((DEPLOYS * LINES) / seconds),
        'idle RSS MB': idle / MB,
      },
      {
        case: `bare fan-out: ${CONCURRENCY * (CLIENTS - STALLED)} readers, ${CONCURRENCY * STALLED} stalled, one run`,
        'lines/s': Math.round(limit.perSecond),
        seconds: limit.seconds,
        'peak RSS MB': limit.peak / MB,
      },
    ],
    ratios: {
      'peak RSS MB (VmHWM)': {
        value: memory.peak / MB,
        target: TARGET_PEAK_MB,
        ok: memory.peak / MB < TARGET_PEAK_MB,
        max: true,
      },
      'lines/s / bare fan-out': {
        value: perSecond / limit.perSecond,
        target: 0.1,
        ok: perSecond / limit.perSecond >= 0.1,
      },
      'reading clients dropped': { value: dropped.length, target: 1, ok: dropped.length === 0, max: true },
      'clients missing lines': {
        value: incomplete.length,
        target: 1,
        ok: incomplete.length === 0,
        max: true,
      },
      'runs not success': { value: badRuns.length, target: 1, ok: badRuns.length === 0, max: true },
      'followed logs not whole': { value: badLogs.length, target: 1, ok: badLogs.length === 0, max: true },
      'leaks (secrets seen by clients)': { value: leaks, target: 1, ok: leaks === 0, max: true },
      'lines out of order': { value: outOfOrder, target: 1, ok: outOfOrder === 0, max: true },
    },
    extra: {
      clientThreads: pool.threads,
      delivered,
      idleRss: idle,
      peakRss: memory.peak,
      maxSampledRss: memory.maxSampled,
      fanoutPerSecond: limit.perSecond,
      droppedClients: dropped.map((c) => ({ lines: c.lines, reconnects: c.reconnects, error: c.error })),
      badRuns: badRuns.map((o) => o.runStatus),
      badLogs: badLogs.map((o) => o.log),
    },
  };
  printReport(report);
  if (Object.values(report.ratios).some((r) => !r.ok)) process.exitCode = 1;
}
