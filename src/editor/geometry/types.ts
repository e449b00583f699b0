import { dictGet } from '../dict.js';
import { ExpansionCounter } from '../expansion.js';
import type { DxfDocumentModel, Entity, InsertEntity, Point3 } from '../model.js';
import { named } from '../names.js';

/** An axis-aligned box in world coordinates. */
export interface Bounds {
  min: Point3;
  max: Point3;
}

/** A point on an entity and its distance (in the XY plane) from the point asked about. */
export interface Closest {
  point: Point3;
  distance: number;
}

/** What a block holds, as the geometry of an Insert needs it. */
export interface BlockContent {
  base: Point3;
  entities: readonly Entity[];
}

/** Lookups the geometry of an entity may need beyond the entity itself. */
export interface GeometryContext {
  /** The block an Insert names; undefined when the document has no such block. */
  block(name: string): BlockContent | undefined;
  /**
   * The entities an Insert expands to (expansion.ts: its block's, once per cell of a MINSERT's grid),
   * when the context can count them: an Insert past the limit is refused (`too_large`) before its parts
   * are built.
   */
  expanded?(insert: InsertEntity): number;
  /** The name of the block whose BLOCK_RECORD has this handle (a MULTILEADER names its block so). */
  blockName?(recordHandle: string): string | undefined;
}

/** A context without blocks: Inserts have no geometry in it. */
export const NO_BLOCKS: GeometryContext = { block: () => undefined };

/** The context of a document: blocks are looked up in the model as it is when asked. */
export function documentContext(model: DxfDocumentModel): GeometryContext {
  let counter: ExpansionCounter | undefined;
  return {
    block(name) {
      const block = named(model.blocks, name);
      if (!block) return undefined;
      const entities: Entity[] = [];
      for (const handle of block.entities) {
        const entity = dictGet(model.entities, handle);
        if (entity) entities.push(entity);
      }
      return { base: block.base, entities };
    },
    blockName: (recordHandle) => blockNameOf(model, recordHandle),
    expanded(insert) {
      counter ??= new ExpansionCounter(model);
      return counter.insert(insert, 1);
    },
  };
}

export { GeometryError, type GeometryErrorCode } from './errors.js';

/** The name of the block whose BLOCK_RECORD has `recordHandle`, in `model`. */
export function blockNameOf(model: DxfDocumentModel, recordHandle: string): string | undefined {
  const wanted = recordHandle.toUpperCase();
  for (const block of Object.values(model.blocks))
    if (block.record_handle.toUpperCase() === wanted) return block.name;
  return undefined;
}
