/**
 * Notifications (docs/stacks.md#notifications) over the real CLI: delivery to a local HTTP receiver that fails the
 * first attempts, across a crash of chronicle, with one idempotency key; a channel that is down slows
 * nothing; the test route; no secret in any message.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  deployDone,
  describeStacks,
  eventually,
  expectStatus,
  type Json,
  objectOf,
  q,
  type StacksServer,
  saveCompose,
  stacksConfig,
  startStacks,
  waitRun,
} from './helpers.js';

interface Received {
  key: string;
  body: string;
  answered: number | null;
}

const SECRET = 'notify-secret-value-9931';
let receiver: Server;
let port = 0;
const received: Received[] = [];
/** Requests held without an answer (the first one, until the server that sent it is killed). */
const holdFirst = true;
const held: ServerResponse[] = [];

function handle(request: IncomingMessage, response: ServerResponse): void {
  let body = '';
  request.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  request.on('end', () => {
    const entry: Received = { key: String(request.headers['idempotency-key']), body, answered: null };
    received.push(entry);
    if (holdFirst && received.length === 1) {
      held.push(response);
      return;
    }
    // The first two requests fail: the held one (its sender dies) and the next (500).
    entry.answered = received.length <= 2 ? 500 : 200;
    response.writeHead(entry.answered).end();
  });
}

let server: StacksServer;

describeStacks('notifications', () => {
  beforeAll(async () => {
    receiver = createServer(handle);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await server?.stop();
    for (const response of held) response.destroy();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('delivers at least once with one key across a crash: retries seen, exactly one success', async () => {
    const config = stacksConfig({
      notifications: [
        {
          name: 'hook',
          type: 'webhook',
          url: `http://127.0.0.1:${port}/hook`,
          events: ['run.failed'],
          retryBaseMs: 200,
        },
        {
          name: 'down',
          type: 'ntfy',
          url: 'http://127.0.0.1:9/topic',
          events: ['run.failed', 'run.succeeded'],
          retryBaseMs: 50,
          maxAttempts: 2,
        },
      ],
    });
    server = await startStacks({ config });
    const admin = server.as('admin');
    const failed = await createStackDone(admin, 'note', null, {
      compose: composeText({ lines: [`printing ${SECRET}`], stderr: [`error ${SECRET}`], exit: 1 }),
      variables: [{ name: 'TOKEN', value: SECRET, secret: true }],
    });
    expect((await waitRun(admin, 'note', failed.runId as number)).status).toBe('failed');
    await eventually(async () => (received.length >= 1 ? true : undefined), 'the first attempt');
    // A crash while the first attempt waits for its answer: nothing of it is recorded.
    await server.kill9();
    server = await startStacks({ dataDir: server.dataDir });
    const again = server.as('admin');
    const delivery = await eventually(async () => {
      const reply = await again.get('/api/notifications/deliveries');
      const found = (objectOf(reply).deliveries as Json[]).find((d) => d.channel === 'hook');
      return found?.state === 'delivered' ? found : undefined;
    }, 'the delivery');
    expect(delivery.event).toBe('run.failed');
    // The delivery names the run and the stack it tells of.
    expect(delivery).toMatchObject({ stack: 'note', environmentId: null, runId: failed.runId });
    const attempts = delivery.attempts as Json[];
    expect(attempts.map((a) => a.ok)).toEqual([false, true]);
    expect(attempts[0]?.status).toBe(500);
    // The receiver saw three requests, one key, one success.
    expect(received.map((r) => r.key)).toEqual([delivery.key, delivery.key, delivery.key]);
    expect(received.filter((r) => r.answered === 200)).toHaveLength(1);
    const body = JSON.parse(received[2]?.body ?? '{}') as Json;
    expect(body).toMatchObject({
      key: delivery.key,
      event: 'run.failed',
      stack: 'note',
      runId: failed.runId,
    });
    for (const r of received) expect(r.body).not.toContain(SECRET);

    // The channel that is down never held the start nor a deploy; it gave up after its attempts.
    await saveCompose(again, 'note', null, composeText({ lines: ['fine'] }));
    const ok = await deployDone(again, 'note', null);
    expect((await waitRun(again, 'note', ok.runId as number)).status).toBe('success');
    const down = await eventually(async () => {
      const list = objectOf(await again.get('/api/notifications/deliveries?limit=500')).deliveries as Json[];
      const found = list.filter((d) => d.channel === 'down');
      return found.length === 2 && found.every((d) => d.state === 'failed') ? found : undefined;
    }, 'the down channel giving up');
    for (const d of down) expect((d.attempts as Json[]).length).toBe(2);
    // The audit trail has the attempts.
    const audit = objectOf(await again.get('/api/audit?type=notification.&limit=500'));
    expect((audit.entries as Json[]).some((e) => e.type === 'notification.sent')).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(SECRET);
  }, 120_000);

  it('lists the channels without their URL path or token, admins only', async () => {
    const reply = await server.as('admin').get('/api/notifications');
    expectStatus(reply, 200);
    expect(objectOf(reply)).toEqual({
      channels: [
        {
          name: 'hook',
          type: 'webhook',
          host: `127.0.0.1:${port}`,
          events: ['run.failed'],
          stacks: null,
          environments: null,
          maxAttempts: 6,
          retryBaseMs: 200,
          started: { position: expect.any(Number), at: expect.any(String) },
        },
        {
          name: 'down',
          type: 'ntfy',
          host: '127.0.0.1:9',
          events: ['run.failed', 'run.succeeded'],
          stacks: null,
          environments: null,
          maxAttempts: 2,
          retryBaseMs: 50,
          started: { position: expect.any(Number), at: expect.any(String) },
        },
      ],
    });
    expect(JSON.stringify(objectOf(reply))).not.toMatch(/\/hook|\/topic/);
    expectStatus(await server.as('viewer').get('/api/notifications'), 403);
  });

  it('sends a test message, admins only', async () => {
    const admin = server.as('admin');
    const reply = await admin.post('/api/notifications/hook/test', {});
    expectStatus(reply, 200);
    expect(objectOf(reply)).toMatchObject({ ok: true, status: 200 });
    expect(received.at(-1)?.body).toContain('Test notification');
    // No answer at all: the outcome says why, not just "fetch failed" (port 9 is one fetch never dials).
    const down = await admin.post('/api/notifications/down/test', {});
    expectStatus(down, 200);
    expect(objectOf(down)).toMatchObject({
      ok: false,
      status: null,
      error: "port 9 refused by fetch before connecting (the Fetch standard's list of blocked ports)",
    });
    expectStatus(await admin.post('/api/notifications/nope/test', {}), 404);
    expectStatus(await server.as('viewer').post('/api/notifications/hook/test', {}), 403);
    expectStatus(await server.as('viewer').get('/api/notifications/deliveries'), 403);
    expectStatus(await server.as('viewer').get('/api/notifications'), 403);
    expectStatus(await admin.get(`/api/stacks${q(null)}`), 200);
  });
});
