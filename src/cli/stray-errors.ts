import { config } from 'rxjs';

/**
 * What the `chronicle` command does with an error that nothing caught (docs/operations.md#command-line). One server holds
 * every running deploy, their compose process groups and, under `serve`, the editor too: a bug in one
 * consumer must not end them all.
 *
 * - An error thrown in an RxJS subscriber is caught by RxJS, which rethrows it from a timer (Node then
 *   exits). RxJS has already unsubscribed that one consumer and nothing else is left half-done, so the
 *   error is written on standard error and the process goes on. The consumers of the stacks service
 *   (a job's line handler, an SSE writer, a projection feed) fail their own job, answer or projection
 *   first; this is the net for what they miss.
 * - A rejected promise nobody handles is the end of some background work, not a broken process: written
 *   on standard error, and the process goes on.
 * - An exception thrown anywhere else (a timer or an event handler outside RxJS) keeps Node's default,
 *   a printed stack and exit status 1: its state is unknown, and a supervisor restarts a dead server
 *   more safely than one that goes on after an arbitrary throw.
 *
 * None of them is silent: each line names what happened and carries the stack.
 */
export function reportStrayErrors(
  write: (text: string) => void = (text) => process.stderr.write(text),
): void {
  const report = (what: string, error: unknown) => {
    try {
      write(`chronicle: ${what}; the process goes on: ${describe(error)}\n`);
    } catch {
      // Standard error itself failing leaves nowhere to report to; throwing here would end the process.
    }
  };
  config.onUnhandledError = (error: unknown) => report('an error escaped a stream consumer', error);
  process.on('unhandledRejection', (reason: unknown) =>
    report('a promise was rejected and nobody handled it', reason),
  );
}

const describe = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
