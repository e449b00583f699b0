/**
 * A worker thread of SSE clients for the benchmarks (see sse-client-pool.ts): each message
 * `{ id, target, checks }` runs one client per check at once and answers `{ id, results }`, the latency
 * arrays handed over, not copied. Several runs may be in flight at once (the soak's deploys).
 */
import { parentPort } from 'node:worker_threads';
import { type ClientCheck, type ClientTarget, sseClient } from './sse-client.js';

const port = parentPort;
if (!port) throw new Error('sse-client-worker runs as a worker thread');
port.on(
  'message',
  async ({ id, target, checks }: { id: number; target: ClientTarget; checks: ClientCheck[] }) => {
    const results = await Promise.all(checks.map((check) => sseClient(target, check)));
    port.postMessage(
      { id, results },
      results.map((r) => r.latencies.buffer as ArrayBuffer),
    );
  },
);
port.postMessage('ready');
