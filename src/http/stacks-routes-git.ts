import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkEnvAccess } from '../stacks/auth.js';
import { badRequest } from '../stacks/errors.js';
import { parseGitStackChanges, parseNewGitStack } from '../stacks/git-settings.js';
import type { GitStacks } from '../stacks/git-stacks.js';
import { parseStackName } from '../stacks/names.js';
import type { StackRef } from '../stacks/types.js';
import { allow, answerJob, bodyOf, envOf, flag, userOf } from './stacks-request.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route proves its caller by other means than the bearer token (the webhook's signature). */
    withoutToken?: boolean;
  }
}

/** GitHub sends payloads of up to 25 MB; ours are read whole to check their signature. */
const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;

/**
 * The git-stack routes (CONTRACT.md, and README for the ones it leaves open): list, read, create (and
 * deploy), change settings (and redeploy), deploy, and the webhook. Every route but the webhook checks
 * its `env` like the stack routes (`view` to read, `edit` to change); the webhook is signed instead.
 */
export function gitStackRoutes(app: FastifyInstance, git: GitStacks): void {
  const refOf = (request: FastifyRequest, action: 'view' | 'edit', name?: unknown) => {
    const env = envOf(request);
    const user = userOf(request);
    allow(checkEnvAccess(user, action, env));
    const ref: StackRef | undefined =
      name === undefined ? undefined : { name: parseStackName(name), environmentId: env };
    return { env, user, ref };
  };
  const nameOf = (request: { params: unknown }) => (request.params as { name: string }).name;

  app.get('/api/git-stacks', async (request) => {
    const { env } = refOf(request, 'view');
    return git.list(env);
  });

  app.post('/api/git-stacks', async (request, reply) => {
    const body = bodyOf(request);
    const { user, ref } = refOf(request, 'edit', body.name);
    const deploy = flag(body, 'deploy', false);
    const { name: _name, deploy: _deploy, ...rest } = body;
    const input = await parseNewGitStack(rest);
    const created = await git.create(ref as StackRef, input, deploy, user.name);
    if (created.started) return answerJob(request, reply, created.started);
    return reply.code(201).send({ ...created.view, commit: created.commit });
  });

  app.get('/api/git-stacks/:name', async (request) => {
    const { ref } = refOf(request, 'view', nameOf(request));
    return git.view(ref as StackRef);
  });

  app.put('/api/git-stacks/:name', async (request, reply) => {
    const { ref, user } = refOf(request, 'edit', nameOf(request));
    const body = bodyOf(request);
    const redeploy = flag(body, 'redeploy', false);
    const { redeploy: _redeploy, ...rest } = body;
    const changes = await parseGitStackChanges(rest);
    const done = await git.configure(ref as StackRef, changes, redeploy, user.name);
    if (done.started) return answerJob(request, reply, done.started);
    return done.view;
  });

  app.post('/api/git-stacks/:name/deploy', async (request, reply) => {
    const { ref, user } = refOf(request, 'edit', nameOf(request));
    bodyOf(request);
    return answerJob(request, reply, await git.deploy(ref as StackRef, 'manual', user.name));
  });

  // Its own scope: the body is kept as the exact bytes the signature is over, whatever its type.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      '/api/git-stacks/:name/webhook',
      { config: { withoutToken: true }, bodyLimit: WEBHOOK_BODY_LIMIT },
      async (request, reply) => {
        const ref: StackRef = { name: parseStackName(nameOf(request)), environmentId: envOf(request) };
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (request.body !== undefined && request.body !== null && !Buffer.isBuffer(request.body))
          throw badRequest('The webhook body could not be read');
        const outcome = await git.webhook(ref, body, request.headers);
        if (outcome.ignored) return reply.code(200).send({ ignored: true, reason: outcome.reason });
        return answerJob(request, reply, outcome.started);
      },
    );
  });
}
