/**
 * A notification channel that first appears (a config change and a restart) starts at the log's head
 * (real CLI, fake compose, local HTTP receivers): it is given none of the runs before it, the next one it
 * is; the deliveries list says where it started. A channel already known keeps the checkpoint: a
 * delivery a crash cut off is sent again (same key) after the restart that adds another channel.
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
  type Json,
  objectOf,
  type StacksClient,
  type StacksServer,
  stacksConfig,
  startStacks,
} from './helpers.js';

interface Received {
  key: string;
  runId: number;
}

/** A receiver that answers 200, except to the runs in `hold` (no answer until the test ends). */
class Receiver {
  readonly received: Received[] = [];
  readonly hold = new Set<number>();
  private readonly held: ServerResponse[] = [];
  private readonly server: Server = createServer((request, response) => this.handle(request, response));
  port = 0;

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  channel(name: string) {
    return { name, type: 'webhook', url: `http://127.0.0.1:${this.port}/${name}`, events: ['run.succeeded'] };
  }

  runs(): number[] {
    return this.received.map((r) => r.runId);
  }

  async close(): Promise<void> {
    for (const response of this.held) response.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const runId = (JSON.parse(body) as { runId: number }).runId;
      this.received.push({ key: String(request.headers['idempotency-key']), runId });
      if (this.hold.has(runId)) this.held.push(response);
      else response.writeHead(200).end();
    });
  }
}

const first = new Receiver();
const second = new Receiver();
let server: StacksServer;

async function deliveries(admin: StacksClient): Promise<{ list: Json[]; starts: Json[] }> {
  const page = objectOf(await admin.get('/api/notifications/deliveries?limit=500'));
  return { list: page.deliveries as Json[], starts: page.starts as Json[] };
}

/** Waits until `channel`'s delivery of `runId` is delivered. */
async function delivered(admin: StacksClient, channel: string, runId: number): Promise<Json> {
  return eventually(async () => {
    const found = (await deliveries(admin)).list.find((d) => d.channel === channel && d.runId === runId);
    return found?.state === 'delivered' ? found : undefined;
  }, `${channel}'s delivery of run ${runId}`);
}

const runOf = async (admin: StacksClient) => (await deployDone(admin, 'told', null)).runId as number;

describeStacks('a notification channel that first appears', () => {
  beforeAll(async () => {
    await Promise.all([first.listen(), second.listen()]);
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([first.close(), second.close()]);
  });

  it('starts at the head: none of the runs before it, the next one; a known channel keeps its checkpoint', async () => {
    // Three runs while no channel is configured.
    server = await startStacks({ config: stacksConfig() });
    let admin = server.as('admin');
    const before = [
      (await createStackDone(admin, 'told', null, { compose: composeText({ lines: ['up'] }) }))
        .runId as number,
      await runOf(admin),
      await runOf(admin),
    ];
    await server.stop();

    // A restart with a channel: it starts at the head.
    server = await startStacks({
      dataDir: server.dataDir,
      config: stacksConfig({ notifications: [first.channel('old')] }),
    });
    admin = server.as('admin');
    const fourth = await runOf(admin);
    await delivered(admin, 'old', fourth);
    expect(first.runs()).toEqual([fourth]);
    let seen = await deliveries(admin);
    expect(seen.list.map((d) => d.runId)).toEqual([fourth]);
    expect(before).not.toContain(fourth);
    // The list says where the channel started, and the channel list too.
    expect(seen.starts).toEqual([{ channel: 'old', position: expect.any(Number), at: expect.any(String) }]);
    const oldStart = seen.starts[0]?.position as number;
    expect(oldStart).toBeLessThan(seen.list[0]?.occurrence as number);
    const channels = objectOf(await admin.get('/api/notifications')).channels as Json[];
    expect(channels[0]?.started).toEqual(seen.starts[0] && { position: oldStart, at: seen.starts[0].at });

    // A delivery to the known channel is cut off by a crash; the restart adds a second channel.
    first.hold.add(fourth + 1);
    const fifth = await runOf(admin);
    expect(fifth).toBe(fourth + 1);
    await eventually(async () => (first.runs().includes(fifth) ? true : undefined), 'the held attempt');
    first.hold.delete(fifth);
    await server.kill9();
    server = await startStacks({
      dataDir: server.dataDir,
      config: stacksConfig({ notifications: [first.channel('old'), second.channel('late')] }),
    });
    admin = server.as('admin');
    // The known channel keeps its checkpoint: run 5 is sent again, with the same key.
    const again = await delivered(admin, 'old', fifth);
    expect(first.received.filter((r) => r.runId === fifth).map((r) => r.key)).toEqual([again.key, again.key]);
    const sixth = await runOf(admin);
    await Promise.all([delivered(admin, 'old', sixth), delivered(admin, 'late', sixth)]);
    // The new one was given only what came after it.
    expect(second.runs()).toEqual([sixth]);
    expect(first.runs()).toEqual([fourth, fifth, fifth, sixth]);
    seen = await deliveries(admin);
    expect(seen.list.filter((d) => d.channel === 'late').map((d) => d.runId)).toEqual([sixth]);
    expect(seen.starts.map((s) => s.channel)).toEqual(['old', 'late']);
    // The known channel's start did not move; the new one's is after run 5.
    expect(seen.starts[0]?.position).toBe(oldStart);
    const fifthAt = seen.list.find((d) => d.runId === fifth)?.occurrence as number;
    expect(seen.starts[1]?.position as number).toBeGreaterThan(fifthAt);
  }, 180_000);
});
