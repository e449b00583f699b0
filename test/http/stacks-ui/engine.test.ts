/**
 * The stacks page on a real Docker engine, on both Compose generations, in Chromium by visible text and
 * roles: the list says each stack's state as the engine has it ("partial · 1 of 2 running"), the stack
 * page's container table says a crashing service `exited (1)` and its log holds its last line, a
 * `docker stop` typed elsewhere shows on the page without a reload, and a followed log shows new lines.
 * A project started by hand with `compose up -d` is listed on the Engine page and, adopted, deploys.
 * axe-core finds no serious violation on these pages. Skips, saying why, without Chromium or an engine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { repoRoot } from '../../cli/helpers.js';
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
import { createStack, type StacksServer, startStacks, TOKENS, USERS, waitJob } from '../stacks/helpers.js';
import { axeViolations, type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 240_000 });
if (chromiumMissing) console.log(`skipped: stacks page on a real engine: ${chromiumMissing}`);

const SHOTS = join(repoRoot, 'docs');
const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000, interval: 100 });

const COMPOSE = [
  'services:',
  '  web:',
  `    image: ${TEST_IMAGE}`,
  '    ports: ["127.0.0.1::8080"]',
  `    command: ["sh", "-c", "echo web-started; trap 'exit 0' TERM; sleep 3600 & wait"]`,
  '  db:',
  `    image: ${TEST_IMAGE}`,
  `    command: ["sh", "-c", "echo db-starting; sleep 0.2; echo 'FATAL: could not connect to server' >&2; exit 1"]`,
  '',
].join('\n');

const describePage = chromiumMissing
  ? (name: string, _body: (c: ComposeUnderTest) => void) => console.log(`skipped: ${name}`)
  : describeCompose;

describePage('stacks page on a real engine', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`ui${compose.generation}`);
  const name = docker.stack('shop');
  let server: StacksServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let web = '';
  let db = '';

  beforeAll(async () => {
    await ensureTestImage();
    server = await startStacks({
      config: {
        environments: [{ id: 1, name: 'edge', dockerHost: 'unix:///nonexistent/docker.sock' }],
        users: [USERS.admin],
        compose: { command: compose.command },
      },
    });
    base = `http://127.0.0.1:${server.port}`;
    const admin = server.as('admin');
    await waitJob(admin, (await createStack(admin, name, null, { compose: COMPOSE })).jobId, 180_000);
    web = await containerOf(docker, name, 'web');
    db = await containerOf(docker, name, 'db');
    browser = await openBrowser({ bypassCSP: true });
    page = browser.page;
    await signIn(page, `${base}/`, TOKENS.admin);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await docker.cleanUp();
  }, 120_000);

  it('the list says the state the engine has: partial, 1 of 2 running', async () => {
    await page.goto(`${base}/#/?env=null`);
    const row = page.locator(`tr[data-stack="${name}"]`);
    await eventually(() => row.getByTestId('stack-state').textContent()).toBe('partial · 1 of 2 running');
    await eventually(() => row.getByTestId('stack-containers').textContent()).toBe('1 of 2 running');
    expect(await axeViolations(page)).toEqual([]);
  });

  it("the stack page's containers: a crashing service exited (1), and its log holds its last line", async () => {
    await page.getByRole('link', { name, exact: true }).click();
    const table = page
      .getByRole('table')
      .filter({ has: page.getByRole('columnheader', { name: 'Restarts' }) });
    const dbRow = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: db }) });
    await eventually(() => dbRow.getByTestId('container-state').textContent()).toBe('exited (1)');
    const webRow = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: web }) });
    expect(await webRow.getByTestId('container-state').textContent()).toBe('running');
    // Its use, live: CPU with a sparkline, memory, network.
    await eventually(() => webRow.getByTestId('container-use').textContent()).toMatch(
      /^CPU \d+\.\d% · [\d.]+ (KiB|MiB) · ↓[\d.]+ (KiB|MiB) ↑[\d.]+ (KiB|MiB)$/,
    );
    expect(await webRow.locator('svg.sparkline polyline').count()).toBe(1);
    // Its published port is a link to it.
    const port = (await engine.getContainer(web).inspect()).NetworkSettings.Ports['8080/tcp']?.[0]?.HostPort;
    expect(await webRow.getByRole('link', { name: `${port}→8080/tcp` }).getAttribute('href')).toBe(
      `http://127.0.0.1:${port}/`,
    );
    expect(await axeViolations(page)).toEqual([]);
    if (compose.generation === 'v2') await page.screenshot({ path: join(SHOTS, 'stacks-containers.png') });

    await dbRow.getByRole('button', { name: `Logs of ${db}` }).click();
    await eventually(() => page.getByRole('tab', { name: 'Logs' }).getAttribute('aria-selected')).toBe(
      'true',
    );
    const lines = page.getByTestId('log-lines');
    await eventually(() => lines.locator('.log-row .lt').allTextContents()).toEqual([
      'db-starting',
      'FATAL: could not connect to server',
    ]);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('a `docker stop` typed elsewhere shows without a reload', async () => {
    await page.evaluate('window.notReloaded = true');
    await engine.getContainer(web).stop({ t: 5 });
    const webRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: web }) });
    await eventually(() => webRow.getByTestId('container-state').textContent()).toBe('exited (0)');
    await eventually(() => page.getByTestId('stack-state').first().textContent()).toBe('stopped');
    await engine.getContainer(web).start();
    await eventually(() => webRow.getByTestId('container-state').textContent()).toBe('running');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
  });

  it("the whole stack's logs, coloured by service; a followed container shows new lines", async () => {
    await page.getByTestId('logs-container').selectOption({ label: 'All containers' });
    const lines = page.getByTestId('log-lines');
    await eventually(() => lines.locator('.log-row .src').allTextContents()).toEqual(
      expect.arrayContaining([db, web]),
    );
    const colours = await lines
      .locator('.log-row .src')
      .evaluateAll((nodes) => nodes.map((n) => `${n.textContent} ${n.className}`));
    const classOf = (c: string) =>
      new Set(colours.filter((t) => t.startsWith(`${c} `)).map((t) => t.split(' ')[2]));
    expect(classOf(db).size).toBe(1);
    expect([...classOf(db)]).not.toEqual([...classOf(web)]);

    await page.getByTestId('logs-container').selectOption({ label: web });
    await eventually(() => lines.locator('.log-row .lt').allTextContents()).toContain('web-started');
    sayIn(web, 'a-line-said-live');
    await eventually(() => lines.locator('.log-row .lt').allTextContents()).toContain('a-line-said-live');
    if (compose.generation === 'v2')
      await page.screenshot({ path: join(SHOTS, 'stacks-container-logs.png') });
  });

  it('a console into a running container runs `echo hi` and shows `hi`; it is audited', async () => {
    const webRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: web }) });
    await webRow.getByRole('button', { name: `Console in ${web}` }).click();
    const panel = page.getByRole('region', { name: `Console in ${web}` });
    expect(await panel.getByLabel('Command').inputValue()).toBe('sh');
    await panel.getByRole('button', { name: 'Connect' }).click();
    await eventually(() => panel.getByTestId('console-state').textContent()).toBe('connected');
    await page.keyboard.type('echo hi\n');
    const rows = () => panel.locator('.xterm-rows > div').allTextContents();
    await eventually(async () => (await rows()).map((r) => r.trim())).toContain('hi');
    if (compose.generation === 'v2') await page.screenshot({ path: join(SHOTS, 'stacks-console.png') });
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.type('exit 4\n');
    await eventually(() => panel.getByTestId('console-state').textContent()).toBe('exited (4)');
    const audit = (await server.as('admin').get(`/api/audit?type=console.&stack=${name}`)).value as {
      entries: Array<{ type: string; user: string; details: { container: string } }>;
    };
    expect(audit.entries.map((e) => [e.type, e.user, e.details.container])).toEqual([
      ['console.closed', 'admin', web],
      ['console.opened', 'admin', web],
    ]);
  });

  it("the environment switcher says each engine's version or that it is unreachable; an admin reads the engine", async () => {
    const version = (await engine.version()).Version;
    const options = page.getByRole('combobox', { name: 'Environment' }).locator('option');
    // The engine's words, then where the user may change stacks (an admin: everywhere).
    await eventually(() => options.allTextContents()).toEqual([
      `local · Docker ${version} (you may change)`,
      'edge · unreachable (you may change)',
    ]);
    await page.getByRole('link', { name: 'Engine', exact: true }).click();
    const info = page.getByTestId('engine-info');
    await eventually(() => info.textContent()).toContain(`Docker${version}`);
    expect(await info.textContent()).toContain(`Compose${compose.command.join(' ')}`);
    expect(await axeViolations(page)).toEqual([]);
    if (compose.generation === 'v2') await page.screenshot({ path: join(SHOTS, 'stacks-engine.png') });
  });

  it('a project started by hand with compose up -d is listed on the Engine page; adopted, it deploys', async () => {
    const project = docker.stack('byhand');
    const dir = await mkdtemp(join(tmpdir(), 'chronicle-byhand-'));
    try {
      await writeFile(
        join(dir, 'compose.yaml'),
        `services:\n  app:\n    image: ${TEST_IMAGE}\n    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]\n`,
      );
      const [program, ...prefix] = compose.command as [string, ...string[]];
      const up = spawnSync(program, [...prefix, '--project-name', project, 'up', '-d'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(up.status, up.stderr).toBe(0);
      // On the Engine page whatever the test before left open.
      await page.goto(`${base}/#/engine?env=null`);
      await page.getByRole('button', { name: 'Look again' }).click();
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: project }) });
      await eventually(() => row.getByTestId('project-containers').textContent()).toBe('1 of 1 running');
      expect(await row.textContent()).toContain(join(dir, 'compose.yaml'));
      // A stack chronicle manages is not offered.
      expect(await page.getByRole('rowheader', { name, exact: true }).count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      if (compose.generation === 'v2') await page.screenshot({ path: join(SHOTS, 'stacks-adopt.png') });

      await row.getByRole('button', { name: `Adopt ${project}` }).click();
      await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toContain(project);
      const status = page.getByTestId('run-status');
      await eventually(() => status.allTextContents()).toEqual(['adopted']);
      await eventually(() => page.getByTestId('stack-state').first().textContent()).toBe('running');
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await eventually(() => status.allTextContents()).toEqual(['success', 'adopted']);
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
