import { dictHas } from './dict.js';
import type { DxfDocumentModel, Entity } from './model.js';

/** Block records that are layouts' spaces (`*Model_Space`, `*Paper_Space...`) rather than blocks. */
const isLayoutSpace = (name: string) => /^\*(model|paper)_space/i.test(name);

/** Model and paper space entities have a drawing order; block contents are ordered by their block. */
export const inDrawingOrder = (model: DxfDocumentModel, entity: Entity) =>
  isLayoutSpace(entity.space) || !dictHas(model.blocks, entity.space);
