/**
 * The change feed (GET /api/events): one server-sent event per run or job change of a stack the user
 * may view, and per change of a stack's containers on its engine. Changes come in bursts (a deploy's
 * start, lines, end; a stop's kill, die and stop of each container), so the callback runs at most every
 * CHANGE_DELAY_MS, with the changes of that time.
 */
import { api, openEventStream } from './api.js';

const CHANGE_DELAY_MS = 300;

/** @typedef {import('./api.js').Change} Change */

/** Whether a change is the engine's (a container's, or the engine's stream), not the log's. */
export const isEngineChange = (/** @type {Change} */ change) =>
  change.kind === 'container' || change.kind === 'engine';

/**
 * The stacks whose containers the changes are of, as `environmentId stack` keys (stackKey); null when
 * one is an engine's stream itself (opened again or ended: any stack of it may have changed meanwhile).
 * @param {Change[]} changes
 * @returns {Set<string> | null}
 */
export function changedStacks(changes) {
  const keys = new Set();
  for (const change of changes) {
    if (change.kind === 'engine') return null;
    if (change.kind === 'container') keys.add(stackKey(change.environmentId, change.stack));
  }
  return keys;
}

/** A stack's key in `changedStacks`. @param {number | null} env @param {string} name */
export const stackKey = (env, name) => `${env ?? 'null'} ${name}`;

/** @param {(changes: Change[]) => void} onChange @returns {() => void} closes the feed */
export function openChanges(onChange) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {Change[]} */
  let batch = [];
  const close = openEventStream(api.changesUrl(), {
    onMessage: (data) => {
      try {
        batch.push(JSON.parse(data));
      } catch {
        return;
      }
      if (timer === undefined)
        timer = setTimeout(() => {
          timer = undefined;
          const changes = batch;
          batch = [];
          onChange(changes);
        }, CHANGE_DELAY_MS);
    },
    // The feed never ends by itself: a drop (a restart of the server) reconnects.
    reconnect: () => true,
  });
  return () => {
    clearTimeout(timer);
    close();
  };
}
