/**
 * Long loops of an operation (a plot or capture of 100,000 entities takes seconds) run in slices: every few
 * milliseconds they give the event loop back, so `state`, `get_selection`, `operation` and `cancel`
 * are answered meanwhile, and they stop with `cancelled` once the operation's signal is aborted.
 */
import { EditorError } from './errors.js';

/** Longest stretch a loop runs before the event loop answers others (ms), as the session's commits do. */
const SLICE_MS = 8;
/** Steps between two looks at the clock: reading it every step costs more than the steps. */
const STEPS_PER_LOOK = 64;

/**
 * A step of a sliced loop: undefined while the slice lasts, else a promise to await (the loop's turn
 * is over; it rejects with `cancelled` when `signal` was aborted meanwhile).
 */
export type Tick = () => Promise<void> | undefined;

const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The answer of an operation (`what`) that `cancel` stopped: 400 `cancelled`, naming who stopped it. */
export const cancelledError = (what: string, signal: AbortSignal): EditorError =>
  new EditorError('cancelled', `${what} was cancelled (${String(signal.reason ?? 'cancel')})`);

/** Throws `cancelled` when `signal` was aborted. */
export function stopIfCancelled(what: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelledError(what, signal);
}

/** The ticks of one operation (`what`, for the refusal's message), stopped by `signal`. */
export function slices(what: string, signal?: AbortSignal): Tick {
  let steps = 0;
  let start = performance.now();
  const check = () => stopIfCancelled(what, signal);
  return () => {
    if (++steps % STEPS_PER_LOOK !== 0 || performance.now() - start < SLICE_MS) return undefined;
    check();
    return breathe().then(() => {
      check();
      start = performance.now();
    });
  };
}

/**
 * Work written as a generator that yields between the items it looks at and returns `T`: the same code
 * runs through at once (`runThrough`, for callers that cannot wait) or in slices (`runSliced`).
 */
export type Work<T> = Generator<void, T, void>;

/** Runs `work` through without a break. */
export function runThrough<T>(work: Work<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** Runs `work` in slices: at each of its yields `tick` may give the event loop back (or stop it). */
export async function runSliced<T>(work: Work<T>, tick: Tick): Promise<T> {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    const wait = tick();
    if (wait) await wait;
  }
}
