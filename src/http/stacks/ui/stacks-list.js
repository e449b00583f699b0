/**
 * The stacks of one environment: name, state and containers as the engine shows them (read again on
 * every change of a container the change feed brings, `live`), the last run's status and when, the tally
 * of runs, and a form to create a stack (name, compose, variables, options) that starts it and opens its
 * page on the live output.
 */
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import { stackKey } from './changes.js';
import { ComposeEditor } from './compose-editor.js';
import { containerCounts, StateBadge } from './containers.js';
import { absoluteTime, envParam, html, isRunning, relativeTime, routeHref, useRead } from './util.js';
import { VariablesEditor, variablesOf } from './variables.js';

const NEW_COMPOSE = 'services:\n  web:\n    image: nginx:alpine\n    ports:\n      - "8080:80"\n';

/**
 * `git`: the stack's git settings when it is a git stack.
 * @typedef {{ stack: import('./api.js').StackItem, runs: import('./api.js').Run[] | undefined, git: import('./api.js').GitStack | undefined }} Row
 */

/**
 * A stack's runs, and its git settings when it is a git stack.
 * @typedef {{ runs: import('./api.js').Run[], git: import('./api.js').GitStack | undefined }} History
 */

/**
 * `tick` changes with runs and stacks, `live` with the engines' containers: a container's change reads
 * the state of the stacks it is of again (`liveStacks`, changes.js `changedStacks`; all of them when
 * null), not their runs, in reads one at a time (LiveReads): ten containers stopped in ten stacks are
 * one read of the list (two when they came while one was out), not ten.
 * @param {{ env: import('./api.js').Env, canEdit: boolean, tick: number, live: number,
 *   liveStacks?: Set<string> | null }} props
 */
export function StacksList({ env, canEdit, tick, live, liveStacks = null }) {
  // Null until the runs are read: a row shows them once it has them, never an empty tally first.
  const [history, setHistory] = useState(/** @type {Map<string, History> | null} */ (null));
  const [creating, setCreating] = useState(false);

  useEffect(() => setHistory(null), [env]);
  /** Bumped when the whole list is to be read again for a change of containers. */
  const [liveAll, setLiveAll] = useState(0);
  const {
    value: stacks,
    error,
    setValue: setStacks,
    setError,
  } = useRead(() => api.stacks(env), [env, tick, liveAll]);
  // A change of containers: the state of the stacks it is of read again, one read at a time for the
  // whole list, only in the environment it was asked for. Changes that come while a read is out wait
  // for it and are read together once it is in (a stop's kill, die and stop, ten containers stopped at
  // once: one read for all, not one per stack per burst); a read of one stack asks for that stack's
  // containers alone, of more the list. Only rows whose stack changed render again (StackRow is
  // memoised, and an answer equal to what a row shows keeps its object).
  const first = useRef(true);
  const reads = useRef(/** @type {LiveReads | null} */ (null));
  const shown = useRef(env);
  shown.current = env;
  if (reads.current === null || reads.current.env !== env)
    reads.current = new LiveReads(env, {
      one: (name) => api.containers(name, env),
      all: () => api.stacks(env),
      apply: (answer) => {
        if (shown.current !== env) return;
        setStacks((all) => mergeAnswer(all, answer));
        setError(null);
      },
      failed: () => shown.current === env && setLiveAll((n) => n + 1),
    });
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    reads.current?.changed(liveStacks);
  }, [live]);

  const names = stacks === null ? null : stacks.map((s) => s.name).join('\n');
  useEffect(() => {
    if (names === null) return;
    let cancelled = false;
    (async () => {
      const gits = await api.gitStacks(env).catch(() => []);
      const git = new Map(gits.map((g) => [g.name, g]));
      const all = await Promise.all(
        names
          .split('\n')
          .filter(Boolean)
          .map(async (name) => {
            /** @type {History} */
            const found = { runs: await api.runs(name, env).catch(() => []), git: git.get(name) };
            return /** @type {const} */ ([name, found]);
          }),
      );
      if (!cancelled) setHistory(new Map(all));
    })();
    return () => {
      cancelled = true;
    };
  }, [env, tick, names]);
  const rows =
    stacks && history
      ? stacks.map((stack) => ({
          stack,
          runs: history.get(stack.name)?.runs,
          git: history.get(stack.name)?.git,
        }))
      : null;

  return html`
    <section aria-labelledby="stacks-title">
      <div class="page-head">
        <h1 id="stacks-title">Stacks</h1>
        ${canEdit && !creating ? html`<button type="button" class="primary" onClick=${() => setCreating(true)}>New stack</button>` : null}
      </div>
      ${creating ? html`<${CreateStack} env=${env} onCancel=${() => setCreating(false)} />` : null}
      ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
      ${rows === null && !error ? html`<p class="muted">Loading…</p>` : null}
      ${rows && rows.length === 0 ? html`<p class="muted" data-testid="no-stacks">No stacks in this environment yet.</p>` : null}
      ${
        rows && rows.length > 0
          ? html`<table class="stacks stacked" data-testid="stacks">
            <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Containers</th>
              <th scope="col">Last run</th><th scope="col">Runs (ok / failed)</th><th scope="col">Variables</th></tr></thead>
            <tbody>${rows.map((row) => html`<${StackRow} row=${row} env=${env} />`)}</tbody>
          </table>`
          : null
      }
    </section>
  `;
}

/**
 * What a live read answered: one stack's containers (by name), or the whole list.
 * @typedef {{ name: string, status: Partial<import('./api.js').StackItem> }
 *   | { all: import('./api.js').StackItem[] }} LiveAnswer
 */

/**
 * The live reads of one environment's list: at most one out at a time, and at most one waiting, which
 * covers every change that came meanwhile (`changed`: the stacks' keys, changes.js `stackKey`; null:
 * any of them). A burst of changes is thus one read, or two when it came while one was out.
 */
class LiveReads {
  /**
   * @param {import('./api.js').Env} env
   * @param {{ one: (name: string) => Promise<Partial<import('./api.js').StackItem>>,
   *   all: () => Promise<import('./api.js').StackItem[]>, apply: (answer: LiveAnswer) => void,
   *   failed: () => void }} read
   */
  constructor(env, read) {
    this.env = env;
    this.read = read;
    this.busy = false;
    /** The stacks to read once the read out is in; null: all of them; undefined: none. */
    /** @type {Set<string> | null | undefined} */
    this.waiting = undefined;
  }

  /** @param {Set<string> | null} keys */
  changed(keys) {
    const prefix = stackKey(this.env, '');
    if (keys === null) this.waiting = null;
    else {
      const own = [...keys].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
      if (own.length === 0) return;
      if (this.waiting === undefined) this.waiting = new Set(own);
      else if (this.waiting !== null) for (const name of own) this.waiting.add(name);
    }
    this.next();
  }

  /** @private */
  next() {
    if (this.busy || this.waiting === undefined) return;
    const names = this.waiting;
    this.waiting = undefined;
    this.busy = true;
    const name = names !== null && names.size === 1 ? [...names][0] : undefined;
    /** @type {Promise<LiveAnswer>} */
    const answer =
      name !== undefined
        ? this.read.one(name).then((status) => ({ name, status }))
        : this.read.all().then((all) => ({ all }));
    answer
      .then(
        (a) => this.read.apply(a),
        // Gone meanwhile (deleted), or the engine failed: the whole list says what it is now.
        () => this.read.failed(),
      )
      .finally(() => {
        this.busy = false;
        this.next();
      });
  }
}

/**
 * The list with a live answer applied; a stack whose state, reason and containers are what the row
 * shows keeps its object (its row does not render again). Pure.
 * @param {import('./api.js').StackItem[] | null} all @param {LiveAnswer} answer
 * @returns {import('./api.js').StackItem[] | null}
 */
function mergeAnswer(all, answer) {
  if (all === null) return 'all' in answer ? answer.all : null;
  const same = (
    /** @type {import('./api.js').StackItem} */ a,
    /** @type {Partial<import('./api.js').StackItem>} */ b,
  ) =>
    a.state === b.state &&
    a.stateReason === b.stateReason &&
    JSON.stringify(a.containers) === JSON.stringify(b.containers);
  if ('name' in answer)
    return all.map((s) =>
      s.name === answer.name && !same(s, answer.status) ? { ...s, ...answer.status } : s,
    );
  const before = new Map(all.map((s) => [s.name, s]));
  return answer.all.map((s) => {
    const old = before.get(s.name);
    return old && JSON.stringify(old) === JSON.stringify(s) ? old : s;
  });
}

/**
 * One row; rendered again only when its stack, runs or git settings are other objects (a live change of
 * one stack renders its row alone).
 */
const StackRow = memo(
  StackRowOf,
  (a, b) =>
    a.env === b.env && a.row.stack === b.row.stack && a.row.runs === b.row.runs && a.row.git === b.row.git,
);

/** @param {{ row: Row, env: import('./api.js').Env }} props */
function StackRowOf({ row, env }) {
  const { stack, git } = row;
  // A stack that came after the runs were read: its runs come with the next read.
  const runs = row.runs ?? [];
  const last = runs[0];
  const ok = runs.filter((r) => r.status === 'success' || r.status === 'adopted').length;
  const failed = runs.filter((r) => r.status === 'failed' || r.status === 'error').length;
  const deploying = last !== undefined && isRunning(last.status);
  return html`<tr data-stack=${stack.name}>
    <th scope="row"><a href=${routeHref(['stack', stack.name], { env: envParam(env) })}>${stack.name}</a>
      ${git ? html` <span class="chip" data-testid="git-chip" title=${`${git.repository} (${git.composePath})`}>git: ${git.branch}</span>` : null}</th>
    <td data-label="State"><${StateBadge} status=${stack} />
      ${deploying ? html` <span class="badge status-running"><span class="spinner" aria-hidden="true"></span>deploying</span>` : null}</td>
    <td data-label="Containers" data-testid="stack-containers">${containerCounts(stack.containers)}</td>
    <td data-label="Last run">${
      last
        ? html`<span class=${`badge status-${last.status}`}>${last.status}</span>
          <time datetime=${last.startedAt} title=${absoluteTime(last.startedAt)}> ${relativeTime(last.startedAt)}</time>`
        : '—'
    }</td>
    <td data-label="Runs (ok / failed)" data-testid="tally">${row.runs ? `${runs.length} (${ok} / ${failed})` : '…'}</td>
    <td data-label="Variables">${stack.variables.length}</td>
  </tr>`;
}

/** @param {{ env: import('./api.js').Env, onCancel: () => void }} props */
function CreateStack({ env, onCancel }) {
  const [name, setName] = useState('');
  const editor = useRef(/** @type {import('./compose-editor.js').EditorHandle | null} */ (null));
  const [rows, setRows] = useState(/** @type {import('./variables.js').VariableRow[]} */ ([]));
  const [options, setOptions] = useState({ pull: false, build: false, forceRecreate: false });
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);

  const submit = async (/** @type {Event} */ e) => {
    e.preventDefault();
    const vars = variablesOf(rows);
    if (!vars.ok) return setError(vars.error);
    setBusy(true);
    setError(null);
    try {
      // A new stack holds no secret to keep, so no value is null here (variablesOf keeps only stored ones).
      const variables = /** @type {import('./api.js').NewVariable[]} */ (vars.variables);
      const compose = editor.current?.text() ?? NEW_COMPOSE;
      const ack = await api.createStack(env, { name, compose, variables, ...options });
      location.hash = routeHref(['stack', name], { env: envParam(env), job: ack.jobId });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="card" onSubmit=${submit} aria-label="New stack">
    <h2>New stack</h2>
    <label>Name <input name="name" required value=${name} onInput=${(/** @type {InputEvent} */ e) => setName(/** @type {HTMLInputElement} */ (e.target).value)} /></label>
    <div class="field-label" id="new-compose-label">Compose file</div>
    <${ComposeEditor} initial=${NEW_COMPOSE} handle=${editor} error=${error} label="Compose file of the new stack" />
    <h3>Variables</h3>
    <${VariablesEditor} rows=${rows} setRows=${setRows} />
    <${OptionsChecks} options=${options} setOptions=${setOptions} />
    ${error ? html`<p class="error-line" role="alert">${error}</p>` : null}
    <div class="buttons">
      <button type="submit" class="primary" disabled=${busy}>Create and start</button>
      <button type="button" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`;
}

/**
 * The three deploy options as checkboxes.
 * @param {{ options: import('./api.js').DeployOptions, setOptions: (o: import('./api.js').DeployOptions) => void }} props
 */
export function OptionsChecks({ options, setOptions }) {
  const names = /** @type {const} */ (['pull', 'build', 'forceRecreate']);
  const labels = { pull: 'Pull images', build: 'Build images', forceRecreate: 'Force recreate' };
  return html`<fieldset class="options"><legend>Deploy options</legend>
    ${names.map(
      (key) => html`<label><input type="checkbox" name=${key} checked=${options[key]}
        onChange=${() => setOptions({ ...options, [key]: !options[key] })} /> ${labels[key]}</label>`,
    )}
  </fieldset>`;
}
