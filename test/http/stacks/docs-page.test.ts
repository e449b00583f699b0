/**
 * The docs page in Chromium (playwright-core driving Debian's /usr/bin/chromium), as a person uses it:
 * it lists every operation of the document, every request it makes goes to the stacks server itself
 * (no CDN), and a route can be tried with the bearer token.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeStacks, type StacksServer, startStacks, TOKENS } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const missing = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (Debian package chromium; .ci/run installs it)`;
if (missing) console.log(`skipped: stacks docs page in a browser: ${missing}`);

describeStacks('the docs page in a browser', () => {
  let server: StacksServer;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const requested: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    if (missing) return;
    server = await startStacks();
    profile = await mkdtemp(join(tmpdir(), 'chronicle-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1200, height: 900 },
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
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`http://127.0.0.1:${server.port}/api/docs`);
    await page.waitForSelector('.opblock');
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it.skipIf(missing !== undefined)('shows every operation, loading nothing from another host', async () => {
    // One block per operation of the served document (the route table's and the deploy history's routes alike).
    const document = (await (await fetch(`http://127.0.0.1:${server.port}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.keys(item).filter((key) => methods.has(key)),
    );
    expect(operations.length).toBeGreaterThan(30);
    expect(await page.locator('.opblock').count()).toBe(operations.length);
    expect(await page.locator('.info .title').innerText()).toContain('chronicle stacks API');
    const origins = new Set(requested.map((url) => new URL(url).origin));
    expect([...origins]).toEqual([`http://127.0.0.1:${server.port}`]);
    expect(errors).toEqual([]);
  });

  it.skipIf(missing !== undefined)('tries a route with the bearer token', async () => {
    await page.click('button.authorize');
    await page.fill('.modal-ux input', TOKENS.admin);
    await page.click('.modal-ux button.authorize');
    await page.click('.modal-ux .btn-done');
    const operation = page.locator('#operations-settings_and_schedules-getSettings');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const answer = operation.locator('.live-responses-table .response .response-col_status').first();
    await answer.waitFor();
    expect((await answer.innerText()).trim()).toBe('200');
    const body = await operation.locator('.live-responses-table .microlight').first().innerText();
    expect(JSON.parse(body)).toEqual({
      deployLogReconcileCron: '0 3 * * *',
      deployLogReconcileEnabled: true,
      deployRunRetentionCron: '30 3 * * *',
      deployRunRetentionEnabled: true,
    });
  });
});
