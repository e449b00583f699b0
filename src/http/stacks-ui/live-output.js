/**
 * A job's output as it arrives (GET /api/jobs/{id}/events): lines with their ANSI colours, status
 * messages, and a status line (running / ok / failed, duration, exit code). Auto-scroll follows the
 * end until the person scrolls up, and resumes when they scroll back down. The lines seen and the last
 * event id are kept in sessionStorage, so a reload shows them at once and resumes the stream after them
 * with `Last-Event-ID`. Closing the page only closes the stream: the job goes on on the server.
 */
import { AnsiUp } from 'ansi_up';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, openEventStream } from './api.js';
import { duration, html } from './util.js';

/** Lines kept for a reload; past this the reload starts the stream from the first line instead. */
const CACHE_LINES = 5_000;

/** @typedef {{ kind: 'line' | 'status', text: string }} OutputLine */
/** @typedef {{ success: boolean, error?: string, exitCode?: number }} JobResult */

const ansi = new AnsiUp();
ansi.use_classes = true;

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
 * `notice` is what the page has to say of the job beyond its output (an automatic rollback that followed).
 * @param {{ jobId: string, title?: string, notice?: unknown, onDone?: (result: JobResult) => void,
 *   onClose?: () => void }} props
 */
export function LiveOutput({ jobId, title, notice, onDone, onClose }) {
  const [lines, setLines] = useState(/** @type {OutputLine[]} */ ([]));
  const [result, setResult] = useState(/** @type {JobResult | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [startedAt, setStartedAt] = useState(Date.now());
  const [now, setNow] = useState(Date.now());
  const [follow, setFollow] = useState(true);
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));
  const done = useRef(onDone);
  done.current = onDone;

  useEffect(() => {
    const saved = cached(jobId);
    /** @type {OutputLine[]} */
    const seen = saved ? [...saved.lines] : [];
    let lastId = saved?.lastId;
    const start = saved?.startedAt ?? Date.now();
    setLines(seen);
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
        else if (seen.length <= CACHE_LINES)
          sessionStorage.setItem(cacheKey(jobId), JSON.stringify({ lines: seen, lastId, startedAt: start }));
        else sessionStorage.removeItem(cacheKey(jobId));
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
        if (message.type === 'line') seen.push({ kind: 'line', text: message.line });
        else if (message.type === 'status') seen.push({ kind: 'status', text: message.status });
        else if (message.type === 'result') {
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

  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines, follow]);

  const onScroll = () => {
    const el = box.current;
    if (!el) return;
    setFollow(el.scrollTop + el.clientHeight >= el.scrollHeight - 8);
  };

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
      <div class="output-lines" ref=${box} onScroll=${onScroll} tabindex="0" aria-label="Output lines" data-testid="output-lines">
        ${lines.map(
          (line) =>
            html`<div class=${line.kind === 'status' ? 'out-status' : 'out-line'} dangerouslySetInnerHTML=${{
              __html: ansi.ansi_to_html(line.text),
            }}></div>`,
        )}
      </div>
    </section>
  `;
}
