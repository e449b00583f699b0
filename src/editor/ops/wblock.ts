import { editorEvent } from '../../../streams/editor.js';
import { dictGet, dictHas, dictSet } from '../dict.js';
import { newLayer } from '../dxf/structure.js';
import { EditorError, fail } from '../errors.js';
import { dimensionBlock, isDimensionClone, isDimensionType } from '../geometry/dimension.js';
import { bounds, documentContext, GeometryError, transformEntity, translation } from '../geometry/index.js';
import { formatHandle } from '../handles.js';
import type { Block, DxfDocumentModel, Entity, Point3 } from '../model.js';
import { named } from '../names.js';
import { refuseExisting } from '../output-file.js';
import { handleList } from '../request.js';
import { pathArgument, readDrawing, withNewIdentity, writeDxfFile } from './documents.js';
import { entitiesOf, MODEL_SPACE } from './entities.js';
import { docOf, everyRequest, type OpContext, type OpGroup, type OpOutcome } from './types.js';

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
 * The drawing `wblock` writes with a `template`: the template's tables, styles, blocks, layouts and
 * settings, none of its layout entities, and `entities` of `source` in its model space with handles from
 * the template's seed. Layers and blocks they use that the template lacks come along from `source`; a
 * linetype or text style the template does not define falls back to BYLAYER / Standard.
 */
function intoTemplate(template: DxfDocumentModel, source: DxfDocumentModel, entities: readonly Entity[]) {
  let seed = template.handseed;
  const next = () => formatHandle(seed++);
  const layers = { ...template.layers };
  const blocks = { ...template.blocks };
  const named = (table: string) =>
    new Set(
      (dictGet(template.tables, table) ?? []).map(
        (r) => r.tags.find((t) => t.code === 2)?.value.toUpperCase() ?? '',
      ),
    );
  const linetypes = named('LTYPE');
  const styles = named('STYLE');
  const hasLinetype = (name: string) =>
    ['BYLAYER', 'BYBLOCK', 'CONTINUOUS'].includes(name.toUpperCase()) || linetypes.has(name.toUpperCase());
  const kept: Record<string, Entity> = {};
  for (const block of Object.values(template.blocks))
    for (const h of block.entities) {
      const e = dictGet(template.entities, h);
      if (e) dictSet(kept, h, e);
    }
  const addLayer = (name: string) => {
    if (Object.keys(layers).some((n) => n.toUpperCase() === name.toUpperCase())) return;
    const layer = dictGet(source.layers, name);
    if (!layer) {
      dictSet(layers, name, newLayer(name, next()));
      return;
    }
    // Unmodeled tags stay behind: they may name objects (plot style, material) of the source drawing.
    const { extra: _extra, ...definition } = layer;
    const linetype = hasLinetype(layer.linetype) ? layer.linetype : 'Continuous';
    dictSet(layers, name, { ...definition, handle: next(), linetype });
  };
  const copy = (e: Entity, space: string): string => {
    if (e.type === 'Image')
      fail('invalid_handles', `image ${e.handle} cannot go into a template: its image definition stays here`);
    addLayer(e.layer);
    if (e.type === 'Insert') addBlock(e.name);
    const out = { ...structuredClone(e), handle: next(), space } as Entity;
    if (!hasLinetype(out.linetype)) out.linetype = 'BYLAYER';
    if ((out.type === 'Text' || out.type === 'MText') && !styles.has(out.style.toUpperCase()))
      out.style = 'Standard';
    dictSet(kept, out.handle, out);
    return out.handle;
  };
  function addBlock(name: string): void {
    const block = dictGet(source.blocks, name);
    if (dictHas(blocks, name) || !block) return;
    // Registered before its contents are copied, so a block that nests itself cannot loop.
    dictSet(blocks, name, {
      ...block,
      record_handle: next(),
      block_handle: next(),
      end_handle: next(),
      entities: [],
    });
    const contents = block.entities.flatMap((h) => {
      const e = dictGet(source.entities, h);
      return e ? [copy(e, name)] : [];
    });
    dictSet(blocks, name, { ...(dictGet(blocks, name) as Block), entities: contents });
  }
  const order = entities.map((e) => copy(e, MODEL_SPACE));
  return { ...withNewIdentity(template), layers, blocks, entities: kept, order, groups: {}, handseed: seed };
}

/** The drawing moved so that the lower-left corner of its model space extents is the origin. */
function normalized(model: DxfDocumentModel): DxfDocumentModel {
  const context = documentContext(model);
  const boxes = model.order.flatMap((h) => {
    const e = dictGet(model.entities, h);
    const b = e && bounds(e, context);
    return b ? [b] : [];
  });
  if (boxes.length === 0) return model;
  const min = [0, 1, 2].map((i) => Math.min(...boxes.map((b) => b.min[i] as number))) as Point3;
  const move = translation([-min[0], -min[1], -min[2]]);
  const entities = { ...model.entities };
  const moveOne = (h: string) => {
    const e = dictGet(entities, h);
    if (!e) return;
    dictSet(entities, h, transformEntity(e, move));
  };
  const movedBlocks = new Set<string>();
  for (const h of model.order) {
    const e = dictGet(entities, h);
    if (!e) continue;
    try {
      moveOne(h);
      // A dimension's geometry block (world coordinates) moves with it, once.
      const block =
        e.type === 'Raw' && isDimensionType(e.dxf_type) && !isDimensionClone(e)
          ? dimensionBlock(e)
          : undefined;
      const contents = block === undefined ? undefined : named(model.blocks, block);
      if (contents && !movedBlocks.has(contents.name)) {
        movedBlocks.add(contents.name);
        for (const child of contents.entities) {
          try {
            moveOne(child);
          } catch (error) {
            // A part that cannot move stays (ezdxf's Dimension.transform skips those too).
            if (!(error instanceof GeometryError)) throw error;
          }
        }
      }
    } catch (error) {
      if (error instanceof GeometryError) throw new EditorError(error.code, `normalize: ${error.message}`);
      throw error;
    }
  }
  return { ...model, entities };
}

/**
 * `wblock`: writes `handles` (model space entities of the document) or the contents of `block` to a
 * new DXF file at `path`. An existing file is kept unless `overwrite` is true. With `template` (a DXF
 * path) the file has that drawing's tables and styles; `normalize: true` moves what is written so that
 * its extents start at the origin. The document does not change; the written file is recorded
 * (BlockWritten), like a save.
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
  const template = ctx.request.template;
  if (template !== undefined && (typeof template !== 'string' || template.trim() === ''))
    return fail('invalid_template', `template must be a DXF path, got ${JSON.stringify(template)}`);
  let source: DxfDocumentModel = doc.model;
  let entities: Entity[];
  if (block !== undefined) {
    if (typeof block !== 'string')
      return fail('invalid_name', `block must be a block name, got ${JSON.stringify(block)}`);
    source = { ...doc.model };
    entities = blockContents(source, block);
  } else {
    entities = modelSpaceEntities(ctx, handles);
  }
  let model =
    template === undefined
      ? drawingOf(source, entities)
      : intoTemplate(await readDrawing(template), source, entities);
  const normalize = ctx.request.normalize === true;
  if (normalize) model = normalized(model);
  await refuseExisting(path, ctx.request.overwrite);
  const written = await writeDxfFile(path, model);
  const result = {
    path,
    count: model.order.length,
    entities: model.order.length,
    normalized: normalize,
    ...(template !== undefined ? { template } : {}),
    ...written,
  };
  return {
    events: [
      editorEvent('BlockWritten', {
        document_id: doc.id,
        path,
        count: result.count,
        bytes: written.bytes,
        sha256: written.sha256,
        block: block ?? null,
      }),
    ],
    result,
  };
}

export const wblockOps = {
  wblock: { kind: 'mutation', document: 'required', run: wblock, files: everyRequest },
} satisfies OpGroup;
