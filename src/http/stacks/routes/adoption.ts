import type { EnvironmentId } from '../../../../streams/stacks.js';
import { type EngineProject, engineProjects } from '../../../stacks/engine/compose-projects.js';
import { engineKeyOf } from '../../../stacks/engine/engines.js';
import { StacksError } from '../../../stacks/errors.js';
import { adoptionSource } from '../../../stacks/stack/adoption.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { adoptionSchemas as routes } from '../api/adoption-routes.js';
import type { StacksFastify } from '../openapi.js';
import { userOf } from '../request.js';
import type { EngineFeed } from './events.js';

/**
 * Compose projects an engine runs without chronicle, and their adoption (src/stacks/stack/adoption.ts). Both
 * routes are for admins only: the list shows other people's projects and host folders, and adopting
 * reads host files at paths the containers' labels name (labels anyone who may start a container on
 * the engine writes), which no environment's `edit` grant reaches otherwise.
 */
export function adoptionRoutes(app: StacksFastify, service: StacksService, feed: EngineFeed): void {
  const adminOnly = (request: Parameters<typeof userOf>[0], what: string) => {
    if (!userOf(request).admin) throw new StacksError('forbidden', `forbidden: only an admin may ${what}`);
  };

  /** The projects of the environment's engine, and the names of the stacks of the environments on it. */
  const projectsOn = async (
    env: EnvironmentId,
  ): Promise<{ projects: EngineProject[]; managed: Set<string> }> => {
    const environment = service.environment(env);
    const engine = feed.engines.of(environment);
    if (!engine.docker)
      throw new StacksError('engine_failed', engine.error ?? 'The engine cannot be reached');
    const key = engineKeyOf(environment);
    const sharing: EnvironmentId[] = [
      ...(engineKeyOf(null) === key ? [null] : []),
      ...service.config.environments.filter((e) => engineKeyOf(e) === key).map((e) => e.id),
    ];
    const [projects, ...stacks] = await Promise.all([
      engineProjects(engine.docker).catch((error: unknown) => {
        throw new StacksError(
          'engine_failed',
          `The Docker engine (${engine.where}) cannot be reached: ${(error as Error).message}`,
        );
      }),
      ...sharing.map((id) => service.listStacks(id)),
    ]);
    return { projects, managed: new Set(stacks.flat().map((s) => s.name)) };
  };

  app.route({
    ...routes.listEngineProjects,
    handler: async (request) => {
      adminOnly(request, "list an engine's compose projects");
      const { projects, managed } = await projectsOn(request.query.env);
      return projects.filter((p) => !managed.has(p.name));
    },
  });

  app.route({
    ...routes.adoptEngineProject,
    handler: async (request, reply) => {
      adminOnly(request, 'adopt a compose project');
      const env = request.query.env;
      const environment = service.environment(env);
      const name = request.params.project;
      const { projects, managed } = await projectsOn(env);
      // A stack of this name in an environment on the engine already runs the project.
      if (managed.has(name)) throw new StacksError('stack_exists', 'Stack already exists');
      const project = projects.find((p) => p.name === name);
      if (!project)
        throw new StacksError(
          'project_not_found',
          `The engine holds no container of a compose project ${JSON.stringify(name)}`,
        );
      const source = await adoptionSource(project, {
        program: await service.composeProgram(),
        dataDir: service.dataDir,
        environment,
      });
      const { runId } = await service.adopt({ name, environmentId: env }, source, userOf(request).name);
      return reply
        .code(201)
        .send({ stack: name, environmentId: env, runId, merged: source.merged, warnings: source.warnings });
    },
  });
}
