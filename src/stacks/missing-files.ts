/** A file or folder that is not there: for the many reads where that is an answer, not a failure. */
export const isMissing = (error: unknown): boolean =>
  (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * What `work` gives, or `absent` when it fails because its file or folder is not there (`missing`
 * says which failures those are); any other failure stays one.
 */
export async function unlessMissing<T, A>(work: Promise<T>, absent: A, missing = isMissing): Promise<T | A> {
  try {
    return await work;
  } catch (error) {
    if (missing(error)) return absent;
    throw error;
  }
}
