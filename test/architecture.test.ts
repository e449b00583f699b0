import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';

/**
 * The layout's arrows (docs/architecture.md#directions): the event catalog in streams/ depends on nothing of the
 * service, the stacks service knows nothing of the HTTP surfaces or the editor, its compose and output parts
 * stand on their own, the editor's and the stacks' HTTP surfaces know nothing of each other, and no module of src/, projections/ or streams/ reaches itself through its imports.
 * Type-only imports count: they tie the modules' contracts together all the same.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['src', 'projections', 'streams'];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter(
      (entry) => entry.isFile() && /\.(tsx?|jsx?|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts'),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The file a relative specifier names (`./x.js` is written for `./x.ts`), or undefined for a package. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(from), specifier);
  const candidates = [
    target.replace(/\.js$/, '.ts'),
    target.replace(/\.js$/, '.tsx'),
    target,
    `${target}.ts`,
    join(target, 'index.ts'),
  ];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile());
}

/** The specifiers a file imports from: static imports, re-exports and dynamic imports, type-only ones too. */
function specifiers(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const { module, errors } = parseSync(file, source);
  if (errors.length > 0) throw new Error(`${file}: ${errors[0]?.message}`);
  const dynamic = module.dynamicImports.map(({ moduleRequest }) =>
    source.slice(moduleRequest.start, moduleRequest.end).replace(/^['"`]|['"`]$/g, ''),
  );
  return [
    ...module.staticImports.map(({ moduleRequest }) => moduleRequest.value),
    ...module.staticExports.flatMap(({ entries }) =>
      entries.flatMap(({ moduleRequest }) => moduleRequest?.value ?? []),
    ),
    ...dynamic,
  ];
}

/** Every file of the three folders with the files of ours it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of FOLDERS) {
    for (const file of sourceFiles(join(ROOT, folder))) {
      const targets = specifiers(file).flatMap((specifier) => resolveSpecifier(file, specifier) ?? []);
      graph.set(relative(ROOT, file), [...new Set(targets.map((target) => relative(ROOT, target)))]);
    }
  }
  return graph;
}

/** Strongly connected components of more than one file, or of one file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** The folders of src/stacks/, read from the tree so that a new one is held to the rules at once. */
const STACKS_FOLDERS = new Set(
  readdirSync(join(ROOT, 'src/stacks'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name),
);

describe('module layout', () => {
  const graph = importGraph();

  it('reads the three folders', () => {
    expect(graph.has('streams/editor.ts')).toBe(true);
    expect(graph.has('src/cli/main.ts')).toBe(true);
    expect(graph.get('src/cli/main.ts')?.length).toBeGreaterThan(0);
  });

  it('keeps the event catalog in streams/ free of the service and its projections', () => {
    const outward = [...graph]
      .filter(([file]) => file.startsWith('streams/'))
      .flatMap(([file, targets]) =>
        targets.filter((t) => !t.startsWith('streams/')).map((t) => `${file} -> ${t}`),
      );
    expect(outward).toEqual([]);
  });

  /** Every import of a file under `from` that reaches a file under one of `to`, as `file -> target`. */
  const crossing = (from: string, to: readonly string[]) =>
    [...graph]
      .filter(([file]) => file.startsWith(from))
      .flatMap(([file, targets]) =>
        targets.filter((t) => to.some((part) => t.startsWith(part))).map((t) => `${file} -> ${t}`),
      );

  it('keeps the stacks service free of the HTTP surfaces, the editor, the CLI and the MCP server', () => {
    expect(
      crossing('src/stacks/', ['src/http/', 'src/editor/', 'src/cli/', 'src/mcp/', 'src/control/']),
    ).toEqual([]);
  });

  it("keeps compose (src/stacks/compose/) free of the stacks service's other folders and of the read models", () => {
    const others = [...STACKS_FOLDERS]
      .filter((folder) => folder !== 'compose')
      .map((f) => `src/stacks/${f}/`);
    expect(crossing('src/stacks/compose/', [...others, 'projections/', 'src/store/'])).toEqual([]);
  });

  it("keeps output (src/stacks/output/: redaction, keys, sealing) free of the stacks service's other folders", () => {
    const others = [...STACKS_FOLDERS].filter((folder) => folder !== 'output').map((f) => `src/stacks/${f}/`);
    expect(crossing('src/stacks/output/', [...others, 'projections/'])).toEqual([]);
  });

  it("keeps the editor's HTTP surface (src/http/editor/, src/http/viewer/) free of the stacks service and its surface", () => {
    const stacks = ['src/http/stacks/', 'src/http/sse/', 'src/stacks/'];
    expect([...crossing('src/http/editor/', stacks), ...crossing('src/http/viewer/', stacks)]).toEqual([]);
  });

  it("keeps the stacks HTTP surface (src/http/stacks/, src/http/sse/) free of the editor's", () => {
    const editor = ['src/http/editor/', 'src/http/viewer/', 'src/editor/'];
    expect([...crossing('src/http/stacks/', editor), ...crossing('src/http/sse/', editor)]).toEqual([]);
  });

  it('has no import circle among src/, projections/ and streams/', () => {
    expect(circles(graph)).toEqual([]);
  });
});
