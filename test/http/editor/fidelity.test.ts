/**
 * DXF files from the wild, read as AutoCAD and ezdxf read them and written back so ezdxf reads the same:
 * against the real CLI, every saved drawing audited by ezdxf. The files are excerpts of our own making in
 * test/fixtures/dxf-wild/ (its README says which writer's habit each one reproduces and where that
 * fact comes from).
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, tempDir } from '../../cli/helpers.js';
import { ezdxfAudit, needEzdxf, python } from '../../editor/dispatcher/helpers.js';
import { type Answer, arr, body, Client, type EditorServer, type Json, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/dxf-wild');

let dir: string;
let server: EditorServer;
let client: Client;

beforeAll(async () => {
  assertBuilt();
  dir = await tempDir();
  server = await startEditor();
  client = new Client(server.port);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ok = (answer: Answer, status = 200): Json => {
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status} ${answer.text}`);
  return body(answer);
};

async function open(name: string): Promise<Json> {
  return ok(await client.post('/api/v1/documents', { path: join(FIXTURES, name) }), 201);
}

async function save(name: string): Promise<string> {
  const file = join(dir, name);
  ok(await client.post('/api/v1/save', { path: file }));
  return file;
}

/** The group codes of each entity of a saved file's ENTITIES section, in order, by entity type. */
async function entityCodes(file: string): Promise<Array<{ type: string; codes: number[] }>> {
  const lines = (await readFile(file, 'utf8')).split(/\r?\n/);
  const out: Array<{ type: string; codes: number[] }> = [];
  let inEntities = false;
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const code = Number(lines[i]);
    const value = (lines[i + 1] as string).trim();
    if (code === 2 && value === 'ENTITIES') inEntities = true;
    else if (code === 0 && value === 'ENDSEC') inEntities = false;
    else if (inEntities && code === 0) out.push({ type: value, codes: [] });
    else if (inEntities) out.at(-1)?.codes.push(code);
  }
  return out;
}

async function audited(file: string): Promise<void> {
  const audit = await ezdxfAudit(file);
  expect(audit.output).toContain('No errors found');
  expect(audit.code).toBe(0);
}

describe('tag order of other writers', () => {
  it("dxflib's graphic attributes after the type's marker are the entity's: layer, colour, lineweight read; each written once", async (ctx) => {
    needEzdxf(ctx);
    await open('dxflib-tag-order.dxf');
    const all = arr(ok(await client.get('/api/v1/entities?detail=full')), 'entities') as Json[];
    const byType = Object.fromEntries(all.map((e) => [String(e.type === 'Raw' ? e.dxf_type : e.type), e]));
    expect(Object.keys(byType).sort()).toEqual(['ELLIPSE', 'Line', 'MText']);
    expect(byType.Line).toMatchObject({ layer: 'walls', color: 3, lineweight: 25 });
    expect(byType.MText).toMatchObject({ layer: 'walls', color: 256, value: 'Room 1' });
    expect(byType.ELLIPSE).toMatchObject({ layer: 'walls', color: 5 });
    const layers = arr(ok(await client.get('/api/v1/layers')), 'result.layers') as Json[];
    expect(layers.find((l) => l.name === 'walls')).toMatchObject({ entities: 3 });
    expect(layers.find((l) => l.name === '0')).toMatchObject({ entities: 0 });

    const file = await save('dxflib-saved.dxf');
    await audited(file);
    for (const { type, codes } of await entityCodes(file)) {
      for (const code of [8, 62, 370, 6]) {
        expect(codes.filter((c) => c === code).length, `${type} ${code}`).toBeLessThanOrEqual(1);
      }
      // The layer stands in AcDbEntity, before the type's own marker.
      expect(codes.indexOf(8), type).toBeLessThan(codes.lastIndexOf(100));
    }
    const seen = await python<Array<[string, string, number]>>(
      `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps([[e.dxftype(), e.dxf.layer, e.dxf.color] for e in doc.modelspace()]))
`,
      [file],
    );
    expect(seen).toEqual([
      ['LINE', 'walls', 3],
      ['MTEXT', 'walls', 256],
      ['ELLIPSE', 'walls', 5],
    ]);
  });
});
