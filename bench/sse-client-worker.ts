/**
 * A worker thread of SSE clients for `npm run bench -- deploys` (see sse-client-pool.ts): each message
 * `{ target, checks }` runs one client per check at once and answers their results, the latency arrays
 * handed over, not copied.
 */
import { parentPort } from 'node:worker_threads';
import { type ClientCheck, type ClientTarget, sseClient } from './sse-client.js';

const port = parentPort;
if (!port) throw new Error('sse-client-worker runs as a worker thread');
port.on('message', async ({ target, checks }: { target: ClientTarget; checks: ClientCheck[] }) => {
  const results = await Promise.all(checks.map((check) => sseClient(target, check)));
  port.postMessage(
    results,
    results.map((r) => r.latencies.buffer as ArrayBuffer),
  );
});
port.postMessage('ready');
