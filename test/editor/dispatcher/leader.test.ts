/**
 * LEADER through the dispatcher: a leader ezdxf writes (three vertices) is bounded by its vertices,
 * drawn by capture along its segments, and moved, rotated, scaled and mirrored as ezdxf's
 * `Leader.transform` moves it (vertices and horizontal direction within 1e-9); transform then the
 * inverse gives its vertices back.
 */
import type { TestContext } from 'vitest';
import { describe, expect, it } from 'vitest';
import { decodePng, reddish, rgbAt } from '../capture/pixels.js';
import { needEzdxf, python, type Reply, resultOf, withHarnessAndDir } from './helpers.js';

const WRITE = `
import json, sys, math, ezdxf
from ezdxf.math import Matrix44
doc = ezdxf.new("R2010")
leader = doc.modelspace().add_leader([(0, 0), (10, 10), (20, 10)], dxfattribs={"color": 1})
leader.dxf.horizontal_direction = (1, 0, 0)
doc.saveas(sys.argv[1])
steps = [
    Matrix44.translate(12.5, -3.25, 0),
    Matrix44.chain(Matrix44.translate(-1, -2, 0), Matrix44.z_rotate(math.radians(30)), Matrix44.translate(1, 2, 0)),
    Matrix44.chain(Matrix44.translate(-3, -4, 0), Matrix44.scale(-0.5, -0.5, -0.5), Matrix44.translate(3, 4, 0)),
    Matrix44([-0.6, 0.8, 0, 0, 0.8, 0.6, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]),
]
for m in steps:
    leader.transform(m)
json.dump({"handle": leader.dxf.handle, "vertices": [list(v) for v in leader.vertices],
           "direction": list(leader.dxf.horizontal_direction)}, sys.stdout)
`;

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

type Fields = Record<string, unknown>;

async function entity(h: { raw(r: unknown): Promise<Reply> }, doc: number, handle: string): Promise<Fields> {
  const answer = await h.raw({
    protocol: 1,
    op: 'query',
    document_id: doc,
    handles: [handle],
    detail: 'full',
  });
  return (answer.entities as Fields[])[0] as Fields;
}

const close = (a: readonly number[], b: readonly number[]) =>
  a.every((v, i) => Math.abs(v - (b[i] ?? Number.NaN)) <= 1e-9 * Math.max(1, Math.abs(v)));

describe('LEADER', () => {
  it('is bounded and drawn by its vertices, and transformed as ezdxf does', async (ctx: TestContext) => {
    needEzdxf(ctx);
    await withHarnessAndDir(async (h, dir) => {
      const path = dir.path('leader.dxf');
      const theirs = await python<{ handle: string; vertices: number[][]; direction: number[] }>(WRITE, [
        path,
      ]);
      const doc = (await h.ok('open', { path })).document_id as number;
      const before = await entity(h, doc, theirs.handle);
      expect(before).toMatchObject({
        dxf_type: 'LEADER',
        vertices: [
          [0, 0, 0],
          [10, 10, 0],
          [20, 10, 0],
        ],
        bounds: { min: [0, 0, 0], max: [20, 10, 0] },
      });
      // 10 pixels a unit over −5..25 x −5..15: the segments red, the corner (20, 0) empty.
      const shot = resultOf<{ data: string; skipped: Record<string, number> }>(
        await h.ok('capture', { document_id: doc, width: 300, window: [-5, -5, 25, 15] }),
      );
      expect(shot.skipped).toEqual({});
      const p = decodePng(Buffer.from(shot.data, 'base64'));
      const red = (x: number, y: number) => {
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++)
            if (reddish(rgbAt(p, (x + 5) * 10 + dx, (15 - y) * 10 + dy))) return true;
        return false;
      };
      expect([red(5, 5), red(15, 10), red(20, 0), red(5, 10)]).toEqual([true, true, false, false]);

      for (const step of STEPS) {
        const answer = await h.ok('entities_transform', {
          document_id: doc,
          handles: [theirs.handle],
          ...step,
        });
        expect(resultOf<{ not_transformable: unknown[] }>(answer).not_transformable).toEqual([]);
      }
      const after = await entity(h, doc, theirs.handle);
      const vertices = after.vertices as number[][];
      theirs.vertices.forEach((v, i) => {
        expect(close(v, vertices[i] as number[]), `vertex ${i}: ezdxf ${v}, chronicle ${vertices[i]}`).toBe(
          true,
        );
      });
      const tags = after.tags as Array<{ code: number; value: string }>;
      const direction = [211, 221, 231].map((c) => Number(tags.find((t) => t.code === c)?.value));
      expect(close(theirs.direction, direction), `direction ${direction}`).toBe(true);
      // Back again: the mirror is its own inverse, then the other steps undone.
      for (const step of [
        STEPS[3],
        { action: 'scale', center: [3, 4, 0], factor: -2 },
        { action: 'rotate', center: [1, 2], angle: -30 },
        { action: 'move', vector: [-12.5, 3.25, 0] },
      ])
        await h.ok('entities_transform', { document_id: doc, handles: [theirs.handle], ...step });
      const back = (await entity(h, doc, theirs.handle)).vertices as number[][];
      (before.vertices as number[][]).forEach((v, i) => {
        expect(close(v, back[i] as number[])).toBe(true);
      });
    });
  });
});
