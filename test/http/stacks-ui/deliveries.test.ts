/**
 * The settings page's deliveries name the stack and the run each tells of, as links (Chromium against
 * the real CLI with the fake compose and a local HTTP receiver): a run's delivery links its stack and
 * opens that run on the deploys tab; a test message names none.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  composeText,
  createStackDone,
  type StacksServer,
  stacksConfig,
  startStacks,
  TOKENS,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: deliveries on the page: ${chromiumMissing}`);

const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 50 });

let receiver: Server;
let server: StacksServer;
let browser: Browser;
let page: Page;
let runId: number;

beforeAll(async () => {
  if (chromiumMissing) return;
  receiver = createServer((_request, response) => response.writeHead(200).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  server = await startStacks({
    config: stacksConfig({
      notifications: [
        { name: 'hook', type: 'webhook', url: `http://127.0.0.1:${port}/hook`, events: ['run.succeeded'] },
      ],
    }),
  });
  runId = (await createStackDone(server.as('admin'), 'noted', null, { compose: composeText() }))
    .runId as number;
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe.skipIf(chromiumMissing !== undefined)('deliveries on the settings page', () => {
  it("a run's delivery names and links its stack and run; a test names none", async () => {
    await signIn(page, `http://127.0.0.1:${server.port}/#/settings?env=null`, TOKENS.admin);
    await page.getByRole('button', { name: 'Send test to hook' }).click();
    const rows = page.locator('[data-testid="deliveries"] tbody tr');
    await eventually(() => rows.count()).toBe(2);
    const test = page.locator('[data-testid="deliveries"] tr[data-event="test"]');
    expect(await test.getByTestId('delivery-stack').textContent()).toBe('—');
    expect(await test.getByTestId('delivery-run').textContent()).toBe('—');
    const run = page.locator('[data-testid="deliveries"] tr[data-event="run.succeeded"]');
    await eventually(() => run.locator('td').nth(4).textContent()).toBe('delivered');
    expect(await run.getByTestId('delivery-stack').textContent()).toBe('noted');
    await run.getByRole('link', { name: `Run ${runId} of noted` }).click();
    await page.waitForSelector(`tr.run-row.open[data-run="${runId}"]`);
    expect(page.url()).toContain('#/stack/noted?');
    expect(await page.getByRole('tab', { name: /^Deploys/ }).getAttribute('aria-selected')).toBe('true');
  });

  it('says where each channel started: nothing before it was notified', async () => {
    await page.goto(`http://127.0.0.1:${server.port}/#/settings?env=null`);
    const start = page.getByTestId('channel-starts').getByRole('listitem');
    await eventually(() => start.count()).toBe(1);
    expect(await start.textContent()).toMatch(
      /^hook started at position \d+ \(.+\): no notifications of events before it\.$/,
    );
  });
});
