import type { DocumentState } from '../../../projections/editor-session.js';
import {
  type Change,
  editorEvent,
  type NewEditorEvent,
  type StepEventType,
} from '../../../streams/editor.js';
import { dictHas } from '../dict.js';
import { formatHandle } from '../handles.js';
import type { DxfDocumentModel, Layer } from '../model.js';

/** The event of one undo step: `type` names what happened, `changes` say it. */
export function stepEvent(
  type: StepEventType,
  doc: DocumentState,
  op: string,
  changes: Change[],
  result?: Record<string, unknown>,
): NewEditorEvent {
  return editorEvent(type, {
    document_id: doc.id,
    revision: doc.revision + 1,
    op,
    changes,
    ...(result ? { result } : {}),
  });
}

/**
 * Builds a step's changes while keeping track of the handle seed, so several allocations in one step
 * get distinct handles and one seed change.
 */
export class StepBuilder {
  readonly changes: Change[] = [];
  private seed: number;
  private readonly model: DxfDocumentModel;
  private readonly seedBefore: number;
  readonly layersCreated: string[] = [];

  constructor(model: DxfDocumentModel) {
    this.model = model;
    this.seed = model.handseed;
    this.seedBefore = model.handseed;
  }

  handles(count: number): string[] {
    const handles = Array.from({ length: count }, (_, i) => formatHandle(this.seed + i));
    this.seed += count;
    return handles;
  }

  /** Creates `name` as a new layer (colour 7, Continuous) unless the document or this step has it. */
  ensureLayer(name: string): void {
    if (dictHas(this.model.layers, name) || this.layersCreated.includes(name)) return;
    const [handle] = this.handles(1) as [string];
    const layer: Layer = {
      name,
      handle,
      color: 7,
      linetype: 'Continuous',
      lineweight: -3,
      off: false,
      frozen: false,
      locked: false,
    };
    this.changes.push({ kind: 'layer', key: name, before: null, after: layer });
    this.layersCreated.push(name);
  }

  push(...changes: Change[]): this {
    this.changes.push(...changes);
    return this;
  }

  /** The changes, with the seed change first when handles were taken. */
  build(): Change[] {
    if (this.seed === this.seedBefore) return this.changes;
    return [
      { kind: 'handseed', key: 'handseed', before: this.seedBefore, after: this.seed },
      ...this.changes,
    ];
  }
}
