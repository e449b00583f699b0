import { fail } from './errors.js';
import type {
  DxfDocumentModel,
  DxfTag,
  Entity,
  EntityCommon,
  LwPolylineVertex,
  ModeledType,
  Point3,
} from './model.js';
import { MODELED_TYPES } from './model.js';
import { nameIn, sameName } from './names.js';
import { RAW_CREATABLE, rawEntityFromInput } from './raw-entities.js';
import { isObject, number, point, positive, string, tableName } from './request.js';

/** Entity types a request may name, case-insensitively (`line`, `LINE`, `Line`). */
const TYPE_BY_NAME = new Map<string, ModeledType>(MODELED_TYPES.map((t) => [t.toLowerCase(), t]));
TYPE_BY_NAME.set('lwpolyline', 'LwPolyline');
TYPE_BY_NAME.set('polyline', 'LwPolyline');
TYPE_BY_NAME.set('mtext', 'MText');

function entityType(value: unknown): ModeledType {
  const type = typeof value === 'string' ? TYPE_BY_NAME.get(value.toLowerCase()) : undefined;
  if (type) return type;
  return fail(
    'unknown_entity_type',
    `type must be one of ${[...MODELED_TYPES, 'Hatch'].join(', ')}, got ${JSON.stringify(value ?? null)}`,
  );
}

/** A field by its name, or by the reference editor's name for it (`rotation_deg` for `rotation`...). */
const either = (input: Record<string, unknown>, name: string, alias: string) => input[name] ?? input[alias];

/** Unmodeled group codes a request may give (Line `thickness`, LwPolyline `constant_width`), as extra tags. */
function extraOf(
  input: Record<string, unknown>,
  subclass: string,
  fields: ReadonlyArray<readonly [string, number]>,
): DxfTag[] | undefined {
  const tags: DxfTag[] = [];
  for (const [field, code] of fields) {
    if (input[field] === undefined) continue;
    tags.push({ code, value: String(number(input[field], field)) });
  }
  return tags.length > 0 ? [{ code: 100, value: subclass }, ...tags] : undefined;
}

/** ACI colour 0-256 (0 BYBLOCK, 256 BYLAYER), or the names `bylayer`/`byblock`. */
export function color(value: unknown): number {
  if (value === 'bylayer' || value === 'BYLAYER') return 256;
  if (value === 'byblock' || value === 'BYBLOCK') return 0;
  if (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 256) return value as number;
  return fail(
    'invalid_property',
    `color must be an ACI number 0-256 or "bylayer"/"byblock", got ${JSON.stringify(value)}`,
  );
}

const LINEWEIGHTS = new Set([
  -3, -2, -1, 0, 5, 9, 13, 15, 18, 20, 25, 30, 35, 40, 50, 53, 60, 70, 80, 90, 100, 106, 120, 140, 158, 200,
  211,
]);

/** Lineweight in 1/100 mm from DXF's list, or -1 BYLAYER, -2 BYBLOCK, -3 default. */
export function lineweight(value: unknown): number {
  if (typeof value === 'number' && LINEWEIGHTS.has(value)) return value;
  return fail(
    'invalid_property',
    `lineweight must be one of ${[...LINEWEIGHTS].join(', ')} (1/100 mm; -1 BYLAYER, -2 BYBLOCK, -3 default), got ${JSON.stringify(value)}`,
  );
}

export function linetype(value: unknown, model: DxfDocumentModel): string {
  const name = string(value, 'linetype');
  const upper = name.toUpperCase();
  if (upper === 'BYLAYER' || upper === 'BYBLOCK' || upper === 'CONTINUOUS')
    return upper === 'CONTINUOUS' ? 'Continuous' : upper;
  // The document's spelling: DXF names are one name in any case.
  const known = (model.tables.LTYPE ?? [])
    .map((r) => r.tags.find((t) => t.code === 2)?.value)
    .find((n) => n !== undefined && sameName(n, name));
  if (known !== undefined) return known;
  return fail('invalid_property', `linetype ${JSON.stringify(name)} is not defined in the document`);
}

/**
 * A text style, as the document spells it when it defines it (STYLE table); a name it does not define is
 * taken as given (entities_create makes the style, as it makes a missing layer). `invalid_property` for a
 * name DXF cannot hold.
 */
function textStyle(value: unknown, model: DxfDocumentModel): string {
  const name = tableName(value, 'style', 'invalid_property');
  const names = (model.tables.STYLE ?? []).map((r) => r.tags.find((t) => t.code === 2)?.value ?? '');
  return names.find((n) => sameName(n, name)) ?? (name.toUpperCase() === 'STANDARD' ? 'Standard' : name);
}

/** A polyline's vertices: 2 or more, each [x, y], [x, y, bulge] or {x, y, bulge}; `invalid_vertices` otherwise. */
function vertices(value: unknown): LwPolylineVertex[] {
  if (!Array.isArray(value) || value.length < 2) {
    return fail(
      'invalid_vertices',
      `vertices must be an array of at least 2 points, got ${JSON.stringify(value ?? null)}`,
    );
  }
  return value.map((v, i) => {
    if (isObject(v)) {
      return {
        x: number(v.x, `vertices[${i}].x`, 'invalid_vertices'),
        y: number(v.y, `vertices[${i}].y`, 'invalid_vertices'),
        bulge: v.bulge === undefined ? 0 : number(v.bulge, `vertices[${i}].bulge`, 'invalid_vertices'),
      };
    }
    // [x, y] or [x, y, bulge]: a polyline is 2D, its third number is the bulge of the segment that starts here.
    const p = point(v, `vertices[${i}]`, 'invalid_vertices');
    return { x: p[0], y: p[1], bulge: Array.isArray(v) && v.length === 3 ? p[2] : 0 };
  });
}

/**
 * Builds an entity of a modeled type from a request object. Geometry fields are validated
 * (`invalid_point`, `invalid_property`); the layer is taken as given (the caller creates missing ones).
 */
export function entityFromInput(
  input: unknown,
  handle: string,
  space: string,
  model: DxfDocumentModel,
): Entity {
  if (!isObject(input))
    return fail(
      'unknown_entity_type',
      `each entity must be an object with a type, got ${JSON.stringify(input)}`,
    );
  const raw = typeof input.type === 'string' ? RAW_CREATABLE[input.type.toLowerCase()] : undefined;
  const type = raw ? undefined : entityType(input.type);
  const common: EntityCommon = {
    handle,
    space,
    layer:
      input.layer === undefined ? currentLayer(model) : tableName(input.layer, 'layer', 'invalid_property'),
    color: input.color === undefined ? 256 : color(input.color),
    linetype: input.linetype === undefined ? 'BYLAYER' : linetype(input.linetype, model),
    lineweight: input.lineweight === undefined ? -1 : lineweight(input.lineweight),
  };
  if (raw) return rawEntityFromInput(raw, input, common);
  const extra = (subclass: string, fields: ReadonlyArray<readonly [string, number]>) => {
    const tags = extraOf(input, subclass, fields);
    return tags ? { extra: tags } : {};
  };
  /** The fields TEXT and MTEXT start with, in the order both keep them. */
  const textStart = () => ({
    value: textValue(input.value ?? input.text),
    position: point(input.position, 'position'),
    height: input.height === undefined ? 2.5 : positive(input.height, 'height'),
  });
  switch (type) {
    case undefined:
      return fail('unknown_entity_type', 'type is missing');
    case 'Line':
      return {
        ...common,
        type,
        start: point(input.start, 'start'),
        end: point(input.end, 'end'),
        ...extra('AcDbLine', [['thickness', 39]]),
      };
    case 'Circle':
      return {
        ...common,
        type,
        center: point(input.center, 'center'),
        radius: radius(input.radius, 0),
      };
    case 'Arc':
      return {
        ...common,
        type,
        center: point(input.center, 'center'),
        radius: radius(input.radius),
        start_angle: number(either(input, 'start_angle', 'start_angle_deg'), 'start_angle'),
        end_angle: number(either(input, 'end_angle', 'end_angle_deg'), 'end_angle'),
      };
    case 'Ellipse': {
      const majorAxis = point(input.major_axis, 'major_axis');
      if (majorAxis[0] === 0 && majorAxis[1] === 0 && majorAxis[2] === 0)
        fail('invalid_property', 'major_axis must not be the zero vector');
      const ratio = input.ratio === undefined ? 1 : positive(input.ratio, 'ratio');
      if (ratio > 1) fail('invalid_property', `ratio must be in (0, 1], got ${ratio}`);
      return {
        ...common,
        type,
        center: point(input.center, 'center'),
        major_axis: majorAxis,
        ratio,
        start_param: input.start_param === undefined ? 0 : number(input.start_param, 'start_param'),
        end_param: input.end_param === undefined ? 2 * Math.PI : number(input.end_param, 'end_param'),
      };
    }
    case 'Text':
      return {
        ...common,
        type,
        ...textStart(),
        rotation: rotationOf(input),
        style: input.style === undefined ? 'Standard' : textStyle(input.style, model),
      };
    case 'MText':
      return {
        ...common,
        type,
        ...textStart(),
        width: input.width === undefined ? 0 : number(input.width, 'width'),
        rotation: rotationOf(input),
        style: input.style === undefined ? 'Standard' : textStyle(input.style, model),
        attachment: input.attachment === undefined ? 1 : attachment(input.attachment),
      };
    case 'Point':
      return { ...common, type, location: point(input.location ?? input.position, 'location') };
    case 'LwPolyline':
      return {
        ...common,
        type,
        vertices: vertices(input.points ?? input.vertices),
        closed: input.closed === true,
        elevation: input.elevation === undefined ? 0 : number(input.elevation, 'elevation'),
        ...extra('AcDbPolyline', [['constant_width', 43]]),
      };
    case 'Insert': {
      const given = input.name ?? input.block;
      if (typeof given !== 'string' || given === '')
        return fail(
          'block_required',
          `an Insert needs block: the name of a defined block, got ${JSON.stringify(given ?? null)}`,
        );
      const name = nameIn(model.blocks, given);
      if (name === undefined) return fail('block_missing', `block ${JSON.stringify(given)} is not defined`);
      return {
        ...common,
        type,
        name,
        position: point(input.position, 'position'),
        scale: insertScale(input.scale),
        rotation: rotationOf(input),
      };
    }
    case 'Image': {
      const imageDef = string(input.image_def, 'image_def');
      if (!model.objects.some((o) => o.type === 'IMAGEDEF' && o.handle === imageDef.toUpperCase())) {
        fail(
          'invalid_property',
          `image_def ${imageDef} is not an IMAGEDEF of the document (embed_image creates one)`,
        );
      }
      const size = input.size;
      if (!Array.isArray(size) || size.length !== 2 || !size.every((n) => Number.isInteger(n) && n > 0)) {
        fail('invalid_property', `size must be [width, height] in pixels, got ${JSON.stringify(size)}`);
      }
      return {
        ...common,
        type,
        position: point(input.position, 'position'),
        u_vector: input.u_vector === undefined ? [1, 0, 0] : point(input.u_vector, 'u_vector'),
        v_vector: input.v_vector === undefined ? [0, 1, 0] : point(input.v_vector, 'v_vector'),
        size: size as [number, number],
        image_def: imageDef.toUpperCase(),
      };
    }
    case 'Solid':
    case 'Trace':
      return { ...common, type, corners: corners(input.corners) };
    case 'Spline':
      return { ...common, type, ...splineInput(input) };
    case 'Polyline':
      // Unreachable: a request's "polyline" names an LwPolyline (TYPE_BY_NAME).
      return fail('unknown_entity_type', 'a polyline is created as an LwPolyline');
    case 'Face3d': {
      const edges = input.invisible_edges ?? 0;
      if (!Number.isInteger(edges) || (edges as number) < 0 || (edges as number) > 15)
        fail('invalid_property', `invisible_edges must be an integer 0-15, got ${JSON.stringify(edges)}`);
      return { ...common, type, corners: corners(input.corners), invisible_edges: edges as number };
    }
    case 'XLine':
    case 'Ray': {
      const d = point(input.direction, 'direction');
      const length = Math.hypot(d[0], d[1], d[2]);
      if (length === 0) fail('invalid_property', 'direction must not be the zero vector');
      const direction: Point3 = [d[0] / length, d[1] / length, d[2] / length];
      return { ...common, type, start: point(input.start, 'start'), direction };
    }
  }
}

/**
 * A SPLINE's definition: `control_points` (degree + 1 or more) with `degree` (3 by default), `knots`
 * (control points + degree + 1, clamped uniform when absent) and `weights` (one per point, positive), or
 * `fit_points` (2 or more) alone; `closed` sets flag 1. `invalid_property` otherwise.
 */
function splineInput(input: Record<string, unknown>) {
  const list = (value: unknown, field: string) => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) return fail('invalid_property', `${field} must be an array of points`);
    return value.map((p, i) => point(p, `${field}[${i}]`));
  };
  const controlPoints = list(input.control_points, 'control_points');
  const fitPoints = list(input.fit_points, 'fit_points');
  const degree = input.degree === undefined ? 3 : number(input.degree, 'degree');
  if (!Number.isInteger(degree) || degree < 1 || degree > 10)
    fail('invalid_property', `degree must be an integer 1-10, got ${degree}`);
  if (controlPoints.length === 0 && fitPoints.length < 2)
    fail('invalid_property', 'a Spline needs control_points (degree + 1 or more) or 2 or more fit_points');
  if (controlPoints.length > 0 && controlPoints.length <= degree)
    fail('invalid_property', `a Spline of degree ${degree} needs at least ${degree + 1} control_points`);
  const n = controlPoints.length;
  let knots: number[] = [];
  if (input.knots !== undefined) {
    if (!Array.isArray(input.knots) || input.knots.length !== n + degree + 1)
      fail('invalid_property', `knots must be ${n + degree + 1} numbers (control points + degree + 1)`);
    knots = (input.knots as unknown[]).map((k, i) => number(k, `knots[${i}]`));
    if (knots.some((k, i) => i > 0 && k < (knots[i - 1] as number)))
      fail('invalid_property', 'knots must not decrease');
  } else if (n > 0) {
    const inner = n - degree;
    for (let i = 0; i <= degree; i++) knots.push(0);
    for (let i = 1; i < inner; i++) knots.push(i / inner);
    for (let i = 0; i <= degree; i++) knots.push(1);
  }
  let weights: number[] | undefined;
  if (input.weights !== undefined) {
    if (!Array.isArray(input.weights) || input.weights.length !== n)
      fail('invalid_property', `weights must be ${n} numbers, one per control point`);
    weights = (input.weights as unknown[]).map((w, i) => positive(w, `weights[${i}]`));
  }
  const flags = (input.closed === true ? 1 : 0) | (weights ? 4 : 0) | 8;
  return {
    flags,
    degree,
    knots,
    ...(weights ? { weights } : {}),
    control_points: controlPoints,
    fit_points: fitPoints,
  };
}

/** 3 or 4 corners, each [x, y] or [x, y, z], in DXF's order; a triangle repeats its third corner. */
function corners(raw: unknown): [Point3, Point3, Point3, Point3] {
  if (!Array.isArray(raw) || raw.length < 3 || raw.length > 4)
    return fail('invalid_corners', `corners must be 3 or 4 points, got ${JSON.stringify(raw ?? null)}`);
  const points = raw.map((p, i) => point(p, `corners[${i}]`, 'invalid_corners'));
  const [a, b, c, d] = points as [Point3, Point3, Point3, Point3 | undefined];
  return [a, b, c, d ?? [...c]];
}

/**
 * A radius: finite and greater than `min`, or equal to it when `min` is 0 (a Circle of radius 0 is valid,
 * as the reference editor takes it; an Arc's must be greater than 0); `invalid_radius` otherwise.
 */
function radius(value: unknown, min?: 0): number {
  const r = number(value, 'radius', 'invalid_radius');
  if (r > 0 || (min === 0 && r === 0)) return r;
  return fail('invalid_radius', `radius must be ${min === 0 ? '0 or more' : 'greater than 0'}, got ${r}`);
}

/** An Insert's scale: one number or [x, y(, z)], each finite and not 0 (1 when absent); `invalid_scale` otherwise. */
function insertScale(value: unknown): Point3 {
  if (value === undefined) return [1, 1, 1];
  const scale: Point3 =
    typeof value === 'number' ? [value, value, value] : point(value, 'scale', 'invalid_scale');
  if (Array.isArray(value) && value.length === 2) scale[2] = 1;
  if (!scale.every((f) => Number.isFinite(f) && f !== 0))
    return fail('invalid_scale', `scale factors must be finite and not 0, got ${JSON.stringify(value)}`);
  return scale;
}

/** The string of a Text or MText: given and not empty (the reference editor's rule); `invalid_text` otherwise. */
function textValue(value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  return fail('invalid_text', `value must be a non-empty string, got ${JSON.stringify(value ?? null)}`);
}

/** `rotation` (or the reference editor's `rotation_deg`), degrees; 0 when absent. */
function rotationOf(input: Record<string, unknown>): number {
  const value = either(input, 'rotation', 'rotation_deg');
  return value === undefined ? 0 : number(value, 'rotation');
}

function attachment(value: unknown): number {
  if (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 9) return value as number;
  return fail(
    'invalid_property',
    `attachment must be 1-9 (top-left ... bottom-right), got ${JSON.stringify(value)}`,
  );
}

/** CLAYER from the header, else layer 0. */
export function currentLayer(model: DxfDocumentModel): string {
  const name = model.header.$CLAYER?.[0]?.value;
  return (name && nameIn(model.layers, name)) || (nameIn(model.layers, '0') ?? '0');
}
