import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Answer } from '../../streams/editor.js';
import type { EditorClient, HttpAnswer } from './editor-client.js';
import { editorOpenApi } from './editor-openapi.js';
import { type EditorRoute, ENVELOPE_OPS, editorRoutes, type RouteInput } from './editor-routes.js';
import { parseQuery } from './query-string.js';

export const API_PREFIX = '/api/v1';

/** A body that is missing or not JSON is undefined; routes read it as `{}` unless they take arrays. */
export function parseBody(raw: Buffer | undefined): unknown {
  if (!raw || raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

const failure = (status: number, code: string, error: string): HttpAnswer => ({
  status,
  body: { ok: false, code, error },
});

/** The path without its query and without a trailing slash (as the 404 message shows it). */
const shownPath = (url: string) => {
  const path = url.split('?')[0] ?? '';
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
};

function inputOf(request: FastifyRequest): RouteInput {
  const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
  return {
    params: (request.params ?? {}) as Record<string, string>,
    query: parseQuery(search),
    body: request.body,
  };
}

/**
 * The editor's REST surface as a Fastify app: one route per row of the endpoint table, the generic
 * `POST /{op}`, and the spec's 404/405 answers. Transport rules (headers, Content-Length, connection
 * limits) are the front listener's; this app only maps requests to dispatcher calls.
 */
export function editorApp(
  client: EditorClient,
  info: { version: string; sessionId: () => string },
): FastifyInstance {
  const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  // Whatever the content type, a body is JSON if it parses, else absent (the spec's `{}`).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: 16 * 1024 * 1024 },
    (_request, payload, done) => done(null, parseBody(payload as Buffer)),
  );

  // Every object body carries http_status; a null body is sent as no body.
  const send = (reply: FastifyReply, answer: HttpAnswer) =>
    answer.body === null
      ? reply.code(answer.status).send('')
      : reply.code(answer.status).send({ ...answer.body, http_status: answer.status });

  const handle = async (route: EditorRoute, request: FastifyRequest): Promise<HttpAnswer> => {
    const input = inputOf(request);
    if (route.kind === 'openapi')
      return { status: 200, body: editorOpenApi(info.version) as unknown as Answer };
    if (route.path === '/entities' && route.method === 'GET' && input.query.where !== undefined) {
      try {
        JSON.parse(input.query.where);
      } catch (error) {
        return failure(400, 'invalid_where', `where must be a JSON array: ${(error as Error).message}`);
      }
    }
    const { op, fields } = route.build(input);
    if (route.kind === 'mutate') return client.mutate(op, fields, route.status);
    const answer = await client.run(
      { protocol: 1, op, request_id: client.nextRestId(), ...fields },
      route.status,
    );
    if (route.kind !== 'ready') return answer;
    const state = answer.body.state as { session_id?: string; document_id?: number | null } | undefined;
    return {
      status: 200,
      body: {
        ok: true,
        ready: true,
        version: info.version,
        session_id: state?.session_id ?? info.sessionId(),
        document_id: state?.document_id ?? null,
      },
    };
  };

  for (const route of editorRoutes) {
    app.route({
      method: route.method,
      url: `${API_PREFIX}${route.path === '/' ? '' : route.path}`,
      handler: async (request, reply) => send(reply, await handle(route, request)),
    });
  }

  // The generic passthrough: envelope ops through the wrapper, any other op run as is.
  app.post(`${API_PREFIX}/:op`, async (request, reply) => {
    const input = inputOf(request);
    const op = input.params.op ?? '';
    const body =
      typeof input.body === 'object' && input.body !== null && !Array.isArray(input.body)
        ? (input.body as Record<string, unknown>)
        : {};
    if (ENVELOPE_OPS.has(op)) return send(reply, await client.mutate(op, body, 200));
    const requestId =
      typeof body.request_id === 'string' && body.request_id !== '' ? body.request_id : client.nextRestId();
    return send(reply, await client.run({ ...body, op, protocol: 1, request_id: requestId }, 200));
  });

  app.setNotFoundHandler((request, reply) => {
    const method = request.method;
    const path = shownPath(request.url);
    if (!['GET', 'POST', 'PUT', 'DELETE'].includes(method)) {
      return send(reply, failure(405, 'method_not_allowed', `${method} not supported here`));
    }
    if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) {
      return send(reply, failure(404, 'unknown_route', `No route ${method} ${path}: use /api/v1/...`));
    }
    return send(reply, failure(404, 'unknown_route', `No route ${method} ${path}`));
  });

  app.setErrorHandler((error, _request, reply) => {
    send(reply, failure(500, 'internal_error', error instanceof Error ? error.message : String(error)));
  });
  return app;
}
