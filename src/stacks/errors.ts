/** The HTTP statuses a stacks failure maps to; routes answer `{ "error": message }` with it. */
export type StacksErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503;

/**
 * A failure the stacks routes turn straight into an answer: the status says which kind (bad input,
 * missing, conflict), the message is what the caller reads. Messages never hold variable values.
 */
export class StacksError extends Error {
  override name = 'StacksError';
  constructor(
    readonly status: StacksErrorStatus,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const badRequest = (message: string, options?: ErrorOptions) => new StacksError(400, message, options);
export const notFound = (message: string) => new StacksError(404, message);
export const conflict = (message: string) => new StacksError(409, message);

export const isStacksError = (error: unknown): error is StacksError => error instanceof StacksError;
