/**
 * The compose editor under a person's real typing, in Chromium against the real CLI (fake compose):
 * keys 0–10 ms apart, Ctrl+A, Delete and an immediate paste, and normal typing under a 6× CPU throttle
 * (Chromium's `Emulation.setCPUThrottlingRate` over CDP). CodeMirror owns the text: the page must never
 * write an older text back into it while the person types, and Save stores exactly what was typed.
 */
import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: stacks compose editor tests: ${chromiumMissing}`);

const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000, interval: 50 });

let server: StacksServer;
let browser: Browser;
let page: Page;
let cdp: CDPSession;
let base: string;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  await createStackDone(server.as('admin'), 'typed', null, { compose: composeText({ lines: ['up'] }) });
  browser = await openBrowser();
  page = browser.page;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  cdp = await browser.context.newCDPSession(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The editor's text as the person sees it: its lines (all of them are on screen, the file is short). */
const editorText = () =>
  page.evaluate(
    "[...document.querySelectorAll('[data-testid=compose-editor] .cm-line')].map((l) => l.textContent).join('\\n')",
  ) as Promise<string>;

const storedCompose = async () =>
  ((await server.as('admin').get('/api/stacks/typed?env=null')).value as { compose: string }).compose;

/** Puts the caret at the end of the editor's text. */
async function toEnd(): Promise<void> {
  await page.getByTestId('compose-editor').click();
  await page.keyboard.press('Control+End');
}

describe.skipIf(chromiumMissing !== undefined)('the compose editor', () => {
  it('keeps every key typed 0–10 ms apart, and Save stores exactly that text', async () => {
    await signIn(page, `${base}/#/stack/typed?env=null&tab=compose`, TOKENS.admin);
    await page.getByTestId('compose-editor').waitFor();
    const start = await editorText();
    expect(start).toContain('image: nginx:alpine');
    // The file ends with a newline: the caret goes to the empty last line.
    expect(start.endsWith('\n')).toBe(true);
    await toEnd();
    // Bursts as a fast typist (or a key held down) makes them: no pause, then 10 ms apart.
    await page.keyboard.type('# first burst typed with no pause at all', { delay: 0 });
    await page.keyboard.press('Enter');
    await page.keyboard.type('# second burst, ten ms apart', { delay: 10 });
    const expected = `${start}# first burst typed with no pause at all\n# second burst, ten ms apart`;
    await eventually(editorText).toBe(expected);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    expect(await storedCompose()).toBe(expected);
  });

  it('takes Ctrl+A, Delete and an immediate paste under a 6× CPU throttle', async () => {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 6 });
    try {
      const pasted = composeText({ lines: ['pasted'] }, ['api', 'db']);
      await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(pasted)})`);
      await page.getByTestId('compose-editor').click();
      await page.keyboard.press('Control+a');
      await page.keyboard.press('Delete');
      await page.keyboard.press('Control+v');
      await eventually(editorText).toBe(pasted.replace(/\n$/, '\n'));
      // Typing on at once, fast: nothing of it is undone by an older text coming back.
      await page.keyboard.press('Control+End');
      await page.keyboard.type('# after the paste', { delay: 0 });
      const expected = `${pasted}# after the paste`;
      await eventually(editorText).toBe(expected);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await eventually(storedCompose).toBe(expected);
    } finally {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    }
  });

  it('keeps normal typing (150 ms a key) under a 6× CPU throttle', async () => {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 6 });
    try {
      const start = await editorText();
      await toEnd();
      await page.keyboard.press('Enter');
      await page.keyboard.type('# slow and steady', { delay: 150 });
      const expected = `${start}\n# slow and steady`;
      await eventually(editorText).toBe(expected);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await eventually(storedCompose).toBe(expected);
    } finally {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    }
  });
});
