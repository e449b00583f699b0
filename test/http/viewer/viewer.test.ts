/**
 * The GUI-hosted editor over real sockets: `chronicle editor --http 0 FILE` serves the viewer on a
 * second loopback listener; its event stream follows REST mutations; picks are pending over REST and
 * answered through the viewer; other mutations are 503 busy meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { at, body, Client, num, strings } from '../editor/helpers.js';
import { type GuiEditor, PLAN_HANDLES, SseReader, startGuiEditor, viewerPost } from './helpers.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let gui: GuiEditor;
let viewer: Client;

beforeAll(async () => {
  gui = await startGuiEditor();
  viewer = new Client(gui.guiPort);
});

afterAll(async () => {
  await gui?.stop();
});

/** The handles of a scene message's document. */
const sceneHandles = (data: unknown) =>
  (at(data, 'document.entities') as Array<{ handle: string }>).map((e) => e.handle);

describe('the viewer listener', () => {
  it('reports its own listening line and serves the page, its script and its style', async () => {
    expect(gui.guiPort).not.toBe(gui.server.port);
    const page = await viewer.get('/');
    expect(page.status).toBe(200);
    expect(page.headers.find(([n]) => n === 'content-type')?.[1]).toContain('text/html');
    expect(page.text).toContain('<svg id="drawing"');
    const script = await viewer.get('/viewer.js');
    expect(script.status).toBe(200);
    expect(script.headers.find(([n]) => n === 'content-type')?.[1]).toContain('text/javascript');
    expect(script.text).toContain("new EventSource('/events')");
    expect((await viewer.get('/viewer.css')).status).toBe(200);
  });

  it('answers 403 forbidden_host to a Host that names another machine, and serves every loopback name', async () => {
    for (const host of ['evil.example:80', `evil.example:${gui.guiPort}`, `127.0.0.2:${gui.guiPort}`]) {
      const answer = await viewer.get('/scene', { headers: { Host: host } });
      expect(answer.status, host).toBe(403);
      expect(body(answer)).toMatchObject({ ok: false, code: 'forbidden_host', http_status: 403 });
    }
    for (const host of [`localhost:${gui.guiPort}`, 'localhost', `127.0.0.1:${gui.guiPort + 1}`, 'LOCALHOST'])
      expect((await viewer.get('/scene', { headers: { Host: host } })).status, host).toBe(200);
  });

  it('takes POST bodies only as JSON (415 json_required), and answers 404 unknown_route elsewhere', async () => {
    const form = await viewer.post('/select', undefined, {
      raw: 'document_id=1',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(body(form)).toMatchObject({ ok: false, code: 'json_required' });
    const missing = await viewer.get('/nothing-here');
    expect(missing.status).toBe(404);
    expect(body(missing)).toMatchObject({ ok: false, code: 'unknown_route' });
  });

  it('streams the scene of the opened file, then entities created and erased over REST (latency: `npm run bench -- viewer`)', async () => {
    const sse = await SseReader.open(gui.guiPort);
    try {
      expect(sse.status).toBe(200);
      expect(sse.contentType).toContain('text/event-stream');
      const scene = await sse.next((e) => e.event === 'scene');
      expect(sceneHandles(scene.data)).toEqual(PLAN_HANDLES);
      const walls = (at(scene.data, 'document.entities') as Array<{ color: string; layer: string }>)[0];
      expect(walls).toMatchObject({ layer: 'WALLS', color: '#ff0000' });

      const from = sse.events.length;
      const created = await gui.rest.post('/api/v1/entities', {
        entities: [{ type: 'Circle', center: [20, 30], radius: 5, layer: 'DOORS' }],
      });
      expect(created.status, created.text).toBe(201);
      const [handle] = strings(body(created), 'result.handles');
      const update = await sse.next((e) => e.event === 'entities', from);
      expect(update.data).toMatchObject({
        upsert: [{ handle, type: 'Circle', color: '#00ff00' }],
        erase: [],
      });

      const next = sse.events.length;
      const erased = await gui.rest.del(`/api/v1/entities?handles=${handle}`);
      expect(erased.status, erased.text).toBe(200);
      expect((await sse.next((e) => e.event === 'entities', next)).data).toMatchObject({
        upsert: [],
        erase: [handle],
      });
    } finally {
      sse.close();
    }
  });

  it('a selection made in the viewer is what GET-style get_selection returns, in the order picked', async () => {
    const sse = await SseReader.open(gui.guiPort);
    try {
      await sse.next((e) => e.event === 'scene');
      const from = sse.events.length;
      const selected = await viewerPost(gui, '/select', { document_id: 1, handles: ['A', '6'] });
      expect(selected.status, selected.text).toBe(200);
      expect(body(selected)).toMatchObject({ ok: true, result: { handles: ['A', '6'], count: 2 } });
      const pushed = await sse.next((e) => e.event === 'selection', from);
      expect(pushed.data).toEqual({ document_id: 1, handles: ['A', '6'] });
      const read = await gui.rest.post('/api/v1/get_selection', {});
      expect((at(body(read), 'result.entities') as Array<{ handle: string }>).map((e) => e.handle)).toEqual([
        'A',
        '6',
      ]);
      const absent = await viewerPost(gui, '/select', { document_id: 1, handles: ['FFFF'] });
      expect(absent.status).toBe(404);
      expect(body(absent)).toMatchObject({ code: 'entity_absent' });
      await viewerPost(gui, '/select', { document_id: 1, handles: [] });
    } finally {
      sse.close();
    }
  });
});

describe('picks of the GUI-hosted editor over REST', () => {
  it('getpoint answers 200 pending at once; other mutations are 503 busy; the viewer answers it', async () => {
    const sse = await SseReader.open(gui.guiPort);
    try {
      await sse.next((e) => e.event === 'scene');
      const asked = await gui.rest.post('/api/v1/getpoint', { prompt: 'Where does the door go?' });
      expect(asked.status, asked.text).toBe(200);
      expect(body(asked)).toMatchObject({ ok: true, status: 'pending' });
      const id = at(body(asked), 'request_id') as string;
      const shown = await sse.next((e) => e.event === 'pick' && at(e.data, 'pick.request_id') === id);
      expect(shown.data).toMatchObject({ pick: { op: 'getpoint', prompt: 'Where does the door go?' } });

      const busy = await gui.rest.post('/api/v1/entities', {
        entities: [{ type: 'Point', location: [1, 1] }],
      });
      expect(busy.status).toBe(503);
      expect(busy.reason).toBe('Service Unavailable');
      expect(body(busy)).toMatchObject({ ok: false, code: 'busy', pending: { request_id: id } });
      const state = await gui.rest.get('/api/v1/state');
      expect(at(body(state), 'state.operation')).toMatchObject({ request_id: id, status: 'pending' });
      const pending = await gui.rest.post('/api/v1/operation', { request_id: id });
      expect(at(body(pending), 'result.status')).toBe('pending');

      const answered = await viewerPost(gui, '/pick', { request_id: id, point: [12.5, 7] });
      expect(answered.status, answered.text).toBe(200);
      const done = await gui.rest.post('/api/v1/operation', { request_id: id });
      expect(at(body(done), 'result')).toMatchObject({
        status: 'completed',
        answer: { ok: true, result: { point: [12.5, 7, 0] } },
      });
      expect(
        at(await sse.next((e) => e.event === 'pick' && at(e.data, 'pick') === null), 'data.pick'),
      ).toBeNull();
      const again = await viewerPost(gui, '/pick', { request_id: id, point: [1, 1] });
      expect(again.status).toBe(400);
      expect(body(again)).toMatchObject({ ok: false, code: 'no_pick_pending' });
    } finally {
      sse.close();
    }
  });

  it('user_select is cancelled through REST cancel or the viewer; operation then answers cancelled', async () => {
    const first = await gui.rest.post('/api/v1/user_select', { prompt: 'Pick walls' });
    const firstId = at(body(first), 'request_id') as string;
    expect(body(first)).toMatchObject({ status: 'pending' });
    const cancelled = await gui.rest.post('/api/v1/cancel', { id: firstId });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(at(body(cancelled), 'result.cancelled')).toBe(true);
    expect(at(body(cancelled), 'result.cancelled_request_id')).toBe(firstId);
    const op = await gui.rest.post('/api/v1/operation', { request_id: firstId });
    expect(at(body(op), 'result.status')).toBe('cancelled');

    const second = await gui.rest.post('/api/v1/user_select', {});
    const secondId = at(body(second), 'request_id') as string;
    const byViewer = await viewerPost(gui, '/cancel', { request_id: secondId });
    expect(byViewer.status, byViewer.text).toBe(200);
    expect(
      at(body(await gui.rest.post('/api/v1/operation', { request_id: secondId })), 'result.status'),
    ).toBe('cancelled');
    // The session takes mutations again.
    const created = await gui.rest.post('/api/v1/entities', {
      entities: [{ type: 'Point', location: [1, 1] }],
    });
    expect(created.status).toBe(201);
    const events = await gui.rest.post('/api/v1/events', { after: 0, limit: 1000 });
    const statuses = (at(body(events), 'result.events') as Array<{ request_id: string; status: string }>)
      .filter((e) => e.request_id === firstId)
      .map((e) => e.status);
    expect(statuses).toEqual(['pending', 'cancelled']);
  });

  it('tabs: a new document shows as a tab and the viewer activates the first again', async () => {
    const sse = await SseReader.open(gui.guiPort);
    try {
      await sse.next((e) => e.event === 'scene');
      const from = sse.events.length;
      const made = await gui.rest.post('/api/v1/documents');
      const second = num(body(made), 'document_id');
      const scene = await sse.next((e) => e.event === 'scene' && at(e.data, 'active') === second, from);
      expect((at(scene.data, 'tabs') as unknown[]).length).toBe(2);
      const activated = await viewerPost(gui, '/activate', { document_id: 1 });
      expect(activated.status, activated.text).toBe(200);
      const back = await sse.next((e) => e.event === 'scene' && at(e.data, 'active') === 1, from);
      expect(sceneHandles(back.data)).toEqual(expect.arrayContaining(PLAN_HANDLES));
      const closed = await viewerPost(gui, '/activate', { document_id: 77 });
      expect(closed.status).toBe(400);
      expect(body(closed)).toMatchObject({ code: 'document_closed' });
    } finally {
      sse.close();
    }
  });

  it('stops on SIGTERM with a pick pending (exit 0), the pick ended as cancelled', async () => {
    const own = await startGuiEditor();
    try {
      const asked = await own.rest.post('/api/v1/getpoint', {});
      expect(body(asked)).toMatchObject({ status: 'pending' });
      const sse = await SseReader.open(own.guiPort);
      await sse.next((e) => e.event === 'scene');
      const result = await own.server.stop();
      expect(result.code).toBe(0);
      sse.close();
    } finally {
      await own.stop();
    }
  });
});
