/**
 * One stack: its actions (Deploy with options, Start, Stop, Restart, Down, Delete), the live output of
 * the job last started (its id is in the address, so a reload resumes it), and its tabs: the compose
 * editor (Save, Save and redeploy), the variables, the containers' logs, the deploys, and the Activity
 * (its Start, Stop, Restart and Down, activity.js). A user without `edit` sees no action.
 * While a job of the stack runs (the stack's `job`, from any tab or instance) the page says which, offers
 * Cancel, and disables every action that would wait for it, with that reason as its title and text.
 */
import { useRef, useState } from 'preact/hooks';
import { ActivityTab } from './activity.js';
import { api, isComposeChanged } from './api.js';
import { ComposeEditor } from './compose-editor.js';
import { ServerChange, syncDecision } from './compose-sync.js';
import { Confirm } from './confirm.js';
import { ConsolePanel } from './console.js';
import { ContainerLogs } from './container-logs.js';
import { useStats } from './container-stats.js';
import { ContainersPanel, useContainers } from './containers.js';
import { useDeployOptions } from './deploy-options.js';
import { DeploysTab } from './deploys.js';
import { GitPanel } from './git.js';
import { lastGood } from './history.js';
import { ImageUpdates } from './image-updates.js';
import { LiveOutput } from './live-output.js';
import { LogViewer } from './log-viewer.js';
import { OptionsChecks } from './stacks-list.js';
import { envParam, errorText, html, routeHref, useAnswer } from './util.js';
import { rowsOf, VariablesEditor, variablesOf } from './variables.js';

const TABS = /** @type {const} */ (['compose', 'variables', 'logs', 'deploys', 'activity']);

/**
 * `live` changes with the stack's containers (the change feed); `container` is the one the logs tab shows.
 * @param {{ name: string, env: import('./api.js').Env, canEdit: boolean, tab: string, job: string | null,
 *   openRun: number | null, tick: number, live: number, container: string | null, consoleIn: string | null,
 *   navigate: (query: Record<string, string | number | null | undefined>) => void }} props
 */
export function StackPage({
  name,
  env,
  canEdit,
  tab,
  job,
  openRun,
  tick,
  live,
  container,
  consoleIn,
  navigate,
}) {
  const [stack, setStack] = useState(/** @type {import('./api.js').Stack | null} */ (null));
  const [runs, setRuns] = useState(/** @type {import('./api.js').Run[] | null} */ (null));
  /** The compose editor's text is its own (compose-editor.js): the page reads it through this handle. */
  const editor = useRef(/** @type {import('./compose-editor.js').EditorHandle | null} */ (null));
  /** The server's version the editor's text was edited from (compose-sync.js); null before the first read. */
  const base = useRef(/** @type {import('./compose-sync.js').Version | null} */ (null));
  /** The server's file when it changed under unsaved changes: the page shows the difference. */
  const [serverChange, setServerChange] = useState(/** @type {import('./api.js').Stack | null} */ (null));
  const [stackReloads, setStackReloads] = useState(0);
  const [rows, setRows] = useState(/** @type {import('./variables.js').VariableRow[]} */ ([]));
  const [options, setOptions] = useDeployOptions(name, env);
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [composeError, setComposeError] = useState(/** @type {string | null} */ (null));
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [confirmRollback, setConfirmRollback] = useState(false);
  const [reloads, setReloads] = useState(0);
  const current = TABS.includes(/** @type {never} */ (tab)) ? tab : 'compose';
  // The compose editor (CodeMirror) is made when its tab is first shown, then kept (hidden) with its
  // text: a page opened on another tab, a long log, does not build an editor it hides first.
  const composeMade = useRef(false);
  if (current === 'compose') composeMade.current = true;
  const composeShown = composeMade.current;
  // The engine's view, read again after each job too (its containers changed).
  const engine = useContainers(name, env, live + tick);
  const stats = useStats(name, env);

  /** The server's stack as read: the editor follows its compose file (compose-sync.js). */
  const sync = (/** @type {import('./api.js').Stack} */ s) => {
    setStack(s);
    const was = base.current;
    if (!was) {
      base.current = { text: s.compose, hash: s.composeHash };
      setRows(rowsOf(s.variables));
      return;
    }
    const mine = editor.current?.text() ?? was.text;
    const decision = syncDecision(was, mine, s.compose);
    if (decision === 'conflict') return setServerChange(s);
    if (decision === 'load') editor.current?.replace(s.compose);
    base.current = { text: s.compose, hash: s.composeHash };
    setServerChange(null);
  };

  // Read again on every change the feed reports and after each job: a redeploy, a roll back or another
  // tab's save changes the compose file.
  useAnswer(
    () => api.stack(name, env),
    sync,
    (e) => setError(errorText(e)),
    [name, env, tick, stackReloads],
  );
  const reloadStack = () => setStackReloads((n) => n + 1);

  useAnswer(
    () => api.runs(name, env),
    setRuns,
    (e) => setError(errorText(e)),
    [name, env, tick, reloads, current],
  );
  const reloadRuns = () => setReloads((n) => n + 1);

  /** Runs an action; a job answer opens its live output. */
  const act = async (/** @type {() => Promise<unknown>} */ action, /** @type {string} */ done = '') => {
    setBusy(true);
    setError(null);
    setMessage('');
    try {
      const answer = /** @type {Record<string, unknown>} */ (await action());
      if (answer && typeof answer.jobId === 'string') navigate({ job: answer.jobId });
      if (done) setMessage(done);
      reloadRuns();
      reloadStack();
      return answer;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  };

  const save = async (/** @type {boolean} */ restart) => {
    setComposeError(null);
    setBusy(true);
    setError(null);
    setMessage('');
    try {
      const content = editor.current?.text() ?? stack?.compose ?? '';
      const edited = base.current?.hash ?? null;
      const answer = await api.saveCompose(name, env, { content, restart, ...options }, edited);
      if ('jobId' in answer) {
        // The hash comes with the next read (its text is this one: `same`).
        base.current = { text: content, hash: null };
        navigate({ job: answer.jobId });
      } else {
        base.current = { text: content, hash: answer.composeHash };
        setMessage('Saved.');
      }
      setServerChange(null);
      reloadRuns();
      reloadStack();
    } catch (e) {
      if (isComposeChanged(e)) {
        setError(
          'Not saved: the compose file changed on the server since you began editing. Compare and choose below.',
        );
        // The server's file now, shown beside the person's text.
        api.stack(name, env).then(sync, () => undefined);
        return;
      }
      const text = e instanceof Error ? e.message : String(e);
      setComposeError(text);
      setError(text);
    } finally {
      setBusy(false);
    }
  };

  const saveVariables = async () => {
    const vars = variablesOf(rows);
    if (!vars.ok) return setError(vars.error);
    const saved = await act(() => api.setVariables(name, env, vars.variables), 'Variables saved.');
    if (saved) {
      const { warnings, ...s } = /** @type {import('./api.js').StackVariablesSaved} */ (saved);
      setStack(s);
      setRows(rowsOf(s.variables));
      // A value too short to replace withholds every line holding it: the page says so, with its count.
      if (warnings && warnings.length > 0)
        setMessage(`Variables saved. ${warnings.map((w) => w.message).join(' ')}`);
    }
  };

  /** `down`: Stop and delete; `keep`: delete, its containers left running; `plain`: it has none. */
  const removeStack = async (/** @type {'plain' | 'down' | 'keep'} */ how) => {
    setConfirmDelete(false);
    if (how === 'down') setMessage(`Stopping ${name} (down), then deleting it…`);
    const gone = await act(() => api.deleteStack(name, env, how));
    if (gone) location.hash = routeHref([], { env: envParam(env) });
  };
  // Containers of the stack on its engine (unknown counts as some: the server decides).
  const listed = engine.status?.containers;
  const hasContainers = listed === null || listed === undefined || listed.length > 0;
  (engine.status?.containers ?? null) === null || (engine.status?.containers?.length ?? 0) > 0;

  /** Arrow keys, Home and End move between the tabs (the WAI-ARIA tabs pattern). */
  const onTabKey = (/** @type {KeyboardEvent} */ e) => {
    const at = TABS.indexOf(/** @type {never} */ (current));
    const next =
      e.key === 'ArrowRight'
        ? (at + 1) % TABS.length
        : e.key === 'ArrowLeft'
          ? (at + TABS.length - 1) % TABS.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? TABS.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    navigate({ tab: TABS[next] });
    requestAnimationFrame(() => document.getElementById(`tab-${TABS[next]}`)?.focus());
  };

  // Roll back: redeploy the last successful run, offered when a later run exists (else it is deployed).
  const good = runs ? lastGood(runs) : null;
  /** The job of the stack that runs now: the actions that would wait for it are disabled, saying why. */
  const running = stack?.job ?? null;
  const reason = running ? runningReason(running) : null;
  // Nothing is offered before the stack is read (whether a job of it runs is not known yet).
  const blocked = busy || running !== null || stack === null;
  /** What a disabled action carries: the reason as its title, and the visible reason's id. */
  const why = reason ? { title: reason, 'aria-describedby': 'job-reason' } : {};
  const [cancelling, setCancelling] = useState(false);
  const cancel = async () => {
    if (!running) return;
    setCancelling(true);
    setError(null);
    try {
      await api.cancelJob(running.id);
      reloadStack();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setCancelling(false);
    }
  };
  const rollback = async () => {
    setConfirmRollback(false);
    if (good) await act(() => api.redeploy(name, good.id));
  };

  if (!stack && error) return html`<p class="error-line" role="alert">${error}</p>`;
  // The logs and deploys tabs need only the stack's name: a container's lines and a run's log are read
  // while the stack itself is read (the first lines of a long log do not wait for the compose file and
  // the engine's status).
  if (!stack && current !== 'logs' && current !== 'deploys') return html`<p class="muted">Loading…</p>`;
  return html`
    <section aria-labelledby="stack-title">
      <div class="page-head">
        <h1 id="stack-title">${name}</h1>
        <a href=${routeHref([], { env: envParam(env) })}>All stacks</a>
      </div>
      ${
        canEdit
          ? html`<div class="actions-bar" role="toolbar" aria-label="Stack actions">
            <${OptionsChecks} options=${options} setOptions=${setOptions} />
            <button type="button" class="primary" disabled=${blocked} ...${why} onClick=${() => act(() => api.deploy(name, env, options))}>Deploy</button>
            ${['start', 'stop', 'restart', 'down'].map(
              (op) => html`<button type="button" disabled=${blocked} ...${why}
                onClick=${() => act(() => api.operate(name, env, /** @type {'start'} */ (op)))}>${op[0]?.toUpperCase()}${op.slice(1)}</button>`,
            )}
            ${
              // Not offered while a job runs: it would deploy over (or wait for) the one running.
              good && runs?.[0]?.id !== good.id && !running
                ? confirmRollback
                  ? html`<${Confirm} label="Confirm roll back" opener="open-rollback" onCancel=${() => setConfirmRollback(false)}>Deploy again what run #${good.id}, the last successful one, deployed?
                    <button type="button" class="primary" onClick=${rollback}>Roll back</button>
                    <button type="button" data-cancel onClick=${() => setConfirmRollback(false)}>Cancel</button><//>`
                  : html`<button type="button" id="open-rollback" disabled=${blocked} onClick=${() => setConfirmRollback(true)}>Roll back to #${good.id}…</button>`
                : null
            }
            ${
              confirmDelete
                ? hasContainers
                  ? html`<${Confirm} label="Confirm stack delete" opener="open-delete" onCancel=${() => setConfirmDelete(false)}>Delete ${name} and its files? Its containers are on the engine.
                    <button type="button" class="danger" onClick=${() => removeStack('down')}>Stop and delete</button>
                    <button type="button" onClick=${() => removeStack('keep')}>Delete, keep containers running</button>
                    <button type="button" data-cancel onClick=${() => setConfirmDelete(false)}>Cancel</button><//>`
                  : html`<${Confirm} label="Confirm stack delete" opener="open-delete" onCancel=${() => setConfirmDelete(false)}>Delete ${name} and its files?
                    <button type="button" class="danger" onClick=${() => removeStack('plain')}>Delete stack</button>
                    <button type="button" data-cancel onClick=${() => setConfirmDelete(false)}>Cancel</button><//>`
                : html`<button type="button" id="open-delete" class="danger" disabled=${blocked} ...${why} onClick=${() => setConfirmDelete(true)}>Delete…</button>`
            }
          </div>`
          : html`<p class="muted" data-testid="read-only">You may view this stack; changing it needs the stacks edit permission.</p>`
      }
      ${
        running && reason
          ? html`<p class="job-running" role="status" data-testid="job-running">
              <span id="job-reason">${reason}.</span>
              ${canEdit && running.cancelledBy === undefined ? ' Other actions wait until it ends. ' : ' '}
              ${
                canEdit && running.cancelledBy === undefined
                  ? html`<button type="button" class="danger" disabled=${cancelling} onClick=${cancel}>Cancel ${KIND_WORDS[running.kind].toLowerCase()}</button>`
                  : null
              }
              ${running.id !== job ? html` <button type="button" onClick=${() => navigate({ job: running.id })}>Show its output</button>` : null}
            </p>`
          : null
      }
      ${error ? html`<p class="error-line" role="alert" data-testid="action-error">${error}</p>` : null}
      ${message ? html`<p class="ok-line" role="status">${message}</p>` : null}
      ${
        job
          ? html`<${LiveOutput} jobId=${job} notice=${rollbackNotice(name, env, runs, job, navigate)}
              more=${gitRunLog(name, runs, job, reloadRuns)}
              onDone=${() => {
                reloadRuns();
                reloadStack();
              }} onClose=${() => navigate({ job: undefined })} />`
          : null
      }
      <${GitPanel} name=${name} env=${env} canEdit=${canEdit} tick=${tick} onJob=${(/** @type {string} */ id) => navigate({ job: id })} />
      <${ContainersPanel} status=${engine.status} error=${engine.error} canEdit=${canEdit} stats=${stats}
        onLogs=${(/** @type {string} */ c) => navigate({ tab: 'logs', container: c })}
        onConsole=${(/** @type {string} */ c) => navigate({ console: c })} />
      <${ImageUpdates} name=${name} env=${env} live=${live} tick=${tick} canEdit=${canEdit} busy=${blocked}
        onUpdate=${() => act(() => api.deploy(name, env, { pull: true, build: false, forceRecreate: false }))} />
      ${
        canEdit && consoleIn
          ? html`<${ConsolePanel} key=${consoleIn} name=${name} env=${env} container=${consoleIn}
              onClose=${() => navigate({ console: undefined })} />`
          : null
      }
      <div class="tabs" role="tablist" aria-label="Stack sections" onKeyDown=${onTabKey}>
        ${TABS.map(
          (t) => html`<button type="button" role="tab" id=${`tab-${t}`} aria-selected=${current === t}
            tabindex=${current === t ? 0 : -1}
            aria-controls=${`panel-${t}`} onClick=${() => navigate({ tab: t })}>${t[0]?.toUpperCase()}${t.slice(1)}${
              t === 'deploys' && runs ? ` (${runs.length})` : ''
            }</button>`,
        )}
      </div>
      <div role="tabpanel" id="panel-compose" aria-labelledby="tab-compose" hidden=${current !== 'compose'}>
        ${
          serverChange
            ? html`<${ServerChange} mine=${editor.current?.text() ?? ''} server=${serverChange.compose}
                onLoad=${() => {
                  editor.current?.replace(serverChange.compose);
                  base.current = { text: serverChange.compose, hash: serverChange.composeHash };
                  setServerChange(null);
                  setError(null);
                }}
                onKeep=${() => {
                  // The person saw the server's version and keeps theirs: Save replaces it.
                  base.current = { text: serverChange.compose, hash: serverChange.composeHash };
                  setServerChange(null);
                  setError(null);
                }} />`
            : null
        }
        ${
          stack && composeShown
            ? html`<${ComposeEditor} initial=${stack.compose} handle=${editor} error=${composeError}
          label=${`Compose file of ${name}`} readOnly=${!canEdit} />`
            : html`<p class="muted">Loading…</p>`
        }
        ${
          canEdit && stack
            ? html`<div class="buttons">
              <button type="button" disabled=${busy} onClick=${() => save(false)}>Save</button>
              <button type="button" class="primary" disabled=${blocked} ...${why} onClick=${() => save(true)}>Save and redeploy</button>
            </div>`
            : null
        }
      </div>
      ${
        current === 'compose'
          ? null
          : html`<div role="tabpanel" id=${`panel-${current}`} aria-labelledby=${`tab-${current}`}>
        ${
          current === 'variables'
            ? html`<${VariablesEditor} rows=${rows} setRows=${setRows} readOnly=${!canEdit} />
              ${canEdit ? html`<div class="buttons"><button type="button" class="primary" disabled=${busy} onClick=${saveVariables}>Save variables</button></div>` : null}`
            : null
        }
        ${
          current === 'logs'
            ? html`<${ContainerLogs} name=${name} env=${env} containers=${engine.status?.containers ?? []}
                selected=${container} onSelect=${(/** @type {string | null} */ c) => navigate({ container: c ?? undefined })} />`
            : null
        }
        ${
          current === 'deploys'
            ? html`<${DeploysTab} stack=${name} env=${env} runs=${runs} onJob=${(/** @type {string} */ id) => navigate({ job: id })} canEdit=${canEdit} openRun=${openRun} blocked=${reason}
              setOpenRun=${(/** @type {number | null} */ id) => navigate({ run: id ?? undefined })} reload=${reloadRuns} />`
            : null
        }
        ${current === 'activity' ? html`<${ActivityTab} stack=${name} env=${env} reload=${`${tick}/${reloads}`} />` : null}
      </div>`
      }
    </section>
  `;
}

/** A job's kind in words, as the page names it. */
const KIND_WORDS = /** @type {const} */ ({
  deploy: 'Deploy',
  create: 'Create and start',
  compose_save: 'Save and redeploy',
  start: 'Start',
  stop: 'Stop',
  restart: 'Restart',
  down: 'Down',
});

/**
 * Why the stack's actions wait: which job runs, its run, who started it, and a cancel under way.
 * @param {import('./api.js').StackJob} job
 */
function runningReason(job) {
  const what = `${KIND_WORDS[job.kind]}${job.runId === null ? '' : ` (run #${job.runId})`}`;
  const by = job.userId === null ? 'by a webhook or schedule' : `by ${job.userId}`;
  const stopping =
    job.cancelledBy === undefined ? '' : `; cancelling it (asked by ${job.cancelledBy ?? 'a user'})`;
  return `${what} is running, started ${by}${stopping}`;
}

/**
 * What the Output panel says of a failed deploy the stack's automatic rollback answered: the rollback's
 * run (a run whose `details.rollbackOf` is the failed one), with a link to it and its output.
 * @param {string} name @param {import('./api.js').Env} env
 * @param {import('./api.js').Run[] | null} runs @param {string} job
 * @param {(query: Record<string, string | number | null | undefined>) => void} navigate
 */
function rollbackNotice(name, env, runs, job, navigate) {
  const failed = runs?.find((r) => r.jobId === job);
  if (failed?.status !== 'failed') return null;
  const rollback = runs?.find((r) => r.details.rollbackOf === failed.id);
  if (!rollback) return null;
  const to = rollback.details.redeployOf;
  return html`<p class="output-notice" role="status" data-testid="rollback-notice">
    Run #${failed.id} failed; the stack's automatic rollback ${
      typeof to === 'number' ? `deployed run #${to} again` : 'deployed the last good run again'
    } as <a href=${routeHref(['stack', name], { env: envParam(env), tab: 'deploys', run: rollback.id })}>run #${rollback.id}</a> (${rollback.status}).
    <button type="button" onClick=${() => navigate({ job: rollback.jobId })}>Show its output</button>
  </p>`;
}

/**
 * A git deploy's job holds its status lines only; compose's lines are in its run's log (the spec's
 * git-stack rule): the Output panel follows that log live, in the run logs' viewer, once the run is
 * listed.
 * @param {string} name @param {import('./api.js').Run[] | null} runs @param {string} job
 * @param {() => void} reload
 */
function gitRunLog(name, runs, job, reload) {
  const run = runs?.find((r) => r.jobId === job);
  if (run?.details.source !== 'git') return null;
  return html`<div class="live-more" data-testid="git-run-log">
    <p class="live-sub">Compose output: the log of run #${run.id}</p>
    <${LogViewer} key=${run.id} stack=${name} run=${run} onRunEnd=${reload} />
  </div>`;
}
