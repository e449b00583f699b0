import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { stackStream, stacksEvent } from '../../../../streams/stacks.js';
import { checkEnvAccess } from '../../../stacks/access/auth.js';
import type { StackRef } from '../../../stacks/contracts.js';
import { CommandError, commandOf, runConsole } from '../../../stacks/engine/console.js';
import { StacksError, statusOf } from '../../../stacks/errors.js';
import type { Stack } from '../../../stacks/stack/store.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { engineSchemas as routes } from '../api/engine-routes.js';
import type { StacksFastify } from '../openapi.js';
import { allow, userOf } from '../request.js';
import { ownContainer } from './containers.js';
import type { EngineFeed } from './events.js';

/** Consoles open at once in this server; one more is a 409 (each holds an exec and two sockets). */
const MAX_CONSOLES = 32;

/** What the checks before the upgrade found, for the socket's handler. */
interface Opening {
  ref: StackRef;
  container: string;
  command: string[];
  values: string[];
  userId: string;
}

/**
 * `GET /api/stacks/{name}/containers/{container}/console`: a WebSocket to an exec with a TTY
 * (engine/console.ts), through @fastify/websocket so the app's hooks (the token or session) and the
 * route's schema run first, and every refusal is a plain HTTP answer before any upgrade. `edit` on the
 * stack's environment; a page's request must come from this server's origin: browsers send the session
 * cookie with a WebSocket opened by any site, SameSite aside, so its `Origin` is what tells.
 */
export function consoleRoutes(app: StacksFastify, service: StacksService, feed: EngineFeed): void {
  const openings = new WeakMap<FastifyRequest, Opening>();
  let open = 0;

  app.route({
    ...routes.openContainerConsole,
    preHandler: async (request) => {
      const user = userOf(request);
      if (request.headers.authorization === undefined) {
        const origin = request.headers.origin;
        let same = origin === undefined;
        try {
          same ||= new URL(origin as string).host === request.headers.host;
        } catch {}
        if (!same) throw new StacksError('forbidden', 'forbidden: a console from another origin');
      }
      const env = request.query.env;
      allow(checkEnvAccess(user, 'edit', env));
      const ref = { name: request.params.name, environmentId: env };
      const stack: Stack = await service.getStack(ref);
      let command: string[];
      try {
        command = commandOf(request.query.command ?? '');
      } catch (error) {
        if (error instanceof CommandError) throw new StacksError('invalid_command', error.message);
        throw error;
      }
      const engine = feed.engines.of(service.environment(env));
      const inspected = await ownContainer(engine, stack, request.params.container);
      if (inspected.State?.Running !== true)
        throw new StacksError('container_not_running', 'The container is not running');
      if (open >= MAX_CONSOLES)
        throw new StacksError('consoles_full', `${MAX_CONSOLES} consoles are open: close one first`);
      let values: string[];
      try {
        values = await service.valuesOf(stack);
      } catch (error) {
        throw new StacksError(
          'secret_provider_failed',
          `The secret provider of the stack failed: ${(error as Error).message}`,
        );
      }
      openings.set(request, {
        ref,
        container: inspected.Name.replace(/^\//, ''),
        command,
        values,
        userId: user.name,
      });
    },
    handler: async (_request, reply) =>
      reply
        .code(statusOf('websocket_required'))
        .send({ error: 'The console is a WebSocket: ask with `Upgrade: websocket`' }),
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const opening = openings.get(request);
      const engine = feed.engines.of(service.environment(opening?.ref.environmentId ?? null));
      if (!opening || !engine.docker) {
        socket.close(1011, 'not opened');
        return;
      }
      open += 1;
      const consoleId = randomUUID();
      const { ref, container, command, userId } = opening;
      const record = (type: 'ContainerConsoleOpened' | 'ContainerConsoleClosed', exitCode: number | null) =>
        service.store.append(stackStream(ref.environmentId, ref.name), [
          {
            ...(type === 'ContainerConsoleOpened'
              ? stacksEvent(type, {
                  stack: ref.name,
                  environment_id: ref.environmentId,
                  container,
                  command,
                  console_id: consoleId,
                  user_id: userId,
                })
              : stacksEvent(type, {
                  stack: ref.name,
                  environment_id: ref.environmentId,
                  container,
                  console_id: consoleId,
                  exit_code: exitCode,
                  user_id: userId,
                })),
            metadata: { userId },
          },
        ]);
      try {
        await runConsole({
          docker: engine.docker,
          container,
          command,
          values: opening.values,
          socket,
          opened: () => record('ContainerConsoleOpened', null).then(() => undefined),
          closed: (exitCode) => record('ContainerConsoleClosed', exitCode).then(() => undefined),
        });
      } finally {
        open -= 1;
      }
    },
  });
}
