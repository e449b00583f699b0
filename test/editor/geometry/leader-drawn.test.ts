/**
 * A LEADER drawn as ezdxf's drawing of leaders draws it (`Leader.virtual_entities`, the oracle): ezdxf
 * writes four leaders (its Standard style's DIMASZ set to 2) — a straight one with the default closed
 * filled arrowhead, one with its arrowhead flag (71) 0, a spline path (72 = 1), and one whose DSTYLE
 * override names the _ARCHTICK block and a DIMASZ of 3 — and chronicle's stand-ins equal ezdxf's virtual
 * entities within 1e-9: the lines, the arrow's SOLID corners, the spline's control points and knots, the
 * arrow block's placement. A capture shows the arrowhead filled where ezdxf puts it, and none for 71 = 0.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, type TestContext } from 'vitest';
import { readDxf } from '../../../src/editor/dxf/read.js';
import { leaderStandIns } from '../../../src/editor/geometry/leader.js';
import { splineCurve } from '../../../src/editor/geometry/spline.js';
import { documentContext } from '../../../src/editor/geometry/types.js';
import type { DxfDocumentModel, Entity, RawEntity } from '../../../src/editor/model.js';
import { decodePng, reddish, rgbAt } from '../capture/pixels.js';
import { harnessForFile, needEzdxf, python, resultOf } from '../dispatcher/helpers.js';

const WRITE = `
import json, sys, ezdxf, ezdxf.math
from ezdxf.render import ARROWS
doc = ezdxf.new("R2010")
doc.dimstyles.get("Standard").dxf.dimasz = 2
msp = doc.modelspace()
msp.add_leader([(0, 0), (10, 10), (20, 10)], dxfattribs={"color": 1})
no_arrow = msp.add_leader([(0, 30), (10, 40), (20, 40)], dxfattribs={"color": 1})
no_arrow.dxf.has_arrowhead = 0
curved = msp.add_leader([(40, 0), (50, 15), (60, 5), (70, 20)], dxfattribs={"color": 1})
curved.dxf.path_type = 1
msp.add_leader([(40, 30), (50, 40)], dxfattribs={"color": 1},
               override={"dimldrblk": ARROWS.architectural_tick, "dimasz": 3})
doc.saveas(sys.argv[1])
doc = ezdxf.readfile(sys.argv[1])
out = {}
for leader in doc.modelspace().query("LEADER"):
    parts = []
    for e in leader.virtual_entities():
        t = e.dxftype()
        if t == "LINE":
            parts.append({"type": t, "points": [list(e.dxf.start), list(e.dxf.end)]})
        elif t == "SOLID":
            parts.append({"type": t, "points": [list(e.dxf.get(k)) for k in ("vtx0", "vtx1", "vtx2", "vtx3")]})
        elif t == "SPLINE":
            parts.append({"type": t, "points": [list(p) for p in e.control_points], "knots": list(e.knots)})
        else:
            parts.append({"type": t})
    v = ezdxf.math.Vec3.list(leader.vertices)
    out[leader.dxf.handle] = {"parts": parts, "rotation": (v[0] - v[1]).angle_deg}
print(json.dumps(out))
`;

interface Part {
  type: string;
  points?: number[][];
  knots?: number[];
}

const shared = harnessForFile();

/** A stand-in as the oracle's part: its type and points. */
function asPart(e: Entity): Part {
  switch (e.type) {
    case 'Line':
      return { type: 'LINE', points: [e.start, e.end] };
    case 'Solid':
      return { type: 'SOLID', points: [...e.corners] };
    case 'Spline': {
      const curve = splineCurve(e);
      return { type: 'SPLINE', points: curve?.control_points ?? [], knots: curve?.knots ?? [] };
    }
    default:
      return { type: e.type.toUpperCase() };
  }
}

const close = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length &&
  a.every((v, i) => Math.abs(v - (b[i] as number)) <= 1e-9 * Math.max(1, Math.abs(v)));

describe('LEADER drawn', () => {
  it('is ezdxf’s virtual entities: its path, its arrowhead or none, its spline, its arrow block', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const path = shared.dir.path('leaders.dxf');
    const theirs = await python<Record<string, { parts: Part[]; rotation: number }>>(WRITE, [path]);
    const model: DxfDocumentModel = readDxf(readFileSync(path, 'latin1'));
    const ctxOf = documentContext(model);
    const problems: string[] = [];
    const handles = Object.keys(theirs);
    expect(handles).toHaveLength(4);
    for (const handle of handles) {
      const expected = theirs[handle]?.parts ?? [];
      const mine = (leaderStandIns(model.entities[handle] as RawEntity, ctxOf) ?? []).map(asPart);
      const kinds = (parts: Part[]) => parts.map((p) => (p.type === 'INSERT' ? 'LWPOLYLINE' : p.type));
      if (kinds(mine).join() !== kinds(expected).join()) {
        problems.push(`${handle}: ${kinds(mine)} ezdxf ${kinds(expected)}`);
        continue;
      }
      expected.forEach((part, i) => {
        const own = mine[i] as Part;
        part.points?.forEach((p, k) => {
          if (!close(own.points?.[k] ?? [], p))
            problems.push(`${handle} ${part.type} point ${k}: ${own.points?.[k]} ezdxf ${p}`);
        });
        if (part.knots && !close(own.knots ?? [], part.knots))
          problems.push(`${handle} knots ${own.knots} ezdxf ${part.knots}`);
      });
    }
    expect(problems).toEqual([]);
    // The arrow block: _ARCHTICK at the first vertex, turned from the second, 3 (its DIMASZ override) large.
    const ticked = handles.find((k) => theirs[k]?.parts.some((part) => part.type === 'LWPOLYLINE')) as string;
    const insert = (leaderStandIns(model.entities[ticked] as RawEntity, ctxOf) ?? []).find(
      (e) => e.type === 'Insert',
    );
    expect(insert).toMatchObject({
      type: 'Insert',
      name: '_ARCHTICK',
      position: [40, 30, 0],
      scale: [3, 3, 3],
    });
    expect((insert as { rotation: number }).rotation).toBeCloseTo(theirs[ticked]?.rotation as number, 9);
  });

  it('is captured with its arrowhead filled at its first vertex, and without one when 71 is 0', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const path = shared.dir.path('leaders-shot.dxf');
    await python(WRITE, [path]);
    const doc = (await shared.h.ok('open', { path })).document_id as number;
    // 20 pixels a unit over −5..25 x −5..45: drawing (x, y) at pixel (x + 5)·20, (45 − y)·20.
    const shot = resultOf<{ data: string }>(
      await shared.h.ok('capture', { document_id: doc, width: 600, window: [-5, -5, 25, 45] }),
    );
    const p = decodePng(Buffer.from(shot.data, 'base64'));
    const red = (x: number, y: number) =>
      reddish(rgbAt(p, Math.round((x + 5) * 20), Math.round((45 - y) * 20)));
    // Inside the arrow: 1.2 back from the tip along the first segment, 0.15 aside (its half width there is 0.2).
    const back = 1.2 * Math.SQRT1_2;
    const aside = 0.15 * Math.SQRT1_2;
    expect(red(back - aside, back + aside)).toBe(true);
    expect(red(back + aside, back - aside)).toBe(true);
    // The same place by the leader without an arrowhead is empty.
    expect(red(back - aside, 30 + back + aside)).toBe(false);
    expect(red(back + aside, 30 + back - aside)).toBe(false);
  });
});
