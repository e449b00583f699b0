/**
 * The deploys tab (after Dockhand's DeploysPanel): one row per run — status (a spinner while running),
 * when (relative; absolute on hover), duration, trigger with its icon, the summary in words, option
 * chips, the last error line — expanding to its details and the log viewer, loaded only when opened.
 * Delete and Redeploy ask to confirm and are hidden while the run runs and for a user without `edit`;
 * a redeploy opens its job's live output. Above the table, two runs compared (history.js); below it,
 * the stack's history settings.
 */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Confirm } from './confirm.js';
import { ComparePanel, HistorySettingsForm, OriginNote, RunContent } from './history.js';
import { LogViewer } from './log-viewer.js';
import {
  absoluteTime,
  countsWords,
  html,
  isRunning,
  lastLine,
  relativeTime,
  runDuration,
  summaryWords,
} from './util.js';

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
 * `blocked`: why a redeploy cannot run now (a job of the stack runs), or null.
 * @param {{ stack: string, env: import('./api.js').Env, runs: import('./api.js').Run[] | null, canEdit: boolean,
 *   openRun: number | null, setOpenRun: (id: number | null) => void, reload: () => void,
 *   onJob: (jobId: string) => void, blocked?: string | null }} props
 */
export function DeploysTab({
  stack,
  env,
  runs,
  canEdit,
  openRun,
  setOpenRun,
  reload,
  onJob,
  blocked = null,
}) {
  const [confirming, setConfirming] = useState(
    /** @type {{ id: number, action: 'delete' | 'redeploy' } | null} */ (null),
  );
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [compare, setCompare] = useState(/** @type {{ from: number, to: number } | null} */ (null));
  const settings = html`<${HistorySettingsForm} stack=${stack} env=${env} canEdit=${canEdit} />`;
  if (runs === null) return html`<p class="muted">Loading the deploys…</p>`;
  if (runs.length === 0)
    return html`<p class="muted" data-testid="no-runs">No deploys of this stack yet.</p>${settings}`;

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
  const redeploy = async (/** @type {number} */ id) => {
    setError(null);
    try {
      const ack = await api.redeploy(stack, id);
      setConfirming(null);
      onJob(ack.jobId);
      reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  /** The confirmation of an action on a run, in place of its button. */
  const confirm = (
    /** @type {import('./api.js').Run} */ run,
    /** @type {'delete' | 'redeploy'} */ action,
    /** @type {string} */ question,
    /** @type {() => void} */ go,
  ) =>
    confirming?.id === run.id && confirming.action === action
      ? html`<${Confirm} label=${`Confirm ${action}`} opener=${`open-${action}-${run.id}`} onCancel=${() => setConfirming(null)}>${question}
        <button type="button" class=${action === 'delete' ? 'danger' : 'primary'} onClick=${go}>${action === 'delete' ? 'Delete' : 'Redeploy'}</button>
        <button type="button" data-cancel onClick=${() => setConfirming(null)}>Cancel</button><//>`
      : html`<button type="button" id=${`open-${action}-${run.id}`} class=${action === 'delete' ? 'danger' : ''} aria-label=${`${action === 'delete' ? 'Delete' : 'Redeploy'} run ${run.id}`}
        disabled=${action === 'redeploy' && blocked !== null} title=${action === 'redeploy' && blocked !== null ? blocked : undefined}
        onClick=${() => setConfirming({ id: run.id, action })}>${action === 'delete' ? 'Delete' : 'Redeploy'}</button>`;

  return html`
    ${error ? html`<p class="error-line" role="alert" data-testid="deploys-error">${error}</p>` : null}
    <${ComparePanel} stack=${stack} runs=${runs} compare=${compare} setCompare=${setCompare} />
    <table class="runs stacked" data-testid="runs">
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
              <td data-label="When"><time datetime=${run.startedAt} title=${absoluteTime(run.startedAt)}>${relativeTime(run.startedAt)}</time></td>
              <td data-label="Duration">${runDuration(run)}</td>
              <td data-label="Trigger"><span data-testid="run-trigger">${TRIGGER_ICONS.get(run.trigger) ?? null} ${run.trigger}</span><${OriginNote} run=${run} /></td>
              <td data-label="Summary">
                <span data-testid="run-summary">${running ? '' : summaryWords(run.details.summary)}</span>
                ${run.errorMessage ? html`<div class="error-line" data-testid="run-error">${lastLine(run.errorMessage)}</div>` : null}
              </td>
              <td data-label="Options">${options.map(([name]) => html`<span class="chip">${name}</span>`)}</td>
              <td class="actions">
                ${
                  canEdit && !running
                    ? html`${confirm(run, 'redeploy', `Deploy again what run #${run.id} deployed?`, () => redeploy(run.id))}
                      ${confirm(run, 'delete', `Delete run #${run.id}?`, () => remove(run.id))}`
                    : null
                }
              </td>
            </tr>
            ${
              open
                ? html`<tr class="run-details" id=${`run-${run.id}-details`}><td colspan="7">
                  <${RunDetails} run=${run} />
                  <${RunContent} stack=${stack} run=${run} />
                  <${LogViewer} stack=${stack} run=${run} onRunEnd=${reload} />
                </td></tr>`
                : null
            }
          `;
        })}
      </tbody>
    </table>
    ${settings}
  `;
}

const CONTAINER_COUNTS = /** @type {const} */ ([
  ['containersCreated', 'created'],
  ['containersRecreated', 'recreated'],
  ['containersStarted', 'started'],
  ['containersRemoved', 'removed'],
]);
const IMAGE_COUNTS = /** @type {const} */ ([
  ['imagesPulled', 'pulled'],
  ['imagesBuilt', 'built'],
]);

/** @param {{ run: import('./api.js').Run }} props */
function RunDetails({ run }) {
  const d = run.details;
  const s = d.summary;
  return html`
    <dl class="details" data-testid="run-details">
      <dt>Started</dt><dd>${absoluteTime(run.startedAt)}</dd>
      <dt>Finished</dt><dd>${run.finishedAt ? absoluteTime(run.finishedAt) : 'still running'}</dd>
      <dt>Containers</dt><dd>${countsWords(s, CONTAINER_COUNTS)}</dd>
      <dt>Images</dt><dd>${countsWords(s, IMAGE_COUNTS)}</dd>
      <dt>Exit code</dt><dd>${d.exitCode ?? '—'}</dd>
      <dt>By</dt><dd>${d.userId ?? run.trigger}</dd>
      ${typeof d.redeployOf === 'number' ? html`<dt>Redeploy of</dt><dd>run #${d.redeployOf}</dd>` : null}
      ${typeof d.rollbackOf === 'number' ? html`<dt>Rollback of</dt><dd>run #${d.rollbackOf} (it failed)</dd>` : null}
      ${d.commit ? html`<dt>Commit</dt><dd><code>${d.commit}</code></dd>` : null}
      ${d.leftoversRemoved?.length ? html`<dt>Cleaned up</dt><dd data-testid="leftovers-removed">${d.leftoversRemoved.join(', ')}: left renamed by an interrupted compose, removed before compose up</dd>` : null}
      ${d.withheld ? html`<dt>Withheld</dt><dd>${d.withheld.lines} line${d.withheld.lines === 1 ? '' : 's'} withheld by redaction (each held a value too short to replace with ***); the log marks where</dd>` : null}
      ${d.truncated ? html`<dt>Log</dt><dd><span class="badge status-warning" data-testid="truncated">truncated</span></dd>` : null}
      ${run.errorMessage ? html`<dt>Error</dt><dd><pre class="error-line">${run.errorMessage}</pre></dd>` : null}
    </dl>
  `;
}
