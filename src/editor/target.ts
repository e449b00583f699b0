import type { DocumentState, EditorSessionState } from '../../projections/editor-session.js';
import { EditorError } from './errors.js';
import type { OpDefinition } from './ops/types.js';
import type { EditorRequest } from './request.js';

/**
 * The document a request targets, checked in the order the protocol gives: `document_id` open and
 * active (unless the op works on any open one), a document for ops that need one, `revision` and
 * `geometry_revision` current,
 * and last the op known. Pure over `state`, so a batch checks its steps against its evolving state
 * exactly as the dispatcher checks requests.
 */
export function resolveTarget(
  state: EditorSessionState,
  request: EditorRequest,
  opName: string,
  op: OpDefinition | undefined,
): { op: OpDefinition; doc: DocumentState | undefined } {
  const docId = request.document_id;
  let doc: DocumentState | undefined;
  if (docId !== undefined) {
    doc = typeof docId === 'number' ? state.documents[String(docId)] : undefined;
    if (!doc) throw new EditorError('document_closed', `document ${JSON.stringify(docId)} is not open`);
    if (doc.id !== state.active && op?.document !== 'open') {
      throw new EditorError('document_not_active', `document ${doc.id} is open but not the active document`);
    }
  } else if (op && op.document !== 'none') {
    const active = state.active === null ? undefined : state.documents[String(state.active)];
    if ((op.kind === 'mutation' && op.document !== 'active') || !active) {
      throw new EditorError(
        'document_required',
        `${opName} needs a document_id (open or create a document first)`,
      );
    }
    doc = active;
  }
  if (request.revision !== undefined && doc && request.revision !== doc.revision) {
    throw new EditorError(
      'stale_state',
      `document ${doc.id} is at revision ${doc.revision}, not ${JSON.stringify(request.revision)}`,
    );
  }
  const geometry = request.geometry_revision;
  if (geometry !== undefined && doc && geometry !== doc.geometry_revision) {
    throw new EditorError(
      'stale_state',
      `document ${doc.id}'s geometry is at revision ${doc.geometry_revision}, not ${JSON.stringify(geometry)}`,
    );
  }
  if (!op)
    throw new EditorError('unknown_operation', `unknown operation ${JSON.stringify(request.op ?? null)}`);
  return { op, doc };
}
