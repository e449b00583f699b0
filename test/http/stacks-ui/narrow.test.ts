/**
 * The stacks web page on a 390 px wide screen (a phone), in Chromium against the real CLI with the fake
 * compose: the header's environment switcher and Sign out are on screen, nothing of a page reaches past
 * the screen's right edge (the stacks, deploys and other tables fit), and axe-core's colour-contrast
 * rule finds nothing (the header's words stay on its dark background when it wraps).
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: the stacks page at 390 px: ${chromiumMissing}`);

const WIDTH = 390;

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  const admin = server.as('admin');
  await createStackDone(admin, 'a-stack-with-a-rather-long-name', null, {
    compose: composeText({ lines: [' Container web-1  Created', ' Container web-1  Started'] }),
  });
  await createStackDone(admin, 'web', null, { compose: composeText() });
  browser = await openBrowser({ width: WIDTH, height: 844, bypassCSP: true });
  page = browser.page;
  await signIn(page, `${base}/`, TOKENS.admin);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The element's left and right edge on the screen. */
async function edges(selector: string): Promise<{ left: number; right: number }> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not on the page`);
  return { left: box.x, right: box.x + box.width };
}

/** The width the element takes when nothing squeezes it (a copy of it, out of the page's flow). */
const naturalWidth = (selector: string) =>
  page.evaluate(`(() => {
    const copy = document.querySelector(${JSON.stringify(selector)}).cloneNode(true);
    copy.style.cssText = 'position: absolute; width: auto; flex: none; max-width: none; min-width: 0';
    document.body.append(copy);
    const width = copy.getBoundingClientRect().width;
    copy.remove();
    return width;
  })()`) as Promise<number>;

/**
 * The elements whose right edge is past the screen's (each as tag.class), but for those inside a box
 * that scrolls or clips them within the screen.
 */
const pastTheEdge = () =>
  page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const inScrollBox = (el) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible' && p.getBoundingClientRect().right <= width + 0.5) return true;
      }
      return false;
    };
    return [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5 && el.getClientRects().length > 0 && !inScrollBox(el))
      .map((el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : ''));
  })()`) as Promise<string[]>;

async function contrastViolations(): Promise<string[]> {
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  return (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'rule', values: ['color-contrast'] } }).then((r) => r.violations.flatMap((v) => v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary)))",
  )) as string[];
}

describe.skipIf(chromiumMissing !== undefined)('the stacks page at 390 px', () => {
  const pages: Array<[string, string]> = [
    ['#/?env=null', 'tr[data-stack="web"]'],
    ['#/stack/a-stack-with-a-rather-long-name?env=null&tab=deploys', 'tr.run-row'],
    ['#/stack/a-stack-with-a-rather-long-name?env=null&tab=deploys&run=1', '.log-row'],
    ['#/stack/web?env=null&tab=compose', '.cm-content'],
    ['#/stack/web?env=null&tab=variables', '[data-testid="variables"]'],
    ['#/settings?env=null', '[data-testid="executions"] tbody tr'],
    ['#/audit?env=null', '[data-testid="audit"] tbody tr'],
  ];

  for (const [address, ready] of pages) {
    it(`${address}: the switcher and Sign out on screen, nothing past the edge, enough contrast`, async () => {
      await page.goto(`${base}/${address}`);
      await page.waitForSelector(ready);
      const switcher = await edges('header select');
      const signOut = await edges('header button:has-text("Sign out")');
      // The switcher is as wide as its choice's words, or the rest of its row when they are longer (not
      // squeezed down to its arrow).
      const room = (await page.evaluate(
        `(() => { const h = document.querySelector('header'); return h.getBoundingClientRect().right - parseFloat(getComputedStyle(h).paddingRight); })()`,
      )) as number;
      expect(switcher.right - switcher.left).toBeGreaterThanOrEqual(
        Math.min(await naturalWidth('header select'), room - switcher.left) - 0.5,
      );
      for (const box of [switcher, signOut]) {
        expect(box.left).toBeGreaterThanOrEqual(0);
        expect(box.right).toBeLessThanOrEqual(WIDTH);
      }
      expect(await pastTheEdge()).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTH);
      expect(await contrastViolations()).toEqual([]);
    });
  }

  it('the tables of stacks and of deploys fit the screen with every column readable', async () => {
    await page.goto(`${base}/#/?env=null`);
    await page.waitForSelector('tr[data-stack="web"]');
    expect((await edges('[data-testid="stacks"]')).right).toBeLessThanOrEqual(WIDTH);
    // Each cell of a row is on screen (an empty one is not shown).
    for (const cell of await page.locator('tr[data-stack="web"] > *:visible').all()) {
      const box = await cell.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= WIDTH).toBe(true);
    }
    await page.goto(`${base}/#/stack/a-stack-with-a-rather-long-name?env=null&tab=deploys`);
    await page.waitForSelector('tr.run-row');
    expect((await edges('[data-testid="runs"]')).right).toBeLessThanOrEqual(WIDTH);
    for (const cell of await page.locator('tr.run-row > *:visible').all()) {
      const box = await cell.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= WIDTH).toBe(true);
    }
  });
});
