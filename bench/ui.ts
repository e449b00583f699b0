/**
 * `npm run bench -- ui`: the stacks web page on a 200,000-line run log, in Chromium (playwright-core with
 * Debian's /usr/bin/chromium).
 *
 *  - the run: one deploy with bench/fixtures/bench-compose.mjs (200,000 lines of compose-like output) on
 *    `chronicle stacks` (LevelDB), as `npm run bench -- deploys` makes it;
 *  - first lines: from `page.goto` of the deploys tab with the run open (`#/stack/bench?tab=deploys&run=1`,
 *    a signed-in session) to the first log row in the page; the peer, measured in the same page, is
 *    the raw `fetch` of the same log text (what any viewer must at least wait for). Target < 1 s;
 *  - scroll frames: the log box scrolled by 3,000 px every animation frame for 300 frames (a fast fling
 *    through 50,000 lines); each frame's time is the gap between two animation frames. Target p95 < 33 ms;
 *    the peer is the same loop over the same page without scrolling (the frame clock's own interval).
 *
 * Every wait has a limit (bench/time-limit.ts: 60 s in the page, 10 minutes for the deploy): past it
 * the row says `failed: <what it waited for>: not within N s`, and the other rows are still measured.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, startServer, stopServer } from './deploys.js';
import { type BenchReport, percentile, printReport } from './report.js';
import { cellOf, measure, within } from './time-limit.js';
import { CHROMIUM, openSignedIn, type SignedIn } from './ui-browser.js';
import { benchUiEngine } from './ui-engine.js';

const LINES = Number(process.env.BENCH_UI_LINES ?? 200_000);
const ROUNDS = 5;
const FRAMES = 300;
const TARGET_FIRST_LINES_MS = 1_000;
const TARGET_P95_FRAME_MS = 33;
/** How long one wait in the page may take before its row fails (generous, for a loaded machine). */
const WAIT_MS = 60_000;
/** The deploy that prints the log (200,000 lines through compose, the store and the log file). */
const DEPLOY_MS = 10 * 60_000;
const BENCH_COMPOSE = fileURLToPath(new URL('../../bench/fixtures/bench-compose.mjs', import.meta.url));

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** In the page: frame gaps over `frames` animation frames, scrolling the log by `step` px each frame. */
const frameScript = (frames: number, step: number) => `new Promise((resolve) => {
  const box = document.querySelector('[data-testid="log-lines"]');
  const gaps = [];
  let last = performance.now();
  let n = 0;
  const tick = (t) => {
    gaps.push(t - last);
    last = t;
    if (${step} > 0) box.scrollTop = (box.scrollTop + ${step}) % (box.scrollHeight - box.clientHeight);
    if (++n < ${frames}) requestAnimationFrame(tick); else resolve(gaps.slice(1));
  };
  requestAnimationFrame((t) => { last = t; requestAnimationFrame(tick); });
})`;

export async function benchUi(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is not installed (Debian package chromium)`);
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-ui-'));
  const config = join(dir, 'config.json');
  await writeFile(
    config,
    JSON.stringify({
      users: [{ name: 'bench', token: 'bench-admin-token', admin: true }],
      compose: { command: [process.execPath, BENCH_COMPOSE] },
      jobs: { timeoutSeconds: 600, retentionHours: 24 },
    }),
  );
  const server = await startServer(join(dir, 'data'), config);
  let browser: SignedIn | undefined;
  try {
    const created = await within(
      `the deploy of ${LINES} lines`,
      DEPLOY_MS,
      call(
        server.port,
        'POST',
        '/api/stacks',
        {
          name: 'bench',
          compose: 'services:\n  app:\n    image: bench\n',
          variables: [{ name: 'BENCH_LINES', value: String(LINES), secret: false }],
        },
        'application/json',
      ),
    );
    if (created.status !== 200) throw new Error(`the deploy answered ${created.status}: ${created.text}`);
    const base = `http://127.0.0.1:${server.port}`;
    browser = await openSignedIn(base, 'bench-admin-token');
    const { context, page } = browser;
    const full = `${LINES.toLocaleString('en')} lines`;

    const loads = await measure('the run log in the page', async () => {
      const firstLines: number[] = [];
      const rawFetch: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await page.goto('about:blank');
        const start = Date.now();
        await page.goto(`${base}/#/stack/bench?env=null&tab=deploys&run=1`);
        await page.waitForSelector('[data-testid="log-lines"] .log-row', { timeout: WAIT_MS });
        firstLines.push(Date.now() - start);
        // The rest of the log goes on loading: wait for it before the next round and the frames.
        await page
          .getByTestId('log-count')
          .filter({ hasText: full })
          .waitFor({ timeout: 2 * WAIT_MS });
        rawFetch.push(
          (await within(
            'the raw fetch of the log in the page',
            WAIT_MS,
            page.evaluate(
              "(async () => { const t = performance.now(); await (await fetch('/api/stacks/bench/deploys/1/log')).text(); return performance.now() - t; })()",
            ),
          )) as number,
        );
      }
      return { firstLines, rawFetch };
    });
    const frames = await measure('the scroll frames', async () => {
      const framesOf = async (step: number) =>
        (
          (await within(
            `${FRAMES} animation frames in the page`,
            WAIT_MS,
            page.evaluate(frameScript(FRAMES, step)),
          )) as number[]
        ).sort((a, b) => a - b);
      const idle = await framesOf(0);
      // Where the scrolling frames' time goes (Chrome's own counters, seconds), for the report.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const metrics = async () =>
        new Map(
          (
            (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }
          ).metrics.map((m) => [m.name, m.value]),
        );
      const before = await metrics();
      const scrolled = await framesOf(3_000);
      const after = await metrics();
      const spent = Object.fromEntries(
        ['ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration', 'TaskDuration'].map((k) => [
          k,
          Math.round(((after.get(k) ?? 0) - (before.get(k) ?? 0)) * 1000),
        ]),
      );
      const rowsInPage = (await page.locator('.log-row').count()) as number;
      return { idle, scrolled, spent, rowsInPage };
    });
    const first = loads.ok ? median(loads.value.firstLines) : Number.NaN;
    const fetched = loads.ok ? median(loads.value.rawFetch) : Number.NaN;
    const p95 = frames.ok ? percentile(frames.value.scrolled, 95) : Number.NaN;
    const ratios: BenchReport['ratios'] = {};
    if (loads.ok) {
      ratios.firstLinesMs = {
        value: first,
        target: TARGET_FIRST_LINES_MS,
        ok: first < TARGET_FIRST_LINES_MS,
        max: true,
      };
      ratios.firstLinesOverRawFetch = {
        value: first / Math.max(1, fetched),
        target: 10,
        ok: first / Math.max(1, fetched) < 10,
        max: true,
      };
    }
    if (frames.ok)
      ratios.p95FrameMs = {
        value: p95,
        target: TARGET_P95_FRAME_MS,
        ok: p95 < TARGET_P95_FRAME_MS,
        max: true,
      };
    const failed = [loads, frames].flatMap((part) => (part.ok ? [] : [part.error]));
    const report: BenchReport = {
      name: `ui: a ${LINES.toLocaleString('en')}-line run log in Chromium (${full})`,
      rows: [
        {
          measure: 'navigation to first log lines (median ms)',
          value: cellOf(loads, () => first),
          peer: cellOf(loads, () => fetched),
          'peer is': 'raw fetch of the log text',
        },
        {
          measure: 'scroll frame p50 (ms)',
          value: cellOf(frames, (v) => percentile(v.scrolled, 50)),
          peer: cellOf(frames, (v) => percentile(v.idle, 50)),
          'peer is': 'idle frame clock',
        },
        {
          measure: 'scroll frame p95 (ms)',
          value: cellOf(frames, () => p95),
          peer: cellOf(frames, (v) => percentile(v.idle, 95)),
          'peer is': 'idle frame clock',
        },
        {
          measure: 'scroll frame max (ms)',
          value: cellOf(frames, (v) => v.scrolled.at(-1) ?? 0),
          peer: cellOf(frames, (v) => v.idle.at(-1) ?? 0),
          'peer is': 'idle frame clock',
        },
        {
          measure: 'log rows in the page',
          value: cellOf(frames, (v) => v.rowsInPage),
          peer: LINES,
          'peer is': 'lines in the log',
        },
      ],
      ratios,
      extra: {
        ...(loads.ok ? loads.value : {}),
        frames: FRAMES,
        ...(frames.ok ? { scrollingMs: frames.value.spent } : {}),
        ...(failed.length > 0 ? { failed } : {}),
      },
    };
    printReport(report);
  } finally {
    await browser?.close();
    await stopServer(server.child);
    await rm(dir, { recursive: true, force: true });
  }
  // The rows on the real engine (bench/ui-engine.ts).
  printReport(await benchUiEngine());
}
