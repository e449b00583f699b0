/**
 * When the scheduled image update check runs (`imageUpdates.checkEveryMinutes`): a first time a minute
 * after the start (a restart should not leave the page blind for hours), then every `minutes`, one
 * check at a time (a turn that comes while one still runs is skipped). Time comes from a `Timers` port
 * so that a test moves it on by firing the armed timer, not by waiting.
 */

/**
 * The time the schedule waits on: `after` arms one timer and answers its cancel. `fire` answers the
 * check it started (or nothing when it started none), so a test's timers can wait for its end.
 */
export interface Timers {
  after(ms: number, fire: () => Promise<void> | undefined): () => void;
}

/** The first check's wait after the start. */
export const FIRST_CHECK_AFTER_MS = 60_000;

/** Node's timers hold at most 2^31 - 1 ms; a longer wait (checkEveryMinutes over 24 days) is chained. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Node's timers, unref'd: a pending check never keeps the process alive. */
export const nodeTimers: Timers = {
  after(ms, fire) {
    let timer: NodeJS.Timeout;
    const arm = (left: number) => {
      timer = setTimeout(
        () => (left > LONGEST_TIMER_MS ? arm(left - LONGEST_TIMER_MS) : void fire()),
        Math.min(left, LONGEST_TIMER_MS),
      );
      timer.unref();
    };
    arm(ms);
    return () => clearTimeout(timer);
  },
};

interface ImageCheckSchedule {
  /** Cancels the armed timer; a check running goes on to its end, and none follows. */
  stop(): void;
}

/**
 * Runs `check` on the schedule of `minutes` (0: never). A check that throws is reported to `failed`
 * and the next turn comes as usual.
 */
export function scheduleImageChecks(
  minutes: number,
  check: () => Promise<void>,
  options: { timers?: Timers; failed?: (error: Error) => void } = {},
): ImageCheckSchedule {
  const timers = options.timers ?? nodeTimers;
  const failed =
    options.failed ??
    ((error: Error) => process.stderr.write(`stacks: the image update check failed: ${error.message}\n`));
  if (minutes <= 0) return { stop: () => {} };
  let stopped = false;
  let running = false;
  let cancel = () => {};
  const turn = (): Promise<void> | undefined => {
    if (stopped) return undefined;
    // The next turn is armed before this one runs: every `minutes`, however long a check takes.
    cancel = timers.after(minutes * 60_000, turn);
    if (running) return undefined;
    running = true;
    return check()
      .catch((error: unknown) => failed(error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        running = false;
      });
  };
  cancel = timers.after(FIRST_CHECK_AFTER_MS, turn);
  return {
    stop: () => {
      stopped = true;
      cancel();
    },
  };
}
