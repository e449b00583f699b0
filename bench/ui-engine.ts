/**
 * The real-engine rows of `npm run bench -- ui`: the stacks page in Chromium on `chronicle stacks`
 * (LevelDB, the compose it detects) and the Docker engine of this machine, 20 stacks of 5 containers
 * (busybox sleeping) and one whose container printed 100,000 lines.
 *
 *  - docker stop to the page: the stack page's container table open; `docker stop` of one container
 *    typed outside (the docker CLI, spawned); from its spawn to the first animation frame after the row
 *    says `exited (0)` (a MutationObserver in the page, times on the same wall clock). The peer is the
 *    `docker stop` command's own time (when the engine says it stopped). Target < 1 s. The container is
 *    started again, and the page seen running, between rounds;
 *  - container log: from `page.goto` of the logs tab on the 100,000-line container (the page's default,
 *    the last 1,000 lines, then followed) to its first row, against the raw fetch of those 1,000 lines
 *    (follow=false) in the page; then "all lines" chosen, to its first row and to the whole log in the
 *    viewer, against the raw fetch of the whole log. Target < 1 s for the first lines;
 *  - the list of 20 stacks × 5 containers: from `page.goto` to every row with its engine state and its
 *    runs (render cost, with Chrome's script and layout time); then live updates: 10 containers, one in
 *    each of 10 stacks, stopped by the docker CLI and started again while the page's animation frames
 *    are timed, until the list showed both changes on all 10 rows. Frames per second over that window,
 *    against the same page idle. Target 60 fps (57 and more counts: the idle clock itself wavers).
 *
 * Every project is removed at the end (containers, networks): dockerd's address pool is shared. Without
 * an engine the report says why and has no ratio. Every wait has a limit (bench/time-limit.ts: 60 s for
 * a change in the page, a docker command or a fetch; 10 minutes for the set-up): past it the row says
 * `failed: <what it waited for>: not within N s` (without a ratio), and the other rows are still measured.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { Page } from 'playwright-core';
import { PROJECT_LABEL } from '../src/stacks/engine/container-events.js';
import { call, startServer, stopServer } from './deploys.js';
import { ensureBusyboxImage } from './docker-image.js';
import { type BenchReport, median, percentile, ratioOf, spreadCell } from './report.js';
import { cellOf, measure, until, within } from './time-limit.js';
import { CHROMIUM, openSignedIn } from './ui-browser.js';

const IMAGE = 'chronicle-bench/busybox:1';
const STACKS = 20;
const SERVICES = 5;
const CHANGING = 10;
const LOG_LINES = 100_000;
const ROUNDS = Math.max(1, Number(process.env.BENCH_UI_ENGINE_ROUNDS ?? 5));
const TARGET_STOP_MS = 1_000;
const TARGET_FIRST_LINES_MS = 1_000;
const TARGET_FPS = 57;
const TOKEN = 'bench-admin-token';
const SLEEPER = `["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`;
/**
 * How long one wait may take before its row fails (generous: a loaded machine takes seconds where an
 * idle one takes milliseconds): a change to show in the page, a docker command, a fetch in the page.
 */
const WAIT_MS = 60_000;
/** The set-up: 21 stacks created (compose up each) and the chatty container's 100,000 lines printed. */
const SET_UP_MS = 10 * 60_000;

const stackCompose = () =>
  `services:\n${Array.from(
    { length: SERVICES },
    (_, i) => `  s${i + 1}:\n    image: ${IMAGE}\n    command: ${SLEEPER}\n`,
  ).join('')}`;
const logCompose = () =>
  [
    'services:',
    '  talker:',
    `    image: ${IMAGE}`,
    `    command: ["sh", "-c", "i=0; while [ $$i -lt ${LOG_LINES} ]; do echo \\"bench log line $$i of a chatty container\\"; i=$$((i+1)); done; trap 'exit 0' TERM; sleep 3600 & wait"]`,
    '',
  ].join('\n');

/** Wall-clock milliseconds, as the page's `performance.timeOrigin + performance.now()` counts them. */
const wallMs = () => performance.timeOrigin + performance.now();

function docker(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    // Killed past the limit: its close then rejects, naming the command.
    const child = spawn('docker', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: WAIT_MS });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(wallMs())
        : reject(
            new Error(
              `docker ${args.join(' ')}: ${child.killed ? `not done within ${WAIT_MS / 1000} s` : stderr.slice(-300)}`,
            ),
          ),
    );
  });
}

/** Why the engine rows cannot run here, or undefined. */
function engineMissing(): string | undefined {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (info.status !== 0) return `no Docker engine (docker info: ${(info.stderr ?? '').split('\n')[0]})`;
  return undefined;
}

/** Removes every container and network of the projects named `prefix-…`. */
async function cleanUp(engine: Docker, prefix: string): Promise<void> {
  const mine = (project: string | undefined) => project?.startsWith(`${prefix}-`) === true;
  const containers = await engine.listContainers({ all: true, filters: { label: [PROJECT_LABEL] } });
  await Promise.all(
    containers
      .filter((c) => mine(c.Labels[PROJECT_LABEL]))
      .map((c) =>
        engine
          .getContainer(c.Id)
          .remove({ force: true, v: true })
          .catch(() => undefined),
      ),
  );
  const networks = await engine.listNetworks({ filters: { label: [PROJECT_LABEL] } });
  await Promise.all(
    networks
      .filter((n) => mine(n.Labels?.[PROJECT_LABEL]))
      .map((n) =>
        engine
          .getNetwork(n.Id)
          .remove()
          .catch(() => undefined),
      ),
  );
}

/**
 * In the page: `window.__seen` resolves with the wall-clock time of the first animation frame after
 * `selector`'s text in the row whose header is `row` starts with `text` (looked up again on every
 * change: rows re-render). Set before the change is made; awaited with `page.evaluate('window.__seen')`.
 */
const seenScript = (
  row: string,
  selector: string,
  text: string,
) => `void (window.__seen = new Promise((resolve) => {
  const find = () => [...document.querySelectorAll('tr')].find((tr) => tr.querySelector('th')?.textContent?.trim() === ${JSON.stringify(row)})?.querySelector(${JSON.stringify(selector)});
  const check = () => {
    if (!(find()?.textContent ?? '').startsWith(${JSON.stringify(text)})) return false;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.timeOrigin + performance.now()));
    return true;
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  check();
}))`;
const seen = async (page: Page, what: string) =>
  (await within(what, WAIT_MS, page.evaluate('window.__seen'))) as number;

/** The milliseconds a `fetch` of `path` takes in the page, with the wait's limit. */
const fetchMs = async (page: Page, path: string) =>
  (await within(
    `fetch ${path} in the page`,
    WAIT_MS,
    page.evaluate(
      `(async () => { const t = performance.now(); await (await fetch(${JSON.stringify(path)})).text(); return performance.now() - t; })()`,
    ),
  )) as number;

/**
 * In the page, once "all lines" is chosen: `window.__seen` resolves at the first animation frame with
 * log rows after the viewer let go of the last 1,000 (the new read starts from nothing).
 */
const ALL_LINES_FIRST = `void (window.__seen = new Promise((resolve) => {
  let emptied = false;
  const check = () => {
    const rows = document.querySelectorAll('[data-testid="log-lines"] .log-row').length;
    const count = document.querySelector('[data-testid="log-count"]')?.textContent ?? '';
    if (rows === 0 || count === '0 lines') emptied = true;
    if (!emptied || rows === 0) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.timeOrigin + performance.now()));
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
}))`;

/** In the page: animation frames timed from now until `window.__framesStop()`; it answers the gaps. */
const FRAMES_START = `(() => {
  const gaps = [];
  let last = performance.now();
  let on = true;
  const tick = (t) => { gaps.push(t - last); last = t; if (on) requestAnimationFrame(tick); };
  requestAnimationFrame((t) => { last = t; requestAnimationFrame(tick); });
  window.__framesStop = () => { on = false; return gaps; };
})()`;

const fpsOf = (gaps: readonly number[]) => {
  const total = gaps.reduce((a, b) => a + b, 0);
  return total === 0 ? 0 : (gaps.length * 1000) / total;
};

/** Chrome's own counters (seconds) for where the page's time goes. */
async function metricsOf(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  return async () => {
    const { metrics } = (await cdp.send('Performance.getMetrics')) as {
      metrics: Array<{ name: string; value: number }>;
    };
    return new Map(metrics.map((m) => [m.name, m.value]));
  };
}

const spentMs = (before: Map<string, number>, after: Map<string, number>) =>
  Object.fromEntries(
    ['ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration', 'TaskDuration'].map((k) => [
      k,
      Math.round(((after.get(k) ?? 0) - (before.get(k) ?? 0)) * 1000),
    ]),
  );

export async function benchUiEngine(): Promise<BenchReport> {
  const title = `ui on the real engine: ${STACKS} stacks × ${SERVICES} containers, a ${LOG_LINES.toLocaleString('en')}-line container log`;
  const missing = existsSync(CHROMIUM)
    ? engineMissing()
    : `${CHROMIUM} is not installed (Debian package chromium)`;
  if (missing) return { name: `${title} — not run: ${missing}`, rows: [], ratios: {} };
  await ensureBusyboxImage(IMAGE);
  const engine = new Docker();
  const prefix = `chronicle-bench-ui-${process.pid.toString(36)}`;
  const names = Array.from({ length: STACKS }, (_, i) => `${prefix}-${String(i + 1).padStart(2, '0')}`);
  const logStack = `${prefix}-log`;
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-ui-engine-'));
  const config = join(dir, 'config.json');
  await writeFile(
    config,
    JSON.stringify({
      users: [{ name: 'bench', token: TOKEN, admin: true }],
      jobs: { timeoutSeconds: 600, retentionHours: 24 },
    }),
  );
  const server = await startServer(join(dir, 'data'), config);
  const base = `http://127.0.0.1:${server.port}`;
  let browser: Awaited<ReturnType<typeof openSignedIn>> | undefined;
  try {
    // The stacks, four at a time (each answer comes once its compose up has ended).
    const made = wallMs();
    const create = async (name: string, compose: string) => {
      const answer = await call(
        server.port,
        'POST',
        '/api/stacks?env=null',
        { name, compose, variables: [] },
        'application/json',
      );
      const result = JSON.parse(answer.text) as { success?: boolean };
      if (answer.status !== 200 || result.success !== true)
        throw new Error(`creating ${name} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
    };
    const queue = [...names.map((n) => [n, stackCompose()] as const), [logStack, logCompose()] as const];
    await within(
      `creating ${queue.length} stacks`,
      SET_UP_MS,
      Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) await create(next[0], next[1]);
        }),
      ),
    );
    const setUpMs = wallMs() - made;
    const containerOf = async (stack: string, service: string) => {
      const [found] = await within(
        `listing the container of ${stack}/${service}`,
        WAIT_MS,
        engine.listContainers({
          all: true,
          filters: { label: [`${PROJECT_LABEL}=${stack}`, `com.docker.compose.service=${service}`] },
        }),
      );
      if (!found) throw new Error(`no container of ${stack}/${service}`);
      return (found.Names[0] ?? '').slice(1);
    };
    // The log container has printed all of its lines once its last one is in the engine's log.
    const talker = await containerOf(logStack, 'talker');
    await until(`the container ${talker} printing its ${LOG_LINES} lines`, SET_UP_MS, async () =>
      (await engine.getContainer(talker).logs({ stdout: true, tail: 1 }))
        .toString('utf8')
        .includes(`line ${LOG_LINES - 1} `),
    );

    browser = await openSignedIn(base, TOKEN);
    const page = browser.page;

    // docker stop, typed outside, to the stack page.
    const stop = await measure('docker stop to the page', async () => {
      const stopped = await containerOf(names[0] as string, 's1');
      const state = '[data-testid="container-state"]';
      await page.goto(`${base}/#/stack/${names[0]}?env=null`);
      await page.evaluate(seenScript(stopped, state, 'running'));
      await seen(page, `the stack page showing ${stopped} running`);
      const toPage: number[] = [];
      const command: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await page.evaluate(seenScript(stopped, state, 'exited'));
        const typed = wallMs();
        const done = await docker(['stop', stopped]);
        toPage.push((await seen(page, `the stack page showing ${stopped} exited`)) - typed);
        command.push(done - typed);
        await page.evaluate(seenScript(stopped, state, 'running'));
        await docker(['start', stopped]);
        await seen(page, `the stack page showing ${stopped} running again`);
      }
      return { toPage, command };
    });

    // The 100,000-line container log.
    const whole = `${LOG_LINES.toLocaleString('en')} lines`;
    const logs = await measure('the container log', async () => {
      const first: number[] = [];
      const allFirst: number[] = [];
      const allWhole: number[] = [];
      const allFetch: number[] = [];
      const tailFetch: number[] = [];
      const logsPath = `/api/stacks/${logStack}/containers/${talker}/logs?env=null`;
      for (let round = 0; round < ROUNDS; round++) {
        await page.goto('about:blank');
        const start = Date.now();
        await page.goto(`${base}/#/stack/${logStack}?env=null&tab=logs&container=${talker}`);
        await page.waitForSelector('[data-testid="log-lines"] .log-row', { timeout: WAIT_MS });
        first.push(Date.now() - start);
        await page.getByTestId('log-count').filter({ hasText: '1,000 lines' }).waitFor({ timeout: WAIT_MS });
        await page.evaluate(ALL_LINES_FIRST);
        const chosen = wallMs();
        await page.getByTestId('logs-tail').selectOption('all', { timeout: WAIT_MS });
        allFirst.push((await seen(page, 'the first of all lines in the viewer')) - chosen);
        await page
          .getByTestId('log-count')
          .filter({ hasText: whole })
          .waitFor({ timeout: 2 * WAIT_MS });
        allWhole.push(wallMs() - chosen);
        tailFetch.push(await fetchMs(page, `${logsPath}&tail=1000&follow=false`));
        allFetch.push(await fetchMs(page, `${logsPath}&tail=all&follow=false`));
      }
      return { first, allFirst, allWhole, allFetch, tailFetch };
    });

    // The list: render, then live updates.
    const metrics = await metricsOf(page);
    const allRows = `[...document.querySelectorAll('tr[data-stack]')].filter((tr) => tr.dataset.stack.startsWith(${JSON.stringify(prefix)}))`;
    const listReady = `new Promise((resolve) => {
      const ready = () => { const rows = ${allRows}; return rows.length === ${STACKS + 1} && rows.every((tr) => tr.querySelector('[data-testid="stack-state"]') && !tr.querySelector('[data-testid="tally"]')?.textContent?.includes('…')); };
      const check = () => { if (!ready()) return; observer.disconnect(); requestAnimationFrame(() => resolve(performance.timeOrigin + performance.now())); };
      const observer = new MutationObserver(check);
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      check();
    })`;
    const list = await measure('the list render', async () => {
      const render: number[] = [];
      const fetched: number[] = [];
      const spent: Array<Record<string, number>> = [];
      for (let round = 0; round < ROUNDS; round++) {
        await page.goto('about:blank');
        const before = await metrics();
        const start = wallMs();
        await page.goto(`${base}/#/?env=null`);
        const ready = await within(`every row of the list with its state`, WAIT_MS, page.evaluate(listReady));
        render.push((ready as number) - start);
        spent.push(spentMs(before, await metrics()));
        fetched.push(await fetchMs(page, '/api/stacks?env=null'));
      }
      return { render, fetched, spent };
    });

    /** In the page: `window.__seen` resolves once every one of `stacks` rows says `text`. */
    const rowsSay = (
      stacks: readonly string[],
      text: string,
    ) => `void (window.__seen = new Promise((resolve) => {
      const stacks = ${JSON.stringify(stacks)};
      const say = (s) => document.querySelector('tr[data-stack="' + s + '"] [data-testid="stack-state"]')?.textContent ?? '';
      const check = () => { if (!stacks.every((s) => say(s) === ${JSON.stringify(text)})) return; observer.disconnect(); requestAnimationFrame(() => resolve(performance.timeOrigin + performance.now())); };
      const observer = new MutationObserver(check);
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      check();
    }))`;
    const live = await measure('the list live', async () => {
      await page.goto(`${base}/#/?env=null`);
      await within(`every row of the list with its state`, WAIT_MS, page.evaluate(listReady));
      const idleSeconds = 3;
      await page.evaluate(FRAMES_START);
      await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      const idle = (await page.evaluate('window.__framesStop()')) as number[];
      const changing = await Promise.all(names.slice(0, CHANGING).map((n) => containerOf(n, 's2')));
      const partial = `partial · ${SERVICES - 1} of ${SERVICES} running`;
      const fps: number[] = [];
      const p95: number[] = [];
      const max: number[] = [];
      const requested: number[] = [];
      const spent: Array<Record<string, number>> = [];
      const windowMs: number[] = [];
      let requests = 0;
      page.on('request', () => {
        requests++;
      });
      for (let round = 0; round < ROUNDS; round++) {
        const before = await metrics();
        requests = 0;
        await page.evaluate(FRAMES_START);
        const start = wallMs();
        await page.evaluate(rowsSay(names.slice(0, CHANGING), partial));
        await docker(['stop', ...changing]);
        await seen(page, `${CHANGING} rows of the list saying "${partial}"`);
        await page.evaluate(rowsSay(names.slice(0, CHANGING), 'running'));
        await docker(['start', ...changing]);
        await seen(page, `${CHANGING} rows of the list saying "running" again`);
        windowMs.push(wallMs() - start);
        const gaps = ((await page.evaluate('window.__framesStop()')) as number[]).sort((a, b) => a - b);
        fps.push(fpsOf(gaps));
        p95.push(percentile(gaps, 95));
        max.push(gaps.at(-1) ?? 0);
        requested.push(requests);
        spent.push(spentMs(before, await metrics()));
      }
      return {
        idle,
        idleSorted: [...idle].sort((a, b) => a - b),
        fps,
        p95,
        max,
        requested,
        spent,
        window: windowMs,
      };
    });

    const ratios: BenchReport['ratios'] = {};
    if (stop.ok) ratios.stopToPageMs = ratioOf(stop.value.toPage, TARGET_STOP_MS, { max: true });
    if (logs.ok) {
      ratios.containerLogFirstLinesMs = ratioOf(logs.value.first, TARGET_FIRST_LINES_MS, { max: true });
      ratios.containerLogAllFirstLinesMs = ratioOf(logs.value.allFirst, TARGET_FIRST_LINES_MS, { max: true });
    }
    if (live.ok) ratios.listLiveFps = ratioOf(live.value.fps, TARGET_FPS);
    const failed = [stop, logs, list, live].flatMap((part) => (part.ok ? [] : [part.error]));
    return {
      name: title,
      rows: [
        {
          measure: 'docker stop typed outside to the page showing it (ms)',
          value: cellOf(stop, (v) => spreadCell(v.toPage)),
          target: `< ${TARGET_STOP_MS}`,
          peer: cellOf(stop, (v) => spreadCell(v.command)),
          'peer is': 'the docker stop command itself',
        },
        {
          measure: 'container log: navigation to first lines, last 1,000 (ms)',
          value: cellOf(logs, (v) => spreadCell(v.first)),
          target: `< ${TARGET_FIRST_LINES_MS}`,
          peer: cellOf(logs, (v) => spreadCell(v.tailFetch)),
          'peer is': 'raw fetch of the last 1,000 lines',
        },
        {
          measure: 'container log: "all lines" chosen to first lines (ms)',
          value: cellOf(logs, (v) => spreadCell(v.allFirst)),
          target: `< ${TARGET_FIRST_LINES_MS}`,
          peer: cellOf(logs, (v) => spreadCell(v.allFetch)),
          'peer is': 'raw fetch of all 100,000 lines',
        },
        {
          measure: 'container log: "all lines" chosen to all 100,000 in the viewer (ms)',
          value: cellOf(logs, (v) => spreadCell(v.allWhole)),
          target: '',
          peer: cellOf(logs, (v) => spreadCell(v.allFetch)),
          'peer is': 'raw fetch of all 100,000 lines',
        },
        {
          measure: `list of ${STACKS + 1} stacks: navigation to every row's state and runs (ms)`,
          value: cellOf(list, (v) => spreadCell(v.render)),
          target: '',
          peer: cellOf(list, (v) => spreadCell(v.fetched)),
          'peer is': 'raw fetch of the stacks list',
        },
        {
          measure: `list live: ${CHANGING} containers stopped and started, frames per second`,
          value: cellOf(live, (v) => spreadCell(v.fps, 1)),
          target: `>= ${TARGET_FPS} (60)`,
          peer: cellOf(live, (v) => fpsOf(v.idle).toFixed(1)),
          'peer is': 'the same page idle',
        },
        {
          measure: 'list live: frame p95 (ms)',
          value: cellOf(live, (v) => spreadCell(v.p95, 1)),
          target: '',
          peer: cellOf(live, (v) => percentile(v.idleSorted, 95).toFixed(1)),
          'peer is': 'the same page idle',
        },
        {
          measure: 'list live: longest frame (ms)',
          value: cellOf(live, (v) => spreadCell(v.max, 1)),
          target: '',
          peer: cellOf(live, (v) => (v.idleSorted.at(-1) ?? 0).toFixed(1)),
          'peer is': 'the same page idle',
        },
        {
          measure: 'list live: requests the page made per round',
          value: cellOf(live, (v) => spreadCell(v.requested)),
          target: '',
          peer: '',
          'peer is': '',
        },
      ],
      ratios,
      extra: {
        setUpMs: Math.round(setUpMs),
        ...(failed.length > 0 ? { failed } : {}),
        ...(stop.ok ? { stopToPage: stop.value.toPage, stopCommand: stop.value.command } : {}),
        ...(logs.ok
          ? {
              logFirst: logs.value.first,
              logAllFirst: logs.value.allFirst,
              logAllWhole: logs.value.allWhole,
              logFetch: logs.value.allFetch,
              tailFetch: logs.value.tailFetch,
            }
          : {}),
        ...(list.ok
          ? { listRender: list.value.render, listFetch: list.value.fetched, renderSpentMs: list.value.spent }
          : {}),
        ...(live.ok
          ? {
              liveWindowMs: live.value.window,
              liveSpentMs: live.value.spent,
              medianLiveWindowMs: median(live.value.window),
            }
          : {}),
      },
    };
  } finally {
    await browser?.close();
    await stopServer(server.child);
    await cleanUp(engine, prefix);
    await rm(dir, { recursive: true, force: true });
  }
}
