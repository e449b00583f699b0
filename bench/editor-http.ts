/**
 * `npm run bench -- editor-http`: the editor's REST transport against the transport's limit.
 *
 * Three servers, each a process of its own, started in the same run:
 *  - ours: the real CLI, `chronicle editor --http 0 --store level:<temp dir>` — a LevelDB store with
 *    synced (durable) appends, as the product runs by default (`BENCH_HTTP_STORE=memory` uses
 *    `--store memory:` instead, to see the transport without the disk);
 *  - bare: a `node:http` server (bench/bare-http-child.ts) answering a fixed small JSON body with
 *    `Connection: close`, after reading the request body;
 *  - bare + fsync: the same server writing each request's body with a synced LevelDB batch before it
 *    answers, the bodies that arrive during a sync sharing the next (group commit): the limit of a
 *    durable mutation, which ours can only answer once its events are on disk.
 *
 * Each case loads a server with 8 concurrent clients for a fixed time, after a warm-up; every request
 * is on a new connection and carries `Connection: close`, and both servers get the same request bytes
 * from the same client code (raw `net` sockets, so the client costs as little as it can):
 *  - `GET /api/v1/state` against bare; target ours/bare >= 0.6;
 *  - `POST /api/v1/entities` with one line (a document is created first with POST /api/v1/documents)
 *    against bare + fsync; target ours/limit >= 0.5.
 * Each case runs BENCH_ROUNDS times, ours and its limit in turn; the median of the rounds' ratios is held
 * to the target, their spread printed beside it.
 * Reported: requests/s, p50/p99 latency (connect to last byte), failed requests, the CPU use of the
 * server and of the client over the case (100% = one core), and the server's CPU time per answered
 * request (the steadiest of them on a machine shared with other work). The client runs in this process, on
 * the same machine as both servers: on a 2-core machine the server has about one core and the client
 * the other, and a client near 100% is what sets the pace (the server is not the limit then).
 * `failed` counts answers other than the expected status, and connections closed unanswered at the
 * editor's 8-connection limit: a client's next connection can arrive before the server has seen its
 * previous one close (the spec's limit; the bare server has none).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Server, start, stop } from './child-server.js';
import { cpuSeconds } from './process-usage.js';
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

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CLIENTS = 8;
const STORE = process.env.BENCH_HTTP_STORE === 'memory' ? 'memory' : 'level';
/** Extra node options for our server only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
const NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

const MAIN_JS = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const BARE_JS = fileURLToPath(new URL('./bare-http-child.js', import.meta.url));

/** The bytes of one request, as every client sends it. */
function requestBytes(port: number, method: string, path: string, body?: string): Buffer {
  const payload = body === undefined ? '' : body;
  const head =
    `${method} ${path} HTTP/1.1\r\n` +
    `Host: 127.0.0.1:${port}\r\n` +
    'Connection: close\r\n' +
    (body === undefined
      ? ''
      : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n`) +
    '\r\n';
  return Buffer.from(head + payload, 'utf8');
}

/** One request on a new connection; resolves with the answer's status and body (status 0: none). */
function once(port: number, bytes: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port, noDelay: true }, () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
      const at = text.indexOf('\r\n\r\n');
      resolve({ status: status ? Number(status) : 0, body: at === -1 ? '' : text.slice(at + 4) });
    });
  });
}

interface Load {
  requests: number;
  failed: number;
  perSecond: number;
  p50: number;
  p99: number;
  serverCpu: number;
  clientCpu: number;
}

/** `CLIENTS` loops, each sending `bytes` on a new connection after the other, for `seconds`. */
async function load(server: Server, bytes: Buffer, expected: number, seconds: number): Promise<Load> {
  const latencies: number[] = [];
  let failed = 0;
  const cpu0 = cpuSeconds(server.child.pid as number);
  const client0 = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const { status } = await once(server.port, bytes);
        if (status === expected) latencies.push(performance.now() - t0);
        else failed += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const serverCpu = (cpuSeconds(server.child.pid as number) - cpu0) / elapsed;
  const client = process.cpuUsage(client0);
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    failed,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    serverCpu,
    clientCpu: (client.user + client.system) / 1e6 / elapsed,
  };
}

/** A warm-up (not counted), then the measured load. */
async function measure(server: Server, bytes: Buffer, expected: number): Promise<Load> {
  if (WARMUP_SECONDS > 0) await load(server, bytes, expected, WARMUP_SECONDS);
  return load(server, bytes, expected, SECONDS);
}

const ENTITY_BODY = JSON.stringify({ entities: [{ type: 'line', layer: '0', start: [0, 0], end: [10, 5] }] });

export async function benchEditorHttp(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-http-'));
  const storeUrl = STORE === 'level' ? `level:${join(dir, 'events')}` : 'memory:';
  const storeText =
    STORE === 'level'
      ? `level store in a temp dir (${storeUrl}), synced appends as the product runs`
      : 'memory: store (no disk)';
  const servers: Server[] = [];
  try {
    const ours = await start(
      'chronicle editor',
      [...NODE_ARGS, MAIN_JS, 'editor', '--http', '0', '--store', storeUrl],
      /editor listening on http:\/\/127\.0\.0\.1:(\d+)/,
    );
    servers.push(ours);
    const bare = await start('bare node:http', [BARE_JS], /bare listening on (\d+)/);
    servers.push(bare);
    // A durable mutation's limit: the bare server plus one group-committed fsync (on the same disk).
    const synced = await start(
      'bare node:http + group-committed fsync',
      [BARE_JS, '--fsync', join(dir, 'bare-fsync')],
      /bare listening on (\d+)/,
    );
    servers.push(synced);

    const created = await once(ours.port, requestBytes(ours.port, 'POST', '/api/v1/documents', '{}'));
    if (created.status !== 201)
      throw new Error(`POST /api/v1/documents answered ${created.status}: ${created.body}`);
    const check = await once(ours.port, requestBytes(ours.port, 'POST', '/api/v1/entities', ENTITY_BODY));
    if (check.status !== 201)
      throw new Error(`POST /api/v1/entities answered ${check.status}: ${check.body}`);

    const cases = [
      { label: 'GET /api/v1/state', method: 'GET', path: '/api/v1/state', ok: 200, target: 0.6, limit: bare },
      {
        label: 'POST /api/v1/entities (1 line)',
        method: 'POST',
        path: '/api/v1/entities',
        body: ENTITY_BODY,
        ok: 201,
        target: 0.5,
        limit: synced,
      },
    ] as const;
    const rows: BenchReport['rows'] = [];
    const ratios: BenchReport['ratios'] = {};
    // BENCH_CASES=POST (say) runs only the cases whose label holds it, e.g. to profile one.
    const only = process.env.BENCH_CASES;
    for (const c of cases.filter((k) => only === undefined || k.label.includes(only))) {
      const body = 'body' in c ? c.body : undefined;
      const limitBytes = requestBytes(c.limit.port, c.method, c.path, body);
      const ourBytes = requestBytes(ours.port, c.method, c.path, body);
      const pairs = await interleaved(
        ROUNDS,
        () => measure(ours, ourBytes, c.ok),
        () => measure(c.limit, limitBytes, 200),
      );
      for (const [server, results] of [
        [c.limit.name, pairs.map((p) => p.limit)],
        ['chronicle editor', pairs.map((p) => p.ours)],
      ] as const) {
        rows.push({
          case: c.label,
          server,
          'req/s': spreadCell(results.map((r) => r.perSecond)),
          'p50 ms': median(results.map((r) => r.p50)),
          'p99 ms': median(results.map((r) => r.p99)),
          failed: results.reduce((n, r) => n + r.failed, 0),
          'server CPU %': Math.round(median(results.map((r) => r.serverCpu)) * 100),
          // CPU per answered request: what the server spends on one, which the machine's other load
          // changes far less than the rate (a server starved of its core answers fewer, not dearer).
          'server µs/req': Math.round(
            median(results.map((r) => (r.requests === 0 ? 0 : (r.serverCpu / r.perSecond) * 1e6))),
          ),
          'client CPU %': Math.round(median(results.map((r) => r.clientCpu)) * 100),
        });
      }
      ratios[`${c.label}: ours / ${c.limit.name} req/s`] = ratioOf(
        pairs.map((p) => p.ours.perSecond / p.limit.perSecond),
        c.target,
      );
    }
    printReport({
      name:
        `editor-http: chronicle editor --http (${storeText}) against a bare node:http server (GET) and ` +
        `the same plus a group-committed fsync per request (POST); ${CLIENTS} clients, ${SECONDS} s per ` +
        `run after ${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds with ours and the limit in turn, cells ` +
        `median [lowest–highest]; a new connection per request; client and servers share this ` +
        `${availableParallelism()}-core machine`,
      rows,
      ratios,
      extra: {
        store: STORE,
        storeUrl,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        rounds: ROUNDS,
        clients: CLIENTS,
        cores: availableParallelism(),
      },
    });
  } finally {
    for (const server of servers) await stop(server);
    await rm(dir, { recursive: true, force: true });
  }
}
