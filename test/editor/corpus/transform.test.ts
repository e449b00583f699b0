/**
 * ezdxf is the oracle of transforms: the model-space ELLIPSEs, LINEs, POINTs, INSERTs (MINSERT grids
 * and attributes with them), DIMENSIONs, SOLIDs, TRACEs, 3DFACEs, XLINEs, RAYs, POLYLINEs and SPLINEs of every
 * corpus file (and of files ezdxf makes with the types the corpus lacks),
 * moved, rotated, scaled by a negative factor (a half turn and a shrink) and mirrored by chronicle's
 * entities_transform, equal what ezdxf's own transform(Matrix44) makes of the same file, field by field,
 * within 1e-9 (relative above 1). The ezdxf side is scripts/dxf-transform-oracle.py.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { readDxf } from '../../../src/editor/dxf/index.js';
import {
  type Harness,
  needEzdxf,
  PYTHON,
  python,
  type Reply,
  scratchDir,
  startHarness,
} from '../dispatcher/helpers.js';
import { CORPUS_DIR, corpus, corpusPath, type FileFacts, readable } from './corpus.js';

const ORACLE = join(CORPUS_DIR, '../../../scripts/dxf-transform-oracle.py');

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

/** The types compared, by DXF name and as chronicle names them. */
const COMPARED = [
  'ELLIPSE',
  'LINE',
  'POINT',
  'INSERT',
  'DIMENSION',
  'SOLID',
  'TRACE',
  '3DFACE',
  'XLINE',
  'RAY',
  'POLYLINE',
  'HATCH',
  'SPLINE',
];
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
  const args = [ORACLE, ...(recover ? ['--recover'] : []), path, JSON.stringify(STEPS)];
  const { stdout } = await promisify(execFile)(PYTHON, args, { maxBuffer: 64 * 1024 * 1024 });
  // The oracle also moves types compared by tests of their own (a MESH, in mesh.test.ts): only TYPES here.
  return (JSON.parse(stdout) as { before: Fields; after: Fields }[]).filter((e) =>
    TYPES.includes(typeOf(e.before)),
  );
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
    const own: Fields = a.type === 'Insert' ? insertView(a) : a;
    const seen: Fields = {
      ...own,
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
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
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
      "ATTRIB of INSERT 263 lands a text height (5 × 0.5) away from ezdxf's; the *T12 INSERT of scale " +
      '0, 0, 0 keeps zero axes in chronicle, where ezdxf 0.18 makes them half-length (it reads a zero scale as 1)',
    differences: [
      'transformed Ellipse #0 (23A).end_param: ezdxf 3.552713678800501e-15, chronicle 6.28318530717959',
      'transformed Insert #4 (263).attribs[0][0]: ezdxf 18.948386653280437, chronicle 16.46633584571157',
      'transformed Insert #4 (263).attribs[0][1]: ezdxf -324.85171288716856, chronicle -325.1507509928452',
      'transformed Insert #37 (1787).x_axis[0]: ezdxf 0.059807621135331696, chronicle 0',
      'transformed Insert #37 (1787).x_axis[1]: ezdxf -0.4964101615137754, chronicle 0',
      'transformed Insert #37 (1787).y_axis[0]: ezdxf -0.4964101615137754, chronicle 0',
      'transformed Insert #37 (1787).y_axis[1]: ezdxf -0.059807621135331696, chronicle 0',
    ],
  },
};

const files = corpus.filter(([, facts]) => readable(facts) && COMPARED.some((t) => facts.by_type[t]));

describe('transforms against ezdxf on the real DXF corpus', () => {
  it('has ellipses, lines, points and inserts to compare', () => {
    const ellipses = files.filter(([, f]) => readable(f) && f.by_type.ELLIPSE).length;
    expect(ellipses).toBeGreaterThanOrEqual(15);
    const inserts = files.filter(([, f]) => readable(f) && f.by_type.INSERT).length;
    expect(inserts).toBeGreaterThanOrEqual(2);
  });

  for (const [name] of files) {
    it(`${name}: move, rotate, scale -0.5 and mirror as ezdxf does`, async (ctx: TestContext) => {
      needEzdxf(ctx);
      const facts = corpus.find(([n]) => n === name)?.[1] as FileFacts;
      await sameAsEzdxf(corpusPath(name), facts.read === 'recover', TRANSFORMED_OTHERWISE[name]?.differences);
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
