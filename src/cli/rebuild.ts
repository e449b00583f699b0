import { connect } from 'node:net';
import { SingleBar } from 'cli-progress';
import { type AnyProjection, persists } from '../../projections/projection.js';
import { type RebuildProgress, rebuildProjection } from '../../projections/rebuild.js';
import type { ControlMessage, ControlRequest } from '../control/protocol.js';
import type { EventStore } from '../store/types.js';

interface Reporter {
  start(name: string, total: number): void;
  update(p: RebuildProgress): void;
  checkpoint(name: string, position: number): void;
  stop(): void;
}

/** Progress on a terminal: a bar with done/total, events/s and ETA, redrawn in place. */
function barReporter(stream: NodeJS.WriteStream): Reporter {
  const bar = new SingleBar({
    stream,
    format: '{projection} [{bar}] {value}/{total} events | {speed} events/s | ETA {eta_formatted}',
    hideCursor: true,
    etaBuffer: 50,
  });
  let started = 0;
  let first = 0;
  return {
    start(name: string, total: number) {
      started = performance.now();
      first = -1;
      bar.start(Math.max(total, 1), 0, { projection: name, speed: 0 });
    },
    update(p: RebuildProgress) {
      // After a resume, the speed is of this run's events, not of the checkpoint's.
      if (first < 0) first = p.done;
      const speed = Math.round((p.done - first) / ((performance.now() - started) / 1000 || 1));
      bar.setTotal(Math.max(p.total, 1));
      bar.update(p.done, { speed });
    },
    checkpoint() {},
    stop: () => bar.stop(),
  };
}

/** Progress anywhere else (CI logs, pipes): a plain line at most once a second, and at the end. */
function lineReporter(stream: NodeJS.WritableStream): Reporter {
  let started = 0;
  let lastLine = 0;
  let first = -1;
  return {
    start(_name: string, _total: number) {
      started = lastLine = performance.now();
      first = -1;
    },
    update(p: RebuildProgress) {
      if (first < 0) first = p.done;
      const now = performance.now();
      if (now - lastLine < 1000 && p.done < p.total) return;
      lastLine = now;
      const seconds = (now - started) / 1000;
      const speed = seconds > 0 ? (p.done - first) / seconds : 0;
      const eta = speed > 0 ? Math.ceil((p.total - p.done) / speed) : 0;
      const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
      stream.write(
        `rebuild ${p.projection}: ${p.done}/${p.total} events (${pct}%), ${Math.round(speed)} events/s, ETA ${eta}s\n`,
      );
    },
    checkpoint(name: string, position: number) {
      stream.write(`rebuild ${name}: checkpoint saved at position ${position}\n`);
    },
    stop() {},
  };
}

const reporterFor = (err: NodeJS.WriteStream) => (err.isTTY ? barReporter(err) : lineReporter(err));

interface Outcome {
  name: string;
  events: number;
  seconds: number;
  position: number;
  persisted: boolean;
  blueGreen: boolean;
  detail?: string | undefined;
}

/** The one stdout line of a rebuilt projection. */
function resultLine(o: Outcome): string {
  const rate = o.seconds > 0 ? Math.round(o.events / o.seconds) : o.events;
  const how = o.blueGreen ? 'rebuilt blue-green' : o.persisted ? 'rebuilt' : 'replayed';
  const where = o.detail ?? `checkpoint ${o.position}`;
  const memory = o.persisted || o.blueGreen ? '' : ' (kept in memory by its server: no snapshot)';
  return `${o.name}: ${how} from ${o.events} events in ${o.seconds.toFixed(2)} s (${rate} events/s), ${where}${memory}\n`;
}

const resumeLine = (name: string, position: number) =>
  `${name}: resuming from the checkpoint at position ${position}\n`;

/**
 * Replays the log into each projection and replaces its snapshot, in this process (the store is
 * free): from a checkpoint an interrupted rebuild left, saving new ones every `checkpointEvery` events.
 */
export async function rebuildAll(
  store: EventStore,
  selected: readonly AnyProjection[],
  out: NodeJS.WritableStream,
  err: NodeJS.WriteStream,
  options: { checkpointEvery?: number } = {},
): Promise<void> {
  const total = await store.headPosition();
  for (const projection of selected) {
    const reporter = reporterFor(err);
    reporter.start(projection.name, total);
    let result: Awaited<ReturnType<typeof rebuildProjection>>;
    try {
      result = await rebuildProjection(store, projection, (p) => reporter.update(p), 10_000, {
        ...options,
        onResume: (position) => out.write(resumeLine(projection.name, position)),
        onCheckpoint: (position) => reporter.checkpoint(projection.name, position),
      });
    } finally {
      reporter.stop();
    }
    out.write(
      resultLine({
        name: projection.name,
        events: result.events,
        seconds: result.seconds,
        position: result.position,
        persisted: persists(projection),
        blueGreen: false,
      }),
    );
  }
}

/**
 * Asks the server listening on the control socket `path` to rebuild (blue-green for what it serves),
 * showing its progress as a local rebuild would. Undefined when no server answers there (no socket, or
 * one a killed server left): the caller rebuilds in this process. Otherwise the exit status: 0, or 1
 * with the server's error on standard error.
 */
export function rebuildThroughServer(
  path: string,
  request: ControlRequest,
  out: NodeJS.WritableStream,
  err: NodeJS.WriteStream,
): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let connected = false;
    let settled = false;
    let reporter: Reporter | undefined;
    let buffered = '';
    const end = (code: number | undefined) => {
      if (settled) return;
      settled = true;
      reporter?.stop();
      socket.destroy();
      resolve(code);
    };
    const handle = (message: ControlMessage) => {
      switch (message.type) {
        case 'start':
          reporter?.stop();
          reporter = reporterFor(err);
          reporter.start(message.projection, message.total);
          return;
        case 'resumed':
          out.write(resumeLine(message.projection, message.position));
          return;
        case 'progress':
          reporter?.update(message.progress);
          return;
        case 'checkpoint':
          reporter?.checkpoint(message.projection, message.position);
          return;
        case 'result':
          reporter?.stop();
          reporter = undefined;
          out.write(
            resultLine({
              name: message.projection,
              events: message.events,
              seconds: message.seconds,
              position: message.position,
              persisted: message.persisted,
              blueGreen: message.mode === 'blue-green',
              detail: message.detail,
            }),
          );
          return;
        case 'error':
          reporter?.stop();
          reporter = undefined;
          err.write(`chronicle rebuild: the server on ${path} answered: ${message.message}\n`);
          end(1);
          return;
        case 'done':
          end(0);
      }
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      out.write(
        `rebuilding on the running server (${path}); it keeps answering until each new read model is swapped in\n`,
      );
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        if (line.trim() !== '') handle(JSON.parse(line) as ControlMessage);
      }
    });
    socket.on('error', (error) => {
      if (!connected) end(undefined);
      else {
        err.write(`chronicle rebuild: lost the server on ${path}: ${error.message}\n`);
        end(1);
      }
    });
    socket.on('close', () => {
      if (!connected) end(undefined);
      else if (!settled) {
        err.write(`chronicle rebuild: the server on ${path} closed the connection before the end\n`);
        end(1);
      }
    });
  });
}
