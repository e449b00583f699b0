import type { DeployOptions, EnvironmentId } from '../../../../streams/stacks.js';
import { checkEnvAccess } from '../../../stacks/access/auth.js';
import type { StackRef, User } from '../../../stacks/contracts.js';
import { StacksError, statusOf } from '../../../stacks/errors.js';
import { type StackStatus, StackStatusReader } from '../../../stacks/stack/status.js';
import { type Stack, stackView, validateVariables } from '../../../stacks/stack/store.js';
import type { StacksService } from '../../../stacks/stacks-service.js';
import { editedHashOf } from '../api/requests.js';
import { stacksRoutes as routes } from '../api/routes.js';
import { keepSecrets } from '../kept-secrets.js';
import type { StacksFastify } from '../openapi.js';
import { allow, answerJob, userOf } from '../request.js';

/** Why a delete without `down` or `keepContainers` is refused. */
const containersLeftMessage = (count: number) =>
  `The engine has ${count} container${count === 1 ? '' : 's'} of this stack: delete with down=true to remove ${count === 1 ? 'it' : 'them'} first, or keepContainers=true to leave ${count === 1 ? 'it' : 'them'} running`;

/** A job's options from a request body: pull and build off when omitted, forceRecreate as the route says. */
const optionsOf = (
  body: { pull?: boolean | null; build?: boolean | null; forceRecreate?: boolean | null },
  forceRecreate: boolean,
): DeployOptions => ({
  pull: body.pull ?? false,
  build: body.build ?? false,
  forceRecreate: body.forceRecreate ?? forceRecreate,
});

/**
 * The stack routes (docs/stacks.md): create-and-start, list, read, variables, compose, deploy, the
 * start/stop/restart/down jobs, delete. Their schemas (api/routes.ts) check `env`, the name and
 * the body (400); each route then checks the permission for its `env` with the list rule (`view` to
 * read, `edit` to change, 403) and that the environment exists (404 Environment not found).
 */
export function stackRoutes(
  app: StacksFastify,
  service: StacksService,
  status: StackStatusReader = new StackStatusReader(),
): void {
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

  /** The engine's view of stacks (stack/status.ts): state, stateReason, containers. */
  const statusesOf = async (
    env: StackRef['environmentId'],
    stacks: ReadonlyArray<{ name: string; compose?: string }>,
  ) => status.statuses(service.environment(env), stacks);
  const unread: StackStatus = { state: 'unknown', stateReason: 'Not read', containers: null };
  /** One stack as GET answers it: its files and its engine's view. */
  const withStatus = async (stack: Stack) => {
    const statuses = await statusesOf(stack.environmentId, [{ name: stack.name, compose: stack.compose }]);
    return {
      ...stackView(stack),
      ...(statuses.get(stack.name) ?? unread),
      job: service.runningJob(stack),
    };
  };

  app.route({
    ...routes.listStacks,
    handler: async (request) => {
      const env = request.query.env;
      allow(checkEnvAccess(userOf(request), 'view', env));
      const stacks = await service.listStacks(env);
      // The compose file says which services `up` starts (a stack deleted meanwhile: containers only).
      const composes = await Promise.all(
        stacks.map((s) =>
          service.getStack({ name: s.name, environmentId: env }).then(
            (stack) => ({ name: s.name, compose: stack.compose }),
            () => ({ name: s.name }),
          ),
        ),
      );
      const statuses = await statusesOf(env, composes);
      return stacks.map((s) => ({
        name: s.name,
        environmentId: s.environmentId,
        secretProvider: s.secretProvider,
        variables: s.variables.map((v) => ({ name: v.name, secret: v.secret })),
        ...(statuses.get(s.name) ?? unread),
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
        optionsOf(body, false),
        user.name,
      );
      return answerJob(request, reply, started);
    },
  });

  app.route({
    ...routes.getStack,
    handler: async (request) => {
      const ref = refOf(request, userOf(request), 'view', request.params.name);
      return withStatus(await service.getStack(ref));
    },
  });

  app.route({
    ...routes.deleteStack,
    handler: async (request, reply) => {
      const user = userOf(request);
      const ref = refOf(request, user, 'edit', request.params.name);
      const { down, keepContainers } = request.query;
      if (down) {
        // `down` as a job of its own (its output kept like any job's), then the files.
        const started = await service.operate(ref, 'down', user.name);
        const result = await started.result;
        if (!result.success)
          return reply
            .code(statusOf('down_failed'))
            .send({ error: `down failed (${result.error ?? 'the job failed'}); the stack was not deleted` });
        await service.deleteStack(ref, user.name);
        return { deleted: true as const, jobId: started.jobId };
      }
      if (!keepContainers) {
        const stack = await service.getStack(ref);
        // An engine that cannot be reached cannot say: the delete goes on (its containers are unknown).
        const containers = (await statusesOf(ref.environmentId, [{ name: stack.name }])).get(
          stack.name,
        )?.containers;
        if (containers && containers.length > 0)
          throw new StacksError('containers_left', containersLeftMessage(containers.length));
      }
      await service.deleteStack(ref, user.name);
      return { deleted: true as const };
    },
  });

  app.route({
    ...routes.setVariables,
    handler: async (request) => {
      const user = userOf(request);
      const ref = refOf(request, user, 'edit', request.params.name);
      // A secret sent as null keeps its value (stacks/kept-secrets.ts).
      const stored = (await service.getStack(ref)).variables;
      const saved = await service.setVariables(
        ref,
        validateVariables(keepSecrets(request.body.variables, stored)),
        user.name,
      );
      // The stack as GET answers it; `warnings` only when a value is too short to replace.
      const warnings = await service.shortValueWarnings(ref, saved.variables);
      return { ...(await withStatus(saved)), ...(warnings.length > 0 ? { warnings } : {}) };
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
        // Spec, Job request options: forceRecreate is true on save-and-redeploy when omitted.
        optionsOf(body, true),
        user.name,
        editedHashOf(request.headers['if-match']),
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
      const started = await service.deploy(ref, optionsOf(request.body, false), user.name);
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
