/**
 * The GUI-hosted editor's live viewer, on a 256 MB heap, with a drawing whose one Insert nests blocks
 * five deep, 16 references a level (a million lines behind it): `GET /scene` answers 400 `too_large`
 * naming the count and the limit, counted before anything is drawn; the event stream sends the scene
 * with the reference drawn as nothing and says why (`document.too_large`); taking the Insert away, or
 * adding one back, sends a whole scene again. The editor lives on and answers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanEnv } from '../../cli/helpers.js';
import { at, body, Client, createEntities, newDocument } from '../editor/helpers.js';
import { EXPANSION_LIMIT, NEST_EXPANDED, nest, OUTER_BLOCK } from '../editor/nest.js';
import { type GuiEditor, type SseEvent, SseReader, startGuiEditor } from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let gui: GuiEditor;
let viewer: Client;
let sse: SseReader;
let documentId: number;
let bomb: string;

beforeAll(async () => {
  gui = await startGuiEditor(cleanEnv({ NODE_OPTIONS: '--max-old-space-size=256' }));
  viewer = new Client(gui.guiPort);
  sse = await SseReader.open(gui.guiPort);
  documentId = await newDocument(gui.rest);
  bomb = await nest(gui.rest);
});

afterAll(async () => {
  sse?.close();
  await gui?.stop();
});

/** The `too_large` of a scene message's document (null when its references are drawn). */
const tooLargeOf = (e: SseEvent) => at(e.data, 'document.too_large') as Record<string, unknown> | null;
const isScene = (e: SseEvent) => e.event === 'scene' && at(e.data, 'active') === documentId;
const handlesOf = (e: SseEvent) =>
  (at(e.data, 'document.entities') as Array<{ handle: string }>).map((d) => d.handle);

function expectTooLarge(fields: Record<string, unknown> | null | undefined, count: number) {
  expect(fields).toMatchObject({ code: 'too_large', expanded_entities: count, limit: EXPANSION_LIMIT });
  expect(String(fields?.error)).toContain(count.toLocaleString('en-US'));
  expect(String(fields?.error)).toContain(EXPANSION_LIMIT.toLocaleString('en-US'));
}

describe('the viewer of a drawing whose block references expand past the limit', () => {
  it('GET /scene answers 400 too_large naming the count and the limit', async () => {
    const scene = await viewer.get('/scene');
    expect(scene.status, scene.text.slice(0, 300)).toBe(400);
    expect(body(scene)).toMatchObject({ ok: false, http_status: 400 });
    expectTooLarge(body(scene), NEST_EXPANDED + 1);
  });

  it('the event stream sends the scene with the Insert drawn as nothing, and says why', async () => {
    // The 16 references of the last level already crossed the limit; the scene after NEST4 holds its Insert.
    const scene = await sse.next((e) => isScene(e) && handlesOf(e).length === 1 && handlesOf(e)[0] === bomb);
    expectTooLarge(tooLargeOf(scene), NEST_EXPANDED + 1);
    expect(handlesOf(scene)).toEqual([bomb]);
    const drawn = (at(scene.data, 'document.entities') as Array<Record<string, unknown>>)[0];
    expect(drawn).toMatchObject({ handle: bomb, type: 'Insert' });
    expect(drawn).toMatchObject({ paths: [], arcs: [], dots: [] });
  });

  it('the editor answers meanwhile and lives on', async () => {
    expect((await gui.rest.get('/api/v1/ready')).status).toBe(200);
    const state = await gui.rest.get('/api/v1/state');
    expect(state.status).toBe(200);
    expect(gui.server.child.exitCode).toBeNull();
  });

  it('erasing the Insert sends a whole scene drawn in full; an Insert of the nest added back refuses again', async () => {
    // An Insert of the innermost block (16 lines) added while past the limit is sent as nothing...
    const [small] = await createEntities(gui.rest, [{ type: 'Insert', name: 'NEST0', position: [0, 50] }]);
    const from = sse.events.length;
    const erased = await gui.rest.del(`/api/v1/entities?handles=${bomb}`);
    expect(erased.status, erased.text).toBe(200);
    const drawn = await sse.next((e) => isScene(e) && tooLargeOf(e) === null, from);
    expect(handlesOf(drawn)).toEqual([small]);
    // ...and drawn in full once the drawing is back under it.
    const lines = (at(drawn.data, 'document.entities') as Array<{ paths: unknown[] }>)[0];
    expect(lines?.paths).toHaveLength(16);
    expect((await viewer.get('/scene')).status).toBe(200);

    const again = sse.events.length;
    const [insert] = await createEntities(gui.rest, [
      { type: 'Insert', name: OUTER_BLOCK, position: [0, 0] },
    ]);
    const refused = await sse.next((e) => isScene(e) && tooLargeOf(e) !== null, again);
    // The small Insert counts too: itself and its 16 lines.
    expectTooLarge(tooLargeOf(refused), NEST_EXPANDED + 1 + 17);
    expect(handlesOf(refused)).toEqual([small, insert]);
    const scene = await viewer.get('/scene');
    expect(scene.status).toBe(400);
    expect(body(scene)).toMatchObject({ code: 'too_large', expanded_entities: NEST_EXPANDED + 1 + 17 });
    expect(gui.server.child.exitCode).toBeNull();
  });
});
