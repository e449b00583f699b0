import type { ComposeProcess, OutputLine } from '../contracts.js';

/** What `consumeLines` saw: whether the handler threw, and what it threw. */
interface LineFeed {
  /** Lines handed to the handler, the one it threw on included. */
  readonly fed: number;
  readonly faulted: boolean;
  /** What the handler threw (set when `faulted`). */
  readonly fault: unknown;
}

/**
 * Bytes of output the consumers may hold unrecorded before compose is paused, and below which it is
 * resumed. A deploy printing faster than the store and the log file take it then waits on its pipe:
 * its output never piles up in memory, whatever its size.
 */
export const PAUSE_BACKLOG_BYTES = 512 * 1024;
export const RESUME_BACKLOG_BYTES = 128 * 1024;
/** How often a paused feed looks at the backlog again (about the job's flush interval). */
const BACKLOG_CHECK_MS = 10;

/**
 * Hands each output line of a compose process to `handle`. A throw in `handle` (a bug in what counts,
 * redacts or records a line) must end this job, never the process: left to RxJS it would be rethrown
 * from a timer, where Node exits and takes every other deploy with it. So the first throw
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

/**
 * Paces compose by `backlog` (bytes its consumers hold, not recorded yet): past PAUSE_BACKLOG_BYTES its
 * output is paused until the backlog is under RESUME_BACKLOG_BYTES again. Subscribed after
 * `consumeLines`, so it looks at the backlog once each line has been handled.
 */
export function paceOutput(process: ComposeProcess, backlog: () => number): void {
  const { pause, resume } = process;
  if (pause === undefined || resume === undefined) return;
  let paused = false;
  let ended = false;
  const waitForBacklog = () => {
    if (backlog() > RESUME_BACKLOG_BYTES && !ended) {
      setTimeout(waitForBacklog, BACKLOG_CHECK_MS);
      return;
    }
    paused = false;
    resume.call(process);
  };
  process.lines.subscribe({
    next: () => {
      if (paused || backlog() <= PAUSE_BACKLOG_BYTES) return;
      paused = true;
      pause.call(process);
      setTimeout(waitForBacklog, BACKLOG_CHECK_MS);
    },
    complete: () => {
      ended = true;
    },
  });
}
