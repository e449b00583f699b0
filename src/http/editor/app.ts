/**
 * The editor's REST surface behind its front listener: one router (find-my-way) from a request to the
 * handler of its row of the endpoint table, the audit routes or the generic `POST /{op}`, and the spec's
 * 400/404/405 answers. Anything a handler throws is the listener's one 500 (listener.ts).
 *
 * Why find-my-way alone and not Fastify: the listener reads the request itself (the spec's transport
 * rules hold where Node's parser would answer first, and the answers carry exactly the spec's headers),
 * so Fastify can only be reached through `app.inject`, whose request, reply and response objects cost
 * more than the request's own work. Measured in process when the choice was made, CPU per request:
 * `GET /state` 55 µs through inject, 9 µs here (the dispatcher's call included); a 404 45 µs against 2 µs.
 * Fastify itself routes with find-my-way, configured as here, so a target routes as it did under it.
 * End to end: `npm run bench -- editor-http`.
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { parseQuery } from '../query-string.js';
import { failureAnswer, type HttpAnswer } from './answer.js';
import { type AuditContext, auditRoutes } from './audit-routes.js';
import { MAX_PARAM_LENGTH } from './limits.js';
import type { EditorClient } from './mutation-wrapper.js';
import { editorOpenApi } from './openapi.js';
import { OriginPolicy } from './origin.js';
import { bodyObject, type EditorRoute, ENVELOPE_OPS, editorRoutes, type RouteInput } from './routes.js';

const API_PREFIX = '/api/v1';
const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE']);

/** What the editor app is built with besides its client. */
interface EditorAppOptions {
  /** Who may touch the file system, by the request's Origin (default: programs and loopback pages). */
  origins?: OriginPolicy;
}

/** A request as the listener read it: the request line's method and target, the body, the Origin. */
interface EditorRequest {
  method: string;
  target: string;
  /** The body as read (empty when none, or when its declared length is past the limit). */
  body: Buffer;
  origin?: string | undefined;
}

/**
 * The editor's REST surface: every request's answer. Rejects with what a handler threw, and on a target
 * that names no URL: the listener answers both 500 `internal_error`.
 */
export interface EditorApp {
  answer(request: EditorRequest): Promise<HttpAnswer>;
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
  if (!('body' in answer)) return answer;
  const result = answer.body.result as { data?: unknown } | undefined;
  if (!answer.body.ok || typeof result?.data !== 'string') {
    const { state: _state, ...body } = answer.body;
    return { status: answer.status, body };
  }
  return { status: answer.status, type: 'image/png', bytes: Buffer.from(result.data, 'base64') };
}

/** A body that is missing or not JSON is undefined; routes read it as `{}` unless they take arrays. */
function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The target as the router reads it: the path and query of the URL it names, resolved against
 * `http://localhost` by the WHATWG URL parser (dot segments resolved, a fragment dropped, `"`, `<`, `>`,
 * `'` and bytes past ASCII percent-encoded, an absolute target's own path taken), a target starting
 * `//` taken as a path. This is how the editor has always read targets (`app.inject` read them so), and
 * clients of the spec's editor see these answers. Throws on a target that names no URL (`http://[x`).
 */
function requestUrl(target: string): string {
  const url = new URL(target.startsWith('//') ? `http://localhost${target}` : target, 'http://localhost');
  return url.pathname + url.search;
}

/** The path without its query and without a trailing slash (as the 404 message shows it). */
const shownPath = (url: string) => {
  const path = url.split('?')[0] ?? '';
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
};

const searchOf = (url: string) => {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
};

type Run = (input: RouteInput) => Promise<HttpAnswer>;

/**
 * The editor's REST surface: one route per row of the endpoint table, the audit routes, the generic
 * `POST /{op}`, and the spec's 404/405 answers. Transport rules (headers, Content-Length, connection
 * limits, the Host check) are the front listener's; this only maps requests to dispatcher calls.
 */
export function editorApp(
  client: EditorClient,
  info: { version: string; sessionId: () => string },
  audit?: AuditContext,
  options: EditorAppOptions = {},
): EditorApp {
  const origins = options.origins ?? new OriginPolicy();

  const handle = async (route: EditorRoute, input: RouteInput): Promise<HttpAnswer> => {
    if (route.kind === 'openapi') return { status: 200, body: { ...editorOpenApi(info.version) } };
    const caller = origins.callerOf(input.origin);
    if (route.kind === 'capture') return pngOf(await client.run(captureRequest(client, input), 200, caller));
    if (route.path === '/entities' && route.method === 'GET' && input.query.where !== undefined) {
      try {
        JSON.parse(input.query.where);
      } catch (error) {
        return failureAnswer(400, 'invalid_where', `where must be a JSON array: ${(error as Error).message}`);
      }
    }
    const { op, fields, run } = route.build(input);
    if (route.kind === 'mutate' && !run) return client.mutate(op, fields, route.status, caller);
    const answer = await client.run(
      { protocol: 1, op, request_id: client.nextRestId(), ...fields },
      route.status,
      caller,
    );
    if (route.kind !== 'ready' || !('body' in answer)) return answer;
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

  // The generic passthrough: envelope ops through the wrapper, any other op run as is.
  const generic: Run = async (input) => {
    const op = input.params.op ?? '';
    const body = bodyObject(input);
    const caller = origins.callerOf(input.origin);
    if (ENVELOPE_OPS.has(op)) return client.mutate(op, body, 200, caller);
    const requestId =
      typeof body.request_id === 'string' && body.request_id !== '' ? body.request_id : client.nextRestId();
    return client.run({ ...body, op, protocol: 1, request_id: requestId }, 200, caller);
  };

  // Each route's handler is its store; a path the router refuses (a malformed % sequence, a parameter
  // past the limit) finds a handler of find-my-way's own with no store, which returns the refusal.
  const router = FindMyWay({
    ignoreTrailingSlash: true,
    maxParamLength: MAX_PARAM_LENGTH,
    // In the words Fastify answered them with.
    onBadUrl: (path) => failureAnswer(400, 'bad_request', `'${path}' is not a valid url component`),
    onMaxParamLength: (path) =>
      failureAnswer(400, 'bad_request', `'${path}' is exceeding the max param length`),
    // The query is parsed by parseQuery, as the spec reads it.
    querystringParser: () => ({}),
  });
  const noop = () => undefined;
  for (const route of editorRoutes) {
    const run: Run = (input) => handle(route, input);
    router.on(route.method, `${API_PREFIX}${route.path === '/' ? '' : route.path}`, noop, run);
  }
  // The audit routes read the log, not the dispatcher (audit-routes.ts).
  for (const route of audit ? auditRoutes(audit) : []) {
    router.on(route.method, `${API_PREFIX}${route.path}`, noop, route.handle);
  }
  router.on('POST', `${API_PREFIX}/:op`, noop, generic);

  return {
    async answer(request) {
      const { method } = request;
      if (!METHODS.has(method))
        return failureAnswer(405, 'method_not_allowed', `${method} not supported here`);
      const url = requestUrl(request.target);
      const found = router.find(method as HTTPMethod, url);
      if (found === null) {
        const path = shownPath(url);
        if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`))
          return failureAnswer(404, 'unknown_route', `No route ${method} ${path}`);
        return failureAnswer(404, 'unknown_route', `No route ${method} ${path}: use /api/v1/...`);
      }
      if (found.store === null) return (found.handler as unknown as () => HttpAnswer)();
      return (found.store as Run)({
        params: { ...(found.params as Record<string, string>) },
        query: parseQuery(searchOf(url)),
        // As a GET's body was never parsed: the spec's GET routes take none.
        body: method === 'GET' ? undefined : parseBody(request.body),
        ...(request.origin === undefined ? {} : { origin: request.origin }),
      });
    },
  };
}
