/**
 * The logs tab of a stack: one container's log, or every container's interleaved by time and coloured
 * by service, in the run log's virtualised viewer (log-viewer.js: search, filter, wrap, copy,
 * download). It reads the last lines (`tail`) and then follows the log live (GET
 * /api/stacks/{name}/logs, /containers/{container}/logs, as server-sent events); the server follows a
 * container across its restarts and picks up containers started later. Lines are redacted by the server.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, openEventStream } from './api.js';
import { LogView } from './log-viewer.js';
import { html } from './util.js';

/** Lines kept in the page; past it the oldest go (a chatty container would fill the memory). */
const MAX_LINES = 200_000;
const TAILS = /** @type {const} */ ([100, 1_000, 10_000, 'all']);
/** Colours of services (app.css `.svc-0` … `.svc-7`). */
const COLOURS = 8;

/** @typedef {import('./api.js').ContainerLogLine} LogLine */

/**
 * @param {{ name: string, env: import('./api.js').Env,
 *   containers: Array<{ name: string, service: string | null }>, selected: string | null,
 *   onSelect: (container: string | null) => void }} props
 */
export function ContainerLogs({ name, env, containers, selected, onSelect }) {
  const [tail, setTail] = useState(/** @type {(typeof TAILS)[number]} */ (1_000));
  const [timestamps, setTimestamps] = useState(false);
  const [following, setFollowing] = useState(true);
  const [lines, setLines] = useState(/** @type {LogLine[] | null} */ (null));
  const [dropped, setDropped] = useState(0);
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  const [reads, setReads] = useState(0);

  useEffect(() => {
    /** @type {LogLine[]} */
    let seen = [];
    let cut = 0;
    let pending = false;
    setLines(null);
    setProblem(null);
    setDropped(0);
    const flush = () => {
      pending = false;
      if (seen.length > MAX_LINES) {
        cut += seen.length - MAX_LINES;
        seen = seen.slice(seen.length - MAX_LINES);
        setDropped(cut);
      }
      setLines(seen.slice());
    };
    const close = openEventStream(api.containerLogsUrl(name, env, selected, tail), {
      // Opened again after a drop, the stream starts over with the last lines.
      onOpen: () => {
        seen = [];
      },
      onMessage: (data) => {
        const event = JSON.parse(data);
        if (event.type === 'end') return;
        if (event.type === 'error') {
          setProblem(event.error);
          return;
        }
        seen.push(event);
        if (!pending) {
          pending = true;
          requestAnimationFrame(flush);
        }
      },
      onEnd: () => {
        flush();
        setProblem((was) => was ?? 'The log stream ended (the server stopped?): read it again to go on.');
      },
      onError: (e) => {
        setLines([]);
        setProblem(e.message);
      },
    });
    return close;
  }, [name, env, selected, tail, reads]);

  // A service's colour: its place among the stack's services.
  const colourOf = useMemo(() => {
    const services = [...new Set(containers.map((c) => c.service ?? c.name))].sort();
    return (/** @type {LogLine} */ line) =>
      `svc-${services.indexOf(line.service ?? line.container) % COLOURS}`;
  }, [containers]);
  const all = lines ?? [];
  const texts = useMemo(() => all.map((l) => l.line), [all]);
  const whole = selected === null;
  const prefix = (/** @type {number} */ i) => {
    const line = all[i];
    if (!line) return null;
    return html`${timestamps ? html`<span class="ts">${line.time}</span>` : null}${
      whole ? html`<span class=${`src ${colourOf(line)}`}>${line.container}</span>` : null
    }`;
  };
  const downloadText = () =>
    `${all.map((l) => `${l.time} ${whole ? `${l.container} | ` : ''}${l.line}`).join('\n')}\n`;

  const tools = html`
    <label>Container <select value=${selected ?? ''} data-testid="logs-container"
      onChange=${(/** @type {Event} */ e) => onSelect(/** @type {HTMLSelectElement} */ (e.target).value || null)}>
      <option value="">All containers</option>
      ${containers.map((c) => html`<option value=${c.name}>${c.name}</option>`)}
    </select></label>
    <label>Last <select value=${String(tail)} data-testid="logs-tail"
      onChange=${(/** @type {Event} */ e) => {
        const value = /** @type {HTMLSelectElement} */ (e.target).value;
        setTail(value === 'all' ? 'all' : /** @type {100} */ (Number(value)));
      }}>
      ${TAILS.map((t) => html`<option value=${String(t)}>${t === 'all' ? 'all lines' : `${t.toLocaleString()} lines`}</option>`)}
    </select></label>
    <label><input type="checkbox" checked=${timestamps} onChange=${() => setTimestamps(!timestamps)} /> Timestamps</label>
    <button type="button" onClick=${() => setReads((n) => n + 1)}>Read again</button>
    ${dropped > 0 ? html`<span class="muted">${dropped.toLocaleString()} older lines let go</span>` : null}`;

  return html`<section class="container-logs" aria-label="Container logs" data-testid="container-logs">
    <${LogView} lines=${lines === null ? null : texts} problem=${problem} live=${true} following=${following}
      setFollowing=${setFollowing} fileName=${`${name}-${selected ?? 'all'}-logs.txt`}
      label=${whole ? `Logs of ${name}` : `Log of ${selected}`} prefix=${prefix} tools=${tools}
      downloadText=${downloadText} />
  </section>`;
}
