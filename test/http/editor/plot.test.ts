/**
 * `POST /api/v1/plot` against the real `chronicle editor` process: the file is written where the body
 * says, answers 200 with its page, scale and entity count; the PDF renders dark where the entities are
 * and blank elsewhere; refusals carry their codes with status 400.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext, vi } from 'vitest';
import { darkPixels, needPdftoppm, renderPdf } from '../../editor/plot/pixels.js';
import {
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
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-http-plot-'));
  server = await startEditor();
  client = new Client(server.port);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('POST /api/v1/plot', () => {
  it('writes a PDF of model space by its page setup; dark on the left where the line is, blank on the right', async (ctx: TestContext) => {
    needPdftoppm(ctx);
    await newDocument(client);
    const setup = await client.put('/api/v1/layouts/Model/page-setup', {
      paper: 'ISO A4',
      orientation: 'landscape',
      scale: '1:1',
      fit: false,
      center: false,
    });
    expect(setup.status, setup.text).toBe(200);
    const [line] = await createEntities(client, [
      { type: 'Line', start: [0, 0], end: [120, 0], color: 1, lineweight: 100 },
    ]);
    expect(line).toEqual(expect.any(String));
    const path = join(dir, 'model.pdf');
    const answer = await client.post('/api/v1/plot', { path });
    expect(answer.status, answer.text).toBe(200);
    const bytes = await readFile(path);
    expect(body(answer)).toMatchObject({
      ok: true,
      http_status: 200,
      result: {
        path,
        format: 'pdf',
        layout: 'Model',
        page: { width: 297, height: 210, units: 'mm' },
        paper: 'ISO A4',
        orientation: 'landscape',
        scale: '1:1',
        entities: 1,
        bytes: bytes.length,
      },
    });
    // The mutation wrapper strips `state`.
    expect(body(answer)).not.toHaveProperty('state');
    const gray = await renderPdf(path);
    // 1:1 from 5 mm in: x 5..125 mm of 297, 5 mm up the sheet.
    expect(darkPixels(gray, { x0: 0, x1: 0.45, y0: 0.9, y1: 1 }, 200)).toBeGreaterThan(20);
    expect(darkPixels(gray, { x0: 0.45, x1: 1, y0: 0, y1: 1 }, 250)).toBe(0);
    expect(darkPixels(gray, { x0: 0, x1: 1, y0: 0, y1: 0.9 }, 250)).toBe(0);
  });

  it('writes an SVG of a window with one element per entity', async () => {
    await newDocument(client);
    const handles = await createEntities(client, [
      { type: 'Circle', center: [10, 10], radius: 5, color: 3 },
      { type: 'Text', value: 'label', position: [0, 0], height: 2.5 },
      { type: 'Line', start: [500, 500], end: [600, 600] },
    ]);
    const path = join(dir, 'window.svg');
    const answer = await client.post('/api/v1/plot', { path, window: [-10, -10, 30, 30] });
    expect(answer.status, answer.text).toBe(200);
    expect(body(answer)).toMatchObject({ ok: true, result: { format: 'svg', layout: null, entities: 2 } });
    const svg = await readFile(path, 'utf8');
    const drawn = [...svg.matchAll(/data-handle="([^"]+)"/g)].map((m) => m[1]);
    expect(drawn).toEqual(handles.slice(0, 2));
    expect(svg).toMatch(/<path data-handle="[^"]+"[^>]*stroke="#00ff00"/);
    expect(svg).toMatch(/<text data-handle="[^"]+"[^>]*fill="#000000"[^>]*>.*label.*<\/text>/);
  });

  it('refuses with 400 and a code: bad format, unknown layout, bad window, existing file, unwritable folder', async () => {
    await newDocument(client);
    await createEntities(client, [{ type: 'Line', start: [0, 0], end: [1, 1] }]);
    const existing = join(dir, 'existing.svg');
    expect((await client.post('/api/v1/plot', { path: existing })).status).toBe(200);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'invalid_path'],
      [{ path: join(dir, 'x.png') }, 'invalid_format'],
      [{ path: join(dir, 'x.pdf'), layout: 'Nope' }, 'layout_missing'],
      [{ path: join(dir, 'x.pdf'), window: [0, 0, 1] }, 'invalid_point'],
      [{ path: join(dir, 'x.pdf'), window: [50, 50, 60, 60] }, 'nothing_to_plot'],
      [{ path: existing }, 'file_exists'],
      [{ path: join(dir, 'missing', 'x.pdf') }, 'plot_failed'],
    ];
    for (const [json, code] of cases) {
      const answer = await client.post('/api/v1/plot', json);
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(body(answer), JSON.stringify(json)).toMatchObject({ ok: false, code, http_status: 400 });
    }
    const replaced = await client.post('/api/v1/plot', { path: existing, overwrite: true });
    expect(replaced.status, replaced.text).toBe(200);
    for (const { what, answer } of client.answers) expect(transportProblems(answer), what).toEqual([]);
  });
});
