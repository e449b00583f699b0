/**
 * The connection budget of the stacks server, through the real CLI and raw sockets, with its default
 * limits: one viewer opening 512 event streams gets 32 (its user's bound) and a 429 for each other, a
 * browser session its own 16; 520 connections with unfinished headers (no token) do not keep an admin
 * out. In both an admin's request is answered while the other connections are still held.
 */
import { connect, type Socket } from 'node:net';
import { expect, it, vi } from 'vitest';
import { describeStacks, eventually, expectStatus, serveStacks, TOKENS } from './helpers.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

/** A raw connection that sent `head`: its status once the answer's head arrived, and whether it closed. */
interface Held {
  socket: Socket;
  /** The answer's status, or undefined when the connection closed without one. */
  status: Promise<number | undefined>;
  closed: Promise<void>;
  isClosed(): boolean;
}

function hold(port: number, head: string): Held {
  const socket = connect({ host: '127.0.0.1', port });
  let received = '';
  let closedNow = false;
  let resolveStatus: (status: number | undefined) => void = () => {};
  const status = new Promise<number | undefined>((resolve) => {
    resolveStatus = resolve;
  });
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      closedNow = true;
      resolveStatus(undefined);
      resolve();
    }),
  );
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    const m = /^HTTP\/1\.1 (\d{3})/.exec(received);
    if (m && received.includes('\r\n\r\n')) resolveStatus(Number(m[1]));
  });
  socket.on('connect', () => socket.write(head));
  return { socket, status, closed, isClosed: () => closedNow };
}

const get = (path: string, lines: string[]) =>
  [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...lines, '', ''].join('\r\n');
const bearer = (token: string) => `Authorization: Bearer ${token}`;

/** The admin's `GET /api/stacks` over a connection of its own: the status, undefined when refused. */
const adminAnswer = (port: number) => {
  const asked = hold(port, get('/api/stacks?env=null', [bearer(TOKENS.admin), 'Connection: close']));
  return asked.status;
};

const tally = (statuses: Array<number | undefined>) => {
  const counts: Record<string, number> = {};
  for (const s of statuses) counts[String(s)] = (counts[String(s)] ?? 0) + 1;
  return counts;
};

describeStacks('connection budget (default limits)', () => {
  const stacks = serveStacks({
    // The headers time-out out of the way: only the budget may free the slots here.
    env: {
      CHRONICLE_TEST_STACKS_HTTP_LIMITS: JSON.stringify({
        headersTimeoutMs: 290_000,
        requestTimeoutMs: 300_000,
      }),
    },
  });

  it('512 event streams of one viewer: 32 open, the others 429 and closed; an admin is answered meanwhile, a freed stream can be taken again', async () => {
    const port = stacks.server.port;
    const streams = Array.from({ length: 512 }, () =>
      hold(port, get('/api/events', [bearer(TOKENS.viewer)])),
    );
    const statuses = await Promise.all(streams.map((s) => s.status));
    expect(tally(statuses)).toEqual({ 200: 32, 429: 480 });
    const open = streams.filter((_, i) => statuses[i] === 200);
    const refused = streams.filter((_, i) => statuses[i] === 429);
    await Promise.all(refused.map((s) => s.closed));

    expect(await adminAnswer(port), 'the admin while the viewer holds its streams').toBe(200);
    expect(
      open.filter((s) => s.isClosed()),
      'the 32 streams stay open',
    ).toEqual([]);
    const refusal = await stacks.server
      .as('viewer')
      .get('/api/events', { headers: { Accept: 'text/event-stream' } });
    expect(refusal.status).toBe(429);
    expect(String((refusal.value as { error?: unknown })?.error)).toMatch(
      /^Too many streams: user "viewer" holds 32 event streams/,
    );

    // One stream closed: its slot is the viewer's again.
    open[0]?.socket.destroy();
    await eventually(async () => {
      const again = hold(port, get('/api/events', [bearer(TOKENS.viewer)]));
      const status = await again.status;
      if (status === 200) return again;
      return undefined;
    }, 'a stream taken again once one closed');
    for (const s of streams) s.socket.destroy();
  });

  it('a browser session holds 16 streams, its user the rest of its 32', async () => {
    const port = stacks.server.port;
    const signIn = await stacks.server.as('viewer1').post('/api/session', { token: TOKENS.viewer1 });
    expectStatus(signIn, 200, 'sign-in');
    const cookie = /chronicle_session=[^;]+/.exec(
      String(signIn.headers.find(([n]) => n === 'set-cookie')?.[1]),
    )?.[0];
    expect(cookie).toBeDefined();
    const bySession = Array.from({ length: 20 }, () => hold(port, get('/api/events', [`Cookie: ${cookie}`])));
    expect(tally(await Promise.all(bySession.map((s) => s.status)))).toEqual({ 200: 16, 429: 4 });
    const byToken = Array.from({ length: 20 }, () =>
      hold(port, get('/api/events', [bearer(TOKENS.viewer1)])),
    );
    expect(tally(await Promise.all(byToken.map((s) => s.status)))).toEqual({ 200: 16, 429: 4 });
    expect(await adminAnswer(port)).toBe(200);
    for (const s of [...bySession, ...byToken]) s.socket.destroy();
  });

  it('520 connections with unfinished headers and no token: the admin is answered while they are held', async () => {
    const port = stacks.server.port;
    const unfinished = Array.from({ length: 520 }, () =>
      hold(port, 'GET /api/stacks?env=null HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: s\r\n'),
    );
    await Promise.all(unfinished.map((s) => new Promise((resolve) => s.socket.once('connect', resolve))));
    // Until some have waited their grace, a new connection closes none: the admin is let in then.
    const answered = await eventually(
      async () => ((await adminAnswer(port)) === 200 ? true : undefined),
      'the admin answered',
      60_000,
    );
    expect(answered).toBe(true);
    // They were not cut by a time-out: the budget's 64 are still held but the one the admin's answered
    // connection took the place of (it too was unauthenticated when it came), and the ones closed to let
    // the admin's connections in were closed unanswered.
    const held = unfinished.filter((s) => !s.isClosed());
    expect(held.length).toBeGreaterThanOrEqual(63);
    const closed = unfinished.filter((s) => s.isClosed());
    expect(closed.length).toBeGreaterThan(0);
    expect((await Promise.all(closed.map((s) => s.status))).filter((s) => s !== undefined)).toEqual([]);
    for (const s of unfinished) s.socket.destroy();
  });
});
