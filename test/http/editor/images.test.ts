/**
 * `POST /api/v1/images` against the real `chronicle editor` process: 201 with the image and its
 * definition for a PNG and a JPEG, the entity readable over REST, undo over REST, refusals as 400.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jpegBytes, pngBytes } from '../../editor/raster-files.js';
import { body, Client, type EditorServer, newDocument, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 20_000, hookTimeout: 30_000 });

let server: EditorServer;
let client: Client;
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-http-images-'));
  await writeFile(join(dir, 'plan.png'), pngBytes(64, 32));
  await writeFile(join(dir, 'photo.jpeg'), jpegBytes(20, 10));
  await writeFile(join(dir, 'readme.png'), 'not a picture\n');
  server = await startEditor();
  client = new Client(server.port);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('POST /api/v1/images (embed_image)', () => {
  it('answers 201 with the image, its definition, pixel and drawing size; the entity reads back', async () => {
    await newDocument(client);
    const png = join(dir, 'plan.png');
    const answer = await client.post('/api/v1/images', { path: png, insert: [1, 2], width: 32 });
    expect(answer.status, answer.text).toBe(201);
    const json = body(answer);
    expect(json).toMatchObject({
      ok: true,
      http_status: 201,
      result: { pixels: [64, 32], size: [32, 16], path: png, format: 'png', name: 'plan' },
    });
    expect(json.state).toBeUndefined();
    const { handle, imagedef } = json.result as { handle: string; imagedef: string };
    expect(imagedef).not.toBe(handle);

    const read = body(await client.get(`/api/v1/entities/${handle}`));
    expect(read).toMatchObject({
      count: 1,
      entities: [{ handle, type: 'Image', position: [1, 2, 0], u_vector: [0.5, 0, 0], size: [64, 32] }],
    });

    const jpeg = await client.post('/api/v1/images', { path: join(dir, 'photo.jpeg'), rotation: 180 });
    expect(jpeg.status, jpeg.text).toBe(201);
    expect(body(jpeg)).toMatchObject({ result: { format: 'jpeg', pixels: [20, 10], size: [20, 10] } });

    // One undo step each: the JPEG goes, the PNG stays.
    const undo = await client.post('/api/v1/undo');
    expect(undo.status, undo.text).toBe(200);
    const jpegHandle = (body(jpeg).result as { handle: string }).handle;
    expect((await client.get(`/api/v1/entities/${jpegHandle}`)).status).toBe(404);
    expect((await client.get(`/api/v1/entities/${handle}`)).status).toBe(200);
  });

  it('answers 400 with the code for a missing file, a file that is no image, and bad fields', async () => {
    await newDocument(client);
    const cases: Array<[Record<string, unknown>, string, string?]> = [
      [{ path: join(dir, 'nowhere.png') }, 'file_not_found', 'nowhere.png'],
      [{ path: join(dir, 'readme.png') }, 'invalid_image', 'readme.png is not a PNG or JPEG image'],
      [{}, 'invalid_path'],
      [{ path: join(dir, 'plan.png'), insert: 'here' }, 'invalid_point'],
      [{ path: join(dir, 'plan.png'), width: -1 }, 'invalid_property'],
      [{ path: join(dir, 'plan.png'), name: 'a|b' }, 'invalid_name'],
    ];
    for (const [fields, code, message] of cases) {
      const answer = await client.post('/api/v1/images', fields);
      expect(answer.status, `${code}: ${answer.text}`).toBe(400);
      expect(body(answer)).toMatchObject({ ok: false, code, http_status: 400 });
      if (message) expect(body(answer).error).toContain(message);
    }
  });
});
