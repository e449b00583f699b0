/**
 * Resource use of a stack's running containers, from the Engine API's `stats` stream (one JSON sample a
 * second per container): CPU as a share of one core (100 = one core busy), memory used (without the page
 * cache, as `docker stats` shows it) and its limit, network bytes received and sent. The streams are
 * open only while someone reads them (the route's request); a container started meanwhile is followed
 * from its start (the engine's container events), one that stops ends its stream.
 */
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { filter, type Observable } from 'rxjs';
import { type EngineEvent, JsonLines } from './container-events.js';

interface StatsSample {
  container: string;
  service: string | null;
  /** The engine's time of the sample. */
  time: string;
  /** Percent of one CPU core (several busy cores: more than 100); null for the first sample. */
  cpuPercent: number | null;
  memoryBytes: number;
  /** The container's limit, or the host's memory without one. */
  memoryLimitBytes: number;
  netRxBytes: number;
  netTxBytes: number;
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/** One sample of the engine's stats stream, as the page shows it (pure). */
export function sampleOf(raw: unknown, container: string, service: string | null): StatsSample {
  const r = record(raw);
  const cpu = record(r.cpu_stats);
  const pre = record(r.precpu_stats);
  const cpuTotal = num(record(cpu.cpu_usage).total_usage);
  const preTotal = num(record(pre.cpu_usage).total_usage);
  const system = num(cpu.system_cpu_usage);
  const preSystem = num(pre.system_cpu_usage);
  const cores =
    num(cpu.online_cpus) || (record(cpu.cpu_usage).percpu_usage as unknown[] | undefined)?.length || 1;
  const cpuDelta = cpuTotal - preTotal;
  const systemDelta = system - preSystem;
  // The first sample has no previous one: its share is unknown, not zero.
  const cpuPercent =
    preSystem > 0 && systemDelta > 0 ? Math.max(0, (cpuDelta / systemDelta) * cores * 100) : null;
  const memory = record(r.memory_stats);
  const memoryStats = record(memory.stats);
  // cgroup v1 counts the page cache in `usage` (`total_inactive_file`), v2 as `inactive_file`.
  const cache = num(memoryStats.inactive_file) || num(memoryStats.total_inactive_file);
  let rx = 0;
  let tx = 0;
  for (const net of Object.values(record(r.networks))) {
    rx += num(record(net).rx_bytes);
    tx += num(record(net).tx_bytes);
  }
  return {
    container,
    service,
    time: typeof r.read === 'string' ? r.read : new Date().toISOString(),
    cpuPercent: cpuPercent === null ? null : Math.round(cpuPercent * 100) / 100,
    memoryBytes: Math.max(0, num(memory.usage) - cache),
    memoryLimitBytes: num(memory.limit),
    netRxBytes: rx,
    netTxBytes: tx,
  };
}

interface StatsTarget {
  name: string;
  service: string | null;
}

/**
 * Follows the stats of `targets` (and of the project's containers started later) into `sink` until
 * `signal` aborts; resolves then.
 */
export async function followStats(
  source: { docker: Docker; project: string; events?: Observable<EngineEvent> },
  targets: readonly StatsTarget[],
  signal: AbortSignal,
  sink: (sample: StatsSample) => void,
): Promise<void> {
  const following = new Set<string>();
  const follow = (target: StatsTarget) => {
    if (following.has(target.name) || signal.aborted) return;
    following.add(target.name);
    void (async () => {
      try {
        const stream = (await source.docker.getContainer(target.name).stats({
          stream: true,
          abortSignal: signal,
        } as { stream: true })) as unknown as Readable;
        const lines = new JsonLines();
        for await (const chunk of stream) {
          for (const raw of lines.push(chunk.toString())) sink(sampleOf(raw, target.name, target.service));
        }
      } catch {
        // Stopped or removed, or the client left: its stream ends.
      } finally {
        following.delete(target.name);
      }
    })();
  };
  const subscription = source.events
    ?.pipe(filter((e) => e.kind === 'container' && e.project === source.project && e.action === 'start'))
    .subscribe((event) => {
      if (event.kind === 'container') follow({ name: event.container, service: event.service });
    });
  for (const target of targets) follow(target);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  subscription?.unsubscribe();
}
