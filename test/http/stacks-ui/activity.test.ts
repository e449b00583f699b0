/**
 * The stack's Activity tab (Chromium against the real CLI with the fake compose): Stop, then Start from
 * the toolbar; the Activity tab lists both, newest first, with who, their status and exit code; opening
 * one shows the lines its compose printed in the run logs' viewer (search included), with no serious
 * axe-core violation. The deploys tab does not list them.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { axeViolations, type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: the Activity tab: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  await createStackDone(server.as('admin'), 'act', null, {
    compose: composeText({
      up: { lines: ['up'] },
      stop: { lines: [' Container act-web-1  Stopping', ' Container act-web-1  Stopped'] },
      start: { lines: [' Container act-web-1  Starting', ' Container act-web-1  Started'] },
    }),
  });
  // bypassCSP: only to inject axe-core.
  browser = await openBrowser({ bypassCSP: true });
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const toolbar = () => page.getByRole('toolbar', { name: 'Stack actions' });

/** Clicks an action of the toolbar and waits for its job's output to say it ended well. */
async function runAction(name: string, lastLine: string): Promise<void> {
  await toolbar().getByRole('button', { name, exact: true }).click();
  const output = page.getByRole('region', { name: 'Live output' });
  await output.getByText(lastLine).waitFor();
  await output.getByTestId('job-state').getByText('ok').waitFor();
}

describe.skipIf(chromiumMissing !== undefined)('the Activity tab', () => {
  it('lists Stop and Start with who, status and exit code, and opens their output in the log viewer', async () => {
    await signIn(page, `${base}/#/stack/act?env=null`, TOKENS.admin);
    await page.getByRole('tab', { name: 'Activity' }).click();
    await page.getByText('No Start, Stop, Restart or Down of this stack yet.').waitFor();

    await runAction('Stop', 'Container act-web-1  Stopped');
    await runAction('Start', 'Container act-web-1  Started');

    const table = page.getByTestId('activity');
    const rows = table.locator('tbody tr.run-row');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(2);
    // Newest first: Start, then Stop; both by admin, success, exit code 0.
    const cells = async (i: number) =>
      (await rows.nth(i).locator('td').allInnerTexts()).map((t) => t.trim().replace(/\s+/g, ' '));
    const start = await cells(0);
    const stop = await cells(1);
    expect([start[1], start[2], start[5]]).toEqual(['Start', 'admin', '0']);
    expect([stop[1], stop[2], stop[5]]).toEqual(['Stop', 'admin', '0']);
    expect(start[0]).toContain('success');
    expect(stop[0]).toContain('success');

    // The Stop's output, in the log viewer (line numbers, search).
    await page.getByRole('button', { name: /^Stop .*: success, show output$/ }).click();
    const log = page.getByLabel(/^Output of Stop/);
    await log.getByText('Container act-web-1  Stopping').waitFor();
    await log.getByText('Container act-web-1  Stopped').waitFor();
    const viewer = page.getByTestId('log-viewer');
    await viewer.getByText('2 lines').waitFor();
    await viewer.getByLabel('Search').fill('Stopped');
    await viewer.getByText('1 / 1').waitFor();
    expect(await viewer.locator('mark').innerText()).toBe('Stopped');
    expect(await axeViolations(page)).toEqual([]);

    // Jobs, not deploys: the deploys tab holds the create's run only.
    await page.getByRole('tab', { name: /^Deploys/ }).click();
    await page.getByRole('tab', { name: 'Deploys (1)' }).waitFor();
  });
});
