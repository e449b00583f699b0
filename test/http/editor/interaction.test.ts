/**
 * The interaction ops over the generic passthrough of a headless editor: view_focus frames entities,
 * getpoint and user_select are 409 gui_required (capture draws a PNG: capture.test.ts), cancel answers at once; all of them also while a
 * client holds a connection open.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { body, Client, createEntities, type EditorServer, newDocument, startEditor } from './helpers.js';

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

describe('interaction ops over REST (headless)', () => {
  it('POST /api/v1/view_focus frames the handles and answers 200 with the view', async () => {
    await newDocument(client);
    const [a] = await createEntities(client, [{ type: 'Circle', center: [10, 10], radius: 5 }]);
    const answer = await client.post('/api/v1/view_focus', { handles: [a] });
    expect(answer.status, answer.text).toBe(200);
    expect(body(answer)).toMatchObject({
      ok: true,
      result: { center: [10, 10], width: 11, height: 11 },
      http_status: 200,
    });
    const missing = await client.post('/api/v1/view_focus', { handles: ['FFFFF'] });
    expect(missing.status).toBe(404);
    expect(body(missing)).toMatchObject({ ok: false, code: 'entity_absent' });
    const neither = await client.post('/api/v1/view_focus', {});
    expect(neither.status).toBe(400);
    expect(body(neither)).toMatchObject({ ok: false, code: 'invalid_request' });
  });

  it('getpoint and user_select (picks of a person at the viewer) are 409 gui_required', async () => {
    for (const op of ['getpoint', 'user_select']) {
      const answer = await client.post(`/api/v1/${op}`, { prompt: 'pick something' });
      expect(answer.status, op).toBe(409);
      expect(body(answer), op).toMatchObject({ ok: false, code: 'gui_required', http_status: 409 });
    }
  });

  it('cancel answers 200 with nothing cancelled; an unknown target is 400 unknown_operation', async () => {
    const answer = await client.post('/api/v1/cancel', {});
    expect(answer.status, answer.text).toBe(200);
    expect(body(answer)).toMatchObject({ ok: true, result: { cancelled: false, count: 0 } });
    const unknown = await client.post('/api/v1/cancel', { id: 'never-sent' });
    expect(unknown.status).toBe(400);
    expect(body(unknown)).toMatchObject({ ok: false, code: 'unknown_operation' });
  });
});
