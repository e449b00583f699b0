/**
 * MESH (kept as its tags) as geometry: ezdxf writes a file of two meshes (a tilted quad and triangle
 * cage, a closed box), and chronicle reads the same vertices, bounds each by them, moves, rotates,
 * scales by -0.5 and mirrors them as ezdxf's transform(Matrix44) does (within 1e-9, the oracle
 * scripts/dxf-transform-oracle.py), takes the inverse steps back, and draws the faces' edges in a capture.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import {
  type Matrix,
  mirroring,
  rotation,
  scaling,
  translation,
} from '../../../src/editor/geometry/matrix.js';
import { meshEdges, meshVertices, transformMesh } from '../../../src/editor/geometry/mesh.js';
import type { RawEntity } from '../../../src/editor/model.js';
import { decodePng, pixelsWhere, RED_LINE_CAPTURE, reddish } from '../capture/pixels.js';
import { resultOf } from '../dispatcher/helpers.js';
import { STEPS, transformedByEzdxf, typeBench } from './corpus.js';

const MESHES_BY_EZDXF = `
import sys, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
cage = msp.add_mesh(dxfattribs={"color": 1})
with cage.edit_data() as data:
    data.vertices = [(0, 0, 0), (40, 0, 0), (40, 30, 5), (0, 30, 2), (80, 15, 0)]
    data.faces = [(0, 1, 2, 3), (1, 4, 2)]
box = msp.add_mesh(dxfattribs={"color": 3})
with box.edit_data() as data:
    data.vertices = [(200, 0, 0), (210, 0, 0), (210, 10, 0), (200, 10, 0),
                     (200, 0, 7.5), (210, 0, 7.5), (210, 10, 7.5), (200, 10, 7.5)]
    data.faces = [(0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
doc.saveas(sys.argv[1])
print("{}")
`;

type Fields = Record<string, unknown>;

const bench = typeBench();
const meshes = (doc: number) => bench.ofType<RawEntity>(doc, 'MESH');

function close(expected: number[][], actual: number[][], what: string): string[] {
  const out: string[] = [];
  if (expected.length !== actual.length)
    return [`${what}: ${expected.length} vertices, got ${actual.length}`];
  expected.forEach((p, i) => {
    p.forEach((v, k) => {
      const a = (actual[i] as number[])[k] as number;
      if (!(Math.abs(a - v) <= 1e-9 * Math.max(1, Math.abs(v))))
        out.push(`${what} vertex ${i}[${k}]: ezdxf ${v}, chronicle ${a}`);
    });
  });
  return out;
}

describe('MESH', () => {
  it('is read, bounded by its vertices and transformed as ezdxf does', async (ctx: TestContext) => {
    const path = await bench.write(ctx, MESHES_BY_EZDXF, 'meshes.dxf');
    const expected = (await transformedByEzdxf(path, STEPS)).filter((e) => e.before.type === 'MESH');
    expect(expected).toHaveLength(2);
    const doc = await bench.open(path);
    const before = await meshes(doc);
    expect(before).toHaveLength(2);
    const problems = before.flatMap((e, i) =>
      close((expected[i] as { before: Fields }).before.vertices as number[][], meshVertices(e), `read #${i}`),
    );
    expect(problems).toEqual([]);
    // Bounds: the box of the vertices, exactly.
    const bounds = (before as unknown as Array<{ bounds: { min: number[]; max: number[] } }>).map(
      (e) => e.bounds,
    );
    expect(bounds).toEqual([
      { min: [0, 0, 0], max: [80, 30, 5] },
      { min: [200, 0, 0], max: [210, 10, 7.5] },
    ]);
    const handles = before.map((e) => e.handle);
    for (const step of STEPS) {
      const answer = await bench.h.ok('entities_transform', { document_id: doc, handles, ...step });
      expect(resultOf<{ not_transformable: unknown[] }>(answer).not_transformable).toEqual([]);
    }
    const after = await meshes(doc);
    const moved = after.flatMap((e, i) =>
      close(
        (expected[i] as { after: Fields }).after.vertices as number[][],
        meshVertices(e),
        `transformed #${i}`,
      ),
    );
    expect(moved).toEqual([]);
    // Spatial queries know it: the rotated, scaled and mirrored box is found by a window around its bounds.
    const box = (await bench.h.ok('query', { document_id: doc, detail: 'full', handles: [handles[1]] }))
      .entities as Array<{ bounds: { min: number[]; max: number[] } }>;
    const b = (box[0] as { bounds: { min: number[]; max: number[] } }).bounds;
    const found = await bench.h.ok('query', {
      document_id: doc,
      bounds: [b.min[0], b.min[1], b.max[0], b.max[1]],
      type: 'MESH',
      detail: 'summary',
    });
    expect((found.entities as Array<{ handle: string }>).map((e) => e.handle)).toContain(handles[1]);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('is drawn as the edges of its faces, each once, unfilled', async (ctx: TestContext) => {
    const doc = await bench.open(await bench.write(ctx, MESHES_BY_EZDXF, 'meshes.dxf'));
    const shot = resultOf<{ data: string }>(
      await bench.h.ok('capture', { document_id: doc, ...RED_LINE_CAPTURE }),
    );
    const red = pixelsWhere(decodePng(Buffer.from(shot.data, 'base64')), reddish);
    const column = (x: number) => 2 * (x + 14);
    const row = (y: number) => 2 * (50 - y);
    const at = (x: number, y: number) =>
      red.some(([c, r]) => Math.abs(c - column(x)) <= 1 && Math.abs(r - row(y)) <= 1);
    // Midpoints of the edges 0-1, 3-0, 1-4, 4-2, 2-3 and the shared 1-2.
    for (const [x, y] of [
      [20, 0],
      [0, 15],
      [60, 7.5],
      [60, 22.5],
      [20, 30],
      [40, 15],
    ] as Array<[number, number]>)
      expect(at(x, y), `an edge through (${x}, ${y})`).toBe(true);
    // Not filled: the quad's middle stays background; nothing red outside the cage's box.
    expect(at(20, 15)).toBe(false);
    expect(red.filter(([c, r]) => c < column(-1) || c > column(81) || r < row(31) || r > row(-1))).toEqual(
      [],
    );
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('transformed then transformed back is itself within 1e-9; its edges are its faces’ edges once', () => {
    const e: RawEntity = {
      type: 'Raw',
      dxf_type: 'MESH',
      handle: 'A1',
      space: '*Model_Space',
      layer: '0',
      tags: [
        { code: 100, value: 'AcDbSubDMesh' },
        { code: 71, value: '2' },
        { code: 92, value: '4' },
        ...[
          [0, 0, 0],
          [3.25, -1, 2],
          [7, 8.5, -1],
          [-2, 5, 0.5],
        ].flatMap(([x, y, z]) => [
          { code: 10, value: String(x) },
          { code: 20, value: String(y) },
          { code: 30, value: String(z) },
        ]),
        { code: 93, value: '8' },
        ...[3, 0, 1, 2, 3, 0, 2, 3].map((v) => ({ code: 90, value: String(v) })),
      ],
    } as RawEntity;
    expect(meshEdges(e)).toHaveLength(5);
    const steps: Array<[Matrix, Matrix]> = [
      [translation([12.5, -3.25, 4]), translation([-12.5, 3.25, -4])],
      [rotation([1, 2], 33), rotation([1, 2], -33)],
      [scaling([3, 4, 0], -0.5), scaling([3, 4, 0], -2)],
      [mirroring([0, 0], [1, 2]), mirroring([0, 0], [1, 2])],
    ];
    for (const [m, back] of steps) {
      const again = transformMesh(transformMesh(e, m), back);
      expect(close(meshVertices(e), meshVertices(again), 'back')).toEqual([]);
    }
  });
});
