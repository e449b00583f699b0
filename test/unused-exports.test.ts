import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * What a module exports, some other file imports: scripts/unused-exports.mjs lists the exports of src/,
 * projections/ and streams/ that no file of those folders, bench/, test/ or scripts/ asks for by name.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCRIPT = join(ROOT, 'scripts/unused-exports.mjs');

interface Unused {
  file: string;
  line: number;
  name: string;
}

/** The script's list for the tree at `root` (it exits 1 when the list is not empty). */
function unusedExports(root: string): Unused[] {
  try {
    return JSON.parse(
      execFileSync(process.execPath, [SCRIPT, '--json', '--root', root], { encoding: 'utf8' }),
    );
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (typeof stdout === 'string' && stdout.startsWith('[')) return JSON.parse(stdout);
    throw error;
  }
}

describe('unused exports', () => {
  const trees: string[] = [];
  afterAll(() => {
    for (const tree of trees) rmSync(tree, { recursive: true, force: true });
  });

  function tree(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'unused-exports-'));
    trees.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it('names an export no other file imports, and not the ones imported by name, type or namespace', () => {
    const root = tree({
      'src/a.ts': [
        'export const used = 1;',
        'export const unused = 2;',
        'export type UsedType = number;',
        'export interface Lonely {}',
        'export function whole() {}',
        '',
      ].join('\n'),
      'src/b.ts': "import { used, type UsedType } from './a.js';\nexport const b: UsedType = used;\n",
      'src/c.ts': "import * as all from './a.js';\nvoid all;\n",
      'test/b.test.ts': "import { b } from '../src/b.js';\nvoid b;\n",
    });
    // c.ts's namespace import asks for all of a.ts; without it, two of a.ts's exports are nobody's.
    expect(unusedExports(root)).toEqual([]);
    writeFileSync(join(root, 'src/c.ts'), 'export const c = 3;\n');
    expect(unusedExports(root)).toEqual([
      { file: 'src/a.ts', line: 2, name: 'unused' },
      { file: 'src/a.ts', line: 4, name: 'Lonely' },
      { file: 'src/a.ts', line: 5, name: 'whole' },
      { file: 'src/c.ts', line: 1, name: 'c' },
    ]);
  });

  it('follows a re-export to the module that declares the name, and counts a dynamic import as all', () => {
    const root = tree({
      'src/deep.ts': 'export const reached = 1;\nexport const passedOn = 2;\nexport const starred = 3;\n',
      'src/barrel.ts': "export { reached, passedOn } from './deep.js';\nexport * from './deep.js';\n",
      'src/star.ts': 'export const viaStar = 4;\nexport const notViaStar = 5;\n',
      'src/star-barrel.ts': "export * from './star.js';\n",
      'src/lazy.ts': 'export const lazy = 6;\n',
      'bench/run.ts': [
        "import { reached } from '../src/barrel.js';",
        "import { viaStar } from '../src/star-barrel.js';",
        "const lazy = await import('../src/lazy.js');",
        'void [reached, viaStar, lazy];',
        '',
      ].join('\n'),
    });
    expect(unusedExports(root)).toEqual([
      { file: 'src/barrel.ts', line: 1, name: 'passedOn' },
      { file: 'src/deep.ts', line: 2, name: 'passedOn' },
      { file: 'src/deep.ts', line: 3, name: 'starred' },
      { file: 'src/star.ts', line: 2, name: 'notViaStar' },
    ]);
  });

  it('finds none in src/, projections/ and streams/', () => {
    const unused = unusedExports(ROOT);
    expect(unused.map(({ file, line, name }) => `${file}:${line} ${name}`)).toEqual([]);
  });
});
