/**
 * A drawing of a dozen small requests that nests blocks five deep, 16 references a level: one Insert
 * stands for 16^5 lines. Plotting, capturing or measuring it is refused with 400 `too_large` naming the
 * count and the limit, before the memory is spent — the editor runs here on a 256 MB heap, where
 * following the references dies — and the editor keeps answering everything else.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanEnv } from '../../cli/helpers.js';
import { body, Client, createEntities, type EditorServer, newDocument, startEditor, str } from './helpers.js';
import { EXPANSION_LIMIT, NEST_EXPANDED, nest } from './nest.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const LIMIT = EXPANSION_LIMIT;
const EXPANDED = NEST_EXPANDED;

let server: EditorServer;
let client: Client;
let dir: string;
/** The Insert of the outermost block. */
let bomb: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-expansion-'));
  server = await startEditor256();
  client = new Client(server.port);
  await newDocument(client);
  bomb = await nest(client);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function startEditor256(): Promise<EditorServer> {
  return startEditor(['--store', 'memory:'], cleanEnv({ NODE_OPTIONS: '--max-old-space-size=256' }));
}

/** A too_large answer naming the count and the limit. */
function expectTooLarge(answer: Awaited<ReturnType<Client['post']>>, count: number) {
  expect(answer.status, answer.text).toBe(400);
  expect(body(answer)).toMatchObject({
    ok: false,
    code: 'too_large',
    expanded_entities: count,
    limit: LIMIT,
  });
  expect(str(body(answer), 'error')).toContain(count.toLocaleString('en-US'));
  expect(str(body(answer), 'error')).toContain(LIMIT.toLocaleString('en-US'));
}

describe('a drawing whose block references expand past the limit', () => {
  it('plot answers 400 too_large naming the count and the limit, and writes no file', async () => {
    const path = join(dir, 'nest.pdf');
    const answer = await client.post('/api/v1/plot', { path });
    expectTooLarge(answer, EXPANDED + 1);
    await expect(stat(path)).rejects.toThrow();
    const window = await client.post('/api/v1/plot', { path, window: [0, 0, 10, 10] });
    expectTooLarge(window, EXPANDED + 1);
  });

  it('wblock writes the nest as blocks (nothing expanded); normalize, which measures it, answers too_large', async () => {
    const path = join(dir, 'nest.dxf');
    const written = await client.post('/api/v1/wblock', { path, handles: [bomb] });
    expect(written.status, written.text).toBe(200);
    expect(body(written)).toMatchObject({ ok: true, result: { entities: 1 } });
    // Five blocks of 16 entities: a file of a few KB, as the nest's requests were.
    expect((await stat(path)).size).toBeLessThan(64 * 1024);
    const normalizedPath = join(dir, 'nest-normalized.dxf');
    const normalized = await client.post('/api/v1/wblock', {
      path: normalizedPath,
      handles: [bomb],
      normalize: true,
    });
    expectTooLarge(normalized, EXPANDED);
    await expect(stat(normalizedPath)).rejects.toThrow();
  });

  it('capture answers 400 too_large', async () => {
    expectTooLarge(await client.post('/api/v1/capture', { width: 256 }), EXPANDED + 1);
  });

  it('the Insert itself: its bounds (measure, full detail) answer too_large; other queries answer', async () => {
    const measured = await client.post('/api/v1/measure', { handles: [bomb] });
    expectTooLarge(measured, EXPANDED);
    const full = await client.get(`/api/v1/entities?handles=${bomb}&detail=full`);
    expectTooLarge(full, EXPANDED);
    // Queries that do not follow the references still answer; a spatial filter does not find it.
    await createEntities(client, [{ type: 'Circle', center: [3, 3], radius: 1 }]);
    const inserts = await client.get('/api/v1/entities?type=Insert&limit=1');
    expect(inserts.status, inserts.text).toBe(200);
    const near = await client.get('/api/v1/entities?bounds=-1,-1,1000000,1000000');
    expect(near.status, near.text).toBe(200);
    const found = (body(near).entities as Array<{ handle: string }>).map((e) => e.handle);
    expect(found.length).toBeGreaterThan(0);
    expect(found).not.toContain(bomb);
  });

  it('the editor keeps answering and can take the Insert away; then the drawing plots', async () => {
    const state = await client.get('/api/v1/state');
    expect(state.status).toBe(200);
    const selected = await client.post('/api/v1/select', { handles: [bomb] });
    expect(selected.status, selected.text).toBe(200);
    // get_selection is always answered: the Insert past the limit has no bounds.
    const selection = await client.post('/api/v1/get_selection', {});
    expect(selection.status, selection.text).toBe(200);
    expect(body(selection)).toMatchObject({
      ok: true,
      result: { count: 1, entities: [{ handle: bomb, type: 'Insert', bounds: null }] },
    });
    const erased = await client.del(`/api/v1/entities?handles=${bomb}`);
    expect(erased.status, erased.text).toBe(200);
    const lines = await createEntities(client, [{ type: 'Line', start: [0, 0], end: [5, 5] }]);
    expect(lines).toHaveLength(1);
    const path = join(dir, 'after.svg');
    const plotted = await client.post('/api/v1/plot', { path });
    expect(plotted.status, plotted.text).toBe(200);
  });
});
