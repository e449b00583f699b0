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
  const [reloads, setReloads] = useState(0);
  const ran = () => setReloads((n) => n + 1);
  return html`<section aria-labelledby="settings-title">
    <h1 id="settings-title">Settings and schedules</h1>
    <${Schedule} user=${user} onRan=${ran} keys=${RECONCILE} />
    <${Schedule} user=${user} onRan=${ran} keys=${RETENTION} />
    ${user.admin ? html`<${Notifications} tick=${tick} />` : null}
    <${Executions} tick=${tick + reloads} />
  </section>`;
}

/**
 * A schedule of the settings: its keys, the words of its form, and its run now (the message it ends with).
 * @typedef {{ cronKey: 'deployLogReconcileCron' | 'deployRunRetentionCron',
 *   enabledKey: 'deployLogReconcileEnabled' | 'deployRunRetentionEnabled', title: string, about: string,
 *   name: string, cronLabel: string, enabledLabel: string, save: string, run: string,
 *   runNow: () => Promise<string> }} ScheduleKeys
 */

/** @type {ScheduleKeys} */
const RECONCILE = {
  cronKey: 'deployLogReconcileCron',
  enabledKey: 'deployLogReconcileEnabled',
  title: 'Deploy log reconcile',
  about: 'Deletes log files without a run and flags runs whose log is gone.',
  name: 'settings',
  cronLabel: 'Cron expression',
  enabledLabel: 'Enabled',
  save: 'Save settings',
  run: 'Run now',
  runNow: async () => {
    const row = await api.runReconcile();
    return `Reconcile ${row.status}: ${row.details?.deletedFiles ?? 0} files deleted, ${row.details?.markedRecords ?? 0} runs flagged.`;
  },
};

/** @type {ScheduleKeys} */
const RETENTION = {
  cronKey: 'deployRunRetentionCron',
  enabledKey: 'deployRunRetentionEnabled',
  title: 'Deploy-run retention',
  about:
    'Deletes the runs past each stack\'s "keep runs" or "keep days" (its deploys tab, or the config per environment); never a running one nor a stack\'s last successful run.',
  name: 'retention',
  cronLabel: 'Retention schedule (cron)',
  enabledLabel: 'Retention enabled',
  save: 'Save retention settings',
  run: 'Run retention now',
  runNow: async () => {
    const row = await api.runRetention();
    const kept = row.details.keptLastGood;
    return `Retention ${row.status}: ${row.details.deletedRuns.length} runs deleted${kept.length ? `, kept the last good run${kept.length > 1 ? 's' : ''} ${kept.map((id) => `#${id}`).join(', ')}` : ''}.`;
  },
};

/**
 * A schedule's cron and switch (admins change them; the server's message for a bad cron is shown) and
 * "Run now" (an admin or the stacks edit permission, as the server checks).
 * @param {{ user: import('./api.js').SessionUser, onRan: () => void, keys: ScheduleKeys }} props
 */
function Schedule({ user, onRan, keys }) {
  const [cron, setCron] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [message, setMessage] = useState('');
  const show = (/** @type {import('./api.js').Settings} */ s) => {
    setCron(s[keys.cronKey]);
    setEnabled(s[keys.enabledKey]);
  };
  useEffect(() => {
    api.settings().then(show, (e) => setError(e.message));
  }, []);
  const save = async (/** @type {Event} */ e) => {
    e.preventDefault();
    setError(null);
    setMessage('');
    try {
      show(await api.saveSettings({ [keys.cronKey]: cron, [keys.enabledKey]: enabled }));
      setMessage(keys.name === 'settings' ? 'Settings saved.' : `${keys.title} settings saved.`);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const runNow = async () => {
    setError(null);
    setMessage(`${keys.title} running…`);
    try {
      setMessage(await keys.runNow());
      onRan();
    } catch (err) {
      setMessage('');
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return html`<form class="card" onSubmit=${save} aria-label=${keys.title}>
    <h2>${keys.title}</h2>
    <p class="muted">${keys.about}</p>
    <label>${keys.cronLabel} <input name=${`${keys.name}-cron`} value=${cron} disabled=${!user.admin}
      onInput=${(/** @type {InputEvent} */ e) => setCron(/** @type {HTMLInputElement} */ (e.target).value)} /></label>
    <label><input type="checkbox" name=${`${keys.name}-enabled`} checked=${enabled} disabled=${!user.admin} onChange=${() => setEnabled(!enabled)} /> ${keys.enabledLabel}</label>
    <div class="buttons">
      ${user.admin ? html`<button type="submit" class="primary">${keys.save}</button>` : html`<span class="muted">Only an admin changes settings.</span>`}
      ${user.mayRunSchedules ? html`<button type="button" onClick=${runNow}>${keys.run}</button>` : null}
    </div>
    ${error ? html`<p class="error-line" role="alert" data-testid=${`${keys.name}-error`}>${error}</p>` : null}
    ${message ? html`<p class="ok-line" role="status" data-testid=${`${keys.name}-message`}>${message}</p>` : null}
  </form>`;
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
