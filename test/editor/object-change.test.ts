/** The `object` change kind: raw OBJECTS records added, changed and removed by handle, and undone. */
import { describe, expect, it } from 'vitest';
import { applyStep, type DocumentState } from '../../projections/editor-session.js';
import type { RawRecord } from '../../src/editor/model.js';
import type { Change } from '../../streams/editor.js';
import { emptyModel } from './fixtures.js';

const record = (type: string, handle: string, extra = ''): RawRecord => ({
  type,
  handle,
  tags: [
    { code: 5, value: handle },
    { code: 330, value: '0' },
    ...(extra ? [{ code: 1, value: extra }] : []),
  ],
});

function docWithObjects(objects: RawRecord[]): DocumentState {
  const model = emptyModel();
  model.objects = objects;
  return {
    id: 1,
    title: 't',
    path: null,
    revision: 0,
    geometry_revision: 0,
    saved_revision: 0,
    model,
    undo: [],
    redo: [],
    selection: [],
    selection_sets: {},
    sysvars: {},
    view: null,
  };
}

describe('object changes', () => {
  it('add records after the root, change one in place, and undo back to the records as they were', () => {
    const root = record('DICTIONARY', 'C');
    const layouts = record('DICTIONARY', 'D');
    const doc = docWithObjects([root, layouts]);
    const changes: Change[] = [
      { kind: 'object', key: 'C', before: root, after: record('DICTIONARY', 'C', 'with entry') },
      { kind: 'object', key: '40', before: null, after: record('IMAGEDEF', '40') },
      // An index before the root still goes after it: the first object is the root dictionary.
      { kind: 'object', key: '41', before: null, after: record('IMAGEDEF_REACTOR', '41'), index: 0 },
    ];
    applyStep(doc, changes, false);
    expect(doc.model.objects.map((o) => o.handle)).toEqual(['C', '41', 'D', '40']);
    expect(doc.model.objects[0]?.tags).toContainEqual({ code: 1, value: 'with entry' });

    applyStep(doc, changes, true);
    expect(doc.model.objects).toEqual([root, layouts]);

    applyStep(doc, changes, false);
    expect(doc.model.objects.map((o) => o.handle)).toEqual(['C', '41', 'D', '40']);
  });

  it('removes a record whose change ends in null, and puts it back on undo', () => {
    const root = record('DICTIONARY', 'C');
    const def = record('IMAGEDEF', '40', 'a.png');
    const doc = docWithObjects([root, def]);
    const changes: Change[] = [{ kind: 'object', key: '40', before: def, after: null, index: 1 }];
    applyStep(doc, changes, false);
    expect(doc.model.objects).toEqual([root]);
    applyStep(doc, changes, true);
    expect(doc.model.objects).toEqual([root, def]);
  });
});
