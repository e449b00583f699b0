/**
 * An environment's Docker engine, for admins (GET /api/engines/info): where it is, its version and
 * host, its containers and images, its disk use, and the compose program the stacks run with. Read
 * again when the engine's stream comes or goes (`live`). Below it, the compose projects chronicle
 * does not manage, to adopt (engine-projects.js).
 */
import { api } from './api.js';
import { EngineProjects } from './engine-projects.js';
import { html, useRead } from './util.js';

/** @param {number} n */
const bytes = (n) =>
  n >= 1024 ** 3
    ? `${(n / 1024 ** 3).toFixed(1)} GiB`
    : n >= 1024 ** 2
      ? `${(n / 1024 ** 2).toFixed(1)} MiB`
      : `${Math.round(n / 1024)} KiB`;

/** @param {{ env: import('./api.js').Env, envName: string, live: number }} props */
export function EnginePage({ env, envName, live }) {
  const { value: info, error } = useRead(() => api.engineInfo(env), [env, live]);
  return html`<section aria-labelledby="engine-title">
    <h1 id="engine-title">Engine of ${envName}</h1>
    ${error ? html`<p class="error-line" role="alert" data-testid="engine-error">${error}</p>` : null}
    ${!info && !error ? html`<p class="muted">Asking the engine…</p>` : null}
    ${
      info
        ? html`<dl class="details" data-testid="engine-info">
          <dt>Where</dt><dd>${info.where}</dd>
          <dt>Docker</dt><dd>${info.version} (API ${info.apiVersion})</dd>
          <dt>Host</dt><dd>${info.os}, kernel ${info.kernel}, ${info.architecture}, ${info.cpus} CPUs, ${bytes(info.memoryBytes)}</dd>
          <dt>Compose</dt><dd>${info.compose.command.join(' ')} ${info.compose.version ?? '(version unknown)'} (${info.compose.generation})</dd>
          <dt>Containers</dt><dd>${info.containers.total} (${info.containers.running} running, ${info.containers.paused} paused, ${info.containers.stopped} stopped)</dd>
          <dt>Images</dt><dd>${info.images}</dd>
          <dt>Disk</dt><dd>images ${bytes(info.disk.images)}, containers ${bytes(info.disk.containers)}, volumes ${bytes(info.disk.volumes)}, build cache ${bytes(info.disk.buildCache)}</dd>
        </dl>`
        : null
    }
    <${EngineProjects} env=${env} live=${live} />
  </section>`;
}
