import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { statusOf } from '../../stacks/errors.js';
import { type StacksFastify, UI_PAGE, UI_PREFIX } from './openapi.js';

/**
 * The stacks web page, served by the stacks surface itself: `GET /` is the page, `GET /ui/<file>` its
 * bundle (built by `npm run build` into dist/src/http/stacks/ui, scripts/build-ui.mjs). Neither needs a
 * token — they hold no data; the page signs in and then calls the API with its session cookie.
 */

const UI_DIR = fileURLToPath(new URL('./ui/', import.meta.url));

const TYPES = new Map([
  ['.html', 'text/html; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.png', 'image/png'],
  ['.svg', 'image/svg+xml'],
]);

/** The page's own scripts and styles only; CodeMirror sets inline styles, hence style-src 'unsafe-inline'. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Pages, not API (isPageRoute in stacks/openapi.ts): no token, no schemas, left out of the OpenAPI
 * document (`hide`).
 */
const page = { config: { withoutToken: true }, schema: { hide: true } };

/** A file of the bundle: `app.js`, `chunk-<hash>.js` (esbuild's hashes are upper case), styles. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function uiRoutes(app: StacksFastify): void {
  // Files are read once and kept: the bundle does not change while the server runs.
  const cache = new Map<string, Buffer>();
  const load = async (name: string): Promise<Buffer | undefined> => {
    const cached = cache.get(name);
    if (cached) return cached;
    try {
      const bytes = await readFile(join(UI_DIR, name));
      cache.set(name, bytes);
      return bytes;
    } catch {
      return undefined;
    }
  };

  app.get(UI_PAGE, page, async (_request, reply) => {
    const html = await load('index.html');
    if (!html)
      return reply
        .code(statusOf('page_not_built'))
        .send({ error: 'The web page is not built (npm run build)' });
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(html);
  });

  app.get(`${UI_PREFIX}/:file`, page, async (request, reply) => {
    const { file } = request.params as { file: string };
    const type = TYPES.get(extname(file));
    const bytes = FILE_NAME.test(file) && type ? await load(file) : undefined;
    if (!bytes || !type)
      return reply.code(statusOf('route_not_found')).send({ error: `No route GET /ui/${file}` });
    return reply
      .type(type)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(bytes);
  });
}
