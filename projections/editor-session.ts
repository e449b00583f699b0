import { dictGet, dictHas, dictPut, dictSet } from '../src/editor/dict.js';
import { inDrawingOrder } from '../src/editor/drawing-order.js';
import type { DxfDocumentModel, Entity } from '../src/editor/model.js';
import { dropIndex, indexChange } from '../src/editor/query/document-index.js';
import type { SysvarValue } from '../src/editor/sysvars.js';
import type { RecordedEvent } from '../src/store/types.js';
import {
  type Answer,
  type Change,
  type EditorEvent,
  type EditorEventMap,
  isEditorEvent,
  isStepEvent,
  type StepData,
  sessionStream,
} from '../streams/editor.js';
import type { Projection } from './projection.js';
import { sharedName, shareEntityNames } from './shared-names.js';

/** One undo step as the document keeps it. */
export interface Step {
  revision: number;
  op: string;
  request_id: string | undefined;
  changes: Change[];
}

export interface DocumentState {
  id: number;
  title: string;
  path: string | null;
  revision: number;
  /**
   * The revision of the last step that changed the drawing's geometry (an entity or a block's contents:
   * made, changed, erased, undone or redone); steps of settings, names or selection sets leave it.
   */
  geometry_revision: number;
  /** Revision at the last save or open; dirty when it differs from `revision`. */
  saved_revision: number;
  model: DxfDocumentModel;
  undo: Step[];
  redo: Step[];
  selection: string[];
  selection_sets: Record<string, string[]>;
  /** System variables that live outside the DXF header (viewport and session ones). */
  sysvars: Record<string, SysvarValue>;
  /** Where the view was last focused (view_focus); null until then. */
  view: { center: [number, number]; width: number; height: number } | null;
}

export interface OperationRecord {
  request_id: string;
  op: string;
  body_hash: string;
  document_id: number | null;
  revision: number | null;
  answer: Answer;
}

/** A getpoint or user_select waiting for the person at the viewer (GUI-hosted editor): as it was requested. */
export type PendingPick = EditorEventMap['PickRequested'];

export interface EditorSessionState {
  session_id: string;
  version: string;
  started_at: string | null;
  ended_at: string | null;
  documents: Record<string, DocumentState>;
  /** Open documents in tab order. */
  tabs: number[];
  active: number | null;
  next_document_id: number;
  operations: Record<string, OperationRecord>;
  /** The pick waiting for the person at the viewer; at most one at a time. */
  pick: PendingPick | null;
  /** The session this one carries on (`--resume`), and the revision of its stream it was read at. */
  resumed_from: { session_id: string; revision: number } | null;
}

export const initialSession = (sessionId: string): EditorSessionState => ({
  session_id: sessionId,
  version: '',
  started_at: null,
  ended_at: null,
  documents: {},
  tabs: [],
  active: null,
  next_document_id: 1,
  operations: {},
  pick: null,
  resumed_from: null,
});

/**
 * Applies one change forwards (`after` wins) or backwards (`before` wins, for undo). Model and paper
 * space entities keep their drawing order in `model.order`; `index` says where an entity stood.
 */
function applyChange(doc: DocumentState, change: Change, backwards: boolean): void {
  const model = doc.model;
  switch (change.kind) {
    case 'entity': {
      const from = backwards ? change.after : change.before;
      const to = backwards ? change.before : change.after;
      // Both stay in the state: the one in the model, the other in the undo step.
      if (from !== null) shareEntityNames(from);
      if (to !== null) shareEntityNames(to);
      dictPut(model.entities, change.key, to);
      const ordered = (e: Entity | null) => e !== null && inDrawingOrder(model, e);
      if (ordered(from) && !ordered(to)) removeFromOrder(model.order, change.key);
      else if (!ordered(from) && ordered(to)) {
        const at = change.index ?? model.order.length;
        model.order.splice(Math.min(Math.max(at, 0), model.order.length), 0, change.key);
      }
      if (to === null) doc.selection = doc.selection.filter((h) => h !== change.key);
      indexChange(doc, change);
      return;
    }
    case 'layer':
      dictPut(model.layers, change.key, backwards ? change.before : change.after);
      break;
    case 'block':
      dictPut(model.blocks, change.key, backwards ? change.before : change.after);
      indexChange(doc, change);
      break;
    case 'layout':
      dictPut(model.layouts, change.key, backwards ? change.before : change.after);
      break;
    case 'group':
      dictPut(model.groups, change.key, backwards ? change.before : change.after);
      break;
    case 'header':
      dictPut(model.header, change.key, backwards ? change.before : change.after);
      break;
    case 'selection_set':
      dictPut(doc.selection_sets, change.key, backwards ? change.before : change.after);
      break;
    case 'sysvar':
      dictPut(doc.sysvars, change.key, backwards ? change.before : change.after);
      break;
    case 'appid': {
      const present = backwards ? change.before : change.after;
      model.appids = model.appids.filter((a) => a !== change.key);
      if (present) model.appids.push(change.key);
      return;
    }
    case 'handseed':
      model.handseed = backwards ? change.before : change.after;
      return;
    case 'record': {
      const to = backwards ? change.before : change.after;
      // A new list: a batch's scratch state or a checkpoint may share the old one.
      const list = [...(dictGet(model.tables, change.table) ?? [])];
      const at = list.findIndex((r) => r.handle === change.key);
      if (to === null) {
        if (at >= 0) list.splice(at, 1);
      } else if (at >= 0) list[at] = to;
      else list.push(to);
      dictSet(model.tables, change.table, list);
      return;
    }
    case 'object': {
      const to = backwards ? change.before : change.after;
      const at = model.objects.findIndex((o) => o.handle === change.key);
      if (to === null) {
        if (at >= 0) model.objects.splice(at, 1);
      } else if (at >= 0) model.objects[at] = to;
      else {
        // Never before the root dictionary: the writer takes the first object as the root.
        const index = change.index ?? model.objects.length;
        model.objects.splice(Math.min(Math.max(index, 1), model.objects.length), 0, to);
      }
      return;
    }
  }
}

function removeFromOrder(order: string[], handle: string): void {
  const at = order.lastIndexOf(handle);
  if (at >= 0) order.splice(at, 1);
}

export function applyStep(doc: DocumentState, changes: readonly Change[], backwards: boolean): void {
  if (backwards) for (let i = changes.length - 1; i >= 0; i--) applyChange(doc, changes[i] as Change, true);
  else for (const change of changes) applyChange(doc, change, false);
}

const touchesGeometry = (changes: readonly Change[]) =>
  changes.some((c) => c.kind === 'entity' || c.kind === 'block');

function documentOf(state: EditorSessionState, id: number): DocumentState {
  const doc = state.documents[String(id)];
  if (!doc) throw new Error(`event for document ${id}, which is not open in session ${state.session_id}`);
  return doc;
}

/**
 * The request id an answer repeats, and that the step it answers carries (from its event's metadata):
 * one string for the three (each event's JSON made its own; an editor log's ids are 19 bytes or more).
 */
function shareRequestId(state: EditorSessionState, answered: EditorEventMap['OperationAnswered']): void {
  const id = answered.request_id;
  if (answered.answer.request_id === id) answered.answer.request_id = id;
  if (answered.document_id === null) return;
  const step = state.documents[String(answered.document_id)]?.undo.at(-1);
  if (step?.request_id === id) step.request_id = id;
}

function openDocument(state: EditorSessionState, doc: DocumentState): void {
  for (const entity of Object.values(doc.model.entities)) shareEntityNames(entity);
  state.documents[String(doc.id)] = doc;
  state.tabs.push(doc.id);
  state.active = doc.id;
  state.next_document_id = Math.max(state.next_document_id, doc.id + 1);
}

const newDocument = (
  id: number,
  title: string,
  path: string | null,
  revision: number,
  model: DxfDocumentModel,
): DocumentState => ({
  id,
  title,
  path,
  revision,
  geometry_revision: revision,
  saved_revision: revision,
  model,
  undo: [],
  redo: [],
  selection: [],
  selection_sets: {},
  sysvars: {},
  view: null,
});

function evolveStep(state: EditorSessionState, event: RecordedEvent<string, StepData>): void {
  const doc = documentOf(state, event.data.document_id);
  applyStep(doc, event.data.changes, false);
  doc.undo.push({
    revision: event.data.revision,
    op: sharedName(event.data.op),
    request_id: event.metadata.requestId,
    changes: event.data.changes,
  });
  doc.redo = [];
  doc.revision = event.data.revision;
  if (touchesGeometry(event.data.changes)) doc.geometry_revision = doc.revision;
}

/**
 * More changes of the step on top of the undo stack (a step recorded in parts). The step is replaced,
 * not extended in place: a checkpoint or a batch's scratch state may share it.
 */
function continueStep(doc: DocumentState, data: { revision: number; changes: Change[] }): void {
  const top = doc.undo.at(-1);
  if (!top || top.revision !== data.revision || doc.revision !== data.revision) {
    throw new Error(
      `continuation of step ${data.revision} does not follow it (document at ${doc.revision}, undo top ${top?.revision})`,
    );
  }
  applyStep(doc, data.changes, false);
  doc.undo[doc.undo.length - 1] = { ...top, changes: top.changes.concat(data.changes) };
  if (touchesGeometry(data.changes)) doc.geometry_revision = doc.revision;
}

/**
 * Undo takes the top of the undo stack, applies it backwards and puts it on the redo stack; redo the
 * other way round. The event names the step it moves: a mismatch halts the read model, never skips.
 */
function moveStep(
  doc: DocumentState,
  kind: 'undo' | 'redo',
  data: { step_revision: number; revision: number },
): void {
  const [from, to] = kind === 'undo' ? [doc.undo, doc.redo] : [doc.redo, doc.undo];
  const step = from.pop();
  if (!step || step.revision !== data.step_revision) {
    throw new Error(
      `${kind} of step ${data.step_revision} does not match the ${kind} stack (top ${step?.revision})`,
    );
  }
  applyStep(doc, step.changes, kind === 'undo');
  to.push(step);
  doc.revision = data.revision;
  if (touchesGeometry(step.changes)) doc.geometry_revision = doc.revision;
}

/** Applies one editor event of this session. Deterministic; updates `state` in place. */
export function evolveSession(state: EditorSessionState, event: EditorEvent): EditorSessionState {
  if (isStepEvent(event.type)) {
    evolveStep(state, event as RecordedEvent<string, StepData>);
    return state;
  }
  switch (event.type) {
    case 'SessionStarted':
      state.version = event.data.version;
      state.started_at = event.metadata.at;
      // A session resumed after a restart (same session id) is live again: its earlier end is over.
      state.ended_at = null;
      return state;
    case 'SessionEnded':
      state.ended_at = event.metadata.at;
      return state;
    case 'DocumentCreated': {
      const d = event.data;
      openDocument(state, newDocument(d.document_id, d.title, d.path, d.revision, d.model));
      return state;
    }
    case 'DocumentOpened': {
      const d = event.data;
      openDocument(state, newDocument(d.document_id, d.title, d.path, d.revision, d.model));
      return state;
    }
    case 'SessionResumed':
      state.resumed_from = { session_id: event.data.from_session_id, revision: event.data.from_revision };
      state.next_document_id = Math.max(state.next_document_id, event.data.next_document_id);
      return state;
    case 'DocumentRestored': {
      const d = event.data;
      const doc = newDocument(d.document_id, d.title, d.path, d.revision, d.model);
      doc.saved_revision = d.saved_revision;
      doc.selection = [...d.selection];
      doc.selection_sets = d.selection_sets;
      doc.sysvars = d.sysvars;
      doc.view = d.view;
      openDocument(state, doc);
      return state;
    }
    case 'EntitiesLoaded': {
      const doc = documentOf(state, event.data.document_id);
      const model = doc.model;
      dropIndex(doc);
      for (const entity of event.data.entities) {
        shareEntityNames(entity);
        dictSet(model.entities, entity.handle, entity);
      }
      for (const handle of event.data.order) model.order.push(handle);
      return state;
    }
    case 'DocumentActivated':
      documentOf(state, event.data.document_id);
      state.active = event.data.document_id;
      return state;
    case 'DocumentClosed': {
      delete state.documents[String(event.data.document_id)];
      state.tabs = state.tabs.filter((id) => id !== event.data.document_id);
      if (state.active === event.data.document_id) state.active = state.tabs.at(-1) ?? null;
      return state;
    }
    case 'DocumentSaved': {
      const doc = documentOf(state, event.data.document_id);
      doc.path = event.data.path;
      doc.title = titleOf(event.data.path);
      doc.saved_revision = doc.revision;
      return state;
    }
    case 'StepContinued':
      continueStep(documentOf(state, event.data.document_id), event.data);
      return state;
    case 'StepUndone':
      moveStep(documentOf(state, event.data.document_id), 'undo', event.data);
      return state;
    case 'StepRedone':
      moveStep(documentOf(state, event.data.document_id), 'redo', event.data);
      return state;
    case 'ViewFocused': {
      const { center, width, height } = event.data;
      documentOf(state, event.data.document_id).view = { center, width, height };
      return state;
    }
    case 'SelectionChanged': {
      const doc = documentOf(state, event.data.document_id);
      doc.selection = event.data.handles.filter((h) => dictHas(doc.model.entities, h));
      return state;
    }
    case 'PickRequested': {
      const { request_id, op, document_id, prompt, count, single } = event.data;
      state.pick = { request_id, op, document_id, prompt, count, single };
      return state;
    }
    case 'PickCompleted':
    case 'PickCancelled':
      if (state.pick?.request_id === event.data.request_id) state.pick = null;
      return state;
    case 'OperationAnswered': {
      const d = event.data;
      shareRequestId(state, d);
      dictSet(state.operations, d.request_id, {
        request_id: d.request_id,
        op: sharedName(d.op),
        body_hash: d.body_hash,
        document_id: d.document_id,
        revision: d.revision,
        answer: d.answer,
      });
      return state;
    }
  }
  return state;
}

/** A copy of each top-level collection of `value` (one level: arrays and plain objects). */
function copyFields<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    out[key] = Array.isArray(field)
      ? [...field]
      : field !== null && typeof field === 'object'
        ? { ...(field as object) }
        : field;
  }
  return out as T;
}

/**
 * A document that evolve may change without touching `doc` (a batch's scratch state, a time-travel
 * checkpoint). evolve replaces the values it changes (entities, layers, undo steps...) and never edits
 * one in place, so copying the collections that hold them is enough; a full deep copy of a
 * 100,000-entity drawing would cost seconds per batch.
 */
export const forkDocument = (doc: DocumentState): DocumentState => ({
  ...copyFields(doc),
  model: forkModel(doc.model),
});

/** A model evolve may change without touching `model` (see forkDocument). */
export const forkModel = (model: DxfDocumentModel): DxfDocumentModel => copyFields(model);

export const titleOf = (path: string) => path.split(/[\\/]/).at(-1) ?? path;

/** The read model of one editor session, fed by its stream's events. */
export function editorSessionProjection(sessionId: string): Projection<EditorSessionState> {
  const stream = sessionStream(sessionId);
  return {
    name: `editor-session:${sessionId}`,
    // 2: SessionStarted clears ended_at; snapshots made by version 1 after a resume had it set.
    // 3: operations no longer keep their log position (the session applies its events before the store
    // has given them one).
    // 4: documents keep their focused view (ViewFocused).
    // 5: the pending pick of the GUI-hosted editor (PickRequested, PickCompleted, PickCancelled).
    // 6: the session it resumed (SessionResumed, DocumentRestored).
    version: 6,
    stream,
    initial: () => initialSession(sessionId),
    evolve: (state, event) =>
      event.stream === stream && isEditorEvent(event) ? evolveSession(state, event) : state,
  };
}
