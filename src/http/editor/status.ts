import { EDITOR_ERRORS, type EditorErrorStatus, isEditorErrorCode } from '../../editor/errors.js';

/**
 * HTTP status of a failure answer: its code's entry of the editor's error catalogue, with no fallback.
 * Every failure the dispatcher answers carries a code of the catalogue, so a code without one is a bug
 * of this build, and it is thrown rather than answered with a guessed status.
 */
export function statusOfCode(code: unknown): EditorErrorStatus {
  if (!isEditorErrorCode(code))
    throw new TypeError(`failure code ${JSON.stringify(code)} is not in EDITOR_ERRORS`);
  return EDITOR_ERRORS[code].status;
}

/** The reason phrases the spec uses. */
export const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
