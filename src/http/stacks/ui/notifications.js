/**
 * Notifications (admins): the config's channels, each with a test message, and the deliveries with
 * every attempt, paged, each naming (and linking) the stack and run it tells of. The server shows a channel's host only: its URL's path and token may be secret.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { absoluteTime, envParam, html, relativeTime, routeHref } from './util.js';

const PAGE = 20;

/** @param {{ stacks: string[] | null, environments: Array<number | null> | null }} channel */
const scopeOf = ({ stacks, environments }) =>
  [
    stacks ? `stacks ${stacks.join(', ')}` : 'every stack',
    environments ? `environments ${environments.map((e) => (e === null ? 'local' : e)).join(', ')}` : null,
  ]
    .filter(Boolean)
    .join('; ');

/**
 * Where a channel started: a channel that first appears starts at the log's head and is given nothing
 * of what happened before it.
 * @param {{ channel: string, position: number, at: string | null }} start
 */
const startLine = ({ channel, position, at }) =>
  at === null
    ? `${channel} started at position ${position}.`
    : html`${channel} started at position ${position} (<time title=${absoluteTime(at)}>${relativeTime(at)}</time>): no notifications of events before it.`;

/** @param {{ tick: number }} props */
export function Notifications({ tick }) {
  const [channels, setChannels] = useState(
    /** @type {import('./api.js').NotificationChannels['channels'] | null} */ (null),
  );
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState(/** @type {import('./api.js').DeliveriesPage | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [message, setMessage] = useState('');
  const [sent, setSent] = useState(0);
  useEffect(() => {
    api.notificationChannels().then(
      (answer) => setChannels(answer.channels),
      (e) => setError(e.message),
    );
  }, []);
  useEffect(() => {
    api.deliveries(PAGE, offset).then(setPage, (e) => setError(e.message));
  }, [offset, tick, sent]);
  const test = async (/** @type {string} */ channel) => {
    setError(null);
    setMessage('');
    try {
      const outcome = await api.testNotification(channel);
      if (outcome.ok) setMessage(`Test sent to ${channel} (HTTP ${outcome.status}).`);
      else setError(`The test to ${channel} failed: ${outcome.error ?? `HTTP ${outcome.status}`}`);
      setSent((n) => n + 1);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const total = page?.total ?? 0;
  return html`<section class="card" aria-labelledby="notifications-title">
    <h2 id="notifications-title">Notifications</h2>
    <p class="muted">Channels are set in the config (<code>notifications</code>).</p>
    ${channels !== null && channels.length === 0 ? html`<p class="muted">No channel is configured.</p>` : null}
    ${
      channels?.length
        ? html`<table data-testid="channels">
          <thead><tr><th scope="col">Channel</th><th scope="col">Type</th><th scope="col">Host</th><th scope="col">Events</th><th scope="col">Scope</th><th scope="col"><span class="sr-only">Test</span></th></tr></thead>
          <tbody>${channels.map(
            (c) => html`<tr data-channel=${c.name}>
              <td>${c.name}</td><td>${c.type}</td><td><code>${c.host}</code></td>
              <td>${c.events.join(', ')}</td><td>${scopeOf(c)}</td>
              <td><button type="button" aria-label=${`Send test to ${c.name}`} onClick=${() => test(c.name)}>Send test</button></td>
            </tr>`,
          )}</tbody>
        </table>`
        : null
    }
    ${error ? html`<p class="error-line" role="alert" data-testid="notification-error">${error}</p>` : null}
    ${message ? html`<p class="ok-line" role="status" data-testid="notification-message">${message}</p>` : null}
    <h3>Deliveries</h3>
    <div class="filters">
      <span class="muted">${total ? `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : 'none'}</span>
      <button type="button" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Newer deliveries</button>
      <button type="button" disabled=${offset + PAGE >= total} onClick=${() => setOffset(offset + PAGE)}>Older deliveries</button>
    </div>
    <table data-testid="deliveries">
      <thead><tr><th scope="col">Channel</th><th scope="col">Event</th><th scope="col">Stack</th><th scope="col">Run</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last attempt</th></tr></thead>
      <tbody>${(page?.deliveries ?? []).map((d) => {
        const last = d.attempts.at(-1);
        const state = d.state === 'delivered' ? 'success' : d.state === 'failed' ? 'failed' : 'running';
        return html`<tr data-channel=${d.channel} data-event=${d.event}>
          <td>${d.channel}</td><td>${d.event}</td>
          <td data-testid="delivery-stack">${d.stack === null ? '—' : html`<a href=${routeHref(['stack', d.stack], { env: envParam(d.environmentId) })}>${d.stack}</a>`}</td>
          <td data-testid="delivery-run">${
            d.stack === null || d.runId === null
              ? '—'
              : html`<a href=${routeHref(['stack', d.stack], { env: envParam(d.environmentId), tab: 'deploys', run: d.runId })}
                  aria-label=${`Run ${d.runId} of ${d.stack}`}>#${d.runId}</a>`
          }</td>
          <td><span class=${`badge status-${state}`}>${d.state}</span></td>
          <td>${d.attempts.length}</td>
          <td>${last ? html`<time title=${absoluteTime(last.at)}>${relativeTime(last.at)}</time> ${last.ok ? `HTTP ${last.status}` : html`<span class="error-line">${last.error ?? `HTTP ${last.status}`}</span>`}` : '—'}</td>
        </tr>`;
      })}</tbody>
    </table>
    ${
      page?.starts.length
        ? html`<ul class="muted" data-testid="channel-starts">${page.starts.map(
            (s) => html`<li data-channel=${s.channel}>${startLine(s)}</li>`,
          )}</ul>`
        : null
    }
  </section>`;
}
