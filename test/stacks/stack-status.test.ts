import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ContainerStatus,
  containerStatusOf,
  digestFor,
  engineOptions,
  oneShotServices,
  pullableServices,
  repositoryOf,
  StackStatusReader,
  stackStateOf,
  startedServices,
} from '../../src/stacks/stack/status.js';

const container = (service: string, state: string): ContainerStatus => ({
  service,
  name: `shop-${service}-1`,
  state,
  health: null,
  exitCode: null,
  image: 'local/busybox:1',
  imageId: 'sha256:c8f5',
  imageDigest: null,
  ports: [],
  startedAt: null,
  finishedAt: null,
  restartCount: 0,
});

describe('stackStateOf', () => {
  it('not deployed, running, partial, stopped', () => {
    expect(stackStateOf([], ['web'])).toBe('not deployed');
    expect(stackStateOf([container('web', 'running'), container('db', 'running')], ['web', 'db'])).toBe(
      'running',
    );
    expect(stackStateOf([container('web', 'running'), container('db', 'exited')], ['web', 'db'])).toBe(
      'partial',
    );
    expect(stackStateOf([container('web', 'exited'), container('db', 'created')], ['web', 'db'])).toBe(
      'stopped',
    );
  });

  it('a service `up` starts without a running container makes a running stack partial', () => {
    expect(stackStateOf([container('web', 'running')], ['web', 'db'])).toBe('partial');
    // Without the compose file (unreadable), only the containers decide.
    expect(stackStateOf([container('web', 'running')], undefined)).toBe('running');
  });

  it('a one-shot that completed counts for its service; one that failed, or is not one, does not', () => {
    const web = container('web', 'running');
    const migrate = { ...container('migrate', 'exited'), exitCode: 0 };
    expect(stackStateOf([web, migrate], ['web', 'migrate'], new Set([migrate]))).toBe('running');
    expect(stackStateOf([web, migrate], ['web', 'migrate'])).toBe('partial');
    const crashed = { ...container('migrate', 'exited'), exitCode: 1 };
    expect(stackStateOf([web, crashed], ['web', 'migrate'], new Set())).toBe('partial');
    // Only completed one-shots: nothing runs.
    expect(stackStateOf([migrate], ['migrate'], new Set([migrate]))).toBe('stopped');
  });

  it('unhealthy when a running container fails its health check', () => {
    const sick = { ...container('web', 'running'), health: 'unhealthy' };
    expect(stackStateOf([sick, container('db', 'running')], ['web', 'db'])).toBe('unhealthy');
    expect(stackStateOf([{ ...sick, health: 'starting' }], ['web'])).toBe('running');
    expect(stackStateOf([{ ...sick, state: 'exited' }], ['web'])).toBe('stopped');
  });
});

describe('oneShotServices', () => {
  it('restart "no" or on-failure said outright, and services depended on with service_completed_successfully', () => {
    const compose = [
      'services:',
      '  web:',
      '    image: x',
      '    depends_on:',
      '      migrate: { condition: service_completed_successfully }',
      '      db: { condition: service_healthy }',
      '  migrate: { image: x }',
      '  seed: { image: x, restart: "no" }',
      '  retry: { image: x, restart: "on-failure:3" }',
      '  db: { image: x }',
      '  always: { image: x, restart: always }',
      '',
    ].join('\n');
    expect([...oneShotServices(compose)].sort()).toEqual(['migrate', 'retry', 'seed']);
    expect(oneShotServices('not: [yaml').size).toBe(0);
  });
});

describe('pullableServices', () => {
  it('an image and no build in any file, not behind an inactive profile', () => {
    const base = [
      'services:',
      '  web: { image: nginx }',
      '  app: { build: ./app, image: team/app:1 }',
      '  worker: { image: team/worker:1 }',
      '  debug: { image: busybox, profiles: [debug] }',
      '  plain: { command: [true] }',
      '',
    ].join('\n');
    const override = 'services:\n  worker:\n    build: ./worker\n';
    expect(pullableServices([base, override])).toEqual(['web']);
    expect(pullableServices([base], ['debug'])).toEqual(['web', 'worker', 'debug']);
    expect(pullableServices(['nope: [yaml'])).toBeUndefined();
  });
});

describe('startedServices', () => {
  it('services without a profile and not scaled to 0; undefined for a text that is no compose file', () => {
    const compose = [
      'services:',
      '  web: { image: nginx }',
      '  debug: { image: busybox, profiles: [debug] }',
      '  off: { image: busybox, deploy: { replicas: 0 } }',
      '  constructor: { image: busybox }',
    ].join('\n');
    expect(startedServices(compose)).toEqual(['web', 'constructor']);
    expect(startedServices('{')).toBeUndefined();
    expect(startedServices('just text')).toBeUndefined();
  });
});

describe('containerStatusOf', () => {
  it("the engine's list entry and inspection, as the answer shows them", () => {
    const listed = {
      Id: 'abc',
      Names: ['/shop-web-1'],
      Image: 'nginx:1.27',
      ImageID: 'sha256:5d5f',
      State: 'running',
      Labels: { 'com.docker.compose.service': 'web', 'com.docker.compose.project': 'shop' },
      Ports: [
        { IP: '0.0.0.0', PrivatePort: 80, PublicPort: 8080, Type: 'tcp' },
        { PrivatePort: 443, Type: 'tcp' },
      ],
    } as unknown as Docker.ContainerInfo;
    expect(
      containerStatusOf(listed, { startedAt: '2026-11-25T10:00:00.123Z', health: 'healthy' }, [
        'nginx@sha256:aa',
      ]),
    ).toEqual({
      service: 'web',
      name: 'shop-web-1',
      state: 'running',
      health: 'healthy',
      exitCode: null,
      image: 'nginx:1.27',
      imageId: 'sha256:5d5f',
      imageDigest: 'nginx@sha256:aa',
      ports: [
        { containerPort: 80, protocol: 'tcp', hostIp: '0.0.0.0', hostPort: 8080 },
        { containerPort: 443, protocol: 'tcp', hostIp: null, hostPort: null },
      ],
      startedAt: '2026-11-25T10:00:00.123Z',
      finishedAt: null,
      restartCount: 0,
    });
    const never = containerStatusOf(listed, { startedAt: '0001-01-01T00:00:00Z' }, undefined);
    expect(never).toMatchObject({ startedAt: null, finishedAt: null, health: null, imageDigest: null });
    // A running container's exit code (0 at the engine) is no exit: null; an exited one's is its own.
    const inspected = {
      startedAt: '2026-11-25T10:00:00.123Z',
      finishedAt: '2026-11-25T10:05:00.456Z',
      exitCode: 137,
      restartCount: 3,
    };
    expect(containerStatusOf(listed, { ...inspected, exitCode: 0 }, undefined)).toMatchObject({
      exitCode: null,
      finishedAt: '2026-11-25T10:05:00.456Z',
      restartCount: 3,
    });
    expect(containerStatusOf({ ...listed, State: 'exited' }, inspected, undefined)).toMatchObject({
      state: 'exited',
      exitCode: 137,
      restartCount: 3,
    });
    const exited = containerStatusOf(
      { ...listed, State: 'exited' } as Docker.ContainerInfo,
      { startedAt: '2026-11-25T10:00:00.123Z', exitCode: 3 },
      undefined,
    );
    expect(exited).toMatchObject({ state: 'exited', exitCode: 3 });
  });

  it('the digest is of the repository the service names, not the first the image has', () => {
    const digest = (n: string) => `sha256:${n.repeat(64)}`;
    const pulled = {
      Id: 'abc',
      Names: ['/evc-pullme-1'],
      Image: 'reg.example:5000/evc/pullme:1',
      ImageID: 'sha256:5d5f',
      State: 'running',
      Labels: {},
    } as unknown as Docker.ContainerInfo;
    const repoDigests = [
      `reg.example:5000/evc/other@${digest('a')}`,
      `reg.example:5000/evc/pullme@${digest('b')}`,
    ];
    expect(containerStatusOf(pulled, undefined, repoDigests).imageDigest).toBe(
      `reg.example:5000/evc/pullme@${digest('b')}`,
    );
    // Of another repository only: no digest (a pin then uses the image id).
    expect(containerStatusOf(pulled, undefined, repoDigests.slice(0, 1)).imageDigest).toBeNull();
    // Docker Hub's short names, a pinned image id.
    expect(digestFor('docker.io/library/nginx:1.27', [`nginx@${digest('c')}`])).toBe(`nginx@${digest('c')}`);
    expect(digestFor(digest('d'), [`nginx@${digest('c')}`])).toBeNull();
    expect(repositoryOf('localhost:5000/app')).toBe('localhost:5000/app');
    expect(repositoryOf(`app@${digest('e')}`)).toBe('app');
  });
});

describe('engineOptions', () => {
  it('unix, tcp, ssh; anything else is a reason', () => {
    expect(engineOptions('unix:///run/docker.sock')).toEqual({ socketPath: '/run/docker.sock' });
    expect(engineOptions('tcp://10.0.0.5:2375')).toEqual({
      host: '10.0.0.5',
      port: '2375',
      protocol: 'http',
    });
    expect(engineOptions('tcp://10.0.0.5:2376')).toMatchObject({ protocol: 'https' });
    expect(engineOptions('ssh://deploy@edge')).toMatchObject({
      host: 'edge',
      port: 22,
      protocol: 'ssh',
      username: 'deploy',
    });
    expect(engineOptions('npipe:////./pipe/docker')).toHaveProperty('error');
    expect(engineOptions('not a url')).toHaveProperty('error');
  });
});

describe('StackStatusReader on an engine that does not answer', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
  });

  it('a socket that accepts and never answers: unknown with the reason, the next read held', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chronicle-engine-'));
    const socketPath = join(dir, 'docker.sock');
    const held: Array<import('node:net').Socket> = [];
    const server = createServer((socket) => held.push(socket));
    servers.push(server);
    await new Promise<void>((r) => server.listen(socketPath, r));
    const reader = new StackStatusReader({ timeoutMs: 200, holdMs: 60_000 });
    const env = { id: 7, name: 'slow', dockerHost: `unix://${socketPath}` };
    const first = await reader.statuses(env, [{ name: 'web' }, { name: 'db' }]);
    const reason = `The Docker engine (unix://${socketPath}) did not answer within 0.2 s`;
    expect([...first.entries()]).toEqual([
      ['web', { state: 'unknown', stateReason: reason, containers: null }],
      ['db', { state: 'unknown', stateReason: reason, containers: null }],
    ]);
    const connections = held.length;
    // Held: answered without asking the engine again.
    expect((await reader.statuses(env, [{ name: 'web' }])).get('web')?.stateReason).toBe(reason);
    expect(held.length).toBe(connections);
    for (const socket of held) socket.destroy();
  });

  it('no engine at all (no socket): unknown, saying why; a bad dockerHost too', async () => {
    const reader = new StackStatusReader();
    const gone = await reader.statuses({ id: 1, name: 'x', dockerHost: 'unix:///nonexistent/docker.sock' }, [
      { name: 'web' },
    ]);
    expect(gone.get('web')).toMatchObject({ state: 'unknown', containers: null });
    expect(gone.get('web')?.stateReason).toMatch(
      /^The Docker engine \(unix:\/\/\/nonexistent\/docker\.sock\) cannot be reached: .*ENOENT/,
    );
    const bad = await reader.statuses({ id: 2, name: 'y', dockerHost: 'ftp://x' }, [{ name: 'web' }]);
    expect(bad.get('web')?.stateReason).toMatch(/unix:\/\/, tcp:\/\/ or ssh:\/\//);
  });
});
