/**
 * A stack's container logs from its engine (the Engine API's `GET /containers/{id}/logs`, with
 * timestamps; both streams demultiplexed, log-frames.ts), redacted like every other output (spec,
 * Output redaction; a withheld line is not sent) and cut at MAX_LINE_BYTES like compose output.
 *
 * Several containers (a whole stack) are read in two phases: their logs up to the engine's time at the
 * start, merged by time (a streaming k-way merge: each container's log is in time order), then, when
 * followed, every container's new lines as they come. A followed container that stops and starts again,
 * or is recreated under its name by a deploy, is followed again from where it was left (the engine's
 * container events say when); a whole stack's follow also picks up containers started later.
 */
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { filter, type Observable, type Subscription } from 'rxjs';
import { LineSplitter, MAX_LINE_BYTES } from '../line-splitter.js';
import type { Redactor } from '../types.js';
import type { EngineEvent } from './container-events.js';
import { FrameDemuxer, type StreamName } from './log-frames.js';

export interface LogTarget {
  /** The container's name (what a page shows, and what a recreated container keeps). */
  name: string;
  service: string | null;
}

export interface ContainerLogLine {
  container: string;
  service: string | null;
  stream: StreamName;
  /** The engine's time of the line (RFC 3339, nanoseconds). */
  time: string;
  line: string;
}

export interface LogRequest {
  /** Lines of each container's log before `now` (the last ones), or all of them. */
  tail: number | 'all';
  /** Only lines from then on (Unix seconds). */
  since?: number;
  follow: boolean;
  signal: AbortSignal;
}

/** A sink for lines; a promise it answers holds the reading until it settles (a slow client). */
export type LineSink = (line: ContainerLogLine) => undefined | Promise<void>;

/** Sorts as the time does: RFC 3339 with the fraction padded to nanoseconds (the engine trims zeros). */
export function timeKey(time: string): string {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(time);
  if (!match) return time;
  return `${match[1]}.${(match[2] ?? '').padEnd(9, '0')}Z`;
}

/**
 * A log time as the engine's `since` takes it, to the nanosecond (`1764633147.123456789`); undefined
 * for a time that is none.
 */
export function sinceOf(time: string): string | undefined {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(time);
  if (!match) return undefined;
  const seconds = Date.parse(`${match[1]}Z`) / 1000;
  return Number.isFinite(seconds) ? `${seconds}.${(match[2] ?? '').padEnd(9, '0')}` : undefined;
}

/** A line as the engine sends it with `timestamps`: its time, a space, its text. */
export function splitTimestamp(text: string): { time: string; rest: string; at: number } {
  const space = text.indexOf(' ');
  if (space <= 0 || !/^\d{4}-\d\d-\d\dT/.test(text)) return { time: '', rest: text, at: 0 };
  return { time: text.slice(0, space), rest: text.slice(space + 1), at: space + 1 };
}

/** The engine's log answer as a stream (dockerode buffers a log that is not followed). */
function openLog(
  docker: Docker,
  id: string,
  options: Record<string, string | number | boolean>,
  signal: AbortSignal,
): Promise<Readable> {
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      {
        path: `/containers/${encodeURIComponent(id)}/logs?`,
        method: 'GET',
        options,
        isStream: true,
        abortSignal: signal,
        statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
      },
      (error: unknown, stream: unknown) => (error ? reject(error) : resolve(stream as Readable)),
    );
  });
}

/** The lines of one container's log answer, redacted, in its order. */
async function* linesOf(
  stream: Readable,
  target: LogTarget,
  tty: boolean,
  redactor: Redactor,
): AsyncGenerator<ContainerLogLine> {
  const demuxer = new FrameDemuxer();
  const splitters = {
    stdout: new LineSplitter(MAX_LINE_BYTES, redactor.longestBytes),
    stderr: new LineSplitter(MAX_LINE_BYTES, redactor.longestBytes),
  };
  const shown = function* (from: StreamName, lines: ReturnType<LineSplitter['push']>) {
    for (const split of lines) {
      const { time, rest, at } = splitTimestamp(split.text);
      const line =
        split.cut === undefined
          ? redactor.line(rest)
          : redactor.cut(rest, Math.max(0, split.cut.keep - at), split.cut.marker);
      if (line === null) continue;
      yield { container: target.name, service: target.service, stream: from, time, line };
    }
  };
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      if (tty) yield* shown('stdout', splitters.stdout.push(bytes));
      else
        for (const frame of demuxer.push(bytes))
          yield* shown(frame.stream, splitters[frame.stream].push(frame.payload));
    }
  } catch (error) {
    // Ended by the caller (the client left): nothing more to read.
    if ((error as { name?: string }).name !== 'AbortError') throw error;
  }
  yield* shown('stdout', splitters.stdout.end());
  yield* shown('stderr', splitters.stderr.end());
}

/** Merges logs, each in time order, into one in time order. */
async function* mergeByTime(sources: AsyncGenerator<ContainerLogLine>[]): AsyncGenerator<ContainerLogLine> {
  const heads: Array<{ line: ContainerLogLine; key: string; source: AsyncGenerator<ContainerLogLine> }> = [];
  const advance = async (source: AsyncGenerator<ContainerLogLine>) => {
    const next = await source.next();
    if (!next.done) heads.push({ line: next.value, key: timeKey(next.value.time), source });
  };
  await Promise.all(sources.map(advance));
  while (heads.length > 0) {
    let at = 0;
    for (let i = 1; i < heads.length; i++) if ((heads[i]?.key ?? '') < (heads[at]?.key ?? '')) at = i;
    const [head] = heads.splice(at, 1);
    if (!head) break;
    yield head.line;
    await advance(head.source);
  }
}

/** Whether an event says a container (of this project) started: its log goes on. */
const startedIn = (project: string) => (event: EngineEvent) =>
  event.kind === 'container' &&
  event.project === project &&
  (event.action === 'start' || event.action === 'restart');

export interface ContainerLogsSource {
  docker: Docker;
  project: string;
  /** The engine's container events (container-events.ts), for a follow across restarts. */
  events?: Observable<EngineEvent>;
  redactor: Redactor;
}

/**
 * Reads the logs of `targets` (one container, or a whole stack when `wholeProject`) into `sink`;
 * resolves when done (not followed), or when `request.signal` aborts (followed).
 */
export async function readContainerLogs(
  source: ContainerLogsSource,
  targets: readonly LogTarget[],
  request: LogRequest,
  sink: LineSink,
  wholeProject = false,
): Promise<void> {
  const { docker, redactor, signal } = { ...source, signal: request.signal };
  const info = (await docker.info()) as { SystemTime?: string };
  const parsedNow = Date.parse(info.SystemTime ?? '');
  const now = (Number.isFinite(parsedNow) ? parsedNow : Date.now()) / 1000;
  /**
   * The latest time of each container's lines given, and the lines given at that very time: a later
   * stream of the container starts there (`since`) and repeats those. Times are not kept for every
   * line: a container's log is in the order its lines were written, which is not always their times'
   * (stdout and stderr are timed apart), so no line is dropped for an earlier time than another's.
   */
  const last = new Map<string, { key: string; time: string; atKey: Set<string> }>();
  const ttyOf = new Map<string, boolean>();
  const open = async (target: LogTarget, options: Record<string, string | number | boolean>) => {
    let tty = ttyOf.get(target.name);
    if (tty === undefined) {
      const inspected = await docker.getContainer(target.name).inspect();
      tty = inspected.Config?.Tty === true;
      ttyOf.set(target.name, tty);
    }
    const stream = await openLog(
      docker,
      target.name,
      { stdout: true, stderr: true, timestamps: true, ...options },
      signal,
    );
    return linesOf(stream, target, tty, redactor);
  };
  const give = async (line: ContainerLogLine, again = false) => {
    const key = timeKey(line.time);
    const identity = `${line.stream} ${line.line}`;
    const before = last.get(line.container);
    // A stream from `since` repeats the lines given at that time.
    if (again && before !== undefined && key === before.key && before.atKey.delete(identity)) return;
    if (before === undefined || key > before.key)
      last.set(line.container, { key, time: line.time, atKey: new Set([identity]) });
    else if (key === before.key) before.atKey.add(identity);
    const wait = sink(line);
    if (wait) await wait;
  };

  // Up to now: each container's last lines, merged by time.
  const history = await Promise.all(
    targets.map((target) =>
      open(target, {
        until: now,
        ...(request.tail === 'all' ? {} : { tail: request.tail }),
        ...(request.since !== undefined ? { since: request.since } : {}),
      }).catch((error: unknown) => {
        // Removed since it was listed: it has nothing to read.
        if ((error as { statusCode?: number }).statusCode === 404) return undefined;
        throw error;
      }),
    ),
  );
  for await (const line of mergeByTime(history.filter((h) => h !== undefined))) {
    if (signal.aborted) return;
    await give(line);
  }
  if (!request.follow || signal.aborted) return;

  // From now on, as lines come: every container, each again when it starts again.
  const following = new Set<string>();
  /** Started again while their last stream had not ended yet: followed again once it has. */
  const restarted = new Set<string>();
  const known = new Map(targets.map((t) => [t.name, t]));
  let failure: unknown;
  let wake: (() => void) | undefined;
  const followOne = (target: LogTarget) => {
    if (following.has(target.name) || signal.aborted) return;
    following.add(target.name);
    const before = last.get(target.name);
    // From the time of the last line given (`give` drops what was given at it), else from now.
    const from = (before && sinceOf(before.time)) ?? now;
    void (async () => {
      try {
        ttyOf.delete(target.name);
        for await (const line of await open(target, { follow: true, since: from })) {
          if (signal.aborted) return;
          await give(line, true);
        }
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 404 && !signal.aborted) {
          failure = error;
          wake?.();
        }
      } finally {
        following.delete(target.name);
        if (restarted.delete(target.name)) followOne(target);
      }
    })();
  };
  let subscription: Subscription | undefined;
  if (source.events)
    subscription = source.events.pipe(filter(startedIn(source.project))).subscribe((event) => {
      if (event.kind !== 'container') return;
      const target =
        known.get(event.container) ??
        (wholeProject ? { name: event.container, service: event.service } : undefined);
      if (!target) return;
      known.set(target.name, target);
      if (following.has(target.name)) restarted.add(target.name);
      else followOne(target);
    });
  try {
    for (const target of targets) followOne(target);
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    if (failure !== undefined && !signal.aborted) throw failure;
  } finally {
    subscription?.unsubscribe();
  }
}
