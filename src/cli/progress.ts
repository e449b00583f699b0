import { SingleBar } from 'cli-progress';

/** Progress of a long command over a count of events. */
interface Progress {
  start(total: number): void;
  update(done: number): void;
  stop(): void;
}

/** On a terminal: a bar with done/total, events/s and ETA, redrawn in place. */
function bar(stream: NodeJS.WriteStream, label: string): Progress {
  const shown = new SingleBar({
    stream,
    format: `${label} [{bar}] {value}/{total} events | {speed} events/s | ETA {eta_formatted}`,
    hideCursor: true,
    etaBuffer: 50,
  });
  let started = 0;
  return {
    start(total) {
      started = performance.now();
      shown.start(Math.max(total, 1), 0, { speed: 0 });
    },
    update(done) {
      shown.update(done, { speed: Math.round(done / ((performance.now() - started) / 1000 || 1)) });
    },
    stop: () => shown.stop(),
  };
}

/** Anywhere else (CI logs, pipes): a plain line at most once a second, and at the end. */
function lines(stream: NodeJS.WritableStream, label: string): Progress {
  let started = 0;
  let lastLine = 0;
  let total = 0;
  return {
    start(count) {
      total = count;
      started = lastLine = performance.now();
    },
    update(done) {
      const now = performance.now();
      if (now - lastLine < 1000 && done < total) return;
      lastLine = now;
      const seconds = (now - started) / 1000;
      const speed = seconds > 0 ? done / seconds : 0;
      const eta = speed > 0 ? Math.ceil((total - done) / speed) : 0;
      const pct = total > 0 ? Math.floor((100 * done) / total) : 100;
      stream.write(
        `${label}: ${done}/${total} events (${pct}%), ${Math.round(speed)} events/s, ETA ${eta}s\n`,
      );
    },
    stop() {},
  };
}

export const progressOn = (stream: NodeJS.WriteStream, label: string): Progress =>
  stream.isTTY ? bar(stream, label) : lines(stream, label);
