import type { DocumentState, EditorSessionState } from '../../../projections/editor-session.js';
import type { Change, NewEditorEvent } from '../../../streams/editor.js';
import type { EventStore } from '../../store/types.js';
import type { EditorOp } from '../capabilities.js';
import type { EditorErrorCode } from '../errors.js';
import type { EditorRequest } from '../request.js';

/** What an operation may read: the request, the session's read model and its target document. */
export interface OpContext {
  request: EditorRequest;
  session: EditorSessionState;
  /** The document the request targets (its `document_id`, else the active one); undefined when none. */
  doc: DocumentState | undefined;
  sessionId: string;
  version: string;
  /**
   * A mutation accepted but not answered yet, by request_id: `running` or `queued` behind another.
   * Only the dispatcher knows these (they are not in the read model until answered); `operation` reads it.
   */
  pending?: (requestId: string) => { op: string; status: 'running' | 'queued' } | undefined;
  /** The event log, for ops that answer from it rather than from the read model (`events`). */
  log?: Pick<EventStore, 'readAll' | 'headPosition'>;
  /** The dispatcher's op table, for ops that run other ops (`batch`, `run`). */
  ops?: OpTable;
  /** True when a person at the viewer can answer picks (GUI-hosted editor); false or absent = headless. */
  gui?: boolean;
  /** The session's `state` view, as every answer carries it (`state` also answers it at the top level). */
  stateView?: () => Record<string, unknown>;
  /** Aborted when `cancel` stops this running operation (ops marked `cancellable` only). */
  signal?: AbortSignal;
  /**
   * Stops the running cancellable operations (the one named, else every one that runs): the first
   * stopped and how many, or undefined when none runs. `by` says who stopped them, for their answers.
   */
  cancelRunning?: (
    requestId: string | undefined,
    by: string,
  ) => { request_id: string | null; op: string; count: number } | undefined;
}

/** What an operation decided: events to append (none for reads) and the answer's fields. */
export interface OpOutcome {
  events: NewEditorEvent[];
  result?: Record<string, unknown>;
  /** Answer fields beside `result` (e.g. `entities`, `count`, `items` of reads). */
  fields?: Record<string, unknown>;
  /** The answer's `changes` when the events do not carry them (undo and redo: the step's, inverted). */
  changes?: Change[];
  /** The answer's top-level `document_id` when it is not the target document (new, open; null after close). */
  document_id?: number | null;
  /**
   * Set when the op failed part-way but what it did before stays (a non-atomic batch): the answer is
   * `{ ok: false, code, error }` and `events` are recorded all the same.
   */
  failed?: { code: EditorErrorCode; error: string };
}

export interface OpDefinition {
  /**
   * `mutation`: needs a request_id, runs in the queue, its answer is recorded;
   * `read`: runs in the queue (so it sees every earlier mutation), records nothing;
   * `immediate`: answered from read models at once, never waits behind a mutation.
   */
  kind: 'mutation' | 'read' | 'immediate';
  /**
   * `required`: an active document (document_required / document_not_active otherwise);
   * `open`: any open document, active or not (activate, close, entities_copy_to);
   * `active`: a mutation that, without a document_id, acts on the active document (undo, redo, save:
   *   the REST surface runs them without the wrapper, so without the cached document_id);
   * `none`: works without one (new, open, state...).
   */
  document: 'required' | 'open' | 'active' | 'none';
  run(ctx: OpContext): OpOutcome | Promise<OpOutcome>;
  /**
   * Answers before the request is queued, when the answer needs nothing recorded (a pick in a headless
   * editor, a cancel with nothing to cancel): an outcome, or a thrown EditorError; undefined = go on.
   */
  atOnce?: (ctx: OpContext) => OpOutcome | undefined;
  /**
   * Whether this request reads or writes a file (open, save, plot...): such a request from a caller
   * without `files` is refused before it is queued (`origin_forbidden`). Absent: never.
   */
  files?: (request: EditorRequest, ops: OpTable) => boolean;
  /** A mutation that may run while a pick waits for the person at the viewer (cancel); others are `busy`. */
  whilePicking?: boolean;
  /**
   * A long op `cancel` may stop while it runs (plot, capture, query): it reads `signal` and stops with
   * `cancelled`. A cancellable read or immediate op shows in `state.operation` while it runs.
   */
  cancellable?: boolean;
}

/** A dispatcher's op table, by name (tests add ops of their own to the editor's). */
export type OpTable = Record<string, OpDefinition>;

/**
 * A part of the editor's op table (the document ops, the entity ops...): ops named by `EditorOp` only, so
 * a name the capabilities do not list does not compile.
 */
export type OpGroup = Partial<Record<EditorOp, OpDefinition>>;

/** `files` of an op every request of which reads or writes a file. */
export const everyRequest = (): boolean => true;

/** The document an op runs on; the dispatcher has checked it exists for ops that need one. */
export function docOf(ctx: OpContext): DocumentState {
  if (!ctx.doc) throw new Error('dispatcher bug: op needs a document but none was resolved');
  return ctx.doc;
}
