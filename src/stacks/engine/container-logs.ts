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
import { LineSplitter, MAX_LINE_BYTES } from '../compose/line-splitter.js';
import type { Redactor } from '../contracts.js';
import { chunkBatches } from './chunk-batches.js';
import type { EngineEvent } from './container-events.js';
import { FrameDemuxer, type StreamName } from './log-frames.js';

export interface LogTarget {
  /** The container's name (what a page shows, and what a recreated container keeps). */
  name: string;
  service: string | null;
  /** Whether it has a TTY (its log is not multiplexed), when the caller inspected it already. */
  tty?: boolean;
}

export interface ContainerLogLine {
  container: string;
  service: string | null;
  stream: StreamName;
  /** The engine's time of the line (RFC 3339, nanoseconds). */
  time: string;
  line: string;
}

interface LogRequest {
  /** Lines of each container's log before `now` (the last ones), or all of them. */
  tail: number | 'all';
  /** Only lines from then on (Unix seconds). */
  since?: number;
  follow: boolean;
  signal: AbortSignal;
}

/**
 * A sink for lines, given in batches (the lines of one chunk of the engine's answer, in order: a
 * 100,000-line log is a few hundred batches, not 100,000 turns); a promise it answers holds the reading
 * until it settles (a slow client).
 */
type LineSink = (lines: readonly ContainerLogLine[]) => undefined | Promise<void>;

/** Sorts as the time does: RFC 3339 with the fraction padded to nanoseconds (the engine trims zeros). */
export function timeKey(time: string): string {
  // The engine's usual spelling, all nine digits: already its own key (most lines; no regexp per line).
  if (time.length === 30 && time.charCodeAt(19) === 46 && time.charCodeAt(29) === 90) return time;
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

/** The lines of one container's log answer, redacted, in its order: a batch per batch of chunks read. */
async function* linesOf(
  stream: Readable,
  target: LogTarget,
  tty: boolean,
  redactor: Redactor,
): AsyncGenerator<ContainerLogLine[]> {
  const demuxer = new FrameDemuxer();
  const splitters = {
    stdout: new LineSplitter(MAX_LINE_BYTES, redactor.longestBytes),
    stderr: new LineSplitter(MAX_LINE_BYTES, redactor.longestBytes),
  };
  const shown = (into: ContainerLogLine[], from: StreamName, lines: ReturnType<LineSplitter['push']>) => {
    for (const split of lines) {
      const { time, rest, at } = splitTimestamp(split.text);
      const line =
        split.cut === undefined
          ? redactor.line(rest)
          : redactor.cut(rest, Math.max(0, split.cut.keep - at), split.cut.marker);
      if (line === null) continue;
      into.push({ container: target.name, service: target.service, stream: from, time, line });
    }
    return into;
  };
  try {
    for await (const chunks of chunkBatches(stream)) {
      const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const batch: ContainerLogLine[] = [];
      if (tty) shown(batch, 'stdout', splitters.stdout.push(bytes));
      else
        for (const frame of demuxer.push(bytes))
          shown(batch, frame.stream, splitters[frame.stream].push(frame.payload));
      if (batch.length > 0) yield batch;
    }
  } catch (error) {
    // Ended by the caller (the client left): nothing more to read.
    if ((error as { name?: string }).name !== 'AbortError') throw error;
  }
  const last = shown(shown([], 'stdout', splitters.stdout.end()), 'stderr', splitters.stderr.end());
  if (last.length > 0) yield last;
}

/**
 * Merges logs, each in time order, into one in time order, in batches: the lines taken while every
 * source still has some at hand go out together. One source is passed through as it is.
 */
async function* mergeByTime(
  sources: AsyncGenerator<ContainerLogLine[]>[],
): AsyncGenerator<ContainerLogLine[]> {
  if (sources.length === 1 && sources[0]) {
    yield* sources[0];
    return;
  }
  interface Head {
    batch: ContainerLogLine[];
    at: number;
    key: string;
    source: AsyncGenerator<ContainerLogLine[]>;
  }
  const heads: Head[] = [];
  /** Reads the next non-empty batch of a source into the heads; a source that ended drops out. */
  const advance = async (source: AsyncGenerator<ContainerLogLine[]>) => {
    for (;;) {
      const next = await source.next();
      if (next.done) return;
      const [first] = next.value;
      if (first) {
        heads.push({ batch: next.value, at: 0, key: timeKey(first.time), source });
        return;
      }
    }
  };
  await Promise.all(sources.map(advance));
  while (heads.length > 0) {
    const out: ContainerLogLine[] = [];
    let spent: Head | undefined;
    while (spent === undefined) {
      let at = 0;
      for (let i = 1; i < heads.length; i++) if ((heads[i] as Head).key < (heads[at] as Head).key) at = i;
      const head = heads[at] as Head;
      out.push(head.batch[head.at] as ContainerLogLine);
      head.at += 1;
      const next = head.batch[head.at];
      if (next) head.key = timeKey(next.time);
      else {
        heads.splice(at, 1);
        spent = head;
      }
    }
    yield out;
    await advance(spent.source);
  }
}

/** The latest time of a container's lines given (see `readContainerLogs`), and the lines at it. */
interface Given {
  key: string;
  time: string;
  lines: ContainerLogLine[];
  /** `stream line` of `lines` and those added since, once a repeat was looked for. */
  seen: Set<string> | undefined;
}

const identityOf = (line: ContainerLogLine) => `${line.stream} ${line.line}`;

/** Whether an event says a container (of this project) started: its log goes on. */
const startedIn = (project: string) => (event: EngineEvent) =>
  event.kind === 'container' &&
  event.project === project &&
  (event.action === 'start' || event.action === 'restart');

interface ContainerLogsSource {
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
  /**
   * One container followed is one stream of the engine, its last lines then the new ones: nothing to
   * merge, so no split at the engine's time (and no round trip to ask for it before the first line).
   */
  const single = request.follow && !wholeProject && targets.length === 1;
  // The engine's clock decides what was before the request; asked beside the containers' inspections
  // (of one followed container only when a follow must start from it, see `followOne`).
  let asked: Promise<number> | undefined;
  const engineTime = () => {
    asked ??= docker.info().then((info: { SystemTime?: string }) => {
      const parsed = Date.parse(info.SystemTime ?? '');
      return (Number.isFinite(parsed) ? parsed : Date.now()) / 1000;
    });
    // Not awaited by a read that fails before it: its rejection is that read's, never unhandled.
    asked.catch(() => undefined);
    return asked;
  };
  if (!single) void engineTime();
  /**
   * The latest time of each container's lines given, and the lines given at that very time: a later
   * stream of the container starts there (`since`) and repeats those. Times are not kept for every
   * line: a container's log is in the order its lines were written, which is not always their times'
   * (stdout and stderr are timed apart), so no line is dropped for an earlier time than another's.
   * The lines at the latest time become a set of `stream line` only when a repeat is looked for.
   */
  const last = new Map<string, Given>();
  const ttyOf = new Map<string, boolean>();
  for (const target of targets) if (target.tty !== undefined) ttyOf.set(target.name, target.tty);
  const ttyFor = async (target: LogTarget) => {
    let tty = ttyOf.get(target.name);
    if (tty === undefined) {
      const inspected = await docker.getContainer(target.name).inspect();
      tty = inspected.Config?.Tty === true;
      ttyOf.set(target.name, tty);
    }
    return tty;
  };
  const open = async (target: LogTarget, options: Record<string, string | number | boolean>) => {
    const tty = await ttyFor(target);
    const stream = await openLog(
      docker,
      target.name,
      { stdout: true, stderr: true, timestamps: true, ...options },
      signal,
    );
    return linesOf(stream, target, tty, redactor);
  };
  /** Whether a line is given: false for one a stream from `since` repeats (given at that time already). */
  const keep = (line: ContainerLogLine, again: boolean): boolean => {
    const key = timeKey(line.time);
    const before = last.get(line.container);
    if (before === undefined) {
      last.set(line.container, { key, time: line.time, lines: [line], seen: undefined });
      return true;
    }
    if (key > before.key) {
      before.key = key;
      before.time = line.time;
      before.lines = [line];
      before.seen = undefined;
      return true;
    }
    if (key !== before.key) return true;
    if (again) {
      before.seen ??= new Set(before.lines.map(identityOf));
      if (before.seen.delete(identityOf(line))) return false;
    }
    if (before.seen) before.seen.add(identityOf(line));
    else before.lines.push(line);
    return true;
  };
  const give = async (lines: readonly ContainerLogLine[], again = false) => {
    let kept: readonly ContainerLogLine[] = lines;
    if (again) kept = lines.filter((line) => keep(line, true));
    else for (const line of lines) keep(line, false);
    if (kept.length === 0) return;
    const wait = sink(kept);
    if (wait) await wait;
  };

  // Up to now: each container's last lines, merged by time.
  const history = await Promise.all(
    (single ? [] : targets).map(async (target) => {
      const [, now] = await Promise.all([ttyFor(target), engineTime()]);
      return open(target, {
        until: now,
        ...(request.tail === 'all' ? {} : { tail: request.tail }),
        ...(request.since !== undefined ? { since: request.since } : {}),
      }).catch((error: unknown) => {
        // Removed since it was listed: it has nothing to read.
        if ((error as { statusCode?: number }).statusCode === 404) return undefined;
        throw error;
      });
    }),
  );
  for await (const batch of mergeByTime(history.filter((h) => h !== undefined))) {
    if (signal.aborted) return;
    await give(batch);
  }
  if (!request.follow || signal.aborted) return;

  // From now on, as lines come: every container, each again when it starts again.
  const following = new Set<string>();
  /** Started again while their last stream had not ended yet: followed again once it has. */
  const restarted = new Set<string>();
  const known = new Map(targets.map((t) => [t.name, t]));
  let failure: unknown;
  let wake: (() => void) | undefined;
  /** `first`: the single stream of one container, from its last lines (`request.tail`, `since`) on. */
  const followOne = (target: LogTarget, first = false) => {
    if (following.has(target.name) || signal.aborted) return;
    following.add(target.name);
    void (async () => {
      try {
        let options: Record<string, string | number | boolean>;
        if (first)
          options = {
            ...(request.tail === 'all' ? {} : { tail: request.tail }),
            ...(request.since !== undefined ? { since: request.since } : {}),
          };
        else {
          const before = last.get(target.name);
          // From the time of the last line given (`give` drops what was given at it), else from now.
          options = { since: (before && sinceOf(before.time)) ?? (await engineTime()) };
          ttyOf.delete(target.name);
        }
        for await (const batch of await open(target, { follow: true, ...options })) {
          if (signal.aborted) return;
          await give(batch, !first);
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
    for (const target of targets) followOne(target, single);
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
