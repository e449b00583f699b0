/**
 * The stacks service's OpenAPI document (docs/stacks.md#the-api-document): generated from the routes' zod schemas, valid
 * OpenAPI 3.1, the same set of routes as the app registers, every answer of a scripted session valid
 * against the schema its route documents, and the docs page served with its own assets.
 */
import { rm } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ErrorBody } from '../../../src/http/stacks/api/answers.js';
import { registeredRoutes, stacksApp } from '../../../src/http/stacks/app.js';
import { isPageRoute } from '../../../src/http/stacks/openapi.js';
import { openApiPath } from '../../../src/http/stacks/openapi-tidy.js';
import { resolveStacksConfig } from '../../../src/stacks/config/stacks-config.js';
import { GitStacks } from '../../../src/stacks/git/git-stacks.js';
import { StacksService } from '../../../src/stacks/stacks-service.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore } from '../../../src/store/types.js';
import { tempDir } from '../../cli/helpers.js';
import { FAKE_COMPOSE } from './helpers.js';
import { AnswerChecker, type Json, type Paths, validateDocument } from './openapi-helpers.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

describe('the stacks OpenAPI document, from the app itself', () => {
  let store: EventStore;
  let dataDir: string;
  let service: StacksService;
  let git: GitStacks;
  let app: FastifyInstance;
  let doc: Json;
  let paths: Paths;

  beforeAll(async () => {
    dataDir = await tempDir();
    store = await openStore('memory:');
    const { config } = resolveStacksConfig({
      users: [{ name: 'admin', token: 't-admin', admin: true }],
      compose: { command: [process.execPath, FAKE_COMPOSE] },
    });
    service = await StacksService.open({ store, dataDir, config });
    git = await GitStacks.open(service);
    app = stacksApp(service, { git });
    await app.ready();
    doc = app.swagger() as unknown as Json;
    paths = doc.paths as Paths;
  });

  afterAll(async () => {
    await app?.close();
    git?.stopSchedules();
    await service?.close();
    await git?.close();
    await store?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(validateDocument(doc)).resolves.toBeDefined();
  });

  it('holds every route the app registered, and nothing it did not', () => {
    const registered = new Set(
      registeredRoutes(app)
        // Fastify answers HEAD for every GET by itself; the pages (docs, web page) are not the API.
        .filter((r) => r.method !== 'HEAD' && !isPageRoute(r))
        .map((r) => `${r.method} ${openApiPath(r.url)}`),
    );
    const documented = new Set(
      Object.entries(paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => METHODS.includes(key))
          .map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    expect([...documented].sort()).toEqual([...registered].sort());
    expect(registered.size).toBeGreaterThanOrEqual(27);
    for (const key of documented) {
      const [method, path] = key.split(' ') as [string, string];
      expect(app.hasRoute({ method, url: path.replace(/\{([A-Za-z]+)\}/g, ':$1') }), key).toBe(true);
    }
  });

  it('a route without schemas is refused when it is added', async () => {
    const bare = stacksApp(service, {});
    expect(() => bare.get('/api/undocumented', async () => ({ ok: true }))).toThrow(
      /GET \/api\/undocumented declares no schemas/,
    );
    await bare.close();
  });

  it('an answer that breaks its schema is a 500 naming the route, never the broken answer', async () => {
    const broken = stacksApp(service, {});
    broken.route({
      method: 'GET',
      url: '/api/broken',
      schema: { response: { 200: z.object({ count: z.number() }), 500: ErrorBody } },
      handler: async () => ({ count: 'many' }),
    });
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const reply = await broken.inject({ url: '/api/broken', headers: { authorization: 'Bearer t-admin' } });
      expect(reply.statusCode).toBe(500);
      expect(reply.json()).toEqual({
        error:
          'Internal error: The 200 answer of GET /api/broken does not match its schema: count: Invalid input: expected number, received string',
      });
      expect(String(stderr.mock.calls[0]?.[0])).toContain('does not match its schema');
    } finally {
      stderr.mockRestore();
      await broken.close();
    }
  });

  it('documents the bearer scheme, 401 on every route that needs it, error bodies, SSE and ids', () => {
    const schemes = (doc.components as { securitySchemes: Json }).securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'chronicle_session' });
    expect(doc.security).toEqual([{ bearer: [] }, { session: [] }]);
    const ids: string[] = [];
    for (const [path, item] of Object.entries(paths))
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method} ${path}`;
        ids.push(operation.operationId ?? where);
        const open = Array.isArray(operation.security) && operation.security.length === 0;
        if (!open) expect(Object.keys(operation.responses), where).toContain('401');
        for (const [status, answer] of Object.entries(operation.responses)) {
          expect(answer.description, `${where} ${status}`).toMatch(/\w/);
          if (Number(status) >= 400 && status !== '500')
            expect(answer.content?.['application/json']?.schema, `${where} ${status}`).toEqual({
              $ref: '#/components/schemas/Error',
            });
        }
      }
    expect(new Set(ids).size).toBe(ids.length);
    expect(paths['/api/git-stacks/{name}/webhook']?.post?.security).toEqual([]);
    expect(paths['/api/openapi.json']?.get?.security).toEqual([]);
    expect(Object.keys(paths['/api/jobs/{id}/events']?.get?.responses['200']?.content ?? {})).toEqual([
      'text/event-stream',
    ]);
    expect(
      Object.keys(paths['/api/stacks/{name}/deploys/{runId}/log']?.get?.responses['200']?.content ?? {}),
    ).toEqual(['text/plain', 'text/event-stream', 'application/json']);
    // The deploy history's answers: named schemas, the audit export as ndjson.
    expect(paths['/api/audit']?.get?.responses['200']?.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/AuditPage' } },
      'application/x-ndjson': { schema: { type: 'string' } },
    });
    for (const [path, method, id] of [
      ['/api/stacks/{name}/deploys/{runId}/compose', 'get', 'RunCompose'],
      ['/api/stacks/{name}/deploys/{runId}/variables', 'get', 'RunVariables'],
      ['/api/stacks/{name}/deploys/{runId}/diff', 'get', 'RunDiff'],
      ['/api/stacks/{name}/history-settings', 'get', 'HistorySettings'],
      ['/api/stacks/{name}/history-settings', 'put', 'HistorySettings'],
      ['/api/schedules/deploy_run_retention/run', 'post', 'RetentionExecution'],
      ['/api/notifications/{name}/test', 'post', 'NotificationTestOutcome'],
      ['/api/notifications/deliveries', 'get', 'DeliveriesPage'],
    ] as const)
      expect(paths[path]?.[method]?.responses['200']?.content?.['application/json']?.schema, path).toEqual({
        $ref: `#/components/schemas/${id}`,
      });
    // Every status code of the issue appears somewhere.
    const statuses = new Set(
      Object.values(paths).flatMap((item) => Object.values(item).flatMap((o) => Object.keys(o.responses))),
    );
    for (const status of ['200', '201', '202', '400', '401', '403', '404', '409', '413', '422', '500', '503'])
      expect(statuses.has(status), status).toBe(true);
    // Only the bodies a client may leave out are not required.
    const optional = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, o]) => o.requestBody?.required === false)
        .map(([method]) => `${method} ${path}`),
    );
    expect(optional.sort()).toEqual([
      'post /api/git-stacks/{name}/deploy',
      'post /api/git-stacks/{name}/webhook',
      'post /api/settings/general',
      'post /api/stacks/{name}/deploy',
      'put /api/git-stacks/{name}',
    ]);
  });

  it('every example validates against the schema it illustrates', async () => {
    const checker = await AnswerChecker.of(doc);
    const components = (doc.components as { schemas: Record<string, Json> }).schemas;
    let examples = 0;
    for (const [name, schema] of Object.entries(components))
      for (const example of (schema.examples as unknown[] | undefined) ?? []) {
        checker.checkComponent(name, example);
        examples += 1;
      }
    for (const [path, item] of Object.entries(checker.paths))
      for (const [method, operation] of Object.entries(item))
        for (const media of [
          ...Object.values(operation.requestBody?.content ?? {}),
          ...Object.values(operation.responses).flatMap((answer) => Object.values(answer.content ?? {})),
        ]) {
          const example = (media as { example?: unknown }).example;
          if (example === undefined || !media.schema) continue;
          checker.validate(`${method} ${path} example ${examples}`, media.schema, example);
          examples += 1;
        }
    expect(examples).toBeGreaterThanOrEqual(60);
    // An error answer shows its own message.
    const missingRun = checker.operation('getRun').responses['404']?.content?.['application/json'];
    expect((missingRun as { example?: unknown }).example).toEqual({ error: 'Run not found' });
  });

  it('its checks are not vacuous: a field the document does not list, or one of the wrong type, fails', async () => {
    const checker = await AnswerChecker.of(doc);
    const example = structuredClone(
      (doc.components as { schemas: { Run: { examples: Json[] } } }).schemas.Run.examples[0],
    ) as Json;
    checker.checkComponent('Run', example);
    expect(() => checker.checkComponent('Run', { ...example, stackName: 'web' })).toThrow(/additional/);
    expect(() => checker.checkComponent('Run', { ...example, id: '1' })).toThrow(/must be integer/);
    expect(() => checker.checkComponent('Run', { ...example, startedAt: 'yesterday' })).toThrow(/startedAt/);
  });

  it('names no component that nothing uses; every one the paths name exists', () => {
    const components = Object.keys((doc.components as { schemas: Json }).schemas);
    const text = JSON.stringify(doc);
    for (const name of components) expect(text, name).toContain(`#/components/schemas/${name}`);
    for (const match of text.matchAll(/#\/components\/schemas\/([A-Za-z0-9_.-]+)/g))
      expect(components, match[1]).toContain(match[1]);
  });
});
