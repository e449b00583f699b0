import type { FastifyInstance } from 'fastify';
import { checkEnvAccess } from '../stacks/auth.js';
import { badRequest } from '../stacks/errors.js';
import { parseStackName } from '../stacks/names.js';
import type { StacksService } from '../stacks/service.js';
import { type StackStatus, StackStatusReader } from '../stacks/stack-status.js';
import { type Stack, stackView, validateVariables } from '../stacks/stack-store.js';
import type { StackRef } from '../stacks/types.js';
import { allow, answerJob, bodyOf, envOf, flag, userOf } from './stacks-request.js';

/**
 * The stack routes of STACKS.md: create-and-start, list, read, variables, compose, deploy, the
 * start/stop/restart/down jobs, delete. Each checks its `env` with the list rule (`view` to read,
 * `edit` to change), then that the environment exists (404 Environment not found).
 */
export function stackRoutes(
  app: FastifyInstance,
  service: StacksService,
  status: StackStatusReader = new StackStatusReader(),
): void {
  /** The checks every stack route makes, in order: env (400), permission (403), environment (404). */
  const refOf = (request: Parameters<typeof envOf>[0], action: 'view' | 'edit', name?: unknown) => {
    const env = envOf(request);
    const user = userOf(request);
    allow(checkEnvAccess(user, action, env));
    service.environment(env);
    const ref: StackRef | undefined =
      name === undefined ? undefined : { name: parseStackName(name), environmentId: env };
    return { env, user, ref };
  };
  const nameOf = (request: { params: unknown }) => (request.params as { name: string }).name;

  /** The engine's view of stacks (stack-status.ts): state, stateReason, containers. */
  const statusesOf = async (
    env: StackRef['environmentId'],
    stacks: ReadonlyArray<{ name: string; compose?: string }>,
  ) => status.statuses(service.environment(env), stacks);
  const unread: StackStatus = { state: 'unknown', stateReason: 'Not read', containers: null };
  /** One stack as GET answers it: its files and its engine's view. */
  const withStatus = async (stack: Stack) => {
    const statuses = await statusesOf(stack.environmentId, [{ name: stack.name, compose: stack.compose }]);
    return { ...stackView(stack), ...(statuses.get(stack.name) ?? unread) };
  };

  app.get('/api/stacks', async (request) => {
    const { env } = refOf(request, 'view');
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
  });

  app.post('/api/stacks', async (request, reply) => {
    const body = bodyOf(request);
    const { user, ref } = refOf(request, 'edit', body.name);
    const provider = body.secretProvider ?? null;
    if (provider !== null && typeof provider !== 'string')
      throw badRequest('secretProvider must be a provider name or null');
    if (typeof body.compose !== 'string') throw badRequest('compose must be the compose file text');
    const started = await service.createAndStart(
      ref as StackRef,
      { compose: body.compose, variables: validateVariables(body.variables ?? []), secretProvider: provider },
      {
        pull: flag(body, 'pull', false),
        build: flag(body, 'build', false),
        forceRecreate: flag(body, 'forceRecreate', false),
      },
      user.name,
    );
    return answerJob(request, reply, started);
  });

  app.get('/api/stacks/:name', async (request) => {
    const { ref } = refOf(request, 'view', nameOf(request));
    return withStatus(await service.getStack(ref as StackRef));
  });

  app.delete('/api/stacks/:name', async (request) => {
    const { ref, user } = refOf(request, 'edit', nameOf(request));
    await service.deleteStack(ref as StackRef, user.name);
    return { deleted: true };
  });

  app.put('/api/stacks/:name/variables', async (request) => {
    const { ref, user } = refOf(request, 'edit', nameOf(request));
    const body = bodyOf(request);
    if (!Array.isArray(body.variables)) throw badRequest('variables must be an array');
    return withStatus(
      await service.setVariables(ref as StackRef, validateVariables(body.variables), user.name),
    );
  });

  app.put('/api/stacks/:name/compose', async (request, reply) => {
    const { ref, user } = refOf(request, 'edit', nameOf(request));
    const body = bodyOf(request);
    if (typeof body.content !== 'string') throw badRequest('content must be the compose file text');
    const restart = flag(body, 'restart', false);
    const answer = await service.saveCompose(
      ref as StackRef,
      body.content,
      restart,
      {
        pull: flag(body, 'pull', false),
        build: flag(body, 'build', false),
        // Spec, Job request options: true on save-and-redeploy when omitted.
        forceRecreate: flag(body, 'forceRecreate', true),
      },
      user.name,
    );
    if ('saved' in answer) return answer;
    return answerJob(request, reply, answer);
  });

  app.post('/api/stacks/:name/deploy', async (request, reply) => {
    const { ref, user } = refOf(request, 'edit', nameOf(request));
    const body = bodyOf(request);
    const started = await service.deploy(
      ref as StackRef,
      {
        pull: flag(body, 'pull', false),
        build: flag(body, 'build', false),
        forceRecreate: flag(body, 'forceRecreate', false),
      },
      user.name,
    );
    return answerJob(request, reply, started);
  });

  for (const operation of ['start', 'stop', 'restart', 'down'] as const) {
    app.post(`/api/stacks/:name/${operation}`, async (request, reply) => {
      const { ref, user } = refOf(request, 'edit', nameOf(request));
      return answerJob(request, reply, await service.operate(ref as StackRef, operation, user.name));
    });
  }
}
