/**
 * DIMENSION (every subtype, kept as read: its tags): drawn, bounded and queried as its geometry block
 * (`2`, a `*D` block of lines, arrow solids and the dimension text, in world coordinates), moved by
 * transforming its definition points as ezdxf's `Dimension.transform(Matrix44)` does — world points 10,
 * 13, 14, 15 by the matrix; text midpoint 11, clone insertion point 12 and point 16 in its OCS; the angles
 * 50, 51 and 53 as directions — while the op moves the block's contents with it (ops/owned-blocks.ts).
 */
import type { DxfTag, InsertEntity, Point3, RawEntity } from '../model.js';
import { applyPoint, compose, type Matrix, mapAngle, type Similarity, similarity } from './matrix.js';
import { standInCommon, subclassStart } from './raw-tags.js';

export const isDimensionType = (dxfType: string) => dxfType.toUpperCase() === 'DIMENSION';

const WORLD_POINTS = new Set([10, 13, 14, 15]);
const OCS_POINTS = new Set([11, 12, 16]);
const ANGLES = new Set([50, 51, 53]);
/** World x → −x (and z → −z): the OCS of an extrusion of (0, 0, −1). */
const FLIP: Matrix = { a: -1, b: 0, c: 0, d: 1, e: 0, f: 0, sz: -1, tz: 0 };

const num = (t: DxfTag | undefined) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** Where the dimension's own group codes start: after its AcDbDimension marker (all of them without one). */
function dimensionStart(tags: readonly DxfTag[]): number {
  return subclassStart(tags, 'AcDbDimension');
}

function code(tags: readonly DxfTag[], c: number): DxfTag | undefined {
  const from = dimensionStart(tags);
  for (let i = from; i < tags.length; i++) if (tags[i]?.code === c) return tags[i];
  return undefined;
}

function pointAt(tags: readonly DxfTag[], c: number): Point3 | undefined {
  const x = num(code(tags, c));
  const y = num(code(tags, c + 10));
  return x === undefined || y === undefined ? undefined : [x, y, num(code(tags, c + 20)) ?? 0];
}

/** True when its extrusion is (0, 0, −1): its OCS points read mirrored in x. */
function flipped(tags: readonly DxfTag[]): boolean {
  return (num(code(tags, 230)) ?? 1) < 0;
}

/** The name of its geometry block, if it names one. */
export function dimensionBlock(e: RawEntity): string | undefined {
  const name = code(e.tags, 2)?.value.trim();
  return name ? name : undefined;
}

/**
 * What draws it: a reference to its geometry block at the world origin (a clone's at its insertion
 * point 12), with the dimension's own layer, colour, linetype and lineweight for the block's BYBLOCK parts.
 */
export function dimensionStandIn(e: RawEntity): InsertEntity | undefined {
  const name = dimensionBlock(e);
  if (!name) return undefined;
  const at = pointAt(e.tags, 12) ?? [0, 0, 0];
  const position: Point3 = flipped(e.tags) ? [-at[0], at[1], -at[2]] : at;
  return {
    type: 'Insert',
    ...standInCommon(e),
    name,
    position,
    scale: [1, 1, 1],
    rotation: 0,
  };
}

/** A clone (one with an insertion point 12) shares another's block: its block is not its own to move. */
export const isDimensionClone = (e: RawEntity) => pointAt(e.tags, 12) !== undefined;

const text = (n: number) => String(n);

/** The DIMENSION's tags with its points and angles transformed by the similarity `m` (ezdxf's way). */
export function transformDimension(e: RawEntity, m: Matrix, sim: Similarity): RawEntity {
  const ocs = flipped(e.tags) ? compose(compose(FLIP, m), FLIP) : m;
  const ocsSim = ocs === m ? sim : (similarity(ocs) ?? sim);
  const tags = [...e.tags];
  const from = dimensionStart(tags);
  const put = (i: number, value: number) => {
    tags[i] = { code: (tags[i] as DxfTag).code, value: text(value) };
  };
  for (let i = from; i < tags.length; i++) {
    const c = (tags[i] as DxfTag).code;
    if (WORLD_POINTS.has(c) || OCS_POINTS.has(c)) {
      const x = num(tags[i]);
      const yAt = tags.findIndex((t, j) => j > i && t.code === c + 10);
      const y = yAt < 0 ? undefined : num(tags[yAt]);
      if (x === undefined || y === undefined) continue;
      const zAt = tags.findIndex((t, j) => j > yAt && t.code === c + 20);
      const z = zAt < 0 ? 0 : (num(tags[zAt]) ?? 0);
      const p = applyPoint(WORLD_POINTS.has(c) ? m : ocs, [x, y, z]);
      put(i, p[0]);
      put(yAt, p[1]);
      if (zAt >= 0) put(zAt, p[2]);
    } else if (ANGLES.has(c)) {
      const a = num(tags[i]);
      if (a !== undefined) put(i, normalize(mapAngle(ocsSim, a)));
    }
  }
  return { ...e, tags };
}

const normalize = (degrees: number) => {
  const d = degrees % 360;
  return d < 0 ? d + 360 : d === 0 ? 0 : d;
};

/** A DIMENSION's readout: its type, block, measurement, text override and definition points as stored. */
export function dimensionReadout(e: RawEntity): Record<string, unknown> {
  const flags = num(code(e.tags, 70)) ?? 0;
  const TYPES = ['rotated', 'aligned', 'angular', 'diameter', 'radius', 'angular_3point', 'ordinate'];
  const out: Record<string, unknown> = {
    dimension_type: TYPES[flags & 7] ?? null,
    block: dimensionBlock(e) ?? null,
    style: code(e.tags, 3)?.value ?? null,
    measurement: num(code(e.tags, 42)) ?? null,
    text_override: code(e.tags, 1)?.value ?? null,
  };
  const names: Array<[number, string]> = [
    [10, 'defpoint'],
    [11, 'text_midpoint'],
    [12, 'insert'],
    [13, 'defpoint2'],
    [14, 'defpoint3'],
    [15, 'defpoint4'],
    [16, 'defpoint5'],
  ];
  for (const [c, name] of names) {
    const p = pointAt(e.tags, c);
    if (p) out[name] = p;
  }
  return out;
}
