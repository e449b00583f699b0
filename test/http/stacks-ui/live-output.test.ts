/**
 * A job's live output in the run logs' virtualised viewer (Chromium against the real CLI with the fake
 * compose): a deploy printing 100,000 lines keeps a few dozen line elements in the page while it runs and
 * after it ended (the whole page stays small), and its last line is found by the viewer's search and
 * scrolled to.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  composeText,
  createStackDone,
  type StacksServer,
  saveCompose,
  startStacks,
  TOKENS,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: the live output's viewer: ${chromiumMissing}`);

const LINES = 100_000;
const LAST = 'the last line of the deploy';

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  const admin = server.as('admin');
  await createStackDone(admin, 'loud', null, { compose: composeText({ lines: ['up'] }) });
  await saveCompose(admin, 'loud', null, composeText({ up: { count: { lines: LINES }, lines: [LAST] } }));
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Line rows of the live output in the page, and every element of the page. */
const counts = async () =>
  (await page.evaluate(
    `[document.querySelectorAll('[data-testid="output-lines"] .log-row').length, document.getElementsByTagName('*').length]`,
  )) as [number, number];

describe.skipIf(chromiumMissing !== undefined)("the live output's viewer", () => {
  it('keeps few line elements of a 100,000-line output, and finds and shows its last line', async () => {
    await signIn(page, `${base}/#/stack/loud?env=null`, TOKENS.admin);
    await page
      .getByRole('toolbar', { name: 'Stack actions' })
      .getByRole('button', { name: 'Deploy', exact: true })
      .click();
    const output = page.getByRole('region', { name: 'Live output' });
    await output.getByTestId('output-lines').locator('.log-row').first().waitFor();

    // While the lines arrive, and once the job ended: each sample is small.
    let most = 0;
    let elements = 0;
    let samples = 0;
    for (;;) {
      const [rows, all] = await counts();
      most = Math.max(most, rows);
      elements = Math.max(elements, all);
      samples += 1;
      // One read a round: the job may end between two.
      const state = await output.getByTestId('job-state').innerText();
      if (state.includes('ok')) break;
      expect(state).toContain('running');
    }
    // The last lines may render a frame after the result.
    const counted = async () =>
      Number((await output.getByTestId('output-count').innerText()).replace(/\D/g, ''));
    await expect.poll(counted, { timeout: 30_000 }).toBeGreaterThan(LINES);
    const total = await output.getByTestId('output-count').innerText();
    const [rows, all] = await counts();
    console.log(
      `live output of ${total}: at most ${Math.max(most, rows)} line rows and ${Math.max(elements, all)} elements in the page (${samples} samples)`,
    );
    expect(Math.max(most, rows)).toBeGreaterThan(0);
    expect(Math.max(most, rows)).toBeLessThan(500);
    expect(Math.max(elements, all)).toBeLessThan(3_000);

    // It follows the end: the last line is in view without a search…
    const lines = output.getByTestId('output-lines');
    await lines.getByText(LAST).waitFor();
    // …and the search finds it from the top of the output too.
    await page.evaluate(`document.querySelector('[data-testid="output-lines"]').scrollTop = 0`);
    await lines.getByText('0', { exact: true }).waitFor();
    expect(await lines.getByText(LAST).count()).toBe(0);
    await output.getByTestId('output-search').fill(LAST);
    await output.getByTestId('output-matches').getByText('1 / 1').waitFor();
    await output.getByTestId('output-search').press('Enter');
    await lines.locator('mark', { hasText: LAST }).waitFor();
    expect((await counts())[0]).toBeLessThan(500);
  });
});
