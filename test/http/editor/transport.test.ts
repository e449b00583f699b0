/**
 * The transport rules of spec/editor-rest-api.md and the Host guard (docs/security.md#the-editor), over raw sockets:
 * the headers and reason phrase of every answer, OPTIONS, how Content-Length is read, bodies that are
 * not JSON objects, one request per connection.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type Answer,
  arr,
  body,
  type EditorServer,
  header,
  num,
  rawCall,
  rawRequest,
  startEditor,
  str,
  transportProblems,
} from './helpers.js';

vi.setConfig({ testTimeout: 20_000, hookTimeout: 30_000 });

let server: EditorServer;
let port: number;

beforeAll(async () => {
  server = await startEditor();
  port = server.port;
});

afterAll(async () => {
  await server?.stop();
});

const REST_ID = /^rest-\d+$/;
const oneAnswer = async (bytes: Buffer | string | Array<Buffer | string>, timeoutMs = 10_000) => {
  const { answer, answers, exchange } = await rawCall(port, bytes, { timeoutMs });
  expect(answers, 'one request per connection: one answer').toHaveLength(1);
  expect(exchange.ended, 'the server closes the connection after its answer').toBe('closed');
  return answer;
};

describe('every answer', () => {
  it('of every status carries the JSON, CORS and Connection: close headers, its reason phrase and http_status', async () => {
    const line = { type: 'Line', start: [0, 0], end: [1, 1] };
    const samples: Array<[string, Buffer, number]> = [
      ['GET /state', rawRequest(port, 'GET', '/api/v1/state'), 200],
      ['POST /documents', rawRequest(port, 'POST', '/api/v1/documents', { body: '{}' }), 201],
      ['OPTIONS', rawRequest(port, 'OPTIONS', '/api/v1/entities'), 204],
      ['unknown op', rawRequest(port, 'POST', '/api/v1/no_such_op', { body: '{}' }), 400],
      ['foreign Host', rawRequest(port, 'GET', '/api/v1/state', { host: `evil.example:${port}` }), 403],
      ['outside /api/v1', rawRequest(port, 'GET', '/nowhere'), 404],
      ['PATCH', rawRequest(port, 'PATCH', '/api/v1/state', { body: '{}' }), 405],
      [
        'stale revision',
        rawRequest(port, 'POST', '/api/v1/entities', {
          body: JSON.stringify({ revision: 999, entities: [line] }),
        }),
        409,
      ],
    ];
    for (const [what, bytes, status] of samples) {
      const answer = await oneAnswer(bytes);
      expect(answer.status, what).toBe(status);
      expect(transportProblems(answer), what).toEqual([]);
    }
  });

  it('Content-Length is the byte length of a body with non-ASCII text', async () => {
    const answer = await oneAnswer(
      rawRequest(port, 'POST', '/api/v1/state', { body: JSON.stringify({ request_id: 'zeichnung-ä-€' }) }),
    );
    expect(answer.status).toBe(200);
    expect(body(answer).request_id).toBe('zeichnung-ä-€');
    expect(header(answer, 'content-length')).toBe(String(Buffer.byteLength(answer.text)));
  });

  it('OPTIONS on any path answers 204 with an empty body and the CORS headers (fetch)', async () => {
    for (const path of ['/api/v1/entities', '/api/v1/documents/7', '/anything/else', '/']) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'PUT' },
      });
      expect(res.status, path).toBe(204);
      expect(await res.text(), path).toBe('');
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-methods'), path).toBe('GET, POST, PUT, DELETE, OPTIONS');
      expect(res.headers.get('access-control-allow-headers'), path).toBe('Content-Type');
      expect(res.headers.get('connection'), path).toBe('close');
    }
  });

  it('a browser on another origin may read answers: Access-Control-Allow-Origin * on a GET (fetch)', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/ready`, {
      headers: { Origin: 'http://elsewhere.example' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('content-type')).toBe('application/json');
    const json = (await res.json()) as Record<string, unknown>;
    expect(json.http_status).toBe(200);
  });
});

describe('Content-Length', () => {
  const state = (headers: string[], rest: string | Buffer = '') =>
    Buffer.concat([rawRequest(port, 'POST', '/api/v1/state', { headers }), Buffer.from(rest)]);

  it('an unparsable value counts as 0: answered normally (not Node’s own 400), the bytes after it unread', async () => {
    const answer = await oneAnswer(state(['Content-Length: abc'], '{"request_id":"from-body"}'));
    expect(answer.status).toBe(200);
    expect(transportProblems(answer)).toEqual([]);
    expect(str(body(answer), 'request_id')).toMatch(REST_ID);
  });

  it('a negative or fractional value counts as 0 too', async () => {
    for (const value of ['-5', '1.5e1', '']) {
      const answer = await oneAnswer(state([`Content-Length: ${value}`], '{"request_id":"x"}'));
      expect(answer.status, value).toBe(200);
      expect(str(body(answer), 'request_id'), value).toMatch(REST_ID);
    }
  });

  it('the lower-case header name is read', async () => {
    const payload = '{"request_id":"lower-case"}';
    const answer = await oneAnswer(state([`content-length: ${payload.length}`], payload));
    expect(answer.status).toBe(200);
    expect(body(answer).request_id).toBe('lower-case');
  });

  it('two different Content-Length headers are answered by the editor, not refused by the HTTP parser', async () => {
    const payload = '{"request_id":"twice"}';
    const answer = await oneAnswer(
      state([`Content-Length: ${payload.length}`, 'Content-Length: 2'], payload),
    );
    expect(answer.status).toBe(200);
    expect(transportProblems(answer)).toEqual([]);
    // Whichever header the server reads, the request reached the dispatcher as a Run of `state`.
    expect(String(body(answer).request_id)).toMatch(/^(twice|rest-\d+)$/);
    expect(body(answer).state).toBeTypeOf('object');
  });

  it('over 16 MiB declared: passed on at once with an empty body (no 413, no wait for the body)', async () => {
    const declared = 16 * 1024 * 1024 + 1;
    // The client never sends the 16 MiB it declares: an answer at all shows the server did not wait for them.
    const answer = await oneAnswer(state([`Content-Length: ${declared}`], '{"request_id":"never-read"}'));
    expect(answer.status).toBe(200);
    expect(transportProblems(answer)).toEqual([]);
    expect(str(body(answer), 'request_id')).toMatch(REST_ID);
  });

  it('exactly 16 MiB is within the limit: the body is read', async () => {
    const size = 16 * 1024 * 1024;
    const head = '{"request_id":"sixteen-mib","pad":"';
    const tail = '"}';
    const payload = Buffer.alloc(size, 'x');
    payload.write(head, 0, 'latin1');
    payload.write(tail, size - tail.length, 'latin1');
    const answer = await oneAnswer(state([`Content-Length: ${size}`], payload), 20_000);
    expect(answer.status).toBe(200);
    expect(body(answer).request_id).toBe('sixteen-mib');
  });
});

describe('request bodies', () => {
  it('a body that is not JSON, or JSON but not an object, is {}', async () => {
    for (const payload of [
      'not json',
      '[{"request_id":"in-array"}]',
      '"text"',
      'null',
      '42',
      '{"request_id":',
    ]) {
      const answer = await oneAnswer(rawRequest(port, 'POST', '/api/v1/state', { body: payload }));
      expect(answer.status, payload).toBe(200);
      expect(str(body(answer), 'request_id'), payload).toMatch(REST_ID);
    }
  });

  it('the Content-Type of the request is not read: a JSON object body is used with text/plain or none', async () => {
    const payload = JSON.stringify({ request_id: 'typed' });
    for (const headers of [
      ['Content-Type: text/plain'],
      [],
      ['Content-Type: application/x-www-form-urlencoded'],
    ]) {
      const answer = await oneAnswer(rawRequest(port, 'POST', '/api/v1/state', { headers, body: payload }));
      expect(answer.status, headers.join()).toBe(200);
      expect(body(answer).request_id, headers.join()).toBe('typed');
    }
  });

  it('a route that takes a body treats garbage as {} (POST /documents makes a blank document)', async () => {
    const documents = async () =>
      arr(body(await oneAnswer(rawRequest(port, 'GET', '/api/v1/state'))), 'state.documents').length;
    const before = await documents();
    const answer = await oneAnswer(rawRequest(port, 'POST', '/api/v1/documents', { body: '<xml/>' }));
    expect(answer.status).toBe(201);
    expect(num(body(answer), 'document_id')).toBeGreaterThan(0);
    expect(await documents()).toBe(before + 1);
  });
});

describe('one request per connection', () => {
  it('a second request pipelined on the connection gets no answer', async () => {
    const first = rawRequest(port, 'GET', '/api/v1/ready');
    const second = rawRequest(port, 'GET', '/api/v1/capabilities');
    const answer = await oneAnswer(Buffer.concat([first, second]));
    expect(body(answer).ready).toBe(true);
  });

  it('bytes past the declared length are not read as another request', async () => {
    const smuggled = rawRequest(port, 'GET', '/api/v1/ready');
    const answer = await oneAnswer(
      Buffer.concat([
        rawRequest(port, 'POST', '/api/v1/state', { headers: ['Content-Length: 2'] }),
        Buffer.from('{}'),
        smuggled,
      ]),
    );
    expect(answer.status).toBe(200);
    expect(str(body(answer), 'request_id')).toMatch(REST_ID);
    expect(body(answer).ready).toBeUndefined();
  });

  it('Connection: keep-alive asked for: the answer says close, and the server closes', async () => {
    const answer: Answer = await oneAnswer(
      rawRequest(port, 'GET', '/api/v1/ready', { headers: ['Connection: keep-alive'] }),
      5_000,
    );
    expect(header(answer, 'connection')).toBe('close');
  });
});

describe('Host guard (CONTRACT.md)', () => {
  const ready = (host: string | null) => rawRequest(port, 'GET', '/api/v1/ready', { host });

  it('127.0.0.1:<port>, localhost:<port> and [::1]:<port> are served', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const answer = await oneAnswer(ready(host));
      expect(answer.status, host).toBe(200);
      expect(body(answer).ready, host).toBe(true);
    }
  });

  it('every loopback spelling, with or without a port (a forwarded one too), and no Host at all are served', async () => {
    const other = port === 65535 ? 1 : port + 1;
    for (const host of [
      '127.0.0.1',
      'localhost',
      '[::1]',
      `LOCALHOST:${port}`,
      `LocalHost`,
      `127.0.0.1:${other}`,
      'localhost:8080',
      `[0:0:0:0:0:0:0:1]:${port}`,
      `localhost.:${port}`,
      `127.0.0.1:80`,
    ]) {
      const answer = await oneAnswer(ready(host));
      expect(answer.status, `${host}: ${answer.text}`).toBe(200);
      expect(body(answer).ready, host).toBe(true);
    }
    // No Host header: HTTP/1.0 as old clients send it, and HTTP/1.1 from a program that leaves it out.
    const http10 = await oneAnswer(Buffer.from('GET /api/v1/ready HTTP/1.0\r\n\r\n', 'latin1'));
    expect(http10.status, http10.text).toBe(200);
    expect(body(http10).ready).toBe(true);
    const none = await oneAnswer(ready(null));
    expect(none.status, none.text).toBe(200);
    // And a mutation without Host is served as well (a drawing made, not refused).
    const made = await oneAnswer(
      Buffer.from(
        'POST /api/v1/documents HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
        'latin1',
      ),
    );
    expect(made.status, made.text).toBe(201);
  });

  it('another name answers 403 forbidden_host, whatever the port', async () => {
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.2:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost:${port}@evil.example`,
      `evil.example@localhost:${port}`,
      `localhost:${port}/path`,
      'localhost:99999',
      'localhost:port',
    ]) {
      const answer = await oneAnswer(ready(host));
      expect(answer.status, host).toBe(403);
      expect(answer.reason, host).toBe('Forbidden');
      expect(answer.json, host).toMatchObject({ ok: false, code: 'forbidden_host', http_status: 403 });
      expect(typeof body(answer).error, host).toBe('string');
    }
  });

  it('a refused Host reaches no operation: POST /documents from evil.example creates nothing', async () => {
    const count = async () =>
      arr(body(await oneAnswer(rawRequest(port, 'GET', '/api/v1/state'))), 'state.documents').length;
    const before = await count();
    const answer = await oneAnswer(
      rawRequest(port, 'POST', '/api/v1/documents', { host: `evil.example:${port}`, body: '{}' }),
    );
    expect(answer.status).toBe(403);
    expect(await count()).toBe(before);
  });
});
