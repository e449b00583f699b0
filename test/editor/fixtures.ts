import type { DxfDocumentModel, Entity, LineEntity } from '../../src/editor/model.js';
import type { EditorEventMap } from '../../streams/editor.js';

/** A model with nothing in it but layer 0: enough for decisions and evolve, no DXF involved. */
export function emptyModel(): DxfDocumentModel {
  return {
    version: 'AC1032',
    header: { $CLAYER: [{ code: 8, value: '0' }] },
    handseed: 0x100,
    classes: [],
    layers: {
      '0': {
        name: '0',
        handle: '10',
        color: 7,
        linetype: 'Continuous',
        lineweight: -3,
        off: false,
        frozen: false,
        locked: false,
      },
    },
    tables: {},
    table_handles: {},
    appids: ['ACAD'],
    blocks: {},
    layouts: {},
    groups: {},
    entities: {},
    order: [],
    objects: [],
  };
}

export const line = (handle: string, x = 0): LineEntity => ({
  type: 'Line',
  handle,
  space: '*Model_Space',
  layer: '0',
  color: 256,
  linetype: 'BYLAYER',
  lineweight: -1,
  start: [x, 0, 0],
  end: [x + 1, 1, 0],
});

export const handlesOf = (entities: Record<string, Entity>) => Object.keys(entities).sort();

/** The data of a DocumentCreated of a blank document: `Drawing<id>.dxf` at revision 0, never saved. */
export const documentCreated = (id = 1, title = `Drawing${id}.dxf`): EditorEventMap['DocumentCreated'] => ({
  document_id: id,
  revision: 0,
  title,
  path: null,
  template: null,
  model: emptyModel(),
});
