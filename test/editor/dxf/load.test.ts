/**
 * Loading a DXF file off the main thread gives exactly what loading it on the thread gives, refusals
 * included (the worker passes the DxfError code on), and large files are split into batches under the
 * store's event limit.
 */
import { describe, expect, it } from 'vitest';
import { DxfError } from '../../../src/editor/dxf/errors.js';
import {
  entitiesLoadedData,
  LOAD_BATCH,
  type LoadedDxf,
  loadDxf,
  loadDxfFile,
  loadDxfOffThread,
  OFF_THREAD_BYTES,
} from '../../../src/editor/dxf/load.js';
import { knownJsonOf, serializeEventBody } from '../../../src/store/validate.js';

function linesDxf(count: number): Buffer {
  const parts: string[] = ['0\nSECTION\n2\nENTITIES\n'];
  for (let i = 0; i < count; i++) parts.push(`0\nLINE\n8\nL${i % 7}\n10\n${i}\n20\n0\n11\n${i}\n21\n1\n`);
  parts.push('0\nENDSEC\n0\nEOF\n');
  return Buffer.from(parts.join(''), 'latin1');
}

/** A load without the GUIDs the reader makes up for a file that has none (new at every read). */
function settled(loaded: LoadedDxf): LoadedDxf {
  const { $FINGERPRINTGUID: _f, $VERSIONGUID: _v, ...header } = loaded.model.header;
  return { ...loaded, model: { ...loaded.model, header } };
}

describe('loading DXF off the main thread', () => {
  it('gives the same model, batches, size and hash as loading on the thread', async () => {
    const bytes = linesDxf(5_000);
    const here = loadDxf(bytes);
    const there = await loadDxfOffThread(bytes);
    expect(settled(there)).toEqual(settled(here));
    expect(here.batches.map((b) => b.entities.length)).toEqual([LOAD_BATCH, LOAD_BATCH, 1_000]);
    expect(here.batches.flatMap((b) => b.order)).toHaveLength(5_000);
    expect(here.model.entities).toEqual({});
  });

  it('passes the reader refusal on with its code (recover mode off)', async () => {
    const truncated = linesDxf(10).subarray(0, 200);
    expect(() => loadDxf(truncated, { recover: false })).toThrow(DxfError);
    const refused = await loadDxfOffThread(truncated, { recover: false }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DxfError);
    expect((refused as DxfError).code).toBe(
      (() => {
        try {
          loadDxf(truncated, { recover: false });
        } catch (error) {
          return (error as DxfError).code;
        }
      })(),
    );
  });

  it('loadDxfFile loads a file over OFF_THREAD_BYTES (worker) and a small one (here) as loadDxf does', async () => {
    const big = linesDxf(40_000);
    expect(big.byteLength).toBeGreaterThan(OFF_THREAD_BYTES);
    const loaded = await loadDxfFile(big);
    expect(loaded.batches.reduce((n, b) => n + b.entities.length, 0)).toBe(40_000);
    expect(loaded.sha256).toBe(loadDxf(big).sha256);
    const small = linesDxf(10);
    expect(settled(await loadDxfFile(small))).toEqual(settled(loadDxf(small)));
  });

  it("hands the worker's batches over with their JSON text, which is exactly what serializing them writes", async () => {
    const big = linesDxf(40_000);
    const there = await loadDxfOffThread(big);
    const here = loadDxf(big);
    expect(there.batches).toEqual(here.batches);
    for (const [index, batch] of there.batches.entries()) {
      const data = entitiesLoadedData(7, index, batch);
      expect(data).toEqual({ document_id: 7, batch: index, ...batch });
      expect(knownJsonOf(data)).toBe(JSON.stringify(data));
      const event = { type: 'EntitiesLoaded', data, metadata: { requestId: 'r', at: 'now' } };
      const plain = { ...event, data: { ...data } };
      expect(serializeEventBody(event, 'now')).toBe(serializeEventBody(plain, 'now'));
    }
    // Batches read on this thread have no text: theirs are serialized as any event's.
    expect(
      knownJsonOf(entitiesLoadedData(7, 0, here.batches[0] as (typeof here.batches)[0])),
    ).toBeUndefined();
  });
});
