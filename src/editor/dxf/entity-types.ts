import type { ModeledType } from '../model.js';
import { ENTITY_DEFS } from './entity-defs.js';

/** DXF entity type -> model type, for the types the engine models. */
export const MODELED_DXF_TYPES: Record<string, ModeledType> = {};
export const DXF_TYPE_OF = {} as Record<ModeledType, string>;
for (const def of Object.values(ENTITY_DEFS)) {
  MODELED_DXF_TYPES[def.dxf] = def.type;
  DXF_TYPE_OF[def.type] = def.dxf;
}

/**
 * Group codes of the AcDbEntity subclass. Files without subclass markers (R12) mix them with the
 * type's own codes; this set sorts them apart.
 */
export const ENTITY_CODES = new Set([
  6, 8, 48, 60, 62, 67, 92, 160, 284, 310, 347, 370, 380, 390, 420, 430, 440,
]);

/** Layout block names: their entities are drawn in a layout (model space or a paper space). */
export function isLayoutBlockName(name: string): boolean {
  const upper = name.toUpperCase();
  return upper === '*MODEL_SPACE' || upper.startsWith('*PAPER_SPACE');
}

export function isPaperSpaceBlockName(name: string): boolean {
  return name.toUpperCase().startsWith('*PAPER_SPACE');
}

export const MODEL_SPACE = '*Model_Space';
export const PAPER_SPACE = '*Paper_Space';
