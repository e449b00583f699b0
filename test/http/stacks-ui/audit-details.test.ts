/**
 * The audit page shows an entry's details as labelled lines (Chromium against the real CLI with the fake
 * compose): a deploy's run, trigger and the options it had, a variables change's added names — never
 * the raw JSON of the entry.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  composeText,
  createStackDone,
  deployDone,
  type StacksServer,
  startStacks,
  TOKENS,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: audit details on the page: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  const admin = server.as('admin');
  await createStackDone(admin, 'audited', null, { compose: composeText() });
  await deployDone(admin, 'audited', null, { build: true, pull: true });
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The details of the entries of `type`, newest first, each as its "label: text" lines. */
async function detailsOf(type: string): Promise<string[][]> {
  const rows = page.locator(`[data-testid="audit"] tbody tr[data-type="${type}"]`);
  await expect.poll(() => rows.count(), { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
  const all: string[][] = [];
  for (const row of await rows.all()) {
    const pairs = await row.getByTestId('audit-details').locator('div').all();
    const lines: string[] = [];
    for (const pair of pairs)
      lines.push(
        `${await pair.getByRole('term').textContent()}: ${await pair.getByRole('definition').textContent()}`,
      );
    all.push(lines);
  }
  return all;
}

describe.skipIf(chromiumMissing !== undefined)('audit details on the page', () => {
  it('shows a deploy and a stack creation as labelled lines, not JSON', async () => {
    await signIn(page, `http://127.0.0.1:${server.port}/#/audit?env=null`, TOKENS.admin);
    expect(await detailsOf('deploy.started')).toEqual([
      ['run: #2', 'trigger: manual', 'options: pull, build'],
      ['run: #1', 'trigger: manual', 'options: none'],
    ]);
    expect(await detailsOf('deploy.finished')).toContainEqual(['run: #2', 'status: success', 'exit code: 0']);
    expect(await detailsOf('stack.created')).toEqual([['variables: none']]);
    const text = await page.getByTestId('audit').textContent();
    expect(text).not.toContain('{');
    expect(text).not.toContain('"');
  });
});
