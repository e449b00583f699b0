import type {
  ArcEntity,
  CircleEntity,
  EllipseEntity,
  Entity,
  Face3dEntity,
  ImageEntity,
  InsertEntity,
  LineEntity,
  LwPolylineEntity,
  LwPolylineVertex,
  ModeledType,
  MTextEntity,
  Point3,
  PointEntity,
  PolylineEntity,
  RayEntity,
  SolidEntity,
  SplineEntity,
  TextEntity,
  TraceEntity,
  XLineEntity,
} from '../model.js';
import type { ReadContext } from './read-context.js';
import type { TagWriter } from './tag-writer.js';
import type { TagList } from './tags.js';
import { normalizeHandle } from './values.js';

/**
 * One table entry per modeled entity type: its DXF name and its subclasses with the group codes each
 * one holds and the field each code reads into, in the order they are written (the same shape as
 * ezdxf's DefSubclass/DXFAttr definitions). One reader and one writer walk these entries; adding an
 * entity type is one entry here, its type in the model and its defaults in entity-read's newEntity
 * (kept there as one object literal per type: reading 100k entities allocates far less that way).
 */

/** Per-entity scratch state of the fields that are read from several tags (MTEXT text, LWPOLYLINE vertices). */
export interface Scratch {
  mtextChunks: string[];
  mtextLast: string | undefined;
  direction: Point3 | undefined;
  vertex: LwPolylineVertex | undefined;
}

/** One field of an entity and the group codes it is read from and written as. */
export interface FieldDef<E> {
  /** The group codes it reads; a point reads its x, y and z codes. */
  codes: readonly number[];
  /** False when the tag does not belong to the field after all (kept in `extra`). */
  read(e: E, code: number, t: TagList, i: number, ctx: ReadContext, s: Scratch): boolean;
  write(w: TagWriter, e: E): void;
}

export interface SubclassDef<E> {
  /** The subclass marker (100) it is written after. */
  name: string;
  /** The marker of an INSERT with rows and columns (MINSERT). */
  minsert?: string;
  /** The marker by the entity read so far, for a type whose subclass depends on its flags (POLYLINE). */
  nameOf?: (e: E) => string;
  fields: readonly FieldDef<E>[];
  /** Codes of a file without subclass markers (R12) that are kept under this subclass, not the first. */
  flat?: readonly number[];
  /** Unmodeled codes written before the fields, besides thickness (39) and constant width (43). */
  leads?: readonly number[];
}

export interface EntityDef<E> {
  type: ModeledType;
  dxf: string;
  subclasses: readonly SubclassDef<E>[];
  /** Completes the entity from the scratch state once all its tags are read. */
  finish?: (e: E, s: Scratch, ctx: ReadContext) => void;
}

type KeyOf<E, V> = { [K in keyof E]-?: E[K] extends V ? K : never }[keyof E];

/** A point: codes `code`, `code + 10`, `code + 20` set x, y and z; an optional one appears with its first code. */
function point<E>(code: number, key: KeyOf<E, Point3 | undefined>, optional = false): FieldDef<E> {
  const get = (e: E) => e[key] as Point3 | undefined;
  return {
    codes: [code, code + 10, code + 20],
    read(e, c, t, i) {
      let p = get(e);
      if (!p) {
        p = [0, 0, 0];
        e[key] = p as E[typeof key];
      }
      p[((c - code) / 10) | 0] = t.real(i);
      return true;
    },
    write(w, e) {
      const p = get(e);
      if (p || !optional) w.point(code, p as Point3);
    },
  };
}

/** A real (`int`: an integer), left out on write when it equals `omit`. */
function real<E>(
  code: number,
  key: KeyOf<E, number>,
  omit?: number,
  kind: 'real' | 'int' = 'real',
): FieldDef<E> {
  return {
    codes: [code],
    read(e, _c, t, i) {
      e[key] = t[kind](i) as E[typeof key];
      return true;
    },
    write(w, e) {
      const v = e[key] as number;
      if (v !== omit) w[kind](code, v);
    },
  };
}

/** One coordinate of a vector field (scale, size), left out on write when it equals `omit`. */
function element<E>(code: number, key: KeyOf<E, number[]>, at: number, omit?: number): FieldDef<E> {
  return {
    codes: [code],
    read(e, _c, t, i) {
      (e[key] as number[])[at] = t.real(i);
      return true;
    },
    write(w, e) {
      const v = (e[key] as number[])[at] as number;
      if (v !== omit) w.real(code, v);
    },
  };
}

const int = <E>(code: number, key: KeyOf<E, number>): FieldDef<E> => real(code, key, undefined, 'int');

function text<E>(code: number, key: KeyOf<E, string>, omit?: (value: string) => boolean): FieldDef<E> {
  return {
    codes: [code],
    read(e, _c, t, i, ctx) {
      e[key] = ctx.decode(t.value(i)) as E[typeof key];
      return true;
    },
    write(w, e) {
      const v = e[key] as string;
      if (!omit?.(v)) w.tag(code, v);
    },
  };
}

function handle<E>(code: number, key: KeyOf<E, string>): FieldDef<E> {
  return {
    codes: [code],
    read(e, _c, t, i) {
      e[key] = normalizeHandle(t.value(i)) as E[typeof key];
      return true;
    },
    write(w, e) {
      w.tag(code, e[key] as string);
    },
  };
}

/** A code that is read and dropped: its value is derived from the model on save. */
function derived<E>(code: number, write: (w: TagWriter, e: E) => void): FieldDef<E> {
  return { codes: [code], read: () => true, write };
}

/** STANDARD is the text style DXF readers assume when a text names none. */
const isStandard = (style: string) => style.toUpperCase() === 'STANDARD';

const LINE: EntityDef<LineEntity> = {
  type: 'Line',
  dxf: 'LINE',
  subclasses: [{ name: 'AcDbLine', fields: [point(10, 'start'), point(11, 'end')] }],
};

const CIRCLE: EntityDef<CircleEntity> = {
  type: 'Circle',
  dxf: 'CIRCLE',
  subclasses: [{ name: 'AcDbCircle', fields: [point(10, 'center'), real(40, 'radius')] }],
};

const ARC: EntityDef<ArcEntity> = {
  type: 'Arc',
  dxf: 'ARC',
  subclasses: [
    { name: 'AcDbCircle', fields: [point(10, 'center'), real(40, 'radius')] },
    { name: 'AcDbArc', fields: [real(50, 'start_angle'), real(51, 'end_angle')] },
  ],
};

const ELLIPSE: EntityDef<EllipseEntity> = {
  type: 'Ellipse',
  dxf: 'ELLIPSE',
  subclasses: [
    {
      name: 'AcDbEllipse',
      fields: [
        point(10, 'center'),
        point(11, 'major_axis'),
        point(210, 'extrusion', true),
        real(40, 'ratio'),
        real(41, 'start_param'),
        real(42, 'end_param'),
      ],
    },
  ],
};

const TEXT: EntityDef<TextEntity> = {
  type: 'Text',
  dxf: 'TEXT',
  subclasses: [
    {
      name: 'AcDbText',
      fields: [
        point(10, 'position'),
        real(40, 'height'),
        text(1, 'value'),
        real(50, 'rotation', 0),
        text(7, 'style', isStandard),
        point(11, 'align_point', true),
      ],
    },
    // The vertical alignment (73) has a subclass of its own.
    { name: 'AcDbText', fields: [], flat: [73] },
  ],
};

/** MTEXT text longer than 250 characters goes in 3 chunks before the last part (1). */
const CHUNK = 250;

const mtextValue: FieldDef<MTextEntity> = {
  codes: [1, 3],
  read(_e, code, t, i, _ctx, s) {
    if (code === 1) s.mtextLast = t.value(i);
    else s.mtextChunks.push(t.value(i));
    return true;
  },
  write(w, e) {
    let text = e.value;
    while (text.length > CHUNK) {
      let cut = CHUNK;
      // Do not split a surrogate pair or a backslash escape (\P, \U+XXXX) between chunks.
      const backslash = text.lastIndexOf('\\', cut - 1);
      if (backslash >= cut - 7 && backslash > 0) cut = backslash;
      const code = text.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
      w.tag(3, text.slice(0, cut));
      text = text.slice(cut);
    }
    w.tag(1, text);
  },
};

/** The x axis direction (11): read into `rotation`, which is written instead. */
const mtextDirection: FieldDef<MTextEntity> = {
  codes: [11, 21, 31],
  read(_e, code, t, i, _ctx, s) {
    s.direction ??= [0, 0, 0];
    s.direction[((code - 11) / 10) | 0] = t.real(i);
    return true;
  },
  write() {},
};

const MTEXT: EntityDef<MTextEntity> = {
  type: 'MText',
  dxf: 'MTEXT',
  subclasses: [
    {
      name: 'AcDbMText',
      fields: [
        point(10, 'position'),
        real(40, 'height'),
        real(41, 'width', 0),
        int(71, 'attachment'),
        mtextValue,
        text(7, 'style', isStandard),
        real(50, 'rotation', 0),
        mtextDirection,
      ],
    },
  ],
  finish(e, s, ctx) {
    e.value = ctx.decode(s.mtextChunks.join('') + (s.mtextLast ?? ''));
    if (s.direction && (s.direction[0] !== 0 || s.direction[1] !== 0)) {
      e.rotation = (Math.atan2(s.direction[1], s.direction[0]) * 180) / Math.PI;
    }
  },
};

const POINT: EntityDef<PointEntity> = {
  type: 'Point',
  dxf: 'POINT',
  subclasses: [{ name: 'AcDbPoint', fields: [point(10, 'location')] }],
};

const lwpolylineFlags: FieldDef<LwPolylineEntity> = {
  codes: [70],
  read(e, _c, t, i) {
    const flags = t.int(i);
    e.closed = (flags & 1) !== 0;
    if (flags & 128) e.plinegen = true;
    return true;
  },
  write(w, e) {
    w.int(70, (e.closed ? 1 : 0) | (e.plinegen ? 128 : 0));
  },
};

/** Each vertex starts at its x (10); y, widths and bulge before the first x are not a vertex's. */
const lwpolylineVertices: FieldDef<LwPolylineEntity> = {
  codes: [10, 20, 40, 41, 42],
  read(e, code, t, i, _ctx, s) {
    if (code === 10) {
      s.vertex = { x: t.real(i), y: 0, bulge: 0 };
      e.vertices.push(s.vertex);
      return true;
    }
    if (!s.vertex) return false;
    if (code === 20) s.vertex.y = t.real(i);
    else if (code === 40) s.vertex.start_width = t.real(i);
    else if (code === 41) s.vertex.end_width = t.real(i);
    else s.vertex.bulge = t.real(i);
    return true;
  },
  write(w, e) {
    for (const v of e.vertices) {
      w.point2(10, v.x, v.y);
      if (v.start_width !== undefined) w.real(40, v.start_width);
      if (v.end_width !== undefined) w.real(41, v.end_width);
      if (v.bulge !== 0) w.real(42, v.bulge);
    }
  },
};

const LWPOLYLINE: EntityDef<LwPolylineEntity> = {
  type: 'LwPolyline',
  dxf: 'LWPOLYLINE',
  subclasses: [
    {
      name: 'AcDbPolyline',
      fields: [
        derived(90, (w, e) => w.int(90, e.vertices.length)),
        lwpolylineFlags,
        real(38, 'elevation', 0),
        lwpolylineVertices,
      ],
    },
  ],
};

const INSERT: EntityDef<InsertEntity> = {
  type: 'Insert',
  dxf: 'INSERT',
  subclasses: [
    {
      name: 'AcDbBlockReference',
      minsert: 'AcDbMInsertBlock',
      fields: [
        derived(66, (w, e) => {
          if (e.attribs && e.attribs.length > 0) w.tag(66, '1');
        }),
        text(2, 'name'),
        point(10, 'position'),
        element(41, 'scale', 0, 1),
        element(42, 'scale', 1, 1),
        element(43, 'scale', 2, 1),
        real(50, 'rotation', 0),
      ],
    },
  ],
};

const IMAGE: EntityDef<ImageEntity> = {
  type: 'Image',
  dxf: 'IMAGE',
  subclasses: [
    {
      name: 'AcDbRasterImage',
      leads: [90], // the class version
      fields: [
        point(10, 'position'),
        point(11, 'u_vector'),
        point(12, 'v_vector'),
        element(13, 'size', 0),
        element(23, 'size', 1),
        handle(340, 'image_def'),
      ],
    },
  ],
};

/** The four corners of SOLID, TRACE and 3DFACE (10 to 13). */
function cornerFields<E extends { corners: Point3[] }>(): FieldDef<E>[] {
  return [0, 1, 2, 3].map((at) => {
    const code = 10 + at;
    return {
      codes: [code, code + 10, code + 20],
      read(e, c, t, i) {
        (e.corners[at] as Point3)[((c - code) / 10) | 0] = t.real(i);
        return true;
      },
      write(w, e) {
        w.point(code, e.corners[at] as Point3);
      },
    };
  });
}

/**
 * A fourth corner the file left out is the third (a triangle), as ezdxf reads it; newEntity starts it as
 * NaN so a missing one shows, and a missing y or z of a given one is 0.
 */
function finishCorners(e: { corners: Point3[] }): void {
  const last = e.corners[3] as Point3;
  if (Number.isNaN(last[0])) e.corners[3] = [...(e.corners[2] as Point3)];
  else e.corners[3] = [last[0], Number.isNaN(last[1]) ? 0 : last[1], Number.isNaN(last[2]) ? 0 : last[2]];
}

/** SOLID and TRACE: one AcDbTrace subclass, its four corners and its extrusion. */
function traceDef<E extends SolidEntity | TraceEntity>(type: E['type'], dxf: string): EntityDef<E> {
  return {
    type,
    dxf,
    subclasses: [
      {
        name: 'AcDbTrace',
        fields: [...cornerFields<E>(), point<SolidEntity | TraceEntity>(210, 'extrusion', true)],
      },
    ],
    finish: finishCorners,
  };
}

const SOLID = traceDef<SolidEntity>('Solid', 'SOLID');
const TRACE = traceDef<TraceEntity>('Trace', 'TRACE');

const FACE3D: EntityDef<Face3dEntity> = {
  type: 'Face3d',
  dxf: '3DFACE',
  subclasses: [
    { name: 'AcDbFace', fields: [...cornerFields<Face3dEntity>(), real(70, 'invisible_edges', 0, 'int')] },
  ],
  finish: finishCorners,
};

const XLINE: EntityDef<XLineEntity> = {
  type: 'XLine',
  dxf: 'XLINE',
  subclasses: [{ name: 'AcDbXline', fields: [point(10, 'start'), point(11, 'direction')] }],
};

const RAY: EntityDef<RayEntity> = {
  type: 'Ray',
  dxf: 'RAY',
  subclasses: [{ name: 'AcDbRay', fields: [point(10, 'start'), point(11, 'direction')] }],
};

/** A POLYLINE's subclass by its flags: 3D (8), polygon mesh (16), polyface mesh (64) or 2D. */
function polylineSubclass(e: PolylineEntity): string {
  if (e.flags & 8) return 'AcDb3dPolyline';
  if (e.flags & 16) return 'AcDbPolygonMesh';
  if (e.flags & 64) return 'AcDbPolyFaceMesh';
  return 'AcDb2dPolyline';
}

const POLYLINE: EntityDef<PolylineEntity> = {
  type: 'Polyline',
  dxf: 'POLYLINE',
  subclasses: [
    {
      name: 'AcDb2dPolyline',
      nameOf: polylineSubclass,
      fields: [
        // "Vertices follow": always, a POLYLINE's VERTEX entities are written after it.
        derived(66, (w) => w.tag(66, '1')),
        point(10, 'elevation', true),
        int(70, 'flags'),
        point(210, 'extrusion', true),
      ],
    },
  ],
};

/** A list of reals, one per tag of `code` (a SPLINE's knots and weights). */
function reals<E>(code: number, key: KeyOf<E, number[] | undefined>): FieldDef<E> {
  return {
    codes: [code],
    read(e, _c, t, i) {
      let list = e[key] as number[] | undefined;
      if (!list) {
        list = [];
        e[key] = list as E[typeof key];
      }
      list.push(t.real(i));
      return true;
    },
    write(w, e) {
      for (const v of (e[key] as number[] | undefined) ?? []) w.real(code, v);
    },
  };
}

/** A list of points: each x (`code`) starts one, its y and z (`code + 10`, `+ 20`) fill the last. */
function points<E>(code: number, key: KeyOf<E, Point3[]>): FieldDef<E> {
  return {
    codes: [code, code + 10, code + 20],
    read(e, c, t, i) {
      const list = e[key] as Point3[];
      if (c === code) list.push([t.real(i), 0, 0]);
      else {
        const last = list[list.length - 1];
        if (!last) return false;
        last[((c - code) / 10) | 0] = t.real(i);
      }
      return true;
    },
    write(w, e) {
      for (const p of e[key] as Point3[]) w.point(code, p);
    },
  };
}

const SPLINE: EntityDef<SplineEntity> = {
  type: 'Spline',
  dxf: 'SPLINE',
  subclasses: [
    {
      name: 'AcDbSpline',
      // The tolerances, before the lists (as AutoCAD writes them after the counts).
      leads: [42, 43, 44],
      fields: [
        point(210, 'extrusion', true),
        int(70, 'flags'),
        int(71, 'degree'),
        derived(72, (w, e) => w.int(72, e.knots.length)),
        derived(73, (w, e) => w.int(73, e.control_points.length)),
        derived(74, (w, e) => w.int(74, e.fit_points.length)),
        point(12, 'start_tangent', true),
        point(13, 'end_tangent', true),
        reals(40, 'knots'),
        reals(41, 'weights'),
        points(10, 'control_points'),
        points(11, 'fit_points'),
      ],
    },
  ],
};

type Defs = { [T in ModeledType]: EntityDef<Extract<Entity, { type: T }>> };

export const ENTITY_DEFS: Defs = {
  Line: LINE,
  Circle: CIRCLE,
  Arc: ARC,
  Ellipse: ELLIPSE,
  Text: TEXT,
  MText: MTEXT,
  Point: POINT,
  LwPolyline: LWPOLYLINE,
  Insert: INSERT,
  Image: IMAGE,
  Solid: SOLID,
  Trace: TRACE,
  Face3d: FACE3D,
  XLine: XLINE,
  Ray: RAY,
  Polyline: POLYLINE,
  Spline: SPLINE,
};

/** The table entry of a modeled entity, typed for the generic reader and writer. */
export function entityDef(type: ModeledType): EntityDef<Entity> {
  return ENTITY_DEFS[type] as unknown as EntityDef<Entity>;
}

/** The subclass markers after AcDbEntity that a type is written with (R2000 and later). */
export function subclassNames(def: EntityDef<Entity>, minsert: boolean, e?: Entity): string[] {
  return def.subclasses.map((s) => (e && s.nameOf?.(e)) || (minsert && s.minsert) || s.name);
}
