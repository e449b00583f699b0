/**
 * The header's environment switcher marks where the signed-in user may change stacks (Chromium against
 * the real CLI with the fake compose): "(you may change)", "(view only)", and for the local environment
 * reached only by the global check (a grant of edit scoped to environment 1), that every edit grant
 * reaches it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: environment marks on the page: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  browser = await openBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The switcher's choices as the user reads them (without the engine's words, which vary). */
async function choices(token: string): Promise<string[]> {
  const page = browser.page;
  await page.context().clearCookies();
  await signIn(page, `http://127.0.0.1:${server.port}/`, token);
  const texts = await page.locator('header select option').allTextContents();
  return texts.map((t) => t.replace(/ · (Docker \S+|unreachable)/, ''));
}

describe.skipIf(chromiumMissing !== undefined)('environment marks in the switcher', () => {
  it('says where each user may change stacks, and why for the local environment', async () => {
    expect(await choices(TOKENS.admin)).toEqual([
      'local (you may change)',
      'edge (you may change)',
      'core (you may change)',
    ]);
    expect(await choices(TOKENS.editor1)).toEqual([
      'local (you may change: every edit grant reaches local)',
      'edge (you may change)',
    ]);
    expect(await choices(TOKENS.viewer1)).toEqual(['local (view only)', 'edge (view only)']);
  });
});
