/**
 * The audit trail (admins only; the header shows the link only to them): who did what and when, newest
 * first, filtered by user, stack, environment, type and time as `GET /api/audit` filters, paged, and the
 * same filter exported as NDJSON (a plain link: the session cookie goes with it).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { absoluteTime, envParam, html, relativeTime } from './util.js';

const PAGE = 50;
/** The types the trail holds (README, Audit trail); a prefix ending in `.` takes its family. */
const TYPES = [
  'stack.',
  'stack.created',
  'stack.compose_saved',
  'stack.variables_changed',
  'stack.deleted',
  'stack.history_settings_changed',
  'git_stack.configured',
  'deploy.',
  'deploy.started',
  'deploy.finished',
  'run.deleted',
  'settings.changed',
  'webhook.delivery',
  'schedule.run',
  'notification.',
];

/** A `datetime-local` value (local time) as ISO 8601, or undefined when empty. */
const isoOf = (/** @type {string} */ local) => (local ? new Date(local).toISOString() : undefined);

/** @param {{ environments: import('./api.js').SessionEnv[], tick: number }} props */
export function AuditPage({ environments, tick }) {
  const [form, setForm] = useState({ user: '', stack: '', env: '', type: '', since: '', until: '' });
  const [filter, setFilter] = useState(/** @type {import('./api.js').AuditFilter} */ ({}));
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState(
    /** @type {{ entries: import('./api.js').AuditEntry[], total: number } | null} */ (null),
  );
  const [error, setError] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    let cancelled = false;
    api.audit(filter, PAGE, offset).then(
      (p) => {
        if (cancelled) return;
        setPage(p);
        setError(null);
      },
      (e) => !cancelled && setError(e.message),
    );
    return () => {
      cancelled = true;
    };
  }, [filter, offset, tick]);

  const apply = (/** @type {Event} */ e) => {
    e.preventDefault();
    /** @type {import('./api.js').AuditFilter} */
    const next = {};
    for (const key of /** @type {const} */ (['user', 'stack', 'env', 'type']))
      if (form[key]) next[key] = form[key];
    const since = isoOf(form.since);
    const until = isoOf(form.until);
    if (since) next.since = since;
    if (until) next.until = until;
    setOffset(0);
    setFilter(next);
  };
  const field = (/** @type {keyof typeof form} */ key) => (/** @type {Event} */ e) =>
    setForm({ ...form, [key]: /** @type {HTMLInputElement} */ (e.target).value });
  const envName = (/** @type {number | null} */ id) =>
    environments.find((x) => x.id === id)?.name ?? String(id);
  const total = page?.total ?? 0;

  return html`<section aria-labelledby="audit-title">
    <div class="page-head">
      <h1 id="audit-title">Audit trail</h1>
      <a href=${api.auditExportUrl(filter)} download="audit.ndjson" data-testid="audit-export">Export as NDJSON</a>
    </div>
    <form class="card filters" onSubmit=${apply} aria-label="Audit filters">
      <label>User <input name="user" value=${form.user} onInput=${field('user')} /></label>
      <label>Stack <input name="stack" value=${form.stack} onInput=${field('stack')} /></label>
      <label>Environment <select name="env" value=${form.env} onChange=${field('env')}>
        <option value="">all</option>
        ${environments.map((x) => html`<option value=${envParam(x.id)}>${x.name}</option>`)}
      </select></label>
      <label>Type <input name="type" list="audit-types" value=${form.type} onInput=${field('type')} placeholder="deploy., run.deleted" /></label>
      <datalist id="audit-types">${TYPES.map((t) => html`<option value=${t} />`)}</datalist>
      <label>Since <input type="datetime-local" name="since" value=${form.since} onInput=${field('since')} /></label>
      <label>Until <input type="datetime-local" name="until" value=${form.until} onInput=${field('until')} /></label>
      <button type="submit" class="primary">Filter</button>
    </form>
    ${error ? html`<p class="error-line" role="alert" data-testid="audit-error">${error}</p>` : null}
    <div class="filters">
      <span class="muted" data-testid="audit-count">${total ? `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : 'none'}</span>
      <button type="button" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Newer</button>
      <button type="button" disabled=${offset + PAGE >= total} onClick=${() => setOffset(offset + PAGE)}>Older</button>
    </div>
    <table class="audit" data-testid="audit">
      <thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">User</th><th scope="col">Stack</th>
        <th scope="col">Environment</th><th scope="col">Details</th></tr></thead>
      <tbody>${(page?.entries ?? []).map(
        (entry) => html`<tr data-type=${entry.type}>
          <td><time datetime=${entry.at} title=${absoluteTime(entry.at)}>${relativeTime(entry.at)}</time></td>
          <td><code>${entry.type}</code></td><td>${entry.user ?? '—'}</td><td>${entry.stack ?? '—'}</td>
          <td>${entry.stack === null && entry.environmentId === null ? '—' : envName(entry.environmentId)}</td>
          <td><code class="audit-details">${JSON.stringify(entry.details)}</code></td>
        </tr>`,
      )}</tbody>
    </table>
  </section>`;
}
