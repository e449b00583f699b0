/**
 * Each row of the endpoint table of spec/editor-rest-api.md against the real CLI: the operation a route
 * reaches, what it takes from the path, the query and the body, and its success status.
 * The tests run in order on one server (later ones use the drawing earlier ones made).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../../cli/helpers.js';
import {
  arr,
  at,
  body,
  Client,
  createEntities,
  type EditorServer,
  newDocument,
  num,
  obj,
  startEditor,
  str,
  strings,
  transportProblems,
} from './helpers.js';

vi.setConfig({ testTimeout: 20_000, hookTimeout: 30_000 });

const packageVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }
).version;

let server: EditorServer;
let client: Client;
let dir: string;

beforeAll(async () => {
  server = await startEditor();
  client = new Client(server.port);
  dir = await mkdtemp(join(tmpdir(), 'chronicle-http-routes-'));
});

afterAll(async () => {
  await server?.stop();
});

const LINE = { type: 'Line', start: [0, 0], end: [10, 0] };
const CIRCLE = { type: 'Circle', center: [5, 5], radius: 2 };
const TEXT = { type: 'Text', value: 'hello', position: [1, 1], height: 2.5 };
const POINT = { type: 'Point', location: [3, 4] };

const expectNoState = (json: Record<string, unknown>) =>
  expect('state' in json, 'Mutate answer without state').toBe(false);
const expectState = (json: Record<string, unknown>) =>
  expect(obj(json, 'state').session_id).toBeTypeOf('string');

describe('readiness, capabilities, state', () => {
  it('GET /ready answers ok, ready, version, session_id and document_id (the blank drawing the editor starts with), nothing else', async () => {
    const answer = await client.get('/api/v1/ready');
    expect(answer.status).toBe(200);
    const json = body(answer);
    expect(json).toMatchObject({ ok: true, ready: true, version: packageVersion, document_id: 1 });
    expect(Object.keys(json).sort()).toEqual([
      'document_id',
      'http_status',
      'ok',
      'ready',
      'session_id',
      'version',
    ]);
    const state = await client.get('/api/v1/state');
    expect(json.session_id).toBe(at(body(state), 'state.session_id'));
  });

  it('GET / (under /api/v1) is readiness too', async () => {
    const answer = await client.get('/api/v1/');
    expect(answer.status).toBe(200);
    expect(body(answer)).toMatchObject({ ok: true, ready: true, version: packageVersion });
  });

  it('GET /capabilities runs the capabilities op (state kept: a Run)', async () => {
    const answer = await client.get('/api/v1/capabilities');
    expect(answer.status).toBe(200);
    const ops = strings(body(answer), 'result.ops');
    expect(ops).toEqual(expect.arrayContaining(['query', 'entities_create', 'state', 'capabilities']));
    // The reference editor's feature detection: operations.<op> === true at the top level.
    expect(at(body(answer), 'operations.entities_create')).toBe(true);
    expect(Object.keys(obj(body(answer), 'operations')).sort()).toEqual([...ops].sort());
    expectState(body(answer));
  });

  it('GET /state and GET /documents run state: session, version, documents, also at the top level', async () => {
    for (const path of ['/api/v1/state', '/api/v1/documents']) {
      const answer = await client.get(path);
      expect(answer.status, path).toBe(200);
      const json = body(answer);
      expect(json.ok).toBe(true);
      expect(at(json, 'state.version')).toBe(packageVersion);
      // The editor starts with one blank untitled drawing.
      const blank = { id: 1, title: 'Drawing1.dxf', path: null, dirty: false, revision: 0 };
      expect(arr(json, 'state.documents')).toEqual([blank]);
      expect(json).toMatchObject({
        document_id: 1,
        session_id: at(json, 'state.session_id'),
        version: packageVersion,
        protocol: 1,
        mode: 'headless',
        revision: 0,
        documents: [blank],
        selection: [],
        operation: null,
      });
      expect(str(json, 'hand_seed')).toMatch(/^[0-9A-F]+$/);
    }
  });
});

describe('documents', () => {
  let saved: string;

  it('POST /documents without a body: a blank document (Mutate new), 201', async () => {
    const answer = await client.post('/api/v1/documents');
    expect(answer.status).toBe(201);
    expect(answer.reason).toBe('Created');
    const id = num(body(answer), 'document_id');
    expect(at(body(answer), 'result.document_id')).toBe(id);
    expect(str(body(answer), 'result.title')).toMatch(/\.dxf$/);
    expectNoState(body(answer));
    const ready = await client.get('/api/v1/ready');
    expect(body(ready).document_id).toBe(id);
  });

  it('POST /documents {template} is new from that template', async () => {
    const imperial = await client.post('/api/v1/documents', { template: 'imperial' });
    expect(imperial.status).toBe(201);
    const measurement = await client.get('/api/v1/sysvars?names=MEASUREMENT');
    expect(at(body(measurement), 'result.values.MEASUREMENT')).toBe(0);
    const metric = await client.post('/api/v1/documents', { template: 'metric' });
    expect(metric.status).toBe(201);
    expect(at(body(await client.get('/api/v1/sysvars?names=MEASUREMENT')), 'result.values.MEASUREMENT')).toBe(
      1,
    );
    const missing = await client.post('/api/v1/documents', { template: join(dir, 'no-such.dxf') });
    expect(missing.status).toBe(400);
    expect(body(missing).code).toBe('file_not_found');
    expectNoState(body(missing));
  });

  it('POST /documents: a template that is not a string, or a path that is not one, makes a blank document', async () => {
    for (const sent of [{ template: 5 }, { path: 7 }, { template: null }, { template: ['metric'] }]) {
      const answer = await client.post('/api/v1/documents', sent);
      expect(answer.status, JSON.stringify(sent)).toBe(201);
      expectNoState(body(answer));
    }
  });

  it('POST /save {path} writes the active document (Run: state kept)', async () => {
    await createEntities(client, [LINE]);
    saved = join(dir, 'saved.dxf');
    const answer = await client.post('/api/v1/save', { path: saved });
    expect(answer.status, answer.text).toBe(200);
    expect(at(body(answer), 'result.path')).toBe(saved);
    expect(num(body(answer), 'result.bytes')).toBeGreaterThan(0);
    expectState(body(answer));
    expect(existsSync(saved)).toBe(true);
    // Saved again without a path: to the same file.
    const again = await client.post('/api/v1/save');
    expect(again.status, again.text).toBe(200);
    expect(at(body(again), 'result.path')).toBe(saved);
  });

  it('POST /documents {path} opens the file, 201', async () => {
    const answer = await client.post('/api/v1/documents', { path: saved });
    expect(answer.status, answer.text).toBe(201);
    expect(at(body(answer), 'result.path')).toBe(saved);
    const id = num(body(answer), 'document_id');
    const lines = await client.get('/api/v1/entities?type=Line');
    expect(body(lines).count).toBe(1);
    expect(body(lines).document_id).toBe(id);
    const missing = await client.post('/api/v1/documents', { path: join(dir, 'absent.dxf') });
    expect(missing.status).toBe(400);
    expect(body(missing).code).toBe('file_not_found');
  });

  it('POST /documents {path} is a Run, not a Mutate: state is kept in its answers', async () => {
    for (const path of [saved, join(dir, 'absent.dxf')]) {
      const answer = await client.post('/api/v1/documents', { path });
      expect(answer.json, answer.text).toBeDefined();
      expectState(body(answer));
    }
  });

  it('POST /documents with both: template wins (new, not open)', async () => {
    const answer = await client.post('/api/v1/documents', {
      template: 'metric',
      path: join(dir, 'absent.dxf'),
    });
    expect(answer.status, answer.text).toBe(201);
    expectNoState(body(answer));
  });

  it('DELETE /documents/{id}: a dirty document needs discard=true or discard=1', async () => {
    const first = await newDocument(client);
    await createEntities(client, [LINE]);
    const refused = await client.del(`/api/v1/documents/${first}`);
    expect(refused.status).toBe(400);
    expect(body(refused).code).toBe('document_dirty');
    const notTrue = await client.del(`/api/v1/documents/${first}?discard=yes`);
    expect(notTrue.status).toBe(400);
    expect(body(notTrue).code).toBe('document_dirty');
    const closed = await client.del(`/api/v1/documents/${first}?discard=true`);
    expect(closed.status, closed.text).toBe(200);
    expect(body(closed).result).toMatchObject({ closed: true, closed_document_id: first, discarded: true });
    expectNoState(body(closed));

    const second = await newDocument(client);
    await createEntities(client, [LINE]);
    const one = await client.del(`/api/v1/documents/${second}?discard=1`);
    expect(one.status, one.text).toBe(200);
    expect(body(one).result).toMatchObject({ closed: true, closed_document_id: second, discarded: true });
  });

  it('DELETE /documents/{id} of a clean document closes it without discard', async () => {
    const id = await newDocument(client);
    const answer = await client.del(`/api/v1/documents/${id}`);
    expect(answer.status).toBe(200);
    expect(body(answer).result).toMatchObject({ closed: true, closed_document_id: id, discarded: false });
    const state = await client.get('/api/v1/documents');
    expect(arr(body(state), 'state.documents').map((d) => at(d, 'id'))).not.toContain(id);
  });

  it('DELETE /documents/{not a number}: no document_id sent, so the cached active one is closed', async () => {
    const id = await newDocument(client);
    const answer = await client.del('/api/v1/documents/latest');
    expect(answer.status, answer.text).toBe(200);
    expect(at(body(answer), 'result.closed')).toBe(true);
    expect(at(body(answer), 'result.closed_document_id')).toBe(id);
  });
});

describe('system variables, layouts', () => {
  it('GET /sysvars: names comma-split into get; without names every variable, by its lower-case name', async () => {
    await newDocument(client);
    const all = await client.get('/api/v1/sysvars');
    expect(all.status).toBe(200);
    const values = obj(body(all), 'result.values');
    expect(values).toMatchObject({ ltscale: 1, clayer: '0' });
    expect(Object.keys(values).length).toBeGreaterThan(50);
    expect(Object.keys(values).every((name) => name === name.toLowerCase())).toBe(true);
    expectNoState(body(all));
    const two = await client.get('/api/v1/sysvars?names=ORTHOMODE,MEASUREMENT');
    expect(two.status).toBe(200);
    expect(Object.keys(obj(body(two), 'result.values')).sort()).toEqual(['MEASUREMENT', 'ORTHOMODE']);
  });

  it('POST /sysvars passes the body through (set)', async () => {
    const set = await client.post('/api/v1/sysvars', { set: { ORTHOMODE: 1 } });
    expect(set.status, set.text).toBe(200);
    expect(at(body(set), 'result.values.ORTHOMODE')).toBe(1);
    const read = await client.get('/api/v1/sysvars?names=ORTHOMODE');
    expect(at(body(read), 'result.values.ORTHOMODE')).toBe(1);
  });

  it('POST /layouts creates a layout, 201, result.layouts lists it', async () => {
    const answer = await client.post('/api/v1/layouts', { name: 'Plan2' });
    expect(answer.status, answer.text).toBe(201);
    expect(strings(body(answer), 'result.layouts')).toContain('Plan2');
    expectNoState(body(answer));
  });

  it('PUT /layouts/{layout}/page-setup: the layout of the path overrides the body', async () => {
    const answer = await client.put('/api/v1/layouts/Plan2/page-setup', {
      layout: 'Layout1',
      paper: 'A3',
      orientation: 'portrait',
      fit: false,
      center: false,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(body(answer).result).toMatchObject({
      layout: 'Plan2',
      paper: 'ISO_A3_(297.00_x_420.00_MM)',
      paper_name: 'ISO A3',
      orientation: 'portrait',
      center: false,
      scale: { fit: false },
    });
    const refit = await client.put('/api/v1/layouts/Plan2/page-setup', { fit: true });
    expect(at(body(refit), 'result.scale.fit')).toBe(true);
    expect(at(body(refit), 'result.paper')).toBe('ISO_A3_(297.00_x_420.00_MM)');
    const missing = await client.put('/api/v1/layouts/NoSuchLayout/page-setup', {
      layout: 'Plan2',
      fit: true,
    });
    expect(missing.status).toBe(400);
    expect(body(missing).code).toBe('layout_missing');
  });
});

describe('entities', () => {
  let handles: string[];

  it('POST /entities creates them, 201, result.handles', async () => {
    const answer = await client.post('/api/v1/entities', { entities: [LINE, CIRCLE, TEXT, POINT] });
    expect(answer.status, answer.text).toBe(201);
    handles = strings(body(answer), 'result.handles');
    expect(handles).toHaveLength(4);
    expectNoState(body(answer));
  });

  it('GET /entities/{handle} answers count 1 and the entity at detail full (3-number points, bounds)', async () => {
    const answer = await client.get(`/api/v1/entities/${handles[0]}`);
    expect(answer.status).toBe(200);
    expect(body(answer).count).toBe(1);
    expect(at(body(answer), 'entities.0')).toMatchObject({
      handle: handles[0],
      type: 'Line',
      layer: '0',
      start: [0, 0, 0],
      end: [10, 0, 0],
      bounds: { min: [0, 0, 0], max: [10, 0, 0] },
    });
    const text = await client.get(`/api/v1/entities/${handles[2]}`);
    expect(at(body(text), 'entities.0')).toMatchObject({
      type: 'Text',
      value: 'hello',
      text: 'hello',
      position: [1, 1, 0],
    });
    expect(at(body(text), 'entities.0.bounds')).toBeTypeOf('object');
    expectState(body(text));
  });

  it('GET /entities runs query: entities and count', async () => {
    const answer = await client.get('/api/v1/entities');
    expect(answer.status).toBe(200);
    expect(body(answer).count).toBe(4);
    expect(arr(body(answer), 'entities').map((e) => at(e, 'handle'))).toEqual(handles);
  });

  it('POST /entities/transform moves them, 200', async () => {
    const answer = await client.post('/api/v1/entities/transform', {
      handles: [handles[0]],
      action: 'move',
      vector: [1, 2],
    });
    expect(answer.status, answer.text).toBe(200);
    expectNoState(body(answer));
    const line = await client.get(`/api/v1/entities/${handles[0]}`);
    expect(at(body(line), 'entities.0.start')).toEqual([1, 2, 0]);
  });

  it('DELETE /entities takes the handles of the query (comma-separated) before those of the body', async () => {
    const extra = await createEntities(client, [POINT, POINT, POINT]);
    const [a, b, c] = extra as [string, string, string];
    const answer = await client.del(`/api/v1/entities?handles=${a},${b}`, { handles: [c] });
    expect(answer.status, answer.text).toBe(200);
    expect(at(body(answer), 'result.erased')).toBe(2);
    expectNoState(body(answer));
    expect((await client.get(`/api/v1/entities/${a}`)).status).toBe(404);
    expect((await client.get(`/api/v1/entities/${c}`)).status).toBe(200);
    const fromBody = await client.del('/api/v1/entities', { handles: [c] });
    expect(fromBody.status, fromBody.text).toBe(200);
    expect(at(body(fromBody), 'result.erased')).toBe(1);
    expect((await client.get(`/api/v1/entities/${c}`)).status).toBe(404);
  });

  it('DELETE /entities with a handle that does not exist: 404 entity_absent, nothing erased', async () => {
    const answer = await client.del(`/api/v1/entities?handles=${handles[3]},FFFFF`);
    expect(answer.status).toBe(404);
    expect(body(answer).code).toBe('entity_absent');
    expect((await client.get(`/api/v1/entities/${handles[3]}`)).status).toBe(200);
  });

  it('PUT /entities/{h}/xdata/{app} sets the body array; GET .../xdata?app= reads it', async () => {
    const h = handles[1] as string;
    const data = [
      { code: 1000, value: 'hello' },
      { code: 1070, value: 7 },
    ];
    const set = await client.put(`/api/v1/entities/${h}/xdata/MYAPP`, data);
    expect(set.status, set.text).toBe(200);
    expect(body(set).result).toMatchObject({ updated: 1, app: 'MYAPP', items: 2 });
    expectNoState(body(set));
    await client.put(`/api/v1/entities/${h}/xdata/OTHERAPP`, [{ code: 1000, value: 'x' }]);

    const one = await client.get(`/api/v1/entities/${h}/xdata?app=MYAPP`);
    expect(one.status).toBe(200);
    expect(at(body(one), 'items.0.handle')).toBe(h);
    // The values in order (the reference editor's shape); `data` keeps their group codes.
    expect(at(body(one), 'items.0.xdata')).toEqual({ MYAPP: ['hello', 7] });
    expect(at(body(one), 'items.0.data')).toEqual({ MYAPP: data });
    const all = await client.get(`/api/v1/entities/${h}/xdata`);
    expect(Object.keys(obj(body(all), 'items.0.xdata')).sort()).toEqual(['MYAPP', 'OTHERAPP']);
    const none = await client.get(`/api/v1/entities/${h}/xdata?app=NOBODY`);
    expect(at(body(none), 'items.0.xdata')).toEqual({});
  });

  it('PUT .../xdata/{app} with a null or absent body clears the app (an empty array)', async () => {
    const h = handles[1] as string;
    const nulled = await client.put(`/api/v1/entities/${h}/xdata/MYAPP`, undefined, { raw: 'null' });
    expect(nulled.status, nulled.text).toBe(200);
    expect(body(nulled).result).toMatchObject({ items: 0, cleared: true });
    const absent = await client.put(`/api/v1/entities/${h}/xdata/OTHERAPP`);
    expect(absent.status, absent.text).toBe(200);
    expect(at(body(absent), 'result.cleared')).toBe(true);
    const all = await client.get(`/api/v1/entities/${h}/xdata`);
    expect(at(body(all), 'items.0.xdata')).toEqual({});
  });

  it('DELETE /entities/{h}/xdata/{app} clears it', async () => {
    const h = handles[1] as string;
    await client.put(`/api/v1/entities/${h}/xdata/MYAPP`, [{ code: 1040, value: 2.5 }]);
    const answer = await client.del(`/api/v1/entities/${h}/xdata/MYAPP`);
    expect(answer.status, answer.text).toBe(200);
    expect(at(body(answer), 'result.cleared')).toBe(true);
    expectNoState(body(answer));
    expect(at(body(await client.get(`/api/v1/entities/${h}/xdata?app=MYAPP`)), 'items.0.xdata')).toEqual({});
  });

  it('POST /blocks defines a block, 201; DELETE /blocks/{name} answers result.erased (its inserts)', async () => {
    const defined = await client.post('/api/v1/blocks', {
      name: 'B1',
      base: [0, 0, 0],
      handles: [handles[1]],
    });
    expect(defined.status, defined.text).toBe(201);
    expect(body(defined).result).toMatchObject({ block: 'B1', name: 'B1', count: 1 });
    // handles[1] went into the block; one insert of it took its place.
    expect(str(body(defined), 'result.insert')).toMatch(/^[0-9A-F]+$/);
    expectNoState(body(defined));
    const again = await client.post('/api/v1/blocks', { name: 'B1', handles: [handles[1]] });
    expect(again.status).toBe(400);
    expect(body(again).code).toBe('block_exists');
    const replaced = await client.post('/api/v1/blocks', {
      name: 'B1',
      handles: [handles[3]],
      replace: true,
    });
    expect(replaced.status, replaced.text).toBe(201);
    expect(at(body(replaced), 'result.replaced')).toBe(true);
    expect(at(body(replaced), 'result.erased')).toBe(1);

    await createEntities(client, [
      { type: 'Insert', name: 'B1', position: [20, 20] },
      { type: 'Insert', name: 'B1', position: [30, 20] },
    ]);
    const deleted = await client.del('/api/v1/blocks/B1');
    expect(deleted.status, deleted.text).toBe(200);
    // The insert the replace placed and the two made here.
    expect(at(body(deleted), 'result.erased')).toBe(3);
    expectNoState(body(deleted));
    const gone = await client.del('/api/v1/blocks/B1');
    expect(gone.status).toBe(400);
    expect(body(gone).code).toBe('block_missing');
  });

  it('POST /file-identity answers result.identity, 36 characters, the same each time', async () => {
    const first = await client.post('/api/v1/file-identity', {});
    expect(first.status, first.text).toBe(200);
    const identity = str(body(first), 'result.identity');
    expect(identity).toMatch(/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/);
    expectNoState(body(first));
    const second = await client.post('/api/v1/file-identity');
    expect(str(body(second), 'result.identity')).toBe(identity);
  });

  it('POST /groups creates a group, 201', async () => {
    const answer = await client.post('/api/v1/groups', { name: 'G1', handles: [handles[0], handles[2]] });
    expect(answer.status, answer.text).toBe(201);
    expect(body(answer).result).toMatchObject({ name: 'G1', count: 2 });
    expectNoState(body(answer));
  });

  it('POST /selection-sets saves one, 201; GET /selection-sets/{name}?select= loads it (true or 1 selects)', async () => {
    const [line, , text] = handles as [string, string, string];
    const saved = await client.post('/api/v1/selection-sets', { name: 'S1', handles: [text, line] });
    expect(saved.status, saved.text).toBe(201);
    expect(at(body(saved), 'result.count')).toBe(2);
    expectNoState(body(saved));
    await client.post('/api/v1/selection-sets', { name: 'S2', handles: [line] });
    const selection = async () => strings(body(await client.get('/api/v1/state')), 'state.selection.handles');

    for (const query of ['', '?select=yes', '?select=0', '?select=TRUE']) {
      const answer = await client.get(`/api/v1/selection-sets/S1${query}`);
      expect(answer.status, query).toBe(200);
      expect(body(answer).result, query).toMatchObject({ name: 'S1', handles: [text, line], selected: 0 });
      expectNoState(body(answer));
      expect(await selection(), query).toEqual([]);
    }
    const selected = await client.get('/api/v1/selection-sets/S1?select=true');
    expect(at(body(selected), 'result.selected')).toBe(2);
    expect(await selection()).toEqual([text, line]);
    const one = await client.get('/api/v1/selection-sets/S2?select=1');
    expect(at(body(one), 'result.selected')).toBe(1);
    expect(await selection()).toEqual([line]);
    const missing = await client.get('/api/v1/selection-sets/NOPE');
    expect(missing.status).toBe(400);
    expect(body(missing).code).toBe('selection_set_missing');
  });

  it('POST /get_selection: completed, count and the entities in selection order; passive', async () => {
    const [line, , text] = handles as [string, string, string];
    await client.get('/api/v1/selection-sets/S1?select=1');
    const first = await client.post('/api/v1/get_selection', {});
    expect(first.status, first.text).toBe(200);
    expect(body(first)).toMatchObject({ ok: true, status: 'completed', result: { count: 2 } });
    const entities = arr(body(first), 'result.entities');
    expect(entities.map((e) => at(e, 'handle'))).toEqual([text, line]);
    expect(entities[0]).toMatchObject({ type: 'Text', text: 'hello', value: 'hello' });
    expect(entities[1]).toMatchObject({ type: 'Line', text: null, value: null });
    // The spec's fields, and the reference editor's layer, block and position (null but for an Insert).
    expect(Object.keys(entities[1] as object).sort()).toEqual([
      'block',
      'bounds',
      'handle',
      'layer',
      'position',
      'text',
      'type',
      'value',
    ]);
    const second = await client.post('/api/v1/get_selection', {});
    expect(body(second).result).toEqual(body(first).result);
  });

  it('POST /entities/copy-to copies into another document, 201, result.count', async () => {
    const source = num(body(await client.get('/api/v1/ready')), 'document_id');
    const target = await newDocument(client);
    await client.post('/api/v1/activate', { document_id: source });
    const answer = await client.post('/api/v1/entities/copy-to', {
      // handles[1] went into block B1 and went with it.
      handles: [handles[0], handles[2]],
      document_id: target,
    });
    expect(answer.status, answer.text).toBe(201);
    expect(at(body(answer), 'result.count')).toBe(2);
    expect(strings(body(answer), 'result.created')).toHaveLength(2);
    expectNoState(body(answer));
    await client.post('/api/v1/activate', { document_id: target });
    expect(body(await client.get('/api/v1/entities')).count).toBe(2);
  });
});

describe('Run rows: commands, undo, redo, save; layers, header, records; openapi', () => {
  it('POST /undo and POST /redo act on the active document (state kept)', async () => {
    await newDocument(client);
    const [h] = await createEntities(client, [CIRCLE]);
    const undone = await client.post('/api/v1/undo');
    expect(undone.status, undone.text).toBe(200);
    expect(at(body(undone), 'result.undone')).toBe('entities_create');
    expectState(body(undone));
    expect((await client.get(`/api/v1/entities/${h}`)).status).toBe(404);
    const redone = await client.post('/api/v1/redo', {});
    expect(redone.status, redone.text).toBe(200);
    expect(at(body(redone), 'result.redone')).toBe('entities_create');
    expectState(body(redone));
    expect((await client.get(`/api/v1/entities/${h}`)).status).toBe(200);
    const nothing = await client.post('/api/v1/redo');
    expect(nothing.status).toBe(400);
    expect(body(nothing).code).toBe('nothing_to_redo');
  });

  it('POST /save without a path on a document never saved: 400 path_required (state kept)', async () => {
    const answer = await client.post('/api/v1/save', {});
    expect(answer.status).toBe(400);
    expect(body(answer).code).toBe('path_required');
    expectState(body(answer));
  });

  it('POST /plot, /wblock, /images reach plot, wblock, embed_image through the wrapper (no state)', async () => {
    const ops = strings(body(await client.get('/api/v1/capabilities')), 'result.ops');
    for (const [path, op, success] of [
      ['/api/v1/plot', 'plot', 200],
      ['/api/v1/wblock', 'wblock', 200],
      ['/api/v1/images', 'embed_image', 201],
    ] as const) {
      const answer = await client.post(path, {});
      expect(str(body(answer), 'request_id'), path).toMatch(new RegExp(`^http-${server.pid}-\\d+$`));
      expectNoState(body(answer));
      if (!ops.includes(op)) {
        // The dispatcher does not offer it: its refusal names the op the route sent.
        expect(answer.status, path).toBe(400);
        expect(body(answer), path).toMatchObject({
          code: 'unknown_operation',
          error: `unknown operation "${op}"`,
        });
      } else if (body(answer).ok === true) {
        expect(answer.status, path).toBe(success);
      }
    }
  });

  it('POST /commands runs the op `run` with cmd (state kept)', async () => {
    const ops = strings(body(await client.get('/api/v1/capabilities')), 'result.ops');
    const answer = await client.post('/api/v1/commands', { cmd: 'REGEN', other: 1 });
    expectState(body(answer));
    if (ops.includes('run')) {
      // REGEN is no command of `run`: its refusal names it, so cmd reached the op.
      expect(answer.status, answer.text).toBe(400);
      expect(body(answer)).toMatchObject({ code: 'unknown_command' });
      expect(body(answer).error).toContain('REGEN');
    } else {
      // The dispatcher has no `run`: its refusal names the op the route sent.
      expect(answer.status).toBe(400);
      expect(body(answer)).toMatchObject({ code: 'unknown_operation', error: 'unknown operation "run"' });
    }
  });

  it('GET /layers, GET /header run their ops on the active document (state kept)', async () => {
    const layers = await client.get('/api/v1/layers');
    expect(layers.status, layers.text).toBe(200);
    expect(arr(body(layers), 'result.layers').map((l) => at(l, 'name'))).toContain('0');
    expectState(body(layers));
    const header = await client.get('/api/v1/header');
    expect(header.status, header.text).toBe(200);
    expect(obj(body(header), 'result.values')).toHaveProperty('$ACADVER');
    expectState(body(header));
  });

  it('GET /records forwards collection, type, offset and limit when present', async () => {
    const all = await client.get('/api/v1/records');
    expect(all.status, all.text).toBe(200);
    expectState(body(all));
    const total = num(body(all), 'result.count');
    expect(total).toBeGreaterThan(2);
    expect(at(body(all), 'result.returned')).toBe(total);

    const tables = await client.get('/api/v1/records?collection=tables');
    const tableCount = num(body(tables), 'result.count');
    expect(tableCount).toBeLessThan(total);
    const objects = await client.get('/api/v1/records?collection=objects');
    expect(num(body(objects), 'result.count') + tableCount).toBe(total);

    const styles = await client.get('/api/v1/records?collection=tables&type=STYLE');
    const styleRecords = arr(body(styles), 'result.records');
    expect(styleRecords.length).toBeGreaterThan(0);
    expect(styleRecords.length).toBeLessThan(tableCount);
    expect(styleRecords.every((r) => at(r, 'table') === 'STYLE')).toBe(true);

    const page = await client.get('/api/v1/records?offset=1&limit=2');
    expect(body(page).result).toMatchObject({ count: total, returned: 2, next_offset: 3 });
    expect(at(body(page), 'result.records.0')).toEqual(at(body(all), 'result.records.1'));

    const bad = await client.get('/api/v1/records?collection=nonsense');
    expect(bad.status).toBe(400);
    expect(body(bad).code).toBe('invalid_query');
  });

  it('GET /openapi serves the OpenAPI 3.0.3 description', async () => {
    const answer = await client.get('/api/v1/openapi');
    expect(answer.status).toBe(200);
    expect(body(answer).openapi).toBe('3.0.3');
    const paths = Object.keys(obj(body(answer), 'paths'));
    expect(paths.some((p) => p.includes('/entities'))).toBe(true);
    expect(paths.some((p) => p.includes('/selection-sets'))).toBe(true);
  });

  it('every answer of this file carried the transport headers and http_status', () => {
    expect(client.answers.length).toBeGreaterThan(60);
    for (const { what, answer } of client.answers) expect(transportProblems(answer), what).toEqual([]);
  });
});
