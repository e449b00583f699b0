import type { Change } from '../../../streams/editor.js';
import { dictGet } from '../dict.js';
import { inDrawingOrder } from '../drawing-order.js';
import { drawingExpansion, MAX_EXPANDED_ENTITIES, tooLarge } from '../expansion.js';
import { documentContext } from '../geometry/index.js';
import type { DxfDocumentModel } from '../model.js';
import { SpatialIndex } from './spatial-index.js';

/** An open document (the read model's `DocumentState`): its index is kept by the document's identity. */
interface IndexedDocument {
  model: DxfDocumentModel;
}

/**
 * The spatial index of each open document: derived data, never in events or snapshots. Built on the
 * first spatial query (one bulk load), then kept current by the read model as steps apply, so a query
 * after a mutation does not rebuild it.
 */
const indexes = new WeakMap<IndexedDocument, SpatialIndex>();

const indexedExpansion = (model: DxfDocumentModel) => drawingExpansion(model, MAX_EXPANDED_ENTITIES);

export function documentIndex(doc: IndexedDocument): SpatialIndex {
  let index = indexes.get(doc);
  if (!index) {
    // Inserts' boxes are their blocks' parts followed: refused before any is built when, all told, too
    // many (an Insert past the limit alone has no box: spatial filters do not find it).
    const count = indexedExpansion(doc.model);
    if (count > MAX_EXPANDED_ENTITIES) throw tooLarge('the drawing', count);
    index = SpatialIndex.ofModel(doc.model, documentContext(doc.model));
    indexes.set(doc, index);
  }
  return index;
}

/** Keeps a built index current with one applied change; a block change drops it (inserts move with it). */
export function indexChange(doc: IndexedDocument, change: Change): void {
  const index = indexes.get(doc);
  if (!index) return;
  if (change.kind === 'block') {
    indexes.delete(doc);
    return;
  }
  if (change.kind !== 'entity') return;
  const entity = dictGet(doc.model.entities, change.key);
  if (entity && inDrawingOrder(doc.model, entity)) index.setEntity(entity, documentContext(doc.model));
  else index.remove(change.key);
}

/** Forgets a document's index when entities arrive outside of steps (a DXF being loaded). */
export const dropIndex = (doc: IndexedDocument) => indexes.delete(doc);
