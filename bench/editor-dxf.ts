import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readDxf } from '../src/editor/dxf/index.js';
import { type BenchReport, percentile } from './report.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';

/** Writes `count` entities (lines, circles, lwpolylines, texts in turn) with ezdxf, R2018. */
const MAKE = `
import sys, ezdxf
path, count = sys.argv[1], int(sys.argv[2])
doc = ezdxf.new("R2018")
msp = doc.modelspace()
for i in range(count):
    x, y = (i % 1000) * 1.5, (i // 1000) * 1.5
    k = i % 4
    if k == 0: msp.add_line((x, y), (x + 1, y + 1), dxfattribs={"layer": "L%d" % (i % 10)})
    elif k == 1: msp.add_circle((x, y), 0.5)
    elif k == 2: msp.add_lwpolyline([(x, y), (x + 1, y), (x + 1, y + 1)])
    else: msp.add_text("T%d" % i, dxfattribs={"insert": (x, y), "height": 0.25})
doc.saveas(path)
`;

/** Times ezdxf.readfile inside Python, so interpreter start and import are not counted against it. */
const READ = `
import sys, time, json, ezdxf
path, runs = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(runs):
    t = time.perf_counter()
    doc = ezdxf.readfile(path)
    times.append((time.perf_counter() - t) * 1000)
print(json.dumps({"ms": times, "entities": len(doc.modelspace())}))
`;

export interface DxfOpenResult {
  entities: number;
  bytes: number;
  /** Median of our runs: read the file, decode, readDxf. */
  oursMs: number;
  ezdxfMs: number;
  /** ezdxf time / our time: how many times faster we open it. */
  ratio: number;
}

/**
 * Opening a DXF made by ezdxf: our reader (file read, decode and readDxf) against ezdxf's own
 * `readfile` of the same file, each timed `runs` times, medians compared.
 */
export async function benchDxfOpen(entities = 100_000, runs = 3): Promise<DxfOpenResult> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-dxf-'));
  try {
    const path = join(dir, `entities-${entities}.dxf`);
    await run(PYTHON, ['-c', MAKE, path, String(entities)], { maxBuffer: 64 * 1024 * 1024 });
    const ours: number[] = [];
    let read = 0;
    for (let i = 0; i < runs + 1; i++) {
      const t0 = performance.now();
      const doc = readDxf((await readFile(path)).toString('utf8'));
      const ms = performance.now() - t0;
      read = Object.keys(doc.entities).length;
      if (i > 0) ours.push(ms); // the first run warms the JIT up
    }
    const { stdout } = await run(PYTHON, ['-c', READ, path, String(runs)], { maxBuffer: 1024 * 1024 });
    const theirs = JSON.parse(stdout) as { ms: number[]; entities: number };
    if (theirs.entities !== entities)
      throw new Error(`ezdxf read ${theirs.entities} entities, not ${entities}`);
    if (read < entities) throw new Error(`readDxf read ${read} entities, not ${entities}`);
    const oursMs = percentile(
      [...ours].sort((a, b) => a - b),
      50,
    );
    const ezdxfMs = percentile(
      [...theirs.ms].sort((a, b) => a - b),
      50,
    );
    return { entities, bytes: (await stat(path)).size, oursMs, ezdxfMs, ratio: ezdxfMs / oursMs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The open-a-DXF part of the editor benchmark as a report section (target: at least 3x faster). */
export async function dxfOpenReport(entities = 100_000): Promise<BenchReport> {
  const r = await benchDxfOpen(entities);
  return {
    name: `open a ${entities}-entity DXF made by ezdxf`,
    rows: [
      { reader: 'readDxf', ms: r.oursMs, MB: r.bytes / 1e6 },
      { reader: 'ezdxf.readfile', ms: r.ezdxfMs, MB: r.bytes / 1e6 },
    ],
    ratios: { open_vs_ezdxf: { value: r.ratio, target: 3, ok: r.ratio >= 3 } },
  };
}
