/**
 * A capture of a 100,000-entity drawing (readable texts: the slowest thing to draw) takes seconds: its
 * scene and SVG are built in slices and rasterised in a worker thread, so `state` is answered while it
 * runs (and sees it running), and `cancel` stops it — the capture then answers `cancelled`, and the
 * next one is drawn. Order is asserted, never time.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { body, Client, type EditorServer, header, startEditor } from './helpers.js';
import { seenRunning, startCall } from './running.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

let server: EditorServer;
let client: Client;
let dir: string;

/** `count` texts on a grid of 316 columns, a unit apart: at 4096 pixels wide every one is readable. */
function textsDxf(count: number): string {
  const parts: string[] = ['0\nSECTION\n2\nENTITIES\n'];
  for (let i = 0; i < count; i++)
    parts.push(`0\nTEXT\n8\n0\n10\n${i % 316}\n20\n${Math.floor(i / 316)}\n40\n0.5\n1\nT${i}\n`);
  parts.push('0\nENDSEC\n0\nEOF\n');
  return parts.join('');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-slow-capture-'));
  server = await startEditor();
  client = new Client(server.port);
  const drawing = join(dir, 'texts.dxf');
  await writeFile(drawing, textsDxf(100_000));
  const opened = await client.post('/api/v1/documents', { path: drawing });
  expect(opened.status, opened.text).toBe(201);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a capture of 100,000 texts', () => {
  it('lets GET /state answer while it runs, and then answers its PNG', async () => {
    const capture = startCall(client, 'POST', '/api/v1/capture', { width: 1024 });
    const order: string[] = [];
    if (await seenRunning(client, capture, 'capture')) order.push('state answered, capture running');
    const done = await capture.answer;
    order.push('capture answered');
    expect(order).toEqual(['state answered, capture running', 'capture answered']);
    expect(done.status, done.text.slice(0, 300)).toBe(200);
    expect(header(done, 'content-type')).toBe('image/png');
    // Done: the state shows no operation any more.
    expect((body(await client.get('/api/v1/state')).state as { operation: unknown }).operation).toBeNull();
  });

  it('is stopped by POST /cancel: cancel answers first, the capture answers cancelled, the next one is drawn', async () => {
    // Every text readable: the rasteriser alone would work for most of a minute.
    const capture = startCall(client, 'POST', '/api/v1/capture', { width: 4096 });
    expect(await seenRunning(client, capture, 'capture')).toBe(true);
    const cancel = await client.post('/api/v1/cancel', {});
    const order = [capture.done ? 'capture answered' : 'cancel answered'];
    expect(cancel.status, cancel.text).toBe(200);
    expect(body(cancel)).toMatchObject({
      ok: true,
      status: 'cancelled',
      result: { cancelled: true, count: 1, op: 'capture' },
    });
    const done = await capture.answer;
    order.push('capture answered');
    expect(order).toEqual(['cancel answered', 'capture answered']);
    expect(done.status, done.text.slice(0, 300)).toBe(400);
    expect(header(done, 'content-type')).toMatch(/^application\/json/);
    expect(body(done)).toMatchObject({ ok: false, code: 'cancelled' });
    expect(String(body(done).error)).toMatch(/^the capture was cancelled/);
    expect(body(cancel).result).toMatchObject({ cancelled_request_id: body(done).request_id });
    // The editor goes on: the next capture is drawn to its end.
    const again = await client.post('/api/v1/capture', { width: 1024 });
    expect(again.status, again.text.slice(0, 300)).toBe(200);
    expect(header(again, 'content-type')).toBe('image/png');
  });

  it('is stopped by a cancel naming its request_id, and answers operation as running meanwhile', async () => {
    const capture = startCall(client, 'POST', '/api/v1/capture', { width: 4096, request_id: 'big-capture' });
    expect(await seenRunning(client, capture, 'capture')).toBe(true);
    const running = await client.post('/api/v1/operation', { request_id: 'big-capture' });
    expect(body(running)).toMatchObject({ ok: true, status: 'running', result: { op: 'capture' } });
    const cancel = await client.post('/api/v1/cancel', { id: 'big-capture' });
    expect(body(cancel)).toMatchObject({
      status: 'cancelled',
      result: { cancelled: true, cancelled_request_id: 'big-capture', op: 'capture' },
    });
    const done = await capture.answer;
    expect(body(done)).toMatchObject({ ok: false, code: 'cancelled', request_id: 'big-capture' });
  });
});
