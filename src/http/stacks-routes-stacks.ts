import type { EnvironmentId } from '../../streams/stacks.js';
import { checkEnvAccess } from '../stacks/auth.js';
import type { StacksService } from '../stacks/service.js';
import { stackView, validateVariables } from '../stacks/stack-store.js';
import type { StackRef, User } from '../stacks/types.js';
import { stacksRoutes as routes } from './stacks-api/routes.js';
import { keepSecrets } from './stacks-kept-secrets.js';
import type { StacksFastify } from './stacks-openapi.js';
import { allow, answerJob, userOf } from './stacks-request.js';

/**
 * The stack routes of STACKS.md: create-and-start, list, read, variables, compose, deploy, the
 * start/stop/restart/down jobs, delete. Their schemas (stacks-api/routes.ts) check `env`, the name and
 * the body (400); each route then checks the permission for its `env` with the list rule (`view` to
 * read, `edit` to change, 403) and that the environment exists (404 Environment not found).
 */
export function stackRoutes(app: StacksFastify, service: StacksService): void {
  const refOf = (
    request: { query: { env: EnvironmentId } },
    user: User,
    action: 'view' | 'edit',
    name: string,
  ): StackRef => {
    allow(checkEnvAccess(user, action, request.query.env));
    service.environment(request.query.env);
    return { name, environmentId: request.query.env };
  };

  app.route({
    ...routes.listStacks,
    handler: async (request) => {
      const env = request.query.env;
      allow(checkEnvAccess(userOf(request), 'view', env));
      const stacks = await service.listStacks(env);
      return stacks.map((s) => ({
        name: s.name,
        environmentId: s.environmentId,
        secretProvider: s.secretProvider,
        variables: s.variables.map((v) => ({ name: v.name, secret: v.secret })),
      }));
    },
  });

  app.route({
    ...routes.createStack,
    handler: async (request, reply) => {
      const body = request.body;
      const user = userOf(request);
      const ref = refOf(request, user, 'edit', body.name);
      const started = await service.createAndStart(
        ref,
        {
          compose: body.compose,
          variables: validateVariables(body.variables ?? []),
          secretProvider: body.secretProvider ?? null,
        },
        { pull: body.pull ?? false, build: body.build ?? false, forceRecreate: body.forceRecreate ?? false },
        user.name,
      );
      return answerJob(request, reply, started);
    },
  });

  app.route({
    ...routes.getStack,
    handler: async (request) => {
      const ref = refOf(request, userOf(request), 'view', request.params.name);
      return stackView(await service.getStack(ref));
    },
  });

  app.route({
    ...routes.deleteStack,
    handler: async (request) => {
      const user = userOf(request);
      await service.deleteStack(refOf(request, user, 'edit', request.params.name), user.name);
      return { deleted: true as const };
    },
  });

  app.route({
    ...routes.setVariables,
    handler: async (request) => {
      const user = userOf(request);
      const ref = refOf(request, user, 'edit', request.params.name);
      // A secret sent as null keeps its value (stacks-kept-secrets.ts).
      const stored = (await service.getStack(ref)).variables;
      return stackView(
        await service.setVariables(
          ref,
          validateVariables(keepSecrets(request.body.variables, stored)),
          user.name,
        ),
      );
    },
  });

  app.route({
    ...routes.saveCompose,
    handler: async (request, reply) => {
      const user = userOf(request);
      const ref = refOf(request, user, 'edit', request.params.name);
      const body = request.body;
      const answer = await service.saveCompose(
        ref,
        body.content,
        body.restart ?? false,
        {
          pull: body.pull ?? false,
          build: body.build ?? false,
          // Spec, Job request options: true on save-and-redeploy when omitted.
          forceRecreate: body.forceRecreate ?? true,
        },
        user.name,
      );
      if ('saved' in answer) return answer;
      return answerJob(request, reply, answer);
    },
  });

  app.route({
    ...routes.deployStack,
    handler: async (request, reply) => {
      const user = userOf(request);
      const ref = refOf(request, user, 'edit', request.params.name);
      const body = request.body;
      const started = await service.deploy(
        ref,
        { pull: body.pull ?? false, build: body.build ?? false, forceRecreate: body.forceRecreate ?? false },
        user.name,
      );
      return answerJob(request, reply, started);
    },
  });

  for (const [operation, route] of [
    ['start', routes.startStack],
    ['stop', routes.stopStack],
    ['restart', routes.restartStack],
    ['down', routes.downStack],
  ] as const) {
    app.route({
      ...route,
      handler: async (request, reply) => {
        const user = userOf(request);
        const ref = refOf(request, user, 'edit', request.params.name);
        return answerJob(request, reply, await service.operate(ref, operation, user.name));
      },
    });
  }
}
