/**
 * The Origin rule, as a hostile web page would try it: a browser sends a `Content-Type: text/plain` POST
 * without a preflight and names the page in `Origin`. Such a request may not touch the file system
 * (open, new from a template, save, plot, wblock, embed_image, batches and dispatches of them): 403
 * `origin_forbidden`, nothing read or written. Pages on this machine, origins given with
 * `--allow-origin` and requests without `Origin` (scripts) may; everything in memory stays open to all.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/helpers.js';
import {
  type Answer,
  body,
  call,
  type EditorServer,
  num,
  rawCall,
  rawRequest,
  startEditor,
  str,
  transportProblems,
} from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const EVIL = 'https://evil.example';
const TRUSTED = 'https://cad.example.com';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKb6attackerKeyAttackerKeyAttackerKey0 evil@example';

let server: EditorServer;
let allowing: EditorServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-origin-'));
  [server, allowing] = await Promise.all([
    startEditor(),
    startEditor([
      '--store',
      'memory:',
      '--allow-origin',
      `${TRUSTED}/`,
      '--allow-origin',
      'http://10.0.0.7:8080',
    ]),
  ]);
});

afterAll(async () => {
  await Promise.all([server?.stop(), allowing?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A POST as a page's `fetch(url, {method: 'POST', body: JSON.stringify(json)})` sends it: text/plain, no preflight. */
const pagePost = (port: number, path: string, json: unknown, origin: string | undefined): Promise<Answer> =>
  call(port, 'POST', `/api/v1${path}`, {
    raw: JSON.stringify(json),
    headers: {
      'Content-Type': 'text/plain;charset=UTF-8',
      ...(origin === undefined ? {} : { Origin: origin }),
    },
  });

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** A DXF of the editor's own on disk, and a text file that is no drawing and no image. */
async function files() {
  const drawing = join(dir, `drawing-${Math.random().toString(36).slice(2)}.dxf`);
  const saved = await pagePost(server.port, '/save', { path: drawing }, undefined);
  expect(saved.status, saved.text).toBe(200);
  const secret = join(dir, 'passwd');
  await writeFile(secret, 'root:x:0:0:root:/root:/bin/bash\n');
  return { drawing, secret };
}

/** Every way to reach the file system, as [route, body]; the files written are named in WRITTEN. */
function fileRequests(drawing: string, secret: string): Array<[string, Record<string, unknown>]> {
  return [
    ['/save', { path: join(dir, 'authorized_keys') }],
    ['/save', {}],
    ['/documents', { path: drawing }],
    ['/documents', { template: drawing }],
    ['/plot', { path: join(dir, 'page.pdf') }],
    ['/wblock', { path: join(dir, 'block.dxf'), handles: [] }],
    ['/images', { path: secret }],
    ['/open', { path: drawing }],
    ['/new', { template: drawing }],
    ['/dispatch', { op: 'save', path: join(dir, 'dispatched.dxf') }],
    ['/dispatch', { op: 'open', path: drawing }],
    [
      '/batch',
      {
        steps: [
          { op: 'entities_create', entities: [] },
          { op: 'save', path: join(dir, 'b.dxf') },
        ],
      },
    ],
    ['/batch', { atomic: false, steps: [{ op: 'plot', path: join(dir, 'batched.pdf') }] }],
    [
      '/batch',
      {
        atomic: false,
        steps: [
          { op: 'new', template: drawing },
          { op: 'wblock', path: join(dir, 'batched-block.dxf'), handles: [] },
          { op: 'embed_image', path: secret, position: [0, 0], width: 1 },
          { op: 'open', path: drawing },
        ],
      },
    ],
    ['/new', { op: 'new', template: drawing }],
    ['/dispatch', { op: 'embed_image', path: secret, position: [0, 0], width: 1 }],
  ];
}

const WRITTEN = [
  'authorized_keys',
  'page.pdf',
  'block.dxf',
  'dispatched.dxf',
  'b.dxf',
  'batched.pdf',
  'batched-block.dxf',
];

describe('a web page of another origin', () => {
  it('cannot write a key to a file: save answers 403 origin_forbidden and writes nothing', async () => {
    const created = await pagePost(
      server.port,
      '/entities',
      { entities: [{ type: 'Text', value: KEY, position: [0, 0], height: 1 }] },
      EVIL,
    );
    // In memory stays open to any origin (the spec's Access-Control-Allow-Origin: *).
    expect(created.status, created.text).toBe(201);
    const target = join(dir, 'authorized_keys');
    const saved = await pagePost(server.port, '/save', { path: target }, EVIL);
    expect(saved.status, saved.text).toBe(403);
    expect(saved.reason).toBe('Forbidden');
    expect(body(saved)).toMatchObject({ ok: false, code: 'origin_forbidden', http_status: 403 });
    expect(str(body(saved), 'error')).toContain('https://evil.example');
    expect(await exists(target)).toBe(false);
    expect(transportProblems(saved)).toEqual([]);
  });

  it('is refused every op that reads or writes a file, by every route, and nothing is read or written', async () => {
    const { drawing, secret } = await files();
    const before = await call(server.port, 'GET', '/api/v1/state');
    const documents = (body(before).documents as unknown[]).length;
    for (const [path, json] of fileRequests(drawing, secret)) {
      const answer = await pagePost(server.port, path, json, EVIL);
      const what = `${path} ${JSON.stringify(json)}`;
      expect(answer.status, `${what}: ${answer.text}`).toBe(403);
      expect(body(answer).code, what).toBe('origin_forbidden');
      // Nothing of the file is quoted back.
      expect(answer.text, what).not.toContain('root:x:0:0');
    }
    for (const name of WRITTEN) expect(await exists(join(dir, name)), name).toBe(false);
    const after = await call(server.port, 'GET', '/api/v1/state');
    expect((body(after).documents as unknown[]).length).toBe(documents);
  });

  it('may capture (a PNG in the answer), and no capture writes a file, whatever path it names', async () => {
    const target = join(dir, 'capture.png');
    const shot = await pagePost(server.port, '/capture', { path: target, width: 256 }, EVIL);
    expect(shot.status, shot.text).toBe(200);
    expect(shot.headers.find(([n]) => n === 'content-type')?.[1]).toBe('image/png');
    const op = await pagePost(server.port, '/dispatch', { op: 'capture', path: target, width: 256 }, EVIL);
    expect(op.status, op.text).toBe(200);
    expect(body(op)).toMatchObject({ ok: true, result: { format: 'png' } });
    expect(await exists(target)).toBe(false);
  });

  it('null, look-alike and malformed origins are not loopback pages', async () => {
    const { drawing } = await files();
    for (const origin of [
      'null',
      'http://127.0.0.1.evil.example',
      'http://localhost.evil.example:8080',
      'http://evil.example:127',
      'https://127.0.0.1.nip.io',
      'file://',
      'http://localhost:8080/path',
      'http://[::2]:80',
      'http://localhost:1, https://evil.example',
    ]) {
      const answer = await pagePost(server.port, '/documents', { path: drawing }, origin);
      expect(answer.status, `${origin}: ${answer.text}`).toBe(403);
      expect(body(answer).code, origin).toBe('origin_forbidden');
    }
  });

  it('two Origin headers on one request are no loopback page', async () => {
    const { drawing } = await files();
    const { answer } = await rawCall(
      server.port,
      rawRequest(server.port, 'POST', '/api/v1/documents', {
        headers: [
          'Origin: http://localhost:3000',
          'Origin: https://evil.example',
          'Content-Type: text/plain',
        ],
        body: JSON.stringify({ path: drawing }),
      }),
    );
    expect(answer.status, answer.text).toBe(403);
    expect(answer.json?.code).toBe('origin_forbidden');
  });
});

describe('pages on this machine, allowed origins and programs', () => {
  it('a loopback page (127.0.0.1, localhost, [::1], any port, any case) opens and saves', async () => {
    const { drawing } = await files();
    for (const origin of [
      'http://127.0.0.1:5173',
      'http://localhost:3000',
      'http://[::1]:8080',
      'http://LOCALHOST',
    ]) {
      const opened = await pagePost(server.port, '/documents', { path: drawing }, origin);
      expect(opened.status, `${origin}: ${opened.text}`).toBe(201);
      const target = join(dir, `from-${num(body(opened), 'document_id')}.dxf`);
      const saved = await pagePost(server.port, '/save', { path: target }, origin);
      expect(saved.status, `${origin}: ${saved.text}`).toBe(200);
      expect(await exists(target)).toBe(true);
    }
  });

  it('a request without Origin (a script) touches files as before', async () => {
    const { drawing } = await files();
    const opened = await pagePost(server.port, '/documents', { path: drawing }, undefined);
    expect(opened.status, opened.text).toBe(201);
    const plotted = await pagePost(
      server.port,
      '/plot',
      { path: join(dir, 'script.svg'), window: [0, 0, 1, 1] },
      undefined,
    );
    // Refused for what the drawing holds, not for who asked.
    expect(body(plotted).code).not.toBe('origin_forbidden');
  });

  it('--allow-origin trusts the origins it names (normalised), and no other', async () => {
    const drawing = join(dir, 'allowed.dxf');
    expect((await pagePost(allowing.port, '/save', { path: drawing }, undefined)).status).toBe(200);
    for (const origin of [TRUSTED, 'https://CAD.example.com', 'http://10.0.0.7:8080']) {
      const opened = await pagePost(allowing.port, '/documents', { path: drawing }, origin);
      expect(opened.status, `${origin}: ${opened.text}`).toBe(201);
    }
    for (const origin of [
      EVIL,
      'http://cad.example.com',
      'https://cad.example.com:8443',
      'http://10.0.0.7',
    ]) {
      const refused = await pagePost(allowing.port, '/documents', { path: drawing }, origin);
      expect(refused.status, `${origin}: ${refused.text}`).toBe(403);
    }
  });

  it('--allow-origin takes an origin only: anything else is a usage error (exit 2)', async () => {
    for (const value of ['evil.example', 'ftp://evil.example', 'https://evil.example/app', 'null', '*']) {
      const result = await runCli(['editor', '--http', '0', '--store', 'memory:', '--allow-origin', value]);
      expect(result.code, value).toBe(2);
      expect(result.stderr, value).toMatch(/--allow-origin.*an origin is http:\/\/ or https:\/\//s);
    }
    const mcp = await runCli(['editor', '--mcp', '--allow-origin', TRUSTED, '--store', 'memory:']);
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toContain('--allow-origin goes with --http');
  });
});

describe('overwriting and quoting files', () => {
  it('save to an existing file other than its own needs overwrite: true; its own path does not', async () => {
    const other = join(dir, 'someone-elses.dxf');
    await writeFile(other, 'not mine\n');
    const refused = await pagePost(server.port, '/save', { path: other }, undefined);
    expect(refused.status, refused.text).toBe(400);
    expect(body(refused).code).toBe('file_exists');
    expect(await readFile(other, 'utf8')).toBe('not mine\n');
    const own = join(dir, 'own.dxf');
    expect((await pagePost(server.port, '/save', { path: own }, undefined)).status).toBe(200);
    // The document's own path, given again or left out, is saved over without asking.
    expect((await pagePost(server.port, '/save', { path: own }, undefined)).status).toBe(200);
    expect((await pagePost(server.port, '/save', {}, undefined)).status).toBe(200);
    const replaced = await pagePost(server.port, '/save', { path: other, overwrite: true }, undefined);
    expect(replaced.status, replaced.text).toBe(200);
    expect(await readFile(other, 'utf8')).toContain('SECTION');
  });

  it('no error message quotes the bytes of a file that is no image or drawing', async () => {
    const { secret } = await files();
    const image = await pagePost(server.port, '/images', { path: secret }, undefined);
    expect(body(image).code).toBe('invalid_image');
    const template = await pagePost(server.port, '/documents', { template: secret }, undefined);
    const opened = await pagePost(server.port, '/documents', { path: secret }, undefined);
    for (const answer of [image, template, opened]) {
      expect(answer.status, answer.text).toBe(400);
      expect(answer.text).not.toContain('root');
    }
  });
});
