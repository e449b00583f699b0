import { concatMap, filter, merge, mergeMap, type Observable } from 'rxjs';
import type { z } from 'zod';
import {
  type EnvironmentId,
  EXECUTION_STREAM_PREFIX,
  JOB_STREAM_PREFIX,
  RUN_STREAM_PREFIX,
  SETTINGS_STREAM,
} from '../../../../streams/stacks.js';
import { checkEnvAccess } from '../../../stacks/access/auth.js';
import type { ContainerEvents, EngineEvent } from '../../../stacks/engine/container-events.js';
import type { Engines } from '../../../stacks/engine/engines.js';
import { stackExists } from '../../../stacks/stack/store.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import type { RecordedEvent } from '../../../store/types.js';
import { EventStream, streamObserver } from '../../sse/event-stream.js';
import { holdStream } from '../../sse/stream-budget.js';
import type { Change as ChangeSchema } from '../api/answers.js';
import { stacksRoutes as routes } from '../api/routes.js';
import type { StacksFastify } from '../openapi.js';
import { userOf } from '../request.js';

/**
 * GET /api/events: one server-sent event per change of a run, job or stack the caller may view (and
 * of the settings and schedule executions, which every user may read), so the web page's lists update
 * without a reload. Changes of the stacks' containers on their engines come from the engines' own event
 * streams (engine/container-events.ts), merged in; they are not in the log. Each event's data is a JSON `Change`; the page re-reads what it shows. Job output
 * lines are not changes (GET /api/jobs/{id}/events streams them). Live only: no replay, no resume.
 * Its schema, and Change's: api/routes.ts (`changeEvents`), api/answers.ts (`Change`).
 */

/** What each event's data is: its schema is the document's (api/answers.ts), so the two cannot drift. */
export type Change = z.output<typeof ChangeSchema>;

/** Where a job or run belongs, learnt from its first event (the stream's other events name only the id). */
export interface Place {
  stack: string;
  environmentId: EnvironmentId;
  runId?: number | null;
}

const OUTPUT_EVENTS = new Set(['JobOutput', 'JobOutputSealed']);
const STACK_STREAM = /^stack-(local|-?[0-9]+)-(.+)$/;

const str = (data: Record<string, unknown>, key: string) =>
  Object.hasOwn(data, key) && typeof data[key] === 'string' ? (data[key] as string) : undefined;
const envIn = (data: Record<string, unknown>): EnvironmentId | undefined => {
  if (!Object.hasOwn(data, 'environment_id')) return undefined;
  const value = data.environment_id;
  return value === null || typeof value === 'number' ? value : undefined;
};

/**
 * The change an event stands for, or undefined (output lines, key streams, other surfaces' events).
 * Pure but for `places`, which remembers the place of each job and run seen starting.
 */
export function changeOf(
  event: RecordedEvent,
  places: { job(id: string): Place | undefined; run(id: number): Place | undefined },
): Change | undefined {
  const data = (event.data ?? {}) as Record<string, unknown>;
  if (event.stream.startsWith(JOB_STREAM_PREFIX)) {
    if (OUTPUT_EVENTS.has(event.type)) return undefined;
    const jobId = event.stream.slice(JOB_STREAM_PREFIX.length);
    const place = places.job(jobId);
    if (!place) return undefined;
    return { kind: 'job', type: event.type, jobId, ...place, runId: place.runId ?? null };
  }
  if (event.stream.startsWith(RUN_STREAM_PREFIX)) {
    const runId = Number(event.stream.slice(RUN_STREAM_PREFIX.length));
    const place = places.run(runId);
    if (!place || !Number.isSafeInteger(runId)) return undefined;
    return { kind: 'run', type: event.type, runId, stack: place.stack, environmentId: place.environmentId };
  }
  if (event.stream === SETTINGS_STREAM) return { kind: 'settings', type: event.type };
  if (event.stream.startsWith(EXECUTION_STREAM_PREFIX)) return { kind: 'schedule', type: event.type };
  const stack = STACK_STREAM.exec(event.stream);
  if (stack) {
    const name = str(data, 'stack') ?? stack[2] ?? '';
    const env = envIn(data) ?? (stack[1] === 'local' ? null : Number(stack[1]));
    return { kind: 'stack', type: event.type, stack: name, environmentId: env };
  }
  return undefined;
}

/** Bytes a slow client may have waiting before its feed is ended (it reconnects and re-reads). */
const MAX_BACKLOG = 1024 * 1024;
/** Places remembered; the oldest are forgotten past it (their streams have long ended). */
const MAX_PLACES = 10_000;

/** The Docker engines' container events, when the server follows them (stacks/app.ts). */
export interface EngineFeed {
  engines: Engines;
  events: ContainerEvents;
}

/**
 * The changes an engine event stands for: one per environment on that engine whose stack of that
 * name chronicle manages (a container event), or one per environment on it (the engine came or went).
 */
export async function engineChangesOf(
  event: EngineEvent,
  engines: Engines,
  managed: (stack: string, environmentId: EnvironmentId) => Promise<boolean>,
): Promise<Change[]> {
  const environments = engines.all().find((e) => e.engine.key === event.engine)?.environments ?? [];
  if (event.kind === 'engine')
    return environments.map((environmentId) => ({
      kind: 'engine' as const,
      type: event.connected ? ('connected' as const) : ('disconnected' as const),
      environmentId,
      reason: event.reason,
    }));
  const out: Change[] = [];
  for (const environmentId of environments) {
    if (!(await managed(event.project, environmentId))) continue;
    out.push({
      kind: 'container',
      type: event.action,
      stack: event.project,
      environmentId,
      container: event.container,
      service: event.service,
      exitCode: event.exitCode,
      at: event.at,
    });
  }
  return out;
}

export function changeRoutes(app: StacksFastify, service: StacksService, engine?: EngineFeed): void {
  const jobs = new Map<string, Place>();
  const runs = new Map<number, Place>();
  const remember = <K>(map: Map<K, Place>, key: K, place: Place) => {
    if (map.size >= MAX_PLACES) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
    map.set(key, place);
  };
  const places = {
    job: (id: string): Place | undefined => {
      const known = jobs.get(id);
      if (known) return known;
      const info = service.jobs.info(id);
      return info ? { stack: info.stack, environmentId: info.environmentId, runId: info.runId } : undefined;
    },
    run: (id: number): Place | undefined => {
      const known = runs.get(id);
      if (known) return known;
      const run = service.runs.get(id);
      return run ? { stack: run.stack, environmentId: run.environmentId } : undefined;
    },
  };
  /** Learns places from start events, before any route asks. */
  const learn = (event: RecordedEvent) => {
    const data = (event.data ?? {}) as Record<string, unknown>;
    const stack = str(data, 'stack');
    const env = envIn(data);
    if (stack === undefined || env === undefined) return;
    if (event.type === 'JobStarted') {
      const runId = typeof data.run_id === 'number' ? data.run_id : null;
      remember(jobs, event.stream.slice(JOB_STREAM_PREFIX.length), { stack, environmentId: env, runId });
    } else if (event.type === 'RunStarted' && typeof data.run_id === 'number')
      remember(runs, data.run_id, { stack, environmentId: env });
  };

  app.route({
    ...routes.changeEvents,
    handler: async (request, reply) => {
      const user = userOf(request);
      const mayView = (change: Change) =>
        !('environmentId' in change) || checkEnvAccess(user, 'view', change.environmentId).ok;
      holdStream(request, reply);
      const stream = new EventStream(reply);
      // A comment first, so the client knows the feed is open before any change.
      stream.write(': changes\n\n');
      const logged: Observable<Change> = service.store.subscribe({ from: 'end', bufferSize: 10_000 }).pipe(
        mergeMap((event: RecordedEvent) => {
          learn(event);
          const change = changeOf(event, places);
          return change ? [change] : [];
        }),
      );
      const managed = (stack: string, environmentId: EnvironmentId) =>
        // A project whose name is no stack name is none of chronicle's.
        stackExists(service.dataDir, { name: stack, environmentId }).catch(() => false);
      const live: Observable<Change> = engine
        ? engine.events.all().pipe(
            // In the engine's order: each event's changes before the next event's.
            concatMap((event) => engineChangesOf(event, engine.engines, managed)),
            mergeMap((changes) => changes),
          )
        : merge();
      const subscription = merge(logged, live)
        .pipe(filter(mayView))
        .subscribe(
          streamObserver(stream, 'stacks: change events', {
            next: (change: Change) => {
              stream.send(JSON.stringify(change));
              if (reply.raw.writableLength > MAX_BACKLOG) stream.end();
            },
          }),
        );
      stream.onClose(() => subscription.unsubscribe());
      return reply;
    },
  });
}
