import { mkdtemp } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { engineChangesOf } from '../../../src/http/stacks/routes/events.js';
import {
  ContainerEvents,
  containerEventOf,
  type EngineEvent,
  JsonLines,
} from '../../../src/stacks/engine/container-events.js';
import { Engines } from '../../../src/stacks/engine/engines.js';

/** An event as dockerd 20.10 writes it on `GET /events`. */
const raw = (action: string, name: string, time: number, extra: Record<string, string> = {}) => ({
  status: action,
  id: `id-${name}`,
  from: 'chronicle-test/busybox:1',
  Type: 'container',
  Action: action,
  Actor: {
    ID: `id-${name}`,
    Attributes: {
      'com.docker.compose.project': 'shop',
      'com.docker.compose.service': 'web',
      name,
      ...extra,
    },
  },
  scope: 'local',
  time,
  timeNano: time * 1e9,
});

describe('containerEventOf', () => {
  it("a container's change as a page needs it; exec, attach and foreign containers are none", () => {
    expect(containerEventOf(raw('die', 'shop-web-1', 1764633147, { exitCode: '137' }), 'e')).toEqual({
      kind: 'container',
      engine: 'e',
      project: 'shop',
      service: 'web',
      container: 'shop-web-1',
      action: 'die',
      exitCode: 137,
      at: '2025-12-01T23:52:27.000Z',
    });
    expect(containerEventOf(raw('health_status: unhealthy', 'shop-web-1', 1), 'e')?.action).toBe(
      'health_status: unhealthy',
    );
    expect(containerEventOf(raw('start', 'shop-web-1', 1), 'e')?.exitCode).toBeNull();
    for (const action of ['exec_start: sh', 'exec_die', 'attach', 'resize', 'top'])
      expect(containerEventOf(raw(action, 'x', 1), 'e')).toBeUndefined();
    const foreign = raw('start', 'x', 1);
    foreign.Actor.Attributes = { name: 'x' } as typeof foreign.Actor.Attributes;
    expect(containerEventOf(foreign, 'e')).toBeUndefined();
    expect(containerEventOf({ ...raw('create', 'n', 1), Type: 'network' }, 'e')).toBeUndefined();
    expect(containerEventOf('not an object', 'e')).toBeUndefined();
  });

  it('JsonLines: objects cut across chunks, blank and broken lines skipped', () => {
    const lines = new JsonLines();
    expect(lines.push('{"a":1}\n{"b"')).toEqual([{ a: 1 }]);
    expect(lines.push(':2}\n\nnot json\n')).toEqual([{ b: 2 }]);
  });
});

describe('engineChangesOf', () => {
  it('one change per environment on the engine whose stack it is; the engine coming and going for each', async () => {
    const engines = new Engines({
      environments: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b', dockerHost: 'tcp://127.0.0.1:1' },
      ],
    });
    const event = containerEventOf(raw('stop', 'shop-web-1', 1), '') as EngineEvent;
    const managed = async (stack: string, env: number | null) => stack === 'shop' && env === 1;
    expect(await engineChangesOf(event, engines, managed)).toEqual([
      expect.objectContaining({ kind: 'container', type: 'stop', stack: 'shop', environmentId: 1 }),
    ]);
    expect(
      await engineChangesOf(
        { kind: 'engine', engine: '', connected: false, reason: 'gone' },
        engines,
        managed,
      ),
    ).toEqual([
      { kind: 'engine', type: 'disconnected', environmentId: null, reason: 'gone' },
      { kind: 'engine', type: 'disconnected', environmentId: 1, reason: 'gone' },
    ]);
  });
});

describe('ContainerEvents on an engine whose stream ends', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('one stream however many listen; reopened from the last event seen, the replayed ones dropped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chronicle-events-'));
    const socketPath = join(dir, 'docker.sock');
    const asked: string[] = [];
    let open: ServerResponse | undefined;
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      asked.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      open = response;
      const since = new URL(request.url ?? '', 'http://x').searchParams.get('since');
      if (since === null) {
        response.write(`${JSON.stringify(raw('start', 'shop-web-1', 100))}\n`);
        response.write(`${JSON.stringify(raw('die', 'shop-web-1', 101, { exitCode: '1' }))}\n`);
        // The engine goes away: the stream ends.
        setTimeout(() => response.end(), 50);
      } else {
        // A replay from `since`: the event at that second again, then a new one.
        response.write(`${JSON.stringify(raw('die', 'shop-web-1', 101, { exitCode: '1' }))}\n`);
        response.write(`${JSON.stringify(raw('start', 'shop-web-1', 102))}\n`);
      }
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(socketPath, r));
    const engines = new Engines({ environments: [{ id: 3, name: 'x', dockerHost: `unix://${socketPath}` }] });
    const events = new ContainerEvents(engines, { minMs: 10, maxMs: 20 });
    const engine = engines.of({ id: 3, name: 'x', dockerHost: `unix://${socketPath}` });
    const seenA: EngineEvent[] = [];
    const seenB: EngineEvent[] = [];
    const a = events.of(engine).subscribe((e) => seenA.push(e));
    const b = events.of(engine).subscribe((e) => seenB.push(e));
    for (let i = 0; i < 200 && seenA.filter((e) => e.kind === 'container').length < 3; i++)
      await new Promise((r) => setTimeout(r, 20));
    a.unsubscribe();
    b.unsubscribe();
    open?.end();
    const shown = (seen: EngineEvent[]) =>
      seen.map((e) => (e.kind === 'container' ? `${e.action}@${e.at}` : e.connected ? 'up' : 'down'));
    expect(shown(seenA)).toEqual([
      'up',
      'start@1970-01-01T00:01:40.000Z',
      'die@1970-01-01T00:01:41.000Z',
      'down',
      'up',
      'start@1970-01-01T00:01:42.000Z',
    ]);
    expect(shown(seenB)).toEqual(shown(seenA));
    // Two streams in all, the second from the last event's second.
    expect(asked.length).toBe(2);
    expect(new URL(asked[1] ?? '', 'http://x').searchParams.get('since')).toBe('101');
  });
});
