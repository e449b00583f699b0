import type { Change } from '../../../streams/editor.js';
import { dictGet } from '../dict.js';
import { inDrawingOrder } from '../drawing-order.js';
import { drawingExpansion, MAX_EXPANDED_ENTITIES, tooLarge } from '../expansion.js';
import { documentContext } from '../geometry/index.js';
import type { DxfDocumentModel } from '../model.js';
import { runSliced, runThrough, type Tick, type Work } from '../slices.js';
import { entityBounds, SpatialIndex } from './spatial-index.js';

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

export const documentIndex = (doc: IndexedDocument): SpatialIndex => runThrough(indexWork(doc));

/**
 * `documentIndex` built in slices (the boxes of 100,000 entities take a while): `tick` gives the event
 * loop back between entities and stops the build on `cancel`.
 */
export const documentIndexSliced = (doc: IndexedDocument, tick: Tick): Promise<SpatialIndex> =>
  runSliced(indexWork(doc), tick);

function* indexWork(doc: IndexedDocument): Work<SpatialIndex> {
  const known = indexes.get(doc);
  if (known) return known;
  // Inserts' boxes are their blocks' parts followed: refused before any is built when, all told, too
  // many (an Insert past the limit alone has no box: spatial filters do not find it).
  const count = indexedExpansion(doc.model);
  if (count > MAX_EXPANDED_ENTITIES) throw tooLarge('the drawing', count);
  const ctx = documentContext(doc.model);
  const entries: Array<[string, ReturnType<typeof entityBounds>]> = [];
  for (const handle of doc.model.order) {
    yield;
    const entity = dictGet(doc.model.entities, handle);
    if (entity) entries.push([handle, entityBounds(entity, ctx)]);
  }
  // A capture beside a sliced build may have built one meanwhile: that one is kept current, keep it.
  const built = indexes.get(doc) ?? SpatialIndex.of(entries);
  indexes.set(doc, built);
  return built;
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
