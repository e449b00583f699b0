/**
 * The audit trail (admins only; the header shows the link only to them): who did what and when, newest
 * first, filtered by user, stack, environment, type and time as `GET /api/audit` filters, paged, and the
 * same filter exported as NDJSON (a plain link: the session cookie goes with it).
 */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { absoluteTime, envParam, html, relativeTime, useRead } from './util.js';

const PAGE = 50;
/** The types the trail holds (docs/stacks.md#audit-trail); a prefix ending in `.` takes its family. */
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
  'job.cancelled',
  'run.deleted',
  'settings.changed',
  'webhook.delivery',
  'schedule.run',
  'notification.',
];

/** Keys whose number is a run's: shown as `#3`. */
const RUN_KEYS = new Set(['runId', 'redeployOf', 'rollbackOf']);

/** A details key in words: `composeHash` → "compose hash", `runId` → "run". */
const keyWords = (/** @type {string} */ key) =>
  (key === 'runId' ? 'run' : key).replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/**
 * An entry's details as labelled lines, not JSON: null values left out (absent), a switch set as its
 * names (`options: build, pull`), lists joined (`none` when empty), other objects by their inner keys.
 * @param {Record<string, unknown>} details
 * @param {string} [prefix]
 * @returns {Array<[string, string]>}
 */
function detailLines(details, prefix = '') {
  /** @type {Array<[string, string]>} */
  const lines = [];
  for (const [key, value] of Object.entries(details)) {
    const label = prefix + keyWords(key);
    if (value === null || value === undefined) continue;
    if (Array.isArray(value))
      lines.push([
        label,
        value.length
          ? value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ')
          : 'none',
      ]);
    else if (typeof value === 'object') {
      const entries = Object.entries(/** @type {Record<string, unknown>} */ (value));
      if (entries.every(([, v]) => typeof v === 'boolean'))
        lines.push([
          label,
          entries
            .filter(([, on]) => on)
            .map(([name]) => keyWords(name))
            .join(', ') || 'none',
        ]);
      else lines.push(...detailLines(/** @type {Record<string, unknown>} */ (value), `${label} `));
    } else if (typeof value === 'boolean') lines.push([label, value ? 'yes' : 'no']);
    else lines.push([label, RUN_KEYS.has(key) && typeof value === 'number' ? `#${value}` : String(value)]);
  }
  return lines;
}

/** A `datetime-local` value (local time) as ISO 8601, or undefined when empty. */
const isoOf = (/** @type {string} */ local) => (local ? new Date(local).toISOString() : undefined);

/** @param {{ environments: import('./api.js').SessionEnv[], tick: number }} props */
export function AuditPage({ environments, tick }) {
  const [form, setForm] = useState({ user: '', stack: '', env: '', type: '', since: '', until: '' });
  const [filter, setFilter] = useState(/** @type {import('./api.js').AuditFilter} */ ({}));
  const [offset, setOffset] = useState(0);
  const { value: page, error } = useRead(() => api.audit(filter, PAGE, offset), [filter, offset, tick]);

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
          <td><dl class="audit-details" data-testid="audit-details">${detailLines(entry.details).map(
            ([label, text]) => html`<div><dt>${label}</dt><dd>${text}</dd></div>`,
          )}</dl></td>
        </tr>`,
      )}</tbody>
    </table>
  </section>`;
}
