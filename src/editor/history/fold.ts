/**
 * A session's history: its stream folded into, per document, the list of revisions (the undo tree)
 * and what time travel needs to rebuild the document at any of them. The document is kept with the
 * projection's own `evolveSession` — the read model's evolve — so the document at revision r is what
 * the live read model held right after r, by construction rather than by a second implementation.
 */

import {
  type DocumentState,
  type EditorSessionState,
  evolveSession,
  forkDocument,
  forkModel,
  initialSession,
} from '../../../projections/editor-session.js';
import { type Change, type EditorEvent, isStepEvent, type StepData } from '../../../streams/editor.js';
import { dictGet, dictSet } from '../dict.js';
import type { Entity } from '../model.js';

type RevisionKind = 'created' | 'opened' | 'step' | 'undo' | 'redo';

/** One revision of a document: the event that made it, and where it sits in the undo tree. */
export interface Revision {
  revision: number;
  kind: RevisionKind;
  /** The event type (EntitiesCreated, StepUndone...). */
  type: string;
  /** The step's op (`entities_create`...); `undo`, `redo`, `new` or `open` for the others. */
  op: string;
  request_id: string | null;
  at: string;
  /** Revision of the event in the session's stream. */
  stream_revision: number;
  /** Entity handles the revision changed (for undo and redo: the moved step's). */
  handles: string[];
  /** Other things it changed, as `kind:key` (`layer:WALLS`, `handseed`...). */
  keys: string[];
  /** The undo-tree node the document was at before this revision; null for the first. */
  parent: number | null;
  /**
   * The undo-tree node the document is at after it: a step is a node of its own; an undo goes back to
   * the parent of the step it undid; a redo goes to the step it redid.
   */
  node: number;
  /** Undo and redo: the step they moved. */
  step_revision: number | null;
  /** Steps: the undo revisions that undid this step, in order. */
  undone_by: number[];
  /** Steps: the redo revisions that brought it back, in order. */
  redone_by: number[];
}

/**
 * A copy of the document at one point of its events, never changed afterwards. Its entities are kept
 * as two arrays rather than a record: a record of 40,000 handles is a hash table that copies at about
 * a third of the speed of filling a new one from arrays, and takes three times the memory.
 */
export interface Checkpoint {
  /** Index in `events` of the last event the copy includes. */
  eventIndex: number;
  /** The document with an empty `model.entities`. */
  state: DocumentState;
  handles: string[];
  entities: Entity[];
}

export interface DocumentHistory {
  document_id: number;
  title: string;
  path: string | null;
  revisions: Revision[];
  saves: Array<{ revision: number; path: string; at: string }>;
  closed: { at: string; discarded: boolean; stream_revision: number } | null;
  /** The events evolve applies to this document, in log order: what time travel replays. */
  events: EditorEvent[];
  /** By revision: index in `events` of the last event of the document as it was right after it. */
  ends: number[];
  /** Sorted by eventIndex; the first is right after the document was created or opened. */
  checkpoints: Checkpoint[];
  /** A one-document session the fold evolves: the document after every event in `events`. */
  live: EditorSessionState;
  /** Where the document is in the undo tree now. */
  node: number;
  /** Changes applied since the last checkpoint: what replaying from it costs. */
  work: number;
  /**
   * The request of the latest revision while its operation's events may still follow (selection,
   * save, the entities of an open); undefined once another request's event came.
   */
  openRequest: string | undefined;
}

/** When a checkpoint is taken: once the work since the last reaches max(minWork, size / sizeShare). */
interface CheckpointPolicy {
  minWork: number;
  sizeShare: number;
}

export interface SessionHistory {
  session_id: string;
  policy: CheckpointPolicy;
  /** Last stream revision folded; -1 before the first. */
  stream_revision: number;
  documents: Record<string, DocumentHistory>;
}

export const emptyHistory = (
  sessionId: string,
  policy: CheckpointPolicy = DEFAULT_CHECKPOINTS,
): SessionHistory => ({
  session_id: sessionId,
  policy,
  stream_revision: -1,
  documents: {},
});

/**
 * When to copy the document for a checkpoint by default: once the changes to replay since the last one
 * reach an eighth of the document's entities (or 256 for small documents). Travelling then costs one
 * copy of the drawing (checkpoint arrays back into a record) plus at most an eighth of it in changes,
 * and the copies together hold at most eight entries per change of the log: memory stays linear in the
 * log. A checkpoint every K revisions would copy a 100,000-entity drawing every K revisions whatever
 * they did, and leave a small document's travel to replay K revisions of work.
 * (Measured with bench/replay-time-travel.ts: an eighth halves p50 against a quarter for ~40% more memory.)
 */
const DEFAULT_CHECKPOINTS: CheckpointPolicy = { minWork: 256, sizeShare: 8 };

const documentSize = (doc: DocumentState) => doc.model.order.length;

/** The document's state in the fold's one-document session. */
const liveDocument = (history: DocumentHistory): DocumentState =>
  history.live.documents[String(history.document_id)] as DocumentState;

const REVISION_EVENTS = new Set(['DocumentCreated', 'DocumentOpened', 'StepUndone', 'StepRedone']);
/** Events evolve applies to a document that do not make a revision. */
const DOCUMENT_EVENTS = new Set(['EntitiesLoaded', 'DocumentSaved', 'SelectionChanged', 'ViewFocused']);

function changedOf(changes: readonly Change[]): { handles: string[]; keys: string[] } {
  const handles: string[] = [];
  const keys: string[] = [];
  for (const change of changes) {
    if (change.kind === 'entity') handles.push(change.key);
    else keys.push(change.kind === 'handseed' ? 'handseed' : `${change.kind}:${change.key}`);
  }
  return { handles: [...new Set(handles)], keys: [...new Set(keys)] };
}

function newDocumentHistory(sessionId: string, event: EditorEvent): DocumentHistory {
  const data = event.data as { document_id: number; title: string; path: string | null };
  return {
    document_id: data.document_id,
    title: data.title,
    path: data.path,
    revisions: [],
    saves: [],
    closed: null,
    events: [],
    ends: [],
    checkpoints: [],
    live: { ...initialSession(sessionId), documents: {}, tabs: [], active: null },
    node: 0,
    work: 0,
    openRequest: undefined,
  };
}

/** Applies one of the document's events with the read model's evolve and records where it ends. */
function apply(history: DocumentHistory, event: EditorEvent, revision: number | undefined): void {
  history.events.push(event);
  const index = history.events.length - 1;
  evolveSession(history.live, event);
  const requestId = event.metadata.requestId;
  if (revision !== undefined) {
    history.ends[revision] = index;
    history.openRequest = requestId;
  } else if (requestId !== undefined && requestId === history.openRequest) {
    // Still the operation of the latest revision (a selection it made, the entities of an open).
    history.ends[history.ends.length - 1] = index;
  } else {
    history.openRequest = undefined;
  }
}

function checkpoint(history: DocumentHistory): void {
  const doc = liveDocument(history);
  const handles = Object.keys(doc.model.entities);
  history.checkpoints.push({
    eventIndex: history.events.length - 1,
    state: forkDocument({ ...doc, model: { ...doc.model, entities: {} } }),
    handles,
    entities: handles.map((handle) => dictGet(doc.model.entities, handle) as Entity),
  });
  history.work = 0;
}

/** A new copy of the document a checkpoint holds, that evolve may change. */
export function thaw(checkpoint: Checkpoint): DocumentState {
  const doc = forkDocument(checkpoint.state);
  const entities: Record<string, Entity> = {};
  const { handles, entities: values } = checkpoint;
  for (let i = 0; i < handles.length; i++) dictSet(entities, handles[i] as string, values[i] as Entity);
  doc.model.entities = entities;
  return doc;
}

function stepRow(
  history: DocumentHistory,
  event: EditorEvent,
  data: { revision: number },
  kind: RevisionKind,
  fields: Pick<Revision, 'op' | 'handles' | 'keys' | 'node' | 'step_revision'>,
): Revision {
  return {
    revision: data.revision,
    kind,
    type: event.type,
    request_id: event.metadata.requestId ?? null,
    at: event.metadata.at,
    stream_revision: event.revision,
    parent: history.revisions.length === 0 ? null : history.node,
    undone_by: [],
    redone_by: [],
    ...fields,
  };
}

/** The step an undo or redo names; the read model has already checked it is the one it moves. */
function namedStep(history: DocumentHistory, stepRevision: number): Revision {
  const step = history.revisions[stepRevision];
  if (step?.kind !== 'step')
    throw new Error(`document ${history.document_id}: revision ${stepRevision} is not a step`);
  return step;
}

function foldRevision(history: DocumentHistory, event: EditorEvent, policy: CheckpointPolicy): void {
  const data = event.data as { revision: number };
  let row: Revision;
  let work = 1;
  if (isStepEvent(event.type)) {
    const step = event.data as StepData;
    row = stepRow(history, event, data, 'step', {
      op: step.op,
      ...changedOf(step.changes),
      node: data.revision,
      step_revision: null,
    });
    work = Math.max(1, step.changes.length);
  } else if (event.type === 'StepUndone' || event.type === 'StepRedone') {
    const undo = event.type === 'StepUndone';
    const step = namedStep(history, event.data.step_revision);
    row = stepRow(history, event, data, undo ? 'undo' : 'redo', {
      op: undo ? 'undo' : 'redo',
      handles: step.handles,
      keys: step.keys,
      node: undo ? (step.parent ?? 0) : step.revision,
      step_revision: step.revision,
    });
    (undo ? step.undone_by : step.redone_by).push(data.revision);
    work = Math.max(1, step.handles.length + step.keys.length);
  } else {
    throw new Error(`not a revision event: ${event.type}`);
  }
  const live = liveDocument(history);
  if (history.work >= Math.max(policy.minWork, documentSize(live) / policy.sizeShare)) checkpoint(history);
  apply(history, event, data.revision);
  history.revisions.push(row);
  history.node = row.node;
  history.work += work;
}

/**
 * Folds one event of the session's stream into its history, in place (as evolve does). Events must
 * come in stream order; one already folded (a catch-up that overlaps) is skipped.
 */
export function foldHistory(history: SessionHistory, event: EditorEvent): SessionHistory {
  if (event.revision <= history.stream_revision) return history;
  history.stream_revision = event.revision;
  const documentId = (event.data as { document_id?: unknown }).document_id;
  if (typeof documentId !== 'number') return history;
  const key = String(documentId);
  if (event.type === 'DocumentCreated' || event.type === 'DocumentOpened') {
    const doc = newDocumentHistory(history.session_id, event);
    history.documents[key] = doc;
    // evolve makes the event's model the document's and changes it in place from then on: the fold
    // gets a copy, so that a caller may feed the same event to another evolve (replay --verify does).
    const own = { ...event, data: { ...event.data, model: forkModel(event.data.model) } } as EditorEvent;
    apply(doc, own, event.data.revision);
    doc.revisions.push(
      stepRow(doc, event, event.data, event.type === 'DocumentCreated' ? 'created' : 'opened', {
        op: event.type === 'DocumentCreated' ? 'new' : 'open',
        handles: [],
        keys: [],
        node: event.data.revision,
        step_revision: null,
      }),
    );
    doc.node = event.data.revision;
    // The first event's model is the live document, which later events change in place: it is never
    // replayed again, every replay starts from this checkpoint or a later one.
    checkpoint(doc);
    return history;
  }
  const doc = history.documents[key];
  if (!doc) return history;
  if (isStepEvent(event.type) || REVISION_EVENTS.has(event.type)) {
    foldRevision(doc, event, history.policy);
  } else if (event.type === 'StepContinued') {
    // The rest of the latest step: its row names what this part changed too.
    const row = doc.revisions.at(-1);
    if (row?.revision !== event.data.revision) {
      throw new Error(`document ${key}: continuation of step ${event.data.revision} does not follow it`);
    }
    const part = changedOf(event.data.changes);
    row.handles = [...new Set([...row.handles, ...part.handles])];
    row.keys = [...new Set([...row.keys, ...part.keys])];
    apply(doc, event, event.data.revision);
    doc.work += event.data.changes.length;
  } else if (event.type === 'DocumentClosed') {
    doc.closed = { at: event.metadata.at, discarded: event.data.discarded, stream_revision: event.revision };
    doc.openRequest = undefined;
  } else if (DOCUMENT_EVENTS.has(event.type)) {
    apply(doc, event, undefined);
    if (event.type === 'EntitiesLoaded') doc.work += event.data.entities.length;
    if (event.type === 'DocumentSaved') {
      doc.path = event.data.path;
      doc.title = liveDocument(doc).title;
      doc.saves.push({ revision: event.data.revision, path: event.data.path, at: event.metadata.at });
    }
  }
  return history;
}

/** The document right after its latest event. */
export const currentDocument = liveDocument;
