/**
 * A SPLINE given by fit points only, interpolated as ezdxf's `fit_points_to_cad_cv` does (ezdxf is the
 * oracle): the fit points of a real file's spline (dxf-parser's splines.dxf, handle 3D, written by
 * AutoCAD with its own control points beside them) and others ezdxf is given, with and without end
 * tangents, in 3D, each evaluated by both at parameters across the curve and compared within 1e-9.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, type TestContext } from 'vitest';
import { readDxf } from '../../../src/editor/dxf/read.js';
import { splineCurve, splinePointAt, splinePoints } from '../../../src/editor/geometry/spline.js';
import type { Point3, SplineEntity } from '../../../src/editor/model.js';
import { corpusPath } from '../corpus/corpus.js';
import { needEzdxf, python } from '../dispatcher/helpers.js';

const PARAMS = [0, 0.05, 0.13, 0.25, 0.31, 0.5, 0.62, 0.75, 0.9, 0.99, 1];

const fitted = (fit: Point3[], tangents?: [Point3, Point3]): SplineEntity => ({
  type: 'Spline',
  handle: 'F1',
  space: '*Model_Space',
  layer: '0',
  color: 256,
  linetype: 'BYLAYER',
  lineweight: -1,
  degree: 3,
  flags: 0,
  control_points: [],
  knots: [],
  fit_points: fit,
  ...(tangents ? { start_tangent: tangents[0], end_tangent: tangents[1] } : {}),
});

/** ezdxf's curve through each case, evaluated at PARAMS. */
async function ezdxfPoints(
  cases: Array<{ fit: Point3[]; tangents?: [Point3, Point3] }>,
): Promise<Point3[][]> {
  return python<Point3[][]>(
    `
import json, sys
from ezdxf.math import fit_points_to_cad_cv
out = []
for case in json.loads(sys.argv[1]):
    s = fit_points_to_cad_cv(case["fit"], tangents=case.get("tangents"))
    out.append([list(s.point(u)) for u in json.loads(sys.argv[2])])
print(json.dumps(out))
`,
    [JSON.stringify(cases), JSON.stringify(PARAMS)],
  );
}

function problems(e: SplineEntity, expected: Point3[], what: string): string[] {
  const curve = splineCurve(e);
  if (!curve) return [`${what}: no curve`];
  const out: string[] = [];
  PARAMS.forEach((u, i) => {
    const mine = splinePointAt(curve, u);
    const theirs = expected[i] as Point3;
    const size = Math.max(1, ...theirs.map(Math.abs));
    if (mine.some((v, k) => !(Math.abs(v - (theirs[k] as number)) <= 1e-9 * size)))
      out.push(`${what} at ${u}: ${mine} ezdxf ${theirs}`);
  });
  return out;
}

describe('a SPLINE by fit points only', () => {
  it('is the curve ezdxf interpolates through a real file’s fit points', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const model = readDxf(readFileSync(corpusPath('dxfparser-splines.dxf'), 'latin1'));
    const real = model.entities['3D'] as SplineEntity;
    expect(real.fit_points).toHaveLength(3);
    // The same spline without AutoCAD's control points: as a file of fit points only holds it.
    const e = { ...real, control_points: [], knots: [], weights: undefined };
    const [expected] = await ezdxfPoints([{ fit: real.fit_points }]);
    expect(problems(e, expected as Point3[], 'splines.dxf 3D')).toEqual([]);
    // It runs through its fit points, and is drawn from its first to its last.
    const drawn = splinePoints(e);
    expect(drawn[0]).toEqual(real.fit_points[0]);
    const last = drawn[drawn.length - 1] as Point3;
    expect(Math.hypot(...last.map((v, k) => v - ((real.fit_points[2] as Point3)[k] as number)))).toBeLessThan(
      1e-9,
    );
  });

  it('with and without end tangents, in 3D, as ezdxf', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const wave: Point3[] = Array.from({ length: 12 }, (_, i) => [i * 3.5, Math.sin(i) * 7, i % 3]);
    const cases: Array<{ fit: Point3[]; tangents?: [Point3, Point3] }> = [
      { fit: wave },
      {
        fit: wave,
        tangents: [
          [1, 2, 0],
          [0, -1, 0.5],
        ],
      },
      {
        fit: [
          [0, 0, 0],
          [10, 10, 0],
          [20, 0, 0],
        ],
      },
      {
        fit: [
          [100, 50, 0],
          [120, 52, 0],
          [140, 80, 3],
          [141, 120, 0],
          [90, 130, -2],
        ],
      },
    ];
    const expected = await ezdxfPoints(cases);
    const found = cases.flatMap((c, i) =>
      problems(fitted(c.fit, c.tangents), expected[i] as Point3[], `case ${i}`),
    );
    expect(found).toEqual([]);
  });

  it('two fit points: the straight line between them (ezdxf estimates no tangents for two)', () => {
    const e = fitted([
      [0, 0, 0],
      [4, 2, 0],
    ]);
    for (const p of splinePoints(e)) expect(Math.abs(p[1] - p[0] / 2)).toBeLessThan(1e-12);
  });
});
