/**
 * The stacks server on a loopback address refuses a `Host` that names another machine (a page whose name
 * was rebound to 127.0.0.1), accepts every loopback spelling with or without a port and a request without
 * `Host`; failed sign-ins are bounded per client address (429 with `Retry-After`). Real CLI, real sockets.
 */
import { request as httpRequest } from 'node:http';
import { expect, it, vi } from 'vitest';
import { parseAnswers, rawExchange } from '../editor/helpers.js';
import { describeStacks, serveStacks, sleep, TOKENS } from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

/** GET /api/stacks as the admin with this `Host` line (none: an HTTP/1.0 request without one). */
async function withHost(port: number, host: string | undefined, path = '/api/stacks?env=null') {
  const version = host === undefined ? 'HTTP/1.0' : 'HTTP/1.1';
  const lines = [`GET ${path} ${version}`, ...(host === undefined ? [] : [`Host: ${host}`])];
  lines.push(`Authorization: Bearer ${TOKENS.admin}`, 'Connection: close', '', '');
  const exchange = await rawExchange(port, lines.join('\r\n'));
  const [answer] = parseAnswers(exchange.data);
  return answer;
}

/** POST /api/session `{token}` from a local address of this machine's loopback. */
function signIn(port: number, token: string, from = '127.0.0.1') {
  const body = JSON.stringify({ token });
  return new Promise<{ status: number; retryAfter: string | undefined; error: unknown }>(
    (resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/session',
          localAddress: from,
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => {
            const header = res.headers['retry-after'];
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: Array.isArray(header) ? header[0] : header,
              error: (JSON.parse(text) as { error?: unknown }).error,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

describeStacks('Host check on loopback, sign-in bounded per address', () => {
  const stacks = serveStacks();

  it('a Host naming another machine is 403 on every route (sign-in and the page too); every loopback spelling and no Host are served', async () => {
    const port = stacks.server.port;
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      '10.0.0.5',
      `127.0.0.1.evil.example:${port}`,
      'user@127.0.0.1',
    ]) {
      const answer = await withHost(port, host);
      expect(answer?.status, host).toBe(403);
      expect(String(answer?.json?.error), host).toBe(
        `Host ${JSON.stringify(host)} is not allowed: this server listens on loopback; name it 127.0.0.1, localhost or [::1]`,
      );
    }
    for (const path of ['/', '/api/openapi.json'])
      expect((await withHost(port, 'evil.example', path))?.status, path).toBe(403);
    const rebound = await rawExchange(
      port,
      `POST /api/session HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: ${JSON.stringify({ token: TOKENS.admin }).length}\r\nConnection: close\r\n\r\n${JSON.stringify({ token: TOKENS.admin })}`,
    );
    const [signed] = parseAnswers(rebound.data);
    expect(signed?.status, 'sign-in through a rebound name').toBe(403);
    expect(signed?.headers.some(([name]) => name === 'set-cookie')).toBe(false);

    for (const host of [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `localhost:${port}`,
      'LOCALHOST',
      'localhost.',
      `[::1]:${port}`,
      '[0:0::1]',
      '127.1:8080',
      undefined,
    ]) {
      const answer = await withHost(port, host);
      expect(answer?.status, String(host)).toBe(200);
    }
  });

  it('ten failed sign-ins from one address: then 429 with Retry-After for any token from it, another address still signs in', async () => {
    const port = stacks.server.port;
    for (let i = 0; i < 10; i++) expect((await signIn(port, `wrong-${i}`)).status, `failure ${i}`).toBe(401);
    const refused = await signIn(port, TOKENS.admin);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(refused.error).toBe(
      `Too many failed sign-ins from 127.0.0.1: try again in ${refused.retryAfter} s`,
    );
    expect((await signIn(port, TOKENS.admin, '127.0.0.2')).status, 'another address').toBe(200);
    // Bearer tokens of the API are not sign-ins: the admin's scripts go on.
    expect((await withHost(port, `127.0.0.1:${port}`))?.status).toBe(200);
  });
});

describeStacks('sign-in bound (a short window for tests)', () => {
  const stacks = serveStacks({
    env: { CHRONICLE_TEST_STACKS_HTTP_LIMITS: JSON.stringify({ signInAttempts: 3, signInWindowMs: 2_000 }) },
  });

  it('the address may sign in again once its Retry-After has passed', async () => {
    const port = stacks.server.port;
    for (let i = 0; i < 3; i++) expect((await signIn(port, 'wrong')).status).toBe(401);
    const refused = await signIn(port, TOKENS.viewer);
    expect(refused.status).toBe(429);
    const wait = Number(refused.retryAfter);
    expect(wait === 1 || wait === 2, `Retry-After ${refused.retryAfter}`).toBe(true);
    await sleep(wait * 1000);
    expect((await signIn(port, TOKENS.viewer)).status).toBe(200);
  });
});
