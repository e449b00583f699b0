/**
 * The types kept as read (raw tags) whose geometry the editor still knows: each is drawn, bounded and
 * queried through stand-ins — entities of the modeled types that draw what it draws (an ATTDEF its
 * text, a DIMENSION its geometry block) — and transformed on its own tags, by its own file.
 */
import type { Entity, RawEntity, TextEntity } from '../model.js';
import { attdefText, isAttdefType, transformAttdef } from './attdef.js';
import { dimensionStandIn, transformDimension } from './dimension.js';
import type { Matrix, Similarity } from './matrix.js';

/** What a raw type's transform needs: the matrix, its similarity, and the modeled types' transforms. */
export interface RawTransformTools {
  m: Matrix;
  sim: Similarity;
  text(t: TextEntity): TextEntity;
}

interface RawKind {
  /** The modeled entities that draw it, in its own space; `inBlock`: a part of a block being drawn. */
  standIns(e: RawEntity, inBlock: boolean): Entity[];
  transform(e: RawEntity, tools: RawTransformTools): RawEntity;
}

const KINDS: Readonly<Record<string, RawKind>> = {
  ATTDEF: {
    standIns(e, inBlock) {
      const text = inBlock ? undefined : attdefText(e);
      return text ? [text] : [];
    },
    transform: (e, tools) => transformAttdef(e, tools.text),
  },
  DIMENSION: {
    standIns(e) {
      const insert = dimensionStandIn(e);
      return insert ? [insert] : [];
    },
    transform: (e, tools) => transformDimension(e, tools.m, tools.sim),
  },
};

function kindOf(e: RawEntity): RawKind | undefined {
  const type = e.dxf_type.toUpperCase();
  return Object.hasOwn(KINDS, type) ? KINDS[type] : undefined;
}

/** Whether a raw entity's type is one the geometry knows (so it is drawn from stand-ins and moves). */
export const isKnownRaw = (e: RawEntity) => kindOf(e) !== undefined;

/** The stand-ins of a raw entity; undefined for a type the geometry does not know. */
export function rawStandIns(e: RawEntity, inBlock = false): Entity[] | undefined {
  return kindOf(e)?.standIns(e, inBlock);
}

/** The raw entity transformed; undefined for a type the geometry does not know. */
export function transformRaw(e: RawEntity, tools: RawTransformTools): RawEntity | undefined {
  return kindOf(e)?.transform(e, tools);
}

export { isAttdefType };
