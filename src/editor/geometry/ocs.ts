/**
 * Object coordinate systems (OCS) of entities placed by an extrusion vector, by DXF's arbitrary axis
 * rule, and how a transform carries an OCS entity over: written as ezdxf's OCS and OCSTransform do it,
 * so a SOLID or a 2D POLYLINE transformed here equals ezdxf's to the last digits.
 */
import type { Point3 } from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';

export const Z_AXIS: Point3 = [0, 0, 1];

export const dot = (a: Point3, b: Point3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: Point3, b: Point3): Point3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
export function normalize(v: Point3): Point3 {
  const l = Math.sqrt(dot(v, v));
  return l === 0 ? [0, 0, 0] : [v[0] / l, v[1] / l, v[2] / l];
}

const close = (a: number, b: number) =>
  Math.abs(a - b) <= Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), 1e-12);

/** The axes of an OCS; undefined for the world's own (extrusion (0, 0, 1)), where nothing is converted. */
export interface Ocs {
  ux: Point3;
  uy: Point3;
  uz: Point3;
}

/** The OCS of an extrusion (DXF's arbitrary axis algorithm); undefined when it is the world's. */
export function ocsOf(extrusion: Point3 | undefined): Ocs | undefined {
  if (!extrusion) return undefined;
  const uz = normalize(extrusion);
  if (close(uz[0], 0) && close(uz[1], 0) && close(uz[2], 1)) return undefined;
  const seed: Point3 = Math.abs(uz[0]) < 1 / 64 && Math.abs(uz[1]) < 1 / 64 ? [0, 1, 0] : Z_AXIS;
  const ux = normalize(cross(seed, uz));
  const uy = normalize(cross(uz, ux));
  return { ux, uy, uz };
}

export function toWcs(ocs: Ocs | undefined, p: Point3): Point3 {
  if (!ocs) return p;
  const { ux, uy, uz } = ocs;
  return [
    p[0] * ux[0] + p[1] * uy[0] + p[2] * uz[0],
    p[0] * ux[1] + p[1] * uy[1] + p[2] * uz[1],
    p[0] * ux[2] + p[1] * uy[2] + p[2] * uz[2],
  ];
}

function fromWcs(ocs: Ocs | undefined, p: Point3): Point3 {
  if (!ocs) return p;
  return [dot(p, ocs.ux), dot(p, ocs.uy), dot(p, ocs.uz)];
}

/** How `m` carries an OCS entity: from its old OCS into the one of its new extrusion. */
interface OcsTransform {
  old: Ocs | undefined;
  next: Ocs | undefined;
  /** The new extrusion: the cross product of the images of the old OCS's x and y axes. */
  extrusion: Point3;
  m: Matrix;
}

export function ocsTransform(extrusion: Point3 | undefined, m: Matrix): OcsTransform {
  const old = ocsOf(extrusion ?? Z_AXIS);
  const x = applyVector(m, toWcs(old, [1, 0, 0]));
  const y = applyVector(m, toWcs(old, [0, 1, 0]));
  const next = normalize(cross(x, y));
  return { old, next: ocsOf(next), extrusion: next, m };
}

/** A vertex in the old OCS to the new one. */
export function ocsVertex(t: OcsTransform, p: Point3): Point3 {
  return fromWcs(t.next, applyPoint(t.m, toWcs(t.old, p)));
}

/** A direction in the old OCS to the new one. */
export function ocsDirection(t: OcsTransform, v: Point3): Point3 {
  return fromWcs(t.next, applyVector(t.m, toWcs(t.old, v)));
}

/** A thickness (along the old extrusion) as the new extrusion measures it; it may turn negative. */
export function ocsThickness(t: OcsTransform, thickness: number): number {
  return ocsDirection(t, [0, 0, thickness])[2];
}

/** Whether an extrusion is the world's (0, 0, 1), as the transformed entity should then leave it out. */
export const isWorldZ = (v: Point3) => ocsOf(v) === undefined;
