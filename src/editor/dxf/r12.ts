import { dictGet } from '../dict.js';
import type { DxfTag } from '../model.js';
import { ENTITY_CODES } from './entity-types.js';
import { toInt } from './values.js';

/**
 * R12 files have no subclass markers and no owner handles; DXF R2000 needs both. These tables put an
 * R12 entity's or table record's tags into the subclasses R2000 has for it (the same structure ezdxf
 * writes), so raw entities and records of an R12 file are kept in a form the R2000 save can write as is.
 */

interface Subclass {
  name: string;
  /** Group codes that belong here; absent = every code no other subclass takes. */
  codes?: Set<number>;
}

const withPoints = (codes: number[], points: number[]) =>
  new Set([...codes, ...points.flatMap((p) => [p, p + 10, p + 20])]);

const TEXT_CODES = withPoints([1, 7, 39, 40, 41, 50, 51, 71, 72, 210, 220, 230], [10, 11]);
const DIMENSION_CODES = withPoints([1, 2, 3, 41, 42, 51, 52, 53, 70, 71, 72, 210, 220, 230], [10, 11, 12]);

/** The subclass after AcDbDimension by dimension type (the low four bits of flag 70). */
const DIMENSION_SUBCLASS = [
  'AcDbAlignedDimension',
  'AcDbAlignedDimension',
  'AcDb2LineAngularDimension',
  'AcDbDiametricDimension',
  'AcDbRadialDimension',
  'AcDb3PointAngularDimension',
  'AcDbOrdinateDimension',
];

function flagsOf(tags: readonly DxfTag[]): number {
  for (const t of tags) if (t.code === 70) return toInt(t.value);
  return 0;
}

function entitySubclasses(dxfType: string, tags: readonly DxfTag[]): Subclass[] {
  switch (dxfType) {
    case 'POLYLINE': {
      const flags = flagsOf(tags);
      if (flags & 8) return [{ name: 'AcDb3dPolyline' }];
      if (flags & 16) return [{ name: 'AcDbPolygonMesh' }];
      if (flags & 64) return [{ name: 'AcDbPolyFaceMesh' }];
      return [{ name: 'AcDb2dPolyline' }];
    }
    case 'VERTEX': {
      const flags = flagsOf(tags);
      if ((flags & 192) === 128) return [{ name: 'AcDbFaceRecord' }];
      const empty = new Set<number>();
      if (flags & 32) return [{ name: 'AcDbVertex', codes: empty }, { name: 'AcDb3dPolylineVertex' }];
      if ((flags & 192) === 192)
        return [{ name: 'AcDbVertex', codes: empty }, { name: 'AcDbPolyFaceMeshVertex' }];
      if (flags & 64) return [{ name: 'AcDbVertex', codes: empty }, { name: 'AcDbPolygonMeshVertex' }];
      return [{ name: 'AcDbVertex', codes: empty }, { name: 'AcDb2dVertex' }];
    }
    case 'SEQEND':
      return [];
    case 'SOLID':
    case 'TRACE':
      return [{ name: 'AcDbTrace' }];
    case '3DFACE':
      return [{ name: 'AcDbFace' }];
    case 'SHAPE':
      return [{ name: 'AcDbShape' }];
    case 'ATTDEF':
      return [{ name: 'AcDbText', codes: TEXT_CODES }, { name: 'AcDbAttributeDefinition' }];
    case 'ATTRIB':
      return [{ name: 'AcDbText', codes: TEXT_CODES }, { name: 'AcDbAttribute' }];
    case 'VIEWPORT':
      return [{ name: 'AcDbViewport' }];
    case 'DIMENSION': {
      const kind = flagsOf(tags) & 15;
      const name = DIMENSION_SUBCLASS[kind];
      if (!name) return [{ name: 'AcDbDimension' }];
      const base: Subclass = { name: 'AcDbDimension', codes: DIMENSION_CODES };
      // AcDbRotatedDimension stays empty: readers take a linear dimension's points from the one before.
      if (kind === 0) return [base, { name }, { name: 'AcDbRotatedDimension', codes: new Set<number>() }];
      return [base, { name }];
    }
    default:
      return [];
  }
}

/**
 * Rewrites the tags of one R12 entity (everything after its `0 TYPE`, xdata included) into R2000 form:
 * handle (a `5` with an empty value when it had none, filled in later), owner, `AcDbEntity` with the
 * common codes, the type's subclasses, then the xdata. Tags that already have markers are left alone.
 */
export function upgradeEntityTags(dxfType: string, tags: readonly DxfTag[]): DxfTag[] {
  if (tags.some((t) => t.code === 100)) return [...tags];
  const subclasses = entitySubclasses(dxfType, tags);
  const buckets: DxfTag[][] = subclasses.map(() => []);
  const common: DxfTag[] = [];
  const rest: DxfTag[] = [];
  const xdata: DxfTag[] = [];
  let handle: DxfTag = { code: 5, value: '' };
  for (let i = 0; i < tags.length; i++) {
    const t = tags[i] as DxfTag;
    if (t.code >= 1000 || xdata.length > 0) {
      xdata.push(t);
    } else if (t.code === 5) {
      handle = t;
    } else if (t.code === 330) {
      // an owner an R12 writer put there anyway: the save writes the right one
    } else if (ENTITY_CODES.has(t.code)) {
      common.push(t);
    } else {
      const at = subclasses.findIndex((s) => s.codes?.has(t.code));
      const open = at >= 0 ? at : lastOpen(subclasses);
      if (open >= 0) buckets[open]?.push(t);
      else rest.push(t);
    }
  }
  const out: DxfTag[] = [handle, { code: 330, value: '0' }, { code: 100, value: 'AcDbEntity' }, ...common];
  subclasses.forEach((s, i) => {
    out.push({ code: 100, value: s.name }, ...(buckets[i] as DxfTag[]));
  });
  out.push(...rest, ...xdata);
  return out;
}

function lastOpen(subclasses: readonly Subclass[]): number {
  for (let i = subclasses.length - 1; i >= 0; i--) if (!subclasses[i]?.codes) return i;
  return subclasses.length - 1;
}

const RECORD_SUBCLASS: Record<string, string> = {
  VPORT: 'AcDbViewportTableRecord',
  LTYPE: 'AcDbLinetypeTableRecord',
  LAYER: 'AcDbLayerTableRecord',
  STYLE: 'AcDbTextStyleTableRecord',
  VIEW: 'AcDbViewTableRecord',
  UCS: 'AcDbUCSTableRecord',
  APPID: 'AcDbRegAppTableRecord',
  DIMSTYLE: 'AcDbDimStyleTableRecord',
  BLOCK_RECORD: 'AcDbBlockTableRecord',
};

/** The group code of a table record's handle: DIMSTYLE uses 105, its 5 is a block name there. */
export const recordHandleCode = (table: string) => (table === 'DIMSTYLE' ? 105 : 5);

/** Rewrites an R12 table record's tags into R2000 form (handle, owner, the two subclass markers). */
export function upgradeRecordTags(table: string, tags: readonly DxfTag[]): DxfTag[] {
  if (tags.some((t) => t.code === 100)) return [...tags];
  const handleCode = recordHandleCode(table);
  let handle: DxfTag = { code: handleCode, value: '' };
  const body: DxfTag[] = [];
  for (const t of tags) {
    if (t.code === handleCode && handle.value === '') handle = t;
    else if (t.code !== 330) body.push(t);
  }
  return [
    handle,
    { code: 330, value: '0' },
    { code: 100, value: 'AcDbSymbolTableRecord' },
    { code: 100, value: dictGet(RECORD_SUBCLASS, table) ?? 'AcDbSymbolTableRecord' },
    ...body,
  ];
}
