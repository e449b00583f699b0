/**
 * Git stacks: on a stack's page, its repository, branch, path, override files, cron, last commit, the
 * webhook URL to copy and a deploy that fetches first; and the form that creates one.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { copyText, envParam, html, routeHref } from './util.js';

/** @typedef {import('./api.js').GitStack} GitStack */

/**
 * The override files typed one per line (blank lines and surrounding spaces dropped), as `files` takes
 * them: compose reads them after the compose path, in this order.
 * @param {string} text
 */
const filesOf = (text) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/**
 * A text area of override files, one per line.
 * @param {{ value: string, onInput: (text: string) => void }} props
 */
function FilesField({ value, onInput }) {
  return html`<label>Override files (one per line, read after the compose path)
    <textarea rows="2" value=${value} autocomplete="off" spellcheck=${false} placeholder="none"
      onInput=${(/** @type {InputEvent} */ e) => onInput(/** @type {HTMLTextAreaElement} */ (e.target).value)} /></label>`;
}

/** @param {string} name @param {import('./api.js').Env} env */
const webhookUrl = (name, env) => `${location.origin}${api.webhookPath(name, env)}`;

/**
 * @param {{ name: string, env: import('./api.js').Env, canEdit: boolean, tick: number, onJob: (id: string) => void }} props
 */
export function GitPanel({ name, env, canEdit, tick, onJob }) {
  const [git, setGit] = useState(/** @type {GitStack | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [copied, setCopied] = useState('');
  useEffect(() => {
    let cancelled = false;
    api.gitStack(name, env).then(
      (g) => !cancelled && setGit(g),
      () => !cancelled && setGit(null),
    );
    return () => {
      cancelled = true;
    };
  }, [name, env, tick]);
  if (!git) return null;
  const url = webhookUrl(name, env);
  return html`<section class="card git" aria-label="Git source" data-testid="git-panel">
    <h2>Git source</h2>
    <dl class="details">
      <dt>Repository</dt><dd><code>${git.repository}</code></dd>
      <dt>Branch</dt><dd>${git.branch}</dd>
      <dt>Compose path</dt><dd><code>${git.composePath}</code></dd>
      <dt>Override files</dt><dd data-testid="git-files">${
        git.files.length === 0 ? 'none' : git.files.map((f, i) => html`${i > 0 ? ', ' : ''}<code>${f}</code>`)
      }</dd>
      <dt>Auto deploy</dt><dd>${git.autoDeployCron ?? 'off'}</dd>
      <dt>Last commit</dt><dd><code data-testid="git-commit">${git.lastCommit ?? '—'}</code></dd>
      <dt>Webhook</dt><dd>${
        git.webhookSecretSet
          ? html`<code>${url}</code> <button type="button" onClick=${async () => setCopied((await copyText(url)) ? 'Copied' : 'Copy failed')}>Copy URL</button> <span role="status">${copied}</span>`
          : 'no secret set (webhook refused)'
      }</dd>
    </dl>
    ${
      canEdit
        ? html`<button type="button" class="primary" onClick=${async () => {
            setError(null);
            try {
              onJob((await api.deployGitStack(name, env)).jobId);
            } catch (e) {
              setError(e instanceof Error ? e.message : String(e));
            }
          }}>Fetch and deploy</button>`
        : null
    }
    ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    ${canEdit ? html`<${GitSettings} name=${name} env=${env} git=${git} onSaved=${setGit} onJob=${onJob} />` : null}
  </section>`;
}

/**
 * Changes a git stack's settings (PUT /api/git-stacks/{name}): only the fields changed are sent; an
 * empty cron or secret clears it. "Save and redeploy" fetches with the new settings first and keeps them
 * only if they give a compose file.
 * @param {{ name: string, env: import('./api.js').Env, git: GitStack, onSaved: (g: GitStack) => void,
 *   onJob: (id: string) => void }} props
 */
function GitSettings({ name, env, git, onSaved, onJob }) {
  const initial = {
    repository: '',
    branch: git.branch,
    composePath: git.composePath,
    files: git.files.join('\n'),
    autoDeployCron: git.autoDeployCron ?? '',
    webhookSecret: '',
  };
  const [form, setForm] = useState(initial);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [message, setMessage] = useState('');
  if (!open) return html`<button type="button" onClick=${() => setOpen(true)}>Edit git settings</button>`;
  const save = async (/** @type {boolean} */ redeploy) => {
    setError(null);
    setMessage('');
    /** @type {import('./api.js').GitStackChanges} */
    const body = {};
    if (form.repository) body.repository = form.repository;
    if (form.branch !== git.branch) body.branch = form.branch;
    if (form.composePath !== git.composePath) body.composePath = form.composePath;
    const files = filesOf(form.files);
    if (files.join('\n') !== git.files.join('\n')) body.files = files;
    if (form.autoDeployCron !== (git.autoDeployCron ?? '')) body.autoDeployCron = form.autoDeployCron || null;
    if (form.webhookSecret) body.webhookSecret = form.webhookSecret;
    if (redeploy) body.redeploy = true;
    try {
      const answer = await api.updateGitStack(name, env, body);
      if ('jobId' in answer) onJob(answer.jobId);
      else {
        onSaved(answer);
        setMessage('Git settings saved.');
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const field = (
    /** @type {keyof typeof form} */ key,
    /** @type {string} */ label,
    type = 'text',
    hint = '',
  ) =>
    html`<label>${label} <input type=${type} value=${form[key]} autocomplete="off" placeholder=${hint}
      onInput=${(/** @type {InputEvent} */ e) => setForm({ ...form, [key]: /** @type {HTMLInputElement} */ (e.target).value })} /></label>`;
  return html`<div class="git-settings">
    ${field('repository', 'New repository URL', 'text', 'unchanged')} ${field('branch', 'Branch')}
    ${field('composePath', 'Compose path')}
    <${FilesField} value=${form.files} onInput=${(/** @type {string} */ text) => setForm({ ...form, files: text })} />
    ${field('autoDeployCron', 'Auto-deploy cron', 'text', 'off')}
    ${field('webhookSecret', 'New webhook secret', 'password', git.webhookSecretSet ? 'unchanged' : 'none')}
    <div class="buttons">
      <button type="button" onClick=${() => save(false)}>Save git settings</button>
      <button type="button" class="primary" onClick=${() => save(true)}>Save and redeploy</button>
      <button type="button" onClick=${() => setOpen(false)}>Close</button>
    </div>
    ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    ${message ? html`<p class="ok-line" role="status">${message}</p>` : null}
  </div>`;
}

/** @param {{ env: import('./api.js').Env, canEdit: boolean }} props */
export function GitCreate({ env, canEdit }) {
  const [form, setForm] = useState({
    name: '',
    repository: '',
    branch: 'main',
    composePath: 'compose.yaml',
    files: '',
    webhookSecret: '',
    autoDeployCron: '',
    deploy: true,
  });
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);
  if (!canEdit)
    return html`<p class="muted">Creating a git stack needs the stacks edit permission in this environment.</p>`;
  const field = (/** @type {keyof typeof form} */ key, /** @type {string} */ label, type = 'text') =>
    html`<label>${label} <input type=${type} name=${key} value=${String(form[key])} autocomplete="off"
      onInput=${(/** @type {InputEvent} */ e) => setForm({ ...form, [key]: /** @type {HTMLInputElement} */ (e.target).value })} /></label>`;
  const submit = async (/** @type {Event} */ e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    /** @type {import('./api.js').NewGitStack} */
    const body = {
      name: form.name,
      repository: form.repository,
      branch: form.branch,
      composePath: form.composePath,
      deploy: form.deploy,
    };
    const files = filesOf(form.files);
    if (files.length > 0) body.files = files;
    if (form.webhookSecret) body.webhookSecret = form.webhookSecret;
    if (form.autoDeployCron) body.autoDeployCron = form.autoDeployCron;
    try {
      const answer = await api.createGitStack(env, body);
      location.hash = routeHref(['stack', form.name], {
        env: envParam(env),
        job: 'jobId' in answer ? answer.jobId : undefined,
      });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="card" onSubmit=${submit} aria-labelledby="git-title">
    <h1 id="git-title">New git stack</h1>
    <p class="muted">The compose file comes from a branch of a repository; credentials go in the URL
      (<code>https://user:token@host/repo.git</code>) and are kept on the server only.</p>
    ${field('name', 'Name')} ${field('repository', 'Repository URL')} ${field('branch', 'Branch')}
    ${field('composePath', 'Compose path')}
    <${FilesField} value=${form.files} onInput=${(/** @type {string} */ text) => setForm({ ...form, files: text })} />
    ${field('webhookSecret', 'Webhook secret', 'password')}
    ${field('autoDeployCron', 'Auto-deploy cron (optional)')}
    <label><input type="checkbox" checked=${form.deploy} onChange=${() => setForm({ ...form, deploy: !form.deploy })} /> Deploy now</label>
    ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    <div class="buttons"><button type="submit" class="primary" disabled=${busy}>Create git stack</button></div>
  </form>`;
}
