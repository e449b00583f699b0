import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Answer } from '../../../streams/editor.js';
import { parseQuery } from '../query-string.js';
import { type AuditContext, auditRoutes } from './audit-routes.js';
import { MAX_BODY_BYTES, MAX_PARAM_LENGTH } from './limits.js';
import type { EditorClient, HttpAnswer } from './mutation-wrapper.js';
import { editorOpenApi } from './openapi.js';
import { OriginPolicy } from './origin.js';
import { bodyObject, type EditorRoute, ENVELOPE_OPS, editorRoutes, type RouteInput } from './routes.js';

const API_PREFIX = '/api/v1';

/** What the editor app is built with besides its client. */
interface EditorAppOptions {
  /** Who may touch the file system, by the request's Origin (default: programs and loopback pages). */
  origins?: OriginPolicy;
}

/** POST /capture: the `capture` op run with the body's fields (a Run: no wrapper, the active document). */
const captureRequest = (client: EditorClient, input: RouteInput): Record<string, unknown> => ({
  protocol: 1,
  op: 'capture',
  request_id: client.nextRestId(),
  ...bodyObject(input),
});

/** A capture's answer as the PNG itself; a failure stays the JSON answer it is (without `state`). */
function pngOf(answer: HttpAnswer): HttpAnswer {
  const result = answer.body.result as { data?: unknown } | undefined;
  if (!answer.body.ok || typeof result?.data !== 'string') {
    const { state: _state, ...body } = answer.body;
    return { status: answer.status, body: body as Answer };
  }
  return { ...answer, raw: { type: 'image/png', bytes: Buffer.from(result.data, 'base64') } };
}

/** A body that is missing or not JSON is undefined; routes read it as `{}` unless they take arrays. */
function parseBody(raw: Buffer | undefined): unknown {
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

const searchOf = (url: string) => {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
};

function inputOf(request: FastifyRequest): RouteInput {
  const origin = request.headers.origin;
  return {
    params: (request.params ?? {}) as Record<string, string>,
    query: parseQuery(searchOf(request.url)),
    body: request.body,
    ...(origin === undefined ? {} : { origin }),
  };
}

/** An answer as the listener writes it: the status and the body text ('' for no body), or other bytes. */
export interface RawAnswer {
  status: number;
  body: string;
  /** A body that is not JSON, and its content type (`body` is then ''). */
  bytes?: Buffer;
  type?: string;
}

/**
 * Answers a request without going through Fastify (`app.inject` costs more than the whole dispatcher
 * call of `GET /state`), or returns undefined when the request is not one whose outcome is plain, and
 * the caller must inject it.
 */
export type DirectRoute = (
  method: string,
  target: string,
  body: Buffer,
  origin?: string,
) => Promise<RawAnswer> | undefined;

const directRoutes = new WeakMap<FastifyInstance, DirectRoute>();

/** The direct path of an app built by `editorApp`; undefined for any other Fastify app. */
export const directRouteOf = (app: FastifyInstance): DirectRoute | undefined => directRoutes.get(app);

/**
 * Targets the direct path takes: path segments of unreserved characters only (no `%` to decode, no dot
 * segment, no empty segment, no trailing slash), and a query of the printable ASCII characters that
 * inject's WHATWG URL parsing leaves as they are (not `"`, `#`, `'`, `<`, `>`). Anything else goes
 * through Fastify, whose router and URL handling then decide as before.
 */
const PLAIN_TARGET =
  /^((?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+)(?:\?([\x21\x24-\x26\x28-\x3b\x3d\x3f-\x7e]*))?$/;

/**
 * The editor's REST surface as a Fastify app: one route per row of the endpoint table, the generic
 * `POST /{op}`, and the spec's 404/405 answers. Transport rules (headers, Content-Length, connection
 * limits) are the front listener's; this app only maps requests to dispatcher calls.
 */
export function editorApp(
  client: EditorClient,
  info: { version: string; sessionId: () => string },
  audit?: AuditContext,
  options: EditorAppOptions = {},
): FastifyInstance {
  const origins = options.origins ?? new OriginPolicy();
  const app = Fastify({
    logger: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // A path the router cannot decode (a malformed % sequence in a path segment) was answered with
    // Fastify's own body, without ok, code, error or http_status: answer it in the spec's form.
    frameworkErrors: (error, _request, reply) => send(reply, failure(400, 'bad_request', error.message)),
  });
  // Whatever the content type, a body is JSON if it parses, else absent (the spec's `{}`).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_request, payload, done) =>
    done(null, parseBody(payload as Buffer)),
  );

  // Every object body carries http_status; a null body is sent as no body.
  const send = (reply: FastifyReply, answer: HttpAnswer) =>
    answer.raw
      ? reply.code(answer.status).type(answer.raw.type).send(answer.raw.bytes)
      : answer.body === null
        ? reply.code(answer.status).send('')
        : reply.code(answer.status).send({ ...answer.body, http_status: answer.status });

  const handle = async (route: EditorRoute, input: RouteInput): Promise<HttpAnswer> => {
    if (route.kind === 'openapi')
      return { status: 200, body: editorOpenApi(info.version) as unknown as Answer };
    const caller = origins.callerOf(input.origin);
    if (route.kind === 'capture') return pngOf(await client.run(captureRequest(client, input), 200, caller));
    if (route.path === '/entities' && route.method === 'GET' && input.query.where !== undefined) {
      try {
        JSON.parse(input.query.where);
      } catch (error) {
        return failure(400, 'invalid_where', `where must be a JSON array: ${(error as Error).message}`);
      }
    }
    const { op, fields, run } = route.build(input);
    if (route.kind === 'mutate' && !run) return client.mutate(op, fields, route.status, caller);
    const answer = await client.run(
      { protocol: 1, op, request_id: client.nextRestId(), ...fields },
      route.status,
      caller,
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

  // The direct path routes with find-my-way, the router Fastify itself uses, configured alike.
  const direct = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH });
  const noop = () => undefined;
  for (const route of editorRoutes) {
    const url = `${API_PREFIX}${route.path === '/' ? '' : route.path}`;
    app.route({
      method: route.method,
      url,
      handler: async (request, reply) => send(reply, await handle(route, inputOf(request))),
    });
    direct.on(route.method, url, noop, (input: RouteInput) => handle(route, input));
  }

  // The audit routes read the log, not the dispatcher (editor-audit-routes.ts).
  for (const route of audit ? auditRoutes(audit) : []) {
    const url = `${API_PREFIX}${route.path}`;
    app.route({
      method: route.method,
      url,
      handler: async (request, reply) => send(reply, await route.handle(inputOf(request))),
    });
    direct.on(route.method, url, noop, (input: RouteInput) => route.handle(input));
  }

  // The generic passthrough: envelope ops through the wrapper, any other op run as is.
  const generic = async (input: RouteInput): Promise<HttpAnswer> => {
    const op = input.params.op ?? '';
    const body =
      typeof input.body === 'object' && input.body !== null && !Array.isArray(input.body)
        ? (input.body as Record<string, unknown>)
        : {};
    const caller = origins.callerOf(input.origin);
    if (ENVELOPE_OPS.has(op)) return client.mutate(op, body, 200, caller);
    const requestId =
      typeof body.request_id === 'string' && body.request_id !== '' ? body.request_id : client.nextRestId();
    return client.run({ ...body, op, protocol: 1, request_id: requestId }, 200, caller);
  };
  app.post(`${API_PREFIX}/:op`, async (request, reply) => send(reply, await generic(inputOf(request))));
  direct.on('POST', `${API_PREFIX}/:op`, noop, generic);

  // The direct path: the same handlers for the same routes, what Fastify would do for a plain target
  // (no body for GET, the body parsed as the content-type parser above does, the answer serialized as
  // `send` does, a thrown error as the error handler answers it), without building a request, a reply
  // and an injected response per request.
  const rawAnswer = (answer: HttpAnswer): RawAnswer =>
    answer.raw
      ? { status: answer.status, body: '', bytes: answer.raw.bytes, type: answer.raw.type }
      : {
          status: answer.status,
          body: answer.body === null ? '' : JSON.stringify({ ...answer.body, http_status: answer.status }),
        };
  const internalError = (error: unknown): RawAnswer =>
    rawAnswer(failure(500, 'internal_error', error instanceof Error ? error.message : String(error)));
  directRoutes.set(app, (method, target, raw, origin) => {
    const parts = PLAIN_TARGET.exec(target);
    if (!parts) return undefined;
    const found = direct.find(method as 'GET', parts[1] as string);
    if (!found) return undefined;
    const run = found.store as (input: RouteInput) => Promise<HttpAnswer>;
    const input: RouteInput = {
      params: { ...(found.params as Record<string, string>) },
      query: parseQuery(parts[2] ?? ''),
      body: method === 'GET' ? undefined : parseBody(raw),
      ...(origin === undefined ? {} : { origin }),
    };
    return run(input).then((answer) => {
      try {
        return rawAnswer(answer);
      } catch (error) {
        return internalError(error);
      }
    }, internalError);
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
