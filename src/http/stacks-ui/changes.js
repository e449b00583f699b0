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
