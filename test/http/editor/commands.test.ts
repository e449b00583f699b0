/**
 * `run` and `batch` over REST against the real CLI: POST /api/v1/commands (a Run of op `run`),
 * POST /api/v1/run and POST /api/v1/batch (generic passthrough).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  body,
  Client,
  createEntities,
  type EditorServer,
  newDocument,
  startEditor,
  strings,
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

const entitiesCount = async () => body(await client.get('/api/v1/entities')).count as number;

describe('POST /api/v1/commands', () => {
  it('draws a chain of lines and answers cmd, status, entities and added (200)', async () => {
    await newDocument(client);
    const answer = await client.post('/api/v1/commands', { cmd: 'LINE 0,0 10,0 @0,10' });
    expect(answer.status, answer.text).toBe(200);
    const json = body(answer);
    expect(json).toMatchObject({
      ok: true,
      status: 'completed',
      cmd: 'LINE 0,0 10,0 @0,10',
      http_status: 200,
    });
    const added = strings(json, 'result.added');
    expect(added).toHaveLength(2);
    expect(json.added).toEqual(added);
    expect(json.entities).toEqual(added);
    expect(json.result).toMatchObject({ cmd: 'LINE 0,0 10,0 @0,10', status: 'completed', entities: added });
    const line = body(await client.get(`/api/v1/entities/${added[1]}`));
    expect(line).toMatchObject({ entities: [{ type: 'Line', start: [10, 0, 0], end: [10, 10, 0] }] });
  });

  it('each drawing command is one undo step: POST /undo takes back the last command only', async () => {
    await newDocument(client);
    await client.post('/api/v1/commands', { cmd: 'CIRCLE 5,5 2; TEXT 0,0 2.5 0 Hello world; ERASE L' });
    expect(await entitiesCount()).toBe(1);
    expect(body(await client.post('/api/v1/undo'))).toMatchObject({ ok: true });
    expect(await entitiesCount()).toBe(2);
    const undo = await client.post('/api/v1/commands', { cmd: 'undo 2' });
    expect(undo.status, undo.text).toBe(200);
    expect(await entitiesCount()).toBe(0);
  });

  it('POST /api/v1/run reaches the same op; SELECT feeds get_selection', async () => {
    await newDocument(client);
    const [inside] = await createEntities(client, [
      { type: 'Circle', center: [1, 1], radius: 0.5 },
      { type: 'Circle', center: [50, 50], radius: 1 },
    ]);
    const answer = await client.post('/api/v1/run', { cmd: 'SELECT W 0,0 @5,5' });
    expect(answer.status, answer.text).toBe(200);
    expect(body(answer)).toMatchObject({ ok: true, entities: [inside] });
    const selection = body(await client.post('/api/v1/get_selection', {}));
    expect(selection).toMatchObject({ result: { count: 1, entities: [{ handle: inside }] } });
  });

  it('errors: unknown_command, invalid_point, invalid_command (400), entity_absent (404)', async () => {
    await newDocument(client);
    const cases: Array<[unknown, number, string, string]> = [
      ['EXPLODE 2A', 400, 'unknown_command', 'EXPLODE'],
      ['LINE 0,0 x,1', 400, 'invalid_point', 'x,1'],
      ['CIRCLE 0,0', 400, 'invalid_command', 'a radius'],
      [undefined, 400, 'invalid_command', 'cmd must be'],
      ['ERASE FFFFF', 404, 'entity_absent', 'FFFFF'],
    ];
    for (const [cmd, status, code, fragment] of cases) {
      const answer = await client.post('/api/v1/commands', cmd === undefined ? {} : { cmd });
      expect(answer.status, String(cmd)).toBe(status);
      const json = body(answer);
      expect(json, String(cmd)).toMatchObject({ ok: false, code, http_status: status });
      expect(json.error as string, String(cmd)).toContain(fragment);
    }
    expect(await entitiesCount()).toBe(0);
  });
});

describe('POST /api/v1/batch', () => {
  it('runs the steps in order on the active document (200)', async () => {
    await newDocument(client);
    const answer = await client.post('/api/v1/batch', {
      steps: [
        { op: 'entities_create', entities: [{ type: 'Circle', center: [0, 0], radius: 1 }] },
        { op: 'run', cmd: 'COPY L 0,0 @3,0' },
        { op: 'query' },
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    const json = body(answer);
    expect(json).toMatchObject({
      ok: true,
      completed_steps: 3,
      next_step: null,
      result: { completed_steps: 3 },
    });
    expect((json.results as Array<{ count?: number }>)[2]?.count).toBe(2);
    expect(await entitiesCount()).toBe(2);
  });

  it('stops at the first failure with the step code (mapped status), completed_steps and next_step', async () => {
    await newDocument(client);
    const answer = await client.post('/api/v1/batch', {
      steps: [
        { op: 'entities_create', entities: [{ type: 'Point', location: [1, 1] }] },
        { op: 'entities_delete', handles: ['FFFFF'] },
        { op: 'entities_create', entities: [{ type: 'Point', location: [2, 2] }] },
      ],
    });
    expect(answer.status, answer.text).toBe(404);
    expect(body(answer)).toMatchObject({
      ok: false,
      code: 'entity_absent',
      completed_steps: 1,
      next_step: 1,
    });
    expect((body(answer).results as unknown[]).length).toBe(1);
    expect(await entitiesCount()).toBe(1);
  });

  it('atomic: one undo step on success, nothing on failure', async () => {
    await newDocument(client);
    const steps = [
      { op: 'entities_create', entities: [{ type: 'Point', location: [1, 1] }] },
      { op: 'run', cmd: 'CIRCLE 0,0 4; LINE 0,0 1,1' },
    ];
    const ok = await client.post('/api/v1/batch', { steps, atomic: true });
    expect(ok.status, ok.text).toBe(200);
    expect(await entitiesCount()).toBe(3);
    expect(body(await client.post('/api/v1/undo'))).toMatchObject({ ok: true, result: { undone: 'batch' } });
    expect(await entitiesCount()).toBe(0);
    const failed = await client.post('/api/v1/batch', {
      steps: [...steps, { op: 'run', cmd: 'BOGUS' }],
      atomic: true,
    });
    expect(failed.status).toBe(400);
    expect(body(failed)).toMatchObject({
      ok: false,
      code: 'unknown_command',
      completed_steps: 2,
      next_step: 2,
    });
    expect(await entitiesCount()).toBe(0);
  });

  it('refuses a batch over 64 steps, a non-array, a nested batch and interactive ops (400)', async () => {
    await newDocument(client);
    const point = { op: 'entities_create', entities: [{ type: 'Point', location: [0, 0] }] };
    const cases: Array<[unknown, string]> = [
      [{ steps: Array.from({ length: 65 }, () => point) }, 'batch_too_large'],
      [{ steps: 'LINE' }, 'invalid_request'],
      [{}, 'invalid_request'],
      [{ steps: [{ op: 'batch', steps: [point] }] }, 'nested_batch'],
      [{ steps: [{ op: 'getpoint' }] }, 'not_batchable'],
      [{ steps: [point, { op: 'save' }], atomic: true }, 'not_atomic'],
    ];
    for (const [request, code] of cases) {
      const answer = await client.post('/api/v1/batch', request);
      expect(answer.status, code).toBe(400);
      expect(body(answer), code).toMatchObject({ ok: false, code, http_status: 400 });
    }
    expect(await entitiesCount()).toBe(0);
  });
});
