/**
 * Lines withheld by redaction leave a marker where they were (Chromium against the real CLI with the
 * fake compose): a deploy whose output holds a secret too short to replace shows "1 line withheld" and
 * "2 lines withheld" among its lines in the live output, and in its run's log opened afterwards (whose
 * lines keep their own numbers), and never the value. A git stack's Output panel, which follows its
 * run's log, shows the marker while the deploy still runs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import {
  composeText,
  createStackDone,
  expectStatus,
  type StacksServer,
  saveCompose,
  startStacks,
  TOKENS,
} from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: the withheld-lines marker: ${chromiumMissing}`);

const PIN = 'x9q4';
/** The deploy's lines as shown: a marker where lines were withheld. */
const MARKED = [
  'first',
  '1 line withheld (holding a value too short to replace with ***)',
  'between',
  '2 lines withheld (holding a value too short to replace with ***)',
  'last',
];

let server: StacksServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  const admin = server.as('admin');
  await createStackDone(admin, 'pinned', null, {
    compose: composeText(),
    variables: [{ name: 'PIN', value: PIN, secret: true }],
  });
  await saveCompose(
    admin,
    'pinned',
    null,
    composeText({
      up: { lines: ['first', `pin is ${PIN}`, 'between', `again ${PIN}`, `and ${PIN}`, 'last'] },
    }),
  );
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.skipIf(chromiumMissing !== undefined)('withheld lines', () => {
  it('leave a marker with their count where they were, never their text', async () => {
    await signIn(page, `http://127.0.0.1:${server.port}/#/stack/pinned?env=null`, TOKENS.admin);
    await page
      .getByRole('toolbar', { name: 'Stack actions' })
      .getByRole('button', { name: 'Deploy', exact: true })
      .click();
    const output = page.getByRole('region', { name: 'Live output' });
    await output.getByTestId('job-state').getByText('ok').waitFor();
    const lines = output.getByTestId('output-lines');
    await lines.getByText('last', { exact: true }).waitFor();
    const texts = (await lines.locator('.lt').allTextContents()).filter((t) => !t.startsWith('Running'));
    expect(texts).toEqual(MARKED);
    expect(await lines.locator('.out-status', { hasText: 'withheld' }).count()).toBe(2);
    // (The compose file itself holds it: the editor shows it, the output never.)
    expect(await output.innerText()).not.toContain(PIN);
  });

  it('leave the same markers in the run log opened afterwards, its lines numbered as the log file', async () => {
    await page.goto(`http://127.0.0.1:${server.port}/#/stack/pinned?env=null&tab=deploys&run=2`);
    const viewer = page.getByTestId('log-lines');
    await viewer.getByText('last', { exact: true }).waitFor();
    const rows = viewer.locator('.log-row');
    const texts = await rows.locator('.lt').allTextContents();
    expect(texts).toEqual(MARKED);
    expect(await rows.locator('.ln').allTextContents()).toEqual(['1', '', '2', '', '3']);
    // The log's own lines are counted, not the markers among them.
    expect(await page.getByTestId('log-count').textContent()).toBe('3 lines');
    await page.getByTestId('run-details').getByText('3 lines withheld').waitFor();
    expect(await page.locator('tr.run-details').innerText()).not.toContain(PIN);
  });

  it("show in a git deploy's Output panel while the deploy runs", async () => {
    // The deploy waits after its secret line until the test has seen the marker.
    const gate = join(await tempDir(), 'go');
    const repo = await makeRepo(await tempDir(), {
      'compose.yaml': composeText({
        up: { lines: ['from git', `pin is ${PIN}`, 'after the pin'], gate: { afterLines: 2, file: gate } },
      }),
    });
    const admin = server.as('admin');
    const created = await admin.post('/api/git-stacks?env=null', {
      name: 'gitpinned',
      repository: repo.bare,
      branch: 'main',
      composePath: 'compose.yaml',
      deploy: false,
    });
    expectStatus(created, 201, 'create the git stack');
    const saved = await admin.put('/api/stacks/gitpinned/variables?env=null', {
      variables: [{ name: 'PIN', value: PIN, secret: true }],
    });
    expectStatus(saved, 200, 'its variables');
    await page.goto(`http://127.0.0.1:${server.port}/#/stack/gitpinned?env=null`);
    await page.getByRole('button', { name: 'Fetch and deploy' }).click();
    const output = page.getByRole('region', { name: 'Live output' });
    const log = output.getByTestId('git-run-log');
    await log.getByText('1 line withheld (holding a value too short to replace with ***)').waitFor();
    // Before the end: compose waits at the gate, which the test opens only now.
    expect(await output.getByTestId('job-state').innerText()).toContain('running');
    expect(await log.locator('.lt').allTextContents()).toEqual([
      'from git',
      '1 line withheld (holding a value too short to replace with ***)',
    ]);
    await writeFile(gate, '');
    await output.getByTestId('job-state').getByText('ok').waitFor();
    await log.getByText('after the pin').waitFor();
    expect(await log.locator('.lt').allTextContents()).toEqual([
      'from git',
      '1 line withheld (holding a value too short to replace with ***)',
      'after the pin',
    ]);
    expect(await output.innerText()).not.toContain(PIN);
  });
});
