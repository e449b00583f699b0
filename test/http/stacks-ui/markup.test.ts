/**
 * Markup in what a stack's author controls is text on the web page, never HTML (in Chromium against the
 * real CLI with the fake compose): output lines, plain and ANSI-coloured (ansi_up's path), a terminal
 * hyperlink to a `javascript:` URL, the stored error of a failed run, and the compose text. Each
 * payload would set `window.__markup` if it ran; the page must show it as the characters it is.
 */
import { describe, expect, it, vi } from 'vitest';
import { composeText, TOKENS } from '../stacks/helpers.js';
import { chromiumMissing, pageOnStacks } from './browser.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
if (chromiumMissing) console.log(`skipped: stacks web page markup tests: ${chromiumMissing}`);

const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 50 });

const IMG = `<img src=x onerror="window.__markup='img'">`;
const SCRIPT = `<script>window.__markup='script'</script>`;
const SVG = `"><svg onload="window.__markup='svg'">`;
const COLOURED = `\u001b[31m<img src=y onerror="window.__markup='ansi'">\u001b[0m`;
const LINK = `\u001b]8;;javascript:window.__markup='link'\u001b\\click me\u001b]8;;\u001b\\`;
const ERROR = `<img src=z onerror="window.__markup='error'">`;

const ui = pageOnStacks({ signInAs: TOKENS.admin });

/** What the page made of the payloads: elements they would create, and whether one ran. */
const damage = () =>
  ui.page.evaluate(`({
    ran: window.__markup ?? null,
    images: document.querySelectorAll('img').length,
    scripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    svgs: document.querySelectorAll('svg[onload]').length,
    scriptLinks: document.querySelectorAll('a[href^="javascript:"]').length,
  })`);

const clean = { ran: null, images: 0, scripts: 0, svgs: 0, scriptLinks: 0 };

describe.skipIf(chromiumMissing !== undefined)('markup on the stacks web page', () => {
  it('output lines, an error and compose text with markup show as text in the live output, the run and its log', async () => {
    const compose = `${composeText({
      lines: [IMG, SCRIPT, SVG, COLOURED, LINK],
      stderr: [ERROR],
      exit: 1,
    })}# ${SCRIPT} ${IMG}\n`;
    await ui.page.getByRole('button', { name: 'New stack' }).click();
    await ui.page.getByLabel('Name').fill('markup');
    await ui.page.getByTestId('compose-editor').fill(compose);
    await ui.page.getByRole('button', { name: 'Create and start' }).click();
    await eventually(() => ui.page.getByTestId('job-state').textContent()).toContain('failed');
    const lines = await ui.page.locator('.out-line').allTextContents();
    expect(lines).toEqual([
      IMG,
      SCRIPT,
      SVG,
      `<img src=y onerror="window.__markup='ansi'">`,
      // ansi_up renders a hyperlink of a scheme other than http(s) as nothing at all.
      '',
      ERROR,
    ]);
    expect(await damage()).toEqual(clean);

    await ui.page.getByRole('tab', { name: /Deploys/ }).click();
    const row = ui.page.locator('tr.run-row').first();
    await eventually(() => row.getAttribute('data-status')).toBe('failed');
    expect(await row.getByTestId('run-error').textContent()).toContain(ERROR);
    await row.getByRole('button', { name: /show details/ }).click();
    await ui.page.waitForSelector('[data-testid="log-lines"] .log-row');
    const logged = await ui.page.locator('[data-testid="log-lines"] .log-row .lt').allTextContents();
    expect(logged).toEqual(lines);
    expect(await ui.page.getByTestId('run-details').textContent()).toContain(ERROR);
    // A search marks matches without turning escaped text back into markup.
    await ui.page.getByTestId('log-search').fill('onerror');
    await eventually(() => ui.page.locator('.log-row mark').count()).toBe(3);
    expect(await damage()).toEqual(clean);

    await ui.page.getByRole('tab', { name: 'Compose' }).click();
    await eventually(() => ui.page.getByTestId('compose-editor').textContent()).toContain(
      `# ${SCRIPT} ${IMG}`,
    );
    expect(await damage()).toEqual(clean);
  });
});
