/**
 * A failure the dispatcher answers as `{ ok: false, code, error }`; the code maps to an HTTP status.
 * Its `name` is the class's own, so subclasses need not set it.
 */
export class EditorError extends Error {
  readonly code: string;
  /** Extra fields of the failure answer (e.g. `completed_steps`). */
  readonly details: Record<string, unknown> | undefined;
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

export const fail = (code: string, message: string, details?: Record<string, unknown>): never => {
  throw new EditorError(code, message, details);
};
