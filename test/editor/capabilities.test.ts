import { describe, expect, it } from 'vitest';
import {
  BATCH_MAX_STEPS,
  capabilities,
  DEFAULT_DETAIL,
  DETAIL_LEVELS,
  DXF_READ_VERSIONS,
  DXF_WRITE_MIN_VERSION,
  EDITOR_OPS,
  EDITOR_PROTOCOL,
  isEditorOp,
  isXdataGroupCode,
  MAX_DXF_BYTES,
  MAX_REQUEST_BODY_BYTES,
  QUERY_LIMIT_DEFAULT,
  QUERY_LIMIT_MAX,
  QUERY_OPERATORS,
  REQUEST_ID_MAX_BYTES,
  TRANSFORM_ACTIONS,
  XDATA_GROUP_CODES,
} from '../../src/editor/capabilities.js';
import { MODELED_TYPES } from '../../src/editor/model.js';
import { PAPER_SIZES } from '../../src/editor/paper.js';
import { SYSVARS } from '../../src/editor/sysvars.js';

/** Every operation named by the REST spec (routes and envelope ops), by the protocol's op list and by the reference editor's dispatcher. */
const SPEC_OPS = [
  // documents
  'new',
  'open',
  'close',
  'activate',
  'save',
  'state',
  'capabilities',
  // entities
  'entities_create',
  'entities_delete',
  'entities_transform',
  'entities_copy_to',
  'set_properties',
  'property',
  'query',
  'xdata_get',
  'xdata_set',
  // blocks, groups, selection sets, layouts, tables
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
  // undo, selection, output
  'undo',
  'redo',
  'get_selection',
  'plot',
  'wblock',
  'embed_image',
  'run',
  // envelope-only
  'batch',
  'events',
  'operation',
  'cancel',
  'view_focus',
  'getpoint',
  'user_select',
  // the reference editor's dispatcher (docs/editor.md)
  'hello',
  'select',
  'measure',
  'entities',
  'commands',
  'history',
  'capture',
];

describe('capabilities', () => {
  const caps = capabilities('1.2.3');

  it('answers protocol 1 and the version given', () => {
    expect(caps.protocol).toBe(1);
    expect(EDITOR_PROTOCOL).toBe(1);
    expect(caps.version).toBe('1.2.3');
  });

  it('lists every operation of the spec and issue 3, once each', () => {
    expect([...caps.ops].sort()).toEqual([...SPEC_OPS].sort());
    expect(new Set(EDITOR_OPS).size).toBe(EDITOR_OPS.length);
    expect(caps.ops).toEqual([...EDITOR_OPS]);
  });

  it('tells operation names apart', () => {
    expect(isEditorOp('entities_create')).toBe(true);
    expect(isEditorOp('user_select')).toBe(true);
    expect(isEditorOp('Entities_Create')).toBe(false);
    expect(isEditorOp('drop_table')).toBe(false);
    expect(isEditorOp(undefined)).toBe(false);
    expect(isEditorOp(1)).toBe(false);
  });

  it('lists the modeled entity types', () => {
    expect(caps.entity_types).toEqual([...MODELED_TYPES]);
    expect(caps.entity_types).toEqual([
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
    ]);
  });

  it('lists query operators and detail levels', () => {
    expect(caps.query.operators).toEqual([
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
    ]);
    expect(caps.query.operators).toEqual([...QUERY_OPERATORS]);
    expect(caps.query.detail_levels).toEqual(['geometry', 'summary', 'full']);
    expect(caps.query.detail_levels).toEqual([...DETAIL_LEVELS]);
    expect(caps.query.default_detail).toBe('geometry');
    expect(DEFAULT_DETAIL).toBe('geometry');
  });

  it('lists transform actions', () => {
    expect(caps.transform_actions).toEqual(['move', 'copy', 'rotate', 'scale', 'mirror', 'array']);
    expect(caps.transform_actions).toEqual([...TRANSFORM_ACTIONS]);
  });

  it('lists the xdata group codes xdata_set accepts', () => {
    expect(caps.xdata.group_codes).toEqual([
      1000, 1002, 1003, 1004, 1005, 1010, 1011, 1012, 1013, 1040, 1041, 1042, 1070, 1071,
    ]);
    expect(caps.xdata.group_codes).toEqual([...XDATA_GROUP_CODES]);
    for (const code of XDATA_GROUP_CODES) expect(isXdataGroupCode(code)).toBe(true);
    for (const code of [1001, 1006, 1009, 1014, 1020, 1039, 1043, 1069, 1072, 999, '1000', null])
      expect(isXdataGroupCode(code), String(code)).toBe(false);
  });

  it('states the limits', () => {
    expect(caps.limits).toEqual({
      request_id_max_bytes: 128,
      query_limit_default: 1000,
      query_limit_max: 10000,
      batch_max_steps: 64,
      max_dxf_bytes: 256 * 1024 * 1024,
      max_request_body_bytes: 16 * 1024 * 1024,
      max_expanded_entities: 500_000,
      max_entity_tags: 500_000,
    });
    expect(REQUEST_ID_MAX_BYTES).toBe(128);
    expect(QUERY_LIMIT_DEFAULT).toBe(1000);
    expect(QUERY_LIMIT_MAX).toBe(10000);
    expect(BATCH_MAX_STEPS).toBe(64);
    expect(MAX_DXF_BYTES).toBe(268435456);
    expect(MAX_REQUEST_BODY_BYTES).toBe(16777216);
  });

  it('states the DXF versions read and written', () => {
    expect(caps.dxf.read_versions.slice(0, 3)).toEqual(['AC1003', 'AC1006', 'AC1009']);
    expect(caps.dxf.read_versions.at(-1)).toBe('AC1032');
    expect(caps.dxf.read_versions).toEqual([...DXF_READ_VERSIONS]);
    expect(caps.dxf.write_min_version).toBe(DXF_WRITE_MIN_VERSION);
    expect(DXF_WRITE_MIN_VERSION).toBe('AC1015');
  });

  it('lists the papers and system variables', () => {
    expect(caps.papers).toEqual(PAPER_SIZES.map((p) => p.name));
    expect(caps.papers).toContain('ISO A4');
    expect(caps.papers).toContain('ANSI E');
    expect(caps.sysvars).toEqual(SYSVARS.map((d) => d.name));
    expect(caps.sysvars.length).toBeGreaterThanOrEqual(40);
  });

  it('is plain JSON and a fresh object every call', () => {
    expect(JSON.parse(JSON.stringify(caps))).toEqual(caps);
    const other = capabilities('1.2.3');
    expect(other).toEqual(caps);
    other.ops.push('drop_table' as never);
    other.limits.batch_max_steps = 1;
    expect(capabilities('1.2.3').ops).not.toContain('drop_table');
    expect(capabilities('1.2.3').limits.batch_max_steps).toBe(64);
    expect(EDITOR_OPS).not.toContain('drop_table');
  });
});
