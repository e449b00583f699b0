/**
 * A git stack's override files on the web page, against the real CLI (fake compose): the create form
 * takes them one per line and compose is given them after the compose path; the stack's Git source
 * shows them; its settings change them (one, then none). Skips, saying why, when Chromium is not installed.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import { composeText, TOKENS } from '../stacks/helpers.js';
import { chromiumMissing, pageOnStacks } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: git override files page tests: ${chromiumMissing}`);

/** expect.poll with room for a loaded machine (its default gives up after one second). */
const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 50 });

const ui = pageOnStacks({ signInAs: TOKENS.admin });

/** The `--file` arguments (their file names) of the fake compose's calls, in order, one list per call. */
async function fileArgs(): Promise<string[][]> {
  const calls = (await readFile(ui.server.argvLog, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { argv: string[] }).argv);
  return calls.map((argv) => argv.flatMap((a, i) => (argv[i - 1] === '--file' ? [basename(a)] : [])));
}

describe.skipIf(chromiumMissing !== undefined)('git stack override files on the page', () => {
  it('creates a git stack with override files, shows them and changes them', async () => {
    const repo = await makeRepo(await tempDir(), {
      'compose.yaml': composeText({ lines: ['from git'] }),
      'compose.prod.yaml': 'services:\n  web:\n    labels:\n      tier: prod\n',
      'compose.debug.yaml': 'services:\n  web:\n    labels:\n      tier: debug\n',
    });
    await ui.page.goto(`${ui.base}/#/git?env=null`);
    await ui.page.getByLabel('Name').fill('layered');
    await ui.page.getByLabel('Repository URL').fill(repo.bare);
    await ui.page.getByLabel(/Override files/).fill('compose.prod.yaml\n\n  compose.debug.yaml  \n');
    await ui.page.getByRole('button', { name: 'Create git stack' }).click();
    await eventually(() => ui.page.getByTestId('job-state').textContent()).toContain('ok');
    await eventually(() => ui.page.getByTestId('git-files').textContent()).toBe(
      'compose.prod.yaml, compose.debug.yaml',
    );
    const created = await ui.server.as('admin').get('/api/git-stacks/layered?env=null');
    expect((created.value as { files: string[] }).files).toEqual(['compose.prod.yaml', 'compose.debug.yaml']);
    expect((await fileArgs()).at(-1)).toEqual(['compose.yaml', 'compose.prod.yaml', 'compose.debug.yaml']);

    await ui.page.getByRole('button', { name: 'Edit git settings' }).click();
    // Down to one file, then none.
    await ui.page.getByLabel(/Override files/).fill('compose.debug.yaml');
    await ui.page.getByRole('button', { name: 'Save git settings' }).click();
    await eventually(() => ui.page.getByTestId('git-files').textContent()).toBe('compose.debug.yaml');
    await ui.page.getByLabel(/Override files/).fill('');
    await ui.page.getByRole('button', { name: 'Save git settings' }).click();
    await eventually(() => ui.page.getByTestId('git-files').textContent()).toBe('none');
    const saved = await ui.server.as('admin').get('/api/git-stacks/layered?env=null');
    expect((saved.value as { files: string[] }).files).toEqual([]);
  });
});
