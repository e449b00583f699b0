/**
 * HATCH: an entity type the engine keeps as DXF tags (RawEntity), which requests may create all the
 * same (`entities_create` with `type: "Hatch"`, as the reference editor accepts) and which `query` reads
 * out (`boundary`, `solid`, `pattern`), whether created or read from a file.
 *
 * A created one gets the tags AutoCAD writes for it, so the save writes it like any entity read from a
 * file (the writer takes handle, owner, layer, colour and linetype from the model) and ezdxf reads it back.
 */
import { type EditorErrorCode, fail } from './errors.js';
import { attdefText } from './geometry/attdef.js';
import { dimensionReadout } from './geometry/dimension.js';
import { STANDARD_PATTERNS, standardPattern, storedPatternLines } from './geometry/hatch-patterns.js';
import { helixReadout } from './geometry/helix.js';
import { leaderReadout } from './geometry/leader.js';
import { isMLeaderType, mleaderGeometry, mleaderReadout } from './geometry/mleader.js';
import { mlineReadout } from './geometry/mline.js';
import { shapeReadout } from './geometry/shape-entity.js';
import { tableReadout } from './geometry/table.js';
import { isToleranceType, toleranceContent, toleranceReadout } from './geometry/tolerance.js';
import { wipeoutReadout } from './geometry/wipeout.js';
import type { DxfTag, EntityCommon, RawEntity } from './model.js';
import { number } from './request.js';

/** The patterns a created hatch may name (upper case): acad.pat's standard set. */
const HATCH_PATTERNS = STANDARD_PATTERNS;

/** The DXF types `entities_create` builds as raw tags, by the lower-case type name a request gives. */
export const RAW_CREATABLE: Readonly<Record<string, 'HATCH'>> = { hatch: 'HATCH' };

const text = (n: number) => String(Number(n.toPrecision(15)));
const tag = (code: number, value: string | number): DxfTag => ({
  code,
  value: typeof value === 'number' ? text(value) : value,
});
const pointTags = (code: number, p: readonly number[]): DxfTag[] => [
  tag(code, p[0] ?? 0),
  tag(code + 10, p[1] ?? 0),
  tag(code + 20, p[2] ?? 0),
];

function xy(value: unknown, field: string, code: EditorErrorCode): [number, number] {
  if (
    !Array.isArray(value) ||
    (value.length !== 2 && value.length !== 3) ||
    !value.every((n) => typeof n === 'number' && Number.isFinite(n))
  )
    return fail(code, `${field} must be [x, y] of finite numbers, got ${JSON.stringify(value)}`);
  return [value[0] as number, value[1] as number];
}

/** The common head of a created entity's tags; the writer replaces handle, owner and layer from the model. */
const head = (common: EntityCommon, subclass: string): DxfTag[] => [
  tag(5, common.handle),
  tag(330, '0'),
  tag(100, 'AcDbEntity'),
  tag(8, common.layer),
  tag(100, subclass),
];

/** A HATCH from `boundary` (3 or more [x, y], closed), filled `solid` or with a `pattern` of acad.pat. */
function hatchTags(input: Record<string, unknown>, common: EntityCommon): DxfTag[] {
  const raw = input.boundary;
  if (!Array.isArray(raw) || raw.length < 3)
    return fail(
      'invalid_boundary',
      `boundary must be an array of at least 3 [x, y] points, got ${JSON.stringify(raw ?? null)}`,
    );
  const boundary = raw.map((p, i) => xy(p, `boundary[${i}]`, 'invalid_boundary'));
  const solid = input.solid === true;
  const name = solid ? 'SOLID' : typeof input.pattern === 'string' ? input.pattern.toUpperCase() : 'ANSI31';
  const lines = standardPattern(name);
  if (!solid && !lines)
    fail(
      'invalid_pattern',
      `pattern must be one of ${HATCH_PATTERNS.join(', ')} (or solid: true), got ${JSON.stringify(input.pattern)}`,
    );
  const scale = input.pattern_scale === undefined ? 1 : number(input.pattern_scale, 'pattern_scale');
  if (!(scale > 0)) fail('invalid_property', `pattern_scale must be greater than 0, got ${scale}`);
  const angle =
    input.pattern_angle_deg === undefined && input.pattern_angle === undefined
      ? 0
      : number(input.pattern_angle_deg ?? input.pattern_angle, 'pattern_angle_deg');
  const tags: DxfTag[] = [
    ...head(common, 'AcDbHatch'),
    ...pointTags(10, [0, 0, 0]),
    tag(210, 0),
    tag(220, 0),
    tag(230, 1),
    tag(2, name),
    tag(70, solid ? 1 : 0),
    tag(71, 0),
    tag(91, 1),
    // One external polyline path (flags 1 + 2), closed, without bulges.
    tag(92, 3),
    tag(72, 0),
    tag(73, 1),
    tag(93, boundary.length),
    ...boundary.flatMap(([x, y]) => [tag(10, x), tag(20, y)]),
    tag(97, 0),
    tag(75, 1),
    tag(76, 1),
  ];
  if (!solid && lines) {
    tags.push(tag(52, angle), tag(41, scale), tag(77, 0), tag(78, lines.length));
    for (const line of storedPatternLines(lines, angle, scale))
      tags.push(
        tag(53, line.angle),
        tag(43, line.base[0]),
        tag(44, line.base[1]),
        tag(45, line.offset[0]),
        tag(46, line.offset[1]),
        tag(79, line.dashes.length),
        ...line.dashes.map((d) => tag(49, d)),
      );
  }
  tags.push(tag(98, 0));
  return tags;
}

/** A created HATCH as the raw entity the engine keeps. */
export function rawEntityFromInput(
  dxfType: 'HATCH',
  input: Record<string, unknown>,
  common: EntityCommon,
): RawEntity {
  return { ...common, type: 'Raw', dxf_type: dxfType, tags: hatchTags(input, common) };
}

const num = (t: DxfTag | undefined) => {
  const n = t ? Number(t.value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** The tags after the subclass marker `subclass` (all of them when the entity has none, as R12 files). */
function afterMarker(tags: readonly DxfTag[], subclass: string): readonly DxfTag[] {
  const at = tags.findIndex((t) => t.code === 100 && t.value === subclass);
  return at < 0 ? tags : tags.slice(at + 1);
}

/**
 * A HATCH's fill and outline: `solid`, `pattern`, `pattern_scale`, `pattern_angle` (degrees) and
 * `boundary`, the loops made of straight segments as [x, y] vertices (polyline paths, and edge paths of
 * lines only; paths with arcs, ellipses or splines are left out). Coordinates as stored (the hatch's OCS).
 */
export function hatchReadout(e: RawEntity): Record<string, unknown> {
  const tags = afterMarker(e.tags, 'AcDbHatch');
  const pathsAt = tags.findIndex((t) => t.code === 91);
  const before = pathsAt < 0 ? tags : tags.slice(0, pathsAt);
  const pattern = before.find((t) => t.code === 2)?.value.trim() ?? null;
  const solid = num(before.find((t) => t.code === 70)) === 1;
  // The trailer (style 75, pattern type 76, angle 52, scale 41...): 76 appears nowhere in the paths.
  const trailerAt = tags.findIndex((t) => t.code === 76);
  const trailerEnd = tags.findIndex((t, i) => i > trailerAt && t.code === 78);
  const trailer = trailerAt < 0 ? [] : tags.slice(trailerAt, trailerEnd < 0 ? undefined : trailerEnd);
  const scale = num(trailer.find((t) => t.code === 41));
  const angle = num(trailer.find((t) => t.code === 52));
  return {
    solid,
    pattern,
    pattern_scale: solid ? null : (scale ?? 1),
    pattern_angle: solid ? null : (angle ?? 0),
    boundary: pathsAt < 0 ? [] : hatchLoops(tags, pathsAt),
  };
}

/**
 * The straight loops of a HATCH's boundary paths, read from its count of paths (code 91) on. A path
 * ends with its count of source objects (97) and their handles; a spline edge may carry a 97 of its own
 * (its fit points), so reading stops at the first path with a spline edge.
 */
function hatchLoops(tags: readonly DxfTag[], pathsAt: number): Array<Array<[number, number]>> {
  const loops: Array<Array<[number, number]>> = [];
  let paths = num(tags[pathsAt]) ?? 0;
  let i = pathsAt + 1;
  while (paths > 0 && tags[i]?.code === 92) {
    const flags = num(tags[i]) ?? 0;
    i++;
    const loop: Array<[number, number]> = [];
    let straight = true;
    let edge = 0;
    let expectStart = false;
    for (; i < tags.length && (tags[i] as DxfTag).code !== 97; i++) {
      const t = tags[i] as DxfTag;
      const next = tags[i + 1];
      if ((flags & 2) !== 0) {
        if (t.code === 10 && next?.code === 20) loop.push([num(t) ?? 0, num(next) ?? 0]);
      } else if (t.code === 72) {
        edge = num(t) ?? 0;
        if (edge === 4) return loops;
        if (edge !== 1) straight = false;
        expectStart = true;
      } else if (edge === 1 && expectStart && t.code === 10 && next?.code === 20) {
        loop.push([num(t) ?? 0, num(next) ?? 0]);
        expectStart = false;
      }
    }
    i += 1 + (num(tags[i]) ?? 0);
    if (straight && loop.length > 0) loops.push(loop);
    paths--;
  }
  return loops;
}

/** An ATTDEF's tag, default value, prompt, insertion point and height (its text's, as stored). */
function attdefReadout(e: RawEntity): Record<string, unknown> {
  const text = attdefText(e);
  const value = (code: number) => e.tags.find((t) => t.code === code)?.value ?? null;
  return {
    tag: value(2),
    default: value(1),
    prompt: value(3),
    position: text ? [...text.position] : null,
    height: text?.height ?? null,
  };
}

/** What `query` adds to a raw entity's answer: the read-out of the types above, nothing for others. */
export function rawReadout(e: RawEntity): Record<string, unknown> {
  const type = e.dxf_type.toUpperCase();
  if (type === 'HATCH') return hatchReadout(e);
  if (type === 'ATTDEF') return attdefReadout(e);
  if (type === 'DIMENSION') return dimensionReadout(e);
  if (type === 'LEADER') return leaderReadout(e);
  if (isMLeaderType(type)) return mleaderReadout(e);
  if (type === 'TOLERANCE') return toleranceReadout(e);
  if (type === 'SHAPE') return shapeReadout(e);
  if (type === 'MLINE') return mlineReadout(e);
  if (type === 'WIPEOUT') return wipeoutReadout(e);
  if (type === 'HELIX') return helixReadout(e);
  if (type === 'ACAD_TABLE') return tableReadout(e);
  return {};
}

/** The text a raw entity shows (a MULTILEADER's MTEXT content, a TOLERANCE's); null for the others. */
export function rawText(e: RawEntity): string | null {
  if (isToleranceType(e.dxf_type)) return toleranceContent(e);
  return isMLeaderType(e.dxf_type) ? (mleaderGeometry(e).mtext?.text ?? null) : null;
}
