import type { EnvironmentId } from '../../../../streams/stacks.js';
import { checkEnvAccess } from '../../../stacks/access/auth.js';
import { engineDetails, engineReach } from '../../../stacks/engine/engine-info.js';
import { StacksError } from '../../../stacks/errors.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { engineSchemas as routes } from '../api/engine-routes.js';
import type { StacksFastify } from '../openapi.js';
import { userOf } from '../request.js';
import type { EngineFeed } from './events.js';

/**
 * The environments' engines (engine/engine-info.ts): `GET /api/engines` says which answer and their
 * versions, for the environments the caller may view; `GET /api/engines/info` is an engine in detail,
 * for admins only (its host, disk and containers of every project are not a stack's).
 */
export function engineRoutes(app: StacksFastify, service: StacksService, feed: EngineFeed): void {
  app.route({
    ...routes.listEngines,
    handler: async (request) => {
      const user = userOf(request);
      const environments: Array<{ id: EnvironmentId; name: string }> = [
        { id: null, name: 'local' },
        ...service.config.environments.map((e) => ({ id: e.id, name: e.name })),
      ].filter((e) => checkEnvAccess(user, 'view', e.id).ok);
      // One question per engine, whatever the environments on it.
      const asked = new Map<string, ReturnType<typeof engineReach>>();
      return Promise.all(
        environments.map(async (e) => {
          const engine = feed.engines.of(service.environment(e.id));
          let reach = asked.get(engine.key);
          if (!reach) {
            reach = engineReach(engine);
            asked.set(engine.key, reach);
          }
          return { environmentId: e.id, name: e.name, ...(await reach) };
        }),
      );
    },
  });

  app.route({
    ...routes.getEngineInfo,
    handler: async (request) => {
      if (!userOf(request).admin)
        throw new StacksError('forbidden', 'forbidden: only an admin may read an engine');
      const env = request.query.env;
      const engine = feed.engines.of(service.environment(env));
      const [details, program] = await Promise.all([
        engineDetails(engine).catch((error: unknown) => {
          throw new StacksError('engine_failed', (error as Error).message);
        }),
        service.composeProgram(),
      ]);
      return {
        environmentId: env,
        ...details,
        compose: { command: [...program.command], generation: program.generation, version: program.version },
      };
    },
  });
}
