/**
 * axe-core on the pages and states of the stacks page the other Chromium tests leave unchecked (the
 * list, the compose and deploys tabs, settings and audit: ui.test.ts; containers, logs, console, the
 * Engine page and adoption on a real engine: engine.test.ts; image updates: updates.test.ts): sign-in,
 * the new stack form, the variables tab, a run's details and what it deployed, the diff of two runs,
 * the history settings, the confirmations (roll back, delete the stack, redeploy and delete a run), the
 * new git stack page and a git stack's page. No serious or critical violation on any, against the real
 * CLI with the fake compose. Skips, saying why, without Chromium.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import {
  composeText,
  createStackDone,
  objectOf,
  type StacksServer,
  startStacks,
  TOKENS,
  waitJob,
} from '../stacks/helpers.js';
import { axeViolations, type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });
if (chromiumMissing) console.log(`skipped: axe-core on every stacks page: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  const admin = server.as('admin');
  // Run 1 succeeds, run 2 fails: the page offers a roll back to #1.
  await createStackDone(admin, 'web', null, {
    compose: composeText({ lines: ['one'] }),
    variables: [
      { name: 'MODE', value: 'blue', secret: false },
      { name: 'API_KEY', value: 'a-secret-value', secret: true },
    ],
  });
  await admin.put('/api/stacks/web/compose?env=null', {
    content: composeText({ lines: ['two'], exit: 1 }),
    restart: false,
  });
  const failed = objectOf(await admin.post('/api/stacks/web/deploy?env=null', {}));
  await waitJob(admin, failed.jobId as string);
  const repo = await makeRepo(await tempDir(), { 'compose.yaml': composeText({ lines: ['from git'] }) });
  const git = objectOf(
    await admin.post('/api/git-stacks?env=null', {
      name: 'gitweb',
      repository: repo.bare,
      branch: 'main',
      composePath: 'compose.yaml',
      webhookSecret: 'hook-secret-1',
    }),
  );
  expect(git.name).toBe('gitweb');
  browser = await openBrowser({ bypassCSP: true });
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.skipIf(chromiumMissing !== undefined)('axe-core on every stacks page', () => {
  const clean = async (what: string) => expect(await axeViolations(page), what).toEqual([]);

  it('the sign-in page', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.getByLabel('Token').waitFor();
    await clean('sign-in');
    await page.getByLabel('Token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('signin-error').waitFor();
    await clean('sign-in with its error');
    await signIn(page, `${base}/`, TOKENS.admin);
  });

  it('the new stack form', async () => {
    await page.goto(`${base}/#/?env=null`);
    await page.getByRole('button', { name: 'New stack' }).click();
    await page.getByRole('button', { name: 'Create and start' }).waitFor();
    await clean('new stack form');
  });

  it('the variables tab', async () => {
    await page.goto(`${base}/#/stack/web?env=null&tab=variables`);
    await page.getByLabel('Variable 1 name').waitFor();
    await clean('variables');
  });

  it("a run's details, what it deployed, the diff of two runs and the history settings", async () => {
    await page.goto(`${base}/#/stack/web?env=null&tab=deploys`);
    const first = page.locator('tr.run-row[data-run="1"]');
    await first.getByRole('button', { name: /show details/ }).click();
    await page.getByRole('button', { name: 'What run #1 deployed' }).click();
    await page.getByTestId('run-content').waitFor();
    await clean('run details and content');
    await page.getByLabel('From run').selectOption('1');
    await page.getByLabel('To run').selectOption('2');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.getByTestId('diff-compose').waitFor();
    await page.getByTestId('history-settings').waitFor();
    await clean('diff and history settings');
  });

  it('the confirmations: roll back, delete the stack, redeploy and delete a run', async () => {
    await page.goto(`${base}/#/stack/web?env=null&tab=deploys`);
    await page.getByRole('button', { name: 'Roll back to #1…' }).click();
    await page.getByRole('group', { name: 'Confirm roll back' }).waitFor();
    await clean('roll back confirmation');
    await page
      .getByRole('group', { name: 'Confirm roll back' })
      .getByRole('button', { name: 'Cancel' })
      .click();
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('group', { name: 'Confirm stack delete' }).waitFor();
    await clean('stack delete confirmation');
    await page
      .getByRole('group', { name: 'Confirm stack delete' })
      .getByRole('button', { name: 'Cancel' })
      .click();
    await page.getByRole('button', { name: 'Redeploy run 1' }).click();
    await page.getByRole('group', { name: 'Confirm redeploy' }).waitFor();
    await clean('redeploy confirmation');
    await page
      .getByRole('group', { name: 'Confirm redeploy' })
      .getByRole('button', { name: 'Cancel' })
      .click();
    await page.getByRole('button', { name: 'Delete run 2' }).click();
    await page.getByRole('group', { name: 'Confirm delete' }).waitFor();
    await clean('run delete confirmation');
  });

  it('the new git stack page and a git stack with its settings open', async () => {
    await page.goto(`${base}/#/git?env=null`);
    await page.getByLabel('Repository URL').waitFor();
    await clean('new git stack');
    await page.goto(`${base}/#/stack/gitweb?env=null`);
    await page.getByTestId('git-panel').waitFor();
    await clean('git stack');
    await page.getByRole('button', { name: 'Edit git settings' }).click();
    await page.getByLabel('Auto-deploy cron').waitFor();
    await clean('git settings form');
  });
});
