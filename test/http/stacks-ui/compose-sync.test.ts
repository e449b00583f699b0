/**
 * The compose editor against the server's file, in Chromium against the real CLI (fake compose), with a
 * 6× CPU throttle (Chromium's `Emulation.setCPUThrottlingRate`): after Roll back or an automatic
 * rollback the editor shows what the server holds, so Save cannot write the failed text back; two
 * browser contexts on one stack: a tab with no unsaved change follows the other's save, a tab with
 * unsaved changes says the file changed on the server (the difference, a choice), and its Save is
 * refused (409 `compose_changed`) until the person chose.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: stacks compose sync tests: ${chromiumMissing}`);

const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000, interval: 100 });

let server: StacksServer;
const browsers: Browser[] = [];
let base: string;

/** A browser of its own (its own cookies: another person, or another tab's session), throttled 6×. */
async function throttledPage(): Promise<Page> {
  const browser = await openBrowser();
  browsers.push(browser);
  const cdp = await browser.context.newCDPSession(browser.page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 6 });
  return browser.page;
}

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  for (const b of browsers) await b.close();
  await server?.stop();
});

/** The editor's text as the person sees it (the files are short: every line is on screen). */
const editorText = (page: Page) =>
  page.evaluate(
    "[...document.querySelectorAll('[data-testid=compose-editor] .cm-line')].map((l) => l.textContent).join('\\n')",
  ) as Promise<string>;

const stored = async (name: string) =>
  ((await server.as('admin').get(`/api/stacks/${name}?env=null`)).value as { compose: string }).compose;

async function typeAtEnd(page: Page, text: string): Promise<void> {
  await page.getByTestId('compose-editor').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text, { delay: 5 });
}

const open = (page: Page, name: string) =>
  signIn(page, `${base}/#/stack/${name}?env=null&tab=compose`, TOKENS.admin);
const jobState = (page: Page) => page.getByTestId('job-state').textContent();

describe.skipIf(chromiumMissing !== undefined)('the compose editor follows the server', () => {
  it('after Roll back the editor shows the good file, and Save keeps it', async () => {
    // No x-fake line: the fake compose prints what compose would and exits 0.
    const good = composeText();
    await createStackDone(server.as('admin'), 'rollme', null, { compose: good });
    const page = await throttledPage();
    await open(page, 'rollme');
    await eventually(() => editorText(page)).toBe(good);
    // The typo: a deploy of it fails (the fake compose exits 1).
    await typeAtEnd(page, 'x-fake: {"exit": 1}');
    await eventually(() => editorText(page)).toBe(`${good}x-fake: {"exit": 1}`);
    await page.getByRole('button', { name: 'Save and redeploy' }).click();
    await eventually(() => jobState(page)).toContain('failed');
    await page.getByRole('button', { name: /Roll back to #1/ }).click();
    await page
      .getByRole('group', { name: 'Confirm roll back' })
      .getByRole('button', { name: 'Roll back' })
      .click();
    await eventually(() => stored('rollme')).toBe(good);
    // The editor had no unsaved change: it shows the server's file again.
    await eventually(() => editorText(page)).toBe(good);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    expect(await stored('rollme')).toBe(good);
  });

  it('after an automatic rollback the Output panel says so and links the rollback run', async () => {
    const good = composeText();
    const { runId: goodRun } = await createStackDone(server.as('admin'), 'autoroll', null, { compose: good });
    const settings = await server.as('admin').put('/api/stacks/autoroll/history-settings?env=null', {
      autoRollback: true,
    });
    expect(settings.status).toBe(200);
    const page = await throttledPage();
    await open(page, 'autoroll');
    await eventually(() => editorText(page)).toBe(good);
    await typeAtEnd(page, 'x-fake: {"exit": 3}');
    await eventually(() => editorText(page)).toBe(`${good}x-fake: {"exit": 3}`);
    await page.getByRole('button', { name: 'Save and redeploy' }).click();
    const notice = page.getByTestId('rollback-notice');
    await eventually(() => notice.textContent()).toMatch(
      new RegExp(`failed; the stack's automatic rollback deployed run #${goodRun} again as run #\\d+`),
    );
    const link = notice.getByRole('link', { name: /^run #\d+$/ });
    const rollbackRun = Number((await link.textContent())?.replace('run #', ''));
    expect(await link.getAttribute('href')).toBe(`#/stack/autoroll?env=null&tab=deploys&run=${rollbackRun}`);
    await eventually(() => stored('autoroll')).toBe(good);
    await eventually(() => editorText(page)).toBe(good);
    await notice.getByRole('button', { name: 'Show its output' }).click();
    await eventually(() => jobState(page)).toContain('ok');
  });

  it('two browsers on one stack: no save is silently lost', async () => {
    const start = composeText({ lines: ['shared'] });
    await createStackDone(server.as('admin'), 'shared', null, { compose: start });
    const one = await throttledPage();
    const two = await throttledPage();
    await open(one, 'shared');
    await open(two, 'shared');
    await eventually(() => editorText(two)).toBe(start);

    // One saves; two has no unsaved change and follows.
    await typeAtEnd(one, '# from one');
    await one.getByRole('button', { name: 'Save', exact: true }).click();
    const afterOne = `${start}# from one`;
    await eventually(() => stored('shared')).toBe(afterOne);
    await eventually(() => editorText(two)).toBe(afterOne);

    // Two types; one saves again: two says the file changed on the server, with the difference.
    await typeAtEnd(two, '\n# from two');
    await typeAtEnd(one, '\n# one again');
    await one.getByRole('button', { name: 'Save', exact: true }).click();
    const afterOneAgain = `${afterOne}\n# one again`;
    await eventually(() => stored('shared')).toBe(afterOneAgain);
    const change = two.getByRole('region', { name: 'Changed on the server' });
    await eventually(() => change.count()).toBe(1);
    await eventually(() => change.getByTestId('server-diff').textContent()).toContain('+ # one again');
    expect(await change.getByTestId('server-diff').textContent()).toContain('− # from two');
    expect(await editorText(two)).toBe(`${afterOne}\n# from two`);

    // Save before choosing: refused, nothing overwritten.
    await two.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => two.getByTestId('action-error').textContent()).toContain(
      'Not saved: the compose file changed on the server',
    );
    expect(await stored('shared')).toBe(afterOneAgain);

    // Keep my text: the person saw the other version; Save now replaces it.
    await change.getByRole('button', { name: /Keep my text/ }).click();
    await two.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => stored('shared')).toBe(`${afterOne}\n# from two`);
    // And one, with no unsaved change, follows that.
    await eventually(() => editorText(one)).toBe(`${afterOne}\n# from two`);
  });

  it('Load the server’s version takes the server’s text into the editor', async () => {
    const one = browsers[browsers.length - 2]?.page;
    const two = browsers[browsers.length - 1]?.page;
    if (!one || !two) throw new Error('the two browsers of the test before');
    const now = await stored('shared');
    await typeAtEnd(two, '\n# dropped');
    await typeAtEnd(one, '\n# kept');
    await one.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => stored('shared')).toBe(`${now}\n# kept`);
    const change = two.getByRole('region', { name: 'Changed on the server' });
    await eventually(() => change.count()).toBe(1);
    await change.getByRole('button', { name: "Load the server's version" }).click();
    expect(await editorText(two)).toBe(`${now}\n# kept`);
    expect(await change.count()).toBe(0);
  });
});
