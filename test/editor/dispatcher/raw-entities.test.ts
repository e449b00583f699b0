/**
 * HATCH and SOLID made by `entities_create` (the types the engine keeps as DXF tags, which the reference
 * editor's clients create), their query read-out, the file ezdxf reads back, and the reference editor's
 * field names the other types accept (`rotation_deg`, `start_angle_deg`, `thickness`, `constant_width`).
 */
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  type TestContext,
  vi,
} from 'vitest';
import {
  ezdxfAudit,
  type Harness,
  needEzdxf,
  python,
  resultOf,
  scratchDir,
  startHarness,
} from './helpers.js';

// ezdxf runs as a child process: leave room for a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

let h: Harness;
let doc: number;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.remove();
});
beforeEach(async () => {
  h = await startHarness();
  doc = await h.newDoc();
});
afterEach(async () => {
  await h.close();
});

const SQUARE = [
  [0, 0],
  [10, 0],
  [10, 10],
  [0, 10],
];
const read = (fields: Record<string, unknown>) => h.raw({ protocol: 1, op: 'query', ...fields });

const READ_BACK = `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = {}
for e in doc.modelspace():
    if e.dxftype() == "HATCH":
        path = e.paths[0]
        out["hatch"] = {"solid": bool(e.dxf.solid_fill), "pattern": e.dxf.pattern_name,
                        "angle": e.dxf.pattern_angle if not e.dxf.solid_fill else None,
                        "scale": e.dxf.pattern_scale if not e.dxf.solid_fill else None,
                        "lines": len(e.pattern.lines) if e.pattern else 0,
                        "vertices": [[v[0], v[1]] for v in path.vertices], "layer": e.dxf.layer,
                        "color": e.dxf.color}
    if e.dxftype() == "SOLID":
        out["solid"] = [[e.dxf.get(f"vtx{i}")[0], e.dxf.get(f"vtx{i}")[1]] for i in range(4)]
    if e.dxftype() == "LINE":
        out["thickness"] = e.dxf.thickness
    if e.dxftype() == "LWPOLYLINE":
        out["const_width"] = e.dxf.const_width
print(json.dumps(out))
`;

describe('Hatch and Solid through entities_create', () => {
  it('creates them in one step, reads them out, and saves a file ezdxf reads back', async (ctx: TestContext) => {
    const made = await h.ok('entities_create', {
      document_id: doc,
      entities: [
        { type: 'Hatch', boundary: SQUARE, solid: true, layer: 'FILL', color: 3 },
        { type: 'hatch', boundary: SQUARE, pattern: 'ansi37', pattern_scale: 2, pattern_angle_deg: 30 },
        {
          type: 'Solid',
          corners: [
            [0, 0],
            [4, 0],
            [0, 4],
            [4, 4],
          ],
        },
        {
          type: 'SOLID',
          corners: [
            [10, 0],
            [14, 0],
            [12, 3],
          ],
        },
      ],
    });
    const [solidFill, pattern, quad, triangle] = resultOf<{ handles: string[] }>(made).handles as [
      string,
      string,
      string,
      string,
    ];
    expect(resultOf<{ created: number; layers_created: string[] }>(made)).toMatchObject({
      created: 4,
      layers_created: ['FILL'],
    });
    const [a, b] = (await read({ type: 'Hatch' })).entities as Array<Record<string, unknown>>;
    expect(a).toMatchObject({
      handle: solidFill,
      type: 'Raw',
      dxf_type: 'HATCH',
      layer: 'FILL',
      solid: true,
      pattern: 'SOLID',
      pattern_scale: null,
      boundary: [SQUARE],
    });
    expect(b).toMatchObject({
      handle: pattern,
      solid: false,
      pattern: 'ANSI37',
      pattern_scale: 2,
      pattern_angle: 30,
      boundary: [SQUARE],
    });
    const solids = (await read({ type: 'Solid', detail: 'full' })).entities as Array<Record<string, unknown>>;
    expect(solids.map((s) => s.handle)).toEqual([quad, triangle]);
    expect(solids[0]?.corners).toEqual([
      [0, 0, 0],
      [4, 0, 0],
      [0, 4, 0],
      [4, 4, 0],
    ]);
    // A triangle repeats its third corner, as DXF stores one.
    expect(solids[1]?.corners).toEqual([
      [10, 0, 0],
      [14, 0, 0],
      [12, 3, 0],
      [12, 3, 0],
    ]);
    expect(solids[0]?.bounds).toEqual({ min: [0, 0, 0], max: [4, 4, 0] });
    // Boundaries and corners are what where filters and spatial queries see.
    expect((await read({ where: [{ path: '/solid', op: 'eq', value: true }] })).count).toBe(1);
    expect((await read({ bounds: [11, 1, 13, 2] })).entities).toEqual([
      expect.objectContaining({ handle: triangle }),
    ]);
    // One undo step takes all four away.
    await h.ok('undo', { document_id: doc });
    expect((await read({ limit: 0 })).count).toBe(0);
    await h.ok('redo', { document_id: doc });

    needEzdxf(ctx);
    const path = scratch.path('hatch-solid.dxf');
    await h.ok('save', { document_id: doc, path });
    const audit = await ezdxfAudit(path);
    expect(audit.output).toMatch(/No errors found/);
    const seen = await python<Record<string, Record<string, unknown> | number[][]>>(READ_BACK, [path]);
    // ezdxf keeps the last hatch and solid it met: the patterned one, the triangle.
    expect(seen.hatch).toMatchObject({ solid: false, pattern: 'ANSI37', angle: 30, scale: 2, lines: 2 });
    expect((seen.hatch as { vertices: number[][] }).vertices).toEqual(SQUARE);
    expect(seen.solid).toEqual([
      [10, 0],
      [14, 0],
      [12, 3],
      [12, 3],
    ]);
    // Reopened, the read-out is the same.
    await h.ok('open', { path });
    expect((await read({ type: 'Hatch' })).entities).toEqual([a, b]);
  });

  it('refuses a bad boundary, pattern or corners, and creates none of the batch', async () => {
    for (const [entity, code] of [
      [{ type: 'Hatch', boundary: SQUARE.slice(0, 2), solid: true }, 'invalid_boundary'],
      [
        {
          type: 'Hatch',
          boundary: [
            [0, 0],
            [1, 'x'],
            [2, 2],
          ],
          solid: true,
        },
        'invalid_boundary',
      ],
      [{ type: 'Hatch' }, 'invalid_boundary'],
      [{ type: 'Hatch', boundary: SQUARE, pattern: 'NO_SUCH_PATTERN' }, 'invalid_pattern'],
      [{ type: 'Hatch', boundary: SQUARE, pattern_scale: 0 }, 'invalid_property'],
      [
        {
          type: 'Solid',
          corners: [
            [0, 0],
            [1, 1],
          ],
        },
        'invalid_corners',
      ],
      [
        {
          type: 'Solid',
          corners: [
            [0, 0],
            [1, 1],
            [2, 2],
            [3, 3],
            [4, 4],
          ],
        },
        'invalid_corners',
      ],
      [{ type: 'Solid', corners: [[0, 0], [1, 1], 'up'] }, 'invalid_corners'],
    ] as const) {
      const answer = await h.call('entities_create', {
        document_id: doc,
        entities: [{ type: 'Point', location: [0, 0] }, entity],
      });
      expect(answer, JSON.stringify(entity)).toMatchObject({ ok: false, code });
    }
    expect((await read({ limit: 0 })).count).toBe(0);
    expect(await h.revision()).toBe(0);
  });
});

describe("the reference editor's field names", () => {
  it('rotation_deg, start_angle_deg / end_angle_deg, block, thickness and constant_width', async (ctx: TestContext) => {
    await h.ok('block_define', {
      document_id: doc,
      name: 'DOT',
      handles: await h.create([{ type: 'Point', location: [0, 0] }]),
    });
    const handles = await h.create([
      { type: 'Text', value: 'R', position: [0, 0], rotation_deg: 30 },
      { type: 'MText', value: 'M', position: [0, 5], rotation_deg: 45 },
      { type: 'Arc', center: [0, 0], radius: 2, start_angle_deg: 10, end_angle_deg: 80 },
      { type: 'Insert', block: 'DOT', position: [3, 3], rotation_deg: 90 },
      { type: 'Line', start: [0, 0], end: [1, 0], thickness: 2.5 },
      { type: 'LwPolyline', vertices: SQUARE, closed: true, constant_width: 0.5 },
    ]);
    const all = (await read({ handles, detail: 'full' })).entities as Array<Record<string, unknown>>;
    expect(all.map((e) => [e.type, e.rotation ?? e.start_angle])).toEqual([
      ['Text', 30],
      ['MText', 45],
      ['Arc', 10],
      ['Insert', 90],
      ['Line', undefined],
      ['LwPolyline', undefined],
    ]);
    expect(all[2]?.end_angle).toBe(80);
    expect(all[3]).toMatchObject({ name: 'DOT', block: 'DOT' });

    needEzdxf(ctx);
    const path = scratch.path('names.dxf');
    await h.ok('save', { document_id: doc, path });
    expect((await ezdxfAudit(path)).output).toMatch(/No errors found/);
    const seen = await python<{ thickness: number; const_width: number }>(READ_BACK, [path]);
    expect(seen).toMatchObject({ thickness: 2.5, const_width: 0.5 });
  });
});
