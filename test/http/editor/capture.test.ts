/**
 * POST /api/v1/capture over real sockets: the PNG itself (image/png, the transport's headers), drawn
 * where the drawing is (a red line's pixels on its row and nowhere else), the selection highlighted,
 * layouts and windows; failures as JSON. And POST /api/v1/dispatch, which runs any protocol-1 request
 * as it is (what `editor --mcp --attach` sends).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bluish,
  decodePng,
  pixelsWhere,
  RED_LINE_CAPTURE,
  reddish,
  redLineProblem,
} from '../../editor/capture/pixels.js';
import { body, Client, createEntities, type EditorServer, header, startEditor } from './helpers.js';

let server: EditorServer;
let client: Client;
let line: string;

beforeAll(async () => {
  server = await startEditor();
  client = new Client(server.port);
  [line] = (await createEntities(client, [{ type: 'Line', start: [0, 0], end: [100, 0], color: 1 }])) as [
    string,
  ];
});

afterAll(async () => {
  await server?.stop();
});

describe('POST /api/v1/capture', () => {
  it('answers the PNG with the transport headers; a red line shows on its row and nowhere else', async () => {
    const answer = await client.post('/api/v1/capture', RED_LINE_CAPTURE);
    expect(answer.status, answer.text.slice(0, 200)).toBe(200);
    expect(header(answer, 'content-type')).toBe('image/png');
    expect(header(answer, 'content-length')).toBe(String(answer.body.length));
    expect(header(answer, 'access-control-allow-origin')).toBe('*');
    expect(header(answer, 'connection')).toBe('close');
    expect(answer.body.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(redLineProblem(decodePng(answer.body))).toBeUndefined();
  });

  it('is the same drawing on a white background, and the extents with a margin by default', async () => {
    const white = decodePng(
      (await client.post('/api/v1/capture', { ...RED_LINE_CAPTURE, background: 'white' })).body,
    );
    expect(redLineProblem(white)).toBeUndefined();
    expect(white.data.subarray(0, 3)).toEqual(Buffer.from([255, 255, 255]));
    // The extents of a 100-unit line: 4 units of margin all round, so 108 x 8 units at 512 pixels.
    const extents = decodePng((await client.post('/api/v1/capture', { width: 512 })).body);
    expect([extents.width, extents.height]).toEqual([512, 38]);
    expect(pixelsWhere(extents, reddish).length).toBeGreaterThan(400);
  });

  it('highlights the selection in the viewer accent', async () => {
    expect(
      pixelsWhere(decodePng((await client.post('/api/v1/capture', RED_LINE_CAPTURE)).body), bluish),
    ).toEqual([]);
    expect((await client.post('/api/v1/select', { handles: [line] })).status).toBe(200);
    const picked = decodePng((await client.post('/api/v1/capture', RED_LINE_CAPTURE)).body);
    const blue = pixelsWhere(picked, bluish);
    expect(blue.length).toBeGreaterThan(50);
    expect(blue.every(([, y]) => y >= 97 && y <= 103)).toBe(true);
    expect((await client.post('/api/v1/select', { clear: true })).status).toBe(200);
  });

  it('captures a layout by name: Model shows the line, a new empty layout a blank picture', async () => {
    const model = await client.post('/api/v1/capture', { ...RED_LINE_CAPTURE, layout: 'model' });
    expect(redLineProblem(decodePng(model.body))).toBeUndefined();
    expect((await client.post('/api/v1/layouts', { name: 'Sheet' })).status).toBe(201);
    const sheet = await client.post('/api/v1/capture', { layout: 'Sheet', width: 256 });
    expect(sheet.status, sheet.text.slice(0, 300)).toBe(200);
    const blank = decodePng(sheet.body);
    expect([blank.width, blank.height]).toEqual([256, 256]);
    expect(pixelsWhere(blank, reddish)).toEqual([]);
  });

  it('answers failures as JSON with their code and status', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ width: 255 }, 'invalid_width'],
      [{ width: 4097 }, 'invalid_width'],
      [{ width: 'big' }, 'invalid_width'],
      [{ window: [0, 0, 10] }, 'invalid_point'],
      [{ window: [0, 0, 10, 0] }, 'invalid_point'],
      [{ layout: 'Nowhere' }, 'layout_missing'],
      [{ background: 'chartreuse' }, 'invalid_background'],
      [{ document_id: 99 }, 'document_closed'],
      [{ revision: 999 }, 'stale_state'],
    ];
    for (const [request, code] of cases) {
      const answer = await client.post('/api/v1/capture', request);
      const status = code === 'stale_state' ? 409 : 400;
      expect(answer.status, JSON.stringify(request)).toBe(status);
      expect(header(answer, 'content-type')).toBe('application/json');
      expect(body(answer)).toMatchObject({ ok: false, code, http_status: status });
      expect(body(answer).state).toBeUndefined();
    }
  });

  it('is in the OpenAPI document as image/png', async () => {
    const openapi = body(await client.get('/api/v1/openapi'));
    const paths = openapi.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    expect(paths['/api/v1/capture']?.post?.responses['200']).toEqual({
      description: 'completed',
      content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
    });
    expect(paths['/api/v1/dispatch']?.post).toBeDefined();
  });
});

describe('POST /api/v1/dispatch', () => {
  it('runs any op with its fields, also those a route of the table takes', async () => {
    const [extra] = await createEntities(client, [{ type: 'Circle', center: [0, 0], radius: 1 }]);
    const state = body(await client.get('/api/v1/state'));
    const undo = { op: 'undo', request_id: 'dispatch-undo-1', revision: state.revision };
    const first = await client.post('/api/v1/dispatch', undo);
    expect(first.status, first.text).toBe(200);
    expect(body(first)).toMatchObject({
      ok: true,
      request_id: 'dispatch-undo-1',
      changes: [{ handle: extra, kind: 'erased' }],
    });
    expect(body(first).state).toBeDefined();
    // The same request_id and body: the first answer again, nothing undone twice.
    const again = body(await client.post('/api/v1/dispatch', undo));
    expect(again).toMatchObject({
      ok: true,
      request_id: 'dispatch-undo-1',
      changes: [{ handle: extra, kind: 'erased' }],
    });
    expect(body(await client.get('/api/v1/state')).revision).toBe((state.revision as number) + 1);
    // The read op `entities` (POST /entities creates them).
    expect(body(await client.post('/api/v1/dispatch', { op: 'entities' }))).toMatchObject({ ok: true });
    const stale = await client.post('/api/v1/dispatch', { ...undo, request_id: 'dispatch-undo-2' });
    expect(stale.status).toBe(409);
    expect(body(stale)).toMatchObject({ ok: false, code: 'stale_state' });
    const unknown = await client.post('/api/v1/dispatch', {});
    expect(body(unknown)).toMatchObject({ ok: false, code: 'unknown_operation' });
  });
});
