/**
 * The audit routes against the real CLI over a LevelDB data directory: sessions that ended, crashed
 * (kill -9) and are running; a session's events; a document's history with an abandoned branch of the
 * undo tree; entities as of a revision; diffs; and every documented failure.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { arr, body, Client, type EditorServer, type Json, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let dir: string;
let server: EditorServer;
let client: Client;
const ids: { ended: string; crashed: string; running: string } = { ended: '', crashed: '', running: '' };

const LINE = (x: number) => ({ type: 'Line', start: [x, 0], end: [x + 10, 0] });

async function sessionId(c: Client): Promise<string> {
  return body(await c.get('/api/v1/ready')).session_id as string;
}

async function created(c: Client, x: number): Promise<string> {
  const answer = await c.post('/api/v1/entities', { entities: [LINE(x)] });
  expect(answer.status).toBe(201);
  return ((body(answer).result as Json).handles as string[])[0] as string;
}

/**
 * Handles: l1 (rev 1), l2 (rev 2, undone at rev 3, abandoned by rev 4), l3 (rev 4: the handle seed went
 * back with the undo, so l3 has l2's handle); l1 moved at rev 5.
 */
const handles: Record<'l1' | 'l2' | 'l3', string> = { l1: '', l2: '', l3: '' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-audit-'));
  const data = ['--data', dir];
  const first = await startEditor(data);
  const firstClient = new Client(first.port);
  ids.ended = await sessionId(firstClient);
  // Each session starts with its blank drawing, document 1.
  await created(firstClient, 100);
  await first.stop();

  const second = await startEditor(data);
  ids.crashed = await sessionId(new Client(second.port));
  second.child.kill('SIGKILL');
  await second.done;

  server = await startEditor(data);
  client = new Client(server.port);
  ids.running = await sessionId(client);
  handles.l1 = await created(client, 0);
  handles.l2 = await created(client, 20);
  expect((await client.post('/api/v1/undo')).status).toBe(200);
  handles.l3 = await created(client, 40);
  const moved = await client.post('/api/v1/entities/transform', {
    handles: [handles.l1],
    action: 'move',
    vector: [0, 5],
  });
  expect(moved.status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('GET /api/v1/sessions', () => {
  it('lists every session of the store: ended, crashed (kill -9) and the running one, with documents', async () => {
    const answer = await client.get('/api/v1/sessions');
    expect(answer.status).toBe(200);
    const sessions = arr(body(answer), 'sessions') as Json[];
    expect(sessions.map((s) => s.session_id)).toEqual([ids.ended, ids.crashed, ids.running]);
    const [ended, crashed, running] = sessions as [Json, Json, Json];
    expect(ended).toMatchObject({ status: 'ended', crashed: false, current: false });
    expect(typeof ended.ended_at).toBe('string');
    expect(ended.documents).toEqual([
      expect.objectContaining({ document_id: 1, revision: 1, closed_at: null }),
    ]);
    expect(crashed).toMatchObject({ status: 'crashed', crashed: true, ended_at: null });
    expect(crashed.documents).toEqual([expect.objectContaining({ document_id: 1, revision: 0 })]);
    expect(running).toMatchObject({ status: 'running', current: true, ended_at: null, pid: server.pid });
    expect(running.documents).toEqual([
      expect.objectContaining({ document_id: 1, title: 'Drawing1.dxf', revision: 5 }),
    ]);
    expect(body(answer).count).toBe(3);
  });
});

describe('GET /api/v1/sessions/{id}/events', () => {
  it("pages a session's events with time, op and request_id, filtered by document and type", async () => {
    const answer = await client.get(`/api/v1/sessions/${ids.running}/events?document=1&type=EntitiesCreated`);
    expect(answer.status).toBe(200);
    const events = arr(body(answer), 'events') as Json[];
    expect(events.map((e) => e.document_revision)).toEqual([1, 2, 4]);
    for (const event of events) {
      expect(event).toMatchObject({ type: 'EntitiesCreated', op: 'entities_create', document_id: 1 });
      expect(typeof event.at).toBe('string');
      expect(event.request_id).toMatch(/^http-\d+-\d+$/);
    }
    expect(body(answer).next_from).toBeNull();

    const page = body(await client.get(`/api/v1/sessions/${ids.running}/events?limit=2`));
    expect((page.events as Json[]).map((e) => e.stream_revision)).toEqual([0, 1]);
    expect(page.next_from).toBe(2);
    const rest = body(await client.get(`/api/v1/sessions/${ids.running}/events?from=2&limit=1000`));
    expect((rest.events as Json[])[0]?.stream_revision).toBe(2);

    const undone = await client.get(`/api/v1/sessions/${ids.running}/events?type=StepUndone`);
    const undo = (arr(body(undone), 'events') as Json[])[0] as Json;
    expect(undo).toMatchObject({ op: 'undo', document_revision: 3 });
    const byRequest = body(
      await client.get(
        `/api/v1/sessions/${ids.running}/events?request_id=${String(undo.request_id)}&data=true`,
      ),
    );
    expect((byRequest.events as Json[]).map((e) => e.type)).toEqual(['StepUndone', 'OperationAnswered']);
    expect((byRequest.events as Json[])[0]?.data).toMatchObject({ step_revision: 2 });
  });
});

describe('GET /api/v1/documents/{id}/history', () => {
  it('shows the undo tree: the undone step stays as an abandoned branch', async () => {
    const answer = await client.get('/api/v1/documents/1/history');
    expect(answer.status).toBe(200);
    const history = body(answer);
    expect(history).toMatchObject({
      session_id: ids.running,
      document_id: 1,
      revision: 5,
      node: 5,
      count: 6,
    });
    const rows = history.revisions as Json[];
    expect(rows.map((r) => [r.revision, r.kind, r.op, r.parent, r.node])).toEqual([
      [0, 'created', 'new', null, 0],
      [1, 'step', 'entities_create', 0, 1],
      [2, 'step', 'entities_create', 1, 2],
      [3, 'undo', 'undo', 2, 1],
      [4, 'step', 'entities_create', 1, 4],
      [5, 'step', 'entities_transform', 4, 5],
    ]);
    expect(rows[2]).toMatchObject({ undone: true, abandoned: true, undone_by: [3], handles: [handles.l2] });
    expect(rows[3]).toMatchObject({ step_revision: 2, handles: [handles.l2] });
    expect(rows[5]).toMatchObject({ undone: false, abandoned: false, handles: [handles.l1] });
    expect(rows[1]?.keys).toEqual(['handseed']);
    // Mutations carry the wrapper's request ids; undo is a Run route (`rest-<serial>`).
    for (const row of rows.slice(1)) expect(row.request_id).toMatch(/^(http-\d+|rest)-\d+$/);
  });

  it('pages, and reads another session with ?session=', async () => {
    const page = body(await client.get('/api/v1/documents/1/history?offset=4&limit=1'));
    expect((page.revisions as Json[]).map((r) => r.revision)).toEqual([4]);
    expect(page.next_offset).toBe(5);
    const other = body(await client.get(`/api/v1/documents/1/history?session=${ids.ended}`));
    expect(other).toMatchObject({ session_id: ids.ended, revision: 1, count: 2 });
  });
});

describe('GET /api/v1/documents/{id}/at/{revision}/entities', () => {
  it('answers the entity query as of a revision, abandoned branch included', async () => {
    const at = async (revision: number, query = '') => {
      const answer = await client.get(`/api/v1/documents/1/at/${revision}/entities${query}`);
      expect(answer.status).toBe(200);
      return body(answer);
    };
    expect((await at(0)).count).toBe(0);
    expect(((await at(2)).entities as Json[]).map((e) => e.handle)).toEqual([handles.l1, handles.l2]);
    expect(((await at(3)).entities as Json[]).map((e) => e.handle)).toEqual([handles.l1]);
    expect(handles.l3).toBe(handles.l2);
    const l3 = await at(4, `?handles=${handles.l3}&detail=full`);
    expect((l3.entities as Json[])[0]).toMatchObject({ start: [40, 0, 0] });
    const l2 = await at(2, `?handles=${handles.l2}&detail=full`);
    expect((l2.entities as Json[])[0]).toMatchObject({ start: [20, 0, 0] });
    const full = await at(4, `?handles=${handles.l1}&detail=full`);
    expect((full.entities as Json[])[0]).toMatchObject({ start: [0, 0, 0] });
    const moved = await at(5, `?handles=${handles.l1}&detail=full`);
    expect((moved.entities as Json[])[0]).toMatchObject({ start: [0, 5, 0] });
    expect(moved).toMatchObject({ revision: 5, document_id: 1 });
    const paged = await at(4, '?limit=1&offset=1');
    expect(paged).toMatchObject({ count: 2, returned: 1, next_offset: null });
    const where = await at(
      4,
      `?where=${encodeURIComponent(JSON.stringify([{ path: '/start/0', op: 'gt', value: 30 }]))}`,
    );
    expect((where.entities as Json[]).map((e) => e.handle)).toEqual([handles.l3]);
  });
});

describe('GET /api/v1/documents/{id}/diff', () => {
  it('lists entities added, removed and changed with field-level before and after', async () => {
    const answer = await client.get('/api/v1/documents/1/diff?from=3&to=5');
    expect(answer.status).toBe(200);
    const diff = body(answer);
    expect(diff).toMatchObject({ from: 3, to: 5 });
    const entities = diff.entities as { added: Json[]; removed: Json[]; changed: Json[] };
    expect(entities.added.map((e) => e.handle)).toEqual([handles.l3]);
    expect(entities.removed).toEqual([]);
    expect(entities.changed).toEqual([
      {
        key: handles.l1,
        fields: [
          { field: 'start', before: [0, 0, 0], after: [0, 5, 0] },
          { field: 'end', before: [10, 0, 0], after: [10, 5, 0] },
        ],
      },
    ]);
    expect(diff.counts).toMatchObject({ entities: { added: 1, removed: 0, changed: 1 } });
    // The handle seed went back: a different Line under the same handle is a change, not an addition.
    const backwards = body(await client.get('/api/v1/documents/1/diff?from=3&to=2'));
    expect((backwards.entities as { added: Json[] }).added.map((e) => e.handle)).toEqual([handles.l2]);
    const reused = body(await client.get('/api/v1/documents/1/diff?from=2&to=4'));
    expect((reused.entities as { changed: Json[] }).changed).toEqual([
      expect.objectContaining({
        key: handles.l2,
        fields: expect.arrayContaining([{ field: 'start', before: [20, 0, 0], after: [40, 0, 0] }]),
      }),
    ]);
    const same = body(await client.get('/api/v1/documents/1/diff?from=1&to=3'));
    expect(same.counts).toMatchObject({ entities: { added: 0, removed: 0, changed: 0 } });
  });
});

describe('audit route failures', () => {
  it.each([
    ['/api/v1/sessions/no-such-session/events', 404, 'session_absent'],
    ['/api/v1/sessions/RUNNING/events?limit=0', 400, 'invalid_query'],
    ['/api/v1/sessions/RUNNING/events?limit=1001', 400, 'invalid_query'],
    ['/api/v1/sessions/RUNNING/events?from=-1', 400, 'invalid_query'],
    ['/api/v1/sessions/RUNNING/events?document=one', 400, 'invalid_query'],
    ['/api/v1/documents/9/history', 404, 'document_absent'],
    ['/api/v1/documents/x/history', 400, 'invalid_query'],
    ['/api/v1/documents/1/history?session=no-such-session', 404, 'session_absent'],
    ['/api/v1/documents/1/history?offset=abc', 400, 'invalid_query'],
    ['/api/v1/documents/1/history?limit=10001', 400, 'invalid_query'],
    ['/api/v1/documents/1/at/99/entities', 404, 'revision_absent'],
    ['/api/v1/documents/1/at/abc/entities', 400, 'invalid_revision'],
    ['/api/v1/documents/1/at/1/entities?where=not-json', 400, 'invalid_where'],
    ['/api/v1/documents/1/at/1/entities?limit=x', 400, 'invalid_query'],
    ['/api/v1/documents/1/at/1/entities?bounds=0,0,1,1&near=1', 400, 'invalid_point'],
    ['/api/v1/documents/1/diff?from=1', 400, 'invalid_revision'],
    ['/api/v1/documents/1/diff?from=x&to=1', 400, 'invalid_revision'],
    ['/api/v1/documents/1/diff?from=0&to=99', 404, 'revision_absent'],
    ['/api/v1/documents/2/diff?from=0&to=1', 404, 'document_absent'],
  ])('GET %s answers %i %s', async (path, status, code) => {
    const answer = await client.get(path.replace('RUNNING', ids.running));
    expect(answer.status).toBe(status);
    expect(body(answer)).toMatchObject({ ok: false, code, http_status: status });
    expect(typeof body(answer).error).toBe('string');
  });

  it('leaves the spec routes as they were: other methods on audit paths are unknown routes', async () => {
    const answer = await client.post('/api/v1/sessions/x/events', {});
    expect(answer.status).toBe(404);
    expect(body(answer)).toMatchObject({ ok: false, code: 'unknown_route' });
  });
});
