/**
 * The compose projects an engine runs that chronicle does not manage (GET /api/engines/projects), for
 * admins on the Engine page: each with its folder, files and containers, and **Adopt**, which makes it
 * a stack of the same name (POST …/adopt) and opens that stack. Read again on **Look again** and when
 * the engine's stream comes or goes (`live`): the page's change feed carries only managed containers.
 */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { envParam, errorText, html, routeHref, useRead } from './util.js';

/** @param {{ env: import('./api.js').Env, live: number }} props */
export function EngineProjects({ env, live }) {
  const [asked, setAsked] = useState(0);
  const [adopting, setAdopting] = useState(/** @type {string | null} */ (null));
  const { value: projects, error, setError } = useRead(() => api.engineProjects(env), [env, live, asked]);

  const adopt = async (/** @type {string} */ name) => {
    setAdopting(name);
    setError(null);
    try {
      await api.adoptProject(env, name);
      location.hash = routeHref(['stack', name], { env: envParam(env), tab: 'deploys' });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setAdopting(null);
    }
  };

  return html`<section aria-labelledby="projects-title">
    <h2 id="projects-title">Compose projects chronicle does not manage</h2>
    <p class="muted">Started on this engine by other means (<code>docker compose up</code> in a terminal, another tool).
      Adopt copies a project's compose file and <code>.env</code> into a stack of the same name and records its
      first run as adopted; its containers keep running.</p>
    <button type="button" onClick=${() => setAsked((n) => n + 1)}>Look again</button>
    ${error ? html`<p class="error-line" role="alert" data-testid="projects-error">${error}</p>` : null}
    ${projects && projects.length === 0 ? html`<p class="muted" data-testid="no-projects">None: every compose project of this engine is a stack.</p>` : null}
    ${
      projects && projects.length > 0
        ? html`<table data-testid="engine-projects">
          <thead><tr><th scope="col">Project</th><th scope="col">Folder</th><th scope="col">Compose files</th>
            <th scope="col">Containers</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${projects.map(
            (p) => html`<tr key=${p.name} data-project=${p.name}>
              <th scope="row">${p.name}</th>
              <td><code>${p.workingDir ?? 'not labelled'}</code></td>
              <td>${p.configFiles.map((f) => html`<div><code>${f}</code></div>`)}</td>
              <td data-testid="project-containers">${p.running} of ${p.containers.length} running</td>
              <td><button type="button" disabled=${adopting !== null} aria-label=${`Adopt ${p.name}`}
                onClick=${() => adopt(p.name)}>${adopting === p.name ? 'Adopting…' : 'Adopt'}</button></td>
            </tr>`,
          )}</tbody>
        </table>`
        : null
    }
  </section>`;
}
