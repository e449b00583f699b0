/**
 * Limits for the benchmarks' waits: a wait in a page, for the engine or for a command that never ends
 * would hang a benchmark; each is given a generous limit instead and fails with what it waited for.
 * A row whose measurement failed says so in the report, and the other rows are still measured.
 */

/** A wait that went past its limit. */
export class WaitTimedOut extends Error {
  constructor(what: string, ms: number) {
    super(`${what}: not within ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`}`);
    this.name = 'WaitTimedOut';
  }
}

/** `work`, or a WaitTimedOut naming `what` once `ms` have passed (the work itself is left to end). */
export function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WaitTimedOut(what, ms)), ms);
  });
  // The work's own failure after the limit is not unhandled: the limit's rejection was the answer.
  work.catch(() => undefined);
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** Polls `check` every `everyMs` until it answers true; a WaitTimedOut naming `what` after `ms`. */
export async function until(
  what: string,
  ms: number,
  check: () => Promise<boolean>,
  everyMs = 200,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await within(what, Math.max(1, deadline - Date.now()), check()))) {
    if (Date.now() >= deadline) throw new WaitTimedOut(what, ms);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The outcome of one measured part of a benchmark: its value, or why it failed. */
export type Measured<T> = { ok: true; value: T } | { ok: false; error: string };

/** Runs one part; a failure (a time-out, an engine error) is kept as its message, never thrown. */
export async function measure<T>(part: string, work: () => Promise<T>): Promise<Measured<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`bench: ${part} failed: ${message}\n`);
    return { ok: false, error: `failed: ${message}` };
  }
}

/** A report's cell: the measured value, or why its measurement failed. */
export const cellOf = <T>(part: Measured<T>, value: (v: T) => string | number): string | number =>
  part.ok ? value(part.value) : part.error;
