/**
 * The change feed (GET /api/events): one server-sent event per run or job change of a stack the user
 * may view. Changes come in bursts (a deploy's start, lines, end), so the callback runs at most every
 * CHANGE_DELAY_MS.
 */
import { api, openEventStream } from './api.js';

const CHANGE_DELAY_MS = 300;

/** @param {() => void} onChange @returns {() => void} closes the feed */
export function openChanges(onChange) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const close = openEventStream(api.changesUrl(), {
    onMessage: () => {
      if (timer === undefined)
        timer = setTimeout(() => {
          timer = undefined;
          onChange();
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
