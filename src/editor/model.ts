/**
 * The document model of the headless CAD editor: what a DXF file holds, in the shape the engine
 * decides on and the projection keeps. Everything is plain JSON (it travels in events and snapshots).
 *
 * Modeled parts (entities of the types below, layers, blocks, groups, layouts, APPIDs, header
 * variables) are edited by operations. Everything else the file held — entity types we do not model,
 * group codes we do not model on modeled entities, table records, objects, classes — is kept as raw
 * group-code tags and written back unchanged, so a save loses nothing.
 */

/** One DXF group-code pair, value as the file's text (numbers are not reformatted on the way back). */
export interface DxfTag {
  code: number;
  value: string;
}

/** Points are 3 numbers in the model; requests may give 2 (z = 0). */
export type Point3 = [number, number, number];

/** Extended entity data item: group code 1000-1071 and its value. */
export interface XdataItem {
  code: number;
  value: string | number | Point3;
}

export const MODELED_TYPES = [
  'Line',
  'Circle',
  'Arc',
  'Text',
  'MText',
  'Point',
  'LwPolyline',
  'Insert',
  'Image',
] as const;
export type ModeledType = (typeof MODELED_TYPES)[number];

/** Fields every entity has. */
export interface EntityCommon {
  /** Uppercase hex, unique in the document. */
  handle: string;
  /** Name of the block record that owns it: `*Model_Space`, `*Paper_Space`, `*Paper_Space0`..., or a block. */
  space: string;
  layer: string;
  /** ACI colour: 256 = BYLAYER, 0 = BYBLOCK, 1-255. */
  color: number;
  /** Linetype name, `BYLAYER` by default. */
  linetype: string;
  /** Lineweight in 1/100 mm, or -1 BYLAYER, -2 BYBLOCK, -3 default. */
  lineweight: number;
  /** APPID name -> items, in file order. */
  xdata?: Record<string, XdataItem[]>;
  /** Group codes of a modeled entity the engine does not model (thickness, extrusion, ...), written back as they were. */
  extra?: DxfTag[];
}

export interface LineEntity extends EntityCommon {
  type: 'Line';
  start: Point3;
  end: Point3;
}
export interface CircleEntity extends EntityCommon {
  type: 'Circle';
  center: Point3;
  radius: number;
}
export interface ArcEntity extends EntityCommon {
  type: 'Arc';
  center: Point3;
  radius: number;
  /** Degrees, counter-clockwise from the x axis. */
  start_angle: number;
  end_angle: number;
}
export interface TextEntity extends EntityCommon {
  type: 'Text';
  value: string;
  position: Point3;
  height: number;
  /** Degrees. */
  rotation: number;
  style: string;
}
export interface MTextEntity extends EntityCommon {
  type: 'MText';
  value: string;
  position: Point3;
  height: number;
  /** Reference column width; 0 = no wrapping. */
  width: number;
  rotation: number;
  style: string;
  /** 1-9: top-left ... bottom-right. */
  attachment: number;
}
export interface PointEntity extends EntityCommon {
  type: 'Point';
  location: Point3;
}
export interface LwPolylineVertex {
  x: number;
  y: number;
  /** Bulge of the segment that starts here: tan(angle / 4); 0 = straight. */
  bulge: number;
}
export interface LwPolylineEntity extends EntityCommon {
  type: 'LwPolyline';
  vertices: LwPolylineVertex[];
  closed: boolean;
  elevation: number;
}
export interface InsertEntity extends EntityCommon {
  type: 'Insert';
  /** Block name. */
  name: string;
  position: Point3;
  scale: Point3;
  rotation: number;
}
export interface ImageEntity extends EntityCommon {
  type: 'Image';
  /** Lower-left corner. */
  position: Point3;
  /** One pixel's width and height vectors, in drawing units. */
  u_vector: Point3;
  v_vector: Point3;
  /** Pixels: [width, height]. */
  size: [number, number];
  /** Handle of the IMAGEDEF object. */
  image_def: string;
}
/** An entity type the engine does not model: kept as the file had it, handle and layer read from its tags. */
export interface RawEntity extends EntityCommon {
  type: 'Raw';
  /** DXF type name, e.g. HATCH, SPLINE, DIMENSION. */
  dxf_type: string;
  /** Every tag of the entity after its `0 <TYPE>` line, including handle, owner and layer. */
  tags: DxfTag[];
}

export type Entity =
  | LineEntity
  | CircleEntity
  | ArcEntity
  | TextEntity
  | MTextEntity
  | PointEntity
  | LwPolylineEntity
  | InsertEntity
  | ImageEntity
  | RawEntity;

export interface Layer {
  name: string;
  handle: string;
  /** ACI colour; a layer that is off is stored with a negative colour in DXF, kept here as `off`. */
  color: number;
  linetype: string;
  lineweight: number;
  off: boolean;
  frozen: boolean;
  locked: boolean;
  /** Unmodeled tags of the LAYER record. */
  extra?: DxfTag[];
}

export interface Block {
  name: string;
  /** Handle of the BLOCK_RECORD table entry. */
  record_handle: string;
  /** Handles of the BLOCK and ENDBLK entities. */
  block_handle: string;
  end_handle: string;
  base: Point3;
  layer: string;
  /** Block type flags (group code 70). */
  flags: number;
  /** Entities of the block, in order. */
  entities: string[];
  /** Unmodeled tags of the BLOCK entity and of its BLOCK_RECORD. */
  extra?: DxfTag[];
  record_extra?: DxfTag[];
}

export interface PageSetup {
  paper: string;
  orientation: 'portrait' | 'landscape';
  fit: boolean;
  center: boolean;
  /** Drawing units per paper unit, when not fitted: [paper, drawing]. */
  scale: [number, number];
}

export interface Layout {
  name: string;
  /** Handle of the LAYOUT object. */
  handle: string;
  /** Name of its block record (`*Model_Space`, `*Paper_Space`, `*Paper_Space0`...). */
  block: string;
  tab_order: number;
  page_setup: PageSetup;
  extra?: DxfTag[];
}

export interface Group {
  name: string;
  handle: string;
  description: string;
  handles: string[];
}

/** A table record or object the engine keeps without modeling it. */
export interface RawRecord {
  /** DXF type, e.g. LTYPE, STYLE, DICTIONARY, IMAGEDEF. */
  type: string;
  handle: string | undefined;
  tags: DxfTag[];
}

export interface DxfDocumentModel {
  /** $ACADVER of the file read (written as at least AC1015). */
  version: string;
  /** Header variables by name (with `$`): their value tags, kept as text. */
  header: Record<string, DxfTag[]>;
  /** Next free handle, as a number (the $HANDSEED). */
  handseed: number;
  /** The CLASSES section, raw. */
  classes: DxfTag[];
  layers: Record<string, Layer>;
  /** Other table records by table name (LTYPE, STYLE, VIEW, UCS, VPORT, DIMSTYLE, APPID...), raw. */
  tables: Record<string, RawRecord[]>;
  /** Handles of the TABLE heads, by table name, so a save keeps them. */
  table_handles: Record<string, string>;
  appids: string[];
  blocks: Record<string, Block>;
  layouts: Record<string, Layout>;
  groups: Record<string, Group>;
  /** Entities by handle. */
  entities: Record<string, Entity>;
  /** Drawing order of model and paper space entities (block contents are in `Block.entities`). */
  order: string[];
  /** OBJECTS section records the engine does not model, raw. */
  objects: RawRecord[];
}
