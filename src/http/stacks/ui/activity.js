/**
 * The Activity tab: the stack's Start, Stop, Restart and Down that ended (GET …/activity), newest first —
 * status, what, who, when (relative; absolute on hover), duration, exit code, the last error line —
 * each expanding to its kept output (GET …/activity/{jobId}, loaded when opened) in the log viewer the
 * run logs use (log-viewer.js). They are jobs, not deploys: the deploys tab never lists them.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { LogView } from './log-viewer.js';
import { absoluteTime, html, lastLine, relativeTime, runDuration, useRead } from './util.js';

/** An operation in words, as its button names it. */
const OPERATION_WORDS = /** @type {const} */ ({
  start: 'Start',
  stop: 'Stop',
  restart: 'Restart',
  down: 'Down',
});

/**
 * `reload` changes after each job of the page and each change the feed reports: the list is read again.
 * @param {{ stack: string, env: import('./api.js').Env, reload: string }} props
 */
export function ActivityTab({ stack, env, reload }) {
  const { value: answer, error } = useRead(() => api.activity(stack, env), [stack, env, reload]);
  const operations = answer?.operations ?? null;
  const [open, setOpen] = useState(/** @type {string | null} */ (null));

  if (error && operations === null) return html`<p class="error-line" role="alert">${error}</p>`;
  if (operations === null) return html`<p class="muted">Loading the activity…</p>`;
  if (operations.length === 0)
    return html`<p class="muted" data-testid="no-activity">No Start, Stop, Restart or Down of this stack yet.</p>`;
  return html`
    ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    <table class="runs stacked" data-testid="activity">
      <caption class="sr-only">Start, Stop, Restart and Down of ${stack}, newest first</caption>
      <thead><tr><th scope="col">Status</th><th scope="col">Operation</th><th scope="col">By</th><th scope="col">When</th>
        <th scope="col">Duration</th><th scope="col">Exit code</th><th scope="col">Error</th></tr></thead>
      <tbody>
        ${operations.map((o) => {
          const shown = open === o.jobId;
          const what = OPERATION_WORDS[o.operation];
          return html`
            <tr class=${`run-row${shown ? ' open' : ''}`} data-job=${o.jobId} data-status=${o.status}>
              <td>
                <button type="button" class="expander" aria-expanded=${shown} aria-controls=${`operation-${o.jobId}`}
                  onClick=${() => setOpen(shown ? null : o.jobId)} aria-label=${`${what} ${relativeTime(o.finishedAt)}: ${o.status}, show output`}>
                  ${shown ? '▾' : '▸'}
                </button>
                <span class=${`badge status-${o.status}`} data-testid="operation-status">${o.status}</span>
              </td>
              <td data-label="Operation" data-testid="operation-name">${what}</td>
              <td data-label="By">${o.userId ?? 'unknown'}</td>
              <td data-label="When"><time datetime=${o.finishedAt} title=${absoluteTime(o.finishedAt)}>${relativeTime(o.finishedAt)}</time></td>
              <td data-label="Duration">${runDuration(o)}</td>
              <td data-label="Exit code" data-testid="operation-exit">${o.exitCode ?? '—'}</td>
              <td data-label="Error">${
                o.error
                  ? html`<span class="error-line">${lastLine(o.error)}</span>`
                  : o.status === 'cancelled'
                    ? `Cancelled by ${o.cancelledBy ?? 'a user'}`
                    : ''
              }</td>
            </tr>
            ${
              shown
                ? html`<tr class="run-details" id=${`operation-${o.jobId}`}><td colspan="7">
                  <${OperationOutput} stack=${stack} env=${env} operation=${o} />
                </td></tr>`
                : null
            }
          `;
        })}
      </tbody>
    </table>
  `;
}

/**
 * One operation's kept output (the last lines it printed, redacted), in the run logs' viewer.
 * @param {{ stack: string, env: import('./api.js').Env, operation: import('./api.js').Operation }} props
 */
function OperationOutput({ stack, env, operation }) {
  const [lines, setLines] = useState(/** @type {string[] | null} */ (null));
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    let cancelled = false;
    setLines(null);
    setProblem(null);
    api.operation(stack, env, operation.jobId).then(
      (answer) => !cancelled && setLines(answer.output),
      (e) => {
        if (cancelled) return;
        setLines([]);
        setProblem(`Cannot load its output: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [stack, env, operation.jobId]);
  const what = OPERATION_WORDS[operation.operation];
  const kept =
    operation.keptLines < operation.lines
      ? html`<p class="muted" data-testid="operation-kept">The last ${operation.keptLines.toLocaleString()} of its ${operation.lines.toLocaleString()} lines are kept.</p>`
      : null;
  return html`${kept}<${LogView} lines=${lines} problem=${problem} live=${false} following=${false}
    setFollowing=${() => {}} fileName=${`${stack}-${operation.operation}-${operation.jobId}.txt`}
    label=${`Output of ${what} (${absoluteTime(operation.finishedAt)})`} />`;
}
