import type { DocumentState } from '../../../projections/editor-session.js';
import {
  type Change,
  editorEvent,
  type NewEditorEvent,
  type StepEventType,
} from '../../../streams/editor.js';
import { dictHas } from '../dict.js';
import { newLayer } from '../dxf/structure.js';
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

  /**
   * Creates `name` as a new layer unless the document or this step has it: like `like` (a layer of
   * another document, whose definition travels along), else colour 7, Continuous.
   */
  ensureLayer(name: string, like?: Layer): void {
    if (dictHas(this.model.layers, name) || this.layersCreated.includes(name)) return;
    const [handle] = this.handles(1) as [string];
    const linetypeKnown = (linetype: string) =>
      ['BYLAYER', 'BYBLOCK', 'CONTINUOUS'].includes(linetype.toUpperCase()) ||
      (this.model.tables.LTYPE ?? []).some((r) =>
        r.tags.some((t) => t.code === 2 && t.value.toUpperCase() === linetype.toUpperCase()),
      );
    // Unmodeled tags stay behind: they may name objects (plot style, material) of the other document.
    const { extra: _extra, ...definition } = like ?? ({} as Layer);
    const layer: Layer = like
      ? {
          ...definition,
          name,
          handle,
          linetype: linetypeKnown(definition.linetype) ? definition.linetype : 'Continuous',
        }
      : newLayer(name, handle);
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
