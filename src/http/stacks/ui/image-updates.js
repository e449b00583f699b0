/**
 * Image updates of a stack's services on its page (GET …/updates, POST …/updates/check): per service
 * the image, the digest it runs and the registry's, "Update available" when they differ; **Check for
 * updates** asks the registries now, **Update** deploys with `pull` (a recorded run, its output shown
 * like any deploy's). Read again when the containers change (`live`) and after runs (`tick`).
 */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { absoluteTime, errorText, html, relativeTime, useRead } from './util.js';

const short = (/** @type {string | null} */ digest) =>
  digest === null ? '—' : digest.replace(/^sha256:/, '').slice(0, 12);

/**
 * @param {{ name: string, env: import('./api.js').Env, live: number, tick: number, canEdit: boolean,
 *   busy: boolean, onUpdate: () => void }} props
 */
export function ImageUpdates({ name, env, live, tick, canEdit, busy, onUpdate }) {
  const [checking, setChecking] = useState(false);
  const {
    value: updates,
    error,
    setValue: setUpdates,
    setError,
  } = useRead(() => api.imageUpdates(name, env), [name, env, live, tick]);

  const check = async () => {
    setChecking(true);
    try {
      setUpdates(await api.checkImageUpdates(name, env));
      setError(null);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setChecking(false);
    }
  };

  const services = updates?.services ?? [];
  const available = services.filter((s) => s.updateAvailable);
  return html`<section class="image-updates" aria-labelledby="updates-title">
    <div class="section-head">
      <h2 id="updates-title">Image updates</h2>
      <span data-testid="updates-summary">${
        updates === null
          ? ''
          : services.length === 0
            ? 'No container to check'
            : available.length > 0
              ? `${available.length} update${available.length === 1 ? '' : 's'} available`
              : services.some((s) => s.checkedAt !== null)
                ? 'Up to date'
                : 'Not checked yet'
      }</span>
      <button type="button" disabled=${checking} onClick=${check}>${checking ? 'Checking…' : 'Check for updates'}</button>
      ${
        canEdit && available.length > 0
          ? html`<button type="button" class="primary" disabled=${busy} onClick=${onUpdate}>Update</button>`
          : null
      }
    </div>
    ${error ? html`<p class="error-line" role="alert" data-testid="updates-error">${error}</p>` : null}
    ${
      services.length > 0
        ? html`<table data-testid="image-updates">
          <thead><tr><th scope="col">Service</th><th scope="col">Image</th><th scope="col">Running</th>
            <th scope="col">Registry</th><th scope="col">Status</th><th scope="col">Checked</th></tr></thead>
          <tbody>${services.map(
            (s) => html`<tr key=${s.service} data-service=${s.service}>
              <th scope="row">${s.service}</th>
              <td><code>${s.image}</code></td>
              <td title=${s.runningDigest ?? ''}><code>${short(s.runningDigest)}</code></td>
              <td title=${s.latestDigest ?? ''}><code>${short(s.latestDigest)}</code></td>
              <td data-testid="update-status">${
                s.updateAvailable
                  ? html`<span class="badge status-warning">Update available</span>`
                  : s.reason === null
                    ? html`<span class="badge status-success">Up to date</span>`
                    : html`<span class="muted">${s.reason}</span>`
              }</td>
              <td>${s.checkedAt ? html`<time datetime=${s.checkedAt} title=${absoluteTime(s.checkedAt)}>${relativeTime(s.checkedAt)}</time>` : html`<span class="muted">—</span>`}</td>
            </tr>`,
          )}</tbody>
        </table>`
        : null
    }
  </section>`;
}
