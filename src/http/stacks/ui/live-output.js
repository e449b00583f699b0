/**
 * A job's output as it arrives (GET /api/jobs/{id}/events): lines with their ANSI colours, status
 * messages, and a status line (running / ok / failed, duration, exit code). The lines show in the run
 * logs' viewer (log-viewer.js): only the visible ones are in the page, so a 100,000-line output costs
 * a few dozen elements, with its search, copy and download. Auto-scroll follows the end until the
 * person scrolls up, and resumes when they scroll back down (or ask to follow). The lines seen and the
 * last event id are kept in sessionStorage, so a reload shows them at once and resumes the stream after
 * them with `Last-Event-ID`. Closing the page only closes the stream: the job goes on on the server.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, openEventStream } from './api.js';
import { LogView } from './log-viewer.js';
import { duration, html } from './util.js';

/** Lines kept for a reload; past this the reload starts the stream from the first line instead. */
const CACHE_LINES = 5_000;

/** @typedef {{ kind: 'line' | 'status', text: string }} OutputLine */
/** @typedef {{ success: boolean, error?: string, exitCode?: number }} JobResult */

/** @param {string} jobId */
const cacheKey = (jobId) => `chronicle-job-${jobId}`;

/** @param {string} jobId @returns {{ lines: OutputLine[], lastId?: string, startedAt: number } | undefined} */
function cached(jobId) {
  try {
    const raw = sessionStorage.getItem(cacheKey(jobId));
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `notice` is what the page has to say of the job beyond its output (an automatic rollback that followed);
 * `more`, shown below the job's lines, what holds the rest of its output (a git deploy's compose lines
 * are in its run's log only).
 * @param {{ jobId: string, title?: string, notice?: unknown, more?: unknown,
 *   onDone?: (result: JobResult) => void, onClose?: () => void }} props
 */
export function LiveOutput({ jobId, title, notice, more, onDone, onClose }) {
  /** The texts of the lines and status messages, and which of them are status messages (by index). */
  const [lines, setLines] = useState(/** @type {string[]} */ ([]));
  const statuses = useRef(/** @type {Set<number>} */ (new Set()));
  const [result, setResult] = useState(/** @type {JobResult | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [startedAt, setStartedAt] = useState(Date.now());
  const [now, setNow] = useState(Date.now());
  const [follow, setFollow] = useState(true);
  const done = useRef(onDone);
  done.current = onDone;

  useEffect(() => {
    const saved = cached(jobId);
    /** @type {string[]} */
    const seen = [];
    /** @type {Set<number>} */
    const kinds = new Set();
    for (const line of saved?.lines ?? []) {
      if (line.kind === 'status') kinds.add(seen.length);
      seen.push(line.text);
    }
    statuses.current = kinds;
    let lastId = saved?.lastId;
    const start = saved?.startedAt ?? Date.now();
    setLines([...seen]);
    setResult(null);
    setError(null);
    setStartedAt(start);
    /** @type {JobResult | null} */
    let finished = null;
    let pending = false;
    const save = () => {
      try {
        // A finished job needs no resume point: a reload reads it whole (and storage stays small).
        if (finished) sessionStorage.removeItem(cacheKey(jobId));
        else if (seen.length <= CACHE_LINES) {
          /** @type {OutputLine[]} */
          const kept = seen.map((text, i) => ({ kind: kinds.has(i) ? 'status' : 'line', text }));
          sessionStorage.setItem(cacheKey(jobId), JSON.stringify({ lines: kept, lastId, startedAt: start }));
        } else sessionStorage.removeItem(cacheKey(jobId));
      } catch {}
    };
    // Lines arrive in bursts: render at most once a frame.
    const flush = () => {
      pending = false;
      setLines([...seen]);
      save();
    };
    const close = openEventStream(api.jobEventsUrl(jobId), {
      lastEventId: lastId,
      onMessage: (data, id) => {
        if (id !== undefined) lastId = id;
        const message = JSON.parse(data);
        if (message.type === 'line') seen.push(message.line);
        else if (message.type === 'status') {
          kinds.add(seen.length);
          seen.push(message.status);
        } else if (message.type === 'result') {
          finished = message;
          setResult(message);
          setNow(Date.now());
          done.current?.(message);
        }
        if (!pending) {
          pending = true;
          requestAnimationFrame(flush);
        }
      },
      reconnect: () => finished === null,
      onError: (e) =>
        setError(
          e.status === 404 ? 'This job is gone (finished jobs are kept for a while only).' : e.message,
        ),
    });
    return close;
  }, [jobId]);

  // The duration ticks while the job runs.
  useEffect(() => {
    if (result) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [result]);

  const state = error ? 'error' : result ? (result.success ? 'ok' : 'failed') : 'running';
  return html`
    <section class="live-output" aria-label="Live output" data-job=${jobId}>
      <header class="live-head">
        <strong>${title ?? 'Output'}</strong>
        <span class=${`badge status-${state}`} data-testid="job-state" role="status">
          ${state === 'running' ? html`<span class="spinner" aria-hidden="true"></span>` : null}${state}
        </span>
        <span data-testid="job-duration">${duration(Math.max(0, now - startedAt))}</span>
        ${result?.exitCode !== undefined ? html`<span data-testid="job-exit">exit code ${result.exitCode}</span>` : null}
        ${!follow ? html`<button type="button" onClick=${() => setFollow(true)}>Follow output</button>` : null}
        ${onClose ? html`<button type="button" onClick=${onClose} aria-label="Close output">✕</button>` : null}
      </header>
      ${result && !result.success && result.error ? html`<p class="error-line">${result.error}</p>` : null}
      ${notice ?? null}
      ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
      <${LogView} lines=${lines} problem=${null} live=${state === 'running'} following=${follow}
        setFollowing=${setFollow} fileName=${`job-${jobId}.txt`} label="Output lines" testId="output"
        textClass=${(/** @type {number} */ i) => (statuses.current.has(i) ? 'out-status' : 'out-line')} />
      ${more ?? null}
    </section>
  `;
}
