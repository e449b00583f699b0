import { pipeline, Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkEnvAccess } from '../stacks/auth.js';
import { badRequest, StacksError } from '../stacks/errors.js';
import { parseGitStackChanges, parseNewGitStack } from '../stacks/git-settings.js';
import type { GitStacks } from '../stacks/git-stacks.js';
import { parseStackName } from '../stacks/names.js';
import type { StackRef } from '../stacks/types.js';
import { SIGNATURE_HEADER, type SignatureCheck, signatureCheck, signatureDigest } from '../stacks/webhook.js';
import { BufferBudget, WEBHOOK_BODY_LIMIT, WEBHOOK_BUFFER_BUDGET } from './stacks-limits.js';
import { allow, answerJob, bodyOf, envOf, flag, userOf } from './stacks-request.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route proves its caller by other means than the bearer token (the webhook's signature). */
    withoutToken?: boolean;
  }
  interface FastifyRequest {
    /** The webhook body's signature check, fed as the body is read. */
    webhookCheck?: SignatureCheck;
  }
}

const INVALID_SIGNATURE = 'Invalid webhook signature';

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

  webhookRoute(app, git);
}

const webhookRefOf = (request: FastifyRequest): StackRef => ({
  name: parseStackName((request.params as { name: string }).name),
  environmentId: envOf(request),
});

/**
 * `POST /api/git-stacks/{name}/webhook`, in its own scope: the body is kept as the exact bytes the
 * signature is over, whatever its type. Everything the headers can tell (the signature header, the
 * declared size, the stack and its secret, room among the bodies being received) is checked before a
 * byte of the body is read, and answered at once; the body is then hashed as it arrives and the digest
 * compared once it is whole.
 */
function webhookRoute(app: FastifyInstance, git: GitStacks): void {
  const buffers = new BufferBudget(WEBHOOK_BUFFER_BUDGET);
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      '/api/git-stacks/:name/webhook',
      {
        config: { withoutToken: true },
        bodyLimit: WEBHOOK_BODY_LIMIT,
        preParsing: async (request, reply, payload) => {
          const ref = webhookRefOf(request);
          const given = signatureDigest(request.headers[SIGNATURE_HEADER]);
          if (given === 'missing') throw new StacksError(401, 'Missing X-Hub-Signature-256 signature');
          if (given === 'invalid') throw new StacksError(401, INVALID_SIGNATURE);
          const declared = Number(request.headers['content-length']);
          if (declared > WEBHOOK_BODY_LIMIT)
            throw new StacksError(413, `A webhook body is at most ${WEBHOOK_BODY_LIMIT} bytes`);
          const secret = await git.webhookSecret(ref);
          if (secret === null) throw new StacksError(401, INVALID_SIGNATURE);
          // A chunked body (no length) may grow to the limit.
          const release = buffers.reserve(Number.isSafeInteger(declared) ? declared : WEBHOOK_BODY_LIMIT);
          if (!release) {
            reply.header('retry-after', '10');
            throw new StacksError(503, 'Too many webhook deliveries are being received; retry later');
          }
          reply.raw.once('close', release);
          const check = signatureCheck(secret, given);
          request.webhookCheck = check;
          const hashing = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              check.update(chunk);
              done(null, chunk);
            },
          });
          // A client that goes away mid-body ends the read with an error, as without the hash.
          pipeline(payload, hashing, () => undefined);
          return hashing;
        },
      },
      async (request, reply) => {
        const ref = webhookRefOf(request);
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (request.body !== undefined && request.body !== null && !Buffer.isBuffer(request.body))
          throw badRequest('The webhook body could not be read');
        if (request.webhookCheck?.matches() !== true) throw new StacksError(401, INVALID_SIGNATURE);
        const outcome = await git.webhook(ref, body, request.headers);
        if (outcome.ignored) return reply.code(200).send({ ignored: true, reason: outcome.reason });
        return answerJob(request, reply, outcome.started);
      },
    );
  });
}
