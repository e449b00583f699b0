/**
 * Deploy history in the stacks web page (docs/stacks.md#the-web-page), in Chromium against the real CLI with the
 * fake compose: the diff of two runs, a redeploy of run 1 (its new run says "redeploy of #1"), the history
 * settings, a test notification to a local HTTP receiver listed among the deliveries, and the audit page
 * for an admin (absent for a viewer). Screenshots of the diff and the audit page go to docs/.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../../cli/helpers.js';
import {
  composeText,
  createStackDone,
  type StacksServer,
  stacksConfig,
  startStacks,
  TOKENS,
  waitRun,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: stacks web page history tests: ${chromiumMissing}`);

const SHOTS = join(repoRoot, 'docs');
const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 50 });

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;
let receiver: Server;
/** The bodies the receiver got, in order. */
const received: string[] = [];

beforeAll(async () => {
  if (chromiumMissing) return;
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push(body);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  server = await startStacks({
    config: stacksConfig({
      notifications: [
        { name: 'hook', type: 'webhook', url: `http://127.0.0.1:${port}/hook`, events: ['reconcile.failed'] },
      ],
    }),
  });
  base = `http://127.0.0.1:${server.port}`;
  const admin = server.as('admin');
  // Run 1 and run 2 deploy different compose texts and variables.
  await createStackDone(admin, 'web', null, {
    compose: composeText({ lines: ['one'] }),
    variables: [
      { name: 'MODE', value: 'blue', secret: false },
      { name: 'API_KEY', value: 'first-secret-value', secret: true },
    ],
  });
  await admin.put('/api/stacks/web/variables?env=null', {
    variables: [
      { name: 'MODE', value: 'green', secret: false },
      { name: 'API_KEY', value: 'second-secret-value', secret: true },
    ],
  });
  await admin.put('/api/stacks/web/compose?env=null', {
    content: composeText({ lines: ['two'] }),
    restart: false,
  });
  const second = await admin.post('/api/stacks/web/deploy?env=null', { pull: true });
  await waitRun(admin, 'web', (second.value as { runId: number }).runId);
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, `${base}/#/stack/web?env=null&tab=deploys`, TOKENS.admin);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe.skipIf(chromiumMissing !== undefined)('stacks web page: deploy history', () => {
  it('shows the diff of two runs: the compose lines coloured, variables by name, options', async () => {
    await eventually(() => page.locator('tr.run-row').count()).toBe(2);
    await page.getByLabel('From run').selectOption('1');
    await page.getByLabel('To run').selectOption('2');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const compose = page.getByTestId('diff-compose');
    await compose.waitFor();
    expect(await compose.locator('.diff-del').allTextContents()).toEqual(['-x-fake: {"lines":["one"]}']);
    expect(await compose.locator('.diff-add').allTextContents()).toEqual(['+x-fake: {"lines":["two"]}']);
    const variables = await page.getByTestId('diff-variables').textContent();
    expect(variables).toContain('MODE blue → green');
    expect(variables).toContain('API_KEY changed');
    expect(await page.content()).not.toContain('second-secret-value');
    expect(await page.getByTestId('diff-options').textContent()).toBe('pull off → on');
    await page.screenshot({ path: join(SHOTS, 'stacks-diff.png'), fullPage: true });
  });

  it('shows what a run deployed, its secret by name only', async () => {
    const row = page.locator('tr.run-row[data-run="1"]');
    await row.getByRole('button', { name: /show details/ }).click();
    await page.getByRole('button', { name: 'What run #1 deployed' }).click();
    const content = page.getByTestId('run-content');
    await content.waitFor();
    expect(await content.textContent()).toContain('"lines":["one"]');
    expect(await content.textContent()).toContain('MODE = blue');
    expect(await content.textContent()).toContain('API_KEY secret');
    expect(await page.content()).not.toContain('first-secret-value');
  });

  it('redeploys run 1 after a confirmation: a new run says "redeploy of #1"', async () => {
    await page.getByRole('button', { name: 'Redeploy run 1' }).click();
    await page
      .getByRole('group', { name: 'Confirm redeploy' })
      .getByRole('button', { name: 'Redeploy' })
      .click();
    await eventually(() => page.getByTestId('job-state').textContent()).toContain('ok');
    const third = page.locator('tr.run-row[data-run="3"]');
    await eventually(() => third.getAttribute('data-status')).toBe('success');
    expect(await third.getByTestId('run-origin').textContent()).toBe('redeploy of #1');
    const stored = await server.as('admin').get('/api/stacks/web/deploys/3/compose');
    expect((stored.value as { compose: string }).compose).toContain('"lines":["one"]');
  });

  it('rolls back to the last successful run after a confirmation', async () => {
    const admin = server.as('admin');
    await admin.put('/api/stacks/web/compose?env=null', {
      content: composeText({ lines: ['bad'], exit: 1 }),
      restart: false,
    });
    const failed = await admin.post('/api/stacks/web/deploy?env=null', {});
    await waitRun(admin, 'web', (failed.value as { runId: number }).runId);
    await page.getByRole('button', { name: 'Roll back to #3…' }).click();
    await page
      .getByRole('group', { name: 'Confirm roll back' })
      .getByRole('button', { name: 'Roll back' })
      .click();
    const fifth = page.locator('tr.run-row[data-run="5"]');
    await eventually(() => fifth.getAttribute('data-status')).toBe('success');
    expect(await fifth.getByTestId('run-origin').textContent()).toBe('redeploy of #3');
  });

  it("saves the stack's history settings and shows the server's refusal", async () => {
    const form = page.getByTestId('history-settings');
    await form.getByLabel('Keep runs').fill('0');
    await form.getByRole('button', { name: 'Save history settings' }).click();
    await eventually(() => page.getByTestId('history-settings-error').textContent()).toContain(
      'keepRuns must be an integer from 1',
    );
    await form.getByLabel('Keep runs').fill('20');
    await form.getByLabel(/Auto-rollback/).check();
    await form.getByRole('button', { name: 'Save history settings' }).click();
    await eventually(() => form.getByRole('status').textContent()).toBe('History settings saved.');
    const saved = await server.as('admin').get('/api/stacks/web/history-settings?env=null');
    expect(saved.value).toEqual({ autoRollback: true, keepRuns: 20, keepDays: null });
  });

  it('shows an automatic rollback with the run it rolled back', async () => {
    const admin = server.as('admin');
    await admin.put('/api/stacks/web/compose?env=null', {
      content: composeText({ lines: ['bad again'], exit: 1 }),
      restart: false,
    });
    const failed = await admin.post('/api/stacks/web/deploy?env=null', {});
    expect((failed.value as { runId: number }).runId).toBe(6);
    const seventh = page.locator('tr.run-row[data-run="7"]');
    await eventually(() => seventh.getAttribute('data-status')).toBe('success');
    expect(await seventh.getByTestId('run-origin').textContent()).toBe('rollback of #6 (redeploy of #5)');
    expect(await page.locator('tr.run-row[data-run="6"]').getAttribute('data-status')).toBe('failed');
  });

  it('lists the channels and sends a test notification to a local receiver, then lists the delivery', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const channel = page.locator('[data-testid="channels"] tr[data-channel="hook"]');
    await eventually(() => channel.count()).toBe(1);
    const cells = await channel.locator('td').allTextContents();
    expect(cells.slice(0, 5)).toEqual([
      'hook',
      'webhook',
      `127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      'reconcile.failed',
      'every stack',
    ]);
    // The URL's path is not shown: a webhook URL can be its own secret.
    expect(await page.getByTestId('channels').textContent()).not.toContain('/hook');
    await page.getByRole('button', { name: 'Send test to hook' }).click();
    await eventually(() => page.getByTestId('notification-message').textContent()).toBe(
      'Test sent to hook (HTTP 200).',
    );
    expect(received.length).toBe(1);
    const row = page.locator('[data-testid="deliveries"] tr[data-channel="hook"]');
    await eventually(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('delivered');
  });

  it('runs the retention now from the settings page', async () => {
    await page.getByRole('button', { name: 'Run retention now' }).click();
    await eventually(() => page.getByTestId('retention-message').textContent()).toMatch(
      /^Retention success: 0 runs deleted/,
    );
    await eventually(() =>
      page.locator('[data-testid="executions"] tr[data-type="deploy_run_retention"]').count(),
    ).toBe(1);
  });

  it("lists the session's actions on the audit page for an admin, filtered, with an NDJSON export", async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    const types = () =>
      page
        .locator('[data-testid="audit"] tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')));
    await eventually(types).toContain('stack.history_settings_changed');
    const all = await types();
    for (const type of ['stack.created', 'stack.variables_changed', 'stack.compose_saved', 'deploy.started'])
      expect(all).toContain(type);
    await page.screenshot({ path: join(SHOTS, 'stacks-audit.png') });
    await page.getByLabel('Type').fill('deploy.started');
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(types).toEqual(Array(7).fill('deploy.started'));
    const href = await page.getByTestId('audit-export').getAttribute('href');
    expect(href).toBe('/api/audit?type=deploy.started&format=ndjson');
    const exported = await server.as('admin').get(href ?? '');
    expect(exported.text.trim().split('\n')).toHaveLength(7);
  });

  it('shows a viewer no audit page and no history write action', async () => {
    const viewer = await openBrowser();
    try {
      await signIn(viewer.page, `${base}/#/stack/web?env=null&tab=deploys`, TOKENS.viewer);
      await viewer.page.waitForSelector('tr.run-row');
      expect(await viewer.page.getByRole('link', { name: 'Audit' }).count()).toBe(0);
      expect(await viewer.page.getByRole('button', { name: /^Redeploy run/ }).count()).toBe(0);
      expect(await viewer.page.getByRole('button', { name: /^Roll back/ }).count()).toBe(0);
      expect(await viewer.page.getByRole('button', { name: 'Save history settings' }).count()).toBe(0);
      // The viewer may still compare runs.
      expect(await viewer.page.getByRole('button', { name: 'Compare', exact: true }).count()).toBe(1);
      await viewer.page.goto(`${base}/#/audit?env=null`);
      await viewer.page.getByTestId('stacks').waitFor();
      expect(await viewer.page.getByTestId('audit').count()).toBe(0);
      await viewer.page.goto(`${base}/#/settings?env=null`);
      await viewer.page.getByTestId('executions').waitFor();
      expect(await viewer.page.getByRole('button', { name: 'Send test' }).count()).toBe(0);
    } finally {
      await viewer.close();
    }
  });
});
