import fastifySwagger, {
  type FastifyDynamicSwaggerOptions,
  type SwaggerTransformObject,
} from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifySerializerCompiler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteOptions,
} from 'fastify';
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { STACKS_ERRORS } from '../../stacks/errors.js';
import { version } from '../../version.js';
import { pathText } from './api/requests.js';
import { stacksRoutes } from './api/routes.js';
import {
  type OpenApiParts,
  withErrorCodes,
  withErrorExamples,
  withOptionalBodies,
  withoutUnusedComponents,
} from './openapi-tidy.js';

/**
 * The schemas' side of the stacks app: zod validates what routes take and checks what they answer
 * (fastify-type-provider-zod), the OpenAPI 3.1 document is generated from the same schemas
 * (@fastify/swagger) and browsable at `/api/docs` (@fastify/swagger-ui, its assets served from the
 * package, nothing from a CDN).
 */

/** The web page's session cookie (stacks/session.ts): named here, where the API describes it as a scheme. */
export const SESSION_COOKIE = 'chronicle_session';

/** The stacks app with its routes typed from their zod schemas. */
export type StacksFastify = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

const DOCS_PREFIX = '/api/docs';

/**
 * The answer as the route made it, once zod has checked it against the route's schema for its status.
 * Unlike the provider's serializer, which sends what zod parsed (an object schema drops the keys it
 * does not list), it sends the route's own value: a schema describes an answer, it never changes one.
 * An answer that breaks its schema is a bug of the server: a 500 naming the route and the first issue.
 */
export const answerSerializer: FastifySerializerCompiler<z.ZodType> =
  ({ schema, method, url, httpStatus }) =>
  (data) => {
    const checked = z.safeParse(schema, data);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new Error(
        `The ${httpStatus} answer of ${method} ${url} does not match its schema: ${pathText(issue?.path) || '(the answer)'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    return JSON.stringify(data);
  };

/** The first issue's message: the schemas word theirs as the routes always did (`pull must be a boolean`). */
export function validationMessage(issues: ReadonlyArray<{ message?: string }>): string {
  return issues[0]?.message ?? 'The request is not valid';
}

const SECURITY_SCHEME = 'bearer';
const SESSION_SCHEME = 'session';

/** The document's frame: what the routes' schemas do not say. */
const openApiFrame = (): FastifyDynamicSwaggerOptions['openapi'] => ({
  openapi: '3.1.0',
  info: {
    title: 'chronicle stacks API',
    version,
    description: [
      'Compose stacks, deploy jobs with live output, recorded deploy runs with redacted logs, and the reconcile that keeps run records and log files consistent.',
      '',
      'Every route but this document, the docs page, the sign-in and sign-out and the git webhook needs `Authorization: Bearer <token>` or the web page’s session cookie (401 `{"error": "unauthorized"}` otherwise). Every failure answers `{"error": "<message>"}`.',
      '',
      'Job routes answer at once with 202 and the job id (follow it with `GET /api/jobs/{id}` or its event stream); with `Accept: application/json` they answer once the job has ended: 200 on success, 500 with the error otherwise.',
      '',
      'Any route may also answer 413 (body too large), 415 (a body that is not JSON), 408 (a request that did not arrive in time), 503 (the server is stopping) and 500 (an internal error), each with the same error body.',
    ].join('\n'),
  },
  components: {
    securitySchemes: {
      [SECURITY_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        description: 'A token of the config’s `users` (or the admin token printed at the first start).',
      },
      [SESSION_SCHEME]: {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description:
          'The web page’s session, set by `POST /api/session`. A changing request with it must come from this host (its `Origin`, when sent).',
      },
    },
  },
  // Either one: machines send the token, the web page its session cookie.
  security: [{ [SECURITY_SCHEME]: [] }, { [SESSION_SCHEME]: [] }],
  tags: [
    { name: 'stacks', description: 'Compose stacks and the jobs that deploy and operate them.' },
    { name: 'deploy runs', description: 'Recorded deploys: rows, logs, deletion.' },
    { name: 'jobs', description: 'Job polls and live job events.' },
    { name: 'git stacks', description: 'Stacks that follow a git branch: settings, deploys, the webhook.' },
    { name: 'settings and schedules', description: 'General settings, the reconcile schedule, executions.' },
    {
      name: 'web page session and changes',
      description: 'The web page’s sign-in (a session cookie) and its live feed of changes.',
    },
    { name: 'documentation', description: 'This document.' },
  ],
});

/** Routes whose body a client may leave out: their schema takes none (Fastify validates a missing body as null). */
const optionalBodies = Object.values(stacksRoutes).flatMap((route) => {
  const body: unknown = 'body' in route.schema ? route.schema.body : undefined;
  return body instanceof z.ZodType && z.safeParse(body, null).success ? [route] : [];
});

const generatedObject = createJsonSchemaTransformObject({});

/** The provider's document, tidied, with the failure codes of docs/errors.md listed (openapi-tidy.ts). */
const transformObject: SwaggerTransformObject = (input) =>
  withErrorCodes(
    withoutUnusedComponents(
      withErrorExamples(withOptionalBodies(generatedObject(input) as OpenApiParts, optionalBodies)),
    ),
    STACKS_ERRORS,
  ) as ReturnType<SwaggerTransformObject>;

/**
 * Plugs zod and the document into the app; call it before any route is added (the document sees only
 * routes added after it). Answers the app typed by the zod provider.
 */
export function useStacksSchemas(app: FastifyInstance): StacksFastify {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(answerSerializer);
  app.register(fastifySwagger, {
    openapi: openApiFrame(),
    transform: createJsonSchemaTransform({ skipList: [] }),
    transformObject,
  });
  app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: { displayOperationId: true, defaultModelsExpandDepth: 1 },
    // Only this server's own files (no CDN, no validator badge): the page works offline.
    staticCSP:
      "default-src 'self'; base-uri 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self' data:; frame-ancestors 'self'",
    transformSpecificationClone: true,
  });
  return app.withTypeProvider<ZodTypeProvider>();
}

/** The web page's own files (stacks/ui-static.ts): the page at `/`, its bundle under `/ui/`. */
export const UI_PAGE = '/';
export const UI_PREFIX = '/ui';

/**
 * Pages, not API: the docs page's routes (@fastify/swagger-ui) and the web page's own files (`GET /`,
 * `GET /ui/:file`). They hold no data, so they are served without a token; they take no schemas and
 * the document leaves them out (each hides itself with `schema.hide`). Every other route is API: it
 * declares its schemas in api/routes.ts or is refused when added.
 */
export const isPageRoute = (route: Pick<RouteOptions, 'url'>) =>
  route.url === DOCS_PREFIX ||
  route.url.startsWith(`${DOCS_PREFIX}/`) ||
  route.url === UI_PAGE ||
  route.url.startsWith(`${UI_PREFIX}/`);

type OpenApiDocument = { openapi: string; info: Record<string, unknown>; paths: Record<string, unknown> };

/** `GET /api/openapi.json`: the document, without a token (its schema says `security: []`). */
export function documentRoute(app: StacksFastify): void {
  app.route({
    ...stacksRoutes.openApiDocument,
    handler: async () => app.swagger() as unknown as OpenApiDocument,
  });
}
