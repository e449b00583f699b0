/**
 * What the viewer page is sent: the whole scene of the active document, and then what the session's
 * events left out of date, read afresh from the read model (an event only says what changed; the
 * message carries the state as it is now, so a burst of events becomes one message of each kind).
 */
import type { DocumentState, EditorSessionState } from '../../projections/editor-session.js';
import { type EditorEvent, isEditorEvent, isStepEvent, type StepData } from '../../streams/editor.js';
import { type Drawable, drawableOf, inModelSpace, modelSpaceDrawables } from '../editor/drawables.js';
import { documentContext } from '../editor/geometry/types.js';
import type { RecordedEvent } from '../store/types.js';

export interface ViewerMessage {
  event: 'scene' | 'entities' | 'selection' | 'tabs' | 'pick' | 'view';
  data: Record<string, unknown>;
}

const activeDoc = (state: EditorSessionState): DocumentState | undefined =>
  state.active === null ? undefined : state.documents[String(state.active)];

export function tabsOf(state: EditorSessionState): Record<string, unknown> {
  return {
    active: state.active,
    tabs: state.tabs.map((id) => {
      const d = state.documents[String(id)] as DocumentState;
      return { id, title: d.title, dirty: d.revision !== d.saved_revision, revision: d.revision };
    }),
  };
}

export const pickOf = (state: EditorSessionState) => ({ pick: state.pick });

const selectionOf = (doc: DocumentState) => ({ document_id: doc.id, handles: [...doc.selection] });
const viewOf = (doc: DocumentState) => ({ document_id: doc.id, view: doc.view });

/** Everything the page shows, for a page that connects (or reconnects, or fell behind). */
export function sceneOf(state: EditorSessionState): Record<string, unknown> {
  const doc = activeDoc(state);
  return {
    session_id: state.session_id,
    ...tabsOf(state),
    ...pickOf(state),
    document: doc
      ? {
          id: doc.id,
          title: doc.title,
          revision: doc.revision,
          entities: modelSpaceDrawables(doc.model),
          selection: [...doc.selection],
          view: doc.view,
        }
      : null,
  };
}

/** What the events since the last flush left out of date. */
export class Dirt {
  /** The whole scene: the active document changed, or changed in a way deltas do not carry. */
  scene = false;
  tabs = false;
  selection = false;
  pick = false;
  view = false;
  /** Entities of the active document created, changed or erased. */
  readonly handles = new Set<string>();

  get any(): boolean {
    return this.scene || this.tabs || this.selection || this.pick || this.view || this.handles.size > 0;
  }

  /** Notes what `event` changed, as seen from the document that is active now. */
  add(event: RecordedEvent, state: EditorSessionState): void {
    if (!isEditorEvent(event)) return;
    const e = event as EditorEvent;
    const active = state.active;
    if (isStepEvent(e.type)) {
      const data = e.data as StepData;
      this.tabs = true;
      if (data.document_id !== active) return;
      for (const change of data.changes) {
        if (change.kind === 'entity') this.handles.add(change.key);
        // A layer's colour or a block's contents change how other entities are drawn.
        else if (change.kind === 'layer' || change.kind === 'block') this.scene = true;
      }
      return;
    }
    switch (e.type) {
      case 'DocumentCreated':
      case 'DocumentOpened':
      case 'DocumentActivated':
      case 'DocumentClosed':
        this.tabs = true;
        this.scene = true;
        return;
      case 'EntitiesLoaded':
      case 'StepUndone':
      case 'StepRedone':
        this.tabs = true;
        if (e.data.document_id === active) this.scene = true;
        return;
      case 'DocumentSaved':
        this.tabs = true;
        return;
      case 'SelectionChanged':
        if (e.data.document_id === active) this.selection = true;
        return;
      case 'ViewFocused':
        if (e.data.document_id === active) this.view = true;
        return;
      case 'PickRequested':
      case 'PickCompleted':
      case 'PickCancelled':
        this.pick = true;
        return;
      default:
        return;
    }
  }
}

/** The messages that bring a page up to date with `state` after `dirt`. */
export function messagesOf(dirt: Dirt, state: EditorSessionState): ViewerMessage[] {
  if (dirt.scene) return [{ event: 'scene', data: sceneOf(state) }];
  const out: ViewerMessage[] = [];
  const doc = activeDoc(state);
  if (dirt.tabs) out.push({ event: 'tabs', data: tabsOf(state) });
  if (doc && dirt.handles.size > 0) {
    const ctx = documentContext(doc.model);
    const upsert: Drawable[] = [];
    const erase: string[] = [];
    for (const handle of dirt.handles) {
      const entity = doc.model.entities[handle];
      if (entity && inModelSpace(entity)) upsert.push(drawableOf(entity, doc.model, ctx));
      else erase.push(handle);
    }
    out.push({ event: 'entities', data: { document_id: doc.id, revision: doc.revision, upsert, erase } });
    // An erased entity leaves the selection without a SelectionChanged of its own.
    if (erase.length > 0) dirt.selection = true;
  }
  if (doc && dirt.selection) out.push({ event: 'selection', data: selectionOf(doc) });
  if (doc && dirt.view) out.push({ event: 'view', data: viewOf(doc) });
  if (dirt.pick) out.push({ event: 'pick', data: pickOf(state) });
  return out;
}
