/**
 * Notification receivers that answer badly, over the real CLI and a real HTTP receiver: a body of
 * 1.5 GB is not read (the receiver is cut off after what the sockets' buffers take, the server's memory
 * does not grow by it), and a 302 is a failed attempt with its status — its Location is never asked.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeStacks,
  eventually,
  expectStatus,
  type Json,
  objectOf,
  type StacksServer,
  stacksConfig,
  startStacks,
} from './helpers.js';

const HUGE_BYTES = 1.5 * 1024 ** 3;
const CHUNK = Buffer.alloc(1024 * 1024, 0x61);

let receiver: Server;
let port = 0;
let server: StacksServer;
const paths: string[] = [];
/** What the huge answer managed to write before its client went away, and whether it finished. */
const huge = { sent: 0, finished: false, closed: false };

function answerHuge(response: ServerResponse): void {
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(HUGE_BYTES) });
  const more = () => {
    while (huge.sent < HUGE_BYTES && !response.destroyed) {
      huge.sent += CHUNK.length;
      if (!response.write(CHUNK)) return;
    }
    if (huge.sent >= HUGE_BYTES && !response.destroyed) {
      huge.finished = true;
      response.end();
    }
  };
  response.on('drain', more);
  response.on('close', () => {
    huge.closed = true;
  });
  more();
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  paths.push(request.url ?? '');
  request.resume();
  request.on('end', () => {
    if (request.url === '/huge') answerHuge(response);
    else if (request.url === '/moved')
      response.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` }).end();
    else response.writeHead(200).end('ok');
  });
}

/** The server process's peak resident memory (kB), from /proc. */
async function peakRssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]);
}

describeStacks('notification receivers that answer badly', () => {
  beforeAll(async () => {
    receiver = createServer(handle);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
    const channel = (name: string, path: string) => ({
      name,
      type: 'webhook',
      url: `http://127.0.0.1:${port}${path}`,
      events: ['run.failed'],
      maxAttempts: 1,
    });
    server = await startStacks({
      config: stacksConfig({ notifications: [channel('huge', '/huge'), channel('moved', '/moved')] }),
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('a 1.5 GB answer is not read: the attempt counts by its status and the receiver is cut off', async () => {
    const before = await peakRssKb(server.pid);
    const reply = await server.as('admin').post('/api/notifications/huge/test', {});
    expectStatus(reply, 200);
    expect(objectOf(reply)).toMatchObject({ ok: true, status: 200, error: null });
    await eventually(async () => (huge.closed ? true : undefined), 'the receiver to see its client go');
    expect(huge.finished).toBe(false);
    // What the loopback sockets' buffers hold, not the body.
    expect(huge.sent).toBeLessThan(64 * 1024 * 1024);
    const after = await peakRssKb(server.pid);
    expect(after - before).toBeLessThan(100 * 1024);
  }, 120_000);

  it('a 302 is a failed attempt with its status; its Location is never asked', async () => {
    const admin = server.as('admin');
    const reply = await admin.post('/api/notifications/moved/test', {});
    expectStatus(reply, 200);
    expect(objectOf(reply)).toMatchObject({
      ok: false,
      status: 302,
      error: 'HTTP 302 (redirects are not followed)',
    });
    const deliveries = objectOf(await admin.get('/api/notifications/deliveries')).deliveries as Json[];
    const moved = deliveries.find((d) => d.channel === 'moved');
    expect(moved?.attempts).toEqual([
      expect.objectContaining({ ok: false, status: 302, error: 'HTTP 302 (redirects are not followed)' }),
    ]);
    expect(paths).toContain('/moved');
    expect(paths).not.toContain('/elsewhere');
  }, 60_000);
});
