/**
 * A run's details on the deploys tab, in Chromium against the real CLI (fake compose): only the counts
 * the run's summary holds are shown, and "unknown" for a kind it holds none of (absent is unknown,
 * never zero) — never "undefined".
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { composeText, createStackDone, type StacksServer, startStacks, TOKENS } from '../stacks/helpers.js';
import { type Browser, chromiumMissing, openBrowser, signIn } from './browser.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: stacks run details tests: ${chromiumMissing}`);

let server: StacksServer;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startStacks();
  base = `http://127.0.0.1:${server.port}`;
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The details list as `term: value` pairs. */
const details = () =>
  page.evaluate(
    "[...document.querySelectorAll('[data-testid=run-details] dt')].map((dt) => dt.textContent + ': ' + dt.nextElementSibling.textContent)",
  ) as Promise<string[]>;

describe.skipIf(chromiumMissing !== undefined)('run details', () => {
  it('a failed run that saw only a pull line: the image count it has, containers unknown', async () => {
    // compose printed a v2 pull line, then failed: no container line was seen.
    const { runId } = await createStackDone(server.as('admin'), 'pullfail', null, {
      compose: composeText({ lines: [' web Pulled'], exit: 1 }),
    });
    const run = (await server.as('admin').get(`/api/stacks/pullfail/deploys/${runId}?env=null`)).value as {
      status: string;
      details: { summary?: Record<string, number> };
    };
    expect(run.status).toBe('failed');
    expect(run.details.summary).toEqual({ imagesPulled: 1 });
    await signIn(page, `${base}/#/stack/pullfail?env=null&tab=deploys&run=${runId}`, TOKENS.admin);
    await page.getByTestId('run-details').waitFor();
    const shown = await details();
    expect(shown).toContain('Containers: unknown');
    expect(shown).toContain('Images: 1 pulled');
    expect(shown.join('\n')).not.toContain('undefined');
  });

  it('a run with no summary at all: both unknown', async () => {
    const { runId } = await createStackDone(server.as('admin'), 'silent', null, {
      compose: composeText({ lines: [], exit: 2 }),
    });
    await page.goto(`${base}/#/stack/silent?env=null&tab=deploys&run=${runId}`);
    await page.getByTestId('run-details').waitFor();
    const shown = await details();
    expect(shown).toContain('Containers: unknown');
    expect(shown).toContain('Images: unknown');
    expect(shown.join('\n')).not.toContain('undefined');
  });
});
