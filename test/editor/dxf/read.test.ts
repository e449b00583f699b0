import { describe, expect, it } from 'vitest';
import { DxfError, fingerprintGuid, readDxf } from '../../../src/editor/dxf/index.js';
import type {
  LineEntity,
  LwPolylineEntity,
  MTextEntity,
  PolylineEntity,
  RawEntity,
  TextEntity,
} from '../../../src/editor/model.js';
import { dxf, EOF, section, toCrlf } from './helpers.js';

const r12Entities = dxf(
  ...section(
    'ENTITIES',
    [0, 'LINE'],
    [8, 'WALLS'],
    [62, 1],
    [10, 1],
    [20, 2],
    [11, 3],
    [21, 4],
    [0, 'POLYLINE'],
    [8, 'P'],
    [66, 1],
    [70, 1],
    [0, 'VERTEX'],
    [8, 'P'],
    [10, 0],
    [20, 0],
    [0, 'VERTEX'],
    [8, 'P'],
    [10, 5],
    [20, 0],
    [0, 'SEQEND'],
    [8, 'P'],
    [0, 'TEXT'],
    [10, 7],
    [20, 8],
    [40, 2.5],
    [1, 'caf\\U+00E9'],
    [72, 1],
    [73, 2],
    [11, 9],
    [21, 10],
  ),
  ...EOF,
);

function errorOf(text: string): DxfError {
  try {
    readDxf(text);
  } catch (error) {
    if (error instanceof DxfError) return error;
    throw error;
  }
  throw new Error('readDxf accepted it');
}

describe('readDxf', () => {
  it('reads an R12 file that has only an ENTITIES section, giving everything a handle', () => {
    const doc = readDxf(r12Entities);
    expect(doc.version).toBe('AC1009');
    expect(doc.order).toHaveLength(3);
    const [lineHandle, polyHandle, textHandle] = doc.order as [string, string, string];
    const line = doc.entities[lineHandle] as LineEntity;
    expect(line).toMatchObject({ type: 'Line', layer: 'WALLS', color: 1, start: [1, 2, 0], end: [3, 4, 0] });
    expect(line.space).toBe('*Model_Space');
    expect(line.handle).toMatch(/^[0-9A-F]+$/);
    const handles = Object.keys(doc.entities);
    expect(new Set(handles).size).toBe(3);
    for (const h of handles) expect(Number.parseInt(h, 16)).toBeLessThan(doc.handseed);

    const poly = doc.entities[polyHandle] as PolylineEntity;
    expect(poly).toMatchObject({ type: 'Polyline', layer: 'P' });
    // R12 entities are kept in R2000 form: subclass markers, owners, handles on every sub-entity.
    const types = poly.vertex_tags.filter((t) => t.code === 0).map((t) => t.value);
    expect(types).toEqual(['VERTEX', 'VERTEX', 'SEQEND']);
    expect(poly.vertex_tags.filter((t) => t.code === 100).map((t) => t.value)).toEqual([
      'AcDbEntity',
      'AcDbVertex',
      'AcDb2dVertex',
      'AcDbEntity',
      'AcDbVertex',
      'AcDb2dVertex',
      'AcDbEntity',
    ]);
    const subHandles = poly.vertex_tags.filter((t) => t.code === 5).map((t) => t.value);
    expect(subHandles).toHaveLength(3);
    expect(new Set([...subHandles, ...handles]).size).toBe(6);

    const text = doc.entities[textHandle] as TextEntity;
    expect(text).toMatchObject({ value: 'café', position: [7, 8, 0], height: 2.5, align_point: [9, 10, 0] });
    // Unmodeled codes are kept with the subclass they belong to (73 in the second AcDbText).
    expect(text.extra).toEqual([
      { code: 100, value: 'AcDbEntity' },
      { code: 100, value: 'AcDbText' },
      { code: 72, value: '1' },
      { code: 100, value: 'AcDbText' },
      { code: 73, value: '2' },
    ]);
  });

  it('reads CRLF files the same as LF files', () => {
    const lf = readDxf(r12Entities, { guid: '11111111-2222-3333-4444-555555555555' });
    const crlf = readDxf(toCrlf(r12Entities), { guid: '11111111-2222-3333-4444-555555555555' });
    expect(crlf).toEqual(lf);
  });

  it('completes R12 documents to the R2000 structure: blocks, layouts, tables, root dictionary', () => {
    const doc = readDxf(r12Entities);
    expect(Object.keys(doc.blocks)).toEqual(expect.arrayContaining(['*Model_Space', '*Paper_Space']));
    expect(Object.values(doc.layouts).map((l) => [l.name, l.block])).toEqual(
      expect.arrayContaining([
        ['Model', '*Model_Space'],
        ['Layout1', '*Paper_Space'],
      ]),
    );
    expect(doc.layers['0']).toBeDefined();
    expect(doc.objects[0]?.type).toBe('DICTIONARY');
    expect(Object.keys(doc.table_handles)).toHaveLength(9);
  });

  it('reads R2000+ entities: markers, extras by subclass, xdata, handles uppercase', () => {
    const text = dxf(
      ...section(
        'HEADER',
        [9, '$ACADVER'],
        [1, 'AC1015'],
        [9, '$HANDSEED'],
        [5, '1FF'],
        [9, '$INSUNITS'],
        [70, 4],
      ),
      ...section(
        'ENTITIES',
        [0, 'LINE'],
        [5, 'a1'],
        [102, '{ACAD_REACTORS'],
        [330, '1F'],
        [102, '}'],
        [330, '1F'],
        [100, 'AcDbEntity'],
        [8, '0'],
        [440, 33554560],
        [370, 25],
        [100, 'AcDbLine'],
        [39, 2],
        [10, 1.5],
        [20, -2],
        [30, 3],
        [11, 4],
        [21, 5],
        [31, 6],
        [210, 0],
        [220, 0],
        [230, 1],
        [1001, 'APP'],
        [1000, 'note'],
        [1002, '{'],
        [1070, 3],
        [1002, '}'],
        [1010, 1],
        [1020, 2],
        [1030, 3],
        [1040, 0.5],
        [1071, 100000],
        [1005, 'ab'],
        [0, 'HELIX'],
        [5, 'A2'],
        [330, '1F'],
        [100, 'AcDbEntity'],
        [8, 'S'],
        [62, 5],
        [100, 'AcDbSpline'],
        [70, 8],
        [71, 3],
        [10, 0],
        [20, 0],
        [30, 0],
        [1001, 'APP'],
        [1000, 'spline note'],
      ),
      ...EOF,
    );
    const doc = readDxf(text);
    expect(doc.version).toBe('AC1015');
    expect(doc.header.$INSUNITS).toEqual([{ code: 70, value: '4' }]);
    expect(doc.handseed).toBeGreaterThanOrEqual(0x1ff);
    const line = doc.entities.A1 as LineEntity;
    expect(line).toMatchObject({ handle: 'A1', start: [1.5, -2, 3], end: [4, 5, 6], lineweight: 25 });
    expect(line.extra).toEqual([
      { code: 102, value: '{ACAD_REACTORS' },
      { code: 330, value: '1F' },
      { code: 102, value: '}' },
      { code: 100, value: 'AcDbEntity' },
      { code: 440, value: '33554560' },
      { code: 100, value: 'AcDbLine' },
      { code: 39, value: '2' },
      { code: 210, value: '0' },
      { code: 220, value: '0' },
      { code: 230, value: '1' },
    ]);
    expect(line.xdata).toEqual({
      APP: [
        { code: 1000, value: 'note' },
        { code: 1002, value: '{' },
        { code: 1070, value: 3 },
        { code: 1002, value: '}' },
        { code: 1010, value: [1, 2, 3] },
        { code: 1040, value: 0.5 },
        { code: 1071, value: 100000 },
        { code: 1005, value: 'ab' },
      ],
    });
    const spline = doc.entities.A2 as RawEntity;
    expect(spline).toMatchObject({ type: 'Raw', dxf_type: 'HELIX', layer: 'S', color: 5 });
    expect(spline.tags[0]).toEqual({ code: 5, value: 'A2' });
    expect(spline.tags.some((t) => t.code >= 1000)).toBe(false);
    expect(spline.xdata).toEqual({ APP: [{ code: 1000, value: 'spline note' }] });
  });

  it('reads MTEXT chunks, LWPOLYLINE vertices with bulges and widths', () => {
    const doc = readDxf(
      dxf(
        ...section('HEADER', [9, '$ACADVER'], [1, 'AC1032']),
        ...section(
          'ENTITIES',
          [0, 'MTEXT'],
          [5, '10'],
          [100, 'AcDbEntity'],
          [8, '0'],
          [100, 'AcDbMText'],
          [10, 1],
          [20, 2],
          [40, 3],
          [41, 50],
          [71, 5],
          [3, 'first part, '],
          [3, 'second part, '],
          [1, 'last part'],
          [7, 'Notes'],
          [11, 0],
          [21, 1],
          [31, 0],
          [0, 'LWPOLYLINE'],
          [5, '11'],
          [100, 'AcDbEntity'],
          [8, '0'],
          [100, 'AcDbPolyline'],
          [90, 3],
          [70, 129],
          [43, 0],
          [10, 0],
          [20, 0],
          [42, 0.5],
          [10, 10],
          [20, 0],
          [40, 1],
          [41, 2],
          [10, 10],
          [20, 10],
        ),
        ...EOF,
      ),
    );
    const mtext = doc.entities['10'] as MTextEntity;
    expect(mtext).toMatchObject({
      value: 'first part, second part, last part',
      position: [1, 2, 0],
      height: 3,
      width: 50,
      attachment: 5,
      style: 'Notes',
      rotation: 90,
    });
    const pl = doc.entities['11'] as LwPolylineEntity;
    expect(pl).toMatchObject({ closed: true, plinegen: true, elevation: 0 });
    expect(pl.vertices).toEqual([
      { x: 0, y: 0, bulge: 0.5 },
      { x: 10, y: 0, bulge: 0, start_width: 1, end_width: 2 },
      { x: 10, y: 10, bulge: 0 },
    ]);
  });

  it('keeps the $FINGERPRINTGUID a file has, makes none for a file without one unless asked', () => {
    const doc = readDxf(r12Entities);
    expect(fingerprintGuid(doc)).toBeUndefined();
    expect(doc.header.$FINGERPRINTGUID).toBeUndefined();
    expect(
      readDxf(r12Entities, { guid: 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE' }).header.$FINGERPRINTGUID,
    ).toEqual([{ code: 2, value: '{AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE}' }]);
    expect(fingerprintGuid(readDxf(r12Entities, { newIdentity: true }))).toMatch(
      /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/,
    );
    const withGuid = dxf(
      ...section(
        'HEADER',
        [9, '$ACADVER'],
        [1, 'AC1015'],
        [9, '$FINGERPRINTGUID'],
        [2, '{0d2f5b6e-1111-4222-8333-944445555666}'],
      ),
      ...EOF,
    );
    expect(fingerprintGuid(readDxf(withGuid))).toBe('0D2F5B6E-1111-4222-8333-944445555666');
    expect(fingerprintGuid(readDxf(withGuid, { newIdentity: true }))).not.toBe(
      '0D2F5B6E-1111-4222-8333-944445555666',
    );
  });

  describe('refuses what is not a whole ASCII DXF file', () => {
    it.each([
      ['an empty file', '', 'dxf_invalid'],
      ['text', 'hello world\nthis is not a drawing\n', 'dxf_invalid'],
      ['a file that does not start with a SECTION', dxf([0, 'LINE'], [8, '0'], ...EOF), 'dxf_invalid'],
      ['a file with no sections', dxf(...EOF), 'dxf_invalid'],
      [
        'a bad group code inside',
        dxf(...section('ENTITIES', [0, 'LINE'])).replace('  0\nLINE', 'x0\nLINE'),
        'dxf_invalid',
      ],
      ['a file without EOF', dxf(...section('ENTITIES', [0, 'LINE'], [8, '0'])), 'dxf_truncated'],
      [
        'a section without ENDSEC',
        dxf([0, 'SECTION'], [2, 'ENTITIES'], [0, 'LINE'], [8, '0']),
        'dxf_truncated',
      ],
      [
        'a section cut by the next one',
        dxf([0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, 'AC1015'], ...section('ENTITIES'), ...EOF),
        'dxf_truncated',
      ],
      [
        'a last group code without value',
        `${dxf(...section('ENTITIES', [0, 'LINE']))}  8\n`,
        'dxf_truncated',
      ],
      ['binary DXF', 'AutoCAD Binary DXF\r\n\u001a\u0000\u0000\u0000SECTION', 'dxf_binary_unsupported'],
    ])('%s', (_name, text, code) => {
      const error = errorOf(text);
      expect(error).toBeInstanceOf(DxfError);
      expect(error.code).toBe(code);
      expect(error.message.length).toBeGreaterThan(0);
    });
  });

  it('reads stray whitespace: padded codes, trailing blank lines, 999 comments', () => {
    const text = `999\nmade by hand\n${dxf(...section('ENTITIES', [0, 'POINT'], [8, '0'], [10, 1], [20, 2], [30, 3]), ...EOF)}\n\n`;
    const doc = readDxf(text);
    expect(Object.values(doc.entities)).toMatchObject([{ type: 'Point', location: [1, 2, 3] }]);
  });
});
