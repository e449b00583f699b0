/**
 * A git stack's deploy on the stack page (Chromium against the real CLI with the fake compose and a real
 * git repository): its job holds status lines only, so the Output panel follows the run's log live, which
 * holds compose's lines — shown while the deploy runs and kept once it ended.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import { composeText, expectStatus, type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: a git deploy's output: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;
/** The file the fake compose waits for after its first line. */
let gatePath = '';

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  // The deploy waits after its first line until the test has seen it live.
  const gate = join(await tempDir(), 'go');
  const repo = await makeRepo(await tempDir(), {
    'compose.yaml': composeText({
      up: { lines: ['from git one', 'from git two', 'from git three'], gate: { afterLines: 1, file: gate } },
    }),
  });
  const reply = await server.as('admin').post('/api/git-stacks?env=null', {
    name: 'fromgit',
    repository: repo.bare,
    branch: 'main',
    composePath: 'compose.yaml',
    deploy: false,
  });
  expectStatus(reply, 201, 'create the git stack');
  gatePath = gate;
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.skipIf(chromiumMissing !== undefined)("a git stack's deploy output", () => {
  it("follows the run's log live in the Output panel, with compose's lines", async () => {
    await signIn(page, `${base}/#/stack/fromgit?env=null`, TOKENS.admin);
    await page.getByRole('button', { name: 'Fetch and deploy' }).click();
    const output = page.getByRole('region', { name: 'Live output' });
    // The job's own lines: status lines.
    await output.getByText('Running compose up').waitFor();
    // Compose's first line, while the deploy still runs (it waits at the gate).
    const log = output.getByTestId('git-run-log');
    await log.getByText('from git one').waitFor();
    expect(await output.getByTestId('job-state').innerText()).toContain('running');
    expect(await log.getByText('from git three').count()).toBe(0);
    await writeFile(gatePath, '');
    await output.getByTestId('job-state').getByText('ok').waitFor();
    await log.getByText('from git three').waitFor();
    await log.getByText('from git two').waitFor();
    await log.getByText(/^Compose output: the log of run #\d+$/).waitFor();
  });
});
