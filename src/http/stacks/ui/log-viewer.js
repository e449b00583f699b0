/**
 * A run's log, loaded when the row opens: line numbers, search (highlight and step through matches, or
 * filter to the matching lines), wrap, copy, download as .txt, and follow while the run is live
 * (`log?follow=true`). Only the visible lines are in the page (fixed-height rows), so a 200,000-line
 * log scrolls smoothly; wrapping gives rows their own heights and is offered up to WRAP_LIMIT lines.
 */
import { AnsiUp } from 'ansi_up';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, openEventStream } from './api.js';
import { copyText, downloadText, html } from './util.js';
import { markWithheld } from './withheld-marks.js';

const ROW = 18;
const OVERSCAN = 12;
const WRAP_LIMIT = 5_000;

const ansi = new AnsiUp();
ansi.use_classes = true;

/** @param {string} text @param {string} query */
function highlighted(text, query) {
  const escaped = ansi.ansi_to_html(text);
  if (!query) return escaped;
  // Search the visible text; mark matches outside of tags.
  const needle = ansi.ansi_to_html(query).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return escaped.replace(new RegExp(`(${needle})(?![^<]*>)`, 'gi'), '<mark>$1</mark>');
}

/**
 * One line's text. Most lines hold no ANSI code: they are plain text nodes (and <mark>s around the
 * matches), which cost far less per scrolled frame than HTML parsed from a string; a line with codes goes
 * through ansi_up. `cls`: more classes of its text.
 * @param {string} text @param {string} query @param {string} [cls]
 */
function lineText(text, query, cls = '') {
  const names = cls ? `lt ${cls}` : 'lt';
  if (text.includes('\u001b'))
    return html`<span class=${names} dangerouslySetInnerHTML=${{ __html: highlighted(text, query) }}></span>`;
  if (!query) return html`<span class=${names}>${text}</span>`;
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  const parts = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
    parts.push(text.slice(from, at), html`<mark>${text.slice(at, at + needle.length)}</mark>`);
    from = at + needle.length;
  }
  parts.push(text.slice(from));
  return html`<span class=${names}>${parts}</span>`;
}

/**
 * @param {{ stack: string, run: import('./api.js').Run, onRunEnd?: () => void }} props
 */
export function LogViewer({ stack, run, onRunEnd }) {
  const [lines, setLines] = useState(/** @type {string[] | null} */ (null));
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  const live = run.status === 'running' || run.status === 'queued';
  const [following, setFollowing] = useState(live);
  const ended = useRef(onRunEnd);
  ended.current = onRunEnd;

  useEffect(() => {
    setLines(null);
    setProblem(null);
    if (run.details.logMissing) {
      setProblem('The log file of this run is missing: the reconcile found it gone and flagged the run.');
      setLines([]);
      return;
    }
    if (live) {
      /** @type {string[]} */
      const seen = [];
      let pending = false;
      setLines([]);
      return openEventStream(api.runLogFollowUrl(stack, run.id), {
        onMessage: (data) => {
          const event = JSON.parse(data);
          if (event.type === 'line') seen.push(event.line);
          if (event.type === 'end') {
            setFollowing(false);
            ended.current?.();
          }
          if (event.type === 'error') setProblem(event.error);
          if (!pending) {
            pending = true;
            requestAnimationFrame(() => {
              pending = false;
              setLines([...seen]);
            });
          }
        },
        onError: (e) => setProblem(e.message),
      });
    }
    // The log is read as it arrives: the first lines show while the rest of a long log still loads.
    /** @type {string[]} */
    const seen = [];
    let tail = '';
    let pending = false;
    let cancelled = false;
    const flush = () => {
      pending = false;
      if (!cancelled) setLines(seen.slice());
    };
    api
      .streamRunLog(stack, run.id, (chunk) => {
        const parts = (tail + chunk).split('\n');
        tail = parts.pop() ?? '';
        for (const part of parts) seen.push(part);
        if (!pending) {
          pending = true;
          requestAnimationFrame(flush);
        }
      })
      .then(
        () => {
          if (tail !== '') seen.push(tail);
          tail = '';
          flush();
        },
        (e) => {
          if (cancelled) return;
          setLines([]);
          setProblem(
            e.status === 404
              ? 'No log: this run wrote no output, or its log was deleted.'
              : `Cannot load the log: ${e.message}`,
          );
        },
      );
    return () => {
      cancelled = true;
    };
  }, [stack, run.id, live, run.details.logMissing]);

  // Where redaction withheld lines, a marker among them (the run records each place as it comes, and
  // is read again on its change, so a followed log shows them live).
  const marked = useMemo(
    () => (lines === null ? null : markWithheld(lines, run.details.withheld)),
    [lines, run.details.withheld],
  );
  const numbers = marked?.numbers ?? null;
  return html`<${LogView} lines=${marked?.lines ?? null} problem=${problem} live=${live} following=${following}
    setFollowing=${setFollowing} fileName=${`${stack}-run-${run.id}.txt`} label=${`Log of run ${run.id}`}
    lineNumber=${numbers ? (/** @type {number} */ i) => numbers[i] ?? null : undefined}
    textClass=${numbers ? (/** @type {number} */ i) => (numbers[i] === null ? 'out-status' : '') : undefined}
    downloadText=${numbers ? () => `${(lines ?? []).join('\n')}\n` : undefined}
    lineCount=${numbers ? (lines ?? []).length : undefined} />`;
}

/**
 * A log's lines, virtualised, with its tools (the run log's, a container's, a stack's). `prefix` gives a
 * line's decoration before its text (a container's name, a time), `lineClass` a class of its row,
 * `textClass` of its text; all by the line's index. `tools` are more controls for the toolbar;
 * `downloadText` the text a download saves (default: the lines). `testId` prefixes the `data-testid`s
 * (`log-search`, `log-lines`…): a page showing two viewers (a job's live output and a run's log) tells
 * them apart. `lineNumber` gives a row's number in the gutter (default: its index + 1; null: none, a
 * marker between lines), `lineCount` the lines the count says (default: the rows).
 * @param {{ lines: string[] | null, problem: string | null, live: boolean, following: boolean,
 *   setFollowing: (on: boolean) => void, fileName: string, label: string,
 *   prefix?: (index: number) => unknown, lineClass?: (index: number) => string,
 *   textClass?: (index: number) => string, tools?: unknown, downloadText?: () => string,
 *   lineNumber?: (index: number) => number | null, lineCount?: number, testId?: string }} props
 */
export function LogView({
  lines,
  problem,
  live,
  following,
  setFollowing,
  fileName,
  label,
  prefix,
  lineClass,
  textClass,
  tools,
  downloadText: textOf,
  lineNumber,
  lineCount,
  testId = 'log',
}) {
  const [query, setQuery] = useState('');
  const [filter, setFilter] = useState(false);
  const [wrap, setWrap] = useState(false);
  const [current, setCurrent] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(400);
  const [notice, setNotice] = useState('');
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, [lines === null]);

  const all = lines ?? [];
  const needle = query.toLowerCase();
  /** Indexes of the lines that match the search. */
  const matches = useMemo(() => {
    if (!needle) return [];
    const found = [];
    for (let i = 0; i < all.length; i++) if ((all[i] ?? '').toLowerCase().includes(needle)) found.push(i);
    return found;
  }, [all, needle]);
  /** Indexes of the lines shown. */
  const shown = useMemo(() => (filter && needle ? matches : null), [filter, needle, matches]);
  const count = shown ? shown.length : all.length;
  const canWrap = count <= WRAP_LIMIT;
  const wrapped = wrap && canWrap;

  /**
   * Where following last put the scroll. A scroll event handled after the lines grew but before this
   * effect moved to the new end is not the person scrolling up: only a position above this one is.
   */
  const pinned = useRef(0);
  // Follow: stay at the end while the log grows.
  useEffect(() => {
    const el = box.current;
    if (!following || !el) return;
    el.scrollTop = el.scrollHeight;
    pinned.current = el.scrollTop;
  }, [all.length, following]);

  const goTo = (/** @type {number} */ k) => {
    if (matches.length === 0) return;
    const next = (k + matches.length) % matches.length;
    setCurrent(next);
    const line = matches[next] ?? 0;
    const row = shown ? next : line;
    setFollowing(false);
    if (box.current) box.current.scrollTop = Math.max(0, row * ROW - height / 2);
  };

  const first = wrapped ? 0 : Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  const last = wrapped ? count : Math.min(count, Math.ceil((scrollTop + height) / ROW) + OVERSCAN);
  const rows = [];
  for (let r = first; r < last; r++) {
    const index = shown ? (shown[r] ?? 0) : r;
    const text = all[index] ?? '';
    const isCurrent = matches.length > 0 && matches[current] === index;
    const extra = lineClass ? ` ${lineClass(index)}` : '';
    rows.push(html`<div class=${`log-row${isCurrent ? ' current' : ''}${extra}`}>
      <span class="ln" aria-hidden="true">${lineNumber ? lineNumber(index) : index + 1}</span>
      ${prefix ? prefix(index) : null}${lineText(text, query, textClass ? textClass(index) : '')}
    </div>`);
  }

  const flash = (/** @type {string} */ text) => {
    setNotice(text);
    setTimeout(() => setNotice(''), 2000);
  };

  return html`
    <div class="log-viewer" data-testid=${`${testId}-viewer`}>
      <div class="log-tools" role="toolbar" aria-label="Log tools">
        <label>Search <input type="search" value=${query} data-testid=${`${testId}-search`}
          onInput=${(/** @type {InputEvent} */ e) => {
            setQuery(/** @type {HTMLInputElement} */ (e.target).value);
            setCurrent(0);
          }}
          onKeyDown=${(/** @type {KeyboardEvent} */ e) => e.key === 'Enter' && goTo(current + (e.shiftKey ? -1 : 1))} /></label>
        <span data-testid=${`${testId}-matches`} aria-live="polite">${needle ? `${matches.length ? current + 1 : 0} / ${matches.length}` : ''}</span>
        <button type="button" onClick=${() => goTo(current - 1)} disabled=${!matches.length} aria-label="Previous match">↑</button>
        <button type="button" onClick=${() => goTo(current + 1)} disabled=${!matches.length} aria-label="Next match">↓</button>
        <label><input type="checkbox" checked=${filter} onChange=${() => setFilter(!filter)} data-testid=${`${testId}-filter`} /> Only matching lines</label>
        <label title=${canWrap ? '' : `Wrapping is offered up to ${WRAP_LIMIT} lines`}><input type="checkbox" checked=${wrapped} disabled=${!canWrap} onChange=${() => setWrap(!wrap)} /> Wrap</label>
        ${live ? html`<label><input type="checkbox" checked=${following} onChange=${() => setFollowing(!following)} /> Follow</label>` : null}
        <button type="button" disabled=${!all.length} onClick=${async () => flash((await copyText(all.join('\n'))) ? 'Copied' : 'Copy failed')}>Copy</button>
        <button type="button" disabled=${!all.length} data-testid=${`${testId}-download`} onClick=${() => downloadText(fileName, textOf ? textOf() : `${all.join('\n')}\n`)}>Download .txt</button>
        ${tools ?? null}
        <span class="muted" data-testid=${`${testId}-count`}>${(lineCount ?? all.length).toLocaleString()} lines</span>
        <span role="status">${notice}</span>
      </div>
      ${problem ? html`<p class="log-problem" role="alert" data-testid=${`${testId}-problem`}>${problem}</p>` : null}
      ${
        lines === null
          ? html`<p class="muted">Loading the log…</p>`
          : html`<div class=${`log-lines${wrapped ? ' wrapped' : ''}`} ref=${box} tabindex="0" aria-label=${label}
            data-testid=${`${testId}-lines`}
            onScroll=${(/** @type {Event} */ e) => {
              const el = /** @type {HTMLDivElement} */ (e.currentTarget);
              setScrollTop(el.scrollTop);
              // Scrolled up, it stops following; back at the end, it follows again.
              if (!live) return;
              if (el.scrollTop + el.clientHeight >= el.scrollHeight - 8) setFollowing(true);
              else if (el.scrollTop < pinned.current - 8) setFollowing(false);
            }}>
            <div class="log-space" style=${wrapped ? '' : `height:${count * ROW}px`}>
              <div class="log-rows" style=${wrapped ? '' : `transform:translateY(${first * ROW}px)`}>${rows}</div>
            </div>
          </div>`
      }
    </div>
  `;
}
