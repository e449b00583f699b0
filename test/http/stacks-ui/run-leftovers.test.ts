/**
 * A run that removed containers an interrupted compose left renamed says so in its details on the
 * deploys tab, in Chromium against the real CLI: the fake compose deploys, the real engine holds the
 * leftover (made here as compose v2 leaves one: `<12 hex>_<project>-<service>-1`, with compose's labels).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DockerRun, describeDocker, engine, ensureTestImage, TEST_IMAGE } from '../../docker-helpers.js';
import { composeText, createStackDone, type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
if (chromiumMissing) console.log(`skipped: stacks run leftovers tests: ${chromiumMissing}`);

describeDocker('the run details of a deploy that removed renamed leftovers', () => {
  const docker = new DockerRun('uileft');
  let server: StacksServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (chromiumMissing) return;
    await ensureTestImage();
    server = await startStacks();
    browser = await openBrowser();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await docker.cleanUp();
  });

  it.skipIf(chromiumMissing !== undefined)('names the removed containers under "Cleaned up"', async () => {
    const name = docker.stack('web');
    const leftover = `0123456789ab_${name}-web-1`;
    await engine.createContainer({
      name: leftover,
      Image: TEST_IMAGE,
      Cmd: ['true'],
      Labels: { 'com.docker.compose.project': name, 'com.docker.compose.service': 'web' },
    });
    const { runId, job } = await createStackDone(server.as('admin'), name, null, {
      compose: composeText({ lines: [' Container web-1  Started'] }),
    });
    expect(job.result).toMatchObject({ success: true });
    expect(await docker.containers(name)).toEqual([]);
    await signIn(
      page,
      `http://127.0.0.1:${server.port}/#/stack/${name}?env=null&tab=deploys&run=${runId}`,
      TOKENS.admin,
    );
    const shown = page.getByTestId('leftovers-removed');
    await shown.waitFor();
    expect(await shown.textContent()).toBe(
      `${leftover}: left renamed by an interrupted compose, removed before compose up`,
    );
    const term = await page.evaluate(
      "document.querySelector('[data-testid=leftovers-removed]').previousElementSibling.textContent",
    );
    expect(term).toBe('Cleaned up');
  });
});
