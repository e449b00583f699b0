/**
 * Errors RxJS would rethrow from a timer (where Node ends the process), collected instead while each
 * test of the calling file runs: a test asserts the list is empty to show that a consumer's throw was
 * handled where it happened.
 */
import { config } from 'rxjs';
import { afterEach, beforeEach } from 'vitest';

export function collectUnhandledRxjsErrors(): { readonly errors: unknown[] } {
  const collected = { errors: [] as unknown[] };
  const before = config.onUnhandledError;
  beforeEach(() => {
    collected.errors = [];
    config.onUnhandledError = (error) => collected.errors.push(error);
  });
  afterEach(() => {
    config.onUnhandledError = before;
  });
  return collected;
}
