/**
 * What happens to compose containers on each engine, as it happens: the Engine API's event stream
 * (`GET /events`, filtered to containers with the `com.docker.compose.project` label), one subscription
 * per engine however many pages listen, opened with the first listener and closed after the last. A
 * stream that ends or fails is opened again (after RETRY_MIN_MS, doubling to RETRY_MAX_MS) from the
 * time of the last event seen (`since`), so what happened meanwhile is replayed; the listeners are told
 * the engine went away and came back, as their view may have missed something either way.
 *
 * This is the engine's live state, outside the event log (as stack/status.ts): nothing is recorded.
 */
import type Docker from 'dockerode';
import { merge, Observable, share } from 'rxjs';
import type { Engine, Engines } from './engines.js';

export const PROJECT_LABEL = 'com.docker.compose.project';
export const SERVICE_LABEL = 'com.docker.compose.service';
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

/**
 * The container actions that change what a page shows. Exec, attach, resize, top, copy and the like do
 * not (and a console open on a container would send one per command).
 */
const SHOWN_ACTIONS = new Set([
  'create',
  'start',
  'restart',
  'stop',
  'die',
  'kill',
  'oom',
  'pause',
  'unpause',
  'destroy',
  'rename',
  'update',
]);

export type EngineEvent =
  | {
      kind: 'container';
      /** The engine's key (engines.ts). */
      engine: string;
      project: string;
      service: string | null;
      /** The container's name. */
      container: string;
      /** The engine's action (`start`, `die`, …); a health change is `health_status: healthy` and the like. */
      action: string;
      /** The exit code a `die` reports; null otherwise. */
      exitCode: number | null;
      /** The engine's time of the event. */
      at: string;
    }
  | {
      kind: 'engine';
      engine: string;
      /** True when the stream (re)opened, false when it ended or could not be opened. */
      connected: boolean;
      reason: string | null;
    };

const attributesOf = (value: unknown): Record<string, string> => {
  if (value === null || typeof value !== 'object') return {};
  const actor = (value as { Actor?: unknown }).Actor;
  if (actor === null || typeof actor !== 'object') return {};
  const attributes = (actor as { Attributes?: unknown }).Attributes;
  if (attributes === null || typeof attributes !== 'object') return {};
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(attributes)) if (typeof v === 'string') out[k] = v;
  return out;
};

/** One event of the engine's stream as a container event, or undefined for one no page shows. */
export function containerEventOf(
  raw: unknown,
  engine: string,
): Extract<EngineEvent, { kind: 'container' }> | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const event = raw as { Type?: unknown; Action?: unknown; time?: unknown; timeNano?: unknown };
  if (event.Type !== 'container' || typeof event.Action !== 'string') return undefined;
  const action = event.Action;
  if (!SHOWN_ACTIONS.has(action) && !action.startsWith('health_status')) return undefined;
  const attributes = attributesOf(raw);
  const project = attributes[PROJECT_LABEL];
  if (project === undefined) return undefined;
  const code = Number(attributes.exitCode);
  const nanos = typeof event.timeNano === 'number' ? event.timeNano : undefined;
  const seconds = typeof event.time === 'number' ? event.time : Date.now() / 1000;
  return {
    kind: 'container',
    engine,
    project,
    service: attributes[SERVICE_LABEL] ?? null,
    container: attributes.name ?? '',
    action,
    exitCode: action === 'die' && attributes.exitCode !== undefined && Number.isInteger(code) ? code : null,
    at: new Date(nanos !== undefined ? nanos / 1e6 : seconds * 1000).toISOString(),
  };
}

/**
 * Splits the engine's stream (JSON objects, one per line; a chunk may end inside one) into the parsed
 * objects. A line that is no JSON is skipped.
 */
export class JsonLines {
  private rest = '';

  push(chunk: string): unknown[] {
    const text = this.rest + chunk;
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    const out: unknown[] = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        // Not an event (a proxy's banner, say): nothing to show.
      }
    }
    return out;
  }
}

/** The events of one engine, followed and reopened until unsubscribed. */
function follow(engine: Engine, retry: { minMs: number; maxMs: number }): Observable<EngineEvent> {
  return new Observable<EngineEvent>((subscriber) => {
    let closed = false;
    let controller: AbortController | undefined;
    let timer: NodeJS.Timeout | undefined;
    let stream: NodeJS.ReadableStream | undefined;
    /** Unix seconds of the last event seen: a reopened stream replays from there. */
    let since: number | undefined;
    /** Events at exactly `since`, which a replay sends again. */
    let seenAtSince = new Set<string>();
    let delay = retry.minMs;
    let connected: boolean | undefined;
    const tell = (up: boolean, reason: string | null) => {
      if (connected === up) return;
      connected = up;
      subscriber.next({ kind: 'engine', engine: engine.key, connected: up, reason });
    };
    const again = (reason: string) => {
      stream = undefined;
      if (closed) return;
      tell(false, reason);
      timer = setTimeout(open, delay);
      delay = Math.min(retry.maxMs, delay * 2);
    };
    const open = () => {
      if (closed) return;
      if (!engine.docker) {
        tell(false, engine.error ?? 'no engine');
        return;
      }
      controller = new AbortController();
      const docker: Docker = engine.docker;
      const opened = docker.getEvents({
        filters: { type: ['container'], label: [PROJECT_LABEL] },
        ...(since !== undefined ? { since } : {}),
        abortSignal: controller.signal,
      } as Docker.GetEventsOptions);
      opened.then(
        (events) => {
          if (closed) {
            (events as unknown as { destroy?: () => void }).destroy?.();
            return;
          }
          stream = events;
          delay = retry.minMs;
          tell(true, null);
          const lines = new JsonLines();
          let ended = false;
          const end = (reason: string) => {
            if (ended) return;
            ended = true;
            again(reason);
          };
          events.on('data', (chunk: Buffer | string) => {
            for (const raw of lines.push(chunk.toString())) {
              const time = (raw as { time?: unknown }).time;
              const key = JSON.stringify([
                (raw as { timeNano?: unknown }).timeNano,
                (raw as { id?: unknown }).id,
                (raw as { Action?: unknown }).Action,
              ]);
              if (typeof time === 'number') {
                if (since !== undefined && time < since) continue;
                if (time === since && seenAtSince.has(key)) continue;
                if (time !== since) seenAtSince = new Set();
                since = time;
                seenAtSince.add(key);
              }
              const event = containerEventOf(raw, engine.key);
              if (event) subscriber.next(event);
            }
          });
          events.on('end', () => end(`The Docker engine (${engine.where}) ended its event stream`));
          events.on('error', (error: Error) =>
            end(`The Docker engine (${engine.where}) event stream failed: ${error.message}`),
          );
          events.on('close', () => end(`The Docker engine (${engine.where}) closed its event stream`));
        },
        (error: Error) => {
          if (!closed) again(`The Docker engine (${engine.where}) cannot be reached: ${error.message}`);
        },
      );
    };
    open();
    return () => {
      closed = true;
      clearTimeout(timer);
      controller?.abort();
      (stream as unknown as { destroy?: () => void } | undefined)?.destroy?.();
    };
  });
}

export class ContainerEvents {
  private readonly shared = new Map<string, Observable<EngineEvent>>();

  constructor(
    private readonly engines: Engines,
    private readonly retry = { minMs: RETRY_MIN_MS, maxMs: RETRY_MAX_MS },
  ) {}

  /** One engine's events, shared by every subscriber (one stream to the engine). */
  of(engine: Engine): Observable<EngineEvent> {
    let events = this.shared.get(engine.key);
    if (!events) {
      events = follow(engine, this.retry).pipe(share({ resetOnRefCountZero: true }));
      this.shared.set(engine.key, events);
    }
    return events;
  }

  /** The events of every configured engine. */
  all(): Observable<EngineEvent> {
    return merge(...this.engines.all().map(({ engine }) => this.of(engine)));
  }
}
