/**
 * Every failure kind of the stacks surface (its routes, the service and the transport), with the HTTP
 * status it is answered with and what it means (docs/errors.md is generated from it). A `StacksError`
 * takes only these codes and its status is looked up here: there is no default status. The answer is
 * `{ "error": message, …fields }`; the code is not in it, except where the message is the code itself
 * (`compose_changed`, `store_failed`), so the table names kinds for the page and the OpenAPI document.
 */
export const STACKS_ERRORS = {
  // 400: the request is not one the route takes.
  invalid_request: {
    status: 400,
    meaning: "The request does not fit its route's schema: the message is the schema's words.",
  },
  invalid_body: { status: 400, meaning: 'The request body is not the JSON object the route takes.' },
  invalid_settings: {
    status: 400,
    meaning: 'A setting of the body has an unknown name, the wrong type or a value out of range.',
  },
  invalid_git_settings: {
    status: 400,
    meaning: "A git stack's settings are not valid: its repository, branch, compose paths or webhook secret.",
  },
  invalid_cron: { status: 400, meaning: 'A schedule is not a valid cron expression.' },
  invalid_id: {
    status: 400,
    meaning: 'A stack name, environment id, run id or schedule id of the request is not of a valid form.',
  },
  invalid_query: {
    status: 400,
    meaning: 'A query parameter is missing, of the wrong form or out of its range.',
  },
  invalid_compose: {
    status: 400,
    meaning: 'The compose file is not a YAML mapping the service takes (not YAML, too deep, an alias bomb).',
  },
  invalid_variables: {
    status: 400,
    meaning: "The stack's variables are not a list of valid {name, value, secret}, or there are too many.",
  },
  unknown_secret_provider: {
    status: 400,
    meaning: 'The stack names a secret provider that is not configured.',
  },
  security_refused: {
    status: 400,
    meaning: 'The compose file breaks the security settings of its environment or of the server.',
  },
  secrets_missing: {
    status: 400,
    meaning: 'A redeploy of a run needs secret variables the stack no longer has.',
  },
  invalid_webhook: { status: 400, meaning: "A webhook delivery's body or headers cannot be read." },
  invalid_command: { status: 400, meaning: "The console's command cannot be split into its words." },
  // 401, 403: who asks.
  unauthorized: { status: 401, meaning: 'The request carries no valid token or session.' },
  webhook_signature: {
    status: 401,
    meaning: "The webhook delivery is unsigned, or its signature does not match the stack's secret.",
  },
  forbidden: {
    status: 403,
    meaning: "The caller's user may not do this: it needs an admin or a permission the user lacks.",
  },
  forbidden_host: {
    status: 403,
    meaning: 'The Host header names no loopback host while the server listens on loopback.',
  },
  // 404: what the request names does not exist.
  route_not_found: { status: 404, meaning: 'No route has this method and path.' },
  page_not_built: { status: 404, meaning: 'The web page is not built (npm run build).' },
  stack_not_found: { status: 404, meaning: 'No stack has this name in this environment.' },
  environment_not_found: { status: 404, meaning: 'No environment has this id.' },
  git_stack_not_found: { status: 404, meaning: 'No git stack has this name in this environment.' },
  job_not_found: { status: 404, meaning: 'No job has this id (finished jobs are kept for a while only).' },
  run_not_found: { status: 404, meaning: 'No deploy run of this stack has this id.' },
  run_content_not_found: {
    status: 404,
    meaning: 'The run has no recorded content: it predates deploy history or failed before compose ran.',
  },
  log_not_found: { status: 404, meaning: 'The run has no log file.' },
  container_not_found: { status: 404, meaning: 'No container of this stack has this id or name.' },
  channel_not_found: { status: 404, meaning: 'No notification channel has this name.' },
  schedule_not_found: { status: 404, meaning: 'No schedule has this type.' },
  operation_not_found: { status: 404, meaning: 'No operation of the activity has this id.' },
  project_not_found: { status: 404, meaning: 'The engine holds no container of this compose project.' },
  // 409: the state does not allow it now.
  stack_exists: {
    status: 409,
    meaning: 'A stack of this name exists (or is being made) in this environment.',
  },
  stack_busy: { status: 409, meaning: 'The stack has a job running: wait for it to end.' },
  containers_left: {
    status: 409,
    meaning: 'Deleting the stack would leave its containers: delete with down=true or keepContainers=true.',
  },
  compose_changed: {
    status: 409,
    meaning: 'The compose file changed on the server since the version the save names (If-Match).',
  },
  job_ended: { status: 409, meaning: 'The job has ended: there is nothing to cancel.' },
  job_elsewhere: { status: 409, meaning: 'The job runs in another chronicle instance: cancel it there.' },
  server_stopping: { status: 409, meaning: 'The server is stopping: it starts nothing new.' },
  already_running: {
    status: 409,
    meaning: 'A run of this schedule (reconcile, retention) is already running.',
  },
  run_running: { status: 409, meaning: 'The run is still running: it cannot be deleted.' },
  run_changed: { status: 409, meaning: 'The run changed while it was being deleted: try again.' },
  git_tree_missing: {
    status: 409,
    meaning: 'The git stack has no checked-out tree yet: deploy it from git.',
  },
  container_not_running: {
    status: 409,
    meaning: 'The container is not running: a console needs it running.',
  },
  consoles_full: { status: 409, meaning: 'As many consoles as the server allows are open.' },
  // 413, 422, 426, 429.
  too_large: { status: 413, meaning: 'A compose file, variables or a webhook body is over its size limit.' },
  compose_rejected: {
    status: 422,
    meaning:
      "Compose refuses the stack's files (compose config), or an adopted project's files cannot be read.",
  },
  git_failed: {
    status: 422,
    meaning: "Git could not fetch or check out the stack's branch, or the checked-out files are not valid.",
  },
  websocket_required: { status: 426, meaning: 'The console is a WebSocket: ask with Upgrade: websocket.' },
  too_many_requests: {
    status: 429,
    meaning: 'Past a limit of the server: too many failed sign-ins, or too many open streams.',
  },
  // 500: the server failed.
  internal_error: {
    status: 500,
    meaning: 'The server failed where it should not (a bug); the message says where.',
  },
  data_damaged: {
    status: 500,
    meaning: 'A file of the data folder or the event log is not as the server wrote it.',
  },
  ids_exhausted: { status: 500, meaning: 'No free id was found for a new run or execution.' },
  down_failed: { status: 500, meaning: "The delete's compose down failed: the stack was not deleted." },
  // 502, 503: a service the server depends on failed.
  engine_failed: {
    status: 502,
    meaning: 'The Docker engine of the environment cannot be reached or failed.',
  },
  secret_provider_failed: { status: 502, meaning: "The stack's secret provider failed." },
  store_failed: {
    status: 503,
    meaning: 'The event store failed: nothing of the request was recorded (see GET /api/health).',
  },
  webhook_busy: { status: 503, meaning: 'Too many webhook deliveries are being received: retry later.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

/** A code of the stacks surface: a key of `STACKS_ERRORS`. */
export type StacksErrorCode = keyof typeof STACKS_ERRORS;

/** The HTTP statuses a stacks failure maps to. */
type StacksErrorStatus = (typeof STACKS_ERRORS)[StacksErrorCode]['status'];

/** The status a code is answered with: a lookup in the table, which holds every code. */
export const statusOf = <C extends StacksErrorCode>(code: C): (typeof STACKS_ERRORS)[C]['status'] =>
  STACKS_ERRORS[code].status;

/**
 * A failure the stacks routes turn straight into an answer: the code says which kind (bad input,
 * missing, conflict) and gives the status, the message is what the caller reads. Messages never hold
 * variable values.
 */
export class StacksError extends Error {
  override name = 'StacksError';
  constructor(
    readonly code: StacksErrorCode,
    message: string,
    options?: ErrorOptions,
    /** Fields the answer carries beside `error` (a conflict's current version, say). */
    readonly fields?: Readonly<Record<string, string>>,
  ) {
    super(message, options);
  }

  get status(): StacksErrorStatus {
    return statusOf(this.code);
  }
}

/**
 * A save that names the version it edits (`If-Match`) when the stored compose file has moved on: the
 * answer names the code and the current hash, so the caller can read it again and choose.
 */
export const composeChanged = (current: string) =>
  new StacksError('compose_changed', 'compose_changed', undefined, {
    message: 'The compose file changed on the server since this version was read: read it again and choose.',
    composeHash: current,
  });

export const isStacksError = (error: unknown): error is StacksError => error instanceof StacksError;

/** The code a write answers while the event store is failed (src/store/failed-state.ts). */
export const STORE_FAILED = 'store_failed';

/**
 * A write refused because the event store failed (a full disk, a lost database): 503, the code, what it
 * means for this store, and the store's own reason. Nothing of the request was recorded.
 */
export const storeFailed = (failure: { reason: string; clears: 'restart' | 'next-write' }) =>
  new StacksError(STORE_FAILED, STORE_FAILED, undefined, {
    message:
      failure.clears === 'restart'
        ? 'The event store failed: nothing more is recorded until the server is restarted (see GET /api/health).'
        : 'The event store failed: nothing was recorded; it is tried again by the next write (see GET /api/health).',
    reason: failure.reason,
  });

/** Whether a string is a code of the catalogue (a page or a test reading codes from elsewhere). */
export const isStacksErrorCode = (code: string): code is StacksErrorCode =>
  Object.hasOwn(STACKS_ERRORS, code);
