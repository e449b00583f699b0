import { editorEvent } from '../../../streams/editor.js';
import { dictGet, dictHas, dictSet } from '../dict.js';
import { EditorError, fail } from '../errors.js';
import { GeometryError, transformEntity, translation } from '../geometry/index.js';
import { formatHandle } from '../handles.js';
import type { DxfDocumentModel, Entity } from '../model.js';
import { refuseExisting } from '../output-file.js';
import { handleList } from '../request.js';
import { pathArgument, withNewIdentity, writeDxfFile } from './documents.js';
import { entitiesOf, MODEL_SPACE } from './entities.js';
import { docOf, type OpContext, type OpOutcome, type OpTable } from './types.js';

/**
 * The drawing `wblock` writes: the document's tables, blocks and settings, with only `entities` in
 * model space (and every block's contents, so the Inserts among them still resolve). A new file, so
 * a new identity.
 */
function drawingOf(model: DxfDocumentModel, entities: readonly Entity[]): DxfDocumentModel {
  const kept: Record<string, Entity> = {};
  for (const block of Object.values(model.blocks)) {
    for (const handle of block.entities) {
      const entity = dictGet(model.entities, handle);
      if (entity) dictSet(kept, handle, entity);
    }
  }
  for (const entity of entities) dictSet(kept, entity.handle, entity);
  const groups = Object.fromEntries(
    Object.entries(model.groups)
      .map(
        ([name, group]) =>
          [name, { ...group, handles: group.handles.filter((h) => dictHas(kept, h)) }] as const,
      )
      .filter(([, group]) => group.handles.length > 0),
  );
  return { ...withNewIdentity(model), entities: kept, order: entities.map((e) => e.handle), groups };
}

/**
 * A block's contents as model space entities of a new drawing (`model`, whose handle seed moves on),
 * moved so that the block's base point is the origin. They get new handles: the block keeps its own
 * copies in the written drawing.
 */
function blockContents(model: DxfDocumentModel, name: string): Entity[] {
  const block = dictGet(model.blocks, name);
  if (!block || /^\*(model|paper)_space/i.test(name)) {
    return fail('block_missing', `no block named ${JSON.stringify(name)} in this document`);
  }
  const move = translation([-block.base[0], -block.base[1], -block.base[2]]);
  const contents: Entity[] = [];
  for (const handle of block.entities) {
    const entity = dictGet(model.entities, handle);
    if (!entity) continue;
    let moved: Entity;
    try {
      moved = transformEntity(entity, move);
    } catch (error) {
      if (error instanceof GeometryError)
        throw new EditorError(error.code, `block ${name}: ${error.message}`);
      throw error;
    }
    contents.push({ ...moved, handle: formatHandle(model.handseed++), space: MODEL_SPACE });
  }
  return contents;
}

/** The model space entities behind `handles`: at least one, each existing and in model space. */
function modelSpaceEntities(ctx: OpContext, raw: unknown): Entity[] {
  const handles = [...new Set(handleList(raw))];
  if (handles.length === 0) return fail('invalid_handles', 'handles must name at least one entity');
  const entities = entitiesOf(docOf(ctx), handles);
  const outside = entities.find((e) => e.space.toLowerCase() !== MODEL_SPACE.toLowerCase());
  if (outside) {
    return fail(
      'invalid_handles',
      `entity ${outside.handle} is not in model space (it is in ${outside.space})`,
    );
  }
  return entities;
}

/**
 * `wblock`: writes `handles` (model space entities of the document) or the contents of `block` to a
 * new DXF file at `path`. An existing file is kept unless `overwrite` is true. The document does not
 * change; the written file is recorded (BlockWritten), like a save.
 */
async function wblock(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const { handles, block } = ctx.request;
  const path = pathArgument(ctx.request.path);
  if ((handles === undefined) === (block === undefined)) {
    return fail(
      'invalid_request',
      'wblock needs either handles (an array of handles) or block (a block name)',
    );
  }
  let model: DxfDocumentModel;
  if (block !== undefined) {
    if (typeof block !== 'string')
      return fail('invalid_name', `block must be a block name, got ${JSON.stringify(block)}`);
    const copy: DxfDocumentModel = { ...doc.model };
    model = drawingOf(copy, blockContents(copy, block));
  } else {
    model = drawingOf(doc.model, modelSpaceEntities(ctx, handles));
  }
  await refuseExisting(path, ctx.request.overwrite);
  const result = { path, count: model.order.length, ...(await writeDxfFile(path, model)) };
  return {
    events: [editorEvent('BlockWritten', { document_id: doc.id, ...result, block: block ?? null })],
    result,
  };
}

export const wblockOps: OpTable = {
  wblock: { kind: 'mutation', document: 'required', run: wblock },
};
