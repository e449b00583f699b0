import type { ModeledType } from '../model.js';

/** DXF entity type -> model type, for the types the engine models. */
export const MODELED_DXF_TYPES: Record<string, ModeledType> = {
  LINE: 'Line',
  CIRCLE: 'Circle',
  ARC: 'Arc',
  TEXT: 'Text',
  MTEXT: 'MText',
  POINT: 'Point',
  LWPOLYLINE: 'LwPolyline',
  INSERT: 'Insert',
  IMAGE: 'Image',
};

export const DXF_TYPE_OF: Record<ModeledType, string> = {
  Line: 'LINE',
  Circle: 'CIRCLE',
  Arc: 'ARC',
  Text: 'TEXT',
  MText: 'MTEXT',
  Point: 'POINT',
  LwPolyline: 'LWPOLYLINE',
  Insert: 'INSERT',
  Image: 'IMAGE',
};

/**
 * Group codes of the AcDbEntity subclass. Files without subclass markers (R12) mix them with the
 * type's own codes; this set sorts them apart.
 */
export const ENTITY_CODES = new Set([
  6, 8, 48, 60, 62, 67, 92, 160, 284, 310, 347, 370, 380, 390, 420, 430, 440,
]);

/** The subclass markers after AcDbEntity that each modeled type is written with (R2000 and later). */
export function typeSubclasses(type: ModeledType, minsert: boolean): string[] {
  switch (type) {
    case 'Line':
      return ['AcDbLine'];
    case 'Circle':
      return ['AcDbCircle'];
    case 'Arc':
      return ['AcDbCircle', 'AcDbArc'];
    case 'Text':
      return ['AcDbText', 'AcDbText'];
    case 'MText':
      return ['AcDbMText'];
    case 'Point':
      return ['AcDbPoint'];
    case 'LwPolyline':
      return ['AcDbPolyline'];
    case 'Insert':
      return [minsert ? 'AcDbMInsertBlock' : 'AcDbBlockReference'];
    case 'Image':
      return ['AcDbRasterImage'];
  }
}

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
