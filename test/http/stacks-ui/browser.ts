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
import { afterAll, beforeAll } from 'vitest';
import { type StacksServer, startStacks } from '../stacks/helpers.js';

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

/** A server and a Chromium page on it, for the tests of one file (see `pageOnStacks`). */
export interface StacksPage {
  readonly server: StacksServer;
  readonly browser: Browser;
  readonly page: Page;
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
}

/**
 * Starts the real CLI (with the fake compose) and Chromium before the file's tests and stops both after
 * them: `prepare` sets up what the tests need through the API before the browser opens; `signInAs`, when
 * given, signs in at the page's root with that token. Nothing starts when Chromium is missing (the file's
 * tests skip). The fields are read once the hooks have run.
 */
export function pageOnStacks(
  setUp: { prepare?: (server: StacksServer) => Promise<void>; signInAs?: string } = {},
): StacksPage {
  let state: Omit<StacksPage, 'base'> | undefined;
  let server: StacksServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (chromiumMissing) return;
    server = await startStacks();
    await setUp.prepare?.(server);
    browser = await openBrowser();
    state = { server, browser, page: browser.page };
    if (setUp.signInAs !== undefined)
      await signIn(browser.page, `http://127.0.0.1:${server.port}/`, setUp.signInAs);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  const ready = () => {
    if (!state) throw new Error('the page is not open (a test ran before beforeAll, or Chromium is missing)');
    return state;
  };
  return {
    get server() {
      return ready().server;
    },
    get browser() {
      return ready().browser;
    },
    get page() {
      return ready().page;
    },
    get base() {
      return `http://127.0.0.1:${ready().server.port}`;
    },
  };
}
