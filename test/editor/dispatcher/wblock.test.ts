/**
 * `wblock`: entities (or a block's contents) written to a new DXF file that ezdxf audits clean and reads
 * back with exactly those entities; the document itself does not change; each refusal has its code.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it, type TestContext } from 'vitest';
import { ezdxfAudit, needEzdxf, python, scratchDir, startHarness } from './helpers.js';

const READ_BACK = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
msp = doc.modelspace()
print(json.dumps({"types": sorted(e.dxftype() for e in msp),
                  "lines": sorted([[round(v, 6) for v in (*e.dxf.start, *e.dxf.end)] for e in msp.query("LINE")]),
                  "layers": sorted(l.dxf.name for l in doc.layers),
                  "blocks": sorted(b.name for b in doc.blocks if not b.name.startswith("*"))}))
`;

interface ReadBack {
  types: string[];
  lines: number[][];
  layers: string[];
  blocks: string[];
}

describe('wblock', () => {
  it('writes the chosen entities to a file ezdxf audits clean; the document stays as it was', async (ctx: TestContext) => {
    needEzdxf(ctx);
    const dir = await scratchDir();
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const [a, , c] = await h.create([
        { type: 'line', layer: 'WALLS', start: [0, 0], end: [10, 0] },
        { type: 'circle', layer: '0', center: [5, 5], radius: 2 },
        { type: 'line', layer: 'DOORS', start: [1, 1], end: [2, 2] },
      ]);
      const revision = await h.revision();
      const path = dir.path('part.dxf');
      const written = await h.ok('wblock', { document_id: doc, handles: [a, c], path });
      expect(written.result).toMatchObject({ path, count: 2 });
      expect((written.result as { bytes: number }).bytes).toBe((await readFile(path)).length);
      expect(await h.revision()).toBe(revision);
      const audit = await ezdxfAudit(path);
      expect(audit.output).toMatch(/No errors found/);
      const back = await python<ReadBack>(READ_BACK, [path]);
      expect(back.types).toEqual(['LINE', 'LINE']);
      expect(back.lines).toEqual([
        [0, 0, 0, 10, 0, 0],
        [1, 1, 0, 2, 2, 0],
      ]);
      expect(back.layers).toEqual(expect.arrayContaining(['0', 'WALLS', 'DOORS']));
      expect((await h.events()).filter((e) => e.type === 'BlockWritten')).toHaveLength(1);
    } finally {
      await h.close();
      await dir.remove();
    }
  });

  it("writes a block's contents with its base point at the origin", async (ctx: TestContext) => {
    needEzdxf(ctx);
    const dir = await scratchDir();
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const [line] = await h.create([{ type: 'line', layer: '0', start: [10, 10], end: [12, 10] }]);
      await h.ok('block_define', { document_id: doc, name: 'TICK', handles: [line], base: [10, 10, 0] });
      const path = dir.path('tick.dxf');
      const written = await h.ok('wblock', { document_id: doc, block: 'TICK', path });
      expect(written.result).toMatchObject({ count: 1 });
      expect((await ezdxfAudit(path)).output).toMatch(/No errors found/);
      const back = await python<ReadBack>(READ_BACK, [path]);
      expect(back.lines).toEqual([[0, 0, 0, 2, 0, 0]]);
      expect(back.blocks).toContain('TICK');
    } finally {
      await h.close();
      await dir.remove();
    }
  });

  it('refuses bad requests with their codes, and keeps an existing file unless overwrite is true', async () => {
    const dir = await scratchDir();
    const h = await startHarness();
    try {
      const doc = await h.newDoc();
      const [a] = await h.create([{ type: 'line', layer: '0', start: [0, 0], end: [1, 0] }]);
      const path = dir.path('kept.dxf');
      await writeFile(path, 'keep me');
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ handles: [a] }, 'invalid_path'],
        [{ path: dir.path('x.dxf') }, 'invalid_request'],
        [{ path: dir.path('x.dxf'), handles: [a], block: 'B' }, 'invalid_request'],
        [{ path: dir.path('x.dxf'), handles: [] }, 'invalid_handles'],
        [{ path: dir.path('x.dxf'), handles: ['DEAD'] }, 'entity_absent'],
        [{ path: dir.path('x.dxf'), block: 'NOPE' }, 'block_missing'],
        [{ path, handles: [a] }, 'file_exists'],
        [{ path: dir.path('no/such/dir/x.dxf'), handles: [a] }, 'save_failed'],
      ];
      for (const [fields, code] of cases) {
        const answer = await h.call('wblock', { document_id: doc, ...fields });
        expect(answer, JSON.stringify(fields)).toMatchObject({ ok: false, code });
      }
      expect(await readFile(path, 'utf8')).toBe('keep me');
      await h.ok('wblock', { document_id: doc, handles: [a], path, overwrite: true });
      expect(await readFile(path, 'utf8')).toMatch(/^\s*0\r?\nSECTION/);
    } finally {
      await h.close();
      await dir.remove();
    }
  });
});
