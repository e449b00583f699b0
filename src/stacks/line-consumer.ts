import type { ComposeProcess, OutputLine } from './types.js';

/** What `consumeLines` saw: whether the handler threw, and what it threw. */
export interface LineFeed {
  /** Lines handed to the handler, the one it threw on included. */
  readonly fed: number;
  readonly faulted: boolean;
  /** What the handler threw (set when `faulted`). */
  readonly fault: unknown;
}

/**
 * Hands each output line of a compose process to `handle`. A throw in `handle` (a bug in what counts,
 * redacts or records a line) must end this job, never the process: left to RxJS it would be rethrown
 * from a timer, where Node exits and takes every other deploy with it (issue 15). So the first throw
 * stops compose, no later line is handed over, and the returned feed says what was thrown; the caller
 * fails the job with it once `exit` has resolved.
 */
export function consumeLines(process: ComposeProcess, handle: (line: OutputLine) => void): LineFeed {
  const feed = { fed: 0, faulted: false, fault: undefined as unknown };
  process.lines.subscribe((line) => {
    if (feed.faulted) return;
    feed.fed += 1;
    try {
      handle(line);
    } catch (error) {
      feed.faulted = true;
      feed.fault = error;
      process.cancel();
    }
  });
  return feed;
}
