/**
 * The editor app's direct path (what the listener uses instead of `app.inject` for plain targets)
 * answers exactly as Fastify does: the same requests, in the same order, sent to two apps over two
 * fresh sessions — one through the listener's choice (direct, else inject), one always injected — give
 * the same statuses and bodies, up to the session id and the file identity GUID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorOps } from '../../src/editor/ops/index.js';
import { EditorSession } from '../../src/editor/session.js';
import { type DirectRoute, directRouteOf, editorApp, type RawAnswer } from '../../src/http/editor/app.js';
import { EditorClient } from '../../src/http/editor/mutation-wrapper.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/types.js';

interface Side {
  store: EventStore;
  session: EditorSession;
  app: ReturnType<typeof editorApp>;
}

async function side(): Promise<Side> {
  const store = await openStore('memory:');
  const session = await EditorSession.start(store, editorOps, { version: '0.0.0-test' });
  const app = editorApp(new EditorClient(session), {
    version: '0.0.0-test',
    sessionId: () => session.sessionId,
  });
  await app.ready();
  return { store, session, app };
}

/** As the listener injects a request. */
async function inject(s: Side, method: string, target: string, body: Buffer): Promise<RawAnswer> {
  const response = await s.app.inject({
    method: method as 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: target,
    headers: { host: '127.0.0.1:1', 'content-type': 'application/octet-stream' },
    ...(body.length > 0 ? { payload: body } : {}),
  });
  return { status: response.statusCode, body: response.payload };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const normal = (answer: RawAnswer) => ({ status: answer.status, body: answer.body.replace(UUID, '<uuid>') });

let direct: Side;
let injected: Side;
let route: DirectRoute;
let directCount = 0;

beforeAll(async () => {
  direct = await side();
  injected = await side();
  const found = directRouteOf(direct.app);
  if (!found) throw new Error('editorApp registered no direct path');
  route = found;
});

afterAll(async () => {
  for (const s of [direct, injected]) {
    await s.session.close();
    await s.app.close();
    await s.store.close();
  }
});

async function both(method: string, target: string, body = ''): Promise<RawAnswer> {
  const bytes = Buffer.from(body, 'utf8');
  const fast = route(method, target, bytes);
  if (fast) directCount += 1;
  const a = await (fast ?? inject(direct, method, target, bytes));
  const b = await inject(injected, method, target, bytes);
  expect(normal(a), `${method} ${target} ${body}`).toEqual(normal(b));
  return a;
}

const line = (x: number) => ({ type: 'line', layer: 'L1', start: [x, 0], end: [x + 1, 1] });

describe('the direct path answers as the injected one', () => {
  it('over a session that uses every kind of route', async () => {
    await both('GET', '/api/v1/state');
    await both('GET', '/api/v1/ready');
    await both('GET', '/api/v1');
    await both('GET', '/api/v1/capabilities');
    await both('POST', '/api/v1/entities', JSON.stringify({ entities: [line(0)] })); // no document yet
    await both('POST', '/api/v1/documents');
    await both('POST', '/api/v1/documents', '{"template":"no-such-template"}');
    await both('GET', '/api/v1/documents');
    const created = JSON.parse(
      (await both('POST', '/api/v1/entities', JSON.stringify({ entities: [line(0), line(5), line(9)] })))
        .body,
    ) as { result: { handles: string[] } };
    const [h1, h2, h3] = created.result.handles as [string, string, string];
    await both('POST', '/api/v1/entities', '{"entities":[{"type":"line","start":[0]}]}');
    await both('POST', '/api/v1/entities', 'not json');
    await both('POST', '/api/v1/entities', '[1,2]');
    await both('GET', '/api/v1/entities');
    await both('GET', '/api/v1/entities?type=line&limit=2&offset=1&detail=full');
    await both('GET', '/api/v1/entities?bounds=0,0,6,2&fields=handle,type');
    await both('GET', '/api/v1/entities?near=1,x,2&contains_point=1,1');
    await both(
      'GET',
      '/api/v1/entities?where=%5B%7B%22path%22%3A%22%2Fstart%2F0%22%2C%22op%22%3A%22gt%22%2C%22value%22%3A1%7D%5D',
    );
    await both('GET', '/api/v1/entities?where=nope');
    await both('GET', '/api/v1/entities?where=%zz&layer=L1+x');
    await both('GET', `/api/v1/entities/${h1}`);
    await both('GET', '/api/v1/entities/FFFF');
    await both('PUT', `/api/v1/entities/${h1}/xdata/APP`, '[{"code":1000,"value":"x"}]');
    await both('PUT', `/api/v1/entities/${h1}/xdata/APP2`);
    await both('GET', `/api/v1/entities/${h1}/xdata?app=APP`);
    await both('DELETE', `/api/v1/entities/${h1}/xdata/APP`);
    await both('GET', '/api/v1/sysvars?names=CLAYER,OSMODE');
    await both('GET', '/api/v1/sysvars');
    await both('POST', '/api/v1/sysvars', '{"set":{"OSMODE":3}}');
    await both('POST', '/api/v1/layouts', '{"name":"Sheet"}');
    await both(
      'PUT',
      '/api/v1/layouts/Sheet/page-setup',
      '{"paper":"A4","orientation":"landscape","fit":true}',
    );
    await both('POST', '/api/v1/groups', JSON.stringify({ name: 'G', handles: [h1, h2] }));
    await both('POST', '/api/v1/selection-sets', JSON.stringify({ name: 'S', handles: [h2] }));
    await both('GET', '/api/v1/selection-sets/S?select=1');
    await both('GET', '/api/v1/selection-sets/none');
    await both('POST', '/api/v1/get_selection', '{}');
    await both(
      'POST',
      '/api/v1/entities/transform',
      JSON.stringify({ handles: [h2], action: 'move', vector: [1, 1] }),
    );
    await both('POST', '/api/v1/blocks', JSON.stringify({ name: 'B', base: [0, 0, 0], handles: [h3] }));
    await both('DELETE', '/api/v1/blocks/B');
    await both('POST', '/api/v1/file-identity', '{}');
    await both('POST', '/api/v1/commands', '{"cmd":"LINE 0,0 1,1"}');
    await both('POST', '/api/v1/undo');
    await both('POST', '/api/v1/redo');
    await both('GET', '/api/v1/layers');
    await both('GET', '/api/v1/header');
    await both('GET', '/api/v1/records?collection=layers&limit=2');
    await both('GET', '/api/v1/openapi');
    await both('POST', '/api/v1/operation', '{"request_id":"nope"}');
    await both('POST', '/api/v1/user_select', '{}');
    await both('POST', '/api/v1/no_such_op', '{"request_id":"mine"}');
    await both('POST', '/api/v1/no_such_op');
    await both('POST', '/api/v1/entities_delete', JSON.stringify({ handles: ['FFFF'] }));
    await both('DELETE', `/api/v1/entities?handles=${h2}`);
    await both('DELETE', '/api/v1/entities', JSON.stringify({ handles: [h3] }));
    await both('POST', '/api/v1/documents');
    await both('DELETE', '/api/v1/documents/1?discard=true');
    await both('DELETE', '/api/v1/documents/x');
    await both('POST', '/api/v1/entities', JSON.stringify({ entities: [line(1)] })); // cached id stale: retry
    await both('GET', '/api/v1/state');
    expect(directCount).toBeGreaterThan(50);
  });

  it('leaves to Fastify what is not plain, and those answers still agree', async () => {
    const before = directCount;
    for (const [method, target] of [
      ['GET', '/api/v1/state/'],
      ['GET', '/api/v1/'],
      ['GET', '/api/v1//state'],
      ['GET', '/api/v1/entities/%38D'],
      ['GET', '/api/v1/entities/%zz'],
      ['GET', '/api/v1/entities/../state'],
      ['GET', '/api/v1/entities?layer="x"'],
      ['GET', '/api/v1/state#frag'],
      ['GET', '/api/v1/nope'],
      ['PUT', '/api/v1/state'],
      ['GET', '/elsewhere'],
      ['GET', '/'],
    ] as const) {
      expect(route(method, target, Buffer.alloc(0)), `${method} ${target}`).toBeUndefined();
      await both(method, target);
    }
    expect(directCount).toBe(before);
  });

  it('takes the generic route only where no specific one matches, as the router does', async () => {
    await both('POST', '/api/v1/documents');
    for (const target of ['/api/v1/undo', '/api/v1/entities', '/api/v1/state', '/api/v1/entities_create']) {
      await both('POST', target, JSON.stringify({ entities: [line(3)] }));
    }
    await both('GET', '/api/v1/entities/transform');
    // Names longer than find-my-way's default maxParamLength (100) route like any other.
    await both(
      'POST',
      '/api/v1/blocks',
      JSON.stringify({ name: 'B'.repeat(255), base: [0, 0, 0], handles: [] }),
    );
    const long = await both('DELETE', `/api/v1/blocks/${'B'.repeat(255)}`);
    expect(JSON.parse(long.body)).toMatchObject({ ok: true, http_status: 200 });
    // A path the router cannot decode is answered in the spec's form.
    const bad = await both('GET', '/api/v1/entities/%zz/xdata');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ ok: false, code: 'bad_request', http_status: 400 });
    await both('POST', '/api/v1/entities/copy-to', '{"handles":[],"document_id":99}');
  });
});
