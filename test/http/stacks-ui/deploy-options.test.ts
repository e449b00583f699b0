/**
 * A stack's deploy options are remembered per stack (Chromium against the real CLI with the fake
 * compose): set on one stack's page they are still set after a reload and go with its Deploy; another
 * stack's page keeps its own.
 */
import { describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, TOKENS, waitRun } from '../stacks/helpers.js';
import { chromiumMissing, pageOnStacks, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: deploy options per stack: ${chromiumMissing}`);

const ui = pageOnStacks({
  prepare: async (server) => {
    for (const name of ['built', 'plain'])
      await createStackDone(server.as('admin'), name, null, { compose: composeText() });
  },
});

const checked = async () => {
  const options = ui.page.getByRole('group', { name: 'Deploy options' });
  return {
    pull: await options.getByLabel('Pull images').isChecked(),
    build: await options.getByLabel('Build images').isChecked(),
    forceRecreate: await options.getByLabel('Force recreate').isChecked(),
  };
};

describe.skipIf(chromiumMissing !== undefined)('deploy options per stack', () => {
  it('keeps the options set on a stack across a reload, sends them, and leaves other stacks alone', async () => {
    await signIn(ui.page, `${ui.base}/#/stack/built?env=null&tab=deploys`, TOKENS.admin);
    await ui.page.getByLabel('Build images').check();
    await ui.page.getByLabel('Pull images').check();
    await ui.page.reload();
    await ui.page.getByLabel('Build images').waitFor();
    expect(await checked()).toEqual({ pull: true, build: true, forceRecreate: false });

    await ui.page.getByRole('button', { name: 'Deploy', exact: true }).click();
    const rows = ui.page.locator('tr.run-row');
    await expect.poll(() => rows.count(), { timeout: 30_000, interval: 50 }).toBe(2);
    const newest = Number(await rows.first().getAttribute('data-run'));
    const run = await waitRun(ui.server.as('admin'), 'built', newest);
    expect((run.details as { options: unknown }).options).toEqual({
      pull: true,
      build: true,
      forceRecreate: false,
    });

    await ui.page.goto(`${ui.base}/#/stack/plain?env=null&tab=deploys`);
    await ui.page.getByLabel('Build images').waitFor();
    expect(await checked()).toEqual({ pull: false, build: false, forceRecreate: false });
    // Unchecking is remembered too.
    await ui.page.goto(`${ui.base}/#/stack/built?env=null&tab=deploys`);
    await ui.page.getByLabel('Pull images').uncheck();
    await ui.page.reload();
    await ui.page.getByLabel('Build images').waitFor();
    expect(await checked()).toEqual({ pull: false, build: true, forceRecreate: false });
  });
});
