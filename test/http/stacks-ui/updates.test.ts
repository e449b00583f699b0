/**
 * Image updates on the stack page, in Chromium against the real CLI, a real Docker engine (both Compose
 * generations) and a real registry on loopback (test/registry-helpers.ts): a stack runs an image of the
 * registry; once a new image is pushed under its tag, "Check for updates" shows "Update available", and
 * "Update" (a deploy with pull, a recorded run) recreates the service on the new image. Skips, saying
 * why, without Chromium, an engine or the registry (a failure where CHRONICLE_TEST_DOCKER=required).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { repoRoot } from '../../cli/helpers.js';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  ensureTestImage,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import { dockerCli, type Registry, registryMissing, startRegistry } from '../../registry-helpers.js';
import {
  arrayOf,
  createStack,
  type StacksServer,
  startStacks,
  TOKENS,
  USERS,
  waitJob,
} from '../stacks/helpers.js';
import { axeViolations, type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 240_000 });
const missing =
  chromiumMissing ?? (process.env.CHRONICLE_TEST_DOCKER === 'required' ? undefined : registryMissing);
if (missing) console.log(`skipped: image updates on the stack page: ${missing}`);

const SHOTS = join(repoRoot, 'docs');
const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000, interval: 100 });

const describePage = missing
  ? (name: string, _body: (c: ComposeUnderTest) => void) => console.log(`skipped: ${name}`)
  : describeCompose;

describePage('image updates on the stack page', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`upd${compose.generation}`);
  const name = docker.stack('app');
  let registry: Registry;
  let server: StacksServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let image = '';
  let first = '';

  beforeAll(async () => {
    if (registryMissing) throw new Error(`CHRONICLE_TEST_DOCKER=required but ${registryMissing}`);
    await ensureTestImage();
    registry = await startRegistry();
    image = `${registry.host}/${docker.prefix}/app:1`;
    dockerCli('tag', TEST_IMAGE, image);
    dockerCli('push', image);
    first = (await engine.getImage(image).inspect()).Id;
    server = await startStacks({
      config: { users: [USERS.admin], compose: { command: compose.command } },
    });
    base = `http://127.0.0.1:${server.port}`;
    const admin = server.as('admin');
    const text = `services:\n  app:\n    image: ${image}\n    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]\n`;
    await waitJob(admin, (await createStack(admin, name, null, { compose: text })).jobId, 180_000);
    browser = await openBrowser({ bypassCSP: true });
    page = browser.page;
    await signIn(page, `${base}/`, TOKENS.admin);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await docker.cleanUp();
    for (const id of [image])
      await engine
        .getImage(id)
        .remove({ force: true })
        .catch(() => undefined);
    await registry?.stop();
  }, 120_000);

  const summary = () => page.getByTestId('updates-summary').textContent();
  const row = () =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'app', exact: true }) });

  it('says the image is up to date once checked', async () => {
    await page.goto(`${base}/#/stack/${name}?env=null`);
    await eventually(summary).toBe('Not checked yet');
    await page.getByRole('button', { name: 'Check for updates' }).click();
    await eventually(summary).toBe('Up to date');
    expect(await row().getByTestId('update-status').textContent()).toBe('Up to date');
  });

  it('shows "Update available" once a new image is pushed under the tag; Update recreates on it', async () => {
    // Another machine pushes a new image under the same tag: here, a commit of a container, pushed,
    // and the tag put back on the image this engine runs (it has not pulled it).
    const maker = `${docker.prefix}-maker`;
    try {
      dockerCli('run', '--network', 'none', '--name', maker, TEST_IMAGE, 'sh', '-c', 'echo 2 > /version');
      dockerCli('commit', maker, image);
    } finally {
      await engine
        .getContainer(maker)
        .remove({ force: true })
        .catch(() => undefined);
    }
    dockerCli('push', image);
    const second = (await engine.getImage(image).inspect()).Id;
    expect(second).not.toBe(first);
    dockerCli('tag', first, image);

    await page.getByRole('button', { name: 'Check for updates' }).click();
    await eventually(summary).toBe('1 update available');
    expect(await row().getByTestId('update-status').textContent()).toBe('Update available');
    expect(await axeViolations(page)).toEqual([]);
    if (compose.generation === 'v2') await page.screenshot({ path: join(SHOTS, 'stacks-updates.png') });

    await page.getByRole('button', { name: 'Update', exact: true }).click();
    // A recorded run, with pull.
    const runs = async () =>
      arrayOf(await server.as('admin').get(`/api/stacks/${name}/deploys?env=null`)).map((r) => [
        r.status,
        (r.details as { options: { pull: boolean } }).options.pull,
      ]);
    await eventually(runs).toEqual([
      ['success', true],
      ['success', false],
    ]);
    await eventually(summary).toBe('Up to date');
    const [container] = await docker.containers(name);
    expect(container?.ImageID).toBe(second);
    expect(container?.State).toBe('running');
  });
});
