import type { EnvironmentId } from '../../../../streams/stacks.js';
import { checkEnvAccess } from '../../../stacks/access/auth.js';
import { PROJECT_LABEL } from '../../../stacks/engine/container-events.js';
import type { Engine } from '../../../stacks/engine/engines.js';
import { scheduleImageChecks, type Timers } from '../../../stacks/engine/image-check-schedule.js';
import {
  checkable,
  RegistryDigests,
  type ServiceImage,
  serviceImages,
  updateOf,
} from '../../../stacks/engine/image-updates.js';
import { StacksError } from '../../../stacks/errors.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { updateSchemas as routes } from '../api/update-routes.js';
import type { StacksFastify } from '../openapi.js';
import { allow, userOf } from '../request.js';
import { engineFailure } from './containers.js';
import type { EngineFeed } from './events.js';

/** The images a stack's services run, read from its engine. */
async function stackImages(engine: Engine, stack: string): Promise<ServiceImage[]> {
  const docker = engine.docker;
  if (!docker) throw new StacksError('engine_failed', engine.error ?? 'No Docker engine');
  try {
    const listed = await docker.listContainers({
      all: true,
      filters: { label: [`${PROJECT_LABEL}=${stack}`] },
    });
    return await serviceImages(
      docker,
      listed.map((c) => c.Id),
    );
  } catch (error) {
    throw engineFailure(engine, error);
  }
}

const toCheck = (images: readonly ServiceImage[]) =>
  images.filter((i) => checkable(i) === null).map((i) => i.image);

/**
 * Image updates of a stack's services (engine/image-updates.ts): `GET …/updates` compares what runs with
 * the registries' last answers, `POST …/updates/check` asks them now (`view`, like every read of the
 * stack's engine), and every `imageUpdates.checkEveryMinutes` every stack of every environment is
 * checked, a first time a minute after the start (one stack after the other, on `timers`:
 * engine/image-check-schedule.ts; the schedule ends when the app closes). An update is a deploy with
 * `pull: true`: a recorded run.
 */
export function updateRoutes(
  app: StacksFastify,
  service: StacksService,
  feed: EngineFeed,
  timers?: Timers,
): void {
  const digests = new RegistryDigests();
  const engineOf = (env: EnvironmentId) => feed.engines.of(service.environment(env));

  const answer = async (
    request: { query: { env: EnvironmentId }; params: { name: string } },
    check: boolean,
  ) => {
    const env = request.query.env;
    const stack = await service.getStack({ name: request.params.name, environmentId: env });
    const engine = engineOf(env);
    const images = await stackImages(engine, stack.name);
    if (check) await digests.check(engine, toCheck(images));
    return { services: images.map((i) => updateOf(i, digests.answer(engine, i.image))) };
  };

  app.route({
    ...routes.getImageUpdates,
    handler: async (request) => {
      allow(checkEnvAccess(userOf(request), 'view', request.query.env));
      return answer(request, false);
    },
  });
  app.route({
    ...routes.checkImageUpdates,
    handler: async (request) => {
      allow(checkEnvAccess(userOf(request), 'view', request.query.env));
      return answer(request, true);
    },
  });

  const checkAll = async () => {
    for (const env of [null, ...service.config.environments.map((e) => e.id)]) {
      const engine = engineOf(env);
      for (const stack of await service.listStacks(env)) {
        const images = await stackImages(engine, stack.name).catch(() => []);
        await digests.check(engine, toCheck(images));
      }
    }
  };
  const schedule = scheduleImageChecks(service.config.imageUpdates.checkEveryMinutes, checkAll, {
    ...(timers ? { timers } : {}),
  });
  app.addHook('onClose', async () => schedule.stop());
}
