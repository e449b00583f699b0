/**
 * Deleting a stack from the page, in Chromium against the real CLI on a real Docker engine (Compose
 * v2): a stack with containers offers "Stop and delete" (its containers and network removed, then the
 * stack) and "Delete, keep containers running" (the containers stay); one with none offers "Delete stack".
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DockerRun, describeDocker, engine, ensureTestImage, TEST_IMAGE } from '../../docker-helpers.js';
import { createStackDone, type StacksServer, startStacks, TOKENS, USERS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });
if (chromiumMissing) console.log(`skipped: stacks page delete tests: ${chromiumMissing}`);

const COMPOSE = [
  'services:',
  '  web:',
  `    image: ${TEST_IMAGE}`,
  `    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`,
  '',
].join('\n');

const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000, interval: 100 });

describeDocker('deleting a stack from the page (real engine)', () => {
  const docker = new DockerRun('uidel');
  let server: StacksServer;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    if (chromiumMissing) return;
    await ensureTestImage();
    server = await startStacks({
      config: { users: [USERS.admin], compose: { command: ['docker', 'compose'] } },
    });
    base = `http://127.0.0.1:${server.port}`;
    browser = await openBrowser();
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await docker.cleanUp();
  });

  const exists = async (name: string) =>
    (await server.as('admin').get(`/api/stacks/${name}?env=null`)).status;
  const networks = (name: string) =>
    engine.listNetworks({ filters: { label: [`com.docker.compose.project=${name}`] } });

  let signedIn = false;
  async function openStack(name: string): Promise<void> {
    if (!signedIn) await signIn(page, `${base}/#/stack/${name}?env=null`, TOKENS.admin);
    else await page.goto(`${base}/#/stack/${name}?env=null`);
    signedIn = true;
    await page.getByRole('heading', { name }).waitFor();
  }

  async function confirmDelete(name: string, choice: string): Promise<void> {
    await openStack(name);
    // The engine's view first: it decides which choices the confirmation offers.
    await page.getByText('running', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    const group = page.getByRole('group', { name: 'Confirm stack delete' });
    expect(await group.getByRole('button').allTextContents()).toEqual([
      'Stop and delete',
      'Delete, keep containers running',
      'Cancel',
    ]);
    await group.getByRole('button', { name: choice }).click();
  }

  it.skipIf(chromiumMissing !== undefined)(
    'Stop and delete removes the containers and network, then the stack',
    async () => {
      const name = docker.stack('stopdel');
      await createStackDone(server.as('admin'), name, null, { compose: COMPOSE });
      expect((await docker.containers(name)).length).toBe(1);
      await confirmDelete(name, 'Stop and delete');
      await eventually(() => exists(name)).toBe(404);
      await page.getByRole('heading', { name: 'Stacks' }).waitFor();
      expect(await docker.containers(name)).toEqual([]);
      expect(await networks(name)).toEqual([]);
    },
  );

  it.skipIf(chromiumMissing !== undefined)(
    'Delete, keep containers running leaves them running',
    async () => {
      const name = docker.stack('keepdel');
      await createStackDone(server.as('admin'), name, null, { compose: COMPOSE });
      await confirmDelete(name, 'Delete, keep containers running');
      await eventually(() => exists(name)).toBe(404);
      expect((await docker.containers(name)).map((c) => c.State)).toEqual(['running']);
    },
  );

  it.skipIf(chromiumMissing !== undefined)('a stack without containers offers Delete stack', async () => {
    const name = docker.stack('nodel');
    await createStackDone(server.as('admin'), name, null, { compose: COMPOSE });
    expect((await server.as('admin').postJson(`/api/stacks/${name}/down?env=null`)).status).toBe(200);
    await openStack(name);
    await page.getByText('not deployed', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    const group = page.getByRole('group', { name: 'Confirm stack delete' });
    expect(await group.getByRole('button').allTextContents()).toEqual(['Delete stack', 'Cancel']);
    await group.getByRole('button', { name: 'Delete stack' }).click();
    await eventually(() => exists(name)).toBe(404);
  });
});
