import { SingleBar } from 'cli-progress';
import type { AnyProjection } from '../../projections/projection.js';
import { type RebuildProgress, rebuildProjection } from '../../projections/rebuild.js';
import type { EventStore } from '../store/types.js';

/** Progress on a terminal: a bar with done/total, events/s and ETA, redrawn in place. */
function barReporter(stream: NodeJS.WriteStream) {
  const bar = new SingleBar({
    stream,
    format: '{projection} [{bar}] {value}/{total} events | {speed} events/s | ETA {eta_formatted}',
    hideCursor: true,
    etaBuffer: 50,
  });
  let started = 0;
  return {
    start(name: string, total: number) {
      started = performance.now();
      bar.start(Math.max(total, 1), 0, { projection: name, speed: 0 });
    },
    update(p: RebuildProgress) {
      const speed = Math.round(p.done / ((performance.now() - started) / 1000 || 1));
      bar.update(p.done, { speed });
    },
    stop: () => bar.stop(),
  };
}

/** Progress anywhere else (CI logs, pipes): a plain line at most once a second, and at the end. */
function lineReporter(stream: NodeJS.WritableStream) {
  let started = 0;
  let lastLine = 0;
  return {
    start(_name: string, _total: number) {
      started = lastLine = performance.now();
    },
    update(p: RebuildProgress) {
      const now = performance.now();
      if (now - lastLine < 1000 && p.done < p.total) return;
      lastLine = now;
      const seconds = (now - started) / 1000;
      const speed = seconds > 0 ? p.done / seconds : 0;
      const eta = speed > 0 ? Math.ceil((p.total - p.done) / speed) : 0;
      const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
      stream.write(
        `rebuild ${p.projection}: ${p.done}/${p.total} events (${pct}%), ${Math.round(speed)} events/s, ETA ${eta}s\n`,
      );
    },
    stop() {},
  };
}

/** Replays the log into each projection from position 1 and replaces its snapshot. */
export async function rebuildAll(
  store: EventStore,
  selected: readonly AnyProjection[],
  out: NodeJS.WritableStream,
  err: NodeJS.WriteStream,
): Promise<void> {
  const total = await store.headPosition();
  for (const projection of selected) {
    const reporter = err.isTTY ? barReporter(err) : lineReporter(err);
    reporter.start(projection.name, total);
    let result: Awaited<ReturnType<typeof rebuildProjection>>;
    try {
      result = await rebuildProjection(store, projection, (p) => reporter.update(p));
    } finally {
      reporter.stop();
    }
    const rate = result.seconds > 0 ? Math.round(result.events / result.seconds) : result.events;
    out.write(
      `${projection.name}: rebuilt from ${result.events} events in ${result.seconds.toFixed(2)} s (${rate} events/s), checkpoint ${result.position}\n`,
    );
  }
}
