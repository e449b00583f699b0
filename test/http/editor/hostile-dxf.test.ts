/**
 * DXF files of a few KB written to cost without bound: blocks nested six deep with 16 references a
 * level (16.7 million lines behind one INSERT), a polyline whose vertex count says 2^31, a HATCH whose
 * edge count says a million, a MINSERT whose grid says a billion cells. The editor runs on a 256 MB heap: it opens them (nothing is expanded at
 * open, no count in a file is trusted), refuses what would expand (plot, capture) with 400 `too_large`,
 * answers the rest, and lives on.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanEnv } from '../../cli/helpers.js';
import { body, Client, type EditorServer, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

/** 16 + 16^2 + ... + 16^6 entities behind the INSERT of NEST5 (references counted), and the INSERT. */
const NEST_EXPANDED = 1 + [1, 2, 3, 4, 5, 6].reduce((n, k) => n + 16 ** k, 0);

const tags = (pairs: Array<[number, string | number]>) => pairs.map(([c, v]) => `${c}\n${v}\n`).join('');

function hostileDxf(): string {
  const blocks: string[] = [];
  for (let level = 0; level < 6; level++) {
    const name = `NEST${level}`;
    blocks.push(
      tags([
        [0, 'BLOCK'],
        [8, '0'],
        [2, name],
        [70, 0],
        [10, 0],
        [20, 0],
        [30, 0],
        [3, name],
      ]),
    );
    for (let i = 0; i < 16; i++) {
      blocks.push(
        level === 0
          ? tags([
              [0, 'LINE'],
              [8, '0'],
              [10, i],
              [20, 0],
              [11, i],
              [21, 1],
            ])
          : tags([
              [0, 'INSERT'],
              [8, '0'],
              [2, `NEST${level - 1}`],
              [10, i * 20 ** level],
              [20, 0],
            ]),
      );
    }
    blocks.push(
      tags([
        [0, 'ENDBLK'],
        [8, '0'],
      ]),
    );
  }
  const entities = [
    tags([
      [0, 'INSERT'],
      [8, '0'],
      [2, 'NEST5'],
      [10, 0],
      [20, 0],
    ]),
    tags([
      [0, 'LWPOLYLINE'],
      [8, '0'],
      [90, 2147483647],
      [70, 0],
      [10, 0],
      [20, 0],
      [10, 5],
      [20, 5],
    ]),
    tags([
      [0, 'HATCH'],
      [5, 'A1'],
      [100, 'AcDbEntity'],
      [8, '0'],
      [100, 'AcDbHatch'],
      [10, 0],
      [20, 0],
      [30, 0],
      [210, 0],
      [220, 0],
      [230, 1],
      [2, 'SOLID'],
      [70, 1],
      [71, 0],
      [91, 1],
      [92, 1],
      [93, 1000000],
      [72, 1],
      [10, 0],
      [20, 0],
      [11, 4],
      [21, 0],
      [72, 1],
      [10, 4],
      [20, 0],
      [11, 4],
      [21, 4],
      [72, 1],
      [10, 4],
      [20, 4],
      [11, 0],
      [21, 0],
      [97, 0],
      [75, 0],
      [76, 1],
      [98, 0],
    ]),
  ];
  return `${tags([
    [0, 'SECTION'],
    [2, 'BLOCKS'],
  ])}${blocks.join('')}${tags([
    [0, 'ENDSEC'],
    [0, 'SECTION'],
    [2, 'ENTITIES'],
  ])}${entities.join('')}${tags([
    [0, 'ENDSEC'],
    [0, 'EOF'],
  ])}`;
}

let server: EditorServer;
let client: Client;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chronicle-hostile-dxf-'));
  server = await startEditor(['--store', 'memory:'], cleanEnv({ NODE_OPTIONS: '--max-old-space-size=256' }));
  client = new Client(server.port);
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a DXF of a few KB that expands without bound, on a 256 MB heap', () => {
  it('opens; plot and capture answer too_large; the rest answers; the process lives on', async () => {
    const text = hostileDxf();
    expect(text.length).toBeLessThan(8 * 1024);
    const path = join(dir, 'hostile.dxf');
    await writeFile(path, text);
    const opened = await client.post('/api/v1/documents', { path });
    expect(opened.status, opened.text).toBe(201);

    const plotted = await client.post('/api/v1/plot', { path: join(dir, 'hostile.pdf') });
    expect(plotted.status, plotted.text).toBe(400);
    expect(body(plotted)).toMatchObject({ code: 'too_large', expanded_entities: NEST_EXPANDED + 2 });
    const captured = await client.post('/api/v1/capture', { width: 256 });
    expect(captured.status, captured.text).toBe(400);
    expect(body(captured)).toMatchObject({ code: 'too_large' });

    // The counts in the file are not trusted: the polyline has its two vertices, the hatch its 3 edges.
    const polyline = await client.get('/api/v1/entities?type=LwPolyline');
    expect(polyline.status, polyline.text).toBe(200);
    expect((body(polyline).entities as Array<{ vertices: unknown[] }>)[0]?.vertices).toHaveLength(2);
    const hatch = await client.get('/api/v1/entities?type=HATCH&detail=full');
    expect(hatch.status, hatch.text).toBe(200);
    expect((body(hatch).entities as Array<{ boundary: unknown[][] }>)[0]?.boundary).toEqual([
      [
        [0, 0],
        [4, 0],
        [4, 4],
      ],
    ]);
    const near = await client.get('/api/v1/entities?bounds=-1,-1,10,10');
    expect(near.status, near.text).toBe(200);

    const ready = await client.get('/api/v1/ready');
    expect(ready.status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('a MINSERT of 205 bytes saying 32,767 x 32,767 cells opens; what would draw or measure its grid answers too_large', async () => {
    const text = `${tags([
      [0, 'SECTION'],
      [2, 'BLOCKS'],
      [0, 'BLOCK'],
      [8, '0'],
      [2, 'B'],
      [70, 0],
      [10, 0],
      [20, 0],
      [30, 0],
      [3, 'B'],
      [0, 'CIRCLE'],
      [8, '0'],
      [10, 0],
      [20, 0],
      [30, 0],
      [40, 1],
      [0, 'ENDBLK'],
      [8, '0'],
      [0, 'ENDSEC'],
      [0, 'SECTION'],
      [2, 'ENTITIES'],
      [0, 'INSERT'],
      [8, '0'],
      [2, 'B'],
      [10, 0],
      [20, 0],
      [70, 32767],
      [71, 32767],
      [44, 1],
      [45, 1],
    ])}${tags([
      [0, 'ENDSEC'],
      [0, 'EOF'],
    ])}`;
    expect(text.length).toBeLessThan(256);
    const path = join(dir, 'minsert.dxf');
    await writeFile(path, text);
    const opened = await client.post('/api/v1/documents', { path });
    expect(opened.status, opened.text).toBe(201);
    // Each of its 32,767^2 cells a reference to a block of one circle.
    const cells = 32767 * 32767;
    const full = await client.get('/api/v1/entities?type=Insert&detail=full');
    expect(full.status, full.text).toBe(400);
    expect(body(full)).toMatchObject({ code: 'too_large', expanded_entities: 2 * cells - 1, limit: 500_000 });
    expect(String(body(full).error)).toContain((2 * cells - 1).toLocaleString('en-US'));
    for (const [route, json] of [
      ['/api/v1/plot', { path: join(dir, 'minsert.pdf') }],
      ['/api/v1/capture', { width: 256 }],
    ] as const) {
      const answer = await client.post(route, json);
      expect(answer.status, answer.text).toBe(400);
      expect(body(answer)).toMatchObject({ code: 'too_large', expanded_entities: 2 * cells, limit: 500_000 });
    }
    // The rest answers: the Insert is listed, a spatial filter does not find it, a save writes it back.
    const listed = await client.get('/api/v1/entities?type=Insert');
    expect(listed.status, listed.text).toBe(200);
    expect(body(listed)).toMatchObject({ count: 1 });
    const near = await client.get('/api/v1/entities?bounds=-1,-1,10,10');
    expect(near.status, near.text).toBe(200);
    expect(body(near)).toMatchObject({ count: 0 });
    expect((await client.get('/api/v1/ready')).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('a HATCH that lists a million edges (a 35 MB file) is refused with dxf_too_large, nothing opened', async () => {
    const edges: string[] = [];
    for (let i = 0; i < 1_000_000; i++) edges.push(`72\n1\n10\n${i}\n20\n0\n11\n${i + 1}\n21\n0\n`);
    const text = `${tags([
      [0, 'SECTION'],
      [2, 'ENTITIES'],
      [0, 'HATCH'],
      [5, 'B1'],
      [100, 'AcDbEntity'],
      [8, '0'],
      [100, 'AcDbHatch'],
      [2, 'SOLID'],
      [70, 1],
      [71, 0],
      [91, 1],
      [92, 1],
      [93, 1_000_000],
    ])}${edges.join('')}${tags([
      [97, 0],
      [75, 0],
      [76, 1],
      [98, 0],
      [0, 'ENDSEC'],
      [0, 'EOF'],
    ])}`;
    const path = join(dir, 'million-edges.dxf');
    await writeFile(path, text);
    const before = body(await client.get('/api/v1/state')).state as { documents: unknown[] };
    const opened = await client.post('/api/v1/documents', { path });
    expect(opened.status, opened.text).toBe(400);
    expect(body(opened)).toMatchObject({ ok: false, code: 'dxf_too_large' });
    expect(String(body(opened).error)).toMatch(
      /HATCH entity at line 6 holds 5,000,0\d\d group codes, more than the 500,000/,
    );
    const after = body(await client.get('/api/v1/state')).state as { documents: unknown[] };
    expect(after.documents).toHaveLength(before.documents.length);
    expect((await client.get('/api/v1/ready')).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});
