/**
 * MULTILEADER (kept as its tags) as geometry: a file ezdxf writes (one with MTEXT content, one with a
 * block) and the corpus's real one (dxf-parser's mleader.dxf, three MTEXT leaders, one a spline) are
 * read from their context data, bounded and found by every query filter, drawn in a capture (leader
 * lines, a filled arrowhead, the text and the block), and moved, rotated, scaled by −0.5 and mirrored as
 * ezdxf's `MultiLeader.transform` moves them (scripts/dxf-annotation-oracle.py; within 1e-9 per
 * coordinate after a save read back by ezdxf); the inverse steps give the tags back within 1e-9.
 */
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import {
  type Matrix,
  mirroring,
  rotation,
  scaling,
  translation,
} from '../../../src/editor/geometry/matrix.js';
import { mleaderGeometry, mleaderStandIns, transformMLeader } from '../../../src/editor/geometry/mleader.js';
import type { RawEntity } from '../../../src/editor/model.js';
import { decodePng, pixelsWhere, reddish } from '../capture/pixels.js';
import { needEzdxf, resultOf } from '../dispatcher/helpers.js';
import { differences, type Fields, oracle, STEPS } from './annotation-oracle.js';
import { CORPUS_DIR, typeBench } from './corpus.js';

const BY_EZDXF = `
import sys, ezdxf
from ezdxf.math import Vec2
from ezdxf.render import mleader
doc = ezdxf.new("R2010", setup=True)
msp = doc.modelspace()
b = msp.add_multileader_mtext("Standard", dxfattribs={"color": 1})
b.set_content("Hello", char_height=2.5, alignment=mleader.TextAlignment.left)
b.add_leader_line(mleader.ConnectionSide.left, [Vec2(-20, -15), Vec2(-10, -5)])
b.build(insert=Vec2(5, 0))
blk = doc.blocks.new("MARK")
blk.add_circle((0, 0), 2)
blk.add_line((-2, 0), (2, 0))
k = msp.add_multileader_block("Standard", dxfattribs={"color": 3})
k.set_content(name="MARK", scale=1.5, alignment=mleader.BlockAlignment.center_extents)
k.add_leader_line(mleader.ConnectionSide.left, [Vec2(30, -20)])
k.build(insert=Vec2(50, 10), rotation=15)
doc.saveas(sys.argv[1])
print("{}")
`;
const REAL = join(CORPUS_DIR, 'dxfparser-mleader.dxf');

const bench = typeBench();

type Queried = RawEntity & Fields & { bounds?: { min: number[]; max: number[] } };

const mleaders = (doc: number) => bench.ofType<Queried>(doc, 'MULTILEADER');

/** Transformed by STEPS in chronicle and saved, against ezdxf doing the same to the file. */
async function compareWithEzdxf(path: string, name: string, keep: (f: Fields) => Fields): Promise<string[]> {
  const expected = await oracle(path, STEPS);
  const doc = await bench.open(path);
  const handles = (await mleaders(doc)).map((e) => e.handle);
  for (const step of STEPS) {
    const answer = await bench.h.ok('entities_transform', { document_id: doc, handles, ...step });
    expect(resultOf<{ not_transformable: unknown[] }>(answer).not_transformable).toEqual([]);
  }
  const saved = bench.path(`${name}-moved.dxf`);
  await bench.h.ok('save', { document_id: doc, path: saved });
  const actual = await oracle(saved);
  await bench.h.ok('close', { document_id: doc, discard: true });
  expect(actual).toHaveLength(expected.length);
  return expected.flatMap((e, i) => differences(keep(e), keep(actual[i] as Fields), `${name} #${i}`));
}

describe('MULTILEADER', () => {
  it('is read from its context data, bounded and found by every query filter', async (ctx: TestContext) => {
    const doc = await bench.open(await bench.write(ctx, BY_EZDXF, 'mleaders.dxf'));
    const [text, block] = await mleaders(doc);
    expect(text).toMatchObject({
      dxf_type: 'MULTILEADER',
      content: 'mtext',
      text: 'Hello',
      text_position: [5, 0, 0],
      arrow_size: 4,
      leaders: [
        {
          last_point: [-5, -1.25, 0],
          dogleg: [1, 0, 0],
          dogleg_length: 8,
          lines: [
            [
              [-20, -15, 0],
              [-10, -5, 0],
            ],
          ],
        },
      ],
    });
    expect(block).toMatchObject({ content: 'block' });
    // The arrowhead's tip is the lowest, leftmost point; the text runs right of its insertion point.
    expect(text?.bounds?.min).toEqual([-20, -15, 0]);
    expect(text?.bounds?.max[0]).toBeGreaterThan(5);
    // The block's circle (radius 2 × 1.5) is in the block leader's bounds.
    const [bx, by] = (block?.content === 'block' ? (block.block_position as number[]) : []) as number[];
    expect(block?.bounds?.max[0]).toBeGreaterThanOrEqual((bx as number) + 2.9);
    expect(block?.bounds?.max[1]).toBeGreaterThanOrEqual((by as number) + 2.9);

    const found = async (filter: Fields) =>
      (
        (await bench.h.ok('query', { document_id: doc, detail: 'summary', ...filter })).entities as Fields[]
      ).map((e) => e.handle);
    expect(await found({ bounds: [-21, -16, -19, -14] })).toEqual([text?.handle]);
    expect(await found({ near: [-15, -9.5, 0.6] })).toEqual([text?.handle]);
    expect(await found({ contains_point: [-15, -10] })).toEqual([text?.handle]);
    const line = resultOf<{ handles: string[] }>(
      await bench.h.ok('entities_create', {
        document_id: doc,
        entities: [{ type: 'line', start: [-15, -20], end: [-15, 0] }],
      }),
    ).handles[0] as string;
    const crossing = await bench.h.ok('query', { document_id: doc, intersections: [line, text?.handle] });
    const points = crossing.points as number[][];
    expect(
      points.some(([x, y]) => Math.abs((x as number) + 15) < 1e-9 && Math.abs((y as number) + 10) < 1e-9),
    ).toBe(true);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('is drawn: leader lines, a filled arrowhead, its text and its block', async (ctx: TestContext) => {
    const doc = await bench.open(await bench.write(ctx, BY_EZDXF, 'mleaders-drawn.dxf'));
    // 4 pixels a unit over −25..55 × −20..20.
    const shot = resultOf<{ data: string; skipped: Record<string, number> }>(
      await bench.h.ok('capture', { document_id: doc, width: 320, window: [-25, -20, 55, 20] }),
    );
    expect(shot.skipped).toEqual({});
    const picture = decodePng(Buffer.from(shot.data, 'base64'));
    const red = pixelsWhere(picture, reddish);
    const at = (x: number, y: number) =>
      red.some(([c, r]) => Math.abs(c - (x + 25) * 4) <= 1 && Math.abs(r - (20 - y) * 4) <= 1);
    // The leader's segments, its dogleg, inside the arrowhead (filled), not beside it.
    expect([at(-13, -8), at(-7.5, -3.125), at(0, -1.25), at(-18.2, -13.2), at(-20, -10)]).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    // Text right of (5, 0) and below it (attachment top left).
    expect(red.some(([c, r]) => c > 30 * 4 && c < 40 * 4 && r > 20 * 4 && r < 23 * 4)).toBe(true);
    // The block leader (green) draws somewhere around its block.
    const green = pixelsWhere(
      picture,
      ([r, g, b]) => (g as number) > (r as number) + 80 && (g as number) > (b as number) + 80,
    );
    expect(green.length).toBeGreaterThan(20);
    // The plot draws the same scene: both leaders, none skipped.
    const pdf = resultOf<{ entities: number; skipped: Record<string, number> }>(
      await bench.h.ok('plot', { document_id: doc, path: bench.path('mleaders.pdf') }),
    );
    expect([pdf.entities, pdf.skipped]).toEqual([2, {}]);
    await bench.h.ok('close', { document_id: doc, discard: true });
  });

  it('is transformed as ezdxf transforms it (a file ezdxf writes: MTEXT and block content)', async (ctx: TestContext) => {
    const path = await bench.write(ctx, BY_EZDXF, 'mleaders-moved.dxf');
    expect(await compareWithEzdxf(path, 'ezdxf', (f) => f)).toEqual([]);
  });

  it('is transformed as ezdxf transforms it (the corpus file)', async (ctx: TestContext) => {
    needEzdxf(ctx);
    // ezdxf reads this ENTITIES-only file as R12 and so loads none of the entity's own attributes after the
    // context (it answers its defaults): only the context data is compared.
    expect(await compareWithEzdxf(REAL, 'corpus', ({ entity: _, ...rest }) => rest)).toEqual([]);
  });

  it('transformed then transformed back is itself within 1e-9', async () => {
    const doc = await bench.open(REAL);
    const [e] = await mleaders(doc);
    await bench.h.ok('close', { document_id: doc, discard: true });
    const raw = e as RawEntity;
    expect(raw.tags.length).toBeGreaterThan(50);
    const steps: Array<[Matrix, Matrix]> = [
      [translation([12.5, -3.25, 4]), translation([-12.5, 3.25, -4])],
      [rotation([1, 2], 33), rotation([1, 2], -33)],
      [scaling([3, 4, 0], -0.5), scaling([3, 4, 0], -2)],
      [mirroring([0, 0], [1, 2]), mirroring([0, 0], [1, 2])],
    ];
    for (const [m, back] of steps) {
      const again = transformMLeader(transformMLeader(raw, m), back);
      // AutoCAD's files hold every copy of the context's values: nothing is added.
      expect(again.tags.length).toBe(raw.tags.length);
      const problems = raw.tags.flatMap((t, i) => {
        const u = again.tags[i];
        // Whether the plane's normal is reversed ezdxf sets from the last step alone (a half turn by a
        // negative scale sets it, and so does its inverse): it is no property of the pair.
        if (t.code === 297) return [];
        if (!u || u.code !== t.code) return [`tag ${i}: code ${t.code}, got ${u?.code}`];
        const a = Number(t.value);
        const b = Number(u.value);
        if (Number.isFinite(a) && t.value.trim() !== '' && /^[-+.\deE ]+$/.test(t.value))
          return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a))
            ? []
            : [`tag ${i} (${t.code}): ${a} → ${b}`];
        return t.value === u.value ? [] : [`tag ${i} (${t.code}): ${t.value} → ${u.value}`];
      });
      expect(problems).toEqual([]);
    }
    // Its stand-ins: each leader line, an arrowhead each, its text.
    const g = mleaderGeometry(raw);
    const parts = mleaderStandIns(raw);
    expect(parts.filter((p) => p.type === 'MText')).toHaveLength(1);
    expect(parts.filter((p) => p.type === 'Solid')).toHaveLength(g.leaders.flatMap((l) => l.lines).length);
  });
});
