/**
 * A stack's containers as its engine shows them (GET /api/stacks/{name}/containers), read again on every
 * change of the engine the change feed brings (`live`): the stack's state in words, and a table of its
 * containers — service, name, state with exit code, health, image (tag, id, digest), ports as links,
 * started and finished, restarts — with the actions a row offers (its log, a console).
 */
import { api } from './api.js';
import { ContainerUse } from './container-stats.js';
import { absoluteTime, html, relativeTime, useRead } from './util.js';

/** @typedef {import('./api.js').Container} Container */
/** @typedef {import('./api.js').StackContainers} StackContainers */

/** A container's state in words: `running`, `exited (1)`, `restarting`, `dead (137)`. */
function containerState(/** @type {Container} */ c) {
  return c.exitCode !== null ? `${c.state} (${c.exitCode})` : c.state;
}

/** The stack's state in words, as the list and the stack page say it ("partial · 2 of 3 running"). */
function stackStateWords(/** @type {Pick<StackContainers, 'state' | 'containers'>} */ s) {
  const containers = s.containers ?? [];
  const running = containers.filter((c) => c.state === 'running').length;
  if (s.state === 'partial') return `partial · ${running} of ${containers.length} running`;
  return s.state;
}

/**
 * The stack's state as a badge, and the reason under an `unknown` one.
 * @param {{ status: Pick<StackContainers, 'state' | 'stateReason' | 'containers'> }} props
 */
export function StateBadge({ status }) {
  return html`<span class=${`badge ${stateClass(status.state)}`} data-testid="stack-state">${stackStateWords(status)}</span>${
    status.state === 'unknown' && status.stateReason
      ? html`<div class="muted state-reason" data-testid="state-reason">${status.stateReason}</div>`
      : null
  }`;
}

/** The badge class of a stack state (the run statuses' colours). */
const stateClass = (/** @type {string} */ state) =>
  state === 'running'
    ? 'status-success'
    : state === 'partial' || state === 'unhealthy'
      ? 'status-warning'
      : state === 'stopped'
        ? 'status-failed'
        : '';

/** The containers in numbers: "2 of 3 running · 1 unhealthy". */
export function containerCounts(/** @type {Container[] | null} */ containers) {
  if (containers === null) return '—';
  if (containers.length === 0) return 'none';
  const running = containers.filter((c) => c.state === 'running').length;
  const unhealthy = containers.filter((c) => c.health === 'unhealthy').length;
  const parts = [`${running} of ${containers.length} running`];
  if (unhealthy > 0) parts.push(`${unhealthy} unhealthy`);
  return parts.join(' · ');
}

/**
 * The stack's containers, read when `live` changes.
 * @param {string} name @param {import('./api.js').Env} env @param {number} live
 */
export function useContainers(name, env, live) {
  const { value: status, error } = useRead(() => api.containers(name, env), [name, env, live]);
  return { status, error };
}

const WILDCARD = new Set(['0.0.0.0', '::', '']);

/**
 * A published port as a link to it (the page's own host for a port on every address).
 * @param {{ port: Container['ports'][number] }} props
 */
function PortLink({ port }) {
  const text = `${port.hostPort === null ? '' : `${port.hostPort}→`}${port.containerPort}/${port.protocol}`;
  if (port.hostPort === null || port.protocol !== 'tcp') return html`<span class="port">${text}</span>`;
  const ip = port.hostIp ?? '';
  const host = WILDCARD.has(ip) ? location.hostname : ip.includes(':') ? `[${ip}]` : ip;
  return html`<a class="port" href=${`http://${host}:${port.hostPort}/`} target="_blank" rel="noopener noreferrer">${text}</a>`;
}

/** `sha256:0123456789ab…` as its first 12 hex digits. */
const shortId = (/** @type {string} */ id) => id.replace(/^sha256:/, '').slice(0, 12);

/** @param {{ at: string | null }} props */
function When({ at }) {
  if (!at) return html`<span class="muted">—</span>`;
  return html`<time datetime=${at} title=${absoluteTime(at)}>${relativeTime(at)}</time>`;
}

/**
 * `stats`: each container's last samples (container-stats.js).
 * @param {{ status: StackContainers | null, error: string | null, canEdit: boolean,
 *   stats?: Map<string, import('./api.js').StatsSample[]>,
 *   onLogs: (container: string) => void, onConsole?: (container: string) => void }} props
 */
export function ContainersPanel({ status, error, canEdit, stats, onLogs, onConsole }) {
  const head = html`<h2 id="containers-title">Containers</h2>`;
  if (!status)
    return html`<section class="containers" aria-labelledby="containers-title">${head}
      ${error ? html`<p class="error-line" role="alert">${error}</p>` : html`<p class="muted">Reading the engine…</p>`}
    </section>`;
  const containers = status.containers ?? [];
  return html`<section class="containers" aria-labelledby="containers-title">
    <div class="section-head">
      ${head}
      <${StateBadge} status=${status} />
    </div>
    ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    ${
      status.containers === null
        ? null
        : containers.length === 0
          ? html`<p class="muted" data-testid="no-containers">No container of this stack on its engine.</p>`
          : html`<div class="table-scroll"><table class="containers-table" data-testid="containers">
            <thead><tr><th scope="col">Service</th><th scope="col">Container</th><th scope="col">State</th>
              <th scope="col">Health</th><th scope="col">Image</th><th scope="col">Ports</th>
              <th scope="col">Started</th><th scope="col">Finished</th><th scope="col">Restarts</th>
              <th scope="col">Use</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>${containers.map(
              (c) => html`<tr data-container=${c.name} data-state=${c.state}>
                <td>${c.service ?? '—'}</td>
                <th scope="row">${c.name}</th>
                <td><span class=${`badge ${c.state === 'running' ? 'status-success' : c.state === 'exited' || c.state === 'dead' ? 'status-failed' : 'status-warning'}`}
                  data-testid="container-state">${containerState(c)}</span></td>
                <td data-testid="container-health">${c.health ?? '—'}</td>
                <td class="image"><span>${c.image}</span>
                  <span class="muted" title=${c.imageId}> ${shortId(c.imageId)}</span>
                  ${c.imageDigest ? html`<span class="muted digest" title=${c.imageDigest}> @${shortId(c.imageDigest.split('@')[1] ?? '')}</span>` : null}</td>
                <td>${c.ports.length === 0 ? html`<span class="muted">—</span>` : c.ports.map((p) => html`<${PortLink} port=${p} /> `)}</td>
                <td><${When} at=${c.startedAt} /></td>
                <td><${When} at=${c.state === 'running' ? null : c.finishedAt} /></td>
                <td>${c.restartCount}</td>
                <td>${c.state === 'running' ? html`<${ContainerUse} samples=${stats?.get(c.name)} />` : html`<span class="muted">—</span>`}</td>
                <td class="actions">
                  <button type="button" aria-label=${`Logs of ${c.name}`} onClick=${() => onLogs(c.name)}>Logs</button>
                  ${
                    canEdit && onConsole && c.state === 'running'
                      ? html`<button type="button" aria-label=${`Console in ${c.name}`} onClick=${() => onConsole(c.name)}>Console</button>`
                      : null
                  }
                </td>
              </tr>`,
            )}</tbody>
          </table></div>`
    }
  </section>`;
}
