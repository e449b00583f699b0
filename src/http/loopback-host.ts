import { isIP } from 'node:net';

/** The loopback host names, as the WHATWG URL parser normalises them (`LOCALHOST`, `127.1`, `[0::1]`). */
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', 'localhost.', '[::1]']);

/**
 * Whether a `Host` header may reach a loopback listener: the editor's, its viewer's, the stacks server's
 * on a loopback address (the DNS-rebinding guard, docs/security.md). A
 * rebinding page's requests carry the page's own name (`evil.example:41223`), so what the guard must
 * refuse is any other name; a loopback name in any spelling, with any port (`ssh -L 8080:...` forwards
 * keep the client's), or no `Host` at all (HTTP/1.0, programs) can only come from this machine's own
 * pages and programs. A header that is not one host and port (a path, credentials) is refused.
 */
export function loopbackHost(host: string | undefined): boolean {
  if (host === undefined || host.trim() === '') return true;
  let url: URL;
  try {
    url = new URL(`http://${host.trim()}`);
  } catch {
    return false;
  }
  if (
    url.username !== '' ||
    url.password !== '' ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== ''
  )
    return false;
  return LOOPBACK_NAMES.has(url.hostname);
}

/**
 * Whether a listening address is this machine's loopback (`127.0.0.0/8`, `::1`, `localhost`): a server
 * bound there is reached by this machine's programs and pages only, so a `Host` naming anything else
 * comes from a page whose name was rebound to it.
 */
export function loopbackAddress(address: string): boolean {
  const host = address
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === 'localhost.') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) !== 6) return false;
  // As the URL parser writes it: `[::1]`, and `::ffff:127.0.0.1` as `[::ffff:7f00:1]`.
  const normal = new URL(`http://[${host}]`).hostname;
  return normal === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:/.test(normal);
}
