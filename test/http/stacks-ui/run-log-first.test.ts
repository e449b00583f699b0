/**
 * A run's log opened by its address (the deploys tab with the run open), in Chromium against the real
 * CLI (fake compose): its lines are read beside the stack's own read, not after it — they show while
 * the stack's read (its compose file and the engine's status) has not answered.
 */
import { describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, TOKENS } from '../stacks/helpers.js';
import { chromiumMissing, pageOnStacks } from './browser.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
if (chromiumMissing) console.log(`skipped: a run's log opened by its address: ${chromiumMissing}`);

const LINES = 20_000;
const ui = pageOnStacks({
  prepare: async (server) => {
    await createStackDone(server.as('admin'), 'long', null, {
      compose: composeText({ up: { count: { lines: LINES } } }),
    });
  },
  signInAs: TOKENS.admin,
});

describe.skipIf(chromiumMissing !== undefined)("a run's log opened by its address", () => {
  it("shows its lines while the stack's own read is held", async () => {
    const { page, base } = ui;
    const isStackRead = (url: URL) => url.pathname === '/api/stacks/long';
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = false;
    await page.route(isStackRead, async (route) => {
      asked = true;
      await held;
      await route.continue();
    });
    await page.goto(`${base}/#/stack/long?env=null&tab=deploys&run=1`);
    const lines = page.getByTestId('log-lines');
    await page
      .getByTestId('log-count')
      .getByText(`${LINES.toLocaleString('en')} lines`)
      .waitFor();
    expect(await lines.locator('.log-row').count()).toBeGreaterThan(0);
    // The stack was asked for and has not answered yet.
    expect(asked).toBe(true);
    release();
    // Once it answers, the stack's actions may be used.
    const deployButton = page
      .getByRole('toolbar', { name: 'Stack actions' })
      .getByRole('button', { name: 'Deploy', exact: true });
    await expect.poll(() => deployButton.isEnabled(), { timeout: 60_000 }).toBe(true);
  });
});
