/**
 * Lists the exports of src/, projections/ and streams/ that no other file imports by name: what the rest
 * of the code base never asks a module for is that module's own business, and belongs unexported (or,
 * when its own file does not use it either, deleted). A file counts as an importer when it lies in src/,
 * projections/, streams/, bench/, test/ or scripts/. An import follows re-exports (`export { a } from`,
 * `export * from`) to the module that declares the name; a namespace import (`import * as m`) or a
 * dynamic `import()` of a module uses all of its exports, and so does a TypeScript `import('…').Name`
 * type, by name. `node scripts/unused-exports.mjs` prints one line an export (`file:line name`) and exits
 * 1 when there is any; `--json` prints the list as JSON (test/unused-exports.test.ts reads it), `--root DIR`
 * reads another tree of the same layout.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Whose exports are checked. */
const CHECKED = ['src', 'projections', 'streams'];
/** Whose imports count. */
const IMPORTERS = [...CHECKED, 'bench', 'test', 'scripts'];

function sourceFiles(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter(
      (entry) =>
        entry.isFile() &&
        /\.(tsx?|jsx?|mjs|mts)$/.test(entry.name) &&
        !entry.name.endsWith('.d.ts') &&
        !entry.parentPath.split(/[\\/]/).includes('node_modules'),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The file a relative specifier names (`./x.js` is written for `./x.ts`), or undefined for a package. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(from), specifier);
  const candidates = [
    target.replace(/\.js$/, '.ts'),
    target.replace(/\.js$/, '.tsx'),
    target.replace(/\.mjs$/, '.mts'),
    target,
    `${target}.ts`,
    join(target, 'index.ts'),
  ];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile());
}

/** One file's exports and what it asks of other files. */
function readModule(file) {
  const source = readFileSync(file, 'utf8');
  const { module, errors } = parseSync(file, source);
  if (errors.length > 0) throw new Error(`${file}: ${errors[0]?.message}`);
  /** name -> offset of its first export */
  const exports = new Map();
  /** name -> [{target, name}] where the name is re-exported from */
  const reexports = new Map();
  /** modules whose names `export *` passes on */
  const stars = [];
  /** [{target, name}] the names it imports; name null for all of them */
  const uses = [];
  for (const { entries } of module.staticExports) {
    for (const { moduleRequest, importName, exportName } of entries) {
      const target = moduleRequest ? resolveSpecifier(file, moduleRequest.value) : undefined;
      const name = exportName.kind === 'Default' ? 'default' : exportName.name;
      if (moduleRequest && importName.kind === 'AllButDefault') {
        if (target) stars.push(target);
        continue;
      }
      if (name === null) continue;
      if (!exports.has(name)) exports.set(name, exportName.start ?? 0);
      if (!target) continue;
      const from = importName.kind === 'Name' ? importName.name : null;
      reexports.set(name, [...(reexports.get(name) ?? []), { target, name: from }]);
    }
  }
  for (const { moduleRequest, entries } of module.staticImports) {
    const target = resolveSpecifier(file, moduleRequest.value);
    if (!target) continue;
    for (const { importName } of entries) {
      if (importName.kind === 'NamespaceObject') uses.push({ target, name: null });
      else uses.push({ target, name: importName.kind === 'Default' ? 'default' : importName.name });
    }
  }
  for (const { moduleRequest } of module.dynamicImports) {
    const specifier = source.slice(moduleRequest.start, moduleRequest.end).replace(/^['"`]|['"`]$/g, '');
    const target = resolveSpecifier(file, specifier);
    if (target) uses.push({ target, name: null });
  }
  for (const match of source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)\.(\w+)/g)) {
    const target = resolveSpecifier(file, match[1] ?? '');
    if (target) uses.push({ target, name: match[2] ?? null });
  }
  const line = (offset) => source.slice(0, offset).split('\n').length;
  return { exports, reexports, stars, uses, line };
}

/** Every export of the checked folders that no other file imports, as `{file, line, name}`. */
export function unusedExports(root = ROOT) {
  const modules = new Map();
  for (const folder of IMPORTERS) {
    for (const file of sourceFiles(join(root, folder))) modules.set(file, readModule(file));
  }
  const used = new Map([...modules.keys()].map((file) => [file, new Set()]));
  const seen = new Set();
  const mark = (file, name) => {
    const key = `${file}\0${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    const record = modules.get(file);
    if (!record) return;
    if (name === null) {
      for (const own of record.exports.keys()) mark(file, own);
      for (const star of record.stars) mark(star, null);
      return;
    }
    if (record.exports.has(name)) {
      used.get(file)?.add(name);
      for (const from of record.reexports.get(name) ?? []) mark(from.target, from.name);
      return;
    }
    for (const star of record.stars) mark(star, name);
  };
  for (const record of modules.values()) for (const use of record.uses) mark(use.target, use.name);
  const unused = [];
  for (const [file, record] of modules) {
    const path = relative(root, file).split('\\').join('/');
    if (!CHECKED.some((folder) => path.startsWith(`${folder}/`))) continue;
    for (const [name, offset] of record.exports) {
      if (!used.get(file)?.has(name)) unused.push({ file: path, line: record.line(offset), name });
    }
  }
  return unused.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--root');
  const unused = unusedExports(at === -1 ? ROOT : resolve(process.argv[at + 1] ?? '.'));
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(unused)}\n`);
  else {
    for (const { file, line, name } of unused) process.stdout.write(`${file}:${line} ${name}\n`);
    process.stdout.write(`${unused.length} unused exports\n`);
  }
  process.exitCode = unused.length > 0 ? 1 : 0;
}
