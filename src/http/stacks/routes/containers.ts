import type Docker from 'dockerode';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnvironmentId } from '../../../../streams/stacks.js';
import { checkEnvAccess } from '../../../stacks/access/auth.js';
import type { Redactor } from '../../../stacks/contracts.js';
import { PROJECT_LABEL, SERVICE_LABEL } from '../../../stacks/engine/container-events.js';
import {
  type ContainerLogLine,
  type LogTarget,
  readContainerLogs,
} from '../../../stacks/engine/container-logs.js';
import { followStats } from '../../../stacks/engine/container-stats.js';
import type { Engine } from '../../../stacks/engine/engines.js';
import { StacksError } from '../../../stacks/errors.js';
import type { StackStatusReader } from '../../../stacks/stack/status.js';
import type { Stack } from '../../../stacks/stack/store.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import type { EndingStreams } from '../../sse/ending-streams.js';
import { EventStream } from '../../sse/event-stream.js';
import { holdStream } from '../../sse/stream-budget.js';
import { engineSchemas as routes } from '../api/engine-routes.js';
import type { StacksFastify } from '../openapi.js';
import { allow, userOf } from '../request.js';
import type { EngineFeed } from './events.js';

/**
 * The routes of a stack's containers on its engine (api/engine-routes.ts): their state, and
 * their logs (engine/container-logs.ts), `view` on the stack's environment. A container is the stack's
 * when its `com.docker.compose.project` label names the stack: any other is 404, as one that does not
 * exist, so a caller learns nothing of the engine's other containers.
 */

const CONTAINER_NOT_FOUND = 'Container not found';

/** The engine's failure as the caller sees it: 502, with the engine's reason (never a stack value). */
export const engineFailure = (engine: Engine, error: unknown) =>
  new StacksError('engine_failed', `The Docker engine (${engine.where}) failed: ${(error as Error).message}`);

/** A reply that writes lines as `text/plain`, each write joined with the others of its turn, paced. */
function plainLines(reply: FastifyReply) {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  let pending = '';
  const flush = () => {
    const text = pending;
    pending = '';
    if (text !== '' && !raw.destroyed) raw.write(text);
  };
  return {
    write(text: string): undefined | Promise<void> {
      if (pending === '') process.nextTick(flush);
      pending += text;
      if (!raw.writableNeedDrain || raw.destroyed) return undefined;
      return new Promise((resolve) => {
        raw.once('drain', resolve);
        raw.once('close', resolve);
      });
    },
    end() {
      flush();
      raw.end();
    },
  };
}

/**
 * A container of the stack, as the engine inspects it: 404 `Container not found` for one that does not
 * exist or is another project's; 502 when the engine fails.
 */
export async function ownContainer(
  engine: Engine,
  stack: Stack,
  container: string,
): Promise<Docker.ContainerInspectInfo> {
  const docker = engine.docker;
  if (!docker) throw new StacksError('engine_failed', engine.error ?? 'No Docker engine');
  const inspected = await docker
    .getContainer(container)
    .inspect()
    .catch((error: unknown) => {
      if ((error as { statusCode?: number }).statusCode === 404)
        throw new StacksError('container_not_found', CONTAINER_NOT_FOUND);
      throw engineFailure(engine, error);
    });
  const labels = inspected.Config?.Labels ?? {};
  if (!Object.hasOwn(labels, PROJECT_LABEL) || labels[PROJECT_LABEL] !== stack.name)
    throw new StacksError('container_not_found', CONTAINER_NOT_FOUND);
  return inspected;
}

export function containerRoutes(
  app: StacksFastify,
  service: StacksService,
  feed: EngineFeed,
  status: StackStatusReader,
  streams: EndingStreams,
): void {
  /** The stack of a request the caller may view (403, 404 as the stack routes answer them). */
  const viewedStack = async (request: FastifyRequest, env: EnvironmentId, name: string): Promise<Stack> => {
    allow(checkEnvAccess(userOf(request), 'view', env));
    return service.getStack({ name, environmentId: env });
  };

  /** The stack's containers to read: one (checked to be the stack's), or every one of the stack. */
  const targetsOf = async (
    engine: Engine,
    stack: Stack,
    container: string | undefined,
  ): Promise<LogTarget[]> => {
    const docker = engine.docker;
    if (!docker) throw new StacksError('engine_failed', engine.error ?? 'No Docker engine');
    if (container === undefined) {
      const listed = await docker
        .listContainers({ all: true, filters: { label: [`${PROJECT_LABEL}=${stack.name}`] } })
        .catch((error: unknown) => {
          throw engineFailure(engine, error);
        });
      return listed
        .map((c) => ({
          name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''),
          service: c.Labels?.[SERVICE_LABEL] ?? null,
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    }
    const inspected = await ownContainer(engine, stack, container);
    const labels = inspected.Config?.Labels ?? {};
    return [
      {
        name: inspected.Name.replace(/^\//, ''),
        service: Object.hasOwn(labels, SERVICE_LABEL) ? (labels[SERVICE_LABEL] ?? null) : null,
        tty: inspected.Config?.Tty === true,
      },
    ];
  };

  /** The stack's values and its provider's secrets now; a failing provider sends nothing (502). */
  const redactorOf = async (stack: Stack): Promise<Redactor> => {
    try {
      return await service.redactorOf(stack);
    } catch (error) {
      throw new StacksError(
        'secret_provider_failed',
        `The secret provider of the stack failed: ${(error as Error).message}`,
      );
    }
  };

  app.route({
    ...routes.getStackContainers,
    handler: async (request) => {
      const env = request.query.env;
      const stack = await viewedStack(request, env, request.params.name);
      const found = await status.statuses(service.environment(env), [
        { name: stack.name, compose: stack.compose },
      ]);
      return (
        found.get(stack.name) ?? { state: 'unknown' as const, stateReason: 'Not read', containers: null }
      );
    },
  });

  const logsHandler =
    (whole: boolean) =>
    async (
      request: FastifyRequest<{
        Params: { name: string; container?: string };
        Querystring: {
          env: EnvironmentId;
          tail: number | 'all';
          since?: number;
          follow: boolean;
          timestamps: boolean;
        };
      }>,
      reply: FastifyReply,
    ) => {
      const { env, tail, since, follow, timestamps } = request.query;
      const stack = await viewedStack(request, env, request.params.name);
      const engine = feed.engines.of(service.environment(env));
      // At once: the engine's answer (the inspection or the listing, which is also its check that the
      // engine answers before the answer starts: a failure then is still a JSON error) and the values.
      const [targets, redactor] = await Promise.all([
        targetsOf(engine, stack, whole ? undefined : request.params.container),
        redactorOf(stack),
      ]);
      const docker = engine.docker;
      if (!docker) throw new StacksError('engine_failed', engine.error ?? 'No Docker engine');
      const controller = new AbortController();
      const sse = (request.headers.accept ?? '').includes('text/event-stream');
      if (sse || follow) holdStream(request, reply);
      let events: EventStream | undefined;
      let plain: ReturnType<typeof plainLines> | undefined;
      if (sse) {
        events = new EventStream(reply);
        events.write(': logs\n\n');
        events.onClose(() => controller.abort());
      } else {
        plain = plainLines(reply);
        reply.raw.on('close', () => controller.abort());
      }
      void streams.closing.then(() => controller.abort());
      // A batch of lines is one write: a 100,000-line log is a few hundred writes, not 100,000.
      const sink = (lines: readonly ContainerLogLine[]) => {
        let text = '';
        if (events) {
          // A line's JSON holds no line break: each event is one `data:` line.
          for (const line of lines) text += `data: ${JSON.stringify(line)}\n\n`;
          events.write(text);
          return events.ready();
        }
        for (const line of lines)
          text += `${timestamps ? `${line.time} ` : ''}${whole ? `${line.container} | ` : ''}${line.line}\n`;
        return plain?.write(text);
      };
      try {
        await readContainerLogs(
          { docker, project: stack.name, events: feed.events.of(engine), redactor },
          targets,
          { tail, ...(since !== undefined ? { since } : {}), follow, signal: controller.signal },
          sink,
          whole,
        );
        events?.send(JSON.stringify({ type: 'end' }));
      } catch (error) {
        if (!controller.signal.aborted) {
          const message = redactor.text(
            `The Docker engine (${engine.where}) failed: ${(error as Error).message}`,
          );
          if (events) events.send(JSON.stringify({ type: 'error', error: message }));
          else plain?.write(`[chronicle: ${message}]\n`);
        }
      } finally {
        events?.end();
        plain?.end();
      }
    };

  app.route({
    ...routes.getStackStats,
    handler: async (request, reply) => {
      const env = request.query.env;
      const stack = await viewedStack(request, env, request.params.name);
      const engine = feed.engines.of(service.environment(env));
      const docker = engine.docker;
      if (!docker) throw new StacksError('engine_failed', engine.error ?? 'No Docker engine');
      const running = await docker
        .listContainers({ filters: { label: [`${PROJECT_LABEL}=${stack.name}`], status: ['running'] } })
        .catch((error: unknown) => {
          throw engineFailure(engine, error);
        });
      const controller = new AbortController();
      holdStream(request, reply);
      const events = new EventStream(reply);
      events.write(': stats\n\n');
      events.onClose(() => controller.abort());
      void streams.closing.then(() => controller.abort());
      await followStats(
        { docker, project: stack.name, events: feed.events.of(engine) },
        running.map((c) => ({
          name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''),
          service: c.Labels?.[SERVICE_LABEL] ?? null,
        })),
        controller.signal,
        (sample) => {
          // A client that reads no more gets no backlog: samples are dropped while its socket is full.
          if (events.ready() === undefined) events.send(JSON.stringify(sample));
        },
      );
      events.end();
      return reply;
    },
  });

  app.route({ ...routes.getContainerLogs, handler: logsHandler(false) });
  app.route({ ...routes.getStackLogs, handler: logsHandler(true) });
}
