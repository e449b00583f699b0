/**
 * SHAPE (AcDbShape; kept as read: its tags): a glyph of an SHX shape file, named (2), at its insertion
 * point (10, world, as ezdxf reads it), `size` high (40), `xscale` wide (41), turned by `rotation` (50,
 * degrees in its OCS), with a thickness (39) and extrusion (210). Its strokes are in the SHX file, which
 * a drawing does not carry: it is drawn, bounded and queried as what can honestly be drawn, its
 * insertion and size box — size × xscale along its rotation, size across it, from its insertion point.
 *
 * Moved as ezdxf 0.18's `Shape.transform` means to (that method fails on its own misspelt attribute,
 * `x_scale`): the insertion point by the matrix, rotation through its OCS, size and xscale as the lengths
 * they become (xscale keeping its sign), thickness along the new extrusion.
 */
import type { DxfTag, LwPolylineEntity, Point3, RawEntity } from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { dot, isWorldZ, ocsDirection, ocsOf, ocsThickness, ocsTransform, toWcs, Z_AXIS } from './ocs.js';
import {
  firstAt,
  firstPoint,
  outlineOf,
  pointTags,
  subclassEnd,
  subclassStart,
  TagEditor,
  tagNumber,
} from './raw-tags.js';

interface ShapeFields {
  name: string;
  insert: Point3;
  size: number;
  rotation: number;
  xscale: number;
  extrusion: Point3;
}

function bounds(tags: readonly DxfTag[]): [number, number] {
  const from = subclassStart(tags, 'AcDbShape');
  return [from, subclassEnd(tags, from)];
}

function fieldsOf(e: RawEntity): ShapeFields {
  const tags = e.tags;
  const [from, to] = bounds(tags);
  const n = (code: number, fallback: number) => tagNumber(tags[firstAt(tags, code, from, to)]) ?? fallback;
  const nameAt = firstAt(tags, 2, from, to);
  const xscale = n(41, 1);
  return {
    name: nameAt < 0 ? '' : (tags[nameAt] as DxfTag).value.trim(),
    insert: firstPoint(tags, 10, from, to) ?? [0, 0, 0],
    size: n(40, 1),
    rotation: n(50, 0),
    xscale: xscale === 0 ? 1 : xscale,
    extrusion: firstPoint(tags, 210, from, to) ?? Z_AXIS,
  };
}

/** Its size box as a closed polyline in the world (seen from above when its plane is tilted). */
export function shapeBox(e: RawEntity): LwPolylineEntity[] {
  const f = fieldsOf(e);
  if (f.size === 0) return [];
  const ocs = ocsOf(f.extrusion);
  const r = (f.rotation * Math.PI) / 180;
  const ux = toWcs(ocs, [Math.cos(r), Math.sin(r), 0]);
  const uy = toWcs(ocs, [-Math.sin(r), Math.cos(r), 0]);
  const w = f.size * f.xscale;
  const at = (a: number, b: number): Point3 => [
    f.insert[0] + ux[0] * a + uy[0] * b,
    f.insert[1] + ux[1] * a + uy[1] * b,
    f.insert[2] + ux[2] * a + uy[2] * b,
  ];
  return [outlineOf(e, [at(0, 0), at(w, 0), at(w, f.size), at(0, f.size)])];
}

const length = (v: Point3) => Math.sqrt(dot(v, v));

/** The SHAPE's tags carried by `m`, as ezdxf's `Shape.transform` means to. */
export function transformShapeEntity(e: RawEntity, m: Matrix): RawEntity {
  const f = fieldsOf(e);
  const ed = new TagEditor(e.tags);
  const tags = ed.tags;
  const [from, to] = bounds(tags);
  const t = ocsTransform(f.extrusion, m);
  const at = (code: number) => firstAt(tags, code, from, to);
  const extra: DxfTag[] = [];
  const put = (code: number, value: number, writeAbsent: boolean) => {
    const i = at(code);
    if (i >= 0) ed.setNumber(i, value);
    else if (writeAbsent) extra.push({ code, value: String(value) });
  };
  const insertAt = at(10);
  if (insertAt >= 0) ed.setPoint(insertAt, applyPoint(m, f.insert));
  const r = (f.rotation * Math.PI) / 180;
  const d = ocsDirection(t, [Math.cos(r), Math.sin(r), 0]);
  const rotation = (Math.atan2(d[1], d[0]) * 180) / Math.PI;
  put(50, rotation, rotation !== 0);
  const old = ocsOf(f.extrusion);
  put(40, length(applyVector(m, toWcs(old, [0, f.size, 0]))), true);
  const xscale = length(applyVector(m, toWcs(old, [f.xscale, 0, 0]))) * Math.sign(f.xscale);
  put(41, xscale, xscale !== 1);
  const thicknessAt = at(39);
  if (thicknessAt >= 0) ed.setNumber(thicknessAt, ocsThickness(t, tagNumber(tags[thicknessAt]) ?? 0));
  const extrusionAt = at(210);
  if (extrusionAt >= 0) ed.setPoint(extrusionAt, t.extrusion);
  else if (!isWorldZ(t.extrusion)) extra.push(...pointTags(210, t.extrusion));
  if (extra.length > 0) tags.splice(to, 0, ...extra);
  return { ...e, tags };
}

/** A SHAPE's readout: its name, insertion point, size, rotation, xscale and extrusion as stored. */
export function shapeReadout(e: RawEntity): Record<string, unknown> {
  const f = fieldsOf(e);
  return {
    name: f.name,
    position: f.insert,
    size: f.size,
    rotation: f.rotation,
    xscale: f.xscale,
    extrusion: f.extrusion,
  };
}
