import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every link of README.md and docs/ resolves inside the repository: to a file a clone has, and a
 * `#section` to a heading of that page (GitHub's anchors). A page outside the repository or on the web is
 * not a link these pages may hold.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text without fenced code blocks and inline code, where brackets are not links. */
const prose = (markdown: string) =>
  markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));

/** Link targets: `[text](target)` and `![alt](target)`. */
const targets = (markdown: string) =>
  [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string);

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of readFileSync(file, 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Why a link does not resolve, or undefined when it does. */
function broken(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return 'points outside the repository';
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURI(path));
  if (relative(ROOT, file).startsWith('..')) return 'leaves the repository';
  if (!existsSync(file)) return 'names no file of the repository';
  if (anchor === undefined) return undefined;
  if (!statSync(file).isFile() || !file.endsWith('.md')) return 'has a section in a file that is no page';
  return anchorsOf(file).has(anchor) ? undefined : `names no heading of ${relative(ROOT, file)}`;
}

/** Source files whose comments may name a page: `docs/<page>.md#section`. */
const SOURCES = ['src', 'projections', 'streams', 'bench', 'test', 'scripts'].flatMap((folder) =>
  readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(tsx?|m?js|py)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
);

describe('links of README.md and docs/', () => {
  it('reads the pages and their links', () => {
    expect(PAGES).toContain('docs/architecture.md');
    expect(targets(readFileSync(join(ROOT, 'README.md'), 'utf8'))).toContain('docs/errors.md');
  });

  it('finds a heading anchor as GitHub makes it', () => {
    expect(slug('Deleted runs: crypto-shredding')).toBe('deleted-runs-crypto-shredding');
    expect(slug('What an `edit` grant can reach')).toBe('what-an-edit-grant-can-reach');
  });

  for (const page of PAGES) {
    it(`${page}: every link resolves inside the repository`, () => {
      const bad = targets(readFileSync(join(ROOT, page), 'utf8'))
        .map((target) => ({ target, why: broken(page, target) }))
        .filter((link) => link.why !== undefined)
        .map((link) => `${link.target}: ${link.why}`);
      expect(bad).toEqual([]);
    });
  }

  it('every docs page and section a source file names exists', () => {
    const bad = SOURCES.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\bdocs\/[a-z-]+\.md(?:#[a-z0-9-]+)?/g)]
        .map((m) => m[0])
        .filter((target) => broken('README.md', target) !== undefined)
        .map((target) => `${file}: ${target}: ${broken('README.md', target)}`),
    );
    expect(bad).toEqual([]);
  });

  it('every path of the repository a page names in code (`src/…`, `test/…`) exists', () => {
    // The reference editor's own files, named as where its facts were read.
    const elsewhere = new Set(['docs/automation/rest_smoke.py', 'src/app/control/entities.rs']);
    // Other repositories' files are named too (`test/resources/…` of netDxf): a path counts as ours when
    // it is in a folder only this repository has, or in a folder that exists here.
    const ours = (path: string) =>
      /^(src|projections|streams)\//.test(path) || existsSync(join(ROOT, dirname(path)));
    const bad = PAGES.flatMap((page) =>
      [
        ...readFileSync(join(ROOT, page), 'utf8').matchAll(
          /`((?:src|test|bench|scripts|projections|streams|lint|docs)\/[\w./-]+)`/g,
        ),
      ]
        .map((m) => m[1] as string)
        .filter((path) => !elsewhere.has(path) && !path.includes('*') && ours(path))
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${page}: ${path}`),
    );
    expect(bad).toEqual([]);
  });
});
