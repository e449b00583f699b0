/**
 * Chromium for the stacks web page tests: playwright-core driving Debian's /usr/bin/chromium (as the
 * editor viewer's tests do), one persistent profile per context, and the page's sign-in. Code run in
 * the page is given as text: this project's types have no DOM.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumMissing = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (Debian package chromium; .ci/run installs it)`;

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function openBrowser(
  options: { width?: number; height?: number; bypassCSP?: boolean } = {},
): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'chronicle-stacks-ui-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    // Only to inject axe-core into the page; the page itself never needs it.
    bypassCSP: options.bypassCSP ?? false,
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Opens `url` and signs in with `token` on the sign-in page; waits for the signed-in header. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForSelector('[data-testid="user"]');
}

/**
 * The serious and critical axe-core violations of the page as it is (a browser opened with
 * `bypassCSP`: axe is injected as a script), each as `rule: targets`.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const axe = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  await page.addScriptTag({ path: axe });
  return (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))",
  )) as string[];
}
