/** HTTP status of a failure answer, derived from its code (spec: Errors). */
export function statusOfCode(code: unknown): number {
  switch (code) {
    case 'entity_absent':
    case 'unknown_route':
    // The audit routes' (an extra of this project): a session, document or revision the log does not have.
    case 'session_absent':
    case 'document_absent':
    case 'revision_absent':
      return 404;
    case 'stale_state':
    case 'session_changed':
    case 'document_not_active':
    case 'gui_required':
      return 409;
    case 'forbidden_host':
    case 'origin_forbidden':
      return 403;
    case 'method_not_allowed':
      return 405;
    case 'busy':
      return 503;
    default:
      return 400;
  }
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
