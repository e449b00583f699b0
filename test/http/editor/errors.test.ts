/**
 * The error rules of spec/editor-rest-api.md: 404 unknown_route outside /api/v1 and for unmatched
 * paths, 405 method_not_allowed, and the HTTP status derived from each failure code.
 * The tests of this file run in order on one server, which starts with one blank drawing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGuiEditor } from '../viewer/helpers.js';
import {
  type Answer,
  arr,
  body,
  Client,
  type EditorServer,
  newDocument,
  rawCall,
  rawRequest,
  startEditor,
  strings,
  transportProblems,
} from './helpers.js';

vi.setConfig({ testTimeout: 20_000, hookTimeout: 30_000 });

let server: EditorServer;
let client: Client;

beforeAll(async () => {
  server = await startEditor();
  client = new Client(server.port);
});

afterAll(async () => {
  await server?.stop();
});

const LINE = { type: 'Line', start: [0, 0], end: [10, 0] };

function expectFailure(answer: Answer, status: number, code: string, what = code) {
  expect(answer.status, `${what}: ${answer.text}`).toBe(status);
  expect(answer.json, what).toMatchObject({ ok: false, code, http_status: status });
  expect(typeof body(answer).error, what).toBe('string');
}

describe('failure codes and their HTTP status (mutation routes)', () => {
  it('a fresh server has a blank drawing open: POST /entities is 201 there (no document_required)', async () => {
    const answer = await client.post('/api/v1/entities', { entities: [LINE] });
    expect(answer.status, answer.text).toBe(201);
    expect(body(answer).document_id).toBe(1);
  });

  it('document_closed (a document_id that is not open) is 400', async () => {
    await newDocument(client);
    const answer = await client.post('/api/v1/entities', { document_id: 999, entities: [LINE] });
    expectFailure(answer, 400, 'document_closed');
  });

  it('invalid_point is 400', async () => {
    const answer = await client.post('/api/v1/entities', {
      entities: [{ type: 'Line', start: 'here', end: [1, 1] }],
    });
    expectFailure(answer, 400, 'invalid_point');
  });

  it('entity_absent is 404 (DELETE /entities with a handle that does not exist)', async () => {
    const answer = await client.del('/api/v1/entities?handles=FFFFF');
    expectFailure(answer, 404, 'entity_absent');
  });

  it('stale_state (a revision the document is not at) is 409', async () => {
    const answer = await client.post('/api/v1/entities', { revision: 999, entities: [LINE] });
    expectFailure(answer, 409, 'stale_state');
  });

  it('session_changed (another session_id) is 409', async () => {
    const answer = await client.post('/api/v1/entities', {
      session_id: 'not-this-session',
      entities: [LINE],
    });
    expectFailure(answer, 409, 'session_changed');
  });

  it('document_not_active (an open document that is not the active one) is 409', async () => {
    const first = await newDocument(client);
    await newDocument(client);
    const answer = await client.post('/api/v1/entities', { document_id: first, entities: [LINE] });
    expectFailure(answer, 409, 'document_not_active');
  });
});

describe('failure codes and their HTTP status (Run routes)', () => {
  it('unknown_operation is 400 (generic POST /{op} of an op the dispatcher does not know)', async () => {
    const answer = await client.post('/api/v1/no_such_operation', {});
    expectFailure(answer, 400, 'unknown_operation');
  });

  it('unknown_operation from POST /operation for an id never sent is 400', async () => {
    const answer = await client.post('/api/v1/operation', { request_id: 'never-sent-anywhere' });
    expectFailure(answer, 400, 'unknown_operation');
  });

  it('entity_absent from GET /entities/{handle} is 404', async () => {
    const answer = await client.get('/api/v1/entities/FFFFF');
    expectFailure(answer, 404, 'entity_absent');
  });

  it('user_select headless is 409 gui_required', async (ctx) => {
    const capabilities = await client.get('/api/v1/capabilities');
    const ops = strings(body(capabilities), 'result.ops');
    if (!ops.includes('user_select')) {
      const reason = `user_select is not among the ops GET /capabilities lists (${ops.length} ops): the headless dispatcher does not offer it`;
      console.log(`skipped: ${reason}`);
      ctx.skip(reason);
    }
    const answer = await client.post('/api/v1/user_select', {});
    expectFailure(answer, 409, 'gui_required');
  });

  it('busy is 503: a mutation while a user_select waits for the person at the viewer', async () => {
    // Only the GUI-hosted editor has picks that wait; the headless one refuses them (gui_required).
    const gui = await startGuiEditor();
    try {
      const pick = await gui.rest.post('/api/v1/user_select', { prompt: 'pick a wall' });
      expect(body(pick)).toMatchObject({ ok: true, status: 'pending' });
      const answer = await gui.rest.post('/api/v1/entities', {
        entities: [{ type: 'Line', start: [0, 0], end: [1, 1] }],
      });
      expectFailure(answer, 503, 'busy');
    } finally {
      await gui.stop();
    }
  });
});

describe('unknown routes', () => {
  it('a path outside /api/v1 answers 404 unknown_route, telling to use /api/v1/...', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/state'],
      ['POST', '/documents'],
      ['GET', '/api/state'],
      ['DELETE', '/api/v2/entities'],
      ['PUT', '/v1/layouts/x/page-setup'],
    ] as const) {
      const answer = await client.call(method, path, method === 'GET' ? {} : { json: {} });
      expectFailure(answer, 404, 'unknown_route', `${method} ${path}`);
      expect(String(body(answer).error), `${method} ${path}`).toContain('/api/v1/');
    }
  });

  it('an unmatched path under /api/v1 answers 404 `No route <METHOD> <path>`, trailing slash removed', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/api/v1/nope', 'No route GET /api/v1/nope'],
      ['GET', '/api/v1/nope/', 'No route GET /api/v1/nope'],
      ['GET', '/api/v1/nope?x=1', 'No route GET /api/v1/nope'],
      ['PUT', '/api/v1/state', 'No route PUT /api/v1/state'],
      ['DELETE', '/api/v1/sysvars', 'No route DELETE /api/v1/sysvars'],
      ['POST', '/api/v1/entities/1A/extra/deep', 'No route POST /api/v1/entities/1A/extra/deep'],
      ['GET', '/api/v1/layouts/Layout1/page-setup/', 'No route GET /api/v1/layouts/Layout1/page-setup'],
    ];
    for (const [method, path, message] of cases) {
      const answer = await client.call(method, path, method === 'GET' ? {} : { json: {} });
      expectFailure(answer, 404, 'unknown_route', `${method} ${path}`);
      expect(body(answer).error, `${method} ${path}`).toBe(message);
    }
  });

  it('POST of a single unknown segment is the generic Run, not a 404: unknown_operation 400', async () => {
    const answer = await client.post('/api/v1/frobnicate', {});
    expectFailure(answer, 400, 'unknown_operation');
    expect(body(answer).state, 'Run answers keep state').toBeTypeOf('object');
  });
});

describe('other methods', () => {
  it('answer 405 method_not_allowed `<METHOD> not supported here`, on routes and off them', async () => {
    for (const [method, path] of [
      ['PATCH', '/api/v1/state'],
      ['PATCH', '/api/v1/entities/1A'],
      ['PATCH', '/api/v1/nope'],
      ['PROPFIND', '/api/v1/entities'],
      ['TRACE', '/api/v1/ready'],
    ] as const) {
      const { answer } = await rawCall(
        server.port,
        rawRequest(server.port, method, path, method === 'TRACE' ? {} : { body: '{}' }),
      );
      expectFailure(answer, 405, 'method_not_allowed', `${method} ${path}`);
      expect(answer.reason, `${method} ${path}`).toBe('Method Not Allowed');
      expect(body(answer).error, `${method} ${path}`).toBe(`${method} not supported here`);
    }
  });

  it('PATCH changes nothing: the document list is the same after it', async () => {
    const documents = async () => arr(body(await client.get('/api/v1/state')), 'state.documents').length;
    const before = await documents();
    const { answer } = await rawCall(
      server.port,
      rawRequest(server.port, 'PATCH', '/api/v1/documents', { body: '{}' }),
    );
    expect(answer.status).toBe(405);
    expect(await documents()).toBe(before);
  });
});

describe('transport of the answers above', () => {
  it('every one carried the spec’s headers, reason phrase and http_status', () => {
    expect(client.answers.length).toBeGreaterThan(20);
    for (const { what, answer } of client.answers) expect(transportProblems(answer), what).toEqual([]);
  });
});
