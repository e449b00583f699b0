import type { DocumentState } from '../../../projections/editor-session.js';
import {
  type Change,
  editorEvent,
  type NewEditorEvent,
  type StepEventType,
} from '../../../streams/editor.js';
import { newLayer } from '../dxf/structure.js';
import { formatHandle } from '../handles.js';
import type { DxfDocumentModel, Layer } from '../model.js';
import { NameSet, nameIn, sameName } from '../names.js';

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
  private readonly made = new NameSet();

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
   * The layer `name` of the document, in any case (its canonical spelling); else creates it: like
   * `like` (a layer of another document, whose definition travels along), else colour 7, Continuous.
   * A second spelling of a layer made in this step resolves to the first.
   */
  ensureLayer(name: string, like?: Layer): string {
    const known = nameIn(this.model.layers, name) ?? this.made.get(name);
    if (known !== undefined) return known;
    this.made.add(name);
    const [handle] = this.handles(1) as [string];
    const linetypeKnown = (linetype: string) =>
      ['BYLAYER', 'BYBLOCK', 'CONTINUOUS'].includes(linetype.toUpperCase()) ||
      (this.model.tables.LTYPE ?? []).some((r) =>
        r.tags.some((t) => t.code === 2 && sameName(t.value, linetype)),
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
    return name;
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
