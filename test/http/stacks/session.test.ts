/**
 * The web page's sign-in over real sockets (no browser): POST /api/session sets an HttpOnly,
 * SameSite=Strict cookie that then authenticates the API; a wrong token is 401; GET /api/session says
 * who and what they may do where; DELETE signs out; an idle session ends (the test shortens the idle
 * time with CHRONICLE_TEST_SESSION_IDLE_MS); a cookie-authenticated change from another origin is 401.
 * And GET /api/events: changes of runs and jobs, only of environments the caller may view.
 */
import { request } from 'node:http';
import { beforeAll, expect, it } from 'vitest';
import { composeText, createStackDone, describeStacks, serveStacks, TOKENS } from './helpers.js';

const IDLE_MS = 1_500;
let base: string;

const stacks = serveStacks({ env: { CHRONICLE_TEST_SESSION_IDLE_MS: String(IDLE_MS) } });
beforeAll(async () => {
  base = `http://127.0.0.1:${stacks.server.port}`;
});

async function signIn(token: string) {
  const answer = await fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  const setCookie = answer.headers.get('set-cookie') ?? '';
  const cookie = /^chronicle_session=[^;]*/.exec(setCookie)?.[0] ?? '';
  return { answer, setCookie, cookie, body: (await answer.json()) as Record<string, unknown> };
}

/**
 * Reads server-sent events' data until `count` changes of runs, jobs and stacks arrived; `open` settles
 * at the first bytes (the feed's opening comment), when the server has subscribed. Changes that come
 * from the engines themselves (an engine connecting, a container event) are left out: when the server
 * follows a real Docker engine they arrive whenever the engine speaks, before or between the log's
 * (test/http/stacks/docker-containers.test.ts covers them).
 */
function readEvents(path: string, headers: Record<string, string>, count: number) {
  let opened: () => void = () => {};
  const open = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const events = new Promise<unknown[]>((resolve, reject) => {
    const got: unknown[] = [];
    const req = request(`${base}${path}`, { headers }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        opened();
        buffer += chunk;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = frame
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6));
          const change = data.length > 0 ? (JSON.parse(data.join('\n')) as { kind?: unknown }) : undefined;
          if (change && change.kind !== 'engine' && change.kind !== 'container') got.push(change);
          if (got.length >= count) {
            req.destroy();
            resolve(got);
            return;
          }
          cut = buffer.indexOf('\n\n');
        }
      });
    });
    req.on('error', (error) => (got.length >= count ? undefined : reject(error)));
    req.end();
  });
  return { open, events };
}

describeStacks('stacks sessions and change events', () => {
  it('refuses a wrong token with 401 and sets no cookie', async () => {
    const { answer, setCookie, body } = await signIn('nope');
    expect(answer.status).toBe(401);
    expect(body).toEqual({ error: 'unauthorized' });
    expect(setCookie).toBe('');
    const empty = await fetch(`${base}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: 'token must be a string' });
  });

  it('signs in with a session cookie that authenticates the API, and signs out', async () => {
    const { answer, setCookie, cookie, body } = await signIn(TOKENS.viewer1);
    expect(answer.status).toBe(200);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\//);
    expect(body.name).toBe('viewer1');
    expect(body.admin).toBe(false);
    expect(body.environments).toEqual([
      { id: null, name: 'local', view: true, edit: false, editByGlobalCheck: false },
      { id: 1, name: 'edge', view: true, edit: false, editByGlobalCheck: false },
      { id: 2, name: 'core', view: false, edit: false, editByGlobalCheck: false },
    ]);
    const who = await fetch(`${base}/api/session`, { headers: { cookie } });
    expect(((await who.json()) as { name: string }).name).toBe('viewer1');
    expect((await fetch(`${base}/api/stacks?env=1`, { headers: { cookie } })).status).toBe(200);
    // The grants still apply: viewer1 may not view environment 2.
    expect((await fetch(`${base}/api/stacks?env=2`, { headers: { cookie } })).status).toBe(403);

    const out = await fetch(`${base}/api/session`, { method: 'DELETE', headers: { cookie } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await fetch(`${base}/api/stacks?env=1`, { headers: { cookie } })).status).toBe(401);
  });

  it('refuses a cookie-authenticated change from another origin', async () => {
    const { cookie } = await signIn(TOKENS.admin);
    const post = (origin: string) =>
      fetch(`${base}/api/stacks?env=null`, {
        method: 'POST',
        headers: { cookie, origin, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x', compose: 'services: {}\n' }),
      });
    const foreign = await post('http://evil.example');
    expect(foreign.status).toBe(401);
    expect(await foreign.json()).toEqual({ error: 'unauthorized' });
    // Reading with the cookie from anywhere is still only what SameSite lets through.
    expect(
      (await fetch(`${base}/api/stacks`, { headers: { cookie, origin: 'http://evil.example' } })).status,
    ).toBe(200);
  });

  it('ends an idle session', async () => {
    const { cookie } = await signIn(TOKENS.admin);
    expect((await fetch(`${base}/api/session`, { headers: { cookie } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 500));
    const after = await fetch(`${base}/api/session`, { headers: { cookie } });
    expect(after.status).toBe(401);
  });

  it('streams run and job changes only of environments the caller may view', async () => {
    const global = readEvents('/api/events', { authorization: `Bearer ${TOKENS.globalviewer}` }, 1);
    const admin = readEvents('/api/events', { authorization: `Bearer ${TOKENS.admin}` }, 4);
    await Promise.all([global.open, admin.open]);
    await createStackDone(stacks.server.as('admin'), 'edge-one', 1, {
      compose: composeText({ lines: ['y'] }),
    });
    await createStackDone(stacks.server.as('admin'), 'local-one', null, {
      compose: composeText({ lines: ['x'] }),
    });
    const seen = (await admin.events) as Array<Record<string, unknown>>;
    expect(seen.map((c) => c.stack)).toContain('edge-one');
    expect(seen.some((c) => c.kind === 'run' && c.type === 'RunStarted')).toBe(true);
    expect(seen.some((c) => c.kind === 'job')).toBe(true);
    // globalviewer views the local environment only: its first change is of local-one, none of edge-one
    // (created before) came to it.
    const [first] = (await global.events) as Array<Record<string, unknown>>;
    expect(first?.stack).toBe('local-one');
    expect(first?.environmentId).toBe(null);
  });
});
