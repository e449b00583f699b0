/**
 * A stack's containers on a real Docker engine, on both Compose generations, black-box over the CLI:
 * their state (a crashing service exits 1), their logs from the Engine API (both streams, redacted with
 * the stack's values, tail, since, a whole stack interleaved by time, followed across a stop and a
 * start), the changes `GET /api/events` carries when a container is stopped from outside, and who may
 * read what.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  type ComposeUnderTest,
  containerOf,
  DockerRun,
  describeCompose,
  engine,
  ensureTestImage,
  sayIn,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import {
  createStack,
  dataOf,
  eventually,
  expectStatus,
  type Json,
  objectOf,
  openSse,
  q,
  type SseStream,
  type StacksClient,
  type StacksServer,
  startStacks,
  TOKENS,
  USERS,
  waitJob,
} from './helpers.js';

const TOKEN_VALUE = 's3cr3t-token-value';

/** `web` prints three lines (one of them its token) and waits; `db` prints two and exits 1. */
const COMPOSE = [
  'services:',
  '  web:',
  `    image: ${TEST_IMAGE}`,
  '    environment:',
  `      TOKEN: \${API_TOKEN}`,
  `    command: ["sh", "-c", "echo web-started; echo web-warning >&2; echo token=$$TOKEN; trap 'exit 0' TERM; sleep 3600 & wait"]`,
  '  db:',
  `    image: ${TEST_IMAGE}`,
  `    command: ["sh", "-c", "echo db-starting; sleep 0.2; echo 'FATAL: could not connect to server' >&2; exit 1"]`,
  '',
].join('\n');

/** The lines of a logs event stream so far. */
const linesOf = (stream: SseStream): string[] =>
  dataOf(stream)
    .filter((e) => typeof e.line === 'string')
    .map((e) => e.line as string);

describeCompose('stack containers on a real Docker engine', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`ctr${compose.generation}`);
  let server: StacksServer;
  let admin: StacksClient;
  const name = docker.stack('shop');
  let web = '';
  let db = '';

  beforeAll(async () => {
    await ensureTestImage();
    server = await startStacks({
      config: {
        environments: [{ id: 1, name: 'edge', dockerHost: 'unix:///nonexistent/docker.sock' }],
        users: [USERS.admin, USERS.viewer, USERS.nogrant],
        compose: { command: compose.command },
      },
    });
    admin = server.as('admin');
    const ack = await createStack(admin, name, null, {
      compose: COMPOSE,
      variables: [{ name: 'API_TOKEN', value: TOKEN_VALUE, secret: true }],
    });
    // However the deploy reads a service that exits at once, its containers are there.
    await waitJob(admin, ack.jobId, 180_000);
    web = await containerOf(docker, name, 'web');
    db = await containerOf(docker, name, 'db');
    await eventually(async () => {
      const info = await engine.getContainer(db).inspect();
      return info.State.Status === 'exited' ? true : undefined;
    }, 'db to exit');
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    await docker.cleanUp();
  }, 120_000);

  const logs = async (path: string) => {
    const reply = await admin.get(path);
    expectStatus(reply, 200, path);
    expect(reply.headers.find(([n]) => n === 'content-type')?.[1]).toContain('text/plain');
    return reply.text.split('\n').slice(0, -1);
  };

  it('a crashing service is `exited` with its exit code; the stack is partial; the list says the same', async () => {
    const reply = await admin.get(`/api/stacks/${name}/containers${q(null)}`);
    expectStatus(reply, 200, 'containers');
    const status = objectOf(reply) as { state: string; containers: Json[] };
    expect(status.state).toBe('partial');
    const byService = new Map(status.containers.map((c) => [c.service, c]));
    expect(byService.get('db')).toMatchObject({
      name: db,
      state: 'exited',
      exitCode: 1,
      restartCount: 0,
      finishedAt: expect.stringMatching(/^\d{4}-/),
    });
    expect(byService.get('web')).toMatchObject({
      name: web,
      state: 'running',
      exitCode: null,
      finishedAt: null,
    });
    const listed = (await admin.get('/api/stacks')).value as Json[];
    expect(listed.find((s) => s.name === name)).toMatchObject({ state: 'partial' });
  });

  it("a container's log: both streams, the stack's values redacted; tail and since; timestamps", async () => {
    expect(await logs(`/api/stacks/${name}/containers/${db}/logs`)).toEqual([
      'db-starting',
      'FATAL: could not connect to server',
    ]);
    const lines = await logs(`/api/stacks/${name}/containers/${web}/logs?tail=all`);
    expect(lines).toEqual(expect.arrayContaining(['web-started', 'web-warning', 'token=***']));
    expect(lines.join('\n')).not.toContain(TOKEN_VALUE);
    expect(await logs(`/api/stacks/${name}/containers/${db}/logs?tail=1`)).toEqual([
      'FATAL: could not connect to server',
    ]);
    expect(await logs(`/api/stacks/${name}/containers/${db}/logs?since=4000000000`)).toEqual([]);
    const stamped = await logs(`/api/stacks/${name}/containers/${db}/logs?timestamps=true`);
    expect(stamped[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z FATAL: could not connect to server$/);
  });

  it("the whole stack's log: every container's lines, by time, each named by its container", async () => {
    const lines = await logs(`/api/stacks/${name}/logs?timestamps=true`);
    const parsed = lines.map((l) => /^(\S+) (\S+) \| (.*)$/.exec(l)?.slice(1) ?? []);
    expect(parsed.map(([, container, text]) => `${container} ${text}`)).toEqual(
      expect.arrayContaining([
        `${db} db-starting`,
        `${db} FATAL: could not connect to server`,
        `${web} token=***`,
      ]),
    );
    expect(parsed.every(([time]) => Number.isFinite(Date.parse(time ?? '')))).toBe(true);
    // Each container's lines in its own log's order (stdout and stderr are timed apart, so that is not
    // always their times' order), the containers interleaved.
    for (const container of [db, web]) {
      const own = await logs(`/api/stacks/${name}/containers/${container}/logs`);
      expect(parsed.filter(([, c]) => c === container).map(([, , text]) => text)).toEqual(own);
    }
    // As events: one ContainerLogLine each, then the end.
    const stream = await openSse(server.port, `/api/stacks/${name}/logs`, TOKENS.admin);
    await stream.closed;
    const events = dataOf(stream);
    expect(events.at(-1)).toEqual({ type: 'end' });
    expect(events).toContainEqual({
      container: db,
      service: 'db',
      stream: 'stderr',
      time: expect.any(String),
      line: 'FATAL: could not connect to server',
    });
    expect(events).toContainEqual(
      expect.objectContaining({ container: web, stream: 'stderr', line: 'web-warning' }),
    );
  });

  it('followed: new lines as they come, on across a stop and a start; a stack follow picks up a container started later', async () => {
    const one = await openSse(
      server.port,
      `/api/stacks/${name}/containers/${web}/logs?tail=0&follow=true`,
      TOKENS.admin,
    );
    const whole = await openSse(server.port, `/api/stacks/${name}/logs?tail=0&follow=true`, TOKENS.admin);
    try {
      expect(one.status).toBe(200);
      sayIn(web, 'live-1');
      await eventually(async () => (linesOf(one).includes('live-1') ? true : undefined), 'live-1');
      expect(linesOf(one)).toEqual(['live-1']);
      await engine.getContainer(web).stop({ t: 5 });
      await engine.getContainer(web).start();
      // The program printed its first lines again, then this one.
      await eventually(async () => (linesOf(one).includes('token=***') ? true : undefined), 'the restart');
      sayIn(web, 'live-2');
      await eventually(async () => (linesOf(one).includes('live-2') ? true : undefined), 'live-2');
      expect(linesOf(one).filter((l) => l.startsWith('live-'))).toEqual(['live-1', 'live-2']);
      expect(linesOf(one).join('\n')).not.toContain(TOKEN_VALUE);

      // db had ended before the follow: its start again is followed from then on.
      await engine.getContainer(db).start();
      await eventually(
        async () =>
          dataOf(whole).some((e) => e.container === db && e.line === 'FATAL: could not connect to server')
            ? true
            : undefined,
        "db's lines in the stack follow",
      );
      expect(dataOf(whole).some((e) => e.container === web && e.line === 'live-2')).toBe(true);
    } finally {
      one.close();
      whole.close();
    }
  }, 120_000);

  it('GET /api/events carries a container stopped from outside, to those who may view the stack only', async () => {
    const adminFeed = await openSse(server.port, '/api/events', TOKENS.admin);
    const viewerFeed = await openSse(server.port, '/api/events', TOKENS.viewer);
    const elsewhere = await openSse(server.port, '/api/events', TOKENS.nogrant);
    try {
      // The feeds are open (their engine streams too) once the engine says so.
      await eventually(
        async () =>
          dataOf(adminFeed).some((e) => e.kind === 'engine' && e.type === 'connected') ? true : undefined,
        'the engine stream',
      );
      await engine.getContainer(web).stop({ t: 5 });
      const died = await eventually(
        async () =>
          dataOf(adminFeed).find((e) => e.kind === 'container' && e.type === 'die' && e.container === web),
        'the die of web',
      );
      expect(died).toEqual({
        kind: 'container',
        type: 'die',
        stack: name,
        environmentId: null,
        container: web,
        service: 'web',
        exitCode: 0,
        at: expect.stringMatching(/^\d{4}-/),
      });
      await eventually(
        async () =>
          dataOf(viewerFeed).some((e) => e.kind === 'container' && e.type === 'stop') ? true : undefined,
        'the stop, for the viewer',
      );
      // A user without a grant views no stack: nothing of it, though its feed is open.
      expect(dataOf(elsewhere).filter((e) => e.environmentId === null)).toEqual([]);
      const status = objectOf(await admin.get(`/api/stacks/${name}/containers`)) as { state: string };
      expect(status.state).toBe('stopped');
    } finally {
      adminFeed.close();
      viewerFeed.close();
      elsewhere.close();
      await engine.getContainer(web).start();
    }
  }, 120_000);

  /** A console over a WebSocket: what it printed, its controls, how it closed (or its refusal). */
  const consoleIn = (
    container: string,
    input: string,
    options: { command?: string; headers?: Record<string, string> } = {},
  ) =>
    new Promise<{ printed: string; controls: Json[]; status?: number; body?: string }>((resolve) => {
      const query = options.command === undefined ? '' : `?command=${encodeURIComponent(options.command)}`;
      const socket = new WebSocket(
        `ws://127.0.0.1:${server.port}/api/stacks/${name}/containers/${container}/console${query}`,
        { headers: options.headers ?? { authorization: `Bearer ${TOKENS.admin}` } },
      );
      let printed = '';
      const controls: Json[] = [];
      socket.on('open', () => {
        socket.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
        socket.send(Buffer.from(input));
      });
      socket.on('message', (data: Buffer, binary: boolean) => {
        if (binary) printed += data.toString();
        else controls.push(JSON.parse(data.toString()));
      });
      socket.on('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => resolve({ printed, controls, status: response.statusCode ?? 0, body }));
      });
      socket.on('close', () => resolve({ printed, controls }));
    });

  it('a console runs a command with a terminal of the size asked, masks the stack values, ends with its exit code, audited', async () => {
    const done = await consoleIn(web, 'echo hi; echo $TOKEN; stty size; exit 7\n');
    expect(done.printed).toMatch(/\r\nhi\r\n/);
    expect(done.printed).toContain('40 120');
    expect(done.printed).toContain('***');
    expect(done.printed).not.toContain(TOKEN_VALUE);
    expect(done.controls).toEqual([{ type: 'exit', exitCode: 7 }]);
    const own = await consoleIn(web, 'exit 0\n', { command: `sh -c 'echo "one word"; exec sh'` });
    expect(own.printed).toContain('one word');
    const audit = objectOf(await admin.get(`/api/audit?type=console.&stack=${name}`)) as { entries: Json[] };
    expect(
      audit.entries.map((e) => [e.type, e.user, (e.details as Json).container, (e.details as Json).exitCode]),
    ).toEqual([
      ['console.closed', 'admin', web, 0],
      ['console.opened', 'admin', web, undefined],
      ['console.closed', 'admin', web, 7],
      ['console.opened', 'admin', web, undefined],
    ]);
    expect((audit.entries[3]?.details as Json | undefined)?.command).toEqual(['sh']);
    // What was typed is nowhere in the log.
    expect(JSON.stringify(audit)).not.toContain('stty');
  }, 120_000);

  it('a console needs edit, a running container of the stack, an upgrade, a page of this origin', async () => {
    const viewer = await consoleIn(web, '', { headers: { authorization: `Bearer ${TOKENS.viewer}` } });
    expect(viewer.status).toBe(403);
    expect((await consoleIn(db, '')).status).toBe(409);
    expect((await consoleIn('no-such-container', '')).status).toBe(404);
    expect((await consoleIn(web, '', { command: "sh -c 'unclosed" })).body).toContain('unclosed');
    expectStatus(await admin.get(`/api/stacks/${name}/containers/${web}/console`), 426, 'plain GET');
    // A page's session cookie: from this origin a console opens, from another it is refused.
    const signedIn = await admin.post('/api/session', { token: TOKENS.admin });
    const cookie = (signedIn.headers.find(([n]) => n === 'set-cookie')?.[1] ?? '').split(';')[0] ?? '';
    const host = `127.0.0.1:${server.port}`;
    const foreign = await consoleIn(web, '', { headers: { cookie, origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    const own = await consoleIn(web, 'exit 0\n', { headers: { cookie, origin: `http://${host}` } });
    expect(own.controls).toEqual([{ type: 'exit', exitCode: 0 }]);
  }, 120_000);

  it("the engines: each environment's reachable or not, with its version; an admin reads one in detail", async () => {
    const version = await engine.version();
    const viewer = server.as('viewer');
    expect((await viewer.get('/api/engines')).value).toEqual([
      {
        environmentId: null,
        name: 'local',
        reachable: true,
        version: version.Version,
        apiVersion: version.ApiVersion,
        reason: null,
      },
      {
        environmentId: 1,
        name: 'edge',
        reachable: false,
        version: null,
        apiVersion: null,
        reason: expect.stringMatching(
          /^The Docker engine \(unix:\/\/\/nonexistent\/docker\.sock\) cannot be reached: .*ENOENT/,
        ),
      },
    ]);
    expect((await server.as('nogrant').get('/api/engines')).value).toEqual([]);
    const info = objectOf(await admin.get('/api/engines/info'));
    expect(info).toMatchObject({
      environmentId: null,
      version: version.Version,
      compose: { command: compose.command, generation: compose.generation },
      containers: { running: expect.any(Number) },
    });
    expect((info.containers as { total: number }).total).toBeGreaterThanOrEqual(2);
    expect((info.disk as { images: number }).images).toBeGreaterThan(0);
    expectStatus(await viewer.get('/api/engines/info'), 403, 'viewer');
    expectStatus(await admin.get(`/api/engines/info${q(1)}`), 502, 'edge');
    expectStatus(await admin.get(`/api/engines/info${q(9)}`), 404, 'no such environment');
  });

  it("the stack's running containers' use, live: CPU, memory, network, one sample a second each", async () => {
    const stream = await openSse(server.port, `/api/stacks/${name}/stats`, TOKENS.admin);
    try {
      expect(stream.status).toBe(200);
      const samples = await eventually(async () => {
        const got = dataOf(stream).filter((s) => s.container === web);
        return got.length >= 2 ? got : undefined;
      }, 'two samples of web');
      expect(samples[0]).toEqual({
        container: web,
        service: 'web',
        time: expect.stringMatching(/^\d{4}-/),
        cpuPercent: null,
        memoryBytes: expect.any(Number),
        memoryLimitBytes: expect.any(Number),
        netRxBytes: expect.any(Number),
        netTxBytes: expect.any(Number),
      });
      expect(samples[1]?.cpuPercent).toEqual(expect.any(Number));
      expect(samples[1]?.memoryBytes as number).toBeGreaterThan(0);
      expect(samples[1]?.memoryLimitBytes as number).toBeGreaterThan(samples[1]?.memoryBytes as number);
      // db has exited: no samples of it.
      expect(dataOf(stream).some((s) => s.container === db)).toBe(false);
    } finally {
      stream.close();
    }
    expectStatus(await server.as('nogrant').get(`/api/stacks/${name}/stats`), 403, 'nogrant');
  }, 120_000);

  describe('who may read what', () => {
    it("another project's container is not found, as one that does not exist; bad input is 400", async () => {
      const other = docker.stack('other');
      const ack = await createStack(admin, other, null, {
        compose: `services:\n  x:\n    image: ${TEST_IMAGE}\n    command: ["sh", "-c", "echo other-secret"]\n`,
      });
      await waitJob(admin, ack.jobId, 180_000);
      const foreign = (await docker.containers(other))[0]?.Names[0]?.slice(1) ?? '';
      for (const container of [foreign, 'no-such-container']) {
        const reply = await admin.get(`/api/stacks/${name}/containers/${container}/logs`);
        expectStatus(reply, 404, container);
        expect(reply.value).toEqual({ error: 'Container not found' });
      }
      const bad = [
        [`/api/stacks/${name}/containers/${web}/logs?tail=-1`, /^tail must be/],
        [`/api/stacks/${name}/containers/${web}/logs?tail=100001`, /^tail must be/],
        [`/api/stacks/${name}/logs?since=yesterday`, /^since must be/],
        [`/api/stacks/${name}/containers/..%2F..%2Fetc/logs`, /^Invalid container name/],
      ] as const;
      for (const [path, message] of bad) {
        const reply = await admin.get(path);
        expectStatus(reply, 400, path);
        expect((reply.value as Json).error).toMatch(message);
      }
    }, 240_000);

    it('view on the environment is needed; an engine that cannot be reached is 502', async () => {
      const nogrant = server.as('nogrant');
      for (const path of [
        `/api/stacks/${name}/containers/${web}/logs`,
        `/api/stacks/${name}/logs`,
        `/api/stacks/${name}/containers`,
      ]) {
        const reply = await nogrant.get(path);
        expectStatus(reply, 403, path);
      }
      expectStatus(await server.as('viewer').get(`/api/stacks/${name}/containers/${db}/logs`), 200, 'viewer');
      // Environment 1's engine is a socket that does not exist.
      const created = await admin.post(`/api/stacks${q(1)}`, { name: 'far', compose: COMPOSE });
      expect([202, 500]).toContain(created.status);
      const far = await admin.get(`/api/stacks/far/logs${q(1)}`);
      expectStatus(far, 502, 'far');
      expect((far.value as Json).error).toMatch(/unix:\/\/\/nonexistent\/docker\.sock/);
    }, 120_000);
  });
});
