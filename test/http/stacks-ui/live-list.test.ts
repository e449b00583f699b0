/**
 * The stacks list following the engine live, in Chromium by visible text: a burst of container changes
 * in several stacks at once (one `docker stop` of a container in each, then one `docker start`) is
 * read again in at most one request out at a time, a handful in all — not one per stack per burst of
 * the engine's events — and the list ends showing what the engine has. The page's reads are held while
 * the engine's events arrive, so what they gather does not hang on how fast this machine answers.
 * The stacks are made with the fake compose; their containers are started here with compose's labels,
 * which is all the engine's state and events go by. Skips, saying why, without Chromium or an engine.
 */
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DockerRun, describeDocker, engine, ensureTestImage, TEST_IMAGE } from '../../docker-helpers.js';
import {
  composeText,
  createStackDone,
  type StacksServer,
  stacksConfig,
  startStacks,
  TOKENS,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 240_000 });
if (chromiumMissing) console.log(`skipped: the stacks list live: ${chromiumMissing}`);

const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000, interval: 100 });
const STACKS = 6;

/** The change feed as a client of the API sees it: every container change, by container name. */
function followChanges(port: number): { seen: Array<{ type: string; container: string }>; close(): void } {
  const seen: Array<{ type: string; container: string }> = [];
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    path: '/api/events',
    headers: { authorization: `Bearer ${TOKENS.admin}`, accept: 'text/event-stream' },
  });
  req.on('response', (res) => {
    let rest = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('data:')) continue;
        const change = JSON.parse(line.slice(5)) as { kind: string; type: string; container?: string };
        if (change.kind === 'container') seen.push({ type: change.type, container: change.container ?? '' });
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { seen, close: () => req.destroy() };
}

/** The page's reads of stacks, held until `release()`; how many were made and how many were out at once. */
function holdReads(page: Page) {
  let release: () => void = () => {};
  let gate = Promise.resolve();
  const tally = { made: 0, out: 0, mostOut: 0, paths: [] as string[] };
  const isRead = (r: Request) => {
    const url = new URL(r.url());
    return r.method() === 'GET' && url.pathname.startsWith('/api/stacks');
  };
  page.on('request', (r) => {
    if (!isRead(r)) return;
    tally.made += 1;
    tally.out += 1;
    tally.mostOut = Math.max(tally.mostOut, tally.out);
    tally.paths.push(new URL(r.url()).pathname);
  });
  const done = (r: Request) => {
    if (isRead(r)) tally.out -= 1;
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    tally,
    /** From now: reads held, tally from zero. */
    hold: async () => {
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      tally.made = 0;
      tally.mostOut = tally.out;
      tally.paths = [];
      await page.route(
        (url) => url.pathname.startsWith('/api/stacks'),
        async (route) => {
          await gate;
          await route.continue();
        },
      );
    },
    release: async () => {
      release();
      await page.unroute((url) => url.pathname.startsWith('/api/stacks'));
    },
  };
}

const describePage = chromiumMissing
  ? (name: string, _body: () => void) => console.log(`skipped: ${name}`)
  : describeDocker;

describePage('the stacks list live on a real engine', () => {
  const docker = new DockerRun('uilive');
  const names = Array.from({ length: STACKS }, (_, i) => docker.stack(`s${i + 1}`));
  const containers = names.map((n) => `${n}-web-1`);
  let server: StacksServer;
  let browser: Browser;
  let page: Page;
  let feed: ReturnType<typeof followChanges>;

  beforeAll(async () => {
    await ensureTestImage();
    server = await startStacks({ config: stacksConfig() });
    const admin = server.as('admin');
    for (const name of names) await createStackDone(admin, name, null, { compose: composeText() });
    for (const [i, name] of names.entries()) {
      const r = spawnSync(
        'docker',
        [
          'run',
          '-d',
          '--name',
          containers[i] as string,
          '--label',
          `com.docker.compose.project=${name}`,
          '--label',
          'com.docker.compose.service=web',
          TEST_IMAGE,
          'sh',
          '-c',
          "trap 'exit 0' TERM; sleep 3600 & wait",
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      if (r.status !== 0) throw new Error(`docker run failed: ${r.stderr}`);
    }
    feed = followChanges(server.port);
    browser = await openBrowser();
    page = browser.page;
    await signIn(page, `http://127.0.0.1:${server.port}/`, TOKENS.admin);
  });
  afterAll(async () => {
    feed?.close();
    await browser?.close();
    await server?.stop();
    await docker.cleanUp();
  }, 120_000);

  const statesShown = () =>
    Promise.all(
      names.map((n) => page.locator(`tr[data-stack="${n}"]`).getByTestId('stack-state').textContent()),
    );
  const countsShown = () =>
    Promise.all(
      names.map((n) => page.locator(`tr[data-stack="${n}"]`).getByTestId('stack-containers').textContent()),
    );
  /** Waits until the feed carried `type` for every container, from `from` on. */
  const feedCarried = (type: string, from: number) =>
    eventually(
      () =>
        new Set(
          feed.seen
            .slice(from)
            .filter((c) => c.type === type)
            .map((c) => c.container),
        ).size,
    ).toBe(STACKS);

  it('a burst of changes in six stacks is a few reads, one out at a time, and the list ends as the engine is', async () => {
    await page.goto(`http://127.0.0.1:${server.port}/#/?env=null`);
    await eventually(statesShown).toEqual(names.map(() => 'running'));
    const reads = holdReads(page);

    for (const [action, state, counts] of [
      ['stop', 'stopped', '0 of 1 running'],
      ['start', 'running', '1 of 1 running'],
    ] as const) {
      await reads.hold();
      const from = feed.seen.length;
      const r = spawnSync('docker', [action, ...containers], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      // Every change is in the feed (a stop's kill, die and stop; a start's start) while the page's
      // first read is held: what comes meanwhile waits for it.
      await feedCarried(action, from);
      await eventually(() => reads.tally.made).toBeGreaterThan(0);
      await reads.release();
      await eventually(statesShown).toEqual(names.map(() => state));
      expect(await countsShown()).toEqual(names.map(() => counts));
      await eventually(() => reads.tally.out).toBe(0);
      // One read out at a time; the held one and the one gathering what came while it was out, and one
      // more at most for the feed's last batch (the old list read each stack on its own: six or more).
      expect(reads.tally.mostOut, reads.tally.paths.join(' ')).toBe(1);
      expect(reads.tally.made, reads.tally.paths.join(' ')).toBeLessThanOrEqual(3);
    }
    // What the engine has is what the list says.
    const engineStates = await Promise.all(
      containers.map(async (c) => (await engine.getContainer(c).inspect()).State.Status),
    );
    expect(engineStates).toEqual(names.map(() => 'running'));
  });
});
