/**
 * The confirmations of the stack page and its deploys tab (Chromium against the real CLI with the fake
 * compose), driven by the keyboard: opening one moves focus into it (to its Cancel), Escape or Cancel
 * closes it without acting, and focus goes back to the button that opened it.
 */
import { describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, deployDone, saveCompose, TOKENS } from '../stacks/helpers.js';
import { chromiumMissing, pageOnStacks, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: focus of the confirmations: ${chromiumMissing}`);

const ui = pageOnStacks({
  prepare: async (server) => {
    const admin = server.as('admin');
    // A good run, then a failed one: "Roll back to #1…" is offered.
    await createStackDone(admin, 'ask', null, { compose: composeText() });
    await saveCompose(admin, 'ask', null, composeText({ up: { stderr: ['no such image'], exit: 1 } }));
    await deployDone(admin, 'ask', null);
  },
});

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 50 });
/** The focused element: the confirmation it is in (if any) and its text. */
const focused = () =>
  ui.page.evaluate(
    "(() => { const el = document.activeElement; return (el.closest('[role=group]')?.getAttribute('aria-label') ?? '-') + ' | ' + (el.getAttribute('aria-label') ?? el.textContent.trim()); })()",
  );

describe.skipIf(chromiumMissing !== undefined)('the confirmations and the keyboard', () => {
  it('move focus in, cancel on Escape or Cancel, and give focus back to their button', async () => {
    await signIn(ui.page, `${ui.base}/#/stack/ask?env=null&tab=deploys`, TOKENS.admin);
    const toolbar = ui.page.getByRole('toolbar', { name: 'Stack actions' });

    // Delete the stack: Escape cancels, focus is back on "Delete…".
    await toolbar.getByRole('button', { name: 'Delete…' }).click();
    const deleteGroup = ui.page.getByRole('group', { name: 'Confirm stack delete' });
    await deleteGroup.waitFor();
    await poll(focused).toBe('Confirm stack delete | Cancel');
    await ui.page.keyboard.press('Escape');
    await poll(() => deleteGroup.count()).toBe(0);
    await poll(focused).toBe('- | Delete…');

    // Roll back, opened from the keyboard: Escape cancels it too.
    await toolbar.getByRole('button', { name: 'Roll back to #1…' }).focus();
    await ui.page.keyboard.press('Enter');
    await poll(focused).toBe('Confirm roll back | Cancel');
    await ui.page.keyboard.press('Escape');
    await poll(() => ui.page.getByRole('group', { name: 'Confirm roll back' }).count()).toBe(0);
    await poll(focused).toBe('- | Roll back to #1…');

    // A run's delete: Enter on the focused Cancel closes it, and focus is back on its button.
    await ui.page.getByRole('button', { name: 'Delete run 2' }).click();
    await poll(focused).toBe('Confirm delete | Cancel');
    await ui.page.keyboard.press('Enter');
    await poll(() => ui.page.getByRole('group', { name: 'Confirm delete' }).count()).toBe(0);
    await poll(focused).toBe('- | Delete run 2');

    // Nothing was done: the stack and both runs are there, no run was started.
    expect(await ui.page.locator('tr.run-row').count()).toBe(2);
    const runs = (await ui.server.as('admin').get('/api/stacks/ask/deploys?env=null')).value as unknown[];
    expect(runs).toHaveLength(2);
  });
});
