import type {
  ArcEntity,
  CircleEntity,
  DxfDocumentModel,
  DxfTag,
  EllipseEntity,
  Entity,
  EntityCommon,
  ImageEntity,
  InsertEntity,
  LineEntity,
  LwPolylineEntity,
  MTextEntity,
  Point3,
  PointEntity,
  RawEntity,
  TextEntity,
} from '../../../src/editor/model.js';

let serial = 0x100;
const common = (over: Partial<EntityCommon> = {}): EntityCommon => ({
  handle: (serial++).toString(16).toUpperCase(),
  space: '*Model_Space',
  layer: '0',
  color: 256,
  linetype: 'BYLAYER',
  lineweight: -1,
  ...over,
});

type Over = Partial<EntityCommon>;

export const line = (start: Point3, end: Point3, over: Over = {}): LineEntity => ({
  ...common(over),
  type: 'Line',
  start,
  end,
});
export const circle = (center: Point3, radius: number, over: Over = {}): CircleEntity => ({
  ...common(over),
  type: 'Circle',
  center,
  radius,
});
export const ellipse = (
  center: Point3,
  major_axis: Point3,
  ratio: number,
  start_param = 0,
  end_param = 2 * Math.PI,
  over: Partial<EllipseEntity> = {},
): EllipseEntity => ({
  ...common(over),
  type: 'Ellipse',
  center,
  major_axis,
  ratio,
  start_param,
  end_param,
  ...(over.extrusion ? { extrusion: over.extrusion } : {}),
});
export const arc = (
  center: Point3,
  radius: number,
  start_angle: number,
  end_angle: number,
  over: Over = {},
): ArcEntity => ({
  ...common(over),
  type: 'Arc',
  center,
  radius,
  start_angle,
  end_angle,
});
export const text = (
  value: string,
  position: Point3,
  height: number,
  rotation = 0,
  over: Over = {},
): TextEntity => ({
  ...common(over),
  type: 'Text',
  value,
  position,
  height,
  rotation,
  style: 'Standard',
});
export const mtext = (
  value: string,
  position: Point3,
  height: number,
  more: Partial<Pick<MTextEntity, 'width' | 'rotation' | 'attachment'>> = {},
  over: Over = {},
): MTextEntity => ({
  ...common(over),
  type: 'MText',
  value,
  position,
  height,
  width: 0,
  rotation: 0,
  attachment: 1,
  style: 'Standard',
  ...more,
});
export const point = (location: Point3, over: Over = {}): PointEntity => ({
  ...common(over),
  type: 'Point',
  location,
});
export const polyline = (
  vertices: Array<[number, number] | [number, number, number]>,
  closed = false,
  over: Over = {},
): LwPolylineEntity => ({
  ...common(over),
  type: 'LwPolyline',
  vertices: vertices.map(([x, y, bulge = 0]) => ({ x, y, bulge })),
  closed,
  elevation: 0,
});
export const insert = (
  name: string,
  position: Point3,
  scale: Point3 = [1, 1, 1],
  rotation = 0,
  over: Over = {},
): InsertEntity => ({
  ...common(over),
  type: 'Insert',
  name,
  position,
  scale,
  rotation,
});
export const image = (
  position: Point3,
  u: Point3,
  v: Point3,
  size: [number, number],
  over: Over = {},
): ImageEntity => ({
  ...common(over),
  type: 'Image',
  position,
  u_vector: u,
  v_vector: v,
  size,
  image_def: 'FF',
});
export const raw = (
  dxf_type: string,
  tags: Array<[number, string | number]>,
  over: Over = {},
): RawEntity => ({
  ...common(over),
  type: 'Raw',
  dxf_type,
  tags: tags.map(([code, value]): DxfTag => ({ code, value: String(value) })),
});

/** A document holding the given model/paper space entities and blocks of block-space entities. */
export function documentOf(
  entities: Entity[],
  blocks: Record<string, { base?: Point3; entities: Entity[] }> = {},
): DxfDocumentModel {
  const model: DxfDocumentModel = {
    version: 'AC1027',
    header: {},
    handseed: 0x10000,
    classes: [],
    layers: {},
    tables: {},
    table_handles: {},
    appids: [],
    blocks: {},
    layouts: {},
    groups: {},
    entities: {},
    order: [],
    objects: [],
  };
  for (const e of entities) {
    model.entities[e.handle] = e;
    model.order.push(e.handle);
  }
  for (const [name, block] of Object.entries(blocks)) {
    for (const e of block.entities) model.entities[e.handle] = { ...e, space: name };
    model.blocks[name] = {
      name,
      record_handle: (serial++).toString(16).toUpperCase(),
      block_handle: (serial++).toString(16).toUpperCase(),
      end_handle: (serial++).toString(16).toUpperCase(),
      base: block.base ?? [0, 0, 0],
      layer: '0',
      flags: 0,
      entities: block.entities.map((e) => e.handle),
    };
  }
  return model;
}

/** Points compared to 9 decimals (float noise of rotations). */
export const round = (value: unknown): unknown =>
  typeof value === 'number'
    ? Math.round(value * 1e9) / 1e9 + 0
    : Array.isArray(value)
      ? value.map(round)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, round(v)]))
        : value;
