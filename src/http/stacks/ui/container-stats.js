/**
 * A stack's containers' resource use, live (GET /api/stacks/{name}/stats, server-sent events): the
 * stream is open only while the page is visible (a hidden tab closes it, so no engine samples for
 * nobody), and the last SAMPLES samples of each container are kept for its sparkline.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, openEventStream } from './api.js';
import { html } from './util.js';

const SAMPLES = 60;

/** @typedef {import('./api.js').StatsSample} Sample */

/** Whether the page is shown (not a hidden tab), as it changes. */
function useVisible() {
  const [visible, setVisible] = useState(document.visibilityState !== 'hidden');
  useEffect(() => {
    const changed = () => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', changed);
    return () => document.removeEventListener('visibilitychange', changed);
  }, []);
  return visible;
}

/**
 * The samples of each container (by name), oldest first.
 * @param {string} name @param {import('./api.js').Env} env
 */
export function useStats(name, env) {
  const visible = useVisible();
  const [samples, setSamples] = useState(/** @type {Map<string, Sample[]>} */ (new Map()));
  useEffect(() => {
    if (!visible) return;
    /** @type {Map<string, Sample[]>} */
    const kept = new Map();
    let pending = false;
    return openEventStream(api.statsUrl(name, env), {
      onMessage: (data) => {
        const sample = /** @type {Sample} */ (JSON.parse(data));
        const list = kept.get(sample.container) ?? [];
        list.push(sample);
        if (list.length > SAMPLES) list.shift();
        kept.set(sample.container, list);
        if (!pending) {
          pending = true;
          requestAnimationFrame(() => {
            pending = false;
            setSamples(new Map(kept));
          });
        }
      },
      reconnect: () => true,
    });
  }, [name, env, visible]);
  return samples;
}

/** @param {number} n */
const bytes = (n) =>
  n >= 1024 ** 3
    ? `${(n / 1024 ** 3).toFixed(1)} GiB`
    : n >= 1024 ** 2
      ? `${(n / 1024 ** 2).toFixed(1)} MiB`
      : `${(n / 1024).toFixed(1)} KiB`;

/**
 * A small line of the CPU use over the kept samples.
 * @param {{ values: number[] }} props
 */
function Sparkline({ values }) {
  const width = 80;
  const height = 18;
  const max = Math.max(1, ...values);
  const points = values
    .map(
      (v, i) =>
        `${((i / Math.max(1, SAMPLES - 1)) * width).toFixed(1)},${(height - (v / max) * (height - 2) - 1).toFixed(1)}`,
    )
    .join(' ');
  return html`<svg class="sparkline" width=${width} height=${height} viewBox=${`0 0 ${width} ${height}`} aria-hidden="true" focusable="false">
    <polyline points=${points} fill="none" stroke="currentColor" stroke-width="1.4" />
  </svg>`;
}

/**
 * A container's use: its sparkline of CPU, and the last sample in words.
 * @param {{ samples: Sample[] | undefined }} props
 */
export function ContainerUse({ samples }) {
  const last = samples?.at(-1);
  if (!samples || !last) return html`<span class="muted">—</span>`;
  const cpu = samples.map((s) => s.cpuPercent ?? 0);
  return html`<span class="use" data-testid="container-use">
    <${Sparkline} values=${cpu} />
    <span>CPU ${last.cpuPercent === null ? '…' : `${last.cpuPercent.toFixed(1)}%`} · ${bytes(last.memoryBytes)} · ↓${bytes(last.netRxBytes)} ↑${bytes(last.netTxBytes)}</span>
  </span>`;
}
