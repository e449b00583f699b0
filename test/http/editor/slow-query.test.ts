/**
 * A query of a 100,000-entity drawing with every entity's full detail (its box among them, the boxes
 * indexed on the first query) takes a while: it runs in slices, so `state` and `get_selection` are
 * answered while it runs (and `state` sees it running), and `cancel` stops it — the query then answers
 * `cancelled`, and the next query answers in full. Order is asserted, never time.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { body, Client, type EditorServer, linesDxf, startEditor } from './helpers.js';
import { seenRunning, startCall } from './running.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const COUNT = 100_000;

let server: EditorServer;
let client: Client;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-slow-query-'));
  server = await startEditor();
  client = new Client(server.port);
  const drawing = join(dir, 'lines.dxf');
  await writeFile(drawing, linesDxf(COUNT));
  const opened = await client.post('/api/v1/documents', { path: drawing });
  expect(opened.status, opened.text).toBe(201);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every line but the first, at full detail, found by its box: each of the 100,000 is measured. */
const bigQuery = () =>
  `/api/v1/entities?detail=full&limit=10000&where=${encodeURIComponent(
    JSON.stringify([{ path: '/bounds/min/0', op: 'gt', value: 0.5 }]),
  )}`;

describe('a query of 100,000 entities at full detail', () => {
  it('lets GET /state and get_selection answer while it runs, and then answers itself', async () => {
    const query = startCall(client, 'GET', bigQuery());
    const order: string[] = [];
    if (await seenRunning(client, query, 'query')) order.push('state answered, query running');
    const selection = await client.post('/api/v1/get_selection', {});
    expect(selection.status, selection.text).toBe(200);
    order.push(query.done ? 'query answered' : 'get_selection answered');
    const done = await query.answer;
    order.push('query answered');
    expect(order).toEqual(['state answered, query running', 'get_selection answered', 'query answered']);
    expect(done.status, done.text.slice(0, 300)).toBe(200);
    expect(body(done)).toMatchObject({ ok: true, count: COUNT - 1, returned: 10_000, next_offset: 10_000 });
    const first = (body(done).entities as Array<{ start: number[]; bounds: { min: number[] } }>)[0];
    expect(first).toMatchObject({ start: [1, 0, 0], bounds: { min: [1, 0, 0] } });
    // Done: its own answer's state, and the state after, show no operation any more.
    expect((body(done).state as { operation: unknown }).operation).toBeNull();
    expect((body(await client.get('/api/v1/state')).state as { operation: unknown }).operation).toBeNull();
  });

  it('is stopped by POST /cancel: cancel answers first, the query answers cancelled, the next one answers', async () => {
    const query = startCall(client, 'GET', bigQuery());
    expect(await seenRunning(client, query, 'query')).toBe(true);
    const cancel = await client.post('/api/v1/cancel', {});
    const order = [query.done ? 'query answered' : 'cancel answered'];
    expect(cancel.status, cancel.text).toBe(200);
    expect(body(cancel)).toMatchObject({
      ok: true,
      status: 'cancelled',
      result: { cancelled: true, count: 1, op: 'query' },
    });
    const done = await query.answer;
    order.push('query answered');
    expect(order).toEqual(['cancel answered', 'query answered']);
    expect(done.status, done.text.slice(0, 300)).toBe(400);
    expect(body(done)).toMatchObject({ ok: false, code: 'cancelled' });
    expect(String(body(done).error)).toMatch(/^the query was cancelled/);
    expect(body(cancel).result).toMatchObject({ cancelled_request_id: body(done).request_id });
    // The editor goes on: the next query answers in full.
    const again = await client.get(bigQuery());
    expect(again.status, again.text.slice(0, 300)).toBe(200);
    expect(body(again)).toMatchObject({ ok: true, count: COUNT - 1 });
  });

  it('is stopped by a cancel naming its request_id; operation answers it running meanwhile', async () => {
    const query = startCall(client, 'POST', '/api/v1/query', {
      request_id: 'big-query',
      detail: 'full',
      where: [{ path: '/bounds/min/0', op: 'gt', value: 0.5 }],
    });
    expect(await seenRunning(client, query, 'query')).toBe(true);
    const running = await client.post('/api/v1/operation', { request_id: 'big-query' });
    expect(body(running)).toMatchObject({ ok: true, status: 'running', result: { op: 'query' } });
    const cancel = await client.post('/api/v1/cancel', { id: 'big-query' });
    expect(body(cancel)).toMatchObject({
      status: 'cancelled',
      result: { cancelled: true, cancelled_request_id: 'big-query', op: 'query' },
    });
    const done = await query.answer;
    expect(body(done)).toMatchObject({ ok: false, code: 'cancelled', request_id: 'big-query' });
  });
});
