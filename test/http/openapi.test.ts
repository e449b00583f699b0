import { request } from 'node:http';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUDIT_ROUTES } from '../../src/http/editor/audit-routes.js';
import { editorOpenApi } from '../../src/http/editor/openapi.js';
import { editorRoutes } from '../../src/http/editor/routes.js';
import { version } from '../../src/version.js';
import { assertBuilt, type CliChild, startCli, until, type Watched, watch } from '../cli/helpers.js';

// The black-box part starts the built CLI: leave room for a loaded machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

type OpenApiDocument = Awaited<ReturnType<typeof SwaggerParser.validate>>;
type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}
interface Operation {
  summary?: string;
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Json }> }>;
}

/** Validates a copy: swagger-parser dereferences in place. */
const validate = (doc: Json) => SwaggerParser.validate(structuredClone(doc) as unknown as OpenApiDocument);

const doc = editorOpenApi(version);
const paths = doc.paths as Record<string, Record<string, Operation>>;

/** `/entities/:handle` under /api/v1 as OpenAPI writes it: `/api/v1/entities/{handle}`. */
const openApiPath = (path: string) => `/api/v1${path === '/' ? '' : path}`.replace(/:([a-z_]+)/g, '{$1}');

const operationOf = (method: string, path: string): Operation => {
  const operation = paths[openApiPath(path)]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${method} ${path} is not in the OpenAPI description`);
  return operation;
};

const paramsIn = (operation: Operation, where: 'path' | 'query') =>
  (operation.parameters ?? []).filter((p) => p.in === where);

const ANSWER_REF = '#/components/schemas/Answer';

describe('the generated OpenAPI description', () => {
  it('is a valid OpenAPI 3.0.3 document', async () => {
    expect(doc.openapi).toBe('3.0.3');
    await expect(validate(doc)).resolves.toBeDefined();
  });

  it('describes every route of the table with its method and success status', () => {
    for (const route of editorRoutes) {
      const operation = operationOf(route.method, route.path);
      expect(operation.summary, `${route.method} ${route.path}`).toBe(route.summary);
      expect(Object.keys(operation.responses), `${route.method} ${route.path}`).toContain(
        String(route.status),
      );
    }
    // Each route is one operation, and nothing but the table, the audit routes and POST /{op} is described.
    const described = Object.values(paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(described).toBe(editorRoutes.length + AUDIT_ROUTES.length + 1);
    const ids = Object.values(paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes the audit routes with their path and query parameters', () => {
    for (const route of AUDIT_ROUTES) {
      const operation = operationOf(route.method, route.path);
      expect(operation.summary).toBe(route.summary);
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
      expect(paramsIn(operation, 'path').map((p) => p.name)).toEqual(
        [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]),
      );
      expect(paramsIn(operation, 'query').map((p) => p.name)).toEqual([...route.queryParams]);
    }
    expect(paramsIn(operationOf('GET', '/documents/:document_id/diff'), 'query').map((p) => p.name)).toEqual(
      expect.arrayContaining(['from', 'to']),
    );
  });

  it('describes the generic POST /{op} passthrough', () => {
    const operation = operationOf('POST', '/:op');
    expect(paramsIn(operation, 'path').map((p) => p.name)).toEqual(['op']);
    expect(Object.keys(operation.responses)).toContain('200');
    expect(operation.requestBody?.content?.['application/json']?.schema).toBeDefined();
  });

  it('declares the path parameters of every route, required', () => {
    for (const route of editorRoutes) {
      const names = [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
      const declared = paramsIn(operationOf(route.method, route.path), 'path');
      expect(
        declared.map((p) => p.name),
        `${route.method} ${route.path}`,
      ).toEqual(names);
      for (const p of declared) expect(p.required).toBe(true);
    }
  });

  // The query parameters as the spec's tables list them, written out here rather than read back from
  // the route table, so that a parameter dropped from the table shows.
  it.each([
    [
      'GET',
      '/entities',
      [
        'type',
        'layer',
        'detail',
        'offset',
        'limit',
        'fields',
        'handles',
        'bounds',
        'near',
        'contains_point',
        'intersections',
        'where',
      ],
    ],
    ['GET', '/records', ['collection', 'type', 'offset', 'limit']],
    ['DELETE', '/documents/:document_id', ['discard']],
    ['GET', '/sysvars', ['names']],
    ['GET', '/selection-sets/:name', ['select']],
    ['DELETE', '/entities', ['handles']],
    ['GET', '/entities/:handle/xdata', ['app']],
  ])('declares the query parameters of %s %s', (method, path, names) => {
    const declared = paramsIn(operationOf(method, path), 'query');
    expect(declared.map((p) => p.name).sort()).toEqual([...names].sort());
    for (const p of declared) {
      expect(p.required).toBe(false);
      expect(p.schema).toEqual({ type: 'string' });
    }
  });

  it('gives the routes that read a body a JSON request schema, and the others none', () => {
    for (const route of editorRoutes) {
      const operation = operationOf(route.method, route.path);
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      if (route.body === 'object' || route.body === 'xdata-items') {
        expect(schema, `${route.method} ${route.path}`).toBeDefined();
      } else {
        expect(operation.requestBody, `${route.method} ${route.path}`).toBeUndefined();
      }
    }
    expect(operationOf('POST', '/entities').requestBody?.content?.['application/json']?.schema).toMatchObject(
      { type: 'object' },
    );
    // PUT xdata takes the array of items itself.
    expect(
      operationOf('PUT', '/entities/:handle/xdata/:app').requestBody?.content?.['application/json']?.schema,
    ).toMatchObject({ type: 'array', items: { required: ['code', 'value'] } });
  });

  it('gives every answer, success and failure, the JSON answer schema (the PNG of POST /capture aside)', () => {
    const answer = (doc.components as { schemas: Record<string, Json> }).schemas.Answer;
    expect(answer).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['ok', 'http_status']),
      properties: { ok: { type: 'boolean' }, http_status: { type: 'integer' }, code: { type: 'string' } },
    });
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const status of ['400', '404', '409', '503']) expect(operation.responses).toHaveProperty(status);
        for (const [status, response] of Object.entries(operation.responses)) {
          if (path === '/api/v1/capture' && status === '200') {
            expect(response.content).toEqual({
              'image/png': { schema: { type: 'string', format: 'binary' } },
            });
            continue;
          }
          expect(response.content?.['application/json']?.schema, `${method} ${path} ${status}`).toEqual({
            $ref: ANSWER_REF,
          });
        }
      }
    }
  });
});

/** One GET on a new connection, as a plain client would send it. */
function get(port: number, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /api/v1/openapi from the running CLI', () => {
  let child: CliChild;
  let watched: Watched;
  let port: number;

  beforeAll(async () => {
    assertBuilt();
    child = startCli(['editor', '--http', '0', '--store', 'memory:']);
    watched = watch(child, 60_000);
    watched.done.catch(() => undefined);
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(watched.stderr()), 'the listening line');
    port = Number(/127\.0\.0\.1:(\d+)/.exec(watched.stderr())?.[1]);
  });

  afterAll(async () => {
    child?.kill('SIGTERM');
    await watched?.done.catch(() => undefined);
  });

  it('answers 200 with the generated document plus http_status, and it validates', async () => {
    const answer = await get(port, '/api/v1/openapi');
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('application/json');
    const served = JSON.parse(answer.body) as Json;
    expect(served).toEqual({ ...editorOpenApi(version), http_status: 200 });
    expect(served.openapi).toBe('3.0.3');
    // `http_status` is added to every object body (spec: transport rules), this one included; an
    // OpenAPI 3.0 root allows no field but its own and `x-` extensions, so the validator is given
    // the document without it.
    const { http_status: _status, ...described } = served;
    await expect(validate(described)).resolves.toBeDefined();
  });
});
