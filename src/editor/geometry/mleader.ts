/**
 * MULTILEADER (MLEADER; kept as read: its tags). After its AcDbMLeader marker the record is a tree of
 * fenced sections: `300 CONTEXT_DATA{ … 301 }` holds the scale, the content (MTEXT after `290 1`, a block
 * after `296 1`), the plane and the leaders (`302 LEADER{ … 303 }`), each with its leader lines
 * (`304 LEADER_LINE{ … 305 }`) of world vertices; the entity's own overrides follow the context.
 *
 * Drawn and bounded from its context data as ezdxf's renderer draws it: each leader line from its
 * vertices to the leader's last point and dogleg, a closed filled arrowhead at its first vertex, and its
 * MTEXT or its block (named by its block record's handle). Leader and dogleg settings are the entity's
 * own (codes 170, 291), not looked up in its MLEADERSTYLE.
 *
 * Moved as ezdxf's `MultiLeader.transform` does: points by the matrix, directions normalised, lengths by
 * the uniform scale, the content's extrusion and rotation through its OCS, the block's scale vector and
 * matrix (47), and the entity's copies of the arrow size, scale, dogleg length and block rotation/scale.
 * Where ezdxf divides by a zero dogleg (a leader whose dogleg length is 0), its direction is turned and
 * its length stays 0.
 */
import type { DxfTag, Entity, InsertEntity, MTextEntity, Point3, RawEntity, SolidEntity } from '../model.js';
import { applyPoint, applyVector, type Matrix } from './matrix.js';
import { cross, dot, normalize, ocsDirection, ocsOf, ocsTransform, toWcs, Z_AXIS } from './ocs.js';
import {
  pointAt,
  pointIndices,
  pointTags,
  standInCommon,
  subclassEnd,
  subclassStart,
  TagEditor,
  tagNumber,
} from './raw-tags.js';

export const isMLeaderType = (dxfType: string) => {
  const t = dxfType.toUpperCase();
  return t === 'MULTILEADER' || t === 'MLEADER';
};

type Section = 'entity' | 'context' | 'mtext' | 'block' | 'leader' | 'line';

/** One field of the tree: its section, code, the index of its (first) tag, and its leader and line (from 0). */
interface Field {
  section: Section;
  code: number;
  at: number;
  leader: number;
  line: number;
}

/** Codes that hold points (x; y and z follow at +10 and +20), by section. */
const POINTS: Readonly<Record<Section, ReadonlySet<number>>> = {
  entity: new Set([10]),
  context: new Set([10, 110, 111, 112]),
  mtext: new Set([11, 12, 13]),
  block: new Set([14, 15, 16]),
  leader: new Set([10, 11, 12, 13]),
  line: new Set([10, 11, 12]),
};
/** The codes of an MTEXT content section and of a block content section (ezdxf's MTextData, BlockData). */
const MTEXT_CODES = new Set([
  304, 11, 340, 12, 13, 42, 43, 44, 45, 170, 90, 171, 172, 91, 141, 92, 291, 292, 173, 293, 142, 143, 294,
  144, 295,
]);
const BLOCK_CODES = new Set([341, 14, 15, 16, 46, 93, 47]);

/** The fields of the AcDbMLeader subclass, in order, each point once (at its x). */
function fields(tags: readonly DxfTag[]): Field[] {
  const from = subclassStart(tags, 'AcDbMLeader');
  const to = subclassEnd(tags, from);
  const out: Field[] = [];
  let section: Section = 'entity';
  let leader = -1;
  let line = -1;
  for (let i = from; i < to; i++) {
    const t = tags[i] as DxfTag;
    const code = t.code;
    if (section === 'mtext' && !MTEXT_CODES.has(code)) section = 'context';
    if (section === 'block' && !BLOCK_CODES.has(code)) section = 'context';
    if (section === 'entity' && code === 300 && t.value.trim() === 'CONTEXT_DATA{') {
      section = 'context';
      continue;
    }
    if (section === 'context') {
      if (code === 301) {
        section = 'entity';
        continue;
      }
      if (code === 302) {
        section = 'leader';
        leader++;
        continue;
      }
    } else if (section === 'leader') {
      if (code === 303) {
        section = 'context';
        continue;
      }
      if (code === 304 && t.value.trim() === 'LEADER_LINE{') {
        section = 'line';
        line++;
        continue;
      }
    } else if (section === 'line' && code === 305) {
      section = 'leader';
      continue;
    }
    out.push({ section, code, at: i, leader, line });
    if (section === 'context' && code === 290 && tagNumber(t) === 1) section = 'mtext';
    else if (section === 'context' && code === 296 && tagNumber(t) === 1) section = 'block';
    // A point's y and z belong to it.
    if (POINTS[section].has(code)) i = Math.max(i, ...pointIndices(tags, i));
  }
  return out;
}

interface Leader {
  last: Point3;
  dogleg: Point3;
  doglegLength: number;
  /** Attached at the content's side (271 = 0), so a dogleg runs from its last point. */
  horizontal: boolean;
  lines: Point3[][];
}

interface MLeaderGeometry {
  scale: number;
  charHeight: number;
  arrowSize: number;
  leaders: Leader[];
  mtext?: { text: string; insert: Point3; direction: Point3; width: number; alignment: number };
  block?: { record: string; insert: Point3; scale: Point3; rotation: number; extrusion: Point3 };
  /** 0 invisible, 1 straight lines, 2 a spline (drawn through its points as lines). */
  leaderType: number;
  hasDogleg: boolean;
}

/** What a MULTILEADER's tags say of its geometry. */
export function mleaderGeometry(e: RawEntity): MLeaderGeometry {
  const tags = e.tags;
  const g: MLeaderGeometry = {
    scale: 1,
    charHeight: 4,
    arrowSize: 4,
    leaders: [],
    leaderType: 1,
    hasDogleg: true,
  };
  const mtext = {
    text: '',
    insert: [0, 0, 0] as Point3,
    direction: [1, 0, 0] as Point3,
    width: 0,
    alignment: 1,
  };
  const block = {
    record: '',
    insert: [0, 0, 0] as Point3,
    scale: [1, 1, 1] as Point3,
    rotation: 0,
    extrusion: Z_AXIS,
  };
  let hasMText = false;
  let hasBlock = false;
  const lines = new Map<number, Point3[]>();
  const leaderOf = (f: Field): Leader => {
    let leader = g.leaders[f.leader];
    if (!leader) {
      leader = { last: [0, 0, 0], dogleg: [1, 0, 0], doglegLength: 1, horizontal: true, lines: [] };
      g.leaders[f.leader] = leader;
    }
    return leader;
  };
  for (const f of fields(tags)) {
    const t = tags[f.at] as DxfTag;
    const n = tagNumber(t) ?? 0;
    const p = () => pointAt(tags, f.at);
    switch (f.section) {
      case 'context':
        if (f.code === 40) g.scale = n;
        else if (f.code === 41) g.charHeight = n;
        else if (f.code === 140) g.arrowSize = n;
        else if (f.code === 290) hasMText = n === 1;
        else if (f.code === 296) hasBlock = n === 1;
        break;
      case 'mtext':
        if (f.code === 304) mtext.text = t.value;
        else if (f.code === 12) mtext.insert = p();
        else if (f.code === 13) mtext.direction = p();
        else if (f.code === 43) mtext.width = n;
        else if (f.code === 171) mtext.alignment = n;
        break;
      case 'block':
        if (f.code === 341) block.record = t.value.trim();
        else if (f.code === 15) block.insert = p();
        else if (f.code === 16) block.scale = p();
        else if (f.code === 46) block.rotation = n;
        else if (f.code === 14) block.extrusion = p();
        break;
      case 'leader': {
        const leader = leaderOf(f);
        if (f.code === 10) leader.last = p();
        else if (f.code === 11) leader.dogleg = p();
        else if (f.code === 40) leader.doglegLength = n;
        else if (f.code === 271) leader.horizontal = n === 0;
        break;
      }
      case 'line': {
        let line = lines.get(f.line);
        if (!line) {
          line = [];
          lines.set(f.line, line);
          leaderOf(f).lines.push(line);
        }
        if (f.code === 10) line.push(p());
        break;
      }
      case 'entity':
        if (f.code === 170) g.leaderType = n;
        else if (f.code === 291) g.hasDogleg = n !== 0;
        break;
    }
  }
  g.leaders = g.leaders.filter((l) => l !== undefined);
  if (hasMText) g.mtext = mtext;
  if (hasBlock) g.block = block;
  return g;
}

const add = (a: Point3, b: Point3): Point3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const times = (v: Point3, s: number): Point3 => [v[0] * s, v[1] * s, v[2] * s];
const length = (v: Point3) => Math.sqrt(dot(v, v));

/** A leader line's drawn vertices (ezdxf's `leader_vertices`): its own, then the leader's end and dogleg. */
function lineVertices(leader: Leader, own: readonly Point3[], hasDogleg: boolean): Point3[] {
  const out = [...own];
  if (!leader.horizontal) return [...out, leader.last];
  if (hasDogleg) out.push(leader.last);
  const d = length(leader.dogleg) === 0 ? [1, 0, 0] : normalize(leader.dogleg);
  out.push(add(leader.last, times(d as Point3, leader.doglegLength)));
  return out;
}

/**
 * The modeled entities that draw it: Lines of its leaders, a SOLID for each arrowhead, and its MTEXT or
 * an Insert of its block (`blockName` resolves the block record's handle).
 */
export function mleaderStandIns(e: RawEntity, blockName?: (record: string) => string | undefined): Entity[] {
  const g = mleaderGeometry(e);
  const common = standInCommon(e);
  const out: Entity[] = [];
  if (g.mtext) {
    const d = g.mtext.direction;
    const text: MTextEntity = {
      type: 'MText',
      ...common,
      value: g.mtext.text,
      position: g.mtext.insert,
      height: g.charHeight,
      width: g.mtext.width * g.scale,
      rotation: (Math.atan2(d[1], d[0]) * 180) / Math.PI,
      style: 'Standard',
      attachment: g.mtext.alignment >= 1 && g.mtext.alignment <= 3 ? g.mtext.alignment : 1,
    };
    out.push(text);
  } else if (g.block) {
    const name = blockName?.(g.block.record);
    if (name) {
      const insert: InsertEntity = {
        type: 'Insert',
        ...common,
        name,
        position: g.block.insert,
        scale: g.block.scale,
        rotation: (g.block.rotation * 180) / Math.PI,
      };
      out.push(isWorld(g.block.extrusion) ? insert : { ...insert, extra: pointTags(210, g.block.extrusion) });
    }
  }
  if (g.leaderType === 0) return out;
  for (const leader of g.leaders) {
    for (const own of leader.lines) {
      const vertices = lineVertices(leader, own, g.leaderType !== 2 && g.hasDogleg);
      if (vertices.length < 2) continue;
      const [first, second] = vertices as [Point3, Point3];
      const dir = normalize([second[0] - first[0], second[1] - first[1], second[2] - first[2]]);
      if (g.arrowSize > 0 && length(dir) > 0) {
        out.push(arrowhead(common, first, dir, g.arrowSize));
        vertices[0] = add(first, times(dir, g.arrowSize));
      }
      for (let i = 0; i + 1 < vertices.length; i++)
        out.push({ type: 'Line', ...common, start: vertices[i] as Point3, end: vertices[i + 1] as Point3 });
    }
  }
  return out;
}

const isWorld = (v: Point3) => ocsOf(v) === undefined;

/** A closed filled arrowhead: its tip at `tip`, its base `size` back along `dir`, size/6 each side. */
function arrowhead(
  common: Omit<RawEntity, 'type' | 'dxf_type' | 'tags'>,
  tip: Point3,
  dir: Point3,
  size: number,
): SolidEntity {
  const back = add(tip, times(dir, size));
  const side: Point3 = [-dir[1] * (size / 6), dir[0] * (size / 6), 0];
  const left = add(back, side);
  const right = add(back, times(side, -1));
  return { type: 'Solid', ...common, corners: [tip, left, right, right] };
}

/** ezdxf's `OCSTransform.transform_angle`: an angle (radians) of the old OCS in the new one. */
function ocsAngle(extrusion: Point3, m: Matrix, radians: number): number {
  const d = ocsDirection(ocsTransform(extrusion, m), [Math.cos(radians), Math.sin(radians), 0]);
  return Math.atan2(d[1], d[0]);
}

/** ezdxf's `OCSTransform.transform_scale_vector`. */
function scaleVector(extrusion: Point3, m: Matrix, v: Point3): Point3 {
  const old = ocsOf(extrusion);
  const ux = applyVector(m, toWcs(old, [1, 0, 0]));
  const uy = applyVector(m, toWcs(old, [0, 1, 0]));
  const uz = applyVector(m, toWcs(old, [0, 0, 1]));
  const expected = normalize(cross(uz, ux));
  const actual = normalize(uy);
  const same = expected.every((c, i) => Math.abs(c - (actual[i] as number)) <= 1e-12);
  const y = length(uy) * v[1];
  return [length(ux) * v[0], same ? y : -y, length(uz) * v[2]];
}

/** The block's matrix (47, sixteen values, row-major as stored) after `m`: m's column form times it. */
function blockMatrix(values: readonly number[], m: Matrix): number[] {
  const left = [m.a, m.c, 0, m.e, m.b, m.d, 0, m.f, 0, 0, m.sz, m.tz, 0, 0, 0, 1];
  const out: number[] = [];
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) {
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += (left[r * 4 + k] as number) * (values[k * 4 + c] as number);
      out.push(sum);
    }
  return out;
}

/** The MULTILEADER's tags carried by `m` (a similarity), as ezdxf's `MultiLeader.transform` does. */
export function transformMLeader(e: RawEntity, m: Matrix): RawEntity {
  const list = fields(e.tags);
  const ed = new TagEditor(e.tags);
  const tags = ed.tags;
  const s = length(applyVector(m, [1, 0, 0]));
  const n = (f: Field) => tagNumber(tags[f.at]) ?? 0;
  const p = (f: Field) => pointAt(tags, f.at);
  const scaled = (f: Field) => ed.setNumber(f.at, n(f) * s);
  const point = (f: Field) => ed.setPoint(f.at, applyPoint(m, p(f)));
  const direction = (f: Field) => ed.setPoint(f.at, normalize(applyVector(m, p(f))));
  // The content's OCS is its extrusion before the transform.
  const before = (section: Section, code: number) => {
    const f = list.find((x) => x.section === section && x.code === code);
    return f ? p(f) : Z_AXIS;
  };
  const mtextExtrusion = before('mtext', 11);
  const blockExtrusion = before('block', 14);
  const context: { scale?: number; arrow?: number; rotation?: number; blockScale?: Point3 } = {};
  let axes: { x?: Point3; y?: Point3; reversed?: Field } = {};
  let hasBlock = false;
  const matrix: Field[] = [];
  const doglegs: Array<{ vector?: Field; length?: Field }> = [];
  const entity = new Map<number, Field>();
  for (const f of list) {
    switch (f.section) {
      case 'context':
        if (f.code === 40) {
          scaled(f);
          context.scale = n(f);
        } else if (f.code === 140) {
          scaled(f);
          context.arrow = n(f);
        } else if (f.code === 41 || f.code === 145) scaled(f);
        else if (f.code === 10 || f.code === 110) point(f);
        else if (f.code === 111 || f.code === 112) {
          direction(f);
          axes = { ...axes, [f.code === 111 ? 'x' : 'y']: p(f) };
        } else if (f.code === 297) axes.reversed = f;
        else if (f.code === 296) hasBlock = n(f) === 1;
        break;
      case 'mtext':
        if (f.code === 11) ed.setPoint(f.at, ocsTransform(mtextExtrusion, m).extrusion);
        else if (f.code === 12) point(f);
        else if (f.code === 13) direction(f);
        else if (f.code === 42) ed.setNumber(f.at, ocsAngle(mtextExtrusion, m, n(f)));
        else if (f.code === 43 || f.code === 44 || f.code === 142 || f.code === 143 || f.code === 144)
          scaled(f);
        break;
      case 'block':
        if (f.code === 14) ed.setPoint(f.at, ocsTransform(blockExtrusion, m).extrusion);
        else if (f.code === 15) point(f);
        else if (f.code === 16) {
          ed.setPoint(f.at, scaleVector(blockExtrusion, m, p(f)));
          context.blockScale = p(f);
        } else if (f.code === 46) {
          ed.setNumber(f.at, ocsAngle(blockExtrusion, m, n(f)));
          context.rotation = n(f);
        } else if (f.code === 47) matrix.push(f);
        break;
      case 'leader': {
        doglegs[f.leader] ??= {};
        const leg = doglegs[f.leader] as { vector?: Field; length?: Field };
        if (f.code === 10 || f.code === 12 || f.code === 13) point(f);
        else if (f.code === 11) leg.vector = f;
        else if (f.code === 40) leg.length = f;
        break;
      }
      case 'line':
        if (f.code === 10 || f.code === 11 || f.code === 12) point(f);
        break;
      case 'entity':
        entity.set(f.code, f);
        break;
    }
  }
  for (const leg of doglegs) if (leg) transformDogleg(ed, leg, m);
  if (matrix.length === 16) {
    const next = blockMatrix(
      matrix.map((f) => n(f)),
      m,
    );
    matrix.forEach((f, i) => {
      ed.setNumber(f.at, next[i] as number);
    });
  }
  if (axes.reversed && axes.x && axes.y) {
    const plane = normalize(cross(axes.x, axes.y));
    const z = normalize(applyVector(m, Z_AXIS));
    const reversed = z.every((c, i) => Math.abs(c + (plane[i] as number)) <= 1e-9);
    ed.setNumber(axes.reversed.at, reversed ? 1 : 0);
  }
  // The entity's copies of the context's values (written where the file left them out, as ezdxf would).
  const extra: DxfTag[] = [];
  const put = (code: number, value: number) => {
    const f = entity.get(code);
    if (f) ed.setNumber(f.at, value);
    else extra.push({ code, value: String(value) });
  };
  const dogleg = entity.get(41);
  put(41, (dogleg ? n(dogleg) : 8) * s);
  if (context.arrow !== undefined) put(42, context.arrow);
  if (context.scale !== undefined) put(45, context.scale);
  if (hasBlock) {
    if (context.rotation !== undefined) put(43, context.rotation);
    const at = entity.get(10);
    const v = context.blockScale ?? [1, 1, 1];
    if (at) ed.setPoint(at.at, v);
    else extra.push(...pointTags(10, v));
  }
  if (extra.length > 0) tags.splice(subclassEnd(tags, subclassStart(tags, 'AcDbMLeader')), 0, ...extra);
  return { ...e, tags };
}

/** A leader's dogleg vector and length as ezdxf turns them (its length by the scale, its direction unit). */
function transformDogleg(ed: TagEditor, leg: { vector?: Field; length?: Field }, m: Matrix): void {
  const tags = ed.tags;
  const v = leg.vector ? pointAt(tags, leg.vector.at) : ([1, 0, 0] as Point3);
  const len = leg.length ? (tagNumber(tags[leg.length.at]) ?? 0) : 1;
  const unit = length(v) === 0 ? ([1, 0, 0] as Point3) : normalize(v);
  const turned = applyVector(m, times(unit, len));
  const newLength = length(turned);
  const newVector = newLength === 0 ? normalize(applyVector(m, unit)) : normalize(turned);
  if (leg.vector) ed.setPoint(leg.vector.at, newVector);
  if (leg.length) ed.setNumber(leg.length.at, newLength);
}

/** A MULTILEADER's readout (its text is the answer's `text`): its content, leaders (their lines' vertices) and arrowhead size. */
export function mleaderReadout(e: RawEntity): Record<string, unknown> {
  const g = mleaderGeometry(e);
  return {
    content: g.mtext ? 'mtext' : g.block ? 'block' : 'none',
    text_position: g.mtext?.insert ?? null,
    block_position: g.block?.insert ?? null,
    arrow_size: g.arrowSize,
    scale: g.scale,
    leaders: g.leaders.map((l) => ({
      last_point: l.last,
      dogleg: l.dogleg,
      dogleg_length: l.doglegLength,
      lines: l.lines,
    })),
  };
}
