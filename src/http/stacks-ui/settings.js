/**
 * Settings and schedules: the reconcile and retention crons and their switches (admins change them; the
 * server's message for a bad cron is shown), "Run now" of each, the notification channels' test and
 * deliveries (admins), and the schedule executions, paged, filtered by type and status (the API pages
 * without filters, so the filters apply to the page shown), each row's details on demand.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { Notifications } from './notifications.js';
import { absoluteTime, html, relativeTime, summaryWords } from './util.js';

const PAGE = 20;

/** @param {{ user: import('./api.js').SessionUser, tick: number }} props */
export function SettingsPage({ user, tick }) {
  const [cron, setCron] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [message, setMessage] = useState('');
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    api.settings().then(
      (s) => {
        setCron(s.deployLogReconcileCron);
        setEnabled(s.deployLogReconcileEnabled);
      },
      (e) => setError(e.message),
    );
  }, []);

  const save = async (/** @type {Event} */ e) => {
    e.preventDefault();
    setError(null);
    setMessage('');
    try {
      const s = await api.saveSettings({ deployLogReconcileCron: cron, deployLogReconcileEnabled: enabled });
      setCron(s.deployLogReconcileCron);
      setEnabled(s.deployLogReconcileEnabled);
      setMessage('Settings saved.');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const runNow = async () => {
    setError(null);
    setMessage('Reconcile running…');
    try {
      const row = await api.runReconcile();
      setMessage(
        `Reconcile ${row.status}: ${row.details?.deletedFiles ?? 0} files deleted, ${row.details?.markedRecords ?? 0} runs flagged.`,
      );
      setReloads((n) => n + 1);
    } catch (err) {
      setMessage('');
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  return html`<section aria-labelledby="settings-title">
    <h1 id="settings-title">Settings and schedules</h1>
    <form class="card" onSubmit=${save} aria-label="Deploy log reconcile">
      <h2>Deploy log reconcile</h2>
      <p class="muted">Deletes log files without a run and flags runs whose log is gone.</p>
      <label>Cron expression <input name="cron" value=${cron} disabled=${!user.admin}
        onInput=${(/** @type {InputEvent} */ e) => setCron(/** @type {HTMLInputElement} */ (e.target).value)} /></label>
      <label><input type="checkbox" name="enabled" checked=${enabled} disabled=${!user.admin} onChange=${() => setEnabled(!enabled)} /> Enabled</label>
      <div class="buttons">
        ${user.admin ? html`<button type="submit" class="primary">Save settings</button>` : html`<span class="muted">Only an admin changes settings.</span>`}
        ${user.mayRunSchedules ? html`<button type="button" onClick=${runNow}>Run now</button>` : null}
      </div>
      ${error ? html`<p class="error-line" role="alert" data-testid="settings-error">${error}</p>` : null}
      ${message ? html`<p class="ok-line" role="status" data-testid="settings-message">${message}</p>` : null}
    </form>
    <${Retention} user=${user} onRan=${() => setReloads((n) => n + 1)} />
    ${user.admin ? html`<${Notifications} tick=${tick} />` : null}
    <${Executions} tick=${tick + reloads} />
  </section>`;
}

/** @param {{ tick: number }} props */
function Executions({ tick }) {
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState(
    /** @type {{ executions: Record<string, any>[], total: number } | null} */ (null),
  );
  const [type, setType] = useState('');
  const [status, setStatus] = useState('');
  const [open, setOpen] = useState(/** @type {string | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    api.executions(PAGE, offset).then(setPage, (e) => setError(e.message));
  }, [offset, tick]);
  const rows = (page?.executions ?? []).filter(
    (x) => (!type || x.scheduleType === type) && (!status || x.status === status),
  );
  const total = page?.total ?? 0;
  return html`<section class="card" aria-labelledby="executions-title">
    <h2 id="executions-title">Schedule executions</h2>
    <div class="filters">
      <label>Type <select value=${type} onChange=${(/** @type {Event} */ e) => setType(/** @type {HTMLSelectElement} */ (e.target).value)}>
        <option value="">all</option><option value="stack_deploy">stack_deploy</option><option value="deploy_log_reconcile">deploy_log_reconcile</option><option value="deploy_run_retention">deploy_run_retention</option>
      </select></label>
      <label>Status <select value=${status} onChange=${(/** @type {Event} */ e) => setStatus(/** @type {HTMLSelectElement} */ (e.target).value)}>
        <option value="">all</option>${['running', 'success', 'failed', 'warning'].map((s) => html`<option value=${s}>${s}</option>`)}
      </select></label>
      <span class="muted">${total ? `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : 'none'}</span>
      <button type="button" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Newer</button>
      <button type="button" disabled=${offset + PAGE >= total} onClick=${() => setOffset(offset + PAGE)}>Older</button>
    </div>
    ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    <table class="executions" data-testid="executions">
      <thead><tr><th scope="col">Type</th><th scope="col">Entity</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">When</th><th scope="col"><span class="sr-only">Details</span></th></tr></thead>
      <tbody>${rows.map((x) => {
        const key = `${x.scheduleType}-${x.id}`;
        return html`<tr data-type=${x.scheduleType}>
            <td>${x.scheduleType}</td><td>${x.entityName}</td>
            <td><span class=${`badge status-${x.status}`}>${x.status}</span></td><td>${x.trigger}</td>
            <td><time title=${absoluteTime(x.startedAt)}>${relativeTime(x.startedAt)}</time></td>
            <td><button type="button" aria-expanded=${open === key} onClick=${() => setOpen(open === key ? null : key)}>Details</button></td>
          </tr>
          ${
            open === key
              ? html`<tr><td colspan="6">
                ${x.scheduleType === 'stack_deploy' ? html`<p>${summaryWords(x.details?.summary)}</p>` : null}
                ${x.errorMessage ? html`<p class="error-line">${x.errorMessage}</p>` : null}
                <pre class="json">${JSON.stringify(x.details, null, 2)}</pre></td></tr>`
              : null
          }`;
      })}</tbody>
    </table>
  </section>`;
}

/**
 * The deploy-run retention's schedule: its cron and switch (admins), and "Run now" (an admin or the
 * stacks edit permission). The runs each stack keeps are set on its deploys tab.
 * @param {{ user: import('./api.js').SessionUser, onRan: () => void }} props
 */
function Retention({ user, onRan }) {
  const [cron, setCron] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [message, setMessage] = useState('');
  useEffect(() => {
    api.settings().then(
      (s) => {
        setCron(s.deployRunRetentionCron);
        setEnabled(s.deployRunRetentionEnabled);
      },
      (e) => setError(e.message),
    );
  }, []);
  const save = async (/** @type {Event} */ e) => {
    e.preventDefault();
    setError(null);
    setMessage('');
    try {
      const s = await api.saveSettings({ deployRunRetentionCron: cron, deployRunRetentionEnabled: enabled });
      setCron(s.deployRunRetentionCron);
      setEnabled(s.deployRunRetentionEnabled);
      setMessage('Retention settings saved.');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const runNow = async () => {
    setError(null);
    setMessage('Retention running…');
    try {
      const row = await api.runRetention();
      const kept = row.details.keptLastGood;
      setMessage(
        `Retention ${row.status}: ${row.details.deletedRuns.length} runs deleted${kept.length ? `, kept the last good run${kept.length > 1 ? 's' : ''} ${kept.map((id) => `#${id}`).join(', ')}` : ''}.`,
      );
      onRan();
    } catch (err) {
      setMessage('');
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return html`<form class="card" onSubmit=${save} aria-labelledby="retention-title">
    <h2 id="retention-title">Deploy-run retention</h2>
    <p class="muted">Deletes the runs past each stack's "keep runs" or "keep days" (its deploys tab, or the config per environment); never a running one nor a stack's last successful run.</p>
    <label>Retention schedule (cron) <input name="retention-cron" value=${cron} disabled=${!user.admin}
      onInput=${(/** @type {InputEvent} */ e) => setCron(/** @type {HTMLInputElement} */ (e.target).value)} /></label>
    <label><input type="checkbox" name="retention-enabled" checked=${enabled} disabled=${!user.admin} onChange=${() => setEnabled(!enabled)} /> Retention enabled</label>
    <div class="buttons">
      ${user.admin ? html`<button type="submit" class="primary">Save retention settings</button>` : null}
      ${user.admin || user.mayRunSchedules ? html`<button type="button" onClick=${runNow}>Run retention now</button>` : null}
    </div>
    ${error ? html`<p class="error-line" role="alert" data-testid="retention-error">${error}</p>` : null}
    ${message ? html`<p class="ok-line" role="status" data-testid="retention-message">${message}</p>` : null}
  </form>`;
}
