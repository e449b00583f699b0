/**
 * A running job on the stack page (Chromium against the real CLI with the fake compose): while a deploy
 * runs, the page says which (its run, who started it), every action that would wait for it is disabled
 * with that reason as its title, "Roll back to #N…" is not offered, and "Cancel deploy" stops it: the
 * run ends cancelled, and the actions come back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  composeText,
  createStackDone,
  deployDone,
  type StacksServer,
  saveCompose,
  startStacks,
  TOKENS,
  waitRun,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: cancel on the stack page: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;
let dir: string;

beforeAll(async () => {
  if (chromiumMissing) return;
  dir = await mkdtemp(join(tmpdir(), 'chronicle-ui-cancel-'));
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  const admin = server.as('admin');
  // A good run, then a failed one: "Roll back to #1…" is offered.
  await createStackDone(admin, 'held', null, { compose: composeText() });
  await saveCompose(admin, 'held', null, composeText({ up: { stderr: ['no such image'], exit: 1 } }));
  await deployDone(admin, 'held', null);
  // The next deploy waits at a gate no one opens: it runs until it is cancelled.
  const gate = join(dir, 'never');
  await saveCompose(
    admin,
    'held',
    null,
    composeText({ up: { lines: ['Pulling web', 'never printed'], gate: { afterLines: 1, file: gate } } }),
  );
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 50 });
const toolbar = () => page.getByRole('toolbar', { name: 'Stack actions' });
const ACTIONS = ['Deploy', 'Start', 'Stop', 'Restart', 'Down', 'Delete…'];

describe.skipIf(chromiumMissing !== undefined)('a running job on the stack page', () => {
  it('says which job runs, disables what would wait (saying why), and Cancel stops it', async () => {
    await signIn(page, `${base}/#/stack/held?env=null&tab=deploys`, TOKENS.admin);
    await toolbar().getByRole('button', { name: 'Roll back to #1…' }).waitFor();
    // (The deploys tab shows before the stack's own read answers; its actions wait for it.)
    for (const name of ACTIONS)
      await poll(() => toolbar().getByRole('button', { name, exact: true }).isDisabled()).toBe(false);

    await toolbar().getByRole('button', { name: 'Deploy', exact: true }).click();
    const reason = 'Deploy (run #3) is running, started by admin';
    await page.getByText(`${reason}.`).waitFor();
    for (const name of ACTIONS) {
      const button = toolbar().getByRole('button', { name, exact: true });
      await poll(() => button.isDisabled()).toBe(true);
      expect(await button.getAttribute('title'), name).toBe(reason);
    }
    // On the compose tab (hidden while the deploys show): disabled too.
    const redeploy = page.locator('#panel-compose button', { hasText: 'Save and redeploy' });
    expect(await redeploy.isDisabled()).toBe(true);
    expect(
      await toolbar()
        .getByRole('button', { name: /^Roll back/ })
        .count(),
    ).toBe(0);
    await page.getByRole('button', { name: 'Redeploy run 1' }).waitFor();
    expect(await page.getByRole('button', { name: 'Redeploy run 1' }).isDisabled()).toBe(true);

    await page.getByRole('button', { name: 'Cancel deploy' }).click();
    const run = await waitRun(server.as('admin'), 'held', 3);
    expect(run).toMatchObject({ status: 'cancelled', details: { cancelledBy: 'admin' } });
    // The job has ended: the reason goes, the actions come back, and the run reads cancelled.
    await poll(() => page.getByTestId('job-running').count()).toBe(0);
    for (const name of ACTIONS)
      await poll(() => toolbar().getByRole('button', { name, exact: true }).isDisabled()).toBe(false);
    await toolbar().getByRole('button', { name: 'Roll back to #1…' }).waitFor();
    await page.locator('tr.run-row[data-run="3"][data-status="cancelled"]').waitFor();
    await page.getByText('Cancelled by admin; compose was stopped').first().waitFor();
  });
});
