/**
 * The deploys tab (after Dockhand's DeploysPanel): one row per run — status (a spinner while running),
 * when (relative; absolute on hover), duration, trigger with its icon, the summary in words, option
 * chips, the last error line — expanding to its details and the log viewer, loaded only when opened.
 * Delete asks to confirm and is hidden while the run runs and for a user without `edit`.
 */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { LogViewer } from './log-viewer.js';
import { absoluteTime, html, isRunning, lastLine, relativeTime, runDuration, summaryWords } from './util.js';

/** Small inline icons (no icon font: emoji glyphs are missing on many servers' browsers). */
const icon = (/** @type {string} */ d) =>
  html`<svg class="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false"><path d=${d} fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" /></svg>`;
const TRIGGER_ICONS = new Map([
  ['manual', icon('M8 8a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM2.5 15c.5-3 2.7-4.5 5.5-4.5s5 1.5 5.5 4.5')],
  [
    'webhook',
    icon('M6.5 9.5l3-3M7 4.5l1.5-1.5a2.8 2.8 0 0 1 4 4L11 8.5M9 11.5L7.5 13a2.8 2.8 0 0 1-4-4L5 7.5'),
  ],
  ['cron', icon('M8 15A7 7 0 1 0 8 1a7 7 0 0 0 0 14zM8 4v4l3 2')],
]);

/**
 * @param {{ stack: string, runs: import('./api.js').Run[] | null, canEdit: boolean, openRun: number | null,
 *   setOpenRun: (id: number | null) => void, reload: () => void }} props
 */
export function DeploysTab({ stack, runs, canEdit, openRun, setOpenRun, reload }) {
  const [confirming, setConfirming] = useState(/** @type {number | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  if (runs === null) return html`<p class="muted">Loading the deploys…</p>`;
  if (runs.length === 0)
    return html`<p class="muted" data-testid="no-runs">No deploys of this stack yet.</p>`;

  const remove = async (/** @type {number} */ id) => {
    setError(null);
    try {
      await api.deleteRun(stack, id);
      setConfirming(null);
      if (openRun === id) setOpenRun(null);
      reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  return html`
    ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    <table class="runs" data-testid="runs">
      <thead><tr><th scope="col">Status</th><th scope="col">When</th><th scope="col">Duration</th><th scope="col">Trigger</th>
        <th scope="col">Summary</th><th scope="col">Options</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>
        ${runs.map((run) => {
          const open = openRun === run.id;
          const running = isRunning(run.status);
          const options = Object.entries(run.details.options ?? {}).filter(([, on]) => on);
          return html`
            <tr class=${`run-row${open ? ' open' : ''}`} data-run=${run.id} data-status=${run.status}>
              <td>
                <button type="button" class="expander" aria-expanded=${open} aria-controls=${`run-${run.id}-details`}
                  onClick=${() => setOpenRun(open ? null : run.id)} aria-label=${`Run ${run.id}: ${run.status}, show details`}>
                  ${open ? '▾' : '▸'}
                </button>
                <span class=${`badge status-${run.status}`} data-testid="run-status">
                  ${running ? html`<span class="spinner" aria-hidden="true"></span>` : null}${run.status}
                </span>
                <span class="muted">#${run.id}</span>
              </td>
              <td><time datetime=${run.startedAt} title=${absoluteTime(run.startedAt)}>${relativeTime(run.startedAt)}</time></td>
              <td>${runDuration(run)}</td>
              <td data-testid="run-trigger">${TRIGGER_ICONS.get(run.trigger) ?? null} ${run.trigger}</td>
              <td>
                <span data-testid="run-summary">${running ? '' : summaryWords(run.details.summary)}</span>
                ${run.errorMessage ? html`<div class="error-line" data-testid="run-error">${lastLine(run.errorMessage)}</div>` : null}
              </td>
              <td>${options.map(([name]) => html`<span class="chip">${name}</span>`)}</td>
              <td class="actions">
                ${
                  canEdit && !running
                    ? confirming === run.id
                      ? html`<span role="group" aria-label="Confirm delete">Delete run #${run.id}?
                        <button type="button" class="danger" onClick=${() => remove(run.id)}>Delete</button>
                        <button type="button" onClick=${() => setConfirming(null)}>Cancel</button></span>`
                      : html`<button type="button" class="danger" aria-label=${`Delete run ${run.id}`}
                        onClick=${() => setConfirming(run.id)}>Delete</button>`
                    : null
                }
              </td>
            </tr>
            ${
              open
                ? html`<tr class="run-details" id=${`run-${run.id}-details`}><td colspan="7">
                  <${RunDetails} run=${run} />
                  <${LogViewer} stack=${stack} run=${run} onRunEnd=${reload} />
                </td></tr>`
                : null
            }
          `;
        })}
      </tbody>
    </table>
  `;
}

/** @param {{ run: import('./api.js').Run }} props */
function RunDetails({ run }) {
  const d = run.details;
  const s = d.summary;
  return html`
    <dl class="details" data-testid="run-details">
      <dt>Started</dt><dd>${absoluteTime(run.startedAt)}</dd>
      <dt>Finished</dt><dd>${run.finishedAt ? absoluteTime(run.finishedAt) : 'still running'}</dd>
      <dt>Containers</dt><dd>${s ? `${s.containersCreated} created, ${s.containersRecreated} recreated, ${s.containersStarted} started, ${s.containersRemoved} removed` : 'unknown'}</dd>
      <dt>Images</dt><dd>${s ? `${s.imagesPulled} pulled, ${s.imagesBuilt} built` : 'unknown'}</dd>
      <dt>Exit code</dt><dd>${d.exitCode ?? '—'}</dd>
      <dt>By</dt><dd>${d.userId ?? run.trigger}</dd>
      ${d.commit ? html`<dt>Commit</dt><dd><code>${d.commit}</code></dd>` : null}
      ${d.truncated ? html`<dt>Log</dt><dd><span class="badge status-warning" data-testid="truncated">truncated</span></dd>` : null}
      ${run.errorMessage ? html`<dt>Error</dt><dd><pre class="error-line">${run.errorMessage}</pre></dd>` : null}
    </dl>
  `;
}
