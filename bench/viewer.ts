/**
 * `npm run bench -- viewer`: how soon the GUI-hosted editor's viewer stream shows a change made over
 * REST (the latency the viewer tests used to hold to 200 ms with a clock; times belong here).
 *
 *  - the server: `chronicle editor --http 0 <plan.dxf> --store level:<temp>` (GUI-hosted: the viewer
 *    listens on a port of its own), durable appends as the product runs;
 *  - a reader of the viewer's `/events` stream (SSE) in this process;
 *  - each sample: one `POST /api/v1/entities` of a circle on a new connection; timed from the request
 *    sent to the answer (the peer: what the REST client itself waits) and to the viewer's `entities`
 *    event naming the new handle; BENCH_ROUNDS rounds of SAMPLES samples, after a warm-up round.
 * Target: the viewer's update p99 under 200 ms after the request, as the median of the rounds' p99s.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Server, start, stop } from './child-server.js';
import { type BenchReport, percentile, printReport, ROUNDS, ratioOf, spreadCell } from './report.js';

const SAMPLES = Number(process.env.BENCH_VIEWER_SAMPLES ?? 50);
const TARGET_P99_MS = 200;
const MAIN_JS = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** A small drawing to open: a few lines on two layers. */
const PLAN = [
  '0\nSECTION\n2\nENTITIES\n',
  ...Array.from(
    { length: 20 },
    (_, i) => `0\nLINE\n8\nWALLS\n10\n${i * 10}\n20\n0\n11\n${i * 10}\n21\n100\n`,
  ),
  '0\nENDSEC\n0\nEOF\n',
].join('');

/** `chronicle editor` GUI-hosted on `file`: its REST and viewer ports. */
async function startGui(file: string, store: string): Promise<{ server: Server; rest: number; gui: number }> {
  const server = await start(
    'chronicle editor',
    [MAIN_JS, 'editor', '--http', '0', file, '--store', store],
    /editor listening on http:\/\/127\.0\.0\.1:(\d+)[\s\S]*gui listening on http:\/\/127\.0\.0\.1:(\d+)/,
  );
  return { server, rest: server.port, gui: Number(server.match[2]) };
}

/** Handles of the viewer's `entities` events, each with when it arrived. */
function viewerEvents(
  port: number,
): Promise<{ arrived: Map<string, number>; close: () => void; wake: Set<() => void> }> {
  const arrived = new Map<string, number>();
  const wake = new Set<() => void>();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/events', agent: false },
      (res: IncomingMessage) => {
        let buffer = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          const now = performance.now();
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            // An entity update; or a whole scene (the first circle makes its layer, which redraws all).
            const data = block.split('\n').find((l) => l.startsWith('data: '));
            if (data && (block.includes('event: entities') || block.includes('event: scene'))) {
              const parsed = JSON.parse(data.slice(6)) as {
                upsert?: Array<{ handle: string }>;
                document?: { entities: Array<{ handle: string }> };
              };
              for (const e of parsed.upsert ?? parsed.document?.entities ?? []) arrived.set(e.handle, now);
            }
            end = buffer.indexOf('\n\n');
          }
          for (const w of [...wake]) w();
          wake.clear();
        });
        resolve({ arrived, wake, close: () => res.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One circle over REST: its handle and when the answer came. */
function createCircle(port: number, x: number): Promise<{ handle: string; answeredAt: number }> {
  const payload = JSON.stringify({
    entities: [{ type: 'Circle', center: [x, 50], radius: 2, layer: 'DOORS' }],
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/entities',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          const answeredAt = performance.now();
          if (res.statusCode !== 201)
            return reject(new Error(`POST /entities answered ${res.statusCode}: ${text}`));
          const handle = (JSON.parse(text) as { result: { handles: string[] } }).result.handles[0] as string;
          resolve({ handle, answeredAt });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export async function benchViewer(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-viewer-'));
  const file = join(dir, 'plan.dxf');
  await writeFile(file, PLAN);
  const server = await startGui(file, `level:${join(dir, 'events')}`);
  const events = await viewerEvents(server.gui);
  const rounds: Array<{ answer: number[]; update: number[] }> = [];
  try {
    let x = 0;
    for (let round = -1; round < ROUNDS; round++) {
      const answer: number[] = [];
      const update: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const sent = performance.now();
        const { handle, answeredAt } = await createCircle(server.rest, x++);
        while (!events.arrived.has(handle)) await new Promise<void>((r) => events.wake.add(r));
        answer.push(answeredAt - sent);
        update.push((events.arrived.get(handle) as number) - sent);
      }
      if (round >= 0)
        rounds.push({ answer: answer.sort((a, b) => a - b), update: update.sort((a, b) => a - b) });
    }
  } finally {
    events.close();
    await stop(server.server);
    await rm(dir, { recursive: true, force: true });
  }
  const p = (which: 'answer' | 'update', q: number) => rounds.map((r) => percentile(r[which], q));
  const report: BenchReport = {
    name: `viewer: a circle created over REST until the GUI-hosted viewer's stream shows it (${ROUNDS} rounds of ${SAMPLES}, LevelDB, durable appends)`,
    rows: [
      {
        case: 'REST answer (the peer)',
        'p50 ms': spreadCell(p('answer', 50), 1),
        'p99 ms': spreadCell(p('answer', 99), 1),
      },
      {
        case: 'viewer update',
        'p50 ms': spreadCell(p('update', 50), 1),
        'p99 ms': spreadCell(p('update', 99), 1),
        '/ answer (p50)': spreadCell(
          rounds.map((r) => percentile(r.update, 50) / percentile(r.answer, 50)),
          2,
        ),
      },
    ],
    ratios: {
      'viewer update p99 (ms)': ratioOf(p('update', 99), TARGET_P99_MS, { max: true }),
    },
  };
  printReport(report);
}
