/**
 * What the editor engine offers, as the `capabilities` operation answers it, and the limits the
 * dispatcher and the DXF reader enforce (exported one by one so they have one source).
 */
import { MAX_EXPANDED_ENTITIES } from './expansion.js';
import { MODELED_TYPES, type ModeledType } from './model.js';
import { PAPER_SIZES } from './paper.js';
import { ACADVER_VALUES, SYSVARS } from './sysvars.js';

/** The envelope protocol version. */
export const EDITOR_PROTOCOL = 1;

/** Every operation of the protocol-1 dispatcher. */
export const EDITOR_OPS = [
  'new',
  'open',
  'close',
  'activate',
  'save',
  'state',
  'capabilities',
  'entities_create',
  'entities_delete',
  'entities_transform',
  'entities_copy_to',
  'set_properties',
  'property',
  'query',
  'xdata_get',
  'xdata_set',
  'block_define',
  'block_delete',
  'group_create',
  'selection_set_save',
  'selection_set_load',
  'layout_create',
  'page_setup_set',
  'sysvar',
  'layers',
  'header',
  'records',
  'file_identity',
  'undo',
  'redo',
  'get_selection',
  'plot',
  'wblock',
  'embed_image',
  'run',
  'batch',
  'events',
  'operation',
  'cancel',
  'view_focus',
  'getpoint',
  'user_select',
  'hello',
  'select',
  'measure',
  'entities',
  'commands',
  'history',
  'capture',
] as const;
export type EditorOp = (typeof EDITOR_OPS)[number];

const opSet: ReadonlySet<string> = new Set(EDITOR_OPS);
export function isEditorOp(name: unknown): name is EditorOp {
  return typeof name === 'string' && opSet.has(name);
}

/** Comparison operators of `query.where`. */
export const QUERY_OPERATORS = [
  'eq',
  'ne',
  'lt',
  'lte',
  'gt',
  'gte',
  'contains',
  'starts_with',
  'ends_with',
  'in',
  'exists',
  'not_exists',
] as const;
export type QueryOperator = (typeof QUERY_OPERATORS)[number];

/** `query.detail` values; `geometry` is the default. */
export const DETAIL_LEVELS = ['geometry', 'summary', 'full'] as const;
export type DetailLevel = (typeof DETAIL_LEVELS)[number];
export const DEFAULT_DETAIL: DetailLevel = 'geometry';

/** `entities_transform.action` values. */
export const TRANSFORM_ACTIONS = ['move', 'copy', 'rotate', 'scale', 'mirror', 'array'] as const;
type TransformAction = (typeof TRANSFORM_ACTIONS)[number];

/**
 * Extended data group codes `xdata_set` accepts: 1000 string, 1002 control string `{`/`}`, 1003 layer
 * name, 1004 binary chunk, 1005 handle, 1010-1013 points, 1040 real, 1041 distance, 1042 scale
 * factor, 1070 16-bit integer, 1071 32-bit integer. (1001, the APPID, is given as `app`.)
 */
export const XDATA_GROUP_CODES = [
  1000, 1002, 1003, 1004, 1005, 1010, 1011, 1012, 1013, 1040, 1041, 1042, 1070, 1071,
] as const;
const xdataSet: ReadonlySet<number> = new Set(XDATA_GROUP_CODES);
export function isXdataGroupCode(code: unknown): code is (typeof XDATA_GROUP_CODES)[number] {
  return typeof code === 'number' && xdataSet.has(code);
}

/** Longest `request_id`, in UTF-8 bytes. */
export const REQUEST_ID_MAX_BYTES = 128;
/** `query.limit` when not given, and its largest value. */
export const QUERY_LIMIT_DEFAULT = 1000;
export const QUERY_LIMIT_MAX = 10_000;
/** Most steps in one `batch`. */
export const BATCH_MAX_STEPS = 64;
/**
 * The most group codes one entity may hold: a HATCH of 80,000 edges, a spline of 250,000 points. A
 * file of 30 MB can hold one HATCH of a million edges, whose tags alone took the reader past a 256 MB
 * heap; refused before they are copied (docs/security.md#the-editor).
 */
export const MAX_ENTITY_TAGS = 500_000;

/** Largest DXF file `open` reads: 256 MiB. */
export const MAX_DXF_BYTES = 256 * 1024 * 1024;
/** Largest request body the HTTP transport passes on: 16 MiB. */
export const MAX_REQUEST_BODY_BYTES = 16 * 1024 * 1024;

/**
 * $ACADVER values `open` reads: R2.5 (AC1003), R2.6 (AC1006), then R12 (AC1009) to R2018 (AC1032); ASCII
 * or binary DXF. The older ones are read as R12 is (no subclass markers, no handles needed).
 */
export const DXF_READ_VERSIONS = ['AC1003', 'AC1006', ...ACADVER_VALUES] as const;
/** Oldest $ACADVER `save` writes. */
export const DXF_WRITE_MIN_VERSION = 'AC1015';

interface Capabilities {
  protocol: typeof EDITOR_PROTOCOL;
  version: string;
  ops: EditorOp[];
  entity_types: ModeledType[];
  query: {
    operators: QueryOperator[];
    detail_levels: DetailLevel[];
    default_detail: DetailLevel;
  };
  transform_actions: TransformAction[];
  xdata: { group_codes: number[] };
  limits: {
    request_id_max_bytes: number;
    query_limit_default: number;
    query_limit_max: number;
    batch_max_steps: number;
    max_dxf_bytes: number;
    max_request_body_bytes: number;
    /** The most entities one plot, capture or measurement expands block references to (expansion.ts). */
    max_expanded_entities: number;
    /** The most group codes one entity of a DXF file may hold (`dxf_too_large` past it). */
    max_entity_tags: number;
  };
  dxf: { read_versions: string[]; write_min_version: string };
  /** Names `page_setup_set.paper` accepts (each also by its media name). */
  papers: string[];
  /** Names `sysvar` reads and sets. */
  sysvars: string[];
}

/** The `capabilities` answer of an engine of version `version`. Fresh arrays every call. */
export function capabilities(version: string): Capabilities {
  return {
    protocol: EDITOR_PROTOCOL,
    version,
    ops: [...EDITOR_OPS],
    entity_types: [...MODELED_TYPES],
    query: {
      operators: [...QUERY_OPERATORS],
      detail_levels: [...DETAIL_LEVELS],
      default_detail: DEFAULT_DETAIL,
    },
    transform_actions: [...TRANSFORM_ACTIONS],
    xdata: { group_codes: [...XDATA_GROUP_CODES] },
    limits: {
      request_id_max_bytes: REQUEST_ID_MAX_BYTES,
      query_limit_default: QUERY_LIMIT_DEFAULT,
      query_limit_max: QUERY_LIMIT_MAX,
      batch_max_steps: BATCH_MAX_STEPS,
      max_dxf_bytes: MAX_DXF_BYTES,
      max_request_body_bytes: MAX_REQUEST_BODY_BYTES,
      max_expanded_entities: MAX_EXPANDED_ENTITIES,
      max_entity_tags: MAX_ENTITY_TAGS,
    },
    dxf: { read_versions: [...DXF_READ_VERSIONS], write_min_version: DXF_WRITE_MIN_VERSION },
    papers: PAPER_SIZES.map((p) => p.name),
    sysvars: SYSVARS.map((d) => d.name),
  };
}
