/**
 * The SSE clients of `npm run bench -- deploys` and `-- soak`, spread over worker threads. Fifty clients reading ten
 * million events in one thread measure that thread, not the server: the fan-out limit and chronicle
 * both ran at the speed of the bench's own parsing. Threads started (and warmed) before a measurement,
 * reused for both measurements of a run.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ClientCheck, ClientResult, ClientTarget } from './sse-client.js';

const WORKER_JS = fileURLToPath(new URL('./sse-client-worker.js', import.meta.url));

export class ClientPool {
  /** Runs waiting for their answers, by id (several may be in flight on one worker). */
  private readonly waiting = new Map<
    number,
    { resolve: (results: ClientResult[]) => void; reject: (error: unknown) => void }
  >();
  private nextId = 0;

  private constructor(private readonly workers: Worker[]) {
    for (const worker of workers) {
      worker.on('message', (answer: { id: number; results: ClientResult[] } | 'ready') => {
        if (answer === 'ready') return;
        this.waiting.get(answer.id)?.resolve(answer.results);
        this.waiting.delete(answer.id);
      });
      worker.on('error', (error) => {
        for (const run of this.waiting.values()) run.reject(error);
        this.waiting.clear();
      });
    }
  }

  /** Starts `threads` worker threads (default: one per core, at least 2) and waits until each is ready. */
  static async start(threads = Math.max(2, availableParallelism())): Promise<ClientPool> {
    const workers = Array.from({ length: threads }, () => new Worker(WORKER_JS));
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            worker.once('message', () => resolve());
            worker.once('error', reject);
          }),
      ),
    );
    return new ClientPool(workers);
  }

  get threads(): number {
    return this.workers.length;
  }

  /** Runs one client per check against `target`, dealt round-robin to the threads; results in check order. */
  async run(target: ClientTarget, checks: readonly ClientCheck[]): Promise<ClientResult[]> {
    const shares = this.workers.map(() => [] as number[]);
    for (let i = 0; i < checks.length; i++) shares[i % this.workers.length]?.push(i);
    const results: ClientResult[] = new Array(checks.length);
    await Promise.all(
      this.workers.map(async (worker, w) => {
        const mine = shares[w] ?? [];
        if (mine.length === 0) return;
        const id = this.nextId++;
        const answer = new Promise<ClientResult[]>((resolve, reject) => {
          this.waiting.set(id, { resolve, reject });
        });
        worker.postMessage({ id, target, checks: mine.map((i) => checks[i]) });
        (await answer).forEach((result, k) => {
          results[mine[k] as number] = result;
        });
      }),
    );
    return results;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
