/**
 * A server killed while compose recreates a container, on a real engine with both Compose generations.
 * Recreating, compose holds one container under a temporary name `<12 hex>_<name>` for a moment (v2
 * creates the new one so, v1 renames the old one so). The engine is reached through a Unix-socket proxy
 * written here, environment 1's `dockerHost`: once a container got such a name it holds compose's next
 * create or delete (never forwards it), so compose stops exactly there. Then `kill -9` of the server; the
 * restart on the same data folder stops the compose left waiting and closes its run, and the next deploy
 * removes the renamed leftover before its `up` (v2's failed on it before: `Conflict. The container name
 * "/…_…-app-1" is already in use`; v1's went on around it), succeeds, and its run says what it removed:
 * a line of its log, the job's first output line and `details.leftoversRemoved`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  ensureTestImage,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import {
  ackOf,
  createStackDone,
  eventually,
  expectStatus,
  type Json,
  logLines,
  objectOf,
  type StacksClient,
  type StacksServer,
  saveCompose,
  startStacks,
  USERS,
  waitJob,
  waitRun,
} from './helpers.js';

const ENGINE_SOCKET = '/var/run/docker.sock';
/** Compose's temporary name of a container being recreated, as its requests give it (`?name=`). */
const TEMPORARY_NAME = /[?&]name=([0-9a-f]{12}_[^&]+)/;
const RENAMED = /^\/?[0-9a-f]{12}_/;
const REFUSED = 'refused by the test proxy';
const removedLine = (name: string) =>
  `Removed container ${name}: an interrupted compose left it renamed while recreating a service`;
const lineMessages = (job: { messages: Json[] }) =>
  job.messages.flatMap((m) => (m.type === 'line' ? [m.line as string] : []));

const composeOf = (version: string) =>
  [
    'services:',
    '  app:',
    `    image: ${TEST_IMAGE}`,
    '    environment:',
    `      VERSION: "${version}"`,
    `    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`,
    '',
  ].join('\n');

/**
 * A proxy to the engine's socket. Armed, it holds the first container create or delete that follows a
 * request naming a container with compose's temporary name (`held` resolves with it), and forwards
 * everything else, before and after.
 */
class EngineProxy {
  readonly socket: string;
  private readonly server: http.Server;
  private readonly open = new Set<net.Socket>();
  private armed = false;
  private renamed: string | undefined;
  private holding: http.IncomingMessage | undefined;
  private onHeld: ((request: { method: string; url: string; renamed: string }) => void) | undefined;
  /** A container whose removal the proxy answers with an engine error (undefined: none). */
  refuseRemoval: string | undefined;

  constructor(socket: string) {
    this.socket = socket;
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.on('connection', (socket) => {
      this.open.add(socket);
      socket.on('close', () => this.open.delete(socket));
    });
    // An attach or exec stream: passed through as bytes.
    this.server.on('upgrade', (req, client, head) => {
      const engine = net.connect(ENGINE_SOCKET, () => {
        const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`);
        engine.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
        engine.write(head);
        engine.pipe(client).pipe(engine);
      });
      engine.on('error', () => client.destroy());
      client.on('error', () => engine.destroy());
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(this.socket, resolve));
  }

  /** Holds the next create or delete after a temporary name; resolves with it once held. */
  arm(): Promise<{ method: string; url: string; renamed: string }> {
    this.armed = true;
    this.renamed = undefined;
    this.holding = undefined;
    return new Promise((resolve) => {
      this.onHeld = resolve;
    });
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = req.url ?? '/';
    const path = url.replace(/^\/v[\d.]+/, '');
    const createOrDelete =
      (req.method === 'POST' && path.startsWith('/containers/create')) ||
      (req.method === 'DELETE' && path.startsWith('/containers/'));
    if (this.armed && this.renamed !== undefined && createOrDelete && this.holding === undefined) {
      // Never answered: compose waits here until it is stopped.
      this.holding = req;
      this.armed = false;
      this.onHeld?.({ method: req.method ?? '', url, renamed: this.renamed });
      return;
    }
    if (
      req.method === 'DELETE' &&
      this.refuseRemoval !== undefined &&
      path.startsWith(`/containers/${this.refuseRemoval}`)
    ) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: REFUSED }));
      return;
    }
    const temporary = TEMPORARY_NAME.exec(url)?.[1];
    if (this.armed && temporary !== undefined) this.renamed = decodeURIComponent(temporary);
    const upstream = http.request(
      { socketPath: ENGINE_SOCKET, method: req.method, path: url, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  async close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describeCompose('a server killed while compose recreates a container', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`rcr${compose.generation}`);
  let folder = '';
  let proxy: EngineProxy;
  const servers: StacksServer[] = [];

  beforeAll(async () => {
    await ensureTestImage();
    folder = await mkdtemp(join(tmpdir(), 'chronicle-proxy-'));
    proxy = new EngineProxy(join(folder, 'engine.sock'));
    await proxy.listen();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await proxy?.close();
    await docker.cleanUp();
    if (folder !== '') await rm(folder, { recursive: true, force: true });
  }, 120_000);

  /**
   * Stack `<prefix>-<label>` deployed, then its recreate held by the proxy and the server killed; the
   * restart (returned) has stopped that compose and closed its run. The renamed container is still there.
   */
  async function interruptedRecreate(label: string) {
    const config = {
      users: [USERS.admin],
      compose: { command: [...compose.command] },
      environments: [{ id: 1, name: 'proxied', dockerHost: `unix://${proxy.socket}` }],
    };
    const first = await startStacks({ config });
    servers.push(first);
    const name = docker.stack(label);
    const created = await createStackDone(first.as('admin'), name, 1, { compose: composeOf('1') });
    expect(created.job.result, JSON.stringify(created.job)).toMatchObject({ success: true });
    expect((await docker.containers(name)).map((c) => c.State)).toEqual(['running']);

    // A change of the service's environment: `up` recreates its container, and is held in the middle.
    await saveCompose(first.as('admin'), name, 1, composeOf('2'));
    const held = proxy.arm();
    const old = ackOf(await first.as('admin').post(`/api/stacks/${name}/deploy?env=1`, {}));
    const request = await held;
    const renamed = await eventually(async () => {
      const listed = await docker.containers(name);
      return listed.find((c) => RENAMED.test(c.Names[0] ?? ''));
    }, 'a container under compose temporary name');
    const leftover = { id: renamed.Id, name: (renamed.Names[0] ?? '').slice(1) };
    expect(leftover.name).toBe(request.renamed);
    await first.kill9();

    const second = await startStacks({ dataDir: first.dataDir });
    servers.push(second);
    const admin = second.as('admin');
    // The restart stops the compose left waiting on the proxy and closes its run.
    const closed = await waitRun(admin, name, old.runId as number, 120_000);
    expect(closed).toMatchObject({ status: 'failed' });
    // The leftover outlived it: the engine never got the request that would have ended the swap.
    expect((await docker.containers(name)).map((c) => c.Id)).toContain(leftover.id);
    return { name, leftover, server: second, admin };
  }

  /** A deploy of the stack once the restart let it go (409 while its old compose is being stopped). */
  async function deployAfterRestart(admin: StacksClient, name: string) {
    const reply = await eventually(async () => {
      const answer = await admin.post(`/api/stacks/${name}/deploy?env=1`, {});
      return answer.status === 409 ? undefined : answer;
    }, 'the stack free for a deploy');
    expectStatus(reply, 202, 'the deploy after the restart');
    const next = ackOf(reply);
    const job = await waitJob(admin, next.jobId, 180_000);
    const run = await waitRun(admin, name, next.runId as number);
    return { job, run, runId: next.runId as number };
  }

  it('the restart cleans the renamed leftover before the next deploy, which succeeds and says what it removed', async () => {
    const { name, leftover, server, admin } = await interruptedRecreate('builder');
    const { job, run, runId } = await deployAfterRestart(admin, name);
    expect(job.result, JSON.stringify(job)).toMatchObject({ success: true });
    expect(run, JSON.stringify(run)).toMatchObject({
      status: 'success',
      details: { leftoversRemoved: [leftover.name] },
    });

    const after = await docker.containers(name);
    expect(after.map((c) => c.State)).toEqual(['running']);
    expect(after.map((c) => c.Names[0] ?? '').filter((n) => RENAMED.test(n))).toEqual([]);
    expect(after[0]?.Labels['com.docker.compose.service']).toBe('app');

    const lines = (await logLines(server.dataDir, 1, runId)) ?? [];
    expect(lines.filter((line) => line === removedLine(leftover.name))).toEqual([removedLine(leftover.name)]);
    // The live output said it too, before compose's own lines.
    expect(lineMessages(job)[0]).toBe(removedLine(leftover.name));
    // Nothing to remove the next time: the runs that find none have no such field.
    const again = objectOf(await admin.postJson(`/api/stacks/${name}/deploy?env=1`, {}));
    expect(again).toMatchObject({ success: true });
    const third = await waitRun(admin, name, again.runId as number);
    expect((third.details as Json).leftoversRemoved).toBeUndefined();
  }, 600_000);

  it('a leftover the engine will not remove is a line of the output, and the deploy goes on without it; the next one removes it', async () => {
    const { name, leftover, server, admin } = await interruptedRecreate('refused');
    proxy.refuseRemoval = leftover.id;
    const refused = await deployAfterRestart(admin, name);
    proxy.refuseRemoval = undefined;
    const notRemoved = `Could not remove container ${leftover.name}, left renamed by an interrupted compose: `;
    const said = lineMessages(refused.job).filter((line) => line.startsWith(notRemoved));
    expect(said, JSON.stringify(refused.job)).toHaveLength(1);
    expect(said[0]).toContain(REFUSED);
    const logged = (await logLines(server.dataDir, 1, refused.runId)) ?? [];
    expect(logged.filter((line) => line.startsWith(notRemoved))).toEqual(said);
    expect((refused.run.details as Json).leftoversRemoved).toBeUndefined();
    if (compose.generation === 'v2') {
      // v2 trips over it too (it removes the container of that name first): its words end the run.
      expect(refused.run).toMatchObject({ status: 'failed' });
      expect(String(refused.run.errorMessage)).toContain(`Error response from daemon: ${REFUSED}`);
    }
    // Once the engine removes it, the next deploy does and succeeds.
    const next = await deployAfterRestart(admin, name);
    expect(next.run, JSON.stringify(next.run)).toMatchObject({
      status: 'success',
      details: { leftoversRemoved: [leftover.name] },
    });
    expect((await docker.containers(name)).map((c) => c.State)).toEqual(['running']);
  }, 600_000);
});
