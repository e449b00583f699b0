/**
 * Why an attempt to send a notification got no HTTP answer, in words a person can act on. Node's fetch
 * throws `TypeError: fetch failed` for every network failure and keeps the reason in `cause` (a code
 * such as ECONNREFUSED, or an AggregateError of one per address tried); an abort by the attempt's
 * time-out is a `TimeoutError`. The words name the kind (connection refused, time-out, TLS, ...) and
 * keep the system's own message after it.
 */

interface Coded {
  code?: unknown;
  message?: unknown;
  name?: unknown;
  cause?: unknown;
  errors?: unknown;
}

const KINDS: ReadonlyArray<[RegExp, string]> = [
  [/^ECONNREFUSED$/, 'connection refused'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME)$/, 'host not found'],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET)$/, 'connection closed by the receiver'],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)$/, 'time-out connecting'],
  [/^(UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/, 'time-out waiting for the answer'],
  [/^(EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL)$/, 'host unreachable'],
  [
    /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)/,
    'TLS',
  ],
];

const asCoded = (value: unknown): Coded | undefined =>
  typeof value === 'object' && value !== null ? (value as Coded) : undefined;

/** The first error with a code in the cause chain (an AggregateError's own errors included). */
function coded(error: Coded | undefined, depth = 0): Coded | undefined {
  if (!error || depth > 5) return undefined;
  if (typeof error.code === 'string') return error;
  if (Array.isArray(error.errors))
    for (const inner of error.errors) {
      const found = coded(asCoded(inner), depth + 1);
      if (found) return found;
    }
  return coded(asCoded(error.cause), depth + 1);
}

/** Words for the failure of one attempt to `url` that waited at most `timeoutMs` for its answer. */
export function failureReason(error: unknown, timeoutMs: number, url?: string): string {
  const top = asCoded(error);
  if (top?.name === 'TimeoutError' || top?.name === 'AbortError')
    return `time-out: no answer within ${timeoutMs / 1000} s`;
  const cause = coded(top);
  if (cause) {
    const code = String(cause.code);
    const kind = KINDS.find(([pattern]) => pattern.test(code))?.[1] ?? code;
    const detail = typeof cause.message === 'string' ? cause.message.split('\n')[0]?.trim() : '';
    return detail && detail !== kind ? `${kind} (${detail})` : kind;
  }
  const innermost = asCoded(top?.cause) ?? top;
  const message = typeof innermost?.message === 'string' ? innermost.message : String(error);
  // fetch refuses, before connecting, the ports of the Fetch standard's list (9, 25, 6000, ...).
  if (message === 'bad port') {
    const port = url === undefined ? '' : new URL(url).port;
    return `port ${port ? `${port} ` : ''}refused by fetch before connecting (the Fetch standard's list of blocked ports)`;
  }
  return message === 'fetch failed' ? 'fetch failed (no reason given)' : message;
}
