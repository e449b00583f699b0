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
 * an engine the report says why and has no ratio.
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
    const child = spawn('docker', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(wallMs()) : reject(new Error(`docker ${args.join(' ')}: ${stderr.slice(-300)}`)),
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
const seen = async (page: Page) => (await page.evaluate('window.__seen')) as number;

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
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await create(next[0], next[1]);
      }),
    );
    const setUpMs = wallMs() - made;
    const containerOf = async (stack: string, service: string) => {
      const [found] = await engine.listContainers({
        all: true,
        filters: { label: [`${PROJECT_LABEL}=${stack}`, `com.docker.compose.service=${service}`] },
      });
      if (!found) throw new Error(`no container of ${stack}/${service}`);
      return (found.Names[0] ?? '').slice(1);
    };
    // The log container has printed all of its lines once its last one is in the engine's log.
    const talker = await containerOf(logStack, 'talker');
    for (;;) {
      const tail = (await engine.getContainer(talker).logs({ stdout: true, tail: 1 })).toString('utf8');
      if (tail.includes(`line ${LOG_LINES - 1} `)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    browser = await openSignedIn(base, TOKEN);
    const page = browser.page;

    // docker stop, typed outside, to the stack page.
    const stopped = await containerOf(names[0] as string, 's1');
    await page.goto(`${base}/#/stack/${names[0]}?env=null`);
    await page.evaluate(seenScript(stopped, '[data-testid="container-state"]', 'running'));
    await seen(page);
    const stopToPage: number[] = [];
    const stopCommand: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await page.evaluate(seenScript(stopped, '[data-testid="container-state"]', 'exited'));
      const typed = wallMs();
      const done = await docker(['stop', stopped]);
      stopToPage.push((await seen(page)) - typed);
      stopCommand.push(done - typed);
      await page.evaluate(seenScript(stopped, '[data-testid="container-state"]', 'running'));
      await docker(['start', stopped]);
      await seen(page);
    }

    // The 100,000-line container log.
    const logFirst: number[] = [];
    const logAllFirst: number[] = [];
    const logAllWhole: number[] = [];
    const logFetch: number[] = [];
    const tailFetch: number[] = [];
    const whole = `${LOG_LINES.toLocaleString('en')} lines`;
    for (let round = 0; round < ROUNDS; round++) {
      await page.goto('about:blank');
      const start = Date.now();
      await page.goto(`${base}/#/stack/${logStack}?env=null&tab=logs&container=${talker}`);
      await page.waitForSelector('[data-testid="log-lines"] .log-row', { timeout: 60_000 });
      logFirst.push(Date.now() - start);
      await page.getByTestId('log-count').filter({ hasText: '1,000 lines' }).waitFor({ timeout: 60_000 });
      await page.evaluate(ALL_LINES_FIRST);
      const chosen = wallMs();
      await page.getByTestId('logs-tail').selectOption('all');
      logAllFirst.push((await seen(page)) - chosen);
      await page.getByTestId('log-count').filter({ hasText: whole }).waitFor({ timeout: 120_000 });
      logAllWhole.push(wallMs() - chosen);
      tailFetch.push(
        (await page.evaluate(
          `(async () => { const t = performance.now(); await (await fetch('/api/stacks/${logStack}/containers/${talker}/logs?env=null&tail=1000&follow=false')).text(); return performance.now() - t; })()`,
        )) as number,
      );
      logFetch.push(
        (await page.evaluate(
          `(async () => { const t = performance.now(); await (await fetch('/api/stacks/${logStack}/containers/${talker}/logs?env=null&tail=all&follow=false')).text(); return performance.now() - t; })()`,
        )) as number,
      );
    }

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
    const listRender: number[] = [];
    const listFetch: number[] = [];
    const renderSpent: Array<Record<string, number>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      await page.goto('about:blank');
      const before = await metrics();
      const start = wallMs();
      await page.goto(`${base}/#/?env=null`);
      listRender.push(((await page.evaluate(listReady)) as number) - start);
      renderSpent.push(spentMs(before, await metrics()));
      listFetch.push(
        (await page.evaluate(
          "(async () => { const t = performance.now(); await (await fetch('/api/stacks?env=null')).text(); return performance.now() - t; })()",
        )) as number,
      );
    }
    const idleSeconds = 3;
    await page.evaluate(FRAMES_START);
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idle = (await page.evaluate('window.__framesStop()')) as number[];

    const changing = await Promise.all(names.slice(0, CHANGING).map((n) => containerOf(n, 's2')));
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
    const liveFps: number[] = [];
    const liveP95: number[] = [];
    const liveMax: number[] = [];
    const liveRequests: number[] = [];
    const liveSpent: Array<Record<string, number>> = [];
    const liveWindow: number[] = [];
    let requests = 0;
    page.on('request', () => {
      requests++;
    });
    for (let round = 0; round < ROUNDS; round++) {
      const before = await metrics();
      requests = 0;
      await page.evaluate(FRAMES_START);
      const start = wallMs();
      await page.evaluate(
        rowsSay(names.slice(0, CHANGING), `partial · ${SERVICES - 1} of ${SERVICES} running`),
      );
      await docker(['stop', ...changing]);
      await seen(page);
      await page.evaluate(rowsSay(names.slice(0, CHANGING), 'running'));
      await docker(['start', ...changing]);
      await seen(page);
      liveWindow.push(wallMs() - start);
      const gaps = ((await page.evaluate('window.__framesStop()')) as number[]).sort((a, b) => a - b);
      liveFps.push(fpsOf(gaps));
      liveP95.push(percentile(gaps, 95));
      liveMax.push(gaps.at(-1) ?? 0);
      liveRequests.push(requests);
      liveSpent.push(spentMs(before, await metrics()));
    }
    const idleSorted = [...idle].sort((a, b) => a - b);

    return {
      name: title,
      rows: [
        {
          measure: 'docker stop typed outside to the page showing it (ms)',
          value: spreadCell(stopToPage),
          target: `< ${TARGET_STOP_MS}`,
          peer: spreadCell(stopCommand),
          'peer is': 'the docker stop command itself',
        },
        {
          measure: 'container log: navigation to first lines, last 1,000 (ms)',
          value: spreadCell(logFirst),
          target: `< ${TARGET_FIRST_LINES_MS}`,
          peer: spreadCell(tailFetch),
          'peer is': 'raw fetch of the last 1,000 lines',
        },
        {
          measure: 'container log: "all lines" chosen to first lines (ms)',
          value: spreadCell(logAllFirst),
          target: `< ${TARGET_FIRST_LINES_MS}`,
          peer: spreadCell(logFetch),
          'peer is': 'raw fetch of all 100,000 lines',
        },
        {
          measure: 'container log: "all lines" chosen to all 100,000 in the viewer (ms)',
          value: spreadCell(logAllWhole),
          target: '',
          peer: spreadCell(logFetch),
          'peer is': 'raw fetch of all 100,000 lines',
        },
        {
          measure: `list of ${STACKS + 1} stacks: navigation to every row's state and runs (ms)`,
          value: spreadCell(listRender),
          target: '',
          peer: spreadCell(listFetch),
          'peer is': 'raw fetch of the stacks list',
        },
        {
          measure: `list live: ${CHANGING} containers stopped and started, frames per second`,
          value: spreadCell(liveFps, 1),
          target: `>= ${TARGET_FPS} (60)`,
          peer: fpsOf(idle).toFixed(1),
          'peer is': 'the same page idle',
        },
        {
          measure: 'list live: frame p95 (ms)',
          value: spreadCell(liveP95, 1),
          target: '',
          peer: percentile(idleSorted, 95).toFixed(1),
          'peer is': 'the same page idle',
        },
        {
          measure: 'list live: longest frame (ms)',
          value: spreadCell(liveMax, 1),
          target: '',
          peer: (idleSorted.at(-1) ?? 0).toFixed(1),
          'peer is': 'the same page idle',
        },
        {
          measure: 'list live: requests the page made per round',
          value: spreadCell(liveRequests),
          target: '',
          peer: '',
          'peer is': '',
        },
      ],
      ratios: {
        stopToPageMs: ratioOf(stopToPage, TARGET_STOP_MS, { max: true }),
        containerLogFirstLinesMs: ratioOf(logFirst, TARGET_FIRST_LINES_MS, { max: true }),
        containerLogAllFirstLinesMs: ratioOf(logAllFirst, TARGET_FIRST_LINES_MS, { max: true }),
        listLiveFps: ratioOf(liveFps, TARGET_FPS),
      },
      extra: {
        setUpMs: Math.round(setUpMs),
        stopToPage,
        stopCommand,
        logFirst,
        logAllFirst,
        logAllWhole,
        logFetch,
        tailFetch,
        listRender,
        listFetch,
        renderSpentMs: renderSpent,
        liveWindowMs: liveWindow,
        liveSpentMs: liveSpent,
        medianLiveWindowMs: median(liveWindow),
      },
    };
  } finally {
    await browser?.close();
    await stopServer(server.child);
    await cleanUp(engine, prefix);
    await rm(dir, { recursive: true, force: true });
  }
}
