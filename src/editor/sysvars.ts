/**
 * System variables the `sysvar` operation reads and sets: real AutoCAD variables with their type,
 * range, initial value (acad.dwt, and acadiso.dwt where it differs), where a drawing keeps them
 * (the DXF HEADER as `$NAME`, the active VPORT record, or nowhere: session only) and how their
 * value is written as DXF group-code tags.
 *
 * Sources: the AutoCAD system variable reference (type, range, initial value, read-only) and the
 * DXF reference HEADER section (group codes, first and last DXF version carrying the variable).
 */
import { EditorError } from './errors.js';
import type { DxfTag, Point2, Point3, SysvarType, SysvarValue, SysvarValueOf } from './model.js';

/** The value types are the event catalog's (a sysvar change carries its value). */
export type { SysvarValue };

/**
 * Where a drawing keeps the variable: `header` = the DXF HEADER section, `vport` = the `*Active`
 * VPORT table record, `session` = not in the drawing (AutoCAD keeps it in the registry or not at all).
 */
type SysvarStorage = 'header' | 'vport' | 'session';

/** How the variable is written in the DXF HEADER section. */
interface HeaderBinding {
  /** `$NAME`. */
  variable: string;
  /** Group codes of the value tags, in order: one code, or 10/20 (2D) and 10/20/30 (3D) for points. */
  codes: readonly number[];
  /** First $ACADVER whose header has it (absent: since R12, AC1009). */
  since?: string;
  /** Last $ACADVER whose header has it (absent: still written). */
  until?: string;
}

/** Group codes of the variable in the `*Active` VPORT table record. */
interface VportBinding {
  codes: readonly number[];
}

/** Symbol tables a string variable can name a record of. */
type SysvarTable = 'layer' | 'linetype' | 'text_style';

/** Checked forms of string variables that are not table names. */
type SysvarStringFormat = 'guid' | 'handle' | 'codepage';

interface SysvarBase<T extends SysvarType> {
  /** Uppercase, without `$`. */
  name: string;
  type: T;
  description: string;
  /** Initial value of a new imperial drawing (acad.dwt). */
  default: SysvarValueOf[T];
  /** Initial value of a new metric drawing (acadiso.dwt), where it differs. */
  metric?: SysvarValueOf[T];
  /** Set by the program only; `sysvar set` refuses it. */
  readOnly: boolean;
  storage: SysvarStorage;
  header?: HeaderBinding;
  vport?: VportBinding;
}

interface IntSysvar extends SysvarBase<'int'> {
  min: number;
  max: number;
  /** When given, only these values are valid. */
  allowed?: readonly number[];
  /** Values inside min..max that are not valid (SPLINESEGS: 0). */
  excluded?: readonly number[];
  /** The value is a sum of flags; every value in min..max is a valid combination. */
  bitcode?: boolean;
  /** Words accepted in place of numbers (case-insensitive), e.g. BYLAYER = 256 for CECOLOR. */
  names?: Readonly<Record<string, number>>;
}

interface RealSysvar extends SysvarBase<'real'> {
  min?: number;
  /** `min` itself is not valid (LTSCALE > 0). */
  minExclusive?: boolean;
  max?: number;
}

interface StringSysvar extends SysvarBase<'string'> {
  /** When given, only these values are valid (compared case-insensitively, answered as spelled here). */
  allowed?: readonly string[];
  /** The value names a record of this table (checked through the context's `findRecord`). */
  refers?: SysvarTable;
  /** Words valid without a table record (CELTYPE: ByLayer, ByBlock), answered as spelled here. */
  names?: readonly string[];
  format?: SysvarStringFormat;
}

type Point2Sysvar = SysvarBase<'point2'>;
type Point3Sysvar = SysvarBase<'point3'>;
type BoolSysvar = SysvarBase<'bool'>;

export type SysvarDef = IntSysvar | RealSysvar | StringSysvar | Point2Sysvar | Point3Sysvar | BoolSysvar;

type SysvarErrorCode = 'unknown_sysvar' | 'invalid_sysvar_value';

/** A failure of the sysvar tables; an EditorError, so the dispatcher answers it with its `code`. */
export class SysvarError extends EditorError {
  declare readonly code: SysvarErrorCode;
  constructor(
    code: SysvarErrorCode,
    /** The variable name as given (unknown_sysvar) or as defined (invalid_sysvar_value). */
    readonly variable: string,
    message: string,
  ) {
    super(code, message);
  }
}

export class UnknownSysvarError extends SysvarError {
  constructor(name: unknown) {
    const shown = typeof name === 'string' ? name : showValue(name);
    super('unknown_sysvar', shown, `unknown system variable ${showValue(name)}`);
  }
}

export class InvalidSysvarValueError extends SysvarError {
  readonly value: unknown;
  /** What the variable accepts, in words. */
  readonly allowed: string;
  constructor(def: SysvarDef, value: unknown, reason?: string) {
    const allowed = describeAllowed(def);
    super(
      'invalid_sysvar_value',
      def.name,
      `invalid value ${showValue(value)} for ${def.name}: ${reason ? `${reason}; ` : ''}allowed: ${allowed}`,
    );
    this.value = value;
    this.allowed = allowed;
  }
}

/** What `parseSysvarValue` can ask of the document. */
export interface SysvarContext {
  /**
   * The record of `table` named `name` (compared case-insensitively, as DXF names are), answered as
   * the document spells it; undefined when there is none. Without it, names are checked for form only.
   */
  findRecord?: (table: SysvarTable, name: string) => string | undefined;
  /** The engine itself setting a read-only variable (HANDSEED, EXTMIN at save): skips the read-only check. */
  allowReadOnly?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

const R2000 = 'AC1015';
const R2004 = 'AC1018';

/** $ACADVER values of the DXF versions the engine reads (R12 to R2018). */
export const ACADVER_VALUES = [
  'AC1009',
  'AC1012',
  'AC1014',
  'AC1015',
  'AC1018',
  'AC1021',
  'AC1024',
  'AC1027',
  'AC1032',
] as const;

/** Lineweights in 1/100 mm that AutoCAD accepts, after -3 DEFAULT, -2 BYBLOCK, -1 BYLAYER. */
const LINEWEIGHTS = [
  0, 5, 9, 13, 15, 18, 20, 25, 30, 35, 40, 50, 53, 60, 70, 80, 90, 100, 106, 120, 140, 158, 200, 211,
] as const;

/** PDMODE: a figure 0-4, plus 32 (circle), 64 (square) or 96 (both) around it. */
const PDMODE_VALUES = [0, 1, 2, 3, 4, 32, 33, 34, 35, 36, 64, 65, 66, 67, 68, 96, 97, 98, 99, 100];

const NIL_GUID = '{00000000-0000-0000-0000-000000000000}';

type Common = 'name' | 'type' | 'description' | 'default' | 'readOnly' | 'storage';
type Extra<D> = Partial<Omit<D, Common>>;

function hdr(variable: string, codes: readonly number[], since?: string, until?: string): HeaderBinding {
  const binding: HeaderBinding = { variable, codes };
  if (since) binding.since = since;
  if (until) binding.until = until;
  return binding;
}

/** Storage follows from the bindings unless given: header, else vport, else session. */
function storageOf(extra: { header?: HeaderBinding; vport?: VportBinding; storage?: SysvarStorage }) {
  return extra.storage ?? (extra.header ? 'header' : extra.vport ? 'vport' : 'session');
}

function int(
  name: string,
  min: number,
  max: number,
  dflt: number,
  description: string,
  extra: Extra<IntSysvar> & { storage?: SysvarStorage; readOnly?: boolean } = {},
): IntSysvar {
  const { storage, readOnly, ...rest } = extra;
  return {
    name,
    type: 'int',
    min,
    max,
    default: dflt,
    description,
    readOnly: readOnly ?? false,
    storage: storageOf({ ...rest, storage }),
    ...rest,
  };
}

/** A 0/1 integer switch kept in the header with group code 70. */
function sw(name: string, dflt: 0 | 1, description: string, extra: Extra<IntSysvar> = {}): IntSysvar {
  return int(name, 0, 1, dflt, description, { header: hdr(`$${name}`, [70]), ...extra });
}

function real(
  name: string,
  dflt: number,
  description: string,
  extra: Extra<RealSysvar> & { storage?: SysvarStorage; readOnly?: boolean } = {},
): RealSysvar {
  const { storage, readOnly, ...rest } = extra;
  return {
    name,
    type: 'real',
    default: dflt,
    description,
    readOnly: readOnly ?? false,
    storage: storageOf({ ...rest, storage }),
    ...rest,
  };
}

function str(
  name: string,
  dflt: string,
  description: string,
  extra: Extra<StringSysvar> & { storage?: SysvarStorage; readOnly?: boolean } = {},
): StringSysvar {
  const { storage, readOnly, ...rest } = extra;
  return {
    name,
    type: 'string',
    default: dflt,
    description,
    readOnly: readOnly ?? false,
    storage: storageOf({ ...rest, storage }),
    ...rest,
  };
}

function pt2(
  name: string,
  dflt: Point2,
  description: string,
  extra: Extra<Point2Sysvar> & { readOnly?: boolean } = {},
): Point2Sysvar {
  const { readOnly, ...rest } = extra;
  return {
    name,
    type: 'point2',
    default: dflt,
    description,
    readOnly: readOnly ?? false,
    storage: storageOf(rest),
    ...rest,
  };
}

function pt3(
  name: string,
  dflt: Point3,
  description: string,
  extra: Extra<Point3Sysvar> & { readOnly?: boolean } = {},
): Point3Sysvar {
  const { readOnly, ...rest } = extra;
  return {
    name,
    type: 'point3',
    default: dflt,
    description,
    readOnly: readOnly ?? false,
    storage: storageOf(rest),
    ...rest,
  };
}

/** A DXF boolean (group code 290) header variable, written 0/1. */
function flag(
  name: string,
  dflt: boolean,
  description: string,
  extra: { readOnly?: boolean } = {},
): BoolSysvar {
  return {
    name,
    type: 'bool',
    default: dflt,
    description,
    readOnly: extra.readOnly ?? false,
    storage: 'header',
    header: hdr(`$${name}`, [290], R2000),
  };
}

const defs: SysvarDef[] = [
  // --- drawing database --------------------------------------------------------------------
  str(
    'ACADVER',
    'AC1032',
    'DXF database version of the drawing: AC1009 = R12 ... AC1015 = 2000 ... AC1032 = 2018',
    {
      header: hdr('$ACADVER', [1]),
      allowed: ACADVER_VALUES,
      readOnly: true,
    },
  ),
  str('HANDSEED', '1', 'Next handle to hand out, uppercase hexadecimal; above every handle in the drawing', {
    header: hdr('$HANDSEED', [5]),
    format: 'handle',
    readOnly: true,
  }),
  str('DWGCODEPAGE', 'ANSI_1252', 'Code page of the drawing text (ANSI_1252 ...)', {
    header: hdr('$DWGCODEPAGE', [3]),
    format: 'codepage',
    readOnly: true,
  }),
  str(
    'FINGERPRINTGUID',
    NIL_GUID,
    'GUID given to the drawing when it is created; unchanged by saves (the file identity)',
    { header: hdr('$FINGERPRINTGUID', [2], R2000), format: 'guid', readOnly: true },
  ),
  str('VERSIONGUID', NIL_GUID, 'GUID of this version of the drawing; a new one at each save', {
    header: hdr('$VERSIONGUID', [2], R2000),
    format: 'guid',
  }),

  // --- current object properties -------------------------------------------------------------
  str('CLAYER', '0', 'Current layer: the layer new objects are put on', {
    header: hdr('$CLAYER', [8]),
    refers: 'layer',
  }),
  int('CECOLOR', 0, 256, 256, 'ACI colour of new objects: 0 = BYBLOCK, 1-255, 256 = BYLAYER', {
    header: hdr('$CECOLOR', [62]),
    names: { BYBLOCK: 0, BYLAYER: 256 },
  }),
  str('CELTYPE', 'ByLayer', 'Linetype of new objects: ByLayer, ByBlock or a linetype name', {
    header: hdr('$CELTYPE', [6]),
    refers: 'linetype',
    names: ['ByLayer', 'ByBlock'],
  }),
  int('CELWEIGHT', -3, 211, -1, 'Lineweight of new objects in 1/100 mm: -1 BYLAYER, -2 BYBLOCK, -3 DEFAULT', {
    header: hdr('$CELWEIGHT', [370], R2000),
    allowed: [-3, -2, -1, ...LINEWEIGHTS],
    names: { BYLAYER: -1, BYBLOCK: -2, DEFAULT: -3 },
  }),
  real('CELTSCALE', 1, 'Linetype scale of new objects, multiplied by LTSCALE', {
    header: hdr('$CELTSCALE', [40], R2000),
    min: 0,
    minExclusive: true,
  }),
  real('THICKNESS', 0, '3D thickness of new objects', { header: hdr('$THICKNESS', [40]) }),
  real('ELEVATION', 0, 'Elevation of new objects above the current UCS', { header: hdr('$ELEVATION', [40]) }),

  // --- linetypes and lineweights -----------------------------------------------------------------
  real('LTSCALE', 1, 'Global linetype scale factor', {
    header: hdr('$LTSCALE', [40]),
    min: 0,
    minExclusive: true,
  }),
  sw('PSLTSCALE', 1, 'Paper space linetype scaling: 1 = scale linetypes by the viewport scale'),
  flag('LWDISPLAY', false, 'Whether lineweights are displayed'),
  sw('PLINEGEN', 0, 'Linetype pattern around 2D polyline vertices: 1 = continuous along the whole polyline'),

  // --- units -------------------------------------------------------------------------------------
  int(
    'INSUNITS',
    0,
    24,
    1,
    'Drawing units for inserted blocks and images: 0 unitless, 1 in, 2 ft, 4 mm, 5 cm, 6 m ...',
    {
      header: hdr('$INSUNITS', [70], R2000),
      metric: 4,
    },
  ),
  int(
    'LUNITS',
    1,
    5,
    2,
    'Linear units: 1 scientific, 2 decimal, 3 engineering, 4 architectural, 5 fractional',
    {
      header: hdr('$LUNITS', [70]),
    },
  ),
  int('LUPREC', 0, 8, 4, 'Display precision of linear units (decimal places)', {
    header: hdr('$LUPREC', [70]),
  }),
  int(
    'AUNITS',
    0,
    4,
    0,
    "Angular units: 0 decimal degrees, 1 deg/min/sec, 2 gradians, 3 radians, 4 surveyor's",
    {
      header: hdr('$AUNITS', [70]),
    },
  ),
  int('AUPREC', 0, 8, 0, 'Display precision of angular units (decimal places)', {
    header: hdr('$AUPREC', [70]),
  }),
  real('ANGBASE', 0, 'Direction of angle 0 relative to the current UCS', { header: hdr('$ANGBASE', [50]) }),
  sw('ANGDIR', 0, 'Direction of positive angles: 0 counterclockwise, 1 clockwise'),
  int('MEASUREMENT', 0, 1, 0, 'Measurement system for hatch patterns and linetypes: 0 imperial, 1 metric', {
    header: hdr('$MEASUREMENT', [70], R2000),
    metric: 1,
  }),
  sw('UNITMODE', 0, 'Unit display: 0 as reported, 1 as entered (fractions, feet and inches without spaces)'),

  // --- extents, limits, insertion base -------------------------------------------------------------
  pt3('EXTMIN', [1e20, 1e20, 1e20], 'Lower-left corner of the drawing extents, world coordinates', {
    header: hdr('$EXTMIN', [10, 20, 30]),
    readOnly: true,
  }),
  pt3('EXTMAX', [-1e20, -1e20, -1e20], 'Upper-right corner of the drawing extents, world coordinates', {
    header: hdr('$EXTMAX', [10, 20, 30]),
    readOnly: true,
  }),
  pt2('LIMMIN', [0, 0], 'Lower-left corner of the drawing limits of the current space', {
    header: hdr('$LIMMIN', [10, 20]),
  }),
  pt2('LIMMAX', [12, 9], 'Upper-right corner of the drawing limits of the current space', {
    header: hdr('$LIMMAX', [10, 20]),
    metric: [420, 297],
  }),
  sw('LIMCHECK', 0, 'Refuse objects outside the drawing limits: 0 off, 1 on'),
  pt3('INSBASE', [0, 0, 0], 'Insertion base point of the drawing when inserted or referenced elsewhere', {
    header: hdr('$INSBASE', [10, 20, 30]),
  }),

  // --- drafting aids ------------------------------------------------------------------------------
  int(
    'OSMODE',
    0,
    32767,
    4133,
    'Running object snaps: bitcode of END 1, MID 2, CEN 4 ... PAR 8192; 16384 = suppressed',
    {
      bitcode: true,
      storage: 'session',
      header: hdr('$OSMODE', [70], undefined, 'AC1009'),
    },
  ),
  sw('ORTHOMODE', 0, 'Ortho mode: cursor movement constrained to horizontal and vertical'),
  int('SNAPMODE', 0, 1, 0, 'Snap mode of the active viewport: 0 off, 1 on', { vport: { codes: [75] } }),
  int('GRIDMODE', 0, 1, 1, 'Grid display of the active viewport: 0 off, 1 on', { vport: { codes: [76] } }),
  pt2('SNAPUNIT', [0.5, 0.5], 'Snap spacing in x and y of the active viewport', {
    vport: { codes: [14, 24] },
    metric: [10, 10],
  }),
  pt2('GRIDUNIT', [0.5, 0.5], 'Grid spacing in x and y of the active viewport', {
    vport: { codes: [15, 25] },
    metric: [10, 10],
  }),
  int('PICKBOX', 0, 50, 3, 'Object selection target height in pixels', { storage: 'session' }),
  int('APERTURE', 1, 50, 10, 'Object snap target height in pixels', { storage: 'session' }),
  int('CMDECHO', 0, 1, 1, 'Echo of prompts and input during scripted commands: 0 off, 1 on', {
    storage: 'session',
  }),
  int('HIGHLIGHT', 0, 1, 1, 'Highlighting of selected objects: 0 off, 1 on', { storage: 'session' }),

  // --- display and regeneration -------------------------------------------------------------------
  sw('MIRRTEXT', 0, 'Text mirrored by MIRROR: 0 keeps text direction, 1 mirrors text'),
  sw('FILLMODE', 1, 'Fill of hatches, 2D solids and wide polylines: 0 off, 1 on'),
  sw('QTEXTMODE', 0, 'Quick text: 0 text displayed, 1 text shown as boxes'),
  sw('REGENMODE', 1, 'Automatic regeneration: 0 off, 1 on'),
  int('ATTMODE', 0, 2, 1, 'Attribute display: 0 off, 1 normal (visible attributes), 2 all on', {
    header: hdr('$ATTMODE', [70]),
  }),
  int('PDMODE', 0, 100, 0, 'Point display: figure 0-4 (1 = none), plus 32 circle, 64 square, 96 both', {
    header: hdr('$PDMODE', [70]),
    allowed: PDMODE_VALUES,
  }),
  real(
    'PDSIZE',
    0,
    'Point display size: 0 = 5% of the view height, > 0 absolute, < 0 percent of the viewport',
    {
      header: hdr('$PDSIZE', [40]),
    },
  ),
  sw('PELLIPSE', 0, 'ELLIPSE creates: 0 true ellipses, 1 polyline approximations'),
  sw('SPLFRAME', 0, 'Display of spline control frames and invisible 3D face edges: 0 off, 1 on'),
  int('SPLINETYPE', 5, 6, 6, 'Curve of spline-fit polylines: 5 quadratic B-spline, 6 cubic B-spline', {
    header: hdr('$SPLINETYPE', [70]),
  }),
  int('SPLINESEGS', -32768, 32767, 8, 'Segments per spline-fit polyline span; negative = arcs', {
    header: hdr('$SPLINESEGS', [70]),
    excluded: [0],
  }),
  int('SURFTAB1', 2, 32766, 6, 'Tabulations of RULESURF and TABSURF; M density of REVSURF and EDGESURF', {
    header: hdr('$SURFTAB1', [70]),
  }),
  int('SURFTAB2', 2, 32766, 6, 'N density of REVSURF and EDGESURF meshes', {
    header: hdr('$SURFTAB2', [70]),
  }),
  sw('VISRETAIN', 1, 'Xref-dependent layer properties: 1 = kept in the host drawing'),
  sw('WORLDVIEW', 1, 'UCS of 3D view input: 1 = world coordinates'),
  int(
    'SORTENTS',
    0,
    127,
    127,
    'Object sort order by draw order for selection, snaps, regen, plot ...: bitcode',
    {
      header: hdr('$SORTENTS', [280], R2004),
      bitcode: true,
    },
  ),
  int('INDEXCTL', 0, 3, 0, 'Layer and spatial indexes saved: 0 none, 1 layer, 2 spatial, 3 both', {
    header: hdr('$INDEXCTL', [280], R2004),
  }),
  int('PROXYGRAPHICS', 0, 1, 1, 'Images of proxy objects saved in the drawing: 0 no, 1 yes', {
    header: hdr('$PROXYGRAPHICS', [70], R2000),
  }),
  flag('XEDIT', true, 'Whether the drawing can be edited in place when referenced by another drawing'),
  flag('EXTNAMES', true, 'Named objects may have long names (255 characters, spaces, most punctuation)'),
  flag('PSTYLEMODE', true, 'Plot style mode: true = colour-dependent, false = named plot styles', {
    readOnly: true,
  }),

  // --- text, dimensions, polylines -------------------------------------------------------------------
  real('TEXTSIZE', 0.2, 'Default height of new text in the current text style', {
    header: hdr('$TEXTSIZE', [40]),
    metric: 2.5,
    min: 0,
    minExclusive: true,
  }),
  str('TEXTSTYLE', 'Standard', 'Current text style name', {
    header: hdr('$TEXTSTYLE', [7]),
    refers: 'text_style',
  }),
  real('DIMSCALE', 1, 'Overall scale of dimension sizes; 0 = derived from the paper space viewport scale', {
    header: hdr('$DIMSCALE', [40]),
    min: 0,
  }),
  str('DIMSTYLE', 'Standard', 'Current dimension style name (changed with the DIMSTYLE command)', {
    header: hdr('$DIMSTYLE', [2]),
    metric: 'ISO-25',
    readOnly: true,
  }),
  real('DIMASZ', 0.18, 'Size of dimension and leader arrowheads', {
    header: hdr('$DIMASZ', [40]),
    metric: 2.5,
    min: 0,
  }),
  real('DIMTXT', 0.18, 'Height of dimension text unless the text style has a fixed height', {
    header: hdr('$DIMTXT', [40]),
    metric: 2.5,
    min: 0,
    minExclusive: true,
  }),
  real('PLINEWID', 0, 'Default width of new polylines', { header: hdr('$PLINEWID', [40]), min: 0 }),

  // --- edit commands ------------------------------------------------------------------------------------
  real('CHAMFERA', 0, 'First chamfer distance', { header: hdr('$CHAMFERA', [40]), min: 0 }),
  real('CHAMFERB', 0, 'Second chamfer distance', { header: hdr('$CHAMFERB', [40]), min: 0 }),
  real('FILLETRAD', 0, 'Current fillet radius for 2D objects', { header: hdr('$FILLETRAD', [40]), min: 0 }),

  // --- layouts -------------------------------------------------------------------------------------------
  sw('TILEMODE', 1, 'Current space: 1 model space tab, 0 a layout (paper space) tab'),
  int('MAXACTVP', 2, 64, 64, 'Maximum number of viewports active at one time in a layout', {
    header: hdr('$MAXACTVP', [70]),
  }),

  // --- user variables --------------------------------------------------------------------------------------
  int('USERI1', -32768, 32767, 0, 'Integer stored in the drawing for programs', {
    header: hdr('$USERI1', [70]),
  }),
  real('USERR1', 0, 'Real number stored in the drawing for programs', { header: hdr('$USERR1', [40]) }),
];

/** Every variable, sorted by name. */
export const SYSVARS: readonly SysvarDef[] = Object.freeze(
  defs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((d) => Object.freeze(d)),
);

const byName = new Map<string, SysvarDef>(SYSVARS.map((d) => [d.name, d]));
const byHeader = new Map<string, SysvarDef>(
  SYSVARS.flatMap((d) => (d.header ? [[d.header.variable, d] as const] : [])),
);

/** The variable named `name` (case-insensitive; a leading `$` is allowed), or undefined. */
export function findSysvar(name: string): SysvarDef | undefined {
  if (typeof name !== 'string') return undefined;
  const key = name.trim().toUpperCase();
  return byName.get(key.startsWith('$') ? key.slice(1) : key);
}

/** The variable named `name`, or an `unknown_sysvar` error. */
export function getSysvar(name: unknown): SysvarDef {
  const def = typeof name === 'string' ? findSysvar(name) : undefined;
  if (!def) throw new UnknownSysvarError(name);
  return def;
}

/** The variable kept in the DXF header as `variable` (`$LTSCALE`, case-insensitive), or undefined. */
export function findSysvarByHeader(variable: string): SysvarDef | undefined {
  return byHeader.get(variable.trim().toUpperCase());
}

/** The initial value of a new drawing, imperial (acad.dwt) or metric (acadiso.dwt). A copy. */
export function sysvarDefault<D extends SysvarDef>(
  def: D,
  system: 'imperial' | 'metric' = 'imperial',
): SysvarValueOf[D['type']] {
  const value = system === 'metric' && def.metric !== undefined ? def.metric : def.default;
  return (Array.isArray(value) ? [...value] : value) as SysvarValueOf[D['type']];
}

/** Whether a DXF file of version `acadver` carries the variable in its header. */
export function inHeaderOf(def: SysvarDef, acadver: string): boolean {
  const h = def.header;
  if (!h) return false;
  const v = acadver.toUpperCase();
  return (!h.since || v >= h.since) && (!h.until || v <= h.until);
}

// ---------------------------------------------------------------------------------------------
// Parsing request values
// ---------------------------------------------------------------------------------------------

/**
 * The value a `sysvar set` gives, checked against the variable's type and range and made typed:
 * int (integer, integer string, a name such as BYLAYER, or a boolean for 0/1 switches), real (number
 * or numeric string), string, point2 / point3 (array of numbers or "x,y[,z]"), bool (boolean, 0/1,
 * "true"/"false"/"on"/"off"). Throws InvalidSysvarValueError (`invalid_sysvar_value`), also for a
 * read-only variable unless `ctx.allowReadOnly`.
 */
export function parseSysvarValue<D extends SysvarDef>(
  def: D,
  value: unknown,
  ctx: SysvarContext = {},
): SysvarValueOf[D['type']] {
  if (def.readOnly && !ctx.allowReadOnly)
    throw new InvalidSysvarValueError(def, value, `${def.name} is read-only`);
  return parseTyped(def, value, ctx) as SysvarValueOf[D['type']];
}

function parseTyped(def: SysvarDef, value: unknown, ctx: SysvarContext): SysvarValue {
  switch (def.type) {
    case 'int':
      return parseInt16(def, value);
    case 'real':
      return parseReal(def, value);
    case 'string':
      return parseString(def, value, ctx);
    case 'point2':
      return parsePoint(def, value, 2) as Point2;
    case 'point3':
      return parsePoint(def, value, 3) as Point3;
    case 'bool':
      return parseBool(def, value);
  }
}

const INTEGER = /^[+-]?\d+$/;

function parseInt16(def: IntSysvar, value: unknown): number {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'boolean' && def.min === 0 && def.max === 1) n = value ? 1 : 0;
  else if (typeof value === 'string') {
    const text = value.trim();
    if (INTEGER.test(text)) n = Number(text);
    else if (def.names) {
      const key = Object.keys(def.names).find((k) => k === text.toUpperCase());
      if (key !== undefined) n = def.names[key];
    }
  }
  if (n === undefined || !Number.isFinite(n)) throw new InvalidSysvarValueError(def, value, 'not an integer');
  if (!Number.isInteger(n)) throw new InvalidSysvarValueError(def, value, 'not an integer');
  if (n < def.min || n > def.max) throw new InvalidSysvarValueError(def, value, 'out of range');
  if (def.allowed && !def.allowed.includes(n))
    throw new InvalidSysvarValueError(def, value, 'not an allowed value');
  if (def.excluded?.includes(n)) throw new InvalidSysvarValueError(def, value, 'not an allowed value');
  return n === 0 ? 0 : n; // no -0
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function parseReal(def: RealSysvar, value: unknown): number {
  const n = toNumber(value);
  if (n === undefined) throw new InvalidSysvarValueError(def, value, 'not a finite number');
  if (def.min !== undefined && (def.minExclusive ? n <= def.min : n < def.min))
    throw new InvalidSysvarValueError(def, value, 'out of range');
  if (def.max !== undefined && n > def.max) throw new InvalidSysvarValueError(def, value, 'out of range');
  return n === 0 ? 0 : n;
}

/** Characters DXF symbol table names may not hold (R2000 and later, EXTNAMES = 1). */
const BAD_NAME_CHARS = /[<>/\\":;?*|=`\p{Cc}]/u;
const GUID = /^(\{)?([0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12})(\})?$/i;
const HANDLE = /^[0-9A-F]{1,16}$/i;
const CODEPAGE = /^[A-Z0-9_-]{1,32}$/i;

function parseString(def: StringSysvar, value: unknown, ctx: SysvarContext): string {
  if (typeof value !== 'string') throw new InvalidSysvarValueError(def, value, 'not a string');
  if (def.allowed) {
    const hit = def.allowed.find((a) => a.toUpperCase() === value.trim().toUpperCase());
    if (hit === undefined) throw new InvalidSysvarValueError(def, value, 'not an allowed value');
    return hit;
  }
  const named = def.names?.find((n) => n.toUpperCase() === value.trim().toUpperCase());
  if (named !== undefined) return named;
  switch (def.format) {
    case 'guid': {
      const m = GUID.exec(value.trim());
      if (!m || Boolean(m[1]) !== Boolean(m[3]) || m[2] === undefined)
        throw new InvalidSysvarValueError(def, value, 'not a GUID');
      return `{${m[2].toUpperCase()}}`;
    }
    case 'handle':
      if (!HANDLE.test(value.trim()))
        throw new InvalidSysvarValueError(def, value, 'not a hexadecimal handle');
      return value.trim().toUpperCase();
    case 'codepage':
      if (!CODEPAGE.test(value.trim())) throw new InvalidSysvarValueError(def, value, 'not a code page name');
      return value.trim();
    case undefined:
      break;
  }
  if (def.refers) {
    if (value === '' || value.length > 255 || BAD_NAME_CHARS.test(value) || value.trim() !== value)
      throw new InvalidSysvarValueError(def, value, 'not a valid table record name');
    if (ctx.findRecord) {
      const found = ctx.findRecord(def.refers, value);
      if (found === undefined)
        throw new InvalidSysvarValueError(def, value, `no ${tableWords[def.refers]} of that name`);
      return found;
    }
  }
  return value;
}

const tableWords: Record<SysvarTable, string> = {
  layer: 'layer',
  linetype: 'linetype',
  text_style: 'text style',
};

function parsePoint(def: Point2Sysvar | Point3Sysvar, value: unknown, dims: 2 | 3): number[] {
  let items: unknown[] | undefined;
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string') items = value.split(',');
  const nums = items?.map((v) => (typeof v === 'number' || typeof v === 'string' ? toNumber(v) : undefined));
  if (!nums || nums.length < 2 || nums.length > 3 || nums.some((n) => n === undefined))
    throw new InvalidSysvarValueError(def, value, 'not a point');
  const [x, y, z = 0] = nums as number[];
  if (dims === 2) {
    if (z !== 0) throw new InvalidSysvarValueError(def, value, 'a 2D point has no z');
    return [x ?? 0, y ?? 0];
  }
  return [x ?? 0, y ?? 0, z];
}

function parseBool(def: BoolSysvar, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === '1' || text === 'true' || text === 'on') return true;
    if (text === '0' || text === 'false' || text === 'off') return false;
  }
  throw new InvalidSysvarValueError(def, value, 'not a boolean');
}

/** What the variable accepts, in words (used in error messages and by `describeSysvar`). */
export function describeAllowed(def: SysvarDef): string {
  const ro = def.readOnly ? 'read-only; ' : '';
  switch (def.type) {
    case 'int': {
      const names = def.names
        ? ` (or ${Object.entries(def.names)
            .map(([k, v]) => `${k} = ${v}`)
            .join(', ')})`
        : '';
      if (def.allowed) return `${ro}one of ${compressRuns(def.allowed)}${names}`;
      if (def.bitcode) return `${ro}a bitcode (sum of flags) ${def.min}..${def.max}${names}`;
      const excluded = def.excluded?.length ? ` except ${def.excluded.join(', ')}` : '';
      return `${ro}an integer ${def.min}..${def.max}${excluded}${names}`;
    }
    case 'real': {
      const parts: string[] = [];
      if (def.min !== undefined) parts.push(`${def.minExclusive ? '>' : '>='} ${def.min}`);
      if (def.max !== undefined) parts.push(`<= ${def.max}`);
      return `${ro}a number${parts.length ? ` ${parts.join(' and ')}` : ''}`;
    }
    case 'string': {
      if (def.allowed) return `${ro}one of ${def.allowed.join(', ')}`;
      const names = def.names?.length ? `${def.names.join(', ')} or ` : '';
      if (def.refers) return `${ro}${names}the name of an existing ${tableWords[def.refers]}`;
      if (def.format === 'guid') return `${ro}a GUID {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`;
      if (def.format === 'handle') return `${ro}a hexadecimal handle`;
      if (def.format === 'codepage') return `${ro}a code page name such as ANSI_1252`;
      return `${ro}a string`;
    }
    case 'point2':
      return `${ro}a 2D point [x, y]`;
    case 'point3':
      return `${ro}a point [x, y] or [x, y, z]`;
    case 'bool':
      return `${ro}true or false (1 or 0)`;
  }
}

/** `0, 1, 2, 32, 33, 34` -> `0-2, 32-34`. */
function compressRuns(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const runs: string[] = [];
  let start = sorted[0];
  let prev = start;
  for (const v of [...sorted.slice(1), Number.NaN]) {
    if (prev !== undefined && v === prev + 1) {
      prev = v;
      continue;
    }
    if (start !== undefined && prev !== undefined)
      runs.push(prev - start >= 2 ? `${start}-${prev}` : start === prev ? `${start}` : `${start}, ${prev}`);
    start = v;
    prev = v;
  }
  return runs.join(', ');
}

/** A JSON description of a variable (for `capabilities` and the `sysvar` answers). */
export function describeSysvar(def: SysvarDef): {
  name: string;
  type: SysvarType;
  description: string;
  default: SysvarValue;
  metric?: SysvarValue;
  read_only: boolean;
  storage: SysvarStorage;
  header?: { variable: string; codes: number[] };
  allowed: string;
} {
  const out: ReturnType<typeof describeSysvar> = {
    name: def.name,
    type: def.type,
    description: def.description,
    default: sysvarDefault(def),
    read_only: def.readOnly,
    storage: def.storage,
    allowed: describeAllowed(def),
  };
  if (def.metric !== undefined) out.metric = sysvarDefault(def, 'metric');
  if (def.header) out.header = { variable: def.header.variable, codes: [...def.header.codes] };
  return out;
}

// ---------------------------------------------------------------------------------------------
// DXF header tags
// ---------------------------------------------------------------------------------------------

/**
 * A real as DXF writers write it: shortest round-trip digits, always with a decimal point or an
 * exponent (1 -> "1.0", 0.2 -> "0.2", 1e20 -> "1e+20").
 */
export function formatDxfReal(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  if (x === 0) return '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e15 || abs < 1e-6) return x.toExponential();
  const text = String(x);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

function valueTag(tags: readonly DxfTag[], code: number): string | undefined {
  return tags.find((t) => t.code === code)?.value;
}

/**
 * The typed value of a header variable from its value tags (`model.header['$NAME']`), or undefined
 * when the tags hold no value for it (the file did not have it: use `sysvarDefault`). The value is
 * read as the file has it, type checked but not range checked (a file may hold values this table
 * would refuse on `set`); a value that is not of the type throws `invalid_sysvar_value`.
 */
export function sysvarFromHeader<D extends SysvarDef>(
  def: D,
  tags: readonly DxfTag[] | undefined,
): SysvarValueOf[D['type']] | undefined {
  const codes = def.header?.codes ?? def.vport?.codes;
  if (!codes || !tags || tags.length === 0) return undefined;
  const first = codes[0] ?? 0;
  const raw = valueTag(tags, first);
  if (raw === undefined) return undefined;
  const bad = () =>
    new InvalidSysvarValueError(def, raw, `the file's ${def.header?.variable ?? def.name} is unreadable`);
  let out: SysvarValue;
  switch (def.type) {
    case 'int': {
      const text = raw.trim();
      if (!INTEGER.test(text)) throw bad();
      out = Number(text);
      break;
    }
    case 'real': {
      const n = toNumber(raw);
      if (n === undefined) throw bad();
      out = n;
      break;
    }
    case 'bool': {
      const text = raw.trim();
      if (!INTEGER.test(text)) throw bad();
      out = Number(text) !== 0;
      break;
    }
    case 'string':
      out = raw;
      break;
    case 'point2':
    case 'point3': {
      const xs = codes.map((c, i) => {
        const v = valueTag(tags, c);
        if (v === undefined) return i === 2 ? 0 : undefined; // a 3D point written without z
        return toNumber(v);
      });
      if (xs.some((n) => n === undefined)) throw bad();
      out = xs as number[] as Point2 | Point3;
      break;
    }
  }
  return out as SysvarValueOf[D['type']];
}

/**
 * The value tags of a header variable (what follows `9 $NAME`): integers and strings as is, reals
 * with `formatDxfReal`, booleans (290) as 0/1, points as 10/20(/30). The value is not range checked
 * here (parse it with `parseSysvarValue` first).
 */
export function sysvarToHeader<D extends SysvarDef>(def: D, value: SysvarValueOf[D['type']]): DxfTag[] {
  const binding = def.header;
  if (!binding) throw new Error(`${def.name} is not a DXF header variable (it is kept in: ${def.storage})`);
  const code = binding.codes[0] ?? 0;
  const v: SysvarValue = value;
  switch (def.type) {
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v))
        throw new InvalidSysvarValueError(def, v, 'not an integer');
      return [{ code, value: String(v) }];
    case 'real':
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new InvalidSysvarValueError(def, v, 'not a number');
      return [{ code, value: formatDxfReal(v) }];
    case 'bool':
      if (typeof v !== 'boolean') throw new InvalidSysvarValueError(def, v, 'not a boolean');
      return [{ code, value: v ? '1' : '0' }];
    case 'string':
      if (typeof v !== 'string') throw new InvalidSysvarValueError(def, v, 'not a string');
      return [{ code, value: v }];
    case 'point2':
    case 'point3': {
      if (
        !Array.isArray(v) ||
        v.length !== binding.codes.length ||
        !v.every((n) => typeof n === 'number' && Number.isFinite(n))
      )
        throw new InvalidSysvarValueError(def, v, 'not a point');
      return binding.codes.map((c, i) => ({ code: c, value: formatDxfReal(v[i] ?? 0) }));
    }
  }
}

function showValue(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
