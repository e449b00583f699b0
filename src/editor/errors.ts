/** An HTTP status an editor failure is answered with. */
export type EditorErrorStatus = 400 | 403 | 404 | 405 | 409 | 415 | 503;

/**
 * Every failure code of the editor surface (the dispatcher, its REST transport, the audit routes, the
 * viewer and the MCP server), with the HTTP status it is answered with and what it means. A code that is
 * not here does not compile (`EditorError` takes an `EditorErrorCode`), the status is looked up here,
 * and docs/errors.md and the OpenAPI document list these. A few places answer a code with a status of
 * their own: the transport's `internal_error` is 500 (docs/errors.md names them).
 */
export const EDITOR_ERRORS = {
  // The transport and its routes.
  bad_request: { status: 400, meaning: 'The request could not be read: a malformed request line or body.' },
  forbidden_host: {
    status: 403,
    meaning: 'The Host header names no loopback host of this machine (DNS rebinding is refused).',
  },
  json_required: {
    status: 415,
    meaning: 'The viewer takes the bodies of its POST requests as application/json.',
  },
  method_not_allowed: { status: 405, meaning: 'The route exists, but not for this HTTP method.' },
  unknown_route: { status: 404, meaning: 'No route has this path.' },
  origin_forbidden: {
    status: 403,
    meaning:
      'A web page of another origin asked for an op that reads or writes files (allowed with --allow-origin).',
  },
  internal_error: {
    status: 400,
    meaning:
      'The editor failed where it should not (a bug): the dispatcher answers it 400, the transport 500.',
  },
  // The protocol: the envelope, request ids, the session.
  protocol_mismatch: { status: 400, meaning: 'The request names a protocol other than 1.' },
  invalid_request: { status: 400, meaning: 'A field of the request has the wrong shape or value.' },
  unknown_operation: {
    status: 400,
    meaning: 'No op has this name, or no operation has this request_id.',
  },
  request_id_required: {
    status: 400,
    meaning: 'A mutation needs a request_id (a string of 1 to 128 bytes).',
  },
  request_id_reused: { status: 400, meaning: 'The request_id was used before with a different body.' },
  session_changed: { status: 409, meaning: "The request names a session that is not this editor's." },
  stale_state: {
    status: 409,
    meaning: "The request's revision is not the document's current one: read the state and try again.",
  },
  busy: {
    status: 503,
    meaning: 'A pick waits for the person at the viewer: answer or cancel it before other mutations.',
  },
  cancelled: { status: 400, meaning: 'The operation was stopped by a cancel before it finished.' },
  too_large: {
    status: 400,
    meaning:
      "The step is over a limit: one change over the store's event limit, or too many expanded entities.",
  },
  // Documents.
  document_required: { status: 400, meaning: 'The op needs a document, and none is open or active.' },
  document_closed: { status: 400, meaning: 'The document_id names no open document.' },
  document_not_active: {
    status: 409,
    meaning: 'The document is open but not the active one, which this op acts on.',
  },
  document_dirty: {
    status: 400,
    meaning: 'The document has unsaved changes: save it, or close it with discard: true.',
  },
  path_required: { status: 400, meaning: 'The document was never saved, so a save needs a path.' },
  invalid_template: { status: 400, meaning: 'The template is not "metric", "imperial" or a DXF path.' },
  nothing_to_undo: { status: 400, meaning: "The document's undo stack is empty." },
  nothing_to_redo: { status: 400, meaning: 'The document has no undone step to redo.' },
  // Files.
  invalid_path: { status: 400, meaning: 'The path is not a non-empty string.' },
  file_not_found: { status: 400, meaning: 'No file is at the path.' },
  file_unreadable: { status: 400, meaning: 'The file exists but cannot be read.' },
  file_too_large: { status: 400, meaning: 'The file is over the size limit the editor reads.' },
  file_exists: {
    status: 400,
    meaning: 'A file is at the output path already: pass overwrite: true to replace it.',
  },
  save_failed: { status: 400, meaning: 'The DXF file could not be written.' },
  invalid_format: { status: 400, meaning: 'The output format is not one this op writes.' },
  unsupported_format: {
    status: 400,
    meaning: 'The file or path is not DXF (a DWG, say): the editor reads and writes DXF only.',
  },
  dxf_invalid: { status: 400, meaning: 'The file is not a DXF the reader understands.' },
  dxf_truncated: { status: 400, meaning: 'The DXF file ends before its EOF.' },
  dxf_binary_unsupported: { status: 400, meaning: 'The DXF file is binary: save it as ASCII DXF.' },
  dxf_too_large: { status: 400, meaning: 'An entity of the DXF file holds more group codes than one may.' },
  invalid_image: { status: 400, meaning: 'The file is not a PNG or JPEG image.' },
  image_name_taken: { status: 400, meaning: 'The image name is taken by another image definition.' },
  // Entities and their fields.
  entities_required: { status: 400, meaning: 'entities is not a non-empty array of entity objects.' },
  unknown_entity_type: { status: 400, meaning: 'The entity type is not one the editor creates.' },
  entity_absent: { status: 404, meaning: 'No entity of the document has this handle.' },
  invalid_handles: {
    status: 400,
    meaning: 'The handles are missing, malformed, or name entities the op cannot take.',
  },
  invalid_point: {
    status: 400,
    meaning: 'A point is not [x, y] or [x, y, z] of finite numbers (or x,y in a command).',
  },
  invalid_vertices: { status: 400, meaning: 'vertices is not an array of at least 2 points.' },
  invalid_corners: { status: 400, meaning: 'corners is not 3 or 4 points.' },
  invalid_radius: { status: 400, meaning: 'The radius is not a finite number in its range.' },
  invalid_text: { status: 400, meaning: 'The text value is not a non-empty string.' },
  invalid_boundary: { status: 400, meaning: 'A hatch boundary is not an array of at least 3 [x, y] points.' },
  invalid_pattern: { status: 400, meaning: 'The hatch pattern is not one of the standard set.' },
  invalid_property: {
    status: 400,
    meaning: 'A property is unknown to the entity, or its value does not fit it.',
  },
  block_required: { status: 400, meaning: 'An Insert needs block: the name of a defined block.' },
  invalid_xdata: {
    status: 400,
    meaning: 'An extended data item is not a group code and value xdata_set takes.',
  },
  app_required: { status: 400, meaning: 'xdata_set needs the application name (app) the data belongs to.' },
  // Blocks, groups, layers, layouts, selection sets, system variables.
  name_required: { status: 400, meaning: 'The op needs a name.' },
  invalid_name: { status: 400, meaning: 'The name is not one the op may give (empty, reserved, malformed).' },
  block_exists: { status: 400, meaning: 'A block of this name exists: pass replace: true to redefine it.' },
  block_missing: { status: 400, meaning: 'No block of this name is defined.' },
  block_protected: {
    status: 400,
    meaning: 'The block is a layout or anonymous block record, which this op leaves alone.',
  },
  invalid_block: { status: 400, meaning: 'The block would contain an insert of itself.' },
  group_exists: { status: 400, meaning: 'A group of this name exists.' },
  layer_missing: { status: 400, meaning: 'No layer of this name exists.' },
  layout_exists: { status: 400, meaning: 'A layout of this name exists.' },
  layout_missing: { status: 400, meaning: 'No layout of this name exists.' },
  selection_set_missing: { status: 400, meaning: 'No selection set of this name exists.' },
  invalid_paper: { status: 400, meaning: 'The paper is not one of the known sizes.' },
  invalid_orientation: { status: 400, meaning: 'The orientation is not portrait or landscape.' },
  invalid_scale: { status: 400, meaning: 'A scale is not a finite number other than 0.' },
  unknown_sysvar: { status: 400, meaning: 'No system variable has this name.' },
  invalid_sysvar_value: { status: 400, meaning: 'The value does not fit the system variable.' },
  // Queries.
  invalid_query: {
    status: 400,
    meaning: 'A parameter of the query or its paging is out of range or malformed.',
  },
  invalid_where: {
    status: 400,
    meaning: 'The where filter is not a JSON array of conditions the query takes.',
  },
  invalid_detail: { status: 400, meaning: 'detail is not summary, geometry or full.' },
  // Transforms.
  invalid_action: { status: 400, meaning: 'The transform action is not one the op knows.' },
  invalid_transform: {
    status: 400,
    meaning: 'A transform parameter (an angle, a spacing, a count, a matrix) is not one the op can apply.',
  },
  invalid_factor: { status: 400, meaning: 'The scale factor is 0 or not a finite number.' },
  invalid_axis: { status: 400, meaning: 'A mirror needs its axis: two distinct points on the mirror line.' },
  invalid_target: {
    status: 400,
    meaning: 'The target is not a document this op copies into (its own source).',
  },
  not_transformable: {
    status: 400,
    meaning: 'An entity cannot be carried through this transform and keep its kind.',
  },
  // Picks, selection and the view.
  gui_required: {
    status: 409,
    meaning: 'The op needs a person at the viewer of the GUI-hosted editor; this one runs headless.',
  },
  interactive_pending: { status: 400, meaning: 'A pick already waits for the person at the viewer.' },
  no_pick_pending: { status: 400, meaning: 'No getpoint or user_select waits for an answer.' },
  no_extent: { status: 400, meaning: 'None of the entities has an extent to focus on.' },
  nothing_selected: { status: 400, meaning: 'The command needs a selection, and it holds no entity.' },
  // Batches and command lines.
  batch_too_large: { status: 400, meaning: 'The batch holds more steps than one may.' },
  nested_batch: { status: 400, meaning: 'A batch step is a batch.' },
  not_atomic: {
    status: 400,
    meaning:
      'The step cannot be part of an atomic batch (it opens, saves or switches documents, or writes a file).',
  },
  not_batchable: {
    status: 400,
    meaning: 'The step waits for a person at the viewer and cannot run in a batch.',
  },
  invalid_command: {
    status: 400,
    meaning: 'The command line cannot be read (an open quote, a missing argument).',
  },
  unknown_command: { status: 400, meaning: 'The command line names a command the editor does not run.' },
  // Plot and capture.
  nothing_to_plot: { status: 400, meaning: 'No entity that prints is in the layout or window.' },
  plot_failed: { status: 400, meaning: 'The plot could not be drawn or written.' },
  capture_failed: { status: 400, meaning: 'The capture could not be drawn.' },
  invalid_background: {
    status: 400,
    meaning: 'The background is not #rrggbb, #rgb, "dark", "white" or "black".',
  },
  invalid_width: { status: 400, meaning: 'The capture width is not a whole number of pixels in range.' },
  // The audit routes (read from the log).
  session_absent: { status: 404, meaning: 'The store holds no editor session of this id.' },
  document_absent: { status: 404, meaning: 'The session has no document of this id.' },
  revision_absent: { status: 404, meaning: 'The document has no such revision.' },
  invalid_revision: { status: 400, meaning: 'A revision (or from, to) is missing or not a whole number.' },
  // The MCP server.
  invalid_arguments: { status: 400, meaning: "The tool's arguments do not fit its schema." },
} as const satisfies Record<string, { status: EditorErrorStatus; meaning: string }>;

/** A failure code of the editor surface: a key of `EDITOR_ERRORS`. */
export type EditorErrorCode = keyof typeof EDITOR_ERRORS;

export const isEditorErrorCode = (value: unknown): value is EditorErrorCode =>
  typeof value === 'string' && Object.hasOwn(EDITOR_ERRORS, value);

/**
 * A failure the dispatcher answers as `{ ok: false, code, error }`; the code maps to an HTTP status.
 * Its `name` is the class's own, so subclasses need not set it.
 */
export class EditorError extends Error {
  readonly code: EditorErrorCode;
  /** Extra fields of the failure answer (e.g. `completed_steps`). */
  readonly details: Record<string, unknown> | undefined;
  constructor(code: EditorErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

export const fail = (code: EditorErrorCode, message: string, details?: Record<string, unknown>): never => {
  throw new EditorError(code, message, details);
};
