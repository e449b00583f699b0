/**
 * GET /entities: each query parameter as the spec's table forwards it to the `query` op, the query
 * string decoding rules (`+` is a space, a malformed `%` sequence stays literal), and `where` parsed by
 * the server (400 invalid_where before the dispatcher is reached).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  arr,
  at,
  body,
  Client,
  createEntities,
  type EditorServer,
  newDocument,
  startEditor,
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

/** The message JSON.parse gives for `text`, as the server must quote it. */
function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} is valid JSON`);
}

const handlesOf = (answer: Awaited<ReturnType<Client['get']>>) =>
  arr(body(answer), 'entities').map((e) => at(e, 'handle'));

describe('where that is not JSON', () => {
  it('answers 400 invalid_where `where must be a JSON array: <parse error>` without reaching the dispatcher', async () => {
    // An answer of the dispatcher (a Run) carries the session's state; the server's own does not.
    const reached = await client.get('/api/v1/entities');
    expect(reached.status).toBe(200);
    expect(body(reached)).toHaveProperty('state');
    for (const where of ['[', 'not json', "[{'path':'/radius'}]"]) {
      const answer = await client.get(`/api/v1/entities?where=${encodeURIComponent(where)}`);
      expect(answer.status, where).toBe(400);
      expect(body(answer), where).toMatchObject({
        ok: false,
        code: 'invalid_where',
        error: `where must be a JSON array: ${parseError(where)}`,
        http_status: 400,
      });
      expect(body(answer)).not.toHaveProperty('state');
    }
  });
});

describe('the query parameters', () => {
  let L1: string;
  let C1: string;
  let C2: string;
  let T1: string;
  let P1: string;
  let L2: string;
  let all: string[];

  beforeAll(async () => {
    await newDocument(client);
    all = await createEntities(client, [
      { type: 'Line', start: [0, 0], end: [10, 0], layer: 'A' },
      { type: 'Circle', center: [5, 5], radius: 2, layer: 'B' },
      { type: 'Circle', center: [100, 100], radius: 10, layer: 'B' },
      { type: 'Text', value: 'hello', position: [50, 50], height: 2, layer: 'my layer' },
      { type: 'Point', location: [5, -5], layer: '50%off' },
      { type: 'Line', start: [5, -10], end: [5, 10], layer: 'A' },
    ]);
    [L1, C1, C2, T1, P1, L2] = all as [string, string, string, string, string, string];
  });

  it('none: every entity, count', async () => {
    const answer = await client.get('/api/v1/entities');
    expect(answer.status).toBe(200);
    expect(body(answer).count).toBe(6);
    expect(handlesOf(answer)).toEqual(all);
  });

  it('type and layer', async () => {
    expect(handlesOf(await client.get('/api/v1/entities?type=Circle'))).toEqual([C1, C2]);
    expect(handlesOf(await client.get('/api/v1/entities?layer=A'))).toEqual([L1, L2]);
    expect(handlesOf(await client.get('/api/v1/entities?type=Line&layer=B'))).toEqual([]);
  });

  it('query values are percent-decoded, + is a space, a malformed % sequence stays literal', async () => {
    expect(handlesOf(await client.get('/api/v1/entities?layer=my+layer'))).toEqual([T1]);
    expect(handlesOf(await client.get('/api/v1/entities?layer=my%20layer'))).toEqual([T1]);
    expect(handlesOf(await client.get('/api/v1/entities?layer=50%25off'))).toEqual([P1]);
    expect(handlesOf(await client.get('/api/v1/entities?layer=50%off'))).toEqual([P1]);
  });

  it('detail: summary, geometry, full', async () => {
    const summary = await client.get(`/api/v1/entities?detail=summary&handles=${C1}`);
    expect(at(body(summary), 'entities.0')).toEqual({ handle: C1, type: 'Circle', layer: 'B' });
    const geometry = await client.get(`/api/v1/entities?detail=geometry&handles=${C1}`);
    expect(at(body(geometry), 'entities.0')).toMatchObject({ center: [5, 5, 0], radius: 2 });
    expect(at(body(geometry), 'entities.0.bounds')).toBeUndefined();
    const full = await client.get(`/api/v1/entities?detail=full&handles=${C1}`);
    expect(at(body(full), 'entities.0.bounds')).toEqual({ min: [3, 3, 0], max: [7, 7, 0] });
    const bad = await client.get('/api/v1/entities?detail=everything');
    expect(bad.status).toBe(400);
    expect(body(bad).code).toBe('invalid_query');
  });

  it('offset and limit page the answer', async () => {
    const page = await client.get('/api/v1/entities?offset=1&limit=2');
    expect(page.status).toBe(200);
    expect(handlesOf(page)).toEqual([C1, C2]);
    expect(body(page)).toMatchObject({ count: 6, returned: 2, next_offset: 3 });
    const last = await client.get('/api/v1/entities?offset=5&limit=1000');
    expect(handlesOf(last)).toEqual([L2]);
    expect(body(last).next_offset).toBeNull();
  });

  it('offset and limit are forwarded as the strings given', async () => {
    const offset = await client.get('/api/v1/entities?offset=abc');
    expect(offset.status).toBe(400);
    expect(body(offset).code).toBe('invalid_query');
    expect(String(body(offset).error)).toContain('"abc"');
    const limit = await client.get('/api/v1/entities?limit=1.5');
    expect(limit.status).toBe(400);
    expect(String(body(limit).error)).toContain('"1.5"');
    const tooMany = await client.get('/api/v1/entities?limit=10001');
    expect(tooMany.status).toBe(400);
    expect(body(tooMany).code).toBe('invalid_query');
  });

  it('fields: a comma-separated list of the full answer’s fields (plus handle)', async () => {
    const answer = await client.get(`/api/v1/entities?type=Circle&fields=radius,layer`);
    expect(body(answer).entities).toEqual([
      { handle: C1, radius: 2, layer: 'B' },
      { handle: C2, radius: 10, layer: 'B' },
    ]);
  });

  it('handles: comma-separated, answered in the order given', async () => {
    expect(handlesOf(await client.get(`/api/v1/entities?handles=${C2},${L1}`))).toEqual([C2, L1]);
    const absent = await client.get(`/api/v1/entities?handles=${C2},FFFFF`);
    expect(absent.status).toBe(404);
    expect(body(absent).code).toBe('entity_absent');
  });

  it('bounds: 4 comma-separated numbers', async () => {
    expect(handlesOf(await client.get('/api/v1/entities?bounds=-1,-1,11,1'))).toEqual([L1, L2]);
    expect(handlesOf(await client.get('/api/v1/entities?bounds=90,90,120,120'))).toEqual([C2]);
  });

  it('bounds is ignored unless exactly 4 numbers parse', async () => {
    for (const bounds of ['-1,-1,11', '-1,-1,11,1,5', '-1,-1,11,x', 'a,b,c,d', '']) {
      const answer = await client.get(`/api/v1/entities?bounds=${bounds}`);
      expect(answer.status, bounds).toBe(200);
      expect(body(answer).count, bounds).toBe(6);
    }
  });

  it('near: comma-separated numbers, unparsable items dropped', async () => {
    const within = await client.get('/api/v1/entities?near=5,5,2');
    expect(within.status).toBe(200);
    expect(handlesOf(within)).toEqual([L2, C1]);
    expect(at(body(within), 'entities.1.distance')).toBeCloseTo(2);
    for (const near of ['5,x,5,2', 'x,5,5,,2', '5,5,two,2']) {
      const answer = await client.get(`/api/v1/entities?near=${near}`);
      expect(answer.status, near).toBe(200);
      expect(handlesOf(answer), near).toEqual([L2, C1]);
    }
    const nearest = await client.get('/api/v1/entities?near=99,99&limit=1');
    expect(handlesOf(nearest)).toEqual([C2]);
  });

  it('contains_point: comma-separated numbers', async () => {
    expect(handlesOf(await client.get('/api/v1/entities?contains_point=5,7'))).toEqual([C1, L2]);
    expect(handlesOf(await client.get('/api/v1/entities?contains_point=10,0'))).toEqual([L1]);
  });

  it('intersections: comma-separated handles', async () => {
    const answer = await client.get(`/api/v1/entities?intersections=${L1}`);
    expect(answer.status).toBe(200);
    expect(handlesOf(answer)).toEqual([L2]);
    expect(body(answer).points).toEqual([[5, 0, 0]]);
  });

  it('where: a JSON array of {path, op, value} filters', async () => {
    const where = JSON.stringify([{ path: '/radius', op: 'gt', value: 5 }]);
    const answer = await client.get(`/api/v1/entities?where=${encodeURIComponent(where)}`);
    expect(answer.status, answer.text).toBe(200);
    expect(handlesOf(answer)).toEqual([C2]);
    const two = JSON.stringify([
      { path: '/type', op: 'eq', value: 'Line' },
      { path: '/start/1', op: 'lt', value: 0 },
    ]);
    expect(handlesOf(await client.get(`/api/v1/entities?where=${encodeURIComponent(two)}`))).toEqual([L2]);
  });

  it('invalid where is refused also with a document open, and every other parameter is not used', async () => {
    const answer = await client.get('/api/v1/entities?type=Circle&where=%5Bnope');
    expect(answer.status).toBe(400);
    expect(body(answer)).toMatchObject({
      code: 'invalid_where',
      error: `where must be a JSON array: ${parseError('[nope')}`,
    });
    expect(body(answer).entities).toBeUndefined();
  });

  it('every answer of this file carried the transport headers and http_status', () => {
    for (const { what, answer } of client.answers) expect(transportProblems(answer), what).toEqual([]);
  });
});
