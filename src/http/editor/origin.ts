/**
 * The editor's Origin rule (docs/security.md#the-editor): any origin may call the REST surface (the spec's
 * `Access-Control-Allow-Origin: *`), but a request a browser sent for a page that is not on this machine
 * may not touch the file system. A browser names the page in `Origin` on every cross-origin request —
 * also on the "simple" `text/plain` POSTs it sends without a preflight — and a page cannot leave it out
 * or change it; scripts and the reference client send none and are not affected.
 */

import type { Caller } from '../../editor/request.js';

/** The loopback hosts, as the WHATWG URL parser spells them. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * An origin as the URL parser normalises it (`scheme://host[:port]`, lower case, default port dropped),
 * or undefined when `text` is not the origin of an http(s) page: `null` (a sandboxed or file:// page),
 * another scheme, a path, a query, credentials.
 */
export function normalOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
  if (url.pathname !== '/' && url.pathname !== '') return undefined;
  return url.origin;
}

/** A page served from this machine over plain http: 127.0.0.1, localhost or [::1], any port. */
function loopbackOrigin(origin: string): boolean {
  if (!origin.startsWith('http://')) return false;
  return LOOPBACK_HOSTS.has(new URL(origin).hostname);
}

/**
 * Who may touch the file system, by the request's `Origin` header: a request without one, a loopback
 * page, or a page given with `--allow-origin`.
 */
export class OriginPolicy {
  private readonly allowed: ReadonlySet<string>;

  /** `allowed`: origins as `normalOrigin` gives them (the command line checks them). */
  constructor(allowed: readonly string[] = []) {
    this.allowed = new Set(allowed);
  }

  /**
   * Whether a request with this `Origin` header may touch files: none (not a browser's page), a loopback
   * page, or an allowed one. Two `Origin` headers arrive joined by a comma, which is no origin: refused.
   */
  grantsFiles(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    const normal = normalOrigin(origin);
    return normal !== undefined && (loopbackOrigin(normal) || this.allowed.has(normal));
  }

  /** The caller a request with this `Origin` header is, for the dispatcher. */
  callerOf(origin: string | undefined): Caller {
    return this.grantsFiles(origin) ? { files: true } : { files: false, origin: origin as string };
  }
}
