/**
 * Bundles the stacks web page (src/http/stacks/ui) into dist/src/http/stacks/ui: ES modules (app.js and
 * the chunks it imports later) with Preact, htm, CodeMirror, ansi_up and xterm.js inside them (nothing
 * is fetched from elsewhere at run time), its stylesheet and index.html. Run by `npm run build`. api.ts (the typed calls) is TypeScript: esbuild
 * strips its types and bundles it with the rest (the `./api.js` imports resolve to it); its types, and
 * the JSDoc of the other files, are checked by `npm run lint` (src/http/stacks/ui/tsconfig.json).
 */
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src/http/stacks/ui');
const out = join(root, 'dist/src/http/stacks/ui');
mkdirSync(out, { recursive: true });
// Chunks of an earlier build are named by their old hashes: none is left to be served.
for (const file of readdirSync(out)) if (/^chunk-.*\.js$/.test(file)) rmSync(join(out, file));

// What only some pages need (xterm.js for the console) is split into chunks the page imports when it
// needs them (`chunk-<hash>.js` beside app.js); what every page runs stays in app.js.
await build({
  entryPoints: { app: join(source, 'main.js') },
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  outdir: out,
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
for (const file of ['index.html', 'app.css']) cpSync(join(source, file), join(out, file));
// The terminal's own stylesheet (the console, console.js), beside the page's.
cpSync(join(root, 'node_modules/@xterm/xterm/css/xterm.css'), join(out, 'xterm.css'));
