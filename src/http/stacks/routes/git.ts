import { pipeline, Transform } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { EnvironmentId } from '../../../../streams/stacks.js';
import { checkEnvAccess } from '../../../stacks/access/auth.js';
import type { StackRef, User } from '../../../stacks/contracts.js';
import { StacksError } from '../../../stacks/errors.js';
import type { GitStacks } from '../../../stacks/git/git-stacks.js';
import { parseGitStackChanges, parseNewGitStack } from '../../../stacks/git/settings.js';
import {
  SIGNATURE_HEADER,
  type SignatureCheck,
  signatureCheck,
  signatureDigest,
} from '../../../stacks/git/webhook.js';
import { parseEnvParam, parseStackName } from '../../../stacks/names.js';
import { stacksRoutes as routes } from '../api/routes.js';
import { BufferBudget, WEBHOOK_BODY_LIMIT, WEBHOOK_BUFFER_BUDGET } from '../limits.js';
import type { StacksFastify } from '../openapi.js';
import { allow, answerJob, userOf } from '../request.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route proves its caller by other means than the bearer token (the webhook's signature), or
     * needs none (the OpenAPI document): set from its schema's `security: []` (stacks/app.ts).
     */
    withoutToken?: boolean;
  }
  interface FastifyRequest {
    /** The webhook body's signature check, fed as the body is read. */
    webhookCheck?: SignatureCheck;
  }
}

const INVALID_SIGNATURE = 'Invalid webhook signature';

/**
 * The git-stack routes (docs/stacks.md#git-stacks): list, read, create (and
 * deploy), change settings (and redeploy), deploy, and the webhook. Every route but the webhook checks
 * its `env` like the stack routes (`view` to read, `edit` to change); the webhook is signed instead.
 */
export function gitStackRoutes(app: StacksFastify, git: GitStacks): void {
  const refOf = (
    request: Pick<FastifyRequest, 'stacksUser'> & { query: { env: EnvironmentId } },
    action: 'view' | 'edit',
    name: string,
  ): { user: User; ref: StackRef } => {
    const user = userOf(request);
    allow(checkEnvAccess(user, action, request.query.env));
    return { user, ref: { name, environmentId: request.query.env } };
  };

  app.route({
    ...routes.listGitStacks,
    handler: async (request) => {
      allow(checkEnvAccess(userOf(request), 'view', request.query.env));
      return git.list(request.query.env);
    },
  });

  app.route({
    ...routes.createGitStack,
    handler: async (request, reply) => {
      const { name, deploy, ...rest } = request.body;
      const { user, ref } = refOf(request, 'edit', name);
      const created = await git.create(ref, await parseNewGitStack(rest), deploy ?? false, user.name);
      if (created.started) return answerJob(request, reply, created.started);
      return reply.code(201).send({ ...created.view, commit: created.commit });
    },
  });

  app.route({
    ...routes.getGitStack,
    handler: async (request) => git.view(refOf(request, 'view', request.params.name).ref),
  });

  app.route({
    ...routes.configureGitStack,
    handler: async (request, reply) => {
      const { ref, user } = refOf(request, 'edit', request.params.name);
      const { redeploy, ...rest } = request.body;
      const changes = await parseGitStackChanges(rest);
      const done = await git.configure(ref, changes, redeploy ?? false, user.name);
      if (done.started) return answerJob(request, reply, done.started);
      return done.view;
    },
  });

  app.route({
    ...routes.deployGitStack,
    handler: async (request, reply) => {
      const { ref, user } = refOf(request, 'edit', request.params.name);
      return answerJob(request, reply, await git.deploy(ref, 'manual', user.name));
    },
  });

  webhookRoute(app, git);
}

/**
 * The stack a webhook delivery is for, read before the body (preParsing runs before the schemas check
 * the request, so params and query are still as they came).
 */
const webhookRefOf = (request: { params: unknown; query: unknown }): StackRef => {
  // The app's query parser gives each parameter once, as a string (stacks/app.ts).
  const raw = (request.query ?? {}) as { env?: string };
  return {
    name: parseStackName((request.params as { name?: unknown }).name),
    environmentId: parseEnvParam(raw.env),
  };
};

/**
 * `POST /api/git-stacks/{name}/webhook`, in its own scope: the body is kept as the exact bytes the
 * signature is over, whatever its type. Everything the headers can tell (the signature header, the
 * declared size, the stack and its secret, room among the bodies being received) is checked before a
 * byte of the body is read, and answered at once; the body is then hashed as it arrives and the digest
 * compared once it is whole.
 */
function webhookRoute(app: StacksFastify, git: GitStacks): void {
  const buffers = new BufferBudget(WEBHOOK_BUFFER_BUDGET);
  app.register(async (scope: StacksFastify) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.route({
      ...routes.gitStackWebhook,
      bodyLimit: WEBHOOK_BODY_LIMIT,
      preParsing: async (request, reply, payload) => {
        const ref = webhookRefOf(request);
        const given = signatureDigest(request.headers[SIGNATURE_HEADER]);
        if (given === 'missing')
          throw new StacksError('webhook_signature', 'Missing X-Hub-Signature-256 signature');
        if (given === 'invalid') throw new StacksError('webhook_signature', INVALID_SIGNATURE);
        const declared = Number(request.headers['content-length']);
        if (declared > WEBHOOK_BODY_LIMIT)
          throw new StacksError('too_large', `A webhook body is at most ${WEBHOOK_BODY_LIMIT} bytes`);
        const secret = await git.webhookSecret(ref);
        if (secret === null) throw new StacksError('webhook_signature', INVALID_SIGNATURE);
        // A chunked body (no length) may grow to the limit.
        const release = buffers.reserve(Number.isSafeInteger(declared) ? declared : WEBHOOK_BODY_LIMIT);
        if (!release) {
          reply.header('retry-after', '10');
          throw new StacksError(
            'webhook_busy',
            'Too many webhook deliveries are being received; retry later',
          );
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
      handler: async (request, reply) => {
        const ref = { name: request.params.name, environmentId: request.query.env };
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (request.body !== undefined && request.body !== null && !Buffer.isBuffer(request.body))
          throw new StacksError('invalid_webhook', 'The webhook body could not be read');
        if (request.webhookCheck?.matches() !== true)
          throw new StacksError('webhook_signature', INVALID_SIGNATURE);
        const outcome = await git.webhook(ref, body, request.headers);
        if (outcome.ignored) return reply.code(200).send({ ignored: true, reason: outcome.reason });
        return answerJob(request, reply, outcome.started);
      },
    });
  });
}
