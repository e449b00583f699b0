import type {
  Block,
  DxfDocumentModel,
  DxfTag,
  Entity,
  Group,
  Layer,
  Layout,
  RawRecord,
  SysvarValue,
} from './editor-model.js';
import type { RecordedEvent } from './recorded-event.js';

/**
 * The editor's event catalog. One stream per editor session, `editor-session-<session id>`: the
 * dispatcher runs one mutation at a time, so a session's stream is its total order, and a session's
 * audit trail is one stream read.
 */
export const sessionStream = (sessionId: string) => `editor-session-${sessionId}`;
export const SESSION_STREAM_PREFIX = 'editor-session-';

/** A dispatcher answer as it is sent (without `state`, which is read fresh). */
export type Answer = { ok: boolean; [field: string]: unknown };

/**
 * One element of a document that a step changed, with what it was and what it became (null = absent).
 * Every mutation is a list of these, so undo is applying the list backwards with before and after
 * swapped, and evolve needs one code path for every operation.
 */
export type Change =
  | { kind: 'entity'; key: string; before: Entity | null; after: Entity | null; index?: number }
  | { kind: 'layer'; key: string; before: Layer | null; after: Layer | null }
  | { kind: 'block'; key: string; before: Block | null; after: Block | null }
  | { kind: 'layout'; key: string; before: Layout | null; after: Layout | null }
  | { kind: 'group'; key: string; before: Group | null; after: Group | null }
  | { kind: 'header'; key: string; before: DxfTag[] | null; after: DxfTag[] | null }
  | { kind: 'appid'; key: string; before: boolean; after: boolean }
  | { kind: 'selection_set'; key: string; before: string[] | null; after: string[] | null }
  /** A system variable kept with the document but not in its DXF header (viewport and session ones). */
  | { kind: 'sysvar'; key: string; before: SysvarValue | null; after: SysvarValue | null }
  | { kind: 'handseed'; key: 'handseed'; before: number; after: number }
  /**
   * A record of the OBJECTS section kept raw (IMAGEDEF, a dictionary...), by handle; `index` is where a
   * new one goes in `objects` (the end when absent).
   */
  | { kind: 'object'; key: string; before: RawRecord | null; after: RawRecord | null; index?: number }
  /** A symbol-table record kept raw (a STYLE, an LTYPE), by handle, in the table `table`. */
  | { kind: 'record'; key: string; table: string; before: RawRecord | null; after: RawRecord | null };

interface Stamped {
  document_id: number;
  /** The document's revision after this event. */
  revision: number;
}

/** A mutation of a document: the op that made it and its changes. One undo step. */
export interface StepData extends Stamped {
  op: string;
  changes: Change[];
  /** Result fields of the answer that the changes do not give back (e.g. `layers_created`). */
  result?: Record<string, unknown>;
}

export interface EditorEventMap {
  SessionStarted: { session_id: string; version: string; pid: number };
  SessionEnded: { session_id: string; reason: 'shutdown' };
  /**
   * This session carries on an earlier one (`chronicle editor --resume`), typically one that never
   * recorded its end (a crash, `kill -9`). `from_revision` is the last revision of the old session's
   * stream that was read: the restored documents are its state there. The documents follow as
   * DocumentRestored events (with their EntitiesLoaded batches), so this stream rebuilds without the old one.
   */
  SessionResumed: {
    session_id: string;
    from_session_id: string;
    from_revision: number;
    /** The old session's documents in tab order. */
    documents: number[];
    /** Document ids stay unique across the two sessions: ids the old session used are not handed out again. */
    next_document_id: number;
  };
  /**
   * A document of a resumed session as it was at its last revision, unsaved changes included: the model
   * without its entities (they follow in EntitiesLoaded events, as after DocumentOpened), and what the
   * session kept beside the model. Its undo history is not carried over: it starts empty at `revision`.
   */
  DocumentRestored: Stamped & {
    from_session_id: string;
    title: string;
    path: string | null;
    /** Revision at the document's last save or open (dirty when it differs from `revision`). */
    saved_revision: number;
    model: DxfDocumentModel;
    entity_batches: number;
    selection: string[];
    selection_sets: Record<string, string[]>;
    sysvars: Record<string, SysvarValue>;
    view: { center: [number, number]; width: number; height: number } | null;
  };
  DocumentCreated: Stamped & {
    title: string;
    path: string | null;
    template: string | null;
    model: DxfDocumentModel;
  };
  /** A DXF read: the model without its entities, which follow in EntitiesLoaded events (a 4 MiB event limit). */
  DocumentOpened: Stamped & {
    title: string;
    path: string;
    bytes: number;
    sha256: string;
    model: DxfDocumentModel;
    entity_batches: number;
  };
  EntitiesLoaded: { document_id: number; batch: number; entities: Entity[]; order: string[] };
  DocumentActivated: { document_id: number };
  DocumentClosed: { document_id: number; discarded: boolean };
  DocumentSaved: Stamped & { path: string; bytes: number; sha256: string };
  EntitiesCreated: StepData;
  EntitiesErased: StepData;
  EntitiesTransformed: StepData;
  EntitiesCopiedTo: StepData & { source_document_id: number };
  PropertiesSet: StepData;
  XdataSet: StepData;
  BlockDefined: StepData;
  BlockDeleted: StepData;
  GroupCreated: StepData;
  SelectionSetSaved: StepData;
  LayoutCreated: StepData;
  PageSetupSet: StepData;
  SysvarsSet: StepData;
  FileIdentityAssigned: StepData;
  /**
   * More changes of the step just recorded (same document and revision), appended in the same write:
   * a step whose changes do not fit in one event (the store's 4 MiB limit; deleting 20,000 entities
   * is ~4.5 MB) is recorded as its step event with the first part and one of these per further part.
   * Applied in order they are the whole step, which undo and redo move as one.
   */
  StepContinued: Stamped & { part: number; changes: Change[] };
  /** Undo and redo are events of their own: the log keeps every step, also the undone ones. */
  StepUndone: Stamped & { step_revision: number };
  StepRedone: Stamped & { step_revision: number };
  SelectionChanged: {
    document_id: number;
    handles: string[];
    source: 'selection_set' | 'viewer' | 'command';
  };
  /** `wblock` wrote entities of the document (or a block's contents) to a new DXF file. */
  BlockWritten: {
    document_id: number;
    path: string;
    count: number;
    bytes: number;
    sha256: string;
    block: string | null;
  };
  /** The view was centred on `center` and sized to show `width` x `height` drawing units (view_focus). */
  ViewFocused: { document_id: number; center: [number, number]; width: number; height: number };
  /**
   * Every mutation's answer (failures included), appended with the mutation's own events: `operation`,
   * `events` and idempotent retries read it, also after a restart.
   */
  OperationAnswered: {
    request_id: string;
    op: string;
    body_hash: string;
    document_id: number | null;
    revision: number | null;
    answer: Answer;
  };
  /** `embed_image`: an IMAGE entity and its IMAGEDEF (with reactor and ACAD_IMAGE_DICT entry). */
  ImageEmbedded: StepData;
  /** An atomic `batch`: its steps' changes in one document, as one undo step; `ops` names the steps. */
  BatchApplied: StepData & { ops: string[] };
  /** One command of a `run` command line made of several ops' steps (LAYER: a layer made and set current), as one undo step. */
  CommandApplied: StepData & { command: string };
  /**
   * A `getpoint` or `user_select` of the GUI-hosted editor now waits for the person at the viewer
   * (answered `pending` at once). `count`: user_select ends by itself after this many picks (null =
   * until Done); `single`: after the first.
   */
  PickRequested: {
    request_id: string;
    op: 'getpoint' | 'user_select';
    document_id: number;
    prompt: string;
    count: number | null;
    single: boolean;
  };
  /** The person answered the pending pick in the viewer: a point (getpoint) or handles in pick order. */
  PickCompleted: {
    request_id: string;
    op: 'getpoint' | 'user_select';
    document_id: number;
    point: [number, number, number] | null;
    handles: string[] | null;
  };
  /** The pending pick ended without an answer: `by` is the cancel's request id, `viewer`, or `restart`. */
  PickCancelled: { request_id: string; op: 'getpoint' | 'user_select'; document_id: number; by: string };
  /** `plot` wrote a layout, or a window of model space, to a PDF or SVG file; the document did not change. */
  PlotWritten: {
    document_id: number;
    path: string;
    format: 'pdf' | 'svg';
    bytes: number;
    sha256: string;
    /** Entities drawn (a block reference counts once). */
    entities: number;
    /** The layout plotted, or null for a window. */
    layout: string | null;
    /** The model space window [x1, y1, x2, y2] plotted, or null for a layout. */
    window: [number, number, number, number] | null;
  };
}

export type EditorEventType = keyof EditorEventMap;

const STEP_EVENTS = [
  'EntitiesCreated',
  'EntitiesErased',
  'EntitiesTransformed',
  'EntitiesCopiedTo',
  'PropertiesSet',
  'XdataSet',
  'BlockDefined',
  'BlockDeleted',
  'GroupCreated',
  'SelectionSetSaved',
  'LayoutCreated',
  'PageSetupSet',
  'SysvarsSet',
  'FileIdentityAssigned',
  'ImageEmbedded',
  'BatchApplied',
  'CommandApplied',
] as const satisfies readonly EditorEventType[];
export type StepEventType = (typeof STEP_EVENTS)[number];

const stepTypes: ReadonlySet<string> = new Set(STEP_EVENTS);
export const isStepEvent = (type: string): type is StepEventType => stepTypes.has(type);

/** An editor event as recorded, typed by its `type`. */
export type EditorEvent = {
  [T in EditorEventType]: RecordedEvent<T, EditorEventMap[T]>;
}[EditorEventType];

/** An event to append: type and data that belong together. */
export type NewEditorEvent = {
  [T in EditorEventType]: { type: T; data: EditorEventMap[T] };
}[EditorEventType];

export const editorEvent = <T extends EditorEventType>(type: T, data: EditorEventMap[T]) =>
  ({ type, data }) as NewEditorEvent;

export const isEditorEvent = (event: RecordedEvent): event is EditorEvent =>
  event.stream.startsWith(SESSION_STREAM_PREFIX);
