/**
 * The document model of the headless CAD editor: what a DXF file holds, in the shape the engine
 * decides on and the projection keeps. Everything is plain JSON (it travels in events and snapshots),
 * so it is part of the event catalog: the editor's events carry it, and src/editor/model.ts passes it on.
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
  'Ellipse',
  'Text',
  'MText',
  'Point',
  'LwPolyline',
  'Insert',
  'Image',
  'Solid',
  'Trace',
  'Face3d',
  'XLine',
  'Ray',
  'Polyline',
  'Spline',
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
/**
 * An ellipse or elliptical arc, in world coordinates (DXF's ELLIPSE): the point at parameter t is
 * center + cos t·major_axis + sin t·minor_axis, where minor_axis = ratio·(extrusion × major_axis).
 */
export interface EllipseEntity extends EntityCommon {
  type: 'Ellipse';
  center: Point3;
  /** From the center to the end of the major axis; its length is the major radius. */
  major_axis: Point3;
  /** Normal of the ellipse's plane (group code 210), when the file gave one; (0, 0, 1) when absent. */
  extrusion?: Point3;
  /** Minor to major axis length, in (0, 1]. */
  ratio: number;
  /** Parameters in radians: 0 and 2π for a whole ellipse. The arc runs counter-clockwise about the extrusion. */
  start_param: number;
  end_param: number;
}
export interface TextEntity extends EntityCommon {
  type: 'Text';
  value: string;
  position: Point3;
  height: number;
  /** Degrees. */
  rotation: number;
  style: string;
  /**
   * Alignment point (group code 11), present when the text is aligned (horizontal or vertical
   * justification not left/baseline): readers place the text by this point, so a transform moves it too.
   */
  align_point?: Point3;
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
  /** Segment start and end width (group codes 40, 41), when the file gave them. */
  start_width?: number;
  end_width?: number;
}
export interface LwPolylineEntity extends EntityCommon {
  type: 'LwPolyline';
  vertices: LwPolylineVertex[];
  closed: boolean;
  elevation: number;
  /** Linetype pattern generated continuously around the vertices (flag 128). */
  plinegen?: boolean;
}
export interface InsertEntity extends EntityCommon {
  type: 'Insert';
  /** Block name. */
  name: string;
  position: Point3;
  scale: Point3;
  rotation: number;
  /**
   * The ATTRIB entities and their SEQEND that follow the INSERT in the file, as raw tags (each starting
   * with its `0 ATTRIB` / `0 SEQEND` tag). A copy may keep them as they are: on save, sub-entities
   * whose handle another one has get new handles.
   */
  attribs?: DxfTag[];
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
/**
 * A SOLID or TRACE: a filled triangle or quadrilateral in its object coordinate system (OCS), the plane
 * whose normal is `extrusion`. Its corners are in DXF's order: the outline runs 0, 1, 3, 2 (a triangle
 * repeats its third corner as the fourth). Thickness (39) and elevation (38) stay in `extra`.
 */
interface CornersEntity extends EntityCommon {
  /** OCS coordinates; z is the elevation of the plane. */
  corners: [Point3, Point3, Point3, Point3];
  /** Normal of the plane (210), when the file gave one; (0, 0, 1) when absent. */
  extrusion?: Point3;
}
export interface SolidEntity extends CornersEntity {
  type: 'Solid';
}
export interface TraceEntity extends CornersEntity {
  type: 'Trace';
}
/** A 3DFACE: three or four corners in world coordinates, its outline running 0, 1, 2, 3. */
export interface Face3dEntity extends EntityCommon {
  type: 'Face3d';
  corners: [Point3, Point3, Point3, Point3];
  /** Edges not drawn (70): bit 1 the first edge (0 to 1), 2 the second, 4 the third, 8 the fourth. */
  invisible_edges: number;
}
/** An XLINE (a line infinite both ways) or a RAY (infinite one way) through `start`, along `direction`. */
export interface XLineEntity extends EntityCommon {
  type: 'XLine';
  start: Point3;
  /** A unit vector, in world coordinates. */
  direction: Point3;
}
export interface RayEntity extends EntityCommon {
  type: 'Ray';
  start: Point3;
  direction: Point3;
}
/**
 * An old-style POLYLINE: a 2D polyline (bulges and widths, in the OCS of `extrusion` at the elevation of
 * `elevation`), a 3D polyline, a polyface mesh or a polygon mesh, as its flags (70) say. Its VERTEX and
 * SEQEND sub-entities are kept as read (`vertex_tags`) and their points read from there, so a save
 * writes them as they were; a transform rewrites their locations and widths in place. Default widths
 * (40, 41), mesh sizes (71-74), curve type (75) and thickness (39) stay in `extra`.
 */
export interface PolylineEntity extends EntityCommon {
  type: 'Polyline';
  /** 1 closed (in M for a mesh), 2 curve-fit, 4 spline-fit, 8 3D, 16 polygon mesh, 32 closed in N, 64 polyface, 128 continuous linetype. */
  flags: number;
  /** The dummy point (10) whose z is a 2D polyline's elevation, when the file gave one. */
  elevation?: Point3;
  /** Normal of a 2D polyline's plane (210), when the file gave one; (0, 0, 1) when absent. */
  extrusion?: Point3;
  /** The VERTEX and SEQEND entities that follow it, as raw tags (each from its `0 VERTEX` / `0 SEQEND`). */
  vertex_tags: DxfTag[];
}
/**
 * A SPLINE: a NURBS curve of `degree` through its `control_points` (with `knots` and, when rational,
 * `weights`), or by `fit_points` (and their end tangents) when it has no control points; world
 * coordinates. Knot, control point and fit tolerances (42-44) stay in `extra`.
 */
export interface SplineEntity extends EntityCommon {
  type: 'Spline';
  /** 1 closed, 2 periodic, 4 rational, 8 planar, 16 linear. */
  flags: number;
  degree: number;
  knots: number[];
  /** One per control point, when the file gives them (41). */
  weights?: number[];
  control_points: Point3[];
  fit_points: Point3[];
  start_tangent?: Point3;
  end_tangent?: Point3;
  /** The normal of a planar spline (210), when the file gives one. */
  extrusion?: Point3;
}
/**
 * An entity type the engine does not model: kept as the file had it. Handle, layer, colour, linetype,
 * lineweight and xdata are read from its tags into the common fields, and those fields win on save.
 */
export interface RawEntity extends EntityCommon {
  type: 'Raw';
  /** DXF type name, e.g. HATCH, SPLINE, DIMENSION. */
  dxf_type: string;
  /**
   * Every tag of the entity after its `0 <TYPE>` line, including handle, owner and layer, except its
   * xdata (in `xdata`). A POLYLINE's VERTEX and SEQEND entities follow in the same list, each from its
   * `0 VERTEX` / `0 SEQEND` tag on. Entities read from R12 files get the R2000 subclass markers and
   * owner tags here, so what is kept is what the save writes.
   */
  tags: DxfTag[];
}

export type Entity =
  | LineEntity
  | CircleEntity
  | ArcEntity
  | EllipseEntity
  | TextEntity
  | MTextEntity
  | PointEntity
  | LwPolylineEntity
  | InsertEntity
  | ImageEntity
  | SolidEntity
  | TraceEntity
  | Face3dEntity
  | XLineEntity
  | RayEntity
  | PolylineEntity
  | SplineEntity
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
  /** Bits of the record's flags (70) other than frozen (1) and locked (4), e.g. 2 = frozen in new viewports. */
  flags?: number;
  /** Unmodeled tags of the LAYER record (plot flag 290, true colour, plot style, material, xdata...). */
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
  /**
   * Entities of the block, in order. Layout blocks (`*Model_Space`, `*Paper_Space...`) keep this empty:
   * their entities are listed in `DxfDocumentModel.order`.
   */
  entities: string[];
  /** Unmodeled tags of the BLOCK entity (xref path, description, xdata...). */
  extra?: DxfTag[];
  /** Unmodeled tags of its BLOCK_RECORD (insert units, explodability, preview, xdata...). */
  record_extra?: DxfTag[];
}

export interface PageSetup {
  paper: string;
  orientation: 'portrait' | 'landscape';
  fit: boolean;
  center: boolean;
  /** Drawing units per paper unit, when not fitted: [paper, drawing]. */
  scale: [number, number];
  /**
   * Paper width and height in millimetres as the LAYOUT stores them (group codes 44, 45). When absent the
   * writer takes them from a name like `ISO_A4_(210.00_x_297.00_MM)`, else keeps what the layout had.
   */
  size?: [number, number];
}

export interface Layout {
  name: string;
  /** Handle of the LAYOUT object. */
  handle: string;
  /** Name of its block record (`*Model_Space`, `*Paper_Space`, `*Paper_Space0`...). */
  block: string;
  tab_order: number;
  page_setup: PageSetup;
  /**
   * The LAYOUT object's tags as read (after `0 LAYOUT`); on save, handle, owner, name, tab order, block
   * record and the page setup fields are written from the modeled fields over them. Absent for new layouts.
   */
  extra?: DxfTag[];
}

export interface Group {
  name: string;
  handle: string;
  description: string;
  /** Member entities. On save, members that no longer exist or are not in a layout are left out. */
  handles: string[];
  /** Selectable flag (group code 71); true when absent. */
  selectable?: boolean;
  /** Unmodeled tags of the GROUP object (extension dictionary, xdata). */
  extra?: DxfTag[];
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
  /**
   * Header variables by name (with `$`): their value tags, kept as text. $HANDSEED is not here (it is
   * `handseed`); the save writes $ACADVER from `version`.
   */
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
  /** Unmodeled tags of the TABLE heads (extension dictionaries), by table name. */
  table_extra?: Record<string, DxfTag[]>;
  /**
   * Registered application names (the APPID table). A name's record keeps its handle from
   * `tables.APPID` when there is one; names only here get a new record on save.
   */
  appids: string[];
  blocks: Record<string, Block>;
  layouts: Record<string, Layout>;
  groups: Record<string, Group>;
  /** Entities by handle. */
  entities: Record<string, Entity>;
  /**
   * Drawing order of model and paper space entities: every entity whose `space` is a layout block
   * (`*Model_Space`, `*Paper_Space`, `*Paper_SpaceN`). Block contents are in `Block.entities`.
   */
  order: string[];
  /**
   * OBJECTS section records the engine does not model, raw, in file order; the first is the root
   * dictionary. The ACAD_GROUP and ACAD_LAYOUT dictionaries stay here and get their entries from
   * `groups` and `layouts` on save.
   */
  objects: RawRecord[];
  /** Sections other than the standard six (THUMBNAILIMAGE, ACDSDATA), raw, written back after OBJECTS. */
  sections?: { name: string; tags: DxfTag[] }[];
}

export type SysvarType = 'int' | 'real' | 'string' | 'point2' | 'point3' | 'bool';
export type Point2 = [number, number];

/** The JSON value of a system variable of each type (src/editor/sysvars.ts holds the variables). */
export interface SysvarValueOf {
  int: number;
  real: number;
  string: string;
  point2: Point2;
  point3: Point3;
  bool: boolean;
}
export type SysvarValue = SysvarValueOf[SysvarType];
