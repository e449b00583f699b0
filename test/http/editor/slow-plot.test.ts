/**
 * A plot of a 100,000-entity drawing takes seconds: it runs in slices, so `state` is answered while it
 * runs (and sees it running), and `cancel` stops it — the plot then answers `cancelled` and writes no
 * file. Order is asserted, never time.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Answer, body, Client, type EditorServer, linesDxf, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

let server: EditorServer;
let client: Client;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-slow-plot-'));
  server = await startEditor();
  client = new Client(server.port);
  const drawing = join(dir, 'lines.dxf');
  await writeFile(drawing, linesDxf(100_000));
  const opened = await client.post('/api/v1/documents', { path: drawing });
  expect(opened.status, opened.text).toBe(201);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Reads the state until it shows the plot running; false when the plot answered first. */
async function seenRunning(plotted: { done: boolean }): Promise<boolean> {
  while (!plotted.done) {
    const state = await client.get('/api/v1/state');
    expect(state.status, state.text).toBe(200);
    const operation = (body(state).state as { operation?: { op?: string; status?: string } | null })
      .operation;
    if (operation?.op === 'plot' && operation.status === 'running') return true;
  }
  return false;
}

/** Starts a plot; `done` turns true when it answers. */
function startPlot(path: string) {
  const plotted = { done: false, answer: undefined as Answer | undefined };
  const answer = client.post('/api/v1/plot', { path, fit: true }).then((a) => {
    plotted.done = true;
    plotted.answer = a;
    return a;
  });
  return { plotted, answer };
}

describe('a plot of 100,000 entities', () => {
  it('lets GET /state answer while it runs, and then answers itself', async () => {
    const path = join(dir, 'all.pdf');
    const { plotted, answer } = startPlot(path);
    const order: string[] = [];
    if (await seenRunning(plotted)) order.push('state answered, plot running');
    const done = await answer;
    order.push('plot answered');
    expect(order).toEqual(['state answered, plot running', 'plot answered']);
    expect(done.status, done.text).toBe(200);
    expect(body(done)).toMatchObject({ ok: true, result: { entities: 100_000 } });
    expect((await stat(path)).size).toBeGreaterThan(0);
  });

  it('is stopped by POST /cancel: cancel answers first, the plot answers cancelled and writes nothing', async () => {
    const path = join(dir, 'cancelled.pdf');
    const { plotted, answer } = startPlot(path);
    expect(await seenRunning(plotted)).toBe(true);
    const cancel = await client.post('/api/v1/cancel', {});
    const order = [plotted.done ? 'plot answered' : 'cancel answered'];
    expect(cancel.status, cancel.text).toBe(200);
    expect(body(cancel)).toMatchObject({
      ok: true,
      status: 'cancelled',
      result: { cancelled: true, op: 'plot' },
    });
    const done = await answer;
    order.push('plot answered');
    expect(order).toEqual(['cancel answered', 'plot answered']);
    expect(done.status, done.text).toBe(400);
    expect(body(done)).toMatchObject({ ok: false, code: 'cancelled' });
    expect(body(cancel).result).toMatchObject({ cancelled_request_id: body(done).request_id });
    await expect(stat(path)).rejects.toThrow();
    // The editor goes on: the next plot runs to its end.
    const again = await client.post('/api/v1/plot', { path });
    expect(again.status, again.text).toBe(200);
  });
});
