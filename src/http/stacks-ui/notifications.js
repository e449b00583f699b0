/**
 * Notifications (admins): a test message to a channel, and the deliveries with every attempt, paged.
 * The channels are the config's (no route lists them), so the name is typed, offered from the channels
 * the deliveries name; an unknown one is the server's 404 message.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { absoluteTime, html, relativeTime } from './util.js';

const PAGE = 20;

/** @param {{ tick: number }} props */
export function Notifications({ tick }) {
  const [channel, setChannel] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState(/** @type {import('./api.js').DeliveriesPage | null} */ (null));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [message, setMessage] = useState('');
  const [sent, setSent] = useState(0);
  useEffect(() => {
    api.deliveries(PAGE, offset).then(setPage, (e) => setError(e.message));
  }, [offset, tick, sent]);
  const test = async (/** @type {Event} */ e) => {
    e.preventDefault();
    setError(null);
    setMessage('');
    try {
      const outcome = await api.testNotification(channel.trim());
      if (outcome.ok) setMessage(`Test sent to ${channel.trim()} (HTTP ${outcome.status}).`);
      else setError(`The test to ${channel.trim()} failed: ${outcome.error ?? `HTTP ${outcome.status}`}`);
      setSent((n) => n + 1);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const total = page?.total ?? 0;
  const known = [...new Set((page?.deliveries ?? []).map((d) => d.channel))];
  return html`<section class="card" aria-labelledby="notifications-title">
    <h2 id="notifications-title">Notifications</h2>
    <p class="muted">Channels are set in the config (<code>notifications</code>). Send one a test message:</p>
    <form class="filters" onSubmit=${test}>
      <label>Channel <input name="channel" list="known-channels" required value=${channel}
        onInput=${(/** @type {InputEvent} */ e) => setChannel(/** @type {HTMLInputElement} */ (e.target).value)} /></label>
      <datalist id="known-channels">${known.map((name) => html`<option value=${name} />`)}</datalist>
      <button type="submit">Send test</button>
    </form>
    ${error ? html`<p class="error-line" role="alert" data-testid="notification-error">${error}</p>` : null}
    ${message ? html`<p class="ok-line" role="status" data-testid="notification-message">${message}</p>` : null}
    <h3>Deliveries</h3>
    <div class="filters">
      <span class="muted">${total ? `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : 'none'}</span>
      <button type="button" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Newer deliveries</button>
      <button type="button" disabled=${offset + PAGE >= total} onClick=${() => setOffset(offset + PAGE)}>Older deliveries</button>
    </div>
    <table data-testid="deliveries">
      <thead><tr><th scope="col">Channel</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last attempt</th></tr></thead>
      <tbody>${(page?.deliveries ?? []).map((d) => {
        const last = d.attempts.at(-1);
        const state = d.state === 'delivered' ? 'success' : d.state === 'failed' ? 'failed' : 'running';
        return html`<tr data-channel=${d.channel} data-event=${d.event}>
          <td>${d.channel}</td><td>${d.event}</td>
          <td><span class=${`badge status-${state}`}>${d.state}</span></td>
          <td>${d.attempts.length}</td>
          <td>${last ? html`<time title=${absoluteTime(last.at)}>${relativeTime(last.at)}</time> ${last.ok ? `HTTP ${last.status}` : html`<span class="error-line">${last.error ?? `HTTP ${last.status}`}</span>`}` : '—'}</td>
        </tr>`;
      })}</tbody>
    </table>
  </section>`;
}
