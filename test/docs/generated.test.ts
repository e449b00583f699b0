import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderErrorsPage, renderEventCatalog } from './catalog.js';

/**
 * The pages of docs/ that are read from the code say what the code says now. `npm run docs`
 * (UPDATE_DOCS=1) writes them again instead of comparing.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const update = process.env.UPDATE_DOCS === '1';
const START = '<!-- events:start -->';
const END = '<!-- events:end -->';

function withCatalog(page: string, catalog: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from === -1 || to < from) throw new Error(`docs/architecture.md lacks the ${START} … ${END} markers`);
  return `${page.slice(0, from + START.length)}\n${catalog}\n${page.slice(to)}`;
}

describe('generated docs', () => {
  it('docs/errors.md lists the error codes of the code as it is', () => {
    const file = join(ROOT, 'docs/errors.md');
    const page = renderErrorsPage(ROOT);
    if (update) writeFileSync(file, page);
    expect(readFileSync(file, 'utf8'), 'docs/errors.md is not current: run npm run docs').toBe(page);
  });

  it('docs/errors.md names the codes the status table maps and those the ops raise', () => {
    const page = renderErrorsPage(ROOT);
    expect(page).toContain('| `stale_state` | 409 |');
    expect(page).toContain('| `entity_absent` | 404 |');
    expect(page).toContain('| `nothing_to_undo` | 400 |');
    expect(page).toContain('| `invalid_vertices` | 400 |');
    expect(page).toContain('| 409 | compose_changed |');
  });

  it('the event catalog of docs/architecture.md is the one of streams/', () => {
    const file = join(ROOT, 'docs/architecture.md');
    const page = withCatalog(readFileSync(file, 'utf8'), renderEventCatalog(ROOT));
    if (update) writeFileSync(file, page);
    expect(readFileSync(file, 'utf8'), 'docs/architecture.md is not current: run npm run docs').toBe(page);
    expect(page).toContain('| `RunCompletedSealed` |');
    expect(page).toContain('| `EntitiesCreated` |');
  });
});
