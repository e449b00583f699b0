/**
 * The stacks web page. Preact with htm: small, no compile step of its own (esbuild only bundles the
 * modules and CodeMirror), components as plain functions. The route lives in the hash, so a sign-in
 * (first visit, or after the session ended) comes back to the same address.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, setUnauthorizedHandler } from './api.js';
import { AuditPage } from './audit.js';
import { changedStacks, isEngineChange, openChanges } from './changes.js';
import { EnginePage } from './engine-page.js';
import { GitCreate } from './git.js';
import { SettingsPage } from './settings.js';
import { StackPage } from './stack-page.js';
import { StacksList } from './stacks-list.js';
import { envFromParam, envParam, html, parseRoute, routeHref } from './util.js';

/** @typedef {import('./api.js').SessionUser} SessionUser */

function useRoute() {
  const [route, setRoute] = useState(parseRoute());
  useEffect(() => {
    const changed = () => setRoute(parseRoute());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

/** @param {{ onSignedIn: (user: SessionUser) => void, expired: boolean }} props */
function SignIn({ onSignedIn, expired }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);
  const submit = async (/** @type {Event} */ e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await api.signIn(token));
    } catch (err) {
      const status = /** @type {{ status?: number }} */ (err).status;
      setError(
        status === 401
          ? 'Wrong token: no user has this token.'
          : err instanceof Error
            ? err.message
            : String(err),
      );
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <form class="card" onSubmit=${submit} aria-labelledby="signin-title">
      <h1 id="signin-title">chronicle stacks</h1>
      ${expired ? html`<p class="muted" role="status">Your session ended; sign in again to go on where you were.</p>` : null}
      <label>Token <input type="password" name="token" autocomplete="current-password" required value=${token}
        onInput=${(/** @type {InputEvent} */ e) => setToken(/** @type {HTMLInputElement} */ (e.target).value)} /></label>
      ${error ? html`<p class="error-line" role="alert" data-testid="signin-error">${error}</p>` : null}
      <button type="submit" class="primary" disabled=${busy}>Sign in</button>
    </form>
  </main>`;
}

/** An engine as the switcher says it: " · Docker 20.10.24", " · unreachable", or nothing yet. */
const engineWords = (/** @type {import('./api.js').EngineReach | undefined} */ engine) =>
  engine === undefined ? '' : engine.reachable ? ` · Docker ${engine.version}` : ' · unreachable';

/**
 * What the switcher says the user may do in an environment: change it, or view only; for the local
 * environment reached by the global check (docs/security.md#the-local-environment), that it is so.
 * @param {import('./api.js').SessionEnv} e
 */
const mayWords = (e) =>
  !e.edit
    ? ' (view only)'
    : e.editByGlobalCheck
      ? ' (you may change: every edit grant reaches local)'
      : ' (you may change)';

function App() {
  const route = useRoute();
  const [user, setUser] = useState(/** @type {SessionUser | null | undefined} */ (undefined));
  const [expired, setExpired] = useState(false);
  const [tick, setTick] = useState(0);
  // Bumped by changes of the engines (containers): what reads their state reads it again.
  const [live, setLive] = useState(0);
  // The stacks whose containers changed with the last bump of `live` (changedStacks; null: any).
  const [liveStacks, setLiveStacks] = useState(/** @type {Set<string> | null} */ (null));

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setUser((was) => {
        if (was) setExpired(true);
        return null;
      });
    });
    api.session().then(setUser, () => setUser(null));
  }, []);

  // Live updates: every run or job change the user may see bumps `tick`, and the pages reload; a change
  // of a container bumps `live`, and what shows containers reloads.
  useEffect(() => {
    if (!user) return;
    return openChanges((changes) => {
      if (changes.some(isEngineChange)) {
        setLiveStacks(changedStacks(changes));
        setLive((n) => n + 1);
      }
      if (changes.some((c) => c.kind === 'engine')) setEngineTick((n) => n + 1);
      if (!changes.every(isEngineChange)) setTick((n) => n + 1);
    });
  }, [user]);

  // Each environment's engine: reachable, and its version (the switcher says so).
  const [engines, setEngines] = useState(
    /** @type {Map<string, import('./api.js').EngineReach>} */ (new Map()),
  );
  const [engineTick, setEngineTick] = useState(0);
  useEffect(() => {
    if (!user) return;
    let cancelled = false;
    api.engines().then(
      (all) => !cancelled && setEngines(new Map(all.map((e) => [envParam(e.environmentId), e]))),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [user, engineTick]);

  useEffect(() => {
    document.body.dataset.ready = user === undefined ? 'false' : 'true';
  }, [user]);

  if (user === undefined) return html`<p class="muted">Loading…</p>`;
  if (user === null)
    return html`<${SignIn} expired=${expired} onSignedIn=${(/** @type {SessionUser} */ u) => {
      setExpired(false);
      setUser(u);
    }} />`;

  const visible = user.environments.filter((e) => e.view);
  const asked = envFromParam(route.query.get('env'));
  const envEntry = visible.find((e) => e.id === asked) ?? visible[0];
  const env = envEntry ? envEntry.id : null;
  const canEdit = envEntry?.edit ?? false;
  const [section = '', name = ''] = route.path;
  /** Changes some query keys of the current route. */
  const navigate = (/** @type {Record<string, string | number | null | undefined>} */ changes) => {
    /** @type {Record<string, string>} */
    const query = {};
    route.query.forEach((value, key) => {
      query[key] = value;
    });
    const next = { ...query, ...changes };
    location.hash = routeHref(route.path, /** @type {Record<string, string>} */ (next));
  };
  const signOut = async () => {
    await api.signOut().catch(() => undefined);
    setUser(null);
  };

  let page;
  if (!envEntry) page = html`<p class="muted">Your user may view no environment's stacks.</p>`;
  else if (section === 'stack' && name)
    page = html`<${StackPage} key=${`${name}-${env}`} name=${name} env=${env} canEdit=${canEdit}
      tab=${route.query.get('tab') ?? 'compose'} job=${route.query.get('job')} tick=${tick} live=${live}
      container=${route.query.get('container')} consoleIn=${route.query.get('console')}
      openRun=${route.query.get('run') ? Number(route.query.get('run')) : null} navigate=${navigate} />`;
  else if (section === 'settings') page = html`<${SettingsPage} user=${user} tick=${tick} />`;
  else if (section === 'audit' && user.admin)
    page = html`<${AuditPage} environments=${user.environments} tick=${tick} />`;
  else if (section === 'engine' && user.admin)
    page = html`<${EnginePage} env=${env} envName=${envEntry.name} live=${live} />`;
  else if (section === 'git') page = html`<${GitCreate} env=${env} canEdit=${canEdit} />`;
  else
    page = html`<${StacksList} env=${env} canEdit=${canEdit} tick=${tick} live=${live} liveStacks=${liveStacks} />`;

  return html`
    <header class="top">
      <a class="brand" href=${routeHref([], { env: envParam(env) })}>chronicle stacks</a>
      <nav aria-label="Main">
        <a href=${routeHref([], { env: envParam(env) })}>Stacks</a>
        ${canEdit ? html`<a href=${routeHref(['git'], { env: envParam(env) })}>New git stack</a>` : null}
        <a href=${routeHref(['settings'], { env: envParam(env) })}>Settings</a>
        ${user.admin ? html`<a href=${routeHref(['audit'], { env: envParam(env) })}>Audit</a>` : null}
        ${user.admin ? html`<a href=${routeHref(['engine'], { env: envParam(env) })}>Engine</a>` : null}
        <a href=${api.apiDocumentUrl()} target="_blank" rel="noopener">API document</a>
      </nav>
      <label class="env">Environment
        <select value=${envParam(env)} onChange=${(/** @type {Event} */ e) => {
          location.hash = routeHref([], { env: /** @type {HTMLSelectElement} */ (e.target).value });
        }}>
          ${visible.map((e) => html`<option value=${envParam(e.id)} title=${engines.get(envParam(e.id))?.reason ?? ''}>${e.name}${engineWords(engines.get(envParam(e.id)))}${mayWords(e)}</option>`)}
        </select>
      </label>
      <span class="user" data-testid="user">${user.name}${user.admin ? ' (admin)' : ''}</span>
      <button type="button" onClick=${signOut}>Sign out</button>
    </header>
    <main>${page}</main>
  `;
}

render(html`<${App} />`, document.getElementById('app') ?? document.body);
