/**
 * Work done side by side that must all have ended before the caller goes on: a step that failed early
 * must not leave another still writing to the run it is about to close.
 */

/** Waits for every promise, then throws the first failure in the order given, else gives the values. */
export async function allEnded<T extends readonly unknown[]>(
  promises: { readonly [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
