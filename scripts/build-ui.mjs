/**
 * Bundles the stacks web page (src/http/stacks-ui) into dist/src/http/stacks-ui: one ES module with
 * Preact, htm, CodeMirror, ansi_up and xterm.js inside it (nothing is fetched from elsewhere at run time), its
 * stylesheet and index.html. Run by `npm run build`. api.ts (the typed calls) is TypeScript: esbuild
 * strips its types and bundles it with the rest (the `./api.js` imports resolve to it); its types, and
 * the JSDoc of the other files, are checked by `npm run lint` (src/http/stacks-ui/tsconfig.json).
 */
import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src/http/stacks-ui');
const out = join(root, 'dist/src/http/stacks-ui');
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(source, 'main.js')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
for (const file of ['index.html', 'app.css']) cpSync(join(source, file), join(out, file));
// The terminal's own stylesheet (the console, console.js), beside the page's.
cpSync(join(root, 'node_modules/@xterm/xterm/css/xterm.css'), join(out, 'xterm.css'));
