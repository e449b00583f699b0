/**
 * SIGINT and SIGTERM, caught from the command's first line on: stop accepting, flush the store, exit 0
 * (docs/operations.md#command-line). A supervisor may stop a server at any moment, also while it starts: a handler installed
 * only once the server listened left a window in which the signal's default action killed the process
 * (exit by signal, the store not flushed). The entry (main.ts) installs these handlers before it loads
 * anything else; a signal is then remembered, and each serving command asks for it when it can close
 * (`untilStopSignal`), or between its start-up steps (`stopRequested`).
 *
 * This module imports nothing: the entry evaluates it before the rest of the program is even loaded.
 */

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

let caught: NodeJS.Signals | undefined;
let installed = false;
const waiters = new Set<() => void>();

function onSignal(signal: NodeJS.Signals): void {
  // A second signal while stopping changes nothing: the first one's shutdown is under way.
  if (caught !== undefined) return;
  caught = signal;
  for (const wake of waiters) wake();
  waiters.clear();
}

/** Catches SIGINT and SIGTERM from now on (again after a release); a signal is remembered. */
export function catchStopSignals(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

/**
 * For commands that do not serve (migrate, replay, a rebuild through a running server): Node's default
 * comes back (the signal ends the process), and a signal caught before now is raised again, so it has
 * the effect it would have had.
 */
export function releaseStopSignals(): void {
  if (!installed) return;
  installed = false;
  for (const signal of SIGNALS) process.off(signal, onSignal);
  const pending = caught;
  caught = undefined;
  if (pending !== undefined) process.kill(process.pid, pending);
}

/** Whether a stop signal has arrived. */
export const stopRequested = (): boolean => caught !== undefined;

/** Resolves once a stop signal has arrived (at once when one already has). */
export function untilStopSignal(): Promise<void> {
  if (caught !== undefined) return Promise.resolve();
  return new Promise<void>((resolve) => waiters.add(resolve));
}
