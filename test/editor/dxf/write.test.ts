import { describe, expect, it } from 'vitest';
import {
  blankDocument,
  fingerprintGuid,
  readDxf,
  templateDxf,
  writeDxf,
} from '../../../src/editor/dxf/index.js';
import { tokenize } from '../../../src/editor/dxf/tags.js';
import type {
  DxfDocumentModel,
  DxfTag,
  Entity,
  LineEntity,
  MTextEntity,
  PolylineEntity,
  RawEntity,
  TextEntity,
} from '../../../src/editor/model.js';
import { dxf, EOF, section } from './helpers.js';

const handseedOf = (text: string) => {
  const m = /\$HANDSEED\n\s*5\n([0-9A-F]+)\n/.exec(text);
  return m ? Number.parseInt(m[1] as string, 16) : Number.NaN;
};

/** Every handle (5, 105) a file uses ($HANDSEED aside). */
function handlesIn(text: string): number[] {
  const t = tokenize(text);
  const out: number[] = [];
  let type = '';
  for (let i = 0; i < t.count; i++) {
    if (t.codes[i] === 0) type = t.value(i);
    if ((t.codes[i] === 5 && type !== 'DIMSTYLE' && type !== 'SECTION') || t.codes[i] === 105) {
      out.push(Number.parseInt(t.value(i), 16));
    }
  }
  return out;
}

function take(doc: DxfDocumentModel): string {
  return (doc.handseed++).toString(16).toUpperCase();
}

function addLine(
  doc: DxfDocumentModel,
  start: [number, number, number],
  layer = '0',
  space = '*Model_Space',
): LineEntity {
  const line: LineEntity = {
    type: 'Line',
    handle: take(doc),
    space,
    layer,
    color: 256,
    linetype: 'BYLAYER',
    lineweight: -1,
    start,
    end: [start[0] + 1, start[1] + 1, start[2]],
  };
  doc.entities[line.handle] = line;
  doc.order.push(line.handle);
  return line;
}

const r12 = dxf(
  ...section(
    'ENTITIES',
    [0, 'LINE'],
    [8, 'A'],
    [10, 1],
    [20, 2],
    [11, 3],
    [21, 4],
    [0, '3DFACE'],
    [8, 'B'],
    [10, 0],
    [20, 0],
    [11, 1],
    [21, 0],
    [12, 1],
    [22, 1],
    [13, 0],
    [23, 1],
  ),
  ...EOF,
);

describe('writeDxf', () => {
  it('writes at least AC1015, with the structure R2000 needs, even from an R12 file', () => {
    const doc = readDxf(r12);
    const text = writeDxf(doc);
    const back = readDxf(text);
    expect(back.version).toBe('AC1015');
    for (const table of [
      'VPORT',
      'LTYPE',
      'LAYER',
      'STYLE',
      'VIEW',
      'UCS',
      'APPID',
      'DIMSTYLE',
      'BLOCK_RECORD',
    ]) {
      expect(text).toContain(`  0\nTABLE\n  2\n${table}\n`);
    }
    expect(text).toContain('100\nAcDbBlockTableRecord\n  2\n*Model_Space\n');
    expect(text).toContain('  3\nACAD_GROUP\n');
    expect(text).toContain('  3\nACAD_LAYOUT\n');
    expect(text).toContain('  3\nACAD_PLOTSTYLENAME\n');
    expect(Object.keys(back.layouts).sort()).toEqual(['Layout1', 'Model']);
    // layers in use get records
    expect(Object.keys(back.layers).sort()).toEqual(['0', 'A', 'B']);
    // the same entities, handles and geometry
    expect(back.order).toEqual(doc.order);
    expect(back.entities[doc.order[0] as string]).toEqual(doc.entities[doc.order[0] as string]);
    // A 3DFACE is modeled: its corners come back as they were.
    expect(back.entities[doc.order[1] as string]).toEqual(doc.entities[doc.order[1] as string]);
  });

  it('writes $HANDSEED above every handle in the file', () => {
    for (const doc of [readDxf(r12), blankDocument('metric'), readDxf(templateDxf('imperial'))]) {
      addLine(doc, [0, 0, 0], 'NEW');
      doc.layouts.Extra = {
        name: 'Extra',
        handle: take(doc),
        block: '*Paper_Space9',
        tab_order: 5,
        page_setup: {
          paper: 'ISO_A4_(210.00_x_297.00_MM)',
          orientation: 'portrait',
          fit: true,
          center: true,
          scale: [1, 1],
        },
      };
      const text = writeDxf(doc);
      const seed = handseedOf(text);
      const handles = handlesIn(text);
      expect(new Set(handles).size).toBe(handles.length);
      expect(Math.max(...handles)).toBeLessThan(seed);
    }
  });

  it('round-trips a template: the same model comes back', () => {
    const doc = readDxf(templateDxf('metric'), { guid: '01234567-89AB-CDEF-0123-456789ABCDEF' });
    const back = readDxf(writeDxf(doc));
    expect(back.entities).toEqual(doc.entities);
    expect(back.layers).toEqual(doc.layers);
    expect(back.blocks).toEqual(doc.blocks);
    expect(back.layouts).toEqual(doc.layouts);
    expect(back.tables).toEqual(doc.tables);
    expect(back.appids).toEqual(doc.appids);
    expect(back.header).toEqual(doc.header);
    expect(back.handseed).toBe(doc.handseed);
    expect(fingerprintGuid(back)).toBe('01234567-89AB-CDEF-0123-456789ABCDEF');
  });

  it('leaves out deleted entities and every reference to them', () => {
    const doc = blankDocument('metric');
    const a = addLine(doc, [0, 0, 0]);
    const b = addLine(doc, [5, 5, 0]);
    const c = addLine(doc, [9, 9, 0]);
    doc.groups.AB = { name: 'AB', handle: take(doc), description: 'a and b', handles: [a.handle, b.handle] };
    doc.groups.C = { name: 'C', handle: take(doc), description: '', handles: [c.handle] };
    // an extension dictionary owned by c, and an XRECORD in it
    const xdict = take(doc);
    const xrec = take(doc);
    c.extra = [
      { code: 102, value: '{ACAD_XDICTIONARY' },
      { code: 360, value: xdict },
      { code: 102, value: '}' },
    ];
    doc.objects.push(
      {
        type: 'DICTIONARY',
        handle: xdict,
        tags: [
          { code: 5, value: xdict },
          { code: 330, value: c.handle },
          { code: 100, value: 'AcDbDictionary' },
          { code: 3, value: 'NOTE' },
          { code: 360, value: xrec },
        ],
      },
      {
        type: 'XRECORD',
        handle: xrec,
        tags: [
          { code: 5, value: xrec },
          { code: 330, value: xdict },
          { code: 100, value: 'AcDbXrecord' },
          { code: 1, value: 'kept with c' },
        ],
      },
    );
    const kept = readDxf(writeDxf(doc));
    expect(kept.objects.map((o) => o.handle)).toEqual(expect.arrayContaining([xdict, xrec]));
    expect(kept.groups.C?.handles).toEqual([c.handle]);

    delete doc.entities[b.handle];
    delete doc.entities[c.handle];
    doc.order = doc.order.filter((h) => h !== b.handle && h !== c.handle);
    const back = readDxf(writeDxf(doc));
    expect(Object.keys(back.entities)).toContain(a.handle);
    expect(Object.keys(back.entities)).not.toContain(b.handle);
    expect(back.groups.AB?.handles).toEqual([a.handle]);
    expect(back.groups.C).toBeUndefined();
    expect(back.objects.map((o) => o.handle)).not.toContain(xdict);
    expect(back.objects.map((o) => o.handle)).not.toContain(xrec);
  });

  it('writes added layers, blocks, layouts, groups and APPIDs from the model', () => {
    const doc = blankDocument('imperial');
    doc.layers.Walls = {
      name: 'Walls',
      handle: take(doc),
      color: 5,
      linetype: 'Continuous',
      lineweight: 50,
      off: true,
      frozen: false,
      locked: true,
    };
    const inBlock = addLine(doc, [1, 1, 0], 'Walls', 'Frame');
    doc.order.pop();
    doc.blocks.Frame = {
      name: 'Frame',
      record_handle: take(doc),
      block_handle: take(doc),
      end_handle: take(doc),
      base: [1, 2, 0],
      layer: '0',
      flags: 0,
      entities: [inBlock.handle],
    };
    const onSheet = addLine(doc, [3, 3, 0], '0', '*Paper_Space7');
    doc.layouts['Sheet 2'] = {
      name: 'Sheet 2',
      handle: take(doc),
      block: '*Paper_Space7',
      tab_order: 2,
      page_setup: {
        paper: 'ANSI_B_(17.00_x_11.00_Inches)',
        orientation: 'landscape',
        fit: false,
        center: true,
        scale: [1, 48],
      },
    };
    const g = addLine(doc, [4, 4, 0]);
    doc.groups.Mine = { name: 'Mine', handle: take(doc), description: 'mine', handles: [g.handle] };
    g.xdata = { MYAPP: [{ code: 1000, value: 'hello' }] };

    const back = readDxf(writeDxf(doc));
    expect(back.layers.Walls).toMatchObject({ color: 5, off: true, locked: true, lineweight: 50 });
    expect(back.blocks.Frame).toMatchObject({ base: [1, 2, 0], entities: [inBlock.handle] });
    expect(back.entities[inBlock.handle]?.space).toBe('Frame');
    expect(back.layouts['Sheet 2']).toMatchObject({
      block: '*Paper_Space7',
      tab_order: 2,
      page_setup: {
        paper: 'ANSI_B_(17.00_x_11.00_Inches)',
        orientation: 'landscape',
        fit: false,
        center: true,
        scale: [1, 48],
        size: [431.8, 279.4],
      },
    });
    expect(back.entities[onSheet.handle]?.space).toBe('*Paper_Space7');
    expect(back.order).toContain(onSheet.handle);
    expect(back.groups.Mine).toMatchObject({ description: 'mine', handles: [g.handle] });
    expect(back.appids).toContain('MYAPP');
    expect(back.entities[g.handle]?.xdata).toEqual({ MYAPP: [{ code: 1000, value: 'hello' }] });

    // page setup changes on an existing layout
    const layout = back.layouts['Sheet 2'];
    if (!layout) throw new Error('no layout');
    layout.page_setup = {
      paper: 'ISO_A4_(210.00_x_297.00_MM)',
      orientation: 'landscape',
      fit: true,
      center: false,
      scale: [1, 1],
    };
    const again = readDxf(writeDxf(back));
    expect(again.layouts['Sheet 2']?.page_setup).toEqual({
      paper: 'ISO_A4_(210.00_x_297.00_MM)',
      orientation: 'landscape',
      fit: true,
      center: false,
      scale: [1, 1],
      size: [210, 297],
    });
  });

  it('keeps unmodeled entities tag for tag and writes their common fields from the model', () => {
    const text = dxf(
      ...section('HEADER', [9, '$ACADVER'], [1, 'AC1018'], [9, '$HANDSEED'], [5, '100']),
      ...section(
        'ENTITIES',
        [0, 'HELIX'],
        [5, '50'],
        [330, '1F'],
        [100, 'AcDbEntity'],
        [8, 'OLD'],
        [62, 1],
        [100, 'AcDbSpline'],
        [210, '0.0'],
        [220, '0.0'],
        [230, '1.0'],
        [70, 8],
        [71, 3],
        [72, 0],
        [73, 0],
        [74, 0],
      ),
      ...EOF,
    );
    const doc = readDxf(text);
    const spline = doc.entities['50'] as RawEntity;
    const tagsBefore: DxfTag[] = structuredClone(spline.tags);
    const out = readDxf(writeDxf(doc)).entities['50'] as RawEntity;
    expect(out.tags.slice(2)).toEqual(tagsBefore.slice(2));
    spline.layer = 'NEW';
    spline.color = 256;
    spline.lineweight = 30;
    const changed = readDxf(writeDxf(doc)).entities['50'] as RawEntity;
    expect(changed).toMatchObject({ layer: 'NEW', color: 256, lineweight: 30 });
    expect(changed.tags.filter((t) => t.code === 62)).toEqual([]);
  });

  it('escapes non-ASCII text as \\U+XXXX before R2007 and reads it back', () => {
    const doc = blankDocument('metric');
    doc.version = 'AC1015';
    const text: TextEntity = {
      type: 'Text',
      handle: take(doc),
      space: '*Model_Space',
      layer: 'Ébauche',
      color: 256,
      linetype: 'BYLAYER',
      lineweight: -1,
      value: 'Größe 5 µm — ok',
      position: [0, 0, 0],
      height: 1,
      rotation: 0,
      style: 'Standard',
    };
    doc.entities[text.handle] = text;
    doc.order.push(text.handle);
    const out = writeDxf(doc);
    expect(out).not.toMatch(/[\u0080-\uffff]/);
    expect(out).toContain('Gr\\U+00F6\\U+00DFe');
    const back = readDxf(out).entities[text.handle] as TextEntity;
    expect(back.value).toBe(text.value);
    expect(back.layer).toBe('Ébauche');
    doc.version = 'AC1032';
    expect(writeDxf(doc)).toContain('Größe 5 µm');
  });

  it('splits long MTEXT into 250-character chunks and reads it back whole', () => {
    const doc = blankDocument('metric');
    const value = `${'word '.repeat(120)}\\Pend`;
    const mtext: MTextEntity = {
      type: 'MText',
      handle: take(doc),
      space: '*Model_Space',
      layer: '0',
      color: 256,
      linetype: 'BYLAYER',
      lineweight: -1,
      value,
      position: [1, 2, 3],
      height: 2,
      width: 30,
      rotation: 15,
      style: 'Standard',
      attachment: 5,
    };
    doc.entities[mtext.handle] = mtext;
    doc.order.push(mtext.handle);
    const out = writeDxf(doc);
    const start = out.indexOf('\nMTEXT\n');
    const entity = out.slice(start, out.indexOf('\n  0\n', start));
    expect(entity.match(/\n {2}3\n/g)?.length).toBe(2);
    expect(readDxf(out).entities[mtext.handle]).toEqual(mtext);
  });

  it('writes every modeled entity type so that it reads back the same', () => {
    const doc = blankDocument('metric');
    const base = { space: '*Model_Space', layer: '0', color: 3, linetype: 'Continuous', lineweight: 25 };
    const entities: Entity[] = [
      { ...base, type: 'Circle', handle: take(doc), center: [1, 2, 3], radius: 4 },
      {
        ...base,
        type: 'Arc',
        handle: take(doc),
        center: [1, 2, 0],
        radius: 4,
        start_angle: 30,
        end_angle: 300,
      },
      { ...base, type: 'Point', handle: take(doc), location: [7, 8, 9] },
      {
        ...base,
        type: 'LwPolyline',
        handle: take(doc),
        vertices: [
          { x: 0, y: 0, bulge: 1 },
          { x: 1, y: 0, bulge: 0, start_width: 0.5, end_width: 0.25 },
        ],
        closed: true,
        elevation: 2,
      },
      {
        ...base,
        type: 'Insert',
        handle: take(doc),
        name: '_ArchTick',
        position: [1, 1, 0],
        scale: [2, 3, 1],
        rotation: 90,
      },
      {
        ...base,
        type: 'Text',
        handle: take(doc),
        value: 'x',
        position: [0, 0, 0],
        height: 2,
        rotation: 45,
        style: 'OpenSans',
        align_point: [3, 3, 0],
      },
    ];
    for (const e of entities) {
      doc.entities[e.handle] = e;
      doc.order.push(e.handle);
    }
    const back = readDxf(writeDxf(doc));
    for (const e of entities) expect(back.entities[e.handle]).toEqual(e);
  });
});

describe('writeDxf with copies made by structuredClone', () => {
  const polyline = dxf(
    ...section('HEADER', [9, '$ACADVER'], [1, 'AC1015'], [9, '$HANDSEED'], [5, '40']),
    ...section(
      'ENTITIES',
      [0, 'POLYLINE'],
      [5, '20'],
      [102, '{ACAD_XDICTIONARY'],
      [360, '30'],
      [102, '}'],
      [102, '{ACAD_REACTORS'],
      [330, '31'],
      [330, '3F'],
      [102, '}'],
      [330, '1F'],
      [100, 'AcDbEntity'],
      [8, 'P'],
      [100, 'AcDb2dPolyline'],
      [66, 1],
      [10, 0],
      [20, 0],
      [30, 0],
      [0, 'VERTEX'],
      [5, '21'],
      [330, '20'],
      [100, 'AcDbEntity'],
      [8, 'P'],
      [100, 'AcDbVertex'],
      [100, 'AcDb2dVertex'],
      [10, 1],
      [20, 1],
      [30, 0],
      [0, 'SEQEND'],
      [5, '22'],
      [330, '20'],
      [100, 'AcDbEntity'],
      [8, 'P'],
    ),
    ...section(
      'OBJECTS',
      [0, 'DICTIONARY'],
      [5, 'C'],
      [330, '0'],
      [100, 'AcDbDictionary'],
      [0, 'DICTIONARY'],
      [5, '30'],
      [330, '20'],
      [100, 'AcDbDictionary'],
      [0, 'XRECORD'],
      [5, '31'],
      [330, 'C'],
      [100, 'AcDbXrecord'],
    ),
    ...EOF,
  );

  it('gives copied sub-entities new handles and does not share extension dictionaries or dead reactors', () => {
    const doc = readDxf(polyline);
    const copy = structuredClone(doc.entities['20'] as PolylineEntity);
    copy.handle = take(doc);
    doc.entities[copy.handle] = copy;
    doc.order.push(copy.handle);
    const text = writeDxf(doc);
    const handles = handlesIn(text);
    expect(new Set(handles).size).toBe(handles.length);
    expect(Math.max(...handles)).toBeLessThan(handseedOf(text));
    const back = readDxf(text);
    const original = back.entities['20'] as PolylineEntity;
    const copied = back.entities[copy.handle] as PolylineEntity;
    expect(original.extra?.slice(0, 6)).toEqual([
      { code: 102, value: '{ACAD_XDICTIONARY' },
      { code: 360, value: '30' },
      { code: 102, value: '}' },
      { code: 102, value: '{ACAD_REACTORS' },
      { code: 330, value: '31' },
      { code: 102, value: '}' },
    ]);
    expect(copied.extra?.filter((t) => t.code === 102).map((t) => t.value)).toEqual(['{ACAD_REACTORS', '}']);
    expect(copied.vertex_tags.filter((t) => t.code === 0).map((t) => t.value)).toEqual(['VERTEX', 'SEQEND']);
    // the copy's vertices are owned by the copy, with handles of their own
    expect(copied.vertex_tags.filter((t) => t.code === 330).map((t) => t.value)).toEqual([
      copy.handle,
      copy.handle,
    ]);
    const vertexHandles = (e: PolylineEntity) =>
      e.vertex_tags.filter((t) => t.code === 5).map((t) => t.value);
    expect(vertexHandles(copied).some((h) => vertexHandles(original).includes(h))).toBe(false);
  });
});
