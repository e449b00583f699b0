/**
 * The editor's front door: one router from a request target to its handler, the spec's 400/404/405
 * answers, and one 500 for whatever is thrown on the way to an answer's bytes. A target is read as the
 * URL standard reads it (as the editor always has), so a target spelled another way answers what its
 * plain spelling answers; the refusals keep their words.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorOps } from '../../src/editor/ops/index.js';
import { EditorSession } from '../../src/editor/session.js';
import type { HttpAnswer } from '../../src/http/editor/answer.js';
import { type EditorApp, editorApp } from '../../src/http/editor/app.js';
import { MAX_PARAM_LENGTH } from '../../src/http/editor/limits.js';
import { EditorListener } from '../../src/http/editor/listener.js';
import { EditorClient } from '../../src/http/editor/mutation-wrapper.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/types.js';

let store: EventStore;
let session: EditorSession;
let app: EditorApp;

beforeAll(async () => {
  store = await openStore('memory:');
  session = await EditorSession.start(store, editorOps, { version: '0.0.0-test' });
  app = editorApp(new EditorClient(session), { version: '0.0.0-test', sessionId: () => session.sessionId });
});

afterAll(async () => {
  await session.close();
  await store.close();
});

/** An answer's JSON body as sent, without the request ids that count up between calls. */
async function answer(method: string, target: string, body = ''): Promise<Record<string, unknown>> {
  const got = await app.answer({ method, target, body: Buffer.from(body, 'utf8') });
  if (!('body' in got)) throw new Error(`${method} ${target} answered ${got.type}`);
  const { request_id: _id, ...rest } = got.body;
  return { ...rest, http_status: got.status };
}

const line = (x: number) => ({ type: 'line', layer: 'L1', start: [x, 0], end: [x + 1, 1] });

describe('a target is read as the URL standard reads it', () => {
  it('answers a target spelled another way as its plain spelling', async () => {
    const plain = await answer('GET', '/api/v1/state');
    for (const target of [
      '/api/v1/state/',
      '/api/v1/./state',
      '/api/v1/entities/../state',
      '/api/v1/entities/%2e%2e/state',
      '/api/v1/state#fragment',
      '/api/v1\\state',
      'api/v1/state',
      'http://127.0.0.1:1/api/v1/state',
    ]) {
      expect(await answer('GET', target), target).toEqual(plain);
    }
    const ready = await answer('GET', '/api/v1');
    expect(ready).toMatchObject({ ok: true, ready: true, http_status: 200 });
    expect(await answer('GET', '/api/v1/')).toEqual(ready);
    expect(await answer('GET', '/api/v1/?x=1')).toEqual(ready);
  });

  it('decodes path parameters and leaves the query to the spec reading', async () => {
    await answer('POST', '/api/v1/documents');
    const made = await answer('POST', '/api/v1/entities', JSON.stringify({ entities: [line(0)] }));
    const [handle] = (made.result as { handles: string[] }).handles as [string];
    const one = await answer('GET', `/api/v1/entities/${handle}`);
    expect(one).toMatchObject({ ok: true, http_status: 200 });
    const escaped = [...handle].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join('');
    expect(await answer('GET', `/api/v1/entities/${escaped}`)).toEqual(one);
    // `"` is percent-encoded by the URL parser, and decoded again by the query reading.
    expect(await answer('GET', '/api/v1/entities?layer="L1"')).toEqual(
      await answer('GET', '/api/v1/entities?layer=%22L1%22'),
    );
  });

  it('takes the generic POST /{op} only where no route of the table matches', async () => {
    expect(await answer('POST', '/api/v1/undo')).toMatchObject({ result: { undone: 'entities_create' } });
    expect(await answer('POST', '/api/v1/redo/')).toMatchObject({ result: { redone: 'entities_create' } });
    expect(await answer('POST', '/api/v1/no_such_op', '{"request_id":"mine"}')).toMatchObject({
      ok: false,
      code: 'unknown_operation',
      http_status: 400,
    });
    // A GET of the generic path is no route.
    expect(await answer('GET', '/api/v1/no_such_op')).toEqual({
      ok: false,
      code: 'unknown_route',
      error: 'No route GET /api/v1/no_such_op',
      http_status: 404,
    });
  });
});

describe('refusals', () => {
  it('a path segment that does not decode: 400 bad_request in the router’s words', async () => {
    expect(await answer('GET', '/api/v1/entities/%zz/xdata?x=%zz')).toEqual({
      ok: false,
      code: 'bad_request',
      error: "'/api/v1/entities/%zz/xdata?x=%zz' is not a valid url component",
      http_status: 400,
    });
  });

  it('a path parameter up to the limit routes; one longer is 400 bad_request', async () => {
    const atLimit = await answer('DELETE', `/api/v1/blocks/${'B'.repeat(MAX_PARAM_LENGTH)}`);
    expect(atLimit).toMatchObject({ ok: false, code: 'block_missing', http_status: 400 });
    const past = `/api/v1/blocks/${'B'.repeat(MAX_PARAM_LENGTH + 1)}`;
    expect(await answer('DELETE', past)).toEqual({
      ok: false,
      code: 'bad_request',
      error: `'${past}' is exceeding the max param length`,
      http_status: 400,
    });
  });

  it('no route: 404 unknown_route, pointing at /api/v1 from outside it', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/api/v1//state', 'No route GET /api/v1//state'],
      ['PUT', '/api/v1/state/', 'No route PUT /api/v1/state'],
      ['GET', '/elsewhere/?x', 'No route GET /elsewhere: use /api/v1/...'],
      ['GET', '/', 'No route GET /: use /api/v1/...'],
      ['GET', '*', 'No route GET /*: use /api/v1/...'],
      ['GET', '/API/v1/state', 'No route GET /API/v1/state: use /api/v1/...'],
    ];
    for (const [method, target, error] of cases) {
      expect(await answer(method, target), target).toEqual({
        ok: false,
        code: 'unknown_route',
        error,
        http_status: 404,
      });
    }
  });

  it('a method the spec does not use: 405 method_not_allowed', async () => {
    expect(await answer('PATCH', '/api/v1/state')).toEqual({
      ok: false,
      code: 'method_not_allowed',
      error: 'PATCH not supported here',
      http_status: 405,
    });
  });

  it('a target that names no URL is thrown, for the listener’s 500', async () => {
    await expect(app.answer({ method: 'GET', target: 'http://[x/', body: Buffer.alloc(0) })).rejects.toThrow(
      'Invalid URL',
    );
  });
});

describe('the listener’s one 500', () => {
  /** The raw answer of a listener in front of `stub` to one GET. */
  async function over(stub: EditorApp): Promise<string> {
    const listener = new EditorListener(stub);
    const port = await listener.listen(0);
    try {
      return await new Promise<string>((resolve) => {
        const chunks: Buffer[] = [];
        const socket = connect({ host: '127.0.0.1', port }, () =>
          socket.write(`GET /api/v1/state HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
        );
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      });
    } finally {
      await listener.close();
    }
  }

  const internal = (error: string) => {
    const body = JSON.stringify({ ok: false, code: 'internal_error', error, http_status: 500 });
    return (
      'HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${body.length}\r\nAccess-Control-Allow-Origin: *\r\n` +
      'Access-Control-Allow-Methods: GET, POST, PUT, DELETE, OPTIONS\r\n' +
      `Access-Control-Allow-Headers: Content-Type\r\nConnection: close\r\n\r\n${body}`
    );
  };

  it('answers a handler that throws', async () => {
    const throwing: EditorApp = {
      answer: () => Promise.reject(new Error('the handler broke')),
    };
    expect(await over(throwing)).toBe(internal('the handler broke'));
  });

  it('answers a body that cannot be serialized', async () => {
    const unserializable: EditorApp = {
      answer: async (): Promise<HttpAnswer> => ({ status: 200, body: { ok: true, big: 1n } }),
    };
    expect(await over(unserializable)).toBe(internal('Do not know how to serialize a BigInt'));
  });
});
