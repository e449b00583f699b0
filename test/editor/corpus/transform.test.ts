/**
 * ezdxf is the oracle of transforms: the model-space ELLIPSEs, LINEs, POINTs and INSERTs (MINSERT grids
 * and attributes with them) of every corpus file,
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
import { type Harness, needEzdxf, PYTHON, type Reply, startHarness } from '../dispatcher/helpers.js';
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
const COMPARED = ['ELLIPSE', 'LINE', 'POINT', 'INSERT', 'DIMENSION'];
const TYPES = ['Ellipse', 'Line', 'Point', 'Insert', 'DIMENSION'];
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
  return JSON.parse(stdout) as { before: Fields; after: Fields }[];
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
    .map((e) => (typeOf(e) === 'DIMENSION' ? dimensionView(e, lines) : e));
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
    const seen: Fields = { ...own, extrusion: own.extrusion ?? [0, 0, 1] };
    for (const [key, value] of Object.entries(fields)) {
      if (key === 'extrusion' && fields.type !== 'Ellipse') continue;
      differences(value, seen[key], `${what} ${fields.type} #${i} (${a.handle}).${key}`, out);
    }
  });
  return out;
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

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

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
      const expected = await oracle(corpusPath(name), facts.read === 'recover');
      if (expected.length === 0) return; // only in blocks: entities_transform moves model-space entities
      const opened = await h.call('open', { path: corpusPath(name) });
      expect(opened.ok, `${opened.code}: ${opened.error}`).toBe(true);
      const doc = opened.document_id as number;
      const before = await compared(doc, corpusPath(name));
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
      const after = await compared(doc, corpusPath(name), handles);
      expect(
        compare(
          expected.map((e) => e.after),
          after,
          'transformed',
        ),
      ).toEqual([]);
      await h.ok('close', { document_id: doc, discard: true });
    });
  }
});
