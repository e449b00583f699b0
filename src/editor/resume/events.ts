import type { DocumentState, EditorSessionState } from '../../../projections/editor-session.js';
import { editorEvent, type NewEditorEvent } from '../../../streams/editor.js';
import { entityBatches } from '../dxf/load.js';

/**
 * The events that start a new session where `from` left off (`from_revision`: the old stream's last
 * revision read): SessionResumed, each open document restored in tab order with its entities in load
 * batches (the 4 MiB event limit), then the old active document activated. They carry the documents
 * themselves, not a reference, so the new session's stream rebuilds alone, also after the old one is
 * deleted. Undo history, answered operations and a pending pick stay with the old session.
 */
export function resumeEvents(
  sessionId: string,
  from: EditorSessionState,
  fromRevision: number,
): NewEditorEvent[] {
  const events: NewEditorEvent[] = [
    editorEvent('SessionResumed', {
      session_id: sessionId,
      from_session_id: from.session_id,
      from_revision: fromRevision,
      documents: [...from.tabs],
      next_document_id: from.next_document_id,
    }),
  ];
  for (const id of from.tabs) {
    const doc = from.documents[String(id)];
    if (doc) events.push(...restoredDocument(from.session_id, doc));
  }
  if (from.active !== null && from.tabs.includes(from.active))
    events.push(editorEvent('DocumentActivated', { document_id: from.active }));
  return events;
}

function restoredDocument(fromSessionId: string, doc: DocumentState): NewEditorEvent[] {
  const batches = entityBatches(doc.model);
  return [
    editorEvent('DocumentRestored', {
      document_id: doc.id,
      revision: doc.revision,
      from_session_id: fromSessionId,
      title: doc.title,
      path: doc.path,
      saved_revision: doc.saved_revision,
      model: { ...doc.model, entities: {}, order: [] },
      entity_batches: batches.length,
      selection: doc.selection,
      selection_sets: doc.selection_sets,
      sysvars: doc.sysvars,
      view: doc.view,
    }),
    ...batches.map((batch, index) =>
      editorEvent('EntitiesLoaded', { document_id: doc.id, batch: index, ...batch }),
    ),
  ];
}
