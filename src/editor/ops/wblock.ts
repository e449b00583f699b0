import { createHash, randomUUID } from 'node:crypto';
import { rename, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { editorEvent } from '../../../streams/editor.js';
import { writeDxf } from '../dxf/index.js';
import { EditorError, fail } from '../errors.js';
import { GeometryError, transformEntity, translation } from '../geometry/index.js';
import type { DxfDocumentModel, Entity } from '../model.js';
import { handleList } from '../request.js';
import { entitiesOf, MODEL_SPACE } from './entities.js';
import { docOf, type OpContext, type OpOutcome, type OpTable } from './types.js';

/**
 * The drawing `wblock` writes: the document's tables, blocks and settings, with only `entities` in
 * model space (and every block's contents, so the Inserts among them still resolve). A new file, so
 * a new $FINGERPRINTGUID.
 */
function drawingOf(model: DxfDocumentModel, entities: readonly Entity[]): DxfDocumentModel {
  const kept: Record<string, Entity> = {};
  for (const block of Object.values(model.blocks)) {
    for (const handle of block.entities) {
      const entity = model.entities[handle];
      if (entity) kept[handle] = entity;
    }
  }
  for (const entity of entities) kept[entity.handle] = entity;
  const groups = Object.fromEntries(
    Object.entries(model.groups)
      .map(([name, group]) => [name, { ...group, handles: group.handles.filter((h) => h in kept) }] as const)
      .filter(([, group]) => group.handles.length > 0),
  );
  return {
    ...model,
    header: { ...model.header, $FINGERPRINTGUID: [{ code: 2, value: `{${randomUUID().toUpperCase()}}` }] },
    entities: kept,
    order: entities.map((e) => e.handle),
    groups,
  };
}

/** A block's contents as model space entities, moved so that the block's base point is the origin. */
function blockContents(model: DxfDocumentModel, name: string): Entity[] {
  const block = model.blocks[name];
  if (!block || /^\*(model|paper)_space/i.test(name)) {
    return fail('block_missing', `no block named ${JSON.stringify(name)} in this document`);
  }
  const move = translation([-block.base[0], -block.base[1], -block.base[2]]);
  const seed = { next: model.handseed };
  return block.entities.flatMap((handle) => {
    const entity = model.entities[handle];
    if (!entity) return [];
    let moved: Entity;
    try {
      moved = transformEntity(entity, move);
    } catch (error) {
      if (error instanceof GeometryError)
        throw new EditorError(error.code, `block ${name}: ${error.message}`);
      throw error;
    }
    // A new handle: the block keeps its own copy of the entity in the written drawing.
    const copy = { ...moved, handle: (seed.next++).toString(16).toUpperCase(), space: MODEL_SPACE };
    model.handseed = seed.next;
    return [copy];
  });
}

/**
 * `wblock`: writes `handles` (model space entities of the document) or the contents of `block` to a
 * new DXF file at `path`. An existing file is kept unless `overwrite` is true. The document does not
 * change; the written file is recorded (BlockWritten), like a save.
 */
async function wblock(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const { path: rawPath, handles: rawHandles, block } = ctx.request;
  if (typeof rawPath !== 'string' || rawPath.trim() === '')
    return fail('invalid_path', `path must be a non-empty string, got ${JSON.stringify(rawPath ?? null)}`);
  if ((rawHandles === undefined) === (block === undefined))
    return fail(
      'invalid_request',
      'wblock needs either handles (an array of handles) or block (a block name)',
    );
  const path = resolve(rawPath);
  let model: DxfDocumentModel;
  let count: number;
  if (block !== undefined) {
    if (typeof block !== 'string')
      return fail('invalid_name', `block must be a block name, got ${JSON.stringify(block)}`);
    const copy: DxfDocumentModel = { ...doc.model };
    const contents = blockContents(copy, block);
    model = drawingOf(copy, contents);
    count = contents.length;
  } else {
    const handles = [...new Set(handleList(rawHandles))];
    if (handles.length === 0) return fail('invalid_handles', 'handles must name at least one entity');
    const entities = entitiesOf(doc, handles);
    const outside = entities.find((e) => e.space.toLowerCase() !== MODEL_SPACE.toLowerCase());
    if (outside)
      return fail(
        'invalid_handles',
        `entity ${outside.handle} is not in model space (it is in ${outside.space})`,
      );
    model = drawingOf(doc.model, entities);
    count = entities.length;
  }
  if (ctx.request.overwrite !== true) {
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    if (exists) return fail('file_exists', `${path} exists; pass overwrite: true to replace it`);
  }
  const text = writeDxf(model);
  const bytes = Buffer.from(text, model.version >= 'AC1021' ? 'utf8' : 'latin1');
  const temporary = resolve(dirname(path), `.wblock.${process.pid}.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  } catch (error) {
    return fail('save_failed', `cannot write ${path}: ${(error as Error).message}`);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const result = { path, count, bytes: bytes.length, sha256 };
  return {
    events: [editorEvent('BlockWritten', { document_id: doc.id, ...result, block: block ?? null })],
    result,
  };
}

export const wblockOps: OpTable = {
  wblock: { kind: 'mutation', document: 'required', run: wblock },
};
