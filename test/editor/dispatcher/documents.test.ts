/** Document ops through the dispatcher: new, open, close, activate, save, file_identity. */
import { mkdir, open as openFile, readFile, writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_DXF_BYTES } from '../../../src/editor/capabilities.js';
import {
  type Harness,
  handMadeDxf,
  type Reply,
  resultOf,
  scratchDir,
  startHarness,
  writeText,
} from './helpers.js';

let h: Harness;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.remove();
});
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const state = async () => (await h.raw({ protocol: 1, op: 'state' })).state;
const header = async (documentId?: number) =>
  resultOf<{ values: Record<string, unknown> }>(
    await h.raw({ protocol: 1, op: 'header', ...(documentId ? { document_id: documentId } : {}) }),
  ).values;
/** Makes `documentId` the active document (ops on it need that). */
const activate = async (documentId: number) => {
  if ((await state()).document_id !== documentId) await h.ok('activate', { document_id: documentId });
};
const identity = async (documentId: number) => {
  await activate(documentId);
  return resultOf<{ identity: string }>(await h.ok('file_identity', { document_id: documentId })).identity;
};
const full = async (documentId: number) => {
  await activate(documentId);
  const answer = await h.raw({ protocol: 1, op: 'query', document_id: documentId, detail: 'full' });
  expect(answer.ok).toBe(true);
  return answer.entities as Array<Record<string, unknown>>;
};

/** Entities of every modeled type but Image (which needs an IMAGEDEF the file has). */
const SAMPLE = [
  { type: 'Line', start: [0, 0], end: [10, 5, 2], layer: 'A', color: 1 },
  { type: 'Circle', center: [3, 4], radius: 2.5, lineweight: 35 },
  { type: 'Arc', center: [1, 1], radius: 3, start_angle: 10, end_angle: 190, layer: 'B' },
  { type: 'Text', value: 'Hello', position: [7, 8], height: 2.5, rotation: 30 },
  { type: 'MText', value: 'Two\\Plines', position: [0, 50], height: 1.5, width: 40, attachment: 5 },
  { type: 'Point', location: [4, 4, 4] },
  {
    type: 'LwPolyline',
    points: [
      [0, 0],
      [10, 0, 0.5],
      [10, 10],
    ],
    closed: true,
  },
];

describe('new', () => {
  it('makes a blank metric drawing, active, clean, with no path and its own identity', async () => {
    const answer = await h.ok('new');
    expect(answer.document_id).toBe(1);
    // `total`: the entities it brought in (a blank drawing none).
    expect(answer.result).toEqual({ document_id: 1, title: 'Drawing1.dxf', total: 0 });
    expect(answer.state.document_id).toBe(1);
    expect(answer.state.documents).toEqual([
      { id: 1, title: 'Drawing1.dxf', path: null, dirty: false, revision: 0 },
    ]);
    expect((await header()).$MEASUREMENT).toBe(1);
    const second = await h.ok('new', { template: 'metric' });
    expect(second.document_id).toBe(2);
    expect(await identity(2)).not.toBe(await identity(1));
  });

  it('imperial makes an imperial drawing', async () => {
    await h.ok('new', { template: 'imperial' });
    expect((await header()).$MEASUREMENT).toBe(0);
  });

  it('a DXF template gives its entities to a new, untitled drawing with a new identity', async () => {
    const path = await writeText(scratch.path('template.dxf'), handMadeDxf());
    const opened = await h.ok('open', { path });
    const templateIdentity = await identity(opened.document_id as number);
    const made = await h.ok('new', { template: path });
    const id = made.document_id as number;
    expect(made.result).toMatchObject({ total: 3, template: path });
    expect(made.state.documents.at(-1)).toMatchObject({ id, path: null, dirty: false });
    expect((await full(id)).map((e) => e.handle)).toEqual(['2A', '2B', '2C']);
    expect(await identity(id)).not.toBe(templateIdentity);
  });

  it('refuses a template that is neither a name nor a DXF path, and opens nothing', async () => {
    for (const template of [42, '', '   ', true]) {
      const answer = await h.call('new', { template });
      expect(answer.code, JSON.stringify(template)).toBe('invalid_template');
    }
    const missing = await h.call('new', { template: scratch.path('no-such-template.dxf') });
    expect(missing.code).toBe('file_not_found');
    const notDxf = await h.call('new', {
      template: await writeText(scratch.path('not-a-template.dxf'), 'hello\n'),
    });
    expect(notDxf.code).toBe('dxf_invalid');
    expect((await state()).documents).toEqual([]);
  });
});

describe('open', () => {
  it('opens a DXF file: its path, title, entities; it becomes the active document', async () => {
    await h.newDoc();
    const path = await writeText(scratch.path('opened.dxf'), handMadeDxf());
    const answer = await h.ok('open', { path });
    expect(answer.document_id).toBe(2);
    expect(answer.result).toEqual({
      document_id: 2,
      path,
      title: 'opened.dxf',
      entities: 3,
      by_type: { Line: 1, Circle: 1, HATCH: 1 },
      layers: 1,
      blocks: 0,
      format: 'ascii',
      recovered: [],
    });
    expect(answer.state.document_id).toBe(2);
    expect(answer.state.documents.at(-1)).toEqual({
      id: 2,
      title: 'opened.dxf',
      path,
      dirty: false,
      revision: 0,
    });
    const query = await h.raw({ protocol: 1, op: 'query', detail: 'summary' });
    expect(query.count).toBe(3);
    expect((query.entities as Array<{ handle: string }>).map((e) => e.handle)).toEqual(['2A', '2B', '2C']);
  });

  it('opens CRLF files the same', async () => {
    const path = await writeText(scratch.path('crlf.dxf'), handMadeDxf().replace(/\n/g, '\r\n'));
    await h.ok('open', { path });
    expect((await h.raw({ protocol: 1, op: 'query', limit: 0 })).count).toBe(3);
  });

  describe('failures open nothing', () => {
    let before: Reply['state'];
    beforeEach(async () => {
      await h.newDoc();
      before = await state();
    });
    afterEach(async () => {
      expect(await state()).toEqual(before);
    });

    it('a missing file is file_not_found', async () => {
      const answer = await h.call('open', { path: scratch.path('missing.dxf') });
      expect(answer.code).toBe('file_not_found');
      expect(answer.error).toMatch(/missing\.dxf/);
      const underFile = await h.call('open', {
        path: `${await writeText(scratch.path('plain.txt'), 'x')}/inner.dxf`,
      });
      expect(underFile.code).toBe('file_not_found');
    });

    it('a directory is file_unreadable', async () => {
      const dir = scratch.path('a-directory.dxf');
      await mkdir(dir, { recursive: true });
      expect((await h.call('open', { path: dir })).code).toBe('file_unreadable');
    });

    it('a file that is not DXF is dxf_invalid', async () => {
      for (const [name, text] of [
        ['words.dxf', 'hello world\nthis is not a drawing\n'],
        ['empty.dxf', ''],
        ['no-section.dxf', '  0\nLINE\n  8\n0\n  0\nEOF\n'],
      ] as const) {
        const answer = await h.call('open', { path: await writeText(scratch.path(name), text) });
        expect(answer.code, name).toBe('dxf_invalid');
      }
    });

    it('a binary DXF that holds no drawing is dxf_invalid', async () => {
      const path = scratch.path('binary.dxf');
      await writeFile(
        path,
        Buffer.concat([Buffer.from('AutoCAD Binary DXF\r\n\x1a\0', 'latin1'), Buffer.alloc(64)]),
      );
      expect((await h.call('open', { path })).code).toBe('dxf_invalid');
    });

    it('a truncated DXF is dxf_truncated', async () => {
      const text = handMadeDxf();
      for (const [name, cut] of [
        ['cut-mid.dxf', text.slice(0, text.indexOf('CIRCLE'))],
        ['no-eof.dxf', text.slice(0, text.lastIndexOf('  0\nEOF'))],
        ['no-value.dxf', text.slice(0, text.indexOf(' 40\n') + 4)],
      ] as const) {
        const path = await writeText(scratch.path(name), cut);
        const answer = await h.call('open', { path, recover: false });
        expect(answer.code, name).toBe('dxf_truncated');
        // By default recover mode reads what the file holds and says what it repaired.
        const recovered = await h.call('open', { path });
        expect(recovered.ok, name).toBe(true);
        expect((recovered.result as { recovered: string[] }).recovered.length, name).toBeGreaterThan(0);
        await h.ok('close', { document_id: recovered.document_id });
      }
    });

    it('a file over the size limit is file_too_large (a sparse file: no disk used)', async () => {
      const path = scratch.path('huge.dxf');
      const file = await openFile(path, 'w');
      await file.truncate(MAX_DXF_BYTES + 1);
      await file.close();
      const answer = await h.call('open', { path });
      expect(answer.code).toBe('file_too_large');
      expect(answer.error).toMatch(String(MAX_DXF_BYTES));
    });

    it('a path that is not a non-empty string is invalid_path', async () => {
      for (const path of [undefined, '', '  ', 7, ['a.dxf'], null]) {
        const answer = await h.call('open', path === undefined ? {} : { path });
        expect(answer.code, JSON.stringify(path)).toBe('invalid_path');
      }
    });
  });
});

describe('close', () => {
  it('closes a clean document; the last tab becomes active; closing the last leaves a blank drawing', async () => {
    const first = await h.newDoc();
    const second = await h.newDoc();
    const third = await h.newDoc();
    await h.ok('activate', { document_id: first });
    const closed = await h.ok('close', { document_id: first });
    expect(closed.result).toEqual({
      closed: true,
      closed_document_id: first,
      discarded: false,
      documents_before: 3,
      documents_after: 2,
      opened_document_id: null,
    });
    expect(closed.document_id).toBe(third);
    expect(closed.state.documents.map((d) => d.id)).toEqual([second, third]);
    // Closing a document that is not active keeps the active one.
    const other = await h.ok('close', { document_id: second });
    expect(other.state.document_id).toBe(third);
    // Closing the last one leaves a fresh blank drawing open, as the reference editor does.
    const last = await h.ok('close', { document_id: third });
    expect(last.result).toMatchObject({ closed: true, documents_after: 1, opened_document_id: 4 });
    expect(last.document_id).toBe(4);
    expect(last.state.document_id).toBe(4);
    expect(last.state.documents).toEqual([
      { id: 4, title: 'Drawing4.dxf', path: null, dirty: false, revision: 0 },
    ]);
    expect((await h.raw({ protocol: 1, op: 'query', document_id: 4, limit: 0 })).count).toBe(0);
  });

  it('a dirty document is document_dirty without discard, and stays open; discard closes it', async () => {
    const id = await h.newDoc();
    await h.create([{ type: 'Point', location: [1, 1] }]);
    for (const discard of [undefined, false, 'true', 1]) {
      const refused = await h.call('close', {
        document_id: id,
        ...(discard === undefined ? {} : { discard }),
      });
      expect(refused.code, JSON.stringify(discard)).toBe('document_dirty');
    }
    expect((await state()).documents).toEqual([
      { id, title: 'Drawing1.dxf', path: null, dirty: true, revision: 1 },
    ]);
    const closed = await h.ok('close', { document_id: id, discard: true });
    expect(closed.result).toMatchObject({ closed: true, closed_document_id: id, discarded: true });
    // The last document closed: a blank one takes its place, its unsaved entity gone with the old one.
    expect(closed.state.documents).toEqual([
      { id: id + 1, title: `Drawing${id + 1}.dxf`, path: null, dirty: false, revision: 0 },
    ]);
  });

  it('a saved document closes without discard', async () => {
    const id = await h.newDoc();
    await h.create([{ type: 'Point', location: [1, 1] }]);
    await h.ok('save', { document_id: id, path: scratch.path('close-saved.dxf') });
    expect((await h.call('close', { document_id: id })).ok).toBe(true);
  });
});

describe('activate', () => {
  it('makes an open document the active one', async () => {
    const first = await h.newDoc();
    const second = await h.newDoc();
    const answer = await h.ok('activate', { document_id: first });
    expect(answer.result).toEqual({ document_id: first });
    expect(answer.document_id).toBe(first);
    expect(answer.state.document_id).toBe(first);
    expect(answer.state.documents.map((d) => d.id)).toEqual([first, second]);
    // Reads without a document_id now go to it.
    await h.create([{ type: 'Point', location: [0, 0] }], first);
    expect((await h.raw({ protocol: 1, op: 'query', limit: 0 })).count).toBe(1);
    expect((await h.call('activate', { document_id: 42 })).code).toBe('document_closed');
  });
});

describe('save', () => {
  it('saves to a new path, then opening it gives the same entities, layers and identity', async () => {
    const id = await h.newDoc();
    await h.create(SAMPLE);
    // The identity is minted (a step of its own) before the save, so the file holds it.
    const value = await identity(id);
    const path = scratch.path('saved.dxf');
    const saved = await h.ok('save', { document_id: id, path });
    const bytes = (await readFile(path)).length;
    expect(saved.result).toEqual({ saved: path, path, bytes, format: 'ascii' });
    expect(saved.state.documents).toEqual([{ id, title: 'saved.dxf', path, dirty: false, revision: 2 }]);
    expect((await readFile(path, 'utf8')).startsWith('  0\nSECTION')).toBe(true);

    const reopened = await h.ok('open', { path });
    const other = reopened.document_id as number;
    const entities = await full(id);
    expect(entities).toHaveLength(SAMPLE.length);
    expect(await full(other)).toEqual(entities);
    expect(await identity(other)).toBe(value);
    expect(await identity(id)).toBe(value);
    const layers = async (documentId: number) =>
      resultOf<{ layers: Array<{ name: string }> }>(
        await h.raw({ protocol: 1, op: 'layers', document_id: documentId }),
      ).layers.map((l) => l.name);
    await activate(id);
    const mine = await layers(id);
    await activate(other);
    expect(await layers(other)).toEqual(mine);
    expect(mine).toEqual(expect.arrayContaining(['0', 'A', 'B']));
  });

  it('saves to its own path once it has one, and the document is clean again', async () => {
    const id = await h.newDoc();
    const path = scratch.path('own-path.dxf');
    await h.ok('save', { document_id: id, path });
    await h.create([{ type: 'Circle', center: [0, 0], radius: 9 }]);
    expect((await state()).documents[0]?.dirty).toBe(true);
    const again = await h.ok('save', { document_id: id });
    expect(resultOf<{ path: string }>(again).path).toBe(path);
    expect(again.state.documents[0]).toMatchObject({ dirty: false, revision: 1 });
    expect(await readFile(path, 'utf8')).toMatch(/\nCIRCLE\n/);
  });

  it('an untitled document needs a path (path_required); bad paths are invalid_path and save_failed', async () => {
    const id = await h.newDoc();
    await h.create([{ type: 'Point', location: [0, 0] }]);
    expect((await h.call('save', { document_id: id })).code).toBe('path_required');
    expect((await h.call('save', { document_id: id, path: '' })).code).toBe('invalid_path');
    expect((await h.call('save', { document_id: id, path: 12 })).code).toBe('invalid_path');
    const failed = await h.call('save', { document_id: id, path: scratch.path('no/such/dir/x.dxf') });
    expect(failed.code).toBe('save_failed');
    // Nothing was recorded as saved: still dirty, still untitled.
    expect((await state()).documents).toEqual([
      { id, title: 'Drawing1.dxf', path: null, dirty: true, revision: 1 },
    ]);
  });
});

describe('file_identity', () => {
  it('is minted on the first call (created: true, one step), then the same on every call (created: false, no step)', async () => {
    const id = await h.newDoc();
    const before = (await h.events()).length;
    const first = await h.ok('file_identity', { document_id: id });
    const minted = resultOf<{ identity: string; created: boolean }>(first);
    expect(minted.created).toBe(true);
    const value = minted.identity;
    expect(value).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
    expect(first.state.revision).toBe(1);
    const again = await h.ok('file_identity', { document_id: id });
    expect(again.result).toEqual({ identity: value, created: false });
    expect(again.state.revision).toBe(1);
    const appended = (await h.events()).slice(before).map((e) => e.type);
    expect(appended.filter((t) => t !== 'OperationAnswered')).toEqual(['FileIdentityAssigned']);
    // Undo takes the minted identity out: the next call mints again.
    await h.ok('undo', { document_id: id });
    const remade = resultOf<{ identity: string; created: boolean }>(
      await h.ok('file_identity', { document_id: id }),
    );
    expect(remade.created).toBe(true);
    expect(remade.identity).not.toBe(value);
  });

  it('is the same across save and open, and differs between drawings', async () => {
    const id = await h.newDoc();
    const value = await identity(id);
    const path = scratch.path('identity.dxf');
    await h.ok('save', { document_id: id, path });
    expect(await identity(id)).toBe(value);
    const reopened = (await h.ok('open', { path })).document_id as number;
    expect(await identity(reopened)).toBe(value);
    const blank = await h.newDoc();
    expect(await identity(blank)).not.toBe(value);
  });

  it('a file without $FINGERPRINTGUID gets one at the first call (created: true), kept through save and open', async () => {
    const path = await writeText(scratch.path('no-guid.dxf'), handMadeDxf());
    const id = (await h.ok('open', { path })).document_id as number;
    await activate(id);
    expect(resultOf<{ created: boolean }>(await h.ok('file_identity', { document_id: id })).created).toBe(
      true,
    );
    const value = await identity(id);
    expect(value).toHaveLength(36);
    const copy = scratch.path('no-guid-saved.dxf');
    await h.ok('save', { document_id: id, path: copy });
    const again = (await h.ok('open', { path: copy })).document_id as number;
    expect(await identity(again)).toBe(value);
  });
});

describe('DWG: refused, never read nor written (no DWG library has a compatible licence)', () => {
  /** The first bytes of a real R2018 DWG file: the AC1032 magic, then binary. */
  const dwgBytes = () =>
    Buffer.concat([Buffer.from('AC1032', 'latin1'), Buffer.from([0, 0, 0, 0, 0, 0x1f, 0x8b])]);
  const absent = (path: string) =>
    readFile(path).then(
      () => false,
      () => true,
    );

  it('save to .dwg or .dwt (any case) is unsupported_format naming DXF, and writes nothing', async () => {
    const id = await h.newDoc();
    await h.create([{ type: 'Point', location: [1, 1] }]);
    const revision = (await state()).revision;
    for (const name of ['plan.dwg', 'plan.DWG', 'sheet.dwt', 'sheet.Dwt']) {
      const path = scratch.path(name);
      const refused = await h.call('save', { document_id: id, path });
      expect(refused).toMatchObject({ ok: false, code: 'unsupported_format' });
      expect(refused.error).toMatch(/DXF/);
      expect(await absent(path)).toBe(true);
    }
    // The document stays as it was: unsaved, no path; a .dxf save works.
    expect((await state()).documents).toEqual([
      { id, title: 'Drawing1.dxf', path: null, dirty: true, revision },
    ]);
    await h.ok('save', { document_id: id, path: scratch.path('plan.dxf') });
    // A document whose path names a DWG (a DXF file named .dwg, opened) is not saved under it either.
    const renamed = scratch.path('really-dxf.dwg');
    await writeFile(renamed, await readFile(scratch.path('plan.dxf')));
    const opened = await h.ok('open', { path: renamed });
    expect((await h.call('save', { document_id: opened.document_id })).code).toBe('unsupported_format');
    // wblock, which writes a drawing too.
    const [point] = await h.create([{ type: 'Point', location: [2, 2] }], opened.document_id as number);
    const wblock = await h.call('wblock', {
      document_id: opened.document_id,
      handles: [point],
      path: scratch.path('part.dwg'),
    });
    expect(wblock.code).toBe('unsupported_format');
    expect(await absent(scratch.path('part.dwg'))).toBe(true);
  });

  it('open and new from a template refuse a DWG file by its AC10xx magic, whatever its name', async () => {
    const before = (await state()).documents.length;
    for (const name of ['drawing.dwg', 'looks-like.dxf', 'template.dwt']) {
      const path = scratch.path(name);
      await writeFile(path, dwgBytes());
      const opened = await h.call('open', { path });
      expect(opened).toMatchObject({ ok: false, code: 'unsupported_format' });
      expect(opened.error).toMatch(/DWG .*AC1032.*DXF/);
      expect((await h.call('new', { template: path })).code).toBe('unsupported_format');
    }
    expect((await state()).documents).toHaveLength(before);
  });
});
