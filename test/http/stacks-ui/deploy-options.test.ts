/**
 * A stack's deploy options are remembered per stack (Chromium against the real CLI with the fake
 * compose): set on one stack's page they are still set after a reload and go with its Deploy; another
 * stack's page keeps its own.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  composeText,
  createStackDone,
  type StacksServer,
  startStacks,
  TOKENS,
  waitRun,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: deploy options per stack: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  for (const name of ['built', 'plain'])
    await createStackDone(server.as('admin'), name, null, { compose: composeText() });
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const checked = async () => {
  const options = page.getByRole('group', { name: 'Deploy options' });
  return {
    pull: await options.getByLabel('Pull images').isChecked(),
    build: await options.getByLabel('Build images').isChecked(),
    forceRecreate: await options.getByLabel('Force recreate').isChecked(),
  };
};

describe.skipIf(chromiumMissing !== undefined)('deploy options per stack', () => {
  it('keeps the options set on a stack across a reload, sends them, and leaves other stacks alone', async () => {
    await signIn(page, `${base}/#/stack/built?env=null&tab=deploys`, TOKENS.admin);
    await page.getByLabel('Build images').check();
    await page.getByLabel('Pull images').check();
    await page.reload();
    await page.getByLabel('Build images').waitFor();
    expect(await checked()).toEqual({ pull: true, build: true, forceRecreate: false });

    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    const rows = page.locator('tr.run-row');
    await expect.poll(() => rows.count(), { timeout: 30_000, interval: 50 }).toBe(2);
    const newest = Number(await rows.first().getAttribute('data-run'));
    const run = await waitRun(server.as('admin'), 'built', newest);
    expect((run.details as { options: unknown }).options).toEqual({
      pull: true,
      build: true,
      forceRecreate: false,
    });

    await page.goto(`${base}/#/stack/plain?env=null&tab=deploys`);
    await page.getByLabel('Build images').waitFor();
    expect(await checked()).toEqual({ pull: false, build: false, forceRecreate: false });
    // Unchecking is remembered too.
    await page.goto(`${base}/#/stack/built?env=null&tab=deploys`);
    await page.getByLabel('Pull images').uncheck();
    await page.reload();
    await page.getByLabel('Build images').waitFor();
    expect(await checked()).toEqual({ pull: false, build: true, forceRecreate: false });
  });
});
