/**
 * ezdxf is the oracle of transforms: every model-space entity of every corpus file is moved, rotated,
 * scaled by a negative factor (a half turn and a shrink) and mirrored by chronicle's entities_transform
 * in one request per step, and those of the types ezdxf's side views — ELLIPSE, LINE, POINT, INSERT
 * (MINSERT grids and attributes with them), DIMENSION, SOLID, TRACE, 3DFACE, XLINE, RAY, POLYLINE,
 * HATCH, SPLINE, CIRCLE, ARC, LWPOLYLINE, TEXT, MTEXT, IMAGE, LEADER — equal what ezdxf's own
 * transform(Matrix44) makes of the same file, field by field, within 1e-9 (relative above 1); the
 * other types are named with the test that compares them. Files ezdxf makes add the types the corpus
 * lacks. The ezdxf side is scripts/dxf-transform-oracle.py, asked through one process for the whole
 * file (scripts/dxf-corpus-oracle.py).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { readDxf } from '../../../src/editor/dxf/index.js';
import {
  type Harness,
  needEzdxf,
  python,
  type Reply,
  scratchDir,
  startHarness,
} from '../dispatcher/helpers.js';
import { corpusFiles, corpusPath, EzdxfOracle, factsOf, readable } from './corpus.js';

const STEPS = [
  { action: 'move', vector: [12.5, -3.25, 0] },
  { action: 'rotate', center: [1, 2], angle: 30 },
  { action: 'scale', center: [3, 4, 0], factor: -0.5 },
  {
    action: 'mirror',
    axis: [
      [0, 0],
      [1, 2],
    ],
  },
];

/** The types compared, as chronicle names them (a raw one by its DXF name). */
const TYPES = [
  'Ellipse',
  'Line',
  'Point',
  'Insert',
  'DIMENSION',
  'Solid',
  'Trace',
  'Face3d',
  'XLine',
  'Ray',
  'Polyline',
  'HATCH',
  'Spline',
  'Circle',
  'Arc',
  'LwPolyline',
  'Text',
  'MText',
  'Image',
  'LEADER',
];
/** Types whose extrusion is a field of their own (others keep theirs with their unmodeled codes). */
const WITH_EXTRUSION = new Set(['Ellipse', 'Solid', 'Trace', 'Polyline', 'Spline']);
/** The type an answer is compared as: a modeled type's name, a raw one's DXF name. */
const typeOf = (e: Fields) => String(e.type === 'Raw' ? e.dxf_type : e.type);

type Fields = Record<string, unknown>;
type Tags = Array<{ code: number; value: string }>;

/**
 * An Insert as the oracle gives it: the frame its block is drawn in (origin, x and y axes of its matrix),
 * the insertion point of each cell of its grid (gridOffsets), its attributes' points and heights.
 */
function insertView(e: Fields): Fields {
  const extra = (e.extra ?? []) as Tags;
  const num = (tags: Tags, code: number, fallback: number) => {
    const tag = tags.find((t) => t.code === code);
    return tag ? Number(tag.value) : fallback;
  };
  // An extrusion of (0, 0, -1) is the world mirrored in x (and z): the fields are in that OCS.
  const flip = num(extra, 230, 1) < 0 ? -1 : 1;
  const world = ([x, y, z]: number[]) => [flip * (x as number), y as number, flip * (z as number)];
  const [px, py, pz] = e.position as number[];
  const [sx, sy] = e.scale as number[];
  const r = ((e.rotation as number) * Math.PI) / 180;
  const origin = world([px as number, py as number, pz as number]);
  const xAxis = world([Math.cos(r) * (sx as number), Math.sin(r) * (sx as number), 0]);
  const yAxis = world([-Math.sin(r) * (sy as number), Math.cos(r) * (sy as number), 0]);
  const columns = Math.max(1, num(extra, 70, 1));
  const rows = Math.max(1, num(extra, 71, 1));
  const dx = num(extra, 44, 0);
  const dy = num(extra, 45, 0);
  const cells: number[][] = [];
  const seen = new Set<string>();
  for (let row = 0; row < rows; row++)
    for (let column = 0; column < columns; column++) {
      const key = `${column * dx},${row * dy}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const [ox, oy] = [column * dx, row * dy];
      const cell = world([
        (px as number) + ox * Math.cos(r) - oy * Math.sin(r),
        (py as number) + ox * Math.sin(r) + oy * Math.cos(r),
        pz as number,
      ]);
      cells.push(cell);
    }
  const attribs: number[][] = [];
  const tags = (e.attribs ?? []) as Tags;
  for (let i = 0; i < tags.length; i++) {
    if (tags[i]?.code !== 0 || tags[i]?.value !== 'ATTRIB') continue;
    let j = i + 1;
    while (j < tags.length && tags[j]?.code !== 0 && tags[j]?.code !== 101) j++;
    const own = tags.slice(i + 1, j);
    const oz = num(own, 230, 1) < 0 ? -1 : 1;
    attribs.push([oz * num(own, 10, 0), num(own, 20, 0), oz * num(own, 30, 0), num(own, 40, 0)]);
  }
  return { ...e, origin, x_axis: xAxis, y_axis: yAxis, cells, attribs };
}

/**
 * A DIMENSION as the oracle gives it: its definition points and angle directions in the world (11, 12
 * and 16 read through its OCS) and the lines of its geometry block (`lines`: every Line answer by block).
 */
function dimensionView(e: Fields, lines: Map<string, number[][][]>): Fields {
  const tags = e.tags as Tags;
  const from = tags.findIndex((t) => t.code === 100 && t.value === 'AcDbDimension') + 1;
  const own = tags.slice(from);
  const value = (code: number) => {
    const tag = own.find((t) => t.code === code);
    return tag === undefined ? undefined : Number(tag.value);
  };
  const flip = (value(230) ?? 1) < 0 ? -1 : 1;
  const points: Record<string, number[]> = {};
  for (const code of [10, 11, 12, 13, 14, 15, 16]) {
    const x = value(code);
    if (x === undefined) continue;
    const p = [x, value(code + 10) ?? 0, value(code + 20) ?? 0];
    points[code] = [11, 12, 16].includes(code)
      ? [flip * (p[0] as number), p[1] as number, flip * (p[2] as number)]
      : p;
  }
  const directions: Record<string, number[]> = {};
  for (const code of [50, 51, 53]) {
    const a = value(code);
    if (a === undefined) continue;
    const r = (a * Math.PI) / 180;
    directions[code] = [flip * Math.cos(r), Math.sin(r), 0];
  }
  const block = own.find((t) => t.code === 2)?.value ?? '';
  return { ...e, type: 'DIMENSION', points, directions, block_lines: lines.get(block.toUpperCase()) ?? [] };
}

/**
 * A HATCH as the oracle gives it: the world points of its boundary paths (polyline vertices, line edges'
 * ends, arc and ellipse edges' centres), read from its tags here (not by the editor's own reader).
 */
function hatchView(e: Fields): Fields {
  const tags = e.tags as Tags;
  let i = tags.findIndex((t) => t.code === 100 && t.value === 'AcDbHatch') + 1;
  const n = (k: number) => Number(tags[k]?.value);
  const flip = tags.some((t) => t.code === 230 && Number(t.value) < 0) ? -1 : 1;
  const z = n(tags.findIndex((t, k) => k >= i && t.code === 30));
  const world = (x: number, y: number) => [flip * x, y, flip * (Number.isFinite(z) ? z : 0)];
  while (i < tags.length && tags[i]?.code !== 91) i++;
  const count = n(i++);
  const paths: number[][][] = [];
  for (let p = 0; p < count; p++) {
    while (i < tags.length && tags[i]?.code !== 92) i++;
    const flags = n(i++);
    const points: number[][] = [];
    if (flags & 2) {
      while (tags[i]?.code !== 93) i++;
      const vertices = n(i++);
      for (let v = 0; v < vertices; v++) {
        points.push(world(n(i), n(i + 1)));
        i += 2;
        if (tags[i]?.code === 42) i++;
      }
    } else {
      while (tags[i]?.code !== 93) i++;
      const edges = n(i++);
      for (let k = 0; k < edges; k++) {
        const type = n(i++);
        if (type === 1) points.push(world(n(i), n(i + 1)), world(n(i + 2), n(i + 3)));
        if (type === 2 || type === 3) points.push(world(n(i), n(i + 1)));
        while (i < tags.length && tags[i]?.code !== 72 && tags[i]?.code !== 97) i++;
      }
    }
    while (i < tags.length && tags[i]?.code !== 97) i++;
    i += 1 + n(i);
    paths.push(points);
  }
  return { ...e, type: 'HATCH', paths };
}

/**
 * Every Line of every block, by block name (upper case), in block order: a DIMENSION's block lines. A
 * plain query lists only the blocks Inserts insert, so the blocks' handles are read from the file.
 */
async function blockLines(doc: number, path: string): Promise<Map<string, number[][][]>> {
  const model = readDxf(readFileSync(path, 'latin1'));
  const handles = Object.values(model.blocks).flatMap((b) => b.entities);
  const answer: Reply = await h.raw({
    protocol: 1,
    op: 'query',
    document_id: doc,
    detail: 'full',
    handles,
    limit: 10_000,
  });
  expect(answer.ok, answer.error).toBe(true);
  const out = new Map<string, number[][][]>();
  for (const e of answer.entities as Fields[]) {
    if (e.type !== 'Line') continue;
    const key = String(e.space).toUpperCase();
    out.set(key, [...(out.get(key) ?? []), [e.start as number[], e.end as number[]]]);
  }
  return out;
}

/** ezdxf's reading of each compared model-space entity and what its transform makes of it, in file order. */
async function oracle(path: string, recover: boolean): Promise<{ before: Fields; after: Fields }[]> {
  // The oracle also moves types compared by tests of their own (a MESH, in mesh.test.ts): only TYPES here.
  return (await everyOracleEntity(path, recover)).filter((e) => TYPES.includes(typeOf(e.before)));
}

/** ezdxf's reading and transform of every model-space entity, in file order (unviewed ones marked so). */
async function everyOracleEntity(
  path: string,
  recover: boolean,
): Promise<{ before: Fields; after: Fields }[]> {
  const answer = await ezdxf.ask<{ transformed: { before: Fields; after: Fields }[] }>({
    op: 'transform',
    path,
    recover,
    steps: STEPS,
  });
  return answer.transformed;
}

/** The compared model-space entities at detail=full, in drawing order. */
async function compared(doc: number, path: string, handles?: string[]): Promise<Fields[]> {
  const answer: Reply = await h.raw({
    protocol: 1,
    op: 'query',
    document_id: doc,
    detail: 'full',
    limit: 10_000,
    ...(handles ? { handles } : {}),
  });
  expect(answer.ok, answer.error).toBe(true);
  const entities = answer.entities as Fields[];
  const lines = entities.some((e) => typeOf(e) === 'DIMENSION') ? await blockLines(doc, path) : new Map();
  return entities
    .filter((e) => e.space === '*Model_Space' && TYPES.includes(typeOf(e)))
    .map((e) =>
      typeOf(e) === 'DIMENSION' ? dimensionView(e, lines) : typeOf(e) === 'HATCH' ? hatchView(e) : e,
    );
}

/** Differences of chronicle's fields from ezdxf's, as `Type index.field: ...` lines. */
function compare(expected: Fields[], actual: Fields[], what: string): string[] {
  const out: string[] = [];
  if (actual.length !== expected.length) {
    return [`${what}: ezdxf has ${expected.length} entities, chronicle ${actual.length}`];
  }
  expected.forEach((fields, i) => {
    const a = actual[i] as Fields;
    const own: Fields = a.type === 'Insert' ? insertView(a) : worldView(a);
    const seen: Fields = {
      ...own,
      type: typeOf(own),
      extrusion: own.extrusion ?? [0, 0, 1],
      thickness: extraOf(a, 39),
      default_start_width: extraOf(a, 40),
      default_end_width: extraOf(a, 41),
    };
    for (const [key, value] of Object.entries(fields)) {
      if (key === 'extrusion' && !WITH_EXTRUSION.has(String(fields.type))) continue;
      differences(value, seen[key], `${what} ${fields.type} #${i} (${a.handle}).${key}`, out);
    }
  });
  return out;
}

/** x and z turned over when the entity's extrusion (kept among its unmodeled codes) is (0, 0, -1). */
function ocsFlip(e: Fields): (p: number[]) => number[] {
  const flip = extraOf(e, 230) < 0 ? -1 : 1;
  return ([x, y, z]) => [flip * (x as number), y as number, flip * ((z as number) ?? 0)];
}

/** Lexicographic order of points rounded to 6 places, as the oracle sorts an arc's ends. */
function byRounded(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) {
    const d = Math.round((a[i] as number) * 1e6) - Math.round((b[i] as number) * 1e6);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * CIRCLE, ARC, LWPOLYLINE, TEXT and MTEXT as the oracle gives them, in world terms (a mirror may turn
 * the extrusion over in ezdxf where chronicle mirrors angles): centres, points and directions in the
 * world, an arc's ends as a sorted pair, a polyline's bulges as seen from +z. Others as they are.
 */
function worldView(e: Fields): Fields {
  const world = ocsFlip(e);
  const deg = (d: unknown) => ((d as number) * Math.PI) / 180;
  const flip = extraOf(e, 230) < 0 ? -1 : 1;
  if (e.type === 'Circle' || e.type === 'Arc') {
    const [cx, cy, cz] = e.center as number[];
    const r = e.radius as number;
    const at = (a: number) =>
      world([(cx as number) + r * Math.cos(a), (cy as number) + r * Math.sin(a), cz ?? 0]);
    const ends = [at(deg(e.start_angle)), at(deg(e.end_angle))].sort(byRounded);
    return { ...e, center: world(e.center as number[]), ...(e.type === 'Arc' ? { ends } : {}) };
  }
  if (e.type === 'LwPolyline') {
    const vertices = e.vertices as Array<{ x: number; y: number; bulge: number }>;
    const z = (e.elevation as number) ?? 0;
    return {
      ...e,
      world: vertices.map((v) => world([v.x, v.y, z])),
      world_bulges: vertices.map((v) => flip * v.bulge),
    };
  }
  if (e.type === 'Text' || e.type === 'MText') {
    const r = deg(e.rotation ?? 0);
    // A Text drawn backwards (71 bit 2) advances against its rotation.
    const backwards = e.type === 'Text' && extraOf(e, 71) & 2 ? -1 : 1;
    return {
      ...e,
      world_position: world(e.position as number[]),
      world_direction: world([Math.cos(r), Math.sin(r), 0]),
      world_advance: world([backwards * Math.cos(r), backwards * Math.sin(r), 0]),
    };
  }
  return e;
}

/** A number an entity keeps among its unmodeled codes (thickness 39, default widths 40, 41), 0 when absent. */
function extraOf(e: Fields, code: number): number {
  const tag = (e.extra as Tags | undefined)?.find((t) => t.code === code);
  return tag ? Number(tag.value) : 0;
}

/** Every number of `actual` within 1e-9 of `expected` (relative for magnitudes above 1), by field path. */
function differences(expected: unknown, actual: unknown, path: string, out: string[]): void {
  if (typeof expected === 'number') {
    const ok =
      typeof actual === 'number' && Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
    if (!ok) out.push(`${path}: ezdxf ${expected}, chronicle ${JSON.stringify(actual)}`);
    return;
  }
  if (Array.isArray(expected)) {
    expected.forEach((v, i) => {
      differences(v, Array.isArray(actual) ? actual[i] : undefined, `${path}[${i}]`, out);
    });
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    const given = (actual ?? {}) as Fields;
    const keys = new Set([...Object.keys(expected), ...Object.keys(given)]);
    for (const key of keys) differences((expected as Fields)[key], given[key], `${path}.${key}`, out);
    return;
  }
  if (expected !== actual)
    out.push(`${path}: ezdxf ${JSON.stringify(expected)}, chronicle ${JSON.stringify(actual)}`);
}

/**
 * Opens `path`, transforms its compared model-space entities by STEPS with entities_transform, and expects
 * ezdxf's reading and transform of the same file, field by field. Answers how many were compared.
 */
async function sameAsEzdxf(path: string, recover: boolean, known: string[] = []): Promise<number> {
  const expected = await oracle(path, recover);
  if (expected.length === 0) return 0; // only in blocks: entities_transform moves model-space entities
  const opened = await h.call('open', { path: path });
  expect(opened.ok, `${opened.code}: ${opened.error}`).toBe(true);
  const doc = opened.document_id as number;
  const before = await compared(doc, path);
  // The same entities in the same order, read the same: so each one is compared with its own.
  expect(
    compare(
      expected.map((e) => e.before),
      before,
      'read',
    ),
  ).toEqual([]);
  const handles = before.map((e) => String(e.handle));
  for (const step of STEPS) {
    const answer = await h.call('entities_transform', { document_id: doc, handles, ...step });
    expect(answer.ok, `${step.action}: ${answer.code}: ${answer.error}`).toBe(true);
    expect((answer.result as { not_transformable: unknown[] }).not_transformable).toEqual([]);
  }
  const after = await compared(doc, path, handles);
  expect(
    compare(
      expected.map((e) => e.after),
      after,
      'transformed',
    ),
  ).toEqual(known);
  await h.ok('close', { document_id: doc, discard: true });
  return expected.length;
}

let h: Harness;
const ezdxf = new EzdxfOracle();
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  ezdxf.close();
  await h.close();
});

/**
 * Files whose transform chronicle does not yet make as ezdxf does, with the differences exactly and why;
 * the test fails when they change or go, so the list cannot go stale.
 */
const TRANSFORMED_OTHERWISE: Readonly<Record<string, { why: string; differences: string[] }>> = {
  'netdxf-sample-2018.dxf': {
    why:
      'a full ELLIPSE (0 to 2π) ends at 2π in chronicle and at ~0 in ezdxf 0.18 (the same curve); the ' +
      '*T12 INSERT of scale 0, 0, 0 keeps zero axes in chronicle, where ezdxf 0.18 makes them half-length ' +
      '(it reads a zero scale as 1)',
    differences: [
      'transformed Ellipse #2 (23A).end_param: ezdxf 3.552713678800501e-15, chronicle 6.28318530717959',
      'transformed Insert #47 (1787).x_axis[0]: ezdxf 0.059807621135331696, chronicle 0',
      'transformed Insert #47 (1787).x_axis[1]: ezdxf -0.4964101615137754, chronicle 0',
      'transformed Insert #47 (1787).y_axis[0]: ezdxf -0.4964101615137754, chronicle 0',
      'transformed Insert #47 (1787).y_axis[1]: ezdxf -0.059807621135331696, chronicle 0',
    ],
  },
};

/**
 * Model-space types this test transforms but does not compare field by field, with the test that does
 * (against ezdxf too) or why none can.
 */
const COMPARED_ELSEWHERE: Readonly<Record<string, string>> = {
  MESH: 'mesh.test.ts',
  MLINE: 'mline-wipeout-helix.test.ts',
  WIPEOUT: 'mline-wipeout-helix.test.ts',
  HELIX: 'mline-wipeout-helix.test.ts',
  MULTILEADER: 'mleader.test.ts',
  TOLERANCE: 'tolerance-shape.test.ts',
  SHAPE: 'tolerance-shape.test.ts',
  ACAD_TABLE: 'mleader.test.ts',
  PDFUNDERLAY: 'set apart by type (NOT_TRANSFORMABLE)',
};

/** Model-space types entities_transform sets apart (not_transformable), with why. */
const NOT_TRANSFORMABLE: Readonly<Record<string, string>> = {
  PDFUNDERLAY:
    "not moved yet: its insertion point, scale and rotation could be, but ezdxf 0.18's Underlay.transform raises NotImplementedError, so there is no oracle to move it against",
};

/** The steps taken back, last first: a transform and its inverse give the entities back. */
const INVERSE = [
  { action: 'mirror', axis: STEPS[3]?.axis },
  { action: 'scale', center: [3, 4, 0], factor: -2 },
  { action: 'rotate', center: [1, 2], angle: -30 },
  { action: 'move', vector: [-12.5, 3.25, 0] },
];

interface Bounded {
  handle: string;
  type: string;
  dxf_type?: string;
  space: string;
  bounds: { min: number[]; max: number[] } | null;
}

async function modelSpace(doc: number): Promise<Bounded[]> {
  const answer = await h.ok('query', { document_id: doc, detail: 'full', limit: 10_000 });
  return (answer.entities as Bounded[]).filter((e) => e.space === '*Model_Space');
}

/** Every model-space entity moved by `steps`; answers the types set apart (not_transformable). */
async function transformAll(doc: number, handles: string[], steps: ReadonlyArray<Record<string, unknown>>) {
  const apart: string[] = [];
  for (const step of steps) {
    const answer = await h.call('entities_transform', { document_id: doc, handles, ...step });
    expect(answer.ok, `${step.action}: ${answer.code}: ${answer.error}`).toBe(true);
    const refused = (answer.result as { not_transformable: Array<{ handle: string; type: string }> })
      .not_transformable;
    apart.push(...refused.map((r) => `${r.handle} ${r.type}`));
  }
  return apart;
}

/**
 * A file ezdxf reads: every model-space entity moved, rotated, scaled by -0.5 and mirrored; those of a
 * type the oracle views compared with ezdxf's transform field by field, the others' types named in
 * COMPARED_ELSEWHERE. A file ezdxf cannot read: transformed and taken back by the inverse steps, every
 * entity's bounds as before within 1e-9 (relative above 1).
 */
async function everyEntity(name: string): Promise<void> {
  const facts = factsOf(name);
  expect(facts, `${name}: facts.json lacks it; run scripts/dxf-corpus-facts.py`).toBeDefined();
  const path = corpusPath(name);
  const opened = await h.call('open', { path });
  expect(opened.ok, `${opened.code}: ${opened.error}`).toBe(true);
  const doc = opened.document_id as number;
  try {
    const all = await modelSpace(doc);
    const handles = all.map((e) => e.handle);
    if (!facts || !readable(facts)) {
      if (handles.length === 0) return;
      const apart = await transformAll(doc, handles, [...STEPS, ...INVERSE]);
      expect(apart, `${name}: set apart`).toEqual([]);
      const back = await modelSpace(doc);
      const out: string[] = [];
      all.forEach((e, i) => {
        differences(e.bounds, back[i]?.bounds, `${e.handle} ${e.dxf_type ?? e.type}.bounds`, out);
      });
      expect(out, `${name}: transformed and back`).toEqual([]);
      return;
    }
    const every = await everyOracleEntity(path, facts.read === 'recover');
    expect(every.length, `${name}: model-space entities, ezdxf and chronicle`).toBe(all.length);
    const unviewed = [
      ...new Set(
        every
          .map((e) => e.before)
          .filter((b) => b.unviewed)
          .map((b) => String(b.type)),
      ),
    ];
    expect(
      unviewed.filter((t) => !COMPARED_ELSEWHERE[t]),
      `${name}: types neither compared here nor in COMPARED_ELSEWHERE`,
    ).toEqual([]);
    const expected = every.filter((e) => TYPES.includes(typeOf(e.before)));
    const before = await compared(doc, path);
    expect(
      compare(
        expected.map((e) => e.before),
        before,
        'read',
      ),
      `${name}: read`,
    ).toEqual([]);
    // ezdxf mirrors text as it mirrors everything (AutoCAD's MIRRTEXT 1); chronicle's default is AutoCAD's
    // 0, which keeps a mirrored text readable: compared with MIRRTEXT set as ezdxf behaves.
    await h.ok('sysvar', { document_id: doc, set: { MIRRTEXT: 1 } });
    const apart = await transformAll(doc, handles, STEPS);
    const byType = all.filter((e) => NOT_TRANSFORMABLE[String(e.dxf_type ?? e.type)]);
    expect(apart.sort(), `${name}: set apart`).toEqual(
      STEPS.flatMap(() => byType.map((e) => `${e.handle} ${e.dxf_type ?? e.type}`)).sort(),
    );
    const after = await compared(
      doc,
      path,
      before.map((e) => String(e.handle)),
    );
    expect(
      compare(
        expected.map((e) => e.after),
        after,
        'transformed',
      ),
      `${name}: transformed`,
    ).toEqual(TRANSFORMED_OTHERWISE[name]?.differences ?? []);
  } finally {
    await h.ok('close', { document_id: doc, discard: true });
  }
}

describe('transforms against ezdxf on the real DXF corpus', () => {
  it('has ellipses, lines, points and inserts to compare', () => {
    const count = (type: string) =>
      corpusFiles.filter((n) => {
        const f = factsOf(n);
        return f && readable(f) && f.by_type[type];
      }).length;
    expect(count('ELLIPSE')).toBeGreaterThanOrEqual(15);
    expect(count('INSERT')).toBeGreaterThanOrEqual(2);
  });

  for (const name of corpusFiles) {
    it(`${name}: every model-space entity moved, rotated, scaled -0.5 and mirrored as ezdxf does`, async (ctx: TestContext) => {
      needEzdxf(ctx);
      await everyEntity(name);
    });
  }
});

/**
 * The corpus holds no SOLID, TRACE, XLINE or RAY yet: ezdxf writes a file of them (on tilted and turned
 * over planes, with thickness), and the same comparison runs on it.
 */
const MADE_BY_EZDXF = `
import sys, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
for extrusion in [(0, 0, 1), (0, 0, -1), (0.6, 0, 0.8), (0.01, 0.005, 1)]:
    msp.add_solid([(1, 2, 3), (5, 2.5, 3), (1.5, 6), (4, 7)], dxfattribs={"extrusion": extrusion})
    msp.add_solid([(0, 0), (3, 0), (1, 2)], dxfattribs={"extrusion": extrusion, "thickness": 1.5})
    msp.add_trace([(10, 0), (12, 0), (10, 1), (12.5, 1.5)], dxfattribs={"extrusion": extrusion})
msp.add_3dface([(0, 0, 0), (4, 0, 1), (4, 4, 2), (0, 4, 3)], dxfattribs={"invisible": 5})
msp.add_xline((1, 2, 0), (3, 4, 0))
msp.add_ray((-5, 1, 2), (0.6, 0.8, 0))
msp.add_ray((0, 0, 0), (0, 0.6, 0.8))
doc.saveas(sys.argv[1])
print("{}")
`;

/** POLYLINEs of every kind: 2D ones with bulges and widths in several OCS, 3D, polyface and mesh. */
const POLYLINES_BY_EZDXF = `
import sys, ezdxf
doc = ezdxf.new("R2000")
msp = doc.modelspace()
points = [(0, 0, 0, 0.5, 0.25), (10, 0, 0.2, 0.2, 0.4), (10, 5, 0, 0, -1), (0, 6, 1, 1, 0)]
for extrusion in [(0, 0, 1), (0, 0, -1), (0.6, 0, 0.8)]:
    p = msp.add_polyline2d([(x, y) for x, y, *_ in points], dxfattribs={"extrusion": extrusion, "closed": True})
    p.dxf.elevation = (0, 0, 2.5)
    p.dxf.default_start_width = 0.1
    p.dxf.default_end_width = 0.3
    for v, (_, _, s, e, b) in zip(p.vertices, points):
        v.dxf.start_width = s
        v.dxf.end_width = e
        v.dxf.bulge = b
msp.add_polyline3d([(0, 0, 0), (3, 4, 5), (6, 0, 1), (1, 1, 1)])
mesh = msp.add_polymesh(size=(3, 4))
for m in range(3):
    for n in range(4):
        mesh.set_mesh_vertex((m, n), (m * 2, n * 3, m * n))
face = msp.add_polyface()
face.append_faces([[(0, 0, 0), (1, 0, 0), (1, 1, 1), (0, 1, 1)], [(1, 0, 0), (2, 0, 0), (2, 1, 0)]])
doc.saveas(sys.argv[1])
print("{}")
`;

/** SPLINEs by control points (rational, closed, with a normal) and by fit points with end tangents. */
const SPLINES_BY_EZDXF = `
import sys, math, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
msp.add_spline([(0, 0), (3, 4, 1), (8, 2), (12, 7, 2)], degree=3)
fit = msp.add_spline([(0, 0), (5, 5), (10, 0), (15, 5)])
fit.dxf.start_tangent = (1, 1, 0)
fit.dxf.end_tangent = (1, -1, 0)
w = math.sqrt(0.5)
msp.add_rational_spline([(40, 0), (40, 40), (0, 40)], [1, w, 1], degree=2)
closed = msp.add_open_spline([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)], degree=3)
closed.closed = True
closed.dxf.extrusion = (0, 0, 1)
doc.saveas(sys.argv[1])
print("{}")
`;

describe('transforms against ezdxf on a file ezdxf made', () => {
  it('SPLINE: control points, knots and weights, fit points and tangents, closed, with a normal', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const scratch = await scratchDir();
    try {
      const path = scratch.path('splines.dxf');
      await python(SPLINES_BY_EZDXF, [path]);
      expect(await sameAsEzdxf(path, false)).toBe(4);
    } finally {
      await scratch.remove();
    }
  });

  it('POLYLINE: 2D with bulges and widths (several OCS), 3D, polygon and polyface mesh', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const scratch = await scratchDir();
    try {
      const path = scratch.path('polylines.dxf');
      await python(POLYLINES_BY_EZDXF, [path]);
      expect(await sameAsEzdxf(path, false)).toBe(6);
    } finally {
      await scratch.remove();
    }
  });

  it('SOLID, TRACE (several OCS), 3DFACE, XLINE and RAY: move, rotate, scale -0.5 and mirror', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const scratch = await scratchDir();
    try {
      const path = scratch.path('made.dxf');
      await python(MADE_BY_EZDXF, [path]);
      const compared = await sameAsEzdxf(path, false);
      expect(compared).toBe(16);
    } finally {
      await scratch.remove();
    }
  });
});
