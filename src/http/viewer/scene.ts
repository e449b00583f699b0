/**
 * What the viewer page is sent: the whole scene of the active document, and then what the session's
 * events left out of date, read afresh from the read model (an event only says what changed; the
 * message carries the state as it is now, so a burst of events becomes one message of each kind).
 */

import type { DocumentState, EditorSessionState } from '../../../projections/editor-session.js';
import { type EditorEvent, isEditorEvent, isStepEvent, type StepData } from '../../../streams/editor.js';
import { dictGet } from '../../editor/dict.js';
import { drawableOf, inModelSpace } from '../../editor/drawables.js';
import { EditorError } from '../../editor/errors.js';
import { ExpansionCounter, MAX_EXPANDED_ENTITIES, tooLarge } from '../../editor/expansion.js';
import { documentContext, type GeometryContext, NO_BLOCKS } from '../../editor/geometry/types.js';
import type { DxfDocumentModel, Entity } from '../../editor/model.js';
import type { RecordedEvent } from '../../store/types.js';

/** A message for the pages: its event name and its data as JSON text. */
export interface ViewerMessage {
  event: 'scene' | 'entities' | 'selection' | 'tabs' | 'pick' | 'view';
  json: string;
}

const message = (event: ViewerMessage['event'], data: unknown): ViewerMessage => ({
  event,
  json: JSON.stringify(data),
});

/**
 * Each entity's drawable as JSON text, kept per entity object: the read model replaces an entity's
 * object whenever it changes and never edits one in place, so a kept text is right until the layers
 * or blocks it is drawn with change (then everything is forgotten). A scene of 100,000 entities is
 * then a join of kept texts instead of seconds of geometry and JSON on the dispatcher's loop.
 */
const MODEL_SPACE = '*Model_Space';

/** An entity's drawable; an Insert past the expansion limit is drawn as nothing (no parts, no box). */
function drawableOfBounded(entity: Entity, model: DxfDocumentModel, ctx: GeometryContext) {
  try {
    return drawableOf(entity, model, ctx);
  } catch (error) {
    if (error instanceof EditorError && error.code === 'too_large')
      return drawableOf(entity, model, NO_BLOCKS);
    throw error;
  }
}

export class DrawableCache {
  private texts = new WeakMap<Entity, string>();
  /** Whether the last scene sent refused block references (past the limit): updates then recount. */
  large = false;

  clear(): void {
    this.texts = new WeakMap();
  }

  json(entity: Entity, model: DxfDocumentModel, ctx: GeometryContext): string {
    let text = this.texts.get(entity);
    if (text === undefined) {
      text = JSON.stringify(drawableOfBounded(entity, model, ctx));
      this.texts.set(entity, text);
    }
    return text;
  }

  /**
   * The JSON array of a document's model space, in drawing order. `large`: the model space expands past
   * the limit (`sceneRefusal`), so its block references are drawn as nothing rather than hold the loop
   * for minutes.
   */
  modelSpace(model: DxfDocumentModel, large: boolean): string {
    const ctx = large ? NO_BLOCKS : documentContext(model);
    const parts: string[] = [];
    for (const handle of model.order) {
      const entity = dictGet(model.entities, handle);
      if (entity && inModelSpace(entity)) parts.push(this.json(entity, model, ctx));
    }
    return `[${parts.join(',')}]`;
  }
}

/**
 * `too_large` when the active document's model space, block references followed, is past the limit
 * (expansion.ts): counted before anything is drawn, each block once. Undefined when it is not.
 */
export function sceneRefusal(state: EditorSessionState): EditorError | undefined {
  const doc = activeDoc(state);
  if (!doc) return undefined;
  const count = new ExpansionCounter(doc.model).space(MODEL_SPACE);
  return count > MAX_EXPANDED_ENTITIES ? tooLarge(`the model space of ${doc.title}`, count) : undefined;
}

const activeDoc = (state: EditorSessionState): DocumentState | undefined =>
  state.active === null ? undefined : state.documents[String(state.active)];

function tabsOf(state: EditorSessionState): Record<string, unknown> {
  return {
    active: state.active,
    tabs: state.tabs.map((id) => {
      const d = state.documents[String(id)] as DocumentState;
      return { id, title: d.title, dirty: d.revision !== d.saved_revision, revision: d.revision };
    }),
  };
}

const pickOf = (state: EditorSessionState) => ({ pick: state.pick });

const selectionOf = (doc: DocumentState) => ({ document_id: doc.id, handles: [...doc.selection] });
const viewOf = (doc: DocumentState) => ({ document_id: doc.id, view: doc.view });

/** Everything the page shows, as JSON text, for a page that connects (or reconnects, or fell behind). */
export function sceneJson(state: EditorSessionState, cache: DrawableCache): string {
  const doc = activeDoc(state);
  const head = JSON.stringify({ session_id: state.session_id, ...tabsOf(state), ...pickOf(state) }).slice(
    0,
    -1,
  );
  if (!doc) return `${head},"document":null}`;
  const { id, title, revision, selection, view } = doc;
  // Past the limit the page is sent what it can draw and told why the references show as nothing.
  const refused = sceneRefusal(state);
  // Drawables kept were drawn with or without block contents: not the same once the limit is crossed.
  if (cache.large !== (refused !== undefined)) cache.clear();
  cache.large = refused !== undefined;
  const too_large = refused ? { code: refused.code, error: refused.message, ...refused.details } : null;
  const fields = JSON.stringify({ id, title, revision, selection, view, too_large }).slice(0, -1);
  return `${head},"document":${fields},"entities":${cache.modelSpace(doc.model, refused !== undefined)}}}`;
}

/** What the events since the last flush left out of date. */
export class Dirt {
  /** The whole scene: the active document changed, or changed in a way deltas do not carry. */
  scene = false;
  /** Layers or blocks changed (or a step was undone or redone): kept drawables may be drawn otherwise now. */
  restyle = false;
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
    if (isStepEvent(e.type) || e.type === 'StepContinued') {
      const data = e.data as Pick<StepData, 'document_id' | 'changes'>;
      this.tabs = true;
      if (data.document_id !== active) return;
      for (const change of data.changes) {
        if (change.kind === 'entity') this.handles.add(change.key);
        // A layer's colour or a block's contents change how other entities are drawn.
        else if (change.kind === 'layer' || change.kind === 'block') {
          this.scene = true;
          this.restyle = true;
        }
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
      case 'StepUndone':
      case 'StepRedone':
        this.restyle = true;
        this.tabs = true;
        if (e.data.document_id === active) this.scene = true;
        return;
      case 'EntitiesLoaded':
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
export function messagesOf(dirt: Dirt, state: EditorSessionState, cache: DrawableCache): ViewerMessage[] {
  if (dirt.restyle) cache.clear();
  if (dirt.scene) return [{ event: 'scene', json: sceneJson(state, cache) }];
  const out: ViewerMessage[] = [];
  const doc = activeDoc(state);
  if (dirt.tabs) out.push(message('tabs', tabsOf(state)));
  if (doc && dirt.handles.size > 0) {
    // A reference added (or the drawing past the limit already) may cross the limit: counted again,
    // and a crossing sends the whole scene, drawn as the limit says, with the page told why.
    const recount =
      cache.large || [...dirt.handles].some((h) => dictGet(doc.model.entities, h)?.type === 'Insert');
    if (recount && (sceneRefusal(state) !== undefined) !== cache.large)
      return [{ event: 'scene', json: sceneJson(state, cache) }];
    const ctx = cache.large ? NO_BLOCKS : documentContext(doc.model);
    const upsert: string[] = [];
    const erase: string[] = [];
    for (const handle of dirt.handles) {
      const entity = dictGet(doc.model.entities, handle);
      if (entity && inModelSpace(entity)) upsert.push(cache.json(entity, doc.model, ctx));
      else erase.push(handle);
    }
    const head = JSON.stringify({ document_id: doc.id, revision: doc.revision, erase }).slice(0, -1);
    out.push({ event: 'entities', json: `${head},"upsert":[${upsert.join(',')}]}` });
    // An erased entity leaves the selection without a SelectionChanged of its own.
    if (erase.length > 0) dirt.selection = true;
  }
  if (doc && dirt.selection) out.push(message('selection', selectionOf(doc)));
  if (doc && dirt.view) out.push(message('view', viewOf(doc)));
  if (dirt.pick) out.push(message('pick', pickOf(state)));
  return out;
}
