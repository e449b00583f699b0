import { EDITOR_OPS } from '../../editor/capabilities.js';
import { EDITOR_ERRORS, type EditorErrorCode } from '../../editor/errors.js';
import { AUDIT_ROUTES } from './audit-routes.js';
import { ENVELOPE_OPS, editorRoutes } from './routes.js';

/** The editor's failure codes (docs/errors.md), in the order of their names. */
const CODES = (Object.keys(EDITOR_ERRORS) as EditorErrorCode[]).sort();

/** JSON Schema of every answer body (spec: answer body fields); `http_status` is added to each. */
const ANSWER = {
  type: 'object',
  required: ['ok', 'http_status'],
  properties: {
    ok: { type: 'boolean', description: 'success flag' },
    code: {
      type: 'string',
      description: 'symbolic failure code, present when ok is false',
      // Every code of the catalogue, with its status and meaning (as Redoc shows `x-enumDescriptions`).
      enum: CODES,
      'x-enumDescriptions': Object.fromEntries(
        CODES.map((code) => [code, `HTTP ${EDITOR_ERRORS[code].status}. ${EDITOR_ERRORS[code].meaning}`]),
      ),
    },
    error: { type: 'string', description: 'human-readable failure message' },
    http_status: { type: 'integer', description: 'equals the HTTP status' },
    status: { type: 'string', description: 'operation status, e.g. completed' },
    request_id: { type: 'string' },
    document_id: { type: 'integer', minimum: 0, nullable: true, description: 'active document' },
    result: { type: 'object', additionalProperties: true },
    changes: {
      type: 'array',
      items: { type: 'object', properties: { handle: { type: 'string' }, kind: { type: 'string' } } },
    },
    state: { type: 'object', additionalProperties: true, description: 'session state (Run routes only)' },
    entities: { type: 'array', items: { type: 'object', additionalProperties: true } },
    count: { type: 'integer' },
    items: { type: 'array', items: { type: 'object', additionalProperties: true } },
    session_id: { type: 'string', description: 'state: the session' },
    version: { type: 'string', description: 'state: the editor version' },
    revision: { type: 'integer', nullable: true, description: "state: the active document's revision" },
    geometry_revision: {
      type: 'integer',
      nullable: true,
      description: "state: the revision of the active document's last change to entities or blocks",
    },
    hand_seed: {
      type: 'string',
      nullable: true,
      description: "state: the active drawing's next handle (hex)",
    },
    documents: {
      type: 'array',
      description: 'state: the open documents',
      items: { type: 'object', additionalProperties: true },
    },
    selection: {
      type: 'array',
      items: { type: 'string' },
      description: 'state: the handles selected, in pick order',
    },
    operations: {
      type: 'object',
      additionalProperties: { type: 'boolean' },
      description: 'capabilities: every operation the editor answers, true',
    },
    layers: {
      type: 'array',
      items: { type: 'object', additionalProperties: true },
      description: 'layers: every layer',
    },
  },
  additionalProperties: true,
} as const;

const XDATA_ITEMS = {
  type: 'array',
  items: {
    type: 'object',
    required: ['code', 'value'],
    properties: { code: { type: 'integer' }, value: {} },
  },
} as const;

const ERRORS = {
  '400':
    'bad request (invalid_point, unknown_operation, document_required, entities_required, unknown_entity_type, invalid_radius, invalid_vertices, invalid_text, invalid_scale, invalid_factor, invalid_axis, invalid_action, ...)',
  '403':
    'forbidden_host: the Host header names no loopback host; origin_forbidden: the Origin header names a web page that is not on this machine (nor given with --allow-origin), and the op reads or writes files',
  '404': 'unknown_route or entity_absent',
  '409': 'stale_state, session_changed, document_not_active or gui_required',
  '503': 'busy',
};

const toOpenApiPath = (path: string) => `/api/v1${path === '/' ? '' : path}`.replace(/:([a-z_]+)/g, '{$1}');

const answer = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Answer' } } },
});

/** The answers every route may give besides its own (ERRORS). */
const errorAnswers = () =>
  Object.fromEntries(Object.entries(ERRORS).map(([status, text]) => [status, answer(text)]));

/** A route's `:name` path parameters and its query parameters, all strings. */
const parametersOf = (path: string, queryParams: readonly string[]) => [
  ...[...path.matchAll(/:([a-z_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  })),
  ...queryParams.map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
];

/** `GET /api/v1/documents/{document_id}` -> `getApiV1DocumentsDocumentId`. */
const operationIdOf = (method: string, path: string) =>
  `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`;

/**
 * The OpenAPI 3.0.3 description of the editor surface, generated from the route table the server
 * routes by, so the two cannot drift.
 */
export function editorOpenApi(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of editorRoutes) {
    const path = toOpenApiPath(route.path);
    const params = parametersOf(route.path, route.queryParams ?? []);
    const body =
      route.body === 'object'
        ? {
            required: false,
            content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
          }
        : route.body === 'xdata-items'
          ? { required: false, content: { 'application/json': { schema: XDATA_ITEMS } } }
          : undefined;
    const { op } =
      route.kind === 'openapi' || route.kind === 'ready'
        ? { op: route.kind }
        : route.build({ params: {}, query: {}, body: undefined });
    const success = route.produces
      ? {
          description: 'completed',
          content: { [route.produces]: { schema: { type: 'string', format: 'binary' } } },
        }
      : answer('completed');
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      summary: route.summary,
      description:
        route.describe ??
        `${route.kind === 'mutate' ? 'Mutate' : 'Run'} op \`${op}\`.${route.answer ? ` ${route.answer}` : ''}`,
      operationId: operationIdOf(route.method, path),
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: {
        [String(route.status)]: success,
        ...errorAnswers(),
      },
    };
  }
  // The audit routes: extra GET routes of this project that read the log (docs/editor.md#audit-time-travel-and-replay).
  for (const route of AUDIT_ROUTES) {
    const path = toOpenApiPath(route.path);
    const params = parametersOf(route.path, route.queryParams);
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      summary: route.summary,
      description: 'Audit route: read from the event log, not through the dispatcher.',
      operationId: operationIdOf(route.method, path),
      ...(params.length > 0 ? { parameters: params } : {}),
      responses: {
        '200': answer('completed'),
        ...errorAnswers(),
        '404': answer('unknown_route, session_absent, document_absent or revision_absent'),
      },
    };
  }
  paths['/api/v1/{op}'] = {
    post: {
      summary: 'Generic passthrough: envelope ops through the mutation wrapper, any other op run as is',
      operationId: 'postOp',
      parameters: [
        { name: 'op', in: 'path', required: true, schema: { type: 'string', enum: [...EDITOR_OPS] } },
      ],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
      },
      description: `Envelope ops: ${[...ENVELOPE_OPS].join(', ')}.`,
      responses: {
        '200': answer('completed'),
        ...errorAnswers(),
      },
    },
  };
  return {
    openapi: '3.0.3',
    info: { title: 'chronicle editor automation API', version },
    servers: [{ url: 'http://127.0.0.1:{port}', variables: { port: { default: '8765' } } }],
    paths,
    components: { schemas: { Answer: ANSWER } },
  };
}
