/**
 * The stacks web page end to end in Chromium, against the real CLI (`chronicle stacks` with the fake
 * compose): sign in with a token (the session cookie), create a stack and watch its output arrive, see
 * the run in the deploys tab, open its log, search, filter and download it, delete a run, resume the
 * output after a reload mid-deploy, change the reconcile cron and run it now, and a viewer without
 * write actions. Skips, saying why, when Chromium is not installed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot, tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import {
  composeText,
  createStackDone,
  type StacksServer,
  startStacks,
  TOKENS,
  waitJob,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: stacks web page tests: ${chromiumMissing}`);

const SHOTS = join(repoRoot, 'docs');

/** expect.poll with room for a loaded machine (its default gives up after one second). */
const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 50 });

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;

/** Compose v2's progress lines, so the run has a summary; and a coloured line. */
const DEPLOY_LINES = [
  ' Network web_default  Created',
  ' Container web-1  Created',
  ' Container web-1  Started',
  '\u001b[32mweb is up\u001b[0m',
];

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.skipIf(chromiumMissing !== undefined)('stacks web page', () => {
  it('serves the page without a token and keeps the API behind one', async () => {
    const root = await fetch(`${base}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toContain('text/html');
    expect(root.headers.get('content-security-policy')).toContain("script-src 'self'");
    const bundle = await fetch(`${base}/ui/app.js`);
    expect(bundle.status).toBe(200);
    expect((await fetch(`${base}/api/stacks`)).status).toBe(401);
    expect((await fetch(`${base}/ui/..%2Fstacks-session.js`)).status).toBe(404);
  });

  it('refuses a wrong token with a message, then signs in with a session cookie', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.getByLabel('Token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.getByTestId('signin-error').textContent()).toContain('Wrong token');

    await page.getByLabel('Token').fill(TOKENS.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('[data-testid="user"]');
    expect(await page.getByTestId('user').textContent()).toContain('admin');
    const cookies = await browser.context.cookies(base);
    const session = cookies.find((c) => c.name === 'chronicle_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Strict');
    // The cookie alone authenticates the API (same origin); a cross-origin change is refused.
    const cookie = `chronicle_session=${session?.value}`;
    expect((await fetch(`${base}/api/stacks`, { headers: { cookie } })).status).toBe(200);
    const foreign = await fetch(`${base}/api/stacks/x/deploy`, {
      method: 'POST',
      headers: { cookie, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(foreign.status).toBe(401);
    await page.waitForSelector('[data-testid="no-stacks"]');
  });

  it('creates a stack and shows its output as it arrives, with ANSI colours', async () => {
    await page.getByRole('button', { name: 'New stack' }).click();
    await page.getByLabel('Name').fill('web');
    const compose = composeText({ lines: DEPLOY_LINES, perLineMs: 300 });
    await page.getByTestId('compose-editor').fill(compose);
    await page.getByRole('button', { name: 'Create and start' }).click();
    // The first line shows while the job still runs: lines arrive live.
    await page.waitForSelector('.out-line');
    expect(await page.getByTestId('job-state').textContent()).toContain('running');
    await page.screenshot({ path: join(SHOTS, 'stacks-live-output.png') });
    await eventually(() => page.getByTestId('job-state').textContent()).toContain('ok');
    const lines = await page.locator('.out-line').allTextContents();
    expect(lines).toEqual([...DEPLOY_LINES.slice(0, 3), 'web is up']);
    expect(await page.locator('.out-line .ansi-green-fg').textContent()).toBe('web is up');
    expect(await page.getByTestId('job-exit').textContent()).toContain('0');
    expect(page.url()).toContain('#/stack/web');
  });

  it('lists the run in the deploys tab with status, summary and trigger; opens, searches and downloads its log', async () => {
    await page.getByRole('tab', { name: /Deploys/ }).click();
    const row = page.locator('tr.run-row').first();
    await eventually(() => row.getAttribute('data-status')).toBe('success');
    expect(await row.getByTestId('run-summary').textContent()).toBe('1 created · 1 started');
    expect(await row.getByTestId('run-trigger').textContent()).toContain('manual');
    await row.getByRole('button', { name: /show details/ }).click();
    await page.waitForSelector('[data-testid="log-lines"] .log-row');
    expect(await page.getByTestId('log-count').textContent()).toContain('4 lines');
    await page.getByTestId('log-search').fill('container');
    expect(await page.getByTestId('log-matches').textContent()).toBe('1 / 2');
    expect(await page.locator('[data-testid="log-lines"] .log-row mark').count()).toBe(2);
    await page.getByTestId('log-filter').check();
    expect(await page.locator('[data-testid="log-lines"] .log-row .ln').allTextContents()).toEqual([
      '2',
      '3',
    ]);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('log-download').click(),
    ]);
    expect(download.suggestedFilename()).toBe('web-run-1.txt');
    const path = await download.path();
    expect((await readFile(path, 'utf8')).split('\n')).toContain(' Container web-1  Started');
    await page.screenshot({ path: join(SHOTS, 'stacks-deploys.png') });
  });

  it('resumes the live output after a reload mid-deploy, without losing or repeating lines', async () => {
    const admin = server.as('admin');
    // The deploy waits after its second line until the page has reloaded: it cannot end meanwhile.
    const gate = join(await tempDir(), 'reloaded');
    await admin.put('/api/stacks/web/compose?env=null', {
      content: composeText({
        lines: ['one', 'two', 'three', 'four', 'five', 'six'],
        perLineMs: 100,
        gate: { afterLines: 2, file: gate },
      }),
      restart: false,
    });
    const before = page.url();
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await eventually(() => page.url()).not.toBe(before);
    await eventually(() => page.locator('.out-line').count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByTestId('job-state').textContent()).toContain('running');
    const url = page.url();
    expect(url).toContain('job=');
    const resumedFrom: string[] = [];
    page.on('request', (r) => {
      const id = r.headers()['last-event-id'];
      if (r.url().includes('/api/jobs/') && id !== undefined) resumedFrom.push(id);
    });
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    expect(page.url()).toBe(url);
    await eventually(() => resumedFrom.length).toBeGreaterThan(0);
    await writeFile(gate, '');
    await eventually(() => page.getByTestId('job-state').textContent()).toContain('ok');
    expect(await page.locator('.out-line').allTextContents()).toEqual([
      'one',
      'two',
      'three',
      'four',
      'five',
      'six',
    ]);
    // The reload asked for the events after the last one it had shown, not for all of them again.
    expect(resumedFrom.length).toBeGreaterThan(0);
    expect(resumedFrom[0]).toMatch(/^\d+$/);
  });

  it("shows the server's validation error at its line of the compose file", async () => {
    await page.getByRole('tab', { name: 'Compose' }).click();
    await page.getByTestId('compose-editor').fill('services:\n  web:\n    image: [nginx\n');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => page.getByTestId('action-error').textContent()).toMatch(
      /^Compose file is not valid YAML: .* at line \d+, column \d+/,
    );
    await eventually(() => page.locator('.cm-lintRange-error').count()).toBe(1);
    const stored = await server.as('admin').get('/api/stacks/web?env=null');
    expect((stored.value as { compose: string }).compose).toContain('one');
  });

  it('saves variables; a secret is never shown back and is kept when left untouched', async () => {
    await page.getByRole('tab', { name: 'Variables' }).click();
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable 1 name').fill('API_KEY');
    await page.getByLabel('Variable 1 value').fill('s3cret-api-key');
    await page.getByLabel('Variable 1 secret').check();
    await page.getByRole('button', { name: 'Save variables' }).click();
    await eventually(() => page.getByRole('status').filter({ hasText: 'Variables saved.' }).count()).toBe(1);
    expect(await page.getByLabel('Variable 1 value').inputValue()).toBe('');
    expect(await page.content()).not.toContain('s3cret-api-key');
    // Saved again without typing it: the server keeps the value.
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable 2 name').fill('MODE');
    await page.getByLabel('Variable 2 value').fill('blue');
    await page.getByRole('button', { name: 'Save variables' }).click();
    const envFile = join(server.dataDir, 'stacks', 'local', 'web', '.env');
    await eventually(() => readFile(envFile, 'utf8')).toContain('blue');
    expect(await readFile(envFile, 'utf8')).toContain('s3cret-api-key');
    expect(await page.getByTestId('action-error').count()).toBe(0);
  });

  it('deletes a run after a confirmation', async () => {
    // The tabs take the arrow keys: from Compose, Left wraps round to Activity, then Deploys.
    await page.getByRole('tab', { name: 'Compose' }).click();
    await eventually(() => page.url()).toContain('tab=compose');
    await page.getByRole('tab', { name: 'Compose' }).focus();
    await page.keyboard.press('ArrowLeft');
    await eventually(() => page.url()).toContain('tab=activity');
    await eventually(() => page.evaluate('document.activeElement.id')).toBe('tab-activity');
    await page.keyboard.press('ArrowLeft');
    await eventually(() => page.url()).toContain('tab=deploys');
    expect(await page.evaluate('document.activeElement.id')).toBe('tab-deploys');
    await eventually(() => page.locator('tr.run-row').count()).toBe(2);
    await page.getByRole('button', { name: 'Delete run 1' }).click();
    await page.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    await eventually(() => page.locator('tr.run-row').count()).toBe(1);
    expect(await page.locator('tr.run-row').getAttribute('data-run')).toBe('2');
    const gone = await server.as('admin').get('/api/stacks/web/deploys/1');
    expect(gone.status).toBe(404);
  });

  it('shows the stacks list with the last run and the tally', async () => {
    await page.getByRole('link', { name: 'All stacks' }).click();
    const row = page.locator('tr[data-stack="web"]');
    await row.waitFor();
    expect(await row.getByTestId('tally').textContent()).toBe('1 (1 / 0)');
  });

  it('refuses a bad reconcile cron with the server message, saves a good one and runs it now', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const cron = page.getByLabel('Cron expression');
    await eventually(() => cron.inputValue()).toBe('0 3 * * *');
    await cron.fill('61 * * * *');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await eventually(() => page.getByTestId('settings-error').textContent()).toMatch(
      /deployLogReconcileCron|minute/i,
    );
    await cron.fill('15 4 * * *');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await eventually(() => page.getByTestId('settings-message').textContent()).toBe('Settings saved.');
    const saved = await server.as('admin').get('/api/settings/general');
    expect((saved.value as { deployLogReconcileCron: string }).deployLogReconcileCron).toBe('15 4 * * *');
    await page.getByRole('button', { name: 'Run now' }).click();
    await eventually(() => page.getByTestId('settings-message').textContent()).toMatch(/^Reconcile success/);
    await eventually(() =>
      page.locator('[data-testid="executions"] tr[data-type="deploy_log_reconcile"]').count(),
    ).toBe(1);
  });

  it('returns to the sign-in page when the session ends, and back to the same address after it', async () => {
    await page.goto(`${base}/#/stack/web?env=null&tab=deploys`);
    await page.waitForSelector('tr.run-row');
    await browser.context.clearCookies();
    // The next call answers 401: the sign-in page, saying why, at the same address.
    // (A change from the live feed may make that call first; either way the page ends at the sign-in.)
    await page.evaluate("location.hash = '#/stack/web?env=null&tab=variables'");
    await page.getByLabel('Token').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('session ended');
    expect(page.url()).toContain('#/stack/web');
    await page.getByLabel('Token').fill(TOKENS.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('[data-testid="variables"]');
    expect(page.url()).toContain('#/stack/web?env=null&tab=variables');
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    const left = await browser.context.cookies(base);
    expect(left.find((c) => c.name === 'chronicle_session')).toBeUndefined();
  });

  it('shows a viewer no write action', async () => {
    const viewer = await openBrowser();
    try {
      await signIn(viewer.page, `${base}/#/stack/web?env=null&tab=deploys`, TOKENS.viewer);
      await viewer.page.waitForSelector('tr.run-row');
      expect(await viewer.page.getByTestId('read-only').count()).toBe(1);
      for (const name of [
        'Deploy',
        'Start',
        'Stop',
        'Restart',
        'Down',
        'Delete…',
        'Save',
        'Save and redeploy',
      ])
        expect(await viewer.page.getByRole('button', { name, exact: true }).count()).toBe(0);
      expect(await viewer.page.getByRole('button', { name: /^Delete run/ }).count()).toBe(0);
      await viewer.page.getByRole('link', { name: 'Stacks', exact: true }).click();
      await viewer.page.locator('tr[data-stack="web"]').waitFor();
      expect(await viewer.page.getByRole('button', { name: 'New stack' }).count()).toBe(0);
    } finally {
      await viewer.close();
    }
  });

  it('shows what the server refuses: a deploy while a job runs', async () => {
    const admin = server.as('admin');
    await createStackDone(admin, 'slow', null, { compose: composeText({ lines: ['a'] }) });
    await admin.put('/api/stacks/slow/compose?env=null', {
      content: composeText({ lines: ['a'], sleepMs: 3_000 }),
      restart: false,
    });
    // The page must not learn of the job before the click (it would disable Deploy, saying why): the
    // change feed is held back meanwhile, and the stack is read before the job starts.
    const feed = '**/api/events*';
    await page.route(feed, (route) => route.abort());
    try {
      await signIn(page, `${base}/#/stack/slow?env=null`, TOKENS.admin);
      const deploy = page.getByRole('toolbar', { name: 'Stack actions' }).getByRole('button', {
        name: 'Deploy',
        exact: true,
      });
      await deploy.waitFor();
      const ack = (await admin.post('/api/stacks/slow/deploy?env=null', {})).value as { jobId: string };
      await deploy.click();
      await eventually(() => page.getByTestId('action-error').textContent()).toContain(
        'Stack has a job running',
      );
      await waitJob(admin, ack.jobId);
    } finally {
      await page.unroute(feed);
    }
  });

  it('updates the list without a reload when a run starts elsewhere', async () => {
    await page.goto(`${base}/#/?env=null`);
    const row = page.locator('tr[data-stack="other"]');
    await page.locator('tr[data-stack="web"]').waitFor();
    expect(await row.count()).toBe(0);
    await createStackDone(server.as('admin'), 'other', null, { compose: composeText({ lines: ['o'] }) });
    await row.waitFor();
    await eventually(() => row.getByTestId('tally').textContent()).toBe('1 (1 / 0)');
    await page.screenshot({ path: join(SHOTS, 'stacks-list.png') });
  });

  it('renders only the visible lines of a long log, and reaches its last line', async () => {
    const admin = server.as('admin');
    await createStackDone(admin, 'long', null, { compose: composeText({ lines: ['row'], repeat: 20_000 }) });
    await page.goto(`${base}/#/stack/long?env=null&tab=deploys&run=`);
    await page
      .locator('tr.run-row')
      .first()
      .getByRole('button', { name: /show details/ })
      .click();
    await eventually(() => page.getByTestId('log-count').textContent()).toBe('20,000 lines');
    expect(await page.locator('[data-testid="log-lines"] .log-row').count()).toBeLessThan(200);
    await page.evaluate(
      "(() => { const el = document.querySelector('[data-testid=log-lines]'); el.scrollTop = el.scrollHeight; })()",
    );
    await eventually(() => page.locator('[data-testid="log-lines"] .log-row .ln').last().textContent()).toBe(
      '20000',
    );
    expect(await page.locator('[data-testid="log-lines"] .log-row').count()).toBeLessThan(200);
  });

  it('creates a git stack from a repository and shows its commit and webhook URL', async () => {
    const repo = await makeRepo(await tempDir(), { 'compose.yaml': composeText({ lines: ['from git'] }) });
    await page.goto(`${base}/#/git?env=null`);
    await page.getByLabel('Name').fill('gitweb');
    await page.getByLabel('Repository URL').fill(repo.bare);
    await page.getByLabel('Webhook secret').fill('hook-secret-1');
    await page.getByRole('button', { name: 'Create git stack' }).click();
    await eventually(() => page.getByTestId('job-state').textContent()).toContain('ok');
    expect(await page.locator('.out-status').allTextContents()).toContain('Running compose up');
    await eventually(() => page.getByTestId('git-commit').textContent()).toBe(repo.first);
    expect(await page.getByTestId('git-panel').textContent()).toContain(
      '/api/git-stacks/gitweb/webhook?env=null',
    );
    // Its settings: a bad cron is refused with the server's message, a good one is saved.
    await page.getByRole('button', { name: 'Edit git settings' }).click();
    await page.getByLabel('Auto-deploy cron').fill('not a cron');
    await page.getByRole('button', { name: 'Save git settings' }).click();
    await eventually(() => page.getByTestId('git-panel').getByRole('alert').textContent()).toMatch(/cron/i);
    await page.getByLabel('Auto-deploy cron').fill('0 5 * * *');
    await page.getByRole('button', { name: 'Save git settings' }).click();
    await eventually(() => page.getByTestId('git-panel').textContent()).toContain('Git settings saved.');
    const saved = await server.as('admin').get('/api/git-stacks/gitweb?env=null');
    expect((saved.value as { autoDeployCron: string }).autoDeployCron).toBe('0 5 * * *');
    // The list marks it as a git stack, with its branch.
    await page.getByRole('link', { name: 'Stacks', exact: true }).click();
    const chip = page.locator('tr[data-stack="gitweb"]').getByTestId('git-chip');
    await eventually(() => chip.textContent()).toBe('git: main');
    expect(await page.locator('tr[data-stack="web"]').getByTestId('git-chip').count()).toBe(0);
  });

  it('has no serious accessibility violation (axe-core) on the list and the stack page', async () => {
    const axe = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
    const checked = await openBrowser({ bypassCSP: true });
    try {
      const pages: Array<[string, string]> = [
        ['#/?env=null', 'tr[data-stack="web"]'],
        ['#/stack/web?env=null&tab=deploys', 'tr.run-row'],
        ['#/stack/web?env=null&tab=compose', '.cm-content'],
        ['#/settings?env=null', '[data-testid="executions"] tbody tr'],
        ['#/audit?env=null', '[data-testid="audit"] tbody tr'],
      ];
      await signIn(checked.page, `${base}/`, TOKENS.admin);
      for (const [address, ready] of pages) {
        await checked.page.goto(`${base}/${address}`);
        await checked.page.waitForSelector(ready);
        await checked.page.addScriptTag({ path: axe });
        const violations = (await checked.page.evaluate(
          "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))",
        )) as string[];
        expect(violations, address).toEqual([]);
      }
    } finally {
      await checked.close();
    }
  });

  it('runs Stop and Start as jobs with their output, and follows a live run in its log viewer', async () => {
    const admin = server.as('admin');
    await admin.put('/api/stacks/other/compose?env=null', {
      content: composeText({ lines: ['l1', 'l2', 'l3', 'l4', 'l5'], perLineMs: 400 }),
      restart: false,
    });
    await page.goto(`${base}/#/stack/other?env=null&tab=deploys`);
    await page.locator('tr.run-row').first().waitFor();
    for (const operation of ['Stop', 'Start']) {
      const before = page.url();
      await page.getByRole('button', { name: operation, exact: true }).click();
      await eventually(() => page.url()).not.toBe(before);
      await eventually(() => page.getByTestId('job-state').textContent()).toContain('ok');
    }
    // Start and stop record no run.
    expect(await page.locator('tr.run-row').count()).toBe(1);
    const ack = (await admin.post('/api/stacks/other/deploy?env=null', {})).value as {
      runId: number;
      jobId: string;
    };
    const row = page.locator(`tr.run-row[data-run="${ack.runId}"]`);
    await eventually(() => row.getAttribute('data-status')).toBe('running');
    // No delete while it runs.
    expect(await row.getByRole('button', { name: /^Delete run/ }).count()).toBe(0);
    await row.getByRole('button', { name: /show details/ }).click();
    await eventually(() => page.locator('[data-testid="log-lines"] .log-row .lt').first().textContent()).toBe(
      'l1',
    );
    await eventually(() => row.getAttribute('data-status')).toBe('success');
    await eventually(() => page.locator('[data-testid="log-lines"] .log-row .lt').allTextContents()).toEqual([
      'l1',
      'l2',
      'l3',
      'l4',
      'l5',
    ]);
  });

  it('never stops a deploy when its page is closed', async () => {
    const admin = server.as('admin');
    const other = await openBrowser();
    try {
      await signIn(other.page, `${base}/#/stack/other?env=null`, TOKENS.admin);
      await other.page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await other.page.waitForSelector('.out-line');
      const job = new URL(other.page.url().replace('#/', '')).searchParams.get('job');
      expect(job).toBeTruthy();
      await other.close();
      const done = await waitJob(admin, job ?? '');
      expect(done.result?.success).toBe(true);
      expect(done.messages.filter((m) => m.type === 'line').map((m) => m.line)).toEqual([
        'l1',
        'l2',
        'l3',
        'l4',
        'l5',
      ]);
    } finally {
      await other.close().catch(() => undefined);
    }
  });
});
