import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';

/**
 * The code's comments point at what a clone has: the docs pages (`docs/<page>.md#section`) and the
 * README, never at files outside the repository or at issue numbers, which belong in commit messages.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUTSIDE = /\b(DESIGN|CONTRACT|STACKS|NOTES)\.md\b|\.\.\/shared\/|\b[Ii]ssues? ?#?\d+/;

const files = ['src', 'projections', 'streams'].flatMap((folder) =>
  readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(tsx?|m?js)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
);

describe('comments of src/, projections/ and streams/', () => {
  it('reads the comments of every file', () => {
    expect(files).toContain('src/editor/session.ts');
  });

  it('point at nothing a clone lacks: no DESIGN.md, CONTRACT.md, STACKS.md, NOTES.md or issue number', () => {
    const found = files.flatMap((file) => {
      const source = readFileSync(join(ROOT, file), 'utf8');
      const { comments } = parseSync(file, source);
      return comments
        .filter((comment) => OUTSIDE.test(comment.value))
        .map((comment) => {
          const line = source.slice(0, comment.start).split('\n').length;
          const what = comment.value.match(OUTSIDE)?.[0];
          return `${file}:${line}: ${what}`;
        });
    });
    expect(found).toEqual([]);
  });
});
