/**
 * Chromium for the ui benchmarks (bench/ui.ts, bench/ui-engine.ts): playwright-core driving Debian's
 * /usr/bin/chromium with a profile of its own, signed in with a session cookie.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export interface SignedIn {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Chromium with a profile of its own, signed in to the stacks surface at `base` with `token`. */
export async function openSignedIn(base: string, token: string): Promise<SignedIn> {
  const profile = await mkdtemp(join(tmpdir(), 'chronicle-bench-ui-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  const close = async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  };
  try {
    const signIn = await fetch(`${base}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    const session = /chronicle_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
    if (!session) throw new Error('no session cookie');
    await context.addCookies([{ name: 'chronicle_session', value: session, url: base }]);
    const page = context.pages()[0] ?? (await context.newPage());
    return { context, page, close };
  } catch (error) {
    await close();
    throw error;
  }
}
