/**
 * Deploy history on the stack page (docs/stacks.md#deploy-history-what-each-run-deployed-diff-redeploy-rollback): what a run deployed (its compose text and variables, a
 * secret by name only), the diff of two runs, the origin of a redeploy or rollback, and the stack's
 * history settings (auto-rollback, retention). The server words every refusal; it is shown as it is.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { errorText, html } from './util.js';

/** @typedef {import('./api.js').Run} Run */

/** `details.redeployOf` / `details.rollbackOf` of a run (loose fields of the run's details). */
function originOf(/** @type {Run} */ run) {
  const { redeployOf, rollbackOf } = run.details;
  return {
    redeployOf: typeof redeployOf === 'number' ? redeployOf : null,
    rollbackOf: typeof rollbackOf === 'number' ? rollbackOf : null,
  };
}

/**
 * "redeploy of #1", or "rollback of #3" (a rollback is also a redeploy: it names the failed run).
 * @param {{ run: Run }} props
 */
export function OriginNote({ run }) {
  const { redeployOf, rollbackOf } = originOf(run);
  if (rollbackOf !== null)
    return html`<div class="muted" data-testid="run-origin">rollback of #${rollbackOf} (redeploy of #${redeployOf})</div>`;
  if (redeployOf !== null)
    return html`<div class="muted" data-testid="run-origin">redeploy of #${redeployOf}</div>`;
  return null;
}

/** The newest successful run: what Roll back redeploys (the server's auto-rollback picks the same). */
export const lastGood = (/** @type {Run[]} */ runs) =>
  runs.find((r) => r.status === 'success' || r.status === 'adopted') ?? null;

/**
 * Which run to compare with which, and their diff. `from` defaults to the second newest run, `to` to
 * the newest: "what the last deploy changed".
 * @param {{ stack: string, runs: Run[], compare: { from: number, to: number } | null,
 *   setCompare: (c: { from: number, to: number } | null) => void }} props
 */
export function ComparePanel({ stack, runs, compare, setCompare }) {
  const [from, setFrom] = useState(compare?.from ?? runs[1]?.id ?? runs[0]?.id ?? 0);
  const [to, setTo] = useState(compare?.to ?? runs[0]?.id ?? 0);
  const [diff, setDiff] = useState(/** @type {import('./api.js').RunDiff | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    if (compare) {
      setFrom(compare.from);
      setTo(compare.to);
    }
  }, [compare?.from, compare?.to]);
  useEffect(() => {
    if (!compare) return setDiff(null);
    let cancelled = false;
    setError(null);
    api.runDiff(stack, compare.from, compare.to).then(
      (d) => !cancelled && setDiff(d),
      (e) => {
        if (cancelled) return;
        setDiff(null);
        setError(errorText(e));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [stack, compare?.from, compare?.to]);
  if (runs.length < 2) return null;
  const pick = (
    /** @type {string} */ label,
    /** @type {number} */ value,
    /** @type {(n: number) => void} */ set,
  ) =>
    html`<label>${label} <select value=${String(value)}
      onChange=${(/** @type {Event} */ e) => set(Number(/** @type {HTMLSelectElement} */ (e.target).value))}>
      ${runs.map((r) => html`<option value=${String(r.id)}>#${r.id} ${r.status}</option>`)}
    </select></label>`;
  return html`<section class="compare" aria-label="Compare runs">
    <form class="filters" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      setCompare({ from, to });
    }}>
      ${pick('From run', from, setFrom)} ${pick('To run', to, setTo)}
      <button type="submit">Compare</button>
      ${compare ? html`<button type="button" onClick=${() => setCompare(null)}>Close diff</button>` : null}
    </form>
    ${error ? html`<p class="error-line" role="alert" data-testid="diff-error">${error}</p>` : null}
    ${compare && diff ? html`<${DiffView} diff=${diff} />` : null}
  </section>`;
}

/** A line of a unified diff: its class by its first character (headers and hunks apart). */
/** An image as a run recorded it: its reference and what pins it (the registry digest, else the image id). */
const imageText = (
  /** @type {{ image: string, imageId: string, repoDigest: string | null } | null} */ image,
) => (image ? `${image.image} (${image.repoDigest ?? image.imageId})` : 'none');

const lineClass = (/** @type {string} */ line) =>
  line.startsWith('+++') || line.startsWith('---') || line.startsWith('===')
    ? 'diff-head'
    : line.startsWith('@@')
      ? 'diff-hunk'
      : line.startsWith('+')
        ? 'diff-add'
        : line.startsWith('-')
          ? 'diff-del'
          : '';

/** @param {{ diff: import('./api.js').RunDiff }} props */
function DiffView({ diff }) {
  const v = diff.variables;
  const variables = [
    ...v.added.map((x) => ({ name: x.name, change: x.secret ? 'added (secret)' : `added: ${x.value}` })),
    ...v.removed.map((x) => ({ name: x.name, change: 'removed' })),
    ...v.changed.map((x) => ({
      name: x.name,
      change: x.secret
        ? x.secretChanged
          ? 'changed (became or stopped being a secret)'
          : 'changed'
        : `${x.from ?? ''} → ${x.to ?? ''}`,
    })),
  ];
  const patch = diff.compose.patch.replace(/\n$/, '').split('\n');
  return html`<div class="diff" data-testid="diff" aria-label=${`Changes from run ${diff.from} to run ${diff.to}`} role="region">
    <h3>Compose file</h3>
    ${
      diff.compose.changed
        ? html`<pre class="diff-patch" data-testid="diff-compose">${patch.map(
            (line) => html`<div class=${lineClass(line)}>${line || ' '}</div>`,
          )}</pre>`
        : html`<p class="muted">unchanged</p>`
    }
    <h3>Variables</h3>
    ${
      variables.length === 0
        ? html`<p class="muted">unchanged</p>`
        : html`<ul data-testid="diff-variables">${variables.map((x) => html`<li><code>${x.name}</code> ${x.change}</li>`)}</ul>`
    }
    ${diff.secretProvider ? html`<p>Secret provider: ${diff.secretProvider.from ?? 'none'} → ${diff.secretProvider.to ?? 'none'}</p>` : null}
    <h3>Options</h3>
    ${
      diff.options.length === 0
        ? html`<p class="muted">unchanged</p>`
        : html`<ul data-testid="diff-options">${diff.options.map((o) => html`<li><code>${o.name}</code> ${o.from ? 'on' : 'off'} → ${o.to ? 'on' : 'off'}</li>`)}</ul>`
    }
    ${
      diff.images.length > 0
        ? html`<h3>Images</h3><ul data-testid="diff-images">${diff.images.map(
            (i) => html`<li><code>${i.service}</code> ${imageText(i.from)} → ${imageText(i.to)}</li>`,
          )}</ul>`
        : null
    }
    ${diff.commit ? html`<h3>Commit</h3><p data-testid="diff-commit"><code>${diff.commit.from ?? 'none'}</code> → <code>${diff.commit.to ?? 'none'}</code></p>` : null}
  </div>`;
}

/**
 * What a run deployed, loaded when asked: its compose text and its variables (a secret by name only).
 * @param {{ stack: string, run: Run }} props
 */
export function RunContent({ stack, run }) {
  const [shown, setShown] = useState(false);
  const [content, setContent] = useState(
    /** @type {{ compose: import('./api.js').RunCompose, variables: import('./api.js').RunVariables } | null} */ (
      null
    ),
  );
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const show = async () => {
    setShown(!shown);
    if (shown || content) return;
    try {
      const [compose, variables] = await Promise.all([
        api.runCompose(stack, run.id),
        api.runVariables(stack, run.id),
      ]);
      setContent({ compose, variables });
    } catch (e) {
      setError(errorText(e));
    }
  };
  return html`<div class="run-content">
    <button type="button" aria-expanded=${shown} onClick=${show}>What run #${run.id} deployed</button>
    ${shown && error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    ${
      shown && content
        ? html`<div data-testid="run-content">
          <h3>Compose file <span class="muted">(sha256 ${content.compose.composeHash.slice(0, 12)})</span></h3>
          <pre class="json">${content.compose.compose}</pre>
          <h3>Variables</h3>
          ${
            content.variables.variables.length === 0
              ? html`<p class="muted">none</p>`
              : html`<ul>${content.variables.variables.map(
                  (x) =>
                    html`<li><code>${x.name}</code> ${x.secret ? html`<span class="chip">secret</span>` : `= ${x.value}`}</li>`,
                )}</ul>`
          }
        </div>`
        : null
    }
  </div>`;
}

/**
 * Auto-rollback and retention of one stack; a user without `edit` sees them without a Save.
 * @param {{ stack: string, env: import('./api.js').Env, canEdit: boolean }} props
 */
export function HistorySettingsForm({ stack, env, canEdit }) {
  const [autoRollback, setAutoRollback] = useState(false);
  const [keepRuns, setKeepRuns] = useState('');
  const [keepDays, setKeepDays] = useState('');
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [message, setMessage] = useState('');
  const show = (/** @type {import('./api.js').HistorySettings} */ s) => {
    setAutoRollback(s.autoRollback);
    setKeepRuns(s.keepRuns === null ? '' : String(s.keepRuns));
    setKeepDays(s.keepDays === null ? '' : String(s.keepDays));
  };
  useEffect(() => {
    api.historySettings(stack, env).then(show, (e) => setError(errorText(e)));
  }, [stack, env]);
  /** Empty is "no limit" (null); anything else goes as a number, for the server to judge. */
  const count = (/** @type {string} */ text) => (text.trim() === '' ? null : Number(text));
  const save = async (/** @type {Event} */ e) => {
    e.preventDefault();
    setError(null);
    setMessage('');
    try {
      show(
        await api.saveHistorySettings(stack, env, {
          autoRollback,
          keepRuns: count(keepRuns),
          keepDays: count(keepDays),
        }),
      );
      setMessage('History settings saved.');
    } catch (err) {
      setError(errorText(err));
    }
  };
  const input = (/** @type {(v: string) => void} */ set) => (/** @type {InputEvent} */ e) =>
    set(/** @type {HTMLInputElement} */ (e.target).value);
  return html`<form class="card" onSubmit=${save} aria-labelledby="history-settings-title" data-testid="history-settings">
    <h2 id="history-settings-title">History settings</h2>
    <label><input type="checkbox" checked=${autoRollback} disabled=${!canEdit} onChange=${() => setAutoRollback(!autoRollback)} />
      Auto-rollback (a failed deploy redeploys the last successful run)</label>
    <label>Keep runs <input type="number" value=${keepRuns} disabled=${!canEdit} placeholder="all" onInput=${input(setKeepRuns)} /></label>
    <label>Keep days <input type="number" value=${keepDays} disabled=${!canEdit} placeholder="no limit" onInput=${input(setKeepDays)} /></label>
    ${canEdit ? html`<button type="submit">Save history settings</button>` : null}
    ${error ? html`<p class="error-line" role="alert" data-testid="history-settings-error">${error}</p>` : null}
    ${message ? html`<p class="ok-line" role="status">${message}</p>` : null}
  </form>`;
}
