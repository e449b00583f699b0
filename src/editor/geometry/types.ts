import { dictGet } from '../dict.js';
import { ExpansionCounter } from '../expansion.js';
import type { DxfDocumentModel, Entity, InsertEntity, Point3, RawEntity } from '../model.js';
import { named } from '../names.js';
import { type MlineStyle, mlineStyleOf } from './mline.js';
import { DEFAULT_DIM_SIZES, type DimSizes } from './tolerance.js';

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
interface BlockContent {
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
  /** The sizes a dimension style gives annotation (a TOLERANCE is drawn by them). */
  dimSizes?(style: string): DimSizes;
  /** A dimension style's value of group `code` (DIMASZ 41, DIMLDRBLK 341...), else the header's `header`. */
  dimStyleValue?(style: string, code: number, header?: string): string | undefined;
  /** The MLINESTYLE an MLINE names (its caps and miters are part of what it covers). */
  mlineStyle?(e: RawEntity): MlineStyle;
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
    dimSizes: (style) => dimSizesOf(model, style),
    dimStyleValue: (style, code, header) => dimStyleValueOf(model, style, code, header),
    mlineStyle: (e) => mlineStyleOf(model.objects, e),
    expanded(insert) {
      counter ??= new ExpansionCounter(model);
      return counter.insert(insert, 1);
    },
  };
}

export { GeometryError } from './errors.js';

/** The name of the block whose BLOCK_RECORD has `recordHandle`, in `model`. */
export function blockNameOf(model: DxfDocumentModel, recordHandle: string): string | undefined {
  const wanted = recordHandle.toUpperCase();
  for (const block of Object.values(model.blocks))
    if (block.record_handle.toUpperCase() === wanted) return block.name;
  return undefined;
}

/** The DIMSTYLE record named `style`, in any case. */
function dimStyleRecord(model: DxfDocumentModel, style: string) {
  const wanted = style.trim().toUpperCase();
  return model.tables.DIMSTYLE?.find(
    (r) =>
      r.tags
        .find((t) => t.code === 2)
        ?.value.trim()
        .toUpperCase() === wanted,
  );
}

/** The value of group `code` in the DIMSTYLE record named `style` (any case), else of header variable `header`. */
export function dimStyleValueOf(
  model: DxfDocumentModel,
  style: string,
  code: number,
  header?: string,
): string | undefined {
  const own = dimStyleRecord(model, style)?.tags.find((t) => t.code === code)?.value;
  if (own !== undefined) return own;
  return header ? dictGet(model.header, header)?.[0]?.value : undefined;
}

/**
 * DIMTXT, DIMSCALE and DIMGAP of the dimension style `style` (its DIMSTYLE record: 140, 40, 147), else
 * the header's, else AutoCAD's defaults.
 */
export function dimSizesOf(model: DxfDocumentModel, style: string): DimSizes {
  const record = dimStyleRecord(model, style);
  const value = (code: number, header: string, fallback: number) => {
    const own = record?.tags.find((t) => t.code === code);
    const n = Number((own ?? dictGet(model.header, header)?.[0])?.value ?? Number.NaN);
    return Number.isFinite(n) ? n : fallback;
  };
  return {
    dimtxt: value(140, '$DIMTXT', DEFAULT_DIM_SIZES.dimtxt),
    dimscale: value(40, '$DIMSCALE', DEFAULT_DIM_SIZES.dimscale),
    dimgap: value(147, '$DIMGAP', DEFAULT_DIM_SIZES.dimgap),
  };
}
