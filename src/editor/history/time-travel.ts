/**
 * The document at any revision, abandoned branches included: the nearest checkpoint at or before the
 * revision, copied, then the events from there to the revision through the read model's evolve. The
 * log is linear even when the undo tree is not (an undone-then-abandoned step is still an event), so
 * "the document at r" is always a prefix of the document's events.
 */
import {
  type DocumentState,
  type EditorSessionState,
  evolveSession,
  initialSession,
} from '../../../projections/editor-session.js';
import { type Checkpoint, type DocumentHistory, type Revision, thaw } from './fold.js';

/** The last checkpoint whose copy includes no event after `end`. */
function checkpointBefore(checkpoints: readonly Checkpoint[], end: number): Checkpoint {
  let low = 0;
  let high = checkpoints.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((checkpoints[mid] as Checkpoint).eventIndex <= end) low = mid;
    else high = mid - 1;
  }
  const found = checkpoints[low];
  if (!found || found.eventIndex > end) throw new Error('time travel: no checkpoint before the revision');
  return found;
}

/** The revision row of `revision`, or undefined when the document has no such revision. */
const revisionOf = (history: DocumentHistory, revision: number): Revision | undefined =>
  Number.isInteger(revision) && revision >= 0 ? history.revisions[revision] : undefined;

/** The latest revision of the document. */
export const headRevision = (history: DocumentHistory): number => history.revisions.length - 1;

/**
 * The document as the live read model held it right after the operation that made `revision` — a new
 * copy the caller owns. Throws a RangeError for a revision the document does not have.
 */
export function documentAt(history: DocumentHistory, revision: number): DocumentState {
  const end = revisionOf(history, revision) ? history.ends[revision] : undefined;
  if (end === undefined) {
    throw new RangeError(
      `document ${history.document_id} has revisions 0 to ${headRevision(history)}, not ${revision}`,
    );
  }
  const from = checkpointBefore(history.checkpoints, end);
  const id = history.document_id;
  const session: EditorSessionState = {
    ...initialSession(history.live.session_id),
    documents: { [String(id)]: thaw(from) },
    tabs: [id],
    active: id,
  };
  for (let i = from.eventIndex + 1; i <= end; i++) {
    const event = history.events[i];
    if (event) evolveSession(session, event);
  }
  return session.documents[String(id)] as DocumentState;
}

/** Which steps are applied, undone (redo can bring them back) or abandoned (a new step cleared them). */
interface TreeStatus {
  /** The node the document is at now. */
  node: number;
  undone: ReadonlySet<number>;
  abandoned: ReadonlySet<number>;
}

export function treeStatus(history: DocumentHistory): TreeStatus {
  const doc = history.live.documents[String(history.document_id)] as DocumentState;
  const applied = new Set(doc.undo.map((s) => s.revision));
  const redoable = new Set(doc.redo.map((s) => s.revision));
  const undone = new Set<number>();
  const abandoned = new Set<number>();
  for (const row of history.revisions) {
    if (row.kind !== 'step' || applied.has(row.revision)) continue;
    undone.add(row.revision);
    if (!redoable.has(row.revision)) abandoned.add(row.revision);
  }
  return { node: history.node, undone, abandoned };
}
