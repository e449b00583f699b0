/** What every view shares: htm bound to Preact, routes in the address's hash, and formatting. */
import htm from 'htm';
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { TERMINAL_RUN_STATUSES } from '../../../../streams/stacks.js';

export const html = htm.bind(h);

/** @typedef {import('./api.js').Env} Env */

/**
 * The route in the hash: `#/` (stacks list), `#/stack/<name>`, `#/settings`, `#/audit`, `#/git`, with a query
 * (`env`, `tab`, `job`, `run`). The hash keeps the whole address, so a sign-in returns to it.
 * @returns {{ path: string[], query: URLSearchParams }}
 */
export function parseRoute(hash = location.hash) {
  const raw = hash.replace(/^#/, '') || '/';
  const [pathPart = '/', queryPart = ''] = raw.split('?');
  return {
    path: pathPart.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(queryPart),
  };
}

/** @param {string[]} path @param {Record<string, string | number | null | undefined>} [query] */
export function routeHref(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return `#/${path.map(encodeURIComponent).join('/')}${text ? `?${text}` : ''}`;
}

/** @param {string | null} value @returns {Env} */
export const envFromParam = (value) =>
  value === null || value === '' || value === 'null' ? null : Number(value);
/** @param {Env} env */
export const envParam = (env) => (env === null ? 'null' : String(env));

/** @param {string | null | undefined} iso */
export function relativeTime(iso, now = Date.now()) {
  if (!iso) return '';
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/** @param {string | null | undefined} iso */
export const absoluteTime = (iso) => (iso ? new Date(iso).toLocaleString() : '');

/** @param {number} ms */
export function duration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** @param {{ startedAt: string, finishedAt: string | null }} run */
export const runDuration = (run, now = Date.now()) =>
  duration((run.finishedAt ? Date.parse(run.finishedAt) : now) - Date.parse(run.startedAt));

const SUMMARY_WORDS = [
  ['containersCreated', 'created'],
  ['containersRecreated', 'recreated'],
  ['containersStarted', 'started'],
  ['containersRemoved', 'removed'],
  ['imagesPulled', 'image pulled', 'images pulled'],
  ['imagesBuilt', 'image built', 'images built'],
];

/**
 * The summary in words, e.g. "2 created · 1 started · 1 image built". No summary (compose printed
 * nothing) is unknown, never zero (spec).
 * @param {import('./api.js').Summary | undefined} summary
 */
export function summaryWords(summary) {
  if (!summary) return 'no summary';
  const parts = [];
  for (const [key, one, many] of SUMMARY_WORDS) {
    const count = Number(summary[/** @type {keyof typeof summary} */ (key)] ?? 0);
    if (count > 0) parts.push(`${count} ${count === 1 || !many ? one : many}`);
  }
  return parts.length > 0 ? parts.join(' · ') : 'no changes';
}

/**
 * Some counts of a summary in words, only those it holds ("1 created, 0 started"): a count the summary
 * lacks was not seen and is unknown, never zero (spec); with none of them, "unknown".
 * @param {import('./api.js').Summary | undefined} summary
 * @param {ReadonlyArray<readonly [string, string]>} counts each key with its word
 */
export function countsWords(summary, counts) {
  const parts = [];
  for (const [key, word] of counts) {
    const count = summary?.[/** @type {keyof import('./api.js').Summary} */ (key)];
    if (typeof count === 'number') parts.push(`${count} ${word}`);
  }
  return parts.length > 0 ? parts.join(', ') : 'unknown';
}

/** The run statuses that end a run: the service's own list (streams/stacks.ts imports no Node module). */
const TERMINAL = new Set(/** @type {readonly string[]} */ (TERMINAL_RUN_STATUSES));
/** @param {string} status */
export const isRunning = (status) => !TERMINAL.has(status);

/** The last line of an error message, the one that says what went wrong. */
export const lastLine = (/** @type {string | null} */ text) =>
  (text ?? '').trimEnd().split('\n').at(-1) ?? '';

/** Copies text, also where the Clipboard API is not offered (plain http on another host). */
export async function copyText(/** @type {string} */ text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** @param {string} name @param {string} text */
export function downloadText(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A failure as the page shows it: an Error's message, anything else as text. */
export const errorText = (/** @type {unknown} */ e) => (e instanceof Error ? e.message : String(e));

/**
 * What `read` answers, asked on the first render and again whenever one of `deps` changes: `value` is
 * the last answer (null until one came), `error` the last failure's text (null once an answer came).
 * What a read answers after a newer one started, or after the view left, is dropped. The setters let
 * the view change both between reads (a live update, an action's failure).
 * @template T
 * @param {() => Promise<T>} read
 * @param {unknown[]} deps
 */
export function useRead(read, deps) {
  const [value, setValue] = useState(/** @type {T | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const answered = (/** @type {T} */ answer) => {
    setValue(answer);
    setError(null);
  };
  useAnswer(read, answered, (e) => setError(errorText(e)), deps);
  return { value, error, setValue, setError };
}

/**
 * Asks `read` on the first render and again whenever one of `deps` changes, and hands its answer to
 * `answered` or its failure to `failed`, unless a newer read started, or the view left, before it came.
 * @template T
 * @param {() => Promise<T>} read
 * @param {(answer: T) => void} answered
 * @param {(error: unknown) => void} failed
 * @param {unknown[]} deps
 */
export function useAnswer(read, answered, failed, deps) {
  useEffect(() => {
    let cancelled = false;
    read().then(
      (answer) => !cancelled && answered(answer),
      (e) => !cancelled && failed(e),
    );
    return () => {
      cancelled = true;
    };
  }, deps);
}
