/**
 * The stack page says, when variables are saved, which values are too short to replace and how many
 * lines of the last run each withholds (Chromium, against the real CLI with the fake compose).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: short values on the page: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  await createStackDone(server.as('admin'), 'tagged', null, { compose: composeText() });
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.skipIf(chromiumMissing !== undefined)('a short value saved on the page', () => {
  it('the page says the value withholds lines, and how many of the last run', async () => {
    await signIn(page, `http://127.0.0.1:${server.port}/#/stack/tagged?env=null&tab=variables`, TOKENS.admin);
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable 1 name').fill('TAG');
    await page.getByLabel('Variable 1 value').fill('1');
    await page.getByRole('button', { name: 'Save variables' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Variables saved.' });
    await expect.poll(() => status.count(), { timeout: 30_000, interval: 50 }).toBe(1);
    expect(await status.textContent()).toContain(
      "TAG's value has 1 character, too few to replace with ***: every output line holding it is withheld from the job, the log and errors (4 of the 6 lines of the stack's last run hold it)",
    );
  });
});
