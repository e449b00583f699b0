/**
 * The mutation wrapper (rules 1-7) and the Run path, seen from outside: request ids, the cached active
 * document_id, the caller's fields over the envelope, the one retry after re-reading state, `state`
 * stripped from Mutate answers and kept in Run answers, `rest-<serial>` ids of the generic passthrough.
 * Recorded attempts are read back with the `operation` op (generic POST /operation).
 * The tests run in order on one server, which starts with one blank drawing.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type Answer,
  arr,
  at,
  body,
  Client,
  createEntities,
  type EditorServer,
  newDocument,
  obj,
  startEditor,
  str,
  strings,
  transportProblems,
} from './helpers.js';

vi.setConfig({ testTimeout: 20_000, hookTimeout: 30_000 });

let server: EditorServer;
let client: Client;
let wrapperId: RegExp;

beforeAll(async () => {
  server = await startEditor();
  client = new Client(server.port);
  wrapperId = new RegExp(`^http-${server.pid}-(\\d+)$`);
});

afterAll(async () => {
  await server?.stop();
});

const LINE = { type: 'Line', start: [0, 0], end: [10, 0] };

/** The counter of a wrapper request id `http-<pid>-<counter>`; fails the test for any other id. */
function counterOf(answer: Answer): number {
  const id = str(body(answer), 'request_id');
  const m = wrapperId.exec(id);
  if (!m) throw new Error(`request_id ${id} is not http-${server.pid}-<counter>`);
  return Number(m[1]);
}

/** The recorded attempt with this request id (POST /operation). */
async function operation(requestId: string): Promise<Record<string, unknown>> {
  const answer = await client.post('/api/v1/operation', { request_id: requestId });
  expect(answer.status, answer.text).toBe(200);
  return obj(body(answer), 'result');
}

const attempt = (counter: number) => `http-${server.pid}-${counter}`;

describe('rule 5: the one retry after re-reading state', () => {
  it('document_closed: two attempts, each recorded, the answer is the second one', async () => {
    // The editor starts with a blank drawing (cached at start), so a document the caller names that is
    // not open is what makes a first attempt fail here; the caller's document_id wins on both attempts.
    const before = counterOf(await client.post('/api/v1/sysvars', { get: ['ORTHOMODE'] }));
    const answer = await client.post('/api/v1/entities', { document_id: 999, entities: [LINE] });
    expect(answer.status).toBe(400);
    expect(body(answer).code).toBe('document_closed');
    const second = counterOf(answer);
    expect(second).toBe(before + 2);
    // Two attempts, not three: the next mutation takes the next counter.
    const created = await client.post('/api/v1/documents');
    expect(created.status).toBe(201);
    expect(counterOf(created)).toBe(second + 1);
    // (Read after: the operation's answer carries its document_id, 999, which the cache would take.)
    const first = await operation(attempt(second - 1));
    expect(first).toMatchObject({ op: 'entities_create', status: 'failed' });
    expect(at(first, 'answer.code')).toBe('document_closed');
    await client.get('/api/v1/state');
  });

  it('stale_state with the caller’s revision: retried once (the caller’s revision wins again), then 409', async () => {
    const before = counterOf(await client.post('/api/v1/sysvars', { get: ['ORTHOMODE'] }));
    const answer = await client.post('/api/v1/entities', { revision: 999, entities: [LINE] });
    expect(answer.status).toBe(409);
    expect(body(answer).code).toBe('stale_state');
    expect(counterOf(answer)).toBe(before + 2);
    expect(at(await operation(attempt(before + 1)), 'answer.code')).toBe('stale_state');
    expect(at(await operation(attempt(before + 2)), 'answer.code')).toBe('stale_state');
  });

  it('a code outside the five (entity_absent) is not retried', async () => {
    const before = counterOf(await client.post('/api/v1/sysvars', { get: ['ORTHOMODE'] }));
    const answer = await client.del('/api/v1/entities?handles=FFFFF');
    expect(answer.status).toBe(404);
    expect(counterOf(answer)).toBe(before + 1);
    expect(counterOf(await client.post('/api/v1/sysvars', {}))).toBe(before + 2);
  });

  it('a cached document that is no longer active: the retry runs against the active one and succeeds', async () => {
    // Two documents, B active. Copying B's line into A answers document_id A (the copy's target),
    // which the server caches although B stays the active document.
    const a = await newDocument(client);
    const b = await newDocument(client);
    const [line] = await createEntities(client, [LINE]);
    const copied = await client.post('/api/v1/entities/copy-to', { handles: [line], document_id: a });
    expect(copied.status, copied.text).toBe(201);
    expect(body(copied).document_id).toBe(a);

    // Now a mutation without document_id goes first to A (document_not_active), then, after the
    // state is read again, to B.
    const answer = await client.post('/api/v1/entities', { entities: [{ type: 'Point', location: [5, 5] }] });
    expect(answer.status, answer.text).toBe(201);
    expect(body(answer).document_id).toBe(b);
    const first = await operation(attempt(counterOf(answer) - 1));
    expect(first).toMatchObject({ op: 'entities_create', status: 'failed' });
    expect(at(first, 'answer.code')).toBe('document_not_active');

    const [handle] = arr(body(answer), 'result.handles') as string[];
    const found = await client.get(`/api/v1/entities/${handle}`);
    expect(found.status).toBe(200);
    expect(at(body(found), 'entities.0.type')).toBe('Point');
    expect(body(found).document_id).toBe(b);
  });

  it('the cached document closed by a Run (POST /close): the next mutation acts on the new active document', async () => {
    const a = await newDocument(client);
    const b = await newDocument(client);
    const closed = await client.post('/api/v1/close', { document_id: b });
    expect(closed.status, closed.text).toBe(200);
    expect(at(body(closed), 'result.closed')).toBe(true);
    expect(at(body(closed), 'result.closed_document_id')).toBe(b);
    const answer = await client.post('/api/v1/entities', { entities: [LINE] });
    expect(answer.status, answer.text).toBe(201);
    expect(body(answer).document_id).toBe(a);
    const state = await client.get('/api/v1/state');
    expect(at(body(state), 'state.document_id')).toBe(a);
  });
});

describe('rules 1-4: the envelope', () => {
  it('request ids are http-<pid>-<counter>, the counter increasing by one per attempt across routes', async () => {
    const ids: number[] = [];
    ids.push(counterOf(await client.post('/api/v1/documents')));
    ids.push(counterOf(await client.post('/api/v1/entities', { entities: [LINE] })));
    ids.push(counterOf(await client.get('/api/v1/sysvars?names=ORTHOMODE')));
    await client.get('/api/v1/state'); // a Run takes no wrapper id
    ids.push(counterOf(await client.post('/api/v1/file-identity', {})));
    expect(ids.slice(1).map((n, i) => n - (ids[i] as number))).toEqual([1, 1, 1]);
  });

  it('the cached active document_id is added (entities_create needs one)', async () => {
    const id = await newDocument(client);
    const answer = await client.post('/api/v1/entities', { entities: [LINE] });
    expect(answer.status).toBe(201);
    expect(body(answer).document_id).toBe(id);
    // One attempt: the document was there from the start, not found by a retry.
    const recorded = await operation(str(body(answer), 'request_id'));
    expect(recorded).toMatchObject({ op: 'entities_create', status: 'completed' });
    expect(counterOf(answer)).toBe(counterOf(await client.post('/api/v1/sysvars', {})) - 1);
  });

  it('the cache follows answers: after DELETE /documents/{active}, the next mutation needs no retry', async () => {
    const a = await newDocument(client);
    const b = await newDocument(client);
    const closed = await client.del(`/api/v1/documents/${b}`);
    expect(closed.status).toBe(200);
    expect(body(closed).document_id).toBe(a);
    const answer = await client.post('/api/v1/entities', { entities: [LINE] });
    expect(answer.status).toBe(201);
    expect(body(answer).document_id).toBe(a);
    expect(counterOf(answer)).toBe(counterOf(closed) + 1);
  });

  it('the caller’s request_id wins', async () => {
    const answer = await client.post('/api/v1/entities', { request_id: 'caller-chosen-1', entities: [LINE] });
    expect(answer.status).toBe(201);
    expect(body(answer).request_id).toBe('caller-chosen-1');
    expect(await operation('caller-chosen-1')).toMatchObject({ op: 'entities_create', status: 'completed' });
  });

  it('the caller’s document_id wins over the cached one', async () => {
    const a = await newDocument(client);
    await newDocument(client);
    const answer = await client.post('/api/v1/groups', { document_id: a, name: 'G', handles: [] });
    expect(answer.status).toBe(409);
    expect(body(answer).code).toBe('document_not_active');
  });

  it('every caller field is copied over the envelope, protocol included', async () => {
    const answer = await client.post('/api/v1/entities', { protocol: 2, entities: [LINE] });
    expect(answer.status).toBe(400);
    expect(body(answer).code).toBe('protocol_mismatch');
  });
});

describe('rule 6: state', () => {
  it('is removed from Mutate answers, successful or not', async () => {
    const answers = [
      await client.post('/api/v1/documents'),
      await client.post('/api/v1/entities', { entities: [LINE] }),
      await client.get('/api/v1/sysvars?names=ORTHOMODE'),
      await client.post('/api/v1/entities', { revision: 12345, entities: [LINE] }),
      await client.post('/api/v1/entities_create', { entities: [LINE] }),
      await client.post('/api/v1/get_selection', {}),
    ];
    for (const answer of answers) {
      expect(answer.json, answer.text).toBeDefined();
      expect('state' in body(answer), answer.text).toBe(false);
      expect(str(body(answer), 'request_id')).toMatch(wrapperId);
    }
  });

  it('is kept in Run answers', async () => {
    for (const answer of [
      await client.get('/api/v1/state'),
      await client.get('/api/v1/capabilities'),
      await client.get('/api/v1/layers'),
      await client.post('/api/v1/undo'),
      await client.post('/api/v1/state', {}),
    ]) {
      expect(answer.status, answer.text).toBe(200);
      expect(obj(body(answer), 'state').session_id).toBeTypeOf('string');
    }
  });
});

describe('the generic POST /{op}', () => {
  it('Run: request_id rest-<serial> when absent or empty, the serial increasing', async () => {
    const serials: number[] = [];
    for (const sent of [{}, { request_id: '' }, { something: 1 }]) {
      const answer = await client.post('/api/v1/state', sent);
      expect(answer.status).toBe(200);
      const m = /^rest-(\d+)$/.exec(str(body(answer), 'request_id'));
      expect(m, JSON.stringify(sent)).not.toBeNull();
      serials.push(Number(m?.[1]));
    }
    expect(serials[1]).toBeGreaterThan(serials[0] as number);
    expect(serials[2]).toBeGreaterThan(serials[1] as number);
  });

  it('Run: a request_id the caller gives is kept', async () => {
    const answer = await client.post('/api/v1/state', { request_id: 'mine-7' });
    expect(body(answer).request_id).toBe('mine-7');
  });

  it('Run: no cached document_id is added (sysvar is not an envelope op: document_required)', async () => {
    const wrapped = await client.get('/api/v1/sysvars?names=ORTHOMODE');
    expect(wrapped.status).toBe(200);
    const run = await client.post('/api/v1/sysvar', { get: ['ORTHOMODE'] });
    expect(run.status, run.text).toBe(400);
    expect(body(run).code).toBe('document_required');
    expect(str(body(run), 'request_id')).toMatch(/^rest-\d+$/);
    expect(body(run).state).toBeTypeOf('object');
  });

  it('Mutate for the envelope ops: wrapper id, cached document, no state, status 200 (not the route’s 201)', async () => {
    const created = await client.post('/api/v1/entities_create', { entities: [LINE, LINE] });
    expect(created.status, created.text).toBe(200);
    expect(str(body(created), 'request_id')).toMatch(wrapperId);
    expect('state' in body(created)).toBe(false);
    const handles = arr(body(created), 'result.handles') as string[];
    expect(handles).toHaveLength(2);

    const moved = await client.post('/api/v1/entities_transform', {
      handles: [handles[0]],
      action: 'move',
      vector: [0, 5],
    });
    expect(moved.status, moved.text).toBe(200);
    const props = await client.post('/api/v1/set_properties', {
      handles: [handles[1]],
      properties: { color: 3 },
    });
    expect(props.status, props.text).toBe(200);
    const property = await client.post('/api/v1/property', { handle: handles[1], name: 'color' });
    expect(property.status, property.text).toBe(200);
    expect(at(body(property), 'result.value')).toBe(3);
    const deleted = await client.post('/api/v1/entities_delete', { handles: [handles[1]] });
    expect(deleted.status, deleted.text).toBe(200);
    expect(at(body(deleted), 'result.erased')).toBe(1);
    const identity = await client.post('/api/v1/file_identity', {});
    expect(identity.status).toBe(200);
    expect(str(body(identity), 'result.identity')).toHaveLength(36);
    for (const answer of [moved, props, property, deleted, identity])
      expect(str(body(answer), 'request_id')).toMatch(wrapperId);
  });

  it('Mutate: activate switches the active document', async () => {
    const a = await newDocument(client);
    await newDocument(client);
    const answer = await client.post('/api/v1/activate', { document_id: a });
    expect(answer.status, answer.text).toBe(200);
    expect(at(body(await client.get('/api/v1/state')), 'state.document_id')).toBe(a);
  });

  it('Mutate for every envelope op, also those this dispatcher does not offer: wrapper id, no state', async () => {
    const ops = strings(body(await client.get('/api/v1/capabilities')), 'result.ops');
    for (const op of ['view_focus', 'getpoint', 'wblock', 'plot', 'embed_image']) {
      const answer = await client.post(`/api/v1/${op}`, {});
      expect(str(body(answer), 'request_id'), op).toMatch(wrapperId);
      expect('state' in body(answer), op).toBe(false);
      if (!ops.includes(op)) {
        expect(answer.status, op).toBe(400);
        expect(body(answer), op).toMatchObject({
          code: 'unknown_operation',
          error: `unknown operation "${op}"`,
        });
      }
    }
  });

  it('Run for the envelope-only ops (user_select, operation, cancel, batch, events, close): rest id, state kept', async () => {
    for (const op of ['user_select', 'operation', 'cancel', 'batch', 'events', 'close']) {
      const answer = await client.post(`/api/v1/${op}`, {});
      expect(str(body(answer), 'request_id'), op).toMatch(/^rest-\d+$/);
      expect(obj(body(answer), 'state').session_id, op).toBeTypeOf('string');
    }
  });

  it('a Run answer updates the cached document_id too (from its state when the top level has none)', async () => {
    const a = await newDocument(client);
    const b = await newDocument(client);
    const [line] = await createEntities(client, [LINE]);
    const copied = await client.post('/api/v1/entities/copy-to', { handles: [line], document_id: a });
    expect(body(copied).document_id).toBe(a); // cached: a, while b is active
    const run = await client.post('/api/v1/no_such_op', {});
    expect(run.status).toBe(400);
    expect(body(run).document_id).toBeUndefined();
    expect(at(body(run), 'state.document_id')).toBe(b);
    const answer = await client.post('/api/v1/entities', { entities: [LINE] });
    expect(answer.status, answer.text).toBe(201);
    expect(body(answer).document_id).toBe(b);
    expect(counterOf(answer), 'no retry was needed').toBe(counterOf(copied) + 1);
  });

  it('specific routes win: POST /save takes only `path` from the body, POST /undo takes nothing', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'chronicle-http-')), 'saved.dxf');
    await newDocument(client);
    await createEntities(client, [LINE]);
    // The generic passthrough would send document_id 999 and answer document_closed.
    const saved = await client.post('/api/v1/save', { path, document_id: 999 });
    expect(saved.status, saved.text).toBe(200);
    expect(at(body(saved), 'result.path')).toBe(path);
    const undone = await client.post('/api/v1/undo', { document_id: 999 });
    expect(undone.status, undone.text).toBe(200);
    expect(at(body(undone), 'result.undone')).toBe('entities_create');
  });

  it('every answer of this file carried the transport headers and http_status', () => {
    for (const { what, answer } of client.answers) expect(transportProblems(answer), what).toEqual([]);
  });
});
