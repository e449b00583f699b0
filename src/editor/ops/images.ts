import { basename, extname } from 'node:path';
import type { DocumentState } from '../../../projections/editor-session.js';
import type { Change } from '../../../streams/editor.js';
import {
  IMAGE_DICT,
  imageDefFile,
  imageDefReactorRecord,
  imageDefRecord,
  imageExtra,
  withReactor,
} from '../dxf/image-records.js';
import { dictionaryEntries, dictionaryRecord, withDictionaryEntries } from '../dxf/records.js';
import { rootEntry } from '../dxf/structure.js';
import { currentLayer } from '../entity-input.js';
import { fail } from '../errors.js';
import { applyVector, rotation } from '../geometry/index.js';
import { type RasterInfo, readRasterInfo } from '../image-file.js';
import type { ImageEntity, Point3, RawRecord } from '../model.js';
import { number, point, positive, tableName } from '../request.js';
import { pathArgument } from './documents.js';
import { MODEL_SPACE } from './entities.js';
import { StepBuilder, stepEvent } from './steps.js';
import { docOf, everyRequest, type OpContext, type OpGroup, type OpOutcome } from './types.js';

/**
 * Body of `embed_image` (the spec leaves it open):
 * - `path` (required): the PNG or JPEG file; relative paths resolve against the server's directory.
 * - `insert` (or `at`, the reference editor's name): lower-left corner, 2 or 3 numbers; default [0, 0, 0].
 * - `width`: the image's width in drawing units, or `scale`: drawing units per pixel (not both);
 *   default 1 unit per pixel. Pixels are square, so the height follows.
 * - `rotation`: degrees counter-clockwise; default 0.
 * - `layer`: default the current layer (CLAYER); a new name creates the layer.
 * - `name`: the image definition's name in ACAD_IMAGE_DICT; default the file's base name without
 *   its extension. Embedding the same file again under a free default name reuses its definition.
 */
interface EmbedRequest {
  path: string;
  insert: Point3;
  /** The image's width in drawing units, or drawing units per pixel. */
  size: { width: number } | { scale: number };
  rotation: number;
  layer: string;
  /** Given by the caller (a clash is an error) or derived from the file (a clash gets a suffix). */
  name: { value: string; given: boolean };
}

function embedRequest(ctx: OpContext): EmbedRequest {
  const r = ctx.request;
  const path = pathArgument(r.path);
  if (r.width !== undefined && r.scale !== undefined) {
    fail('invalid_property', 'give width (drawing units) or scale (drawing units per pixel), not both');
  }
  // A file name may hold characters a dictionary key may not: they become underscores.
  const derived = basename(path, extname(path))
    .replace(/[<>/\\":;?*|=`]/g, '_')
    .slice(0, 255);
  return {
    path,
    insert: (r.insert ?? r.at) === undefined ? [0, 0, 0] : point(r.insert ?? r.at, 'insert'),
    // A width needs the pixel count: it becomes a pixel size once the file is read.
    size:
      r.width !== undefined
        ? { width: positive(r.width, 'width') }
        : { scale: r.scale === undefined ? 1 : positive(r.scale, 'scale') },
    rotation: r.rotation === undefined ? 0 : number(r.rotation, 'rotation'),
    layer:
      r.layer === undefined
        ? currentLayer(docOf(ctx).model)
        : tableName(r.layer, 'layer', 'invalid_property'),
    name:
      r.name === undefined
        ? { value: derived || 'image', given: false }
        : { value: tableName(r.name, 'name', 'invalid_name'), given: true },
  };
}

/** The image dictionary's entry to use: an existing definition of the same file, or a free name. */
function definitionFor(
  objects: readonly RawRecord[],
  entries: readonly [string, string][],
  request: EmbedRequest,
  info: RasterInfo,
): { name: string; existing: RawRecord | undefined } {
  const defOf = (handle: string) => objects.find((o) => o.handle === handle && o.type === 'IMAGEDEF');
  const sameFile = (def: RawRecord | undefined) => {
    if (!def) return false;
    const file = imageDefFile(def);
    return file.filename === request.path && file.pixels[0] === info.width && file.pixels[1] === info.height;
  };
  const taken = (name: string) => entries.find(([key]) => key.toUpperCase() === name.toUpperCase());
  const wanted = request.name.value;
  const clash = taken(wanted);
  if (request.name.given) {
    if (!clash) return { name: wanted, existing: undefined };
    const def = defOf(clash[1]);
    if (sameFile(def)) return { name: clash[0], existing: def };
    return fail(
      'image_name_taken',
      `the image name ${JSON.stringify(wanted)} is taken by ${def ? imageDefFile(def).filename : `object ${clash[1]}`}; give another name`,
    );
  }
  for (const [key, handle] of entries) {
    const def = defOf(handle);
    if (sameFile(def)) return { name: key, existing: def };
  }
  let name = wanted;
  for (let n = 2; taken(name); n++) name = `${wanted}_${n}`;
  return { name, existing: undefined };
}

/**
 * The changes that add the image: handle seed, layer, the image dictionary (made under the root
 * dictionary when the drawing has none), the IMAGEDEF (new, or an existing one with one more reactor),
 * the IMAGE and its IMAGEDEF_REACTOR.
 */
function embedChanges(
  doc: DocumentState,
  request: EmbedRequest,
  info: RasterInfo,
  pixelSize: number,
): { changes: Change[]; image: ImageEntity; imagedef: string; name: string; created: boolean } {
  const model = doc.model;
  const step = new StepBuilder(model);
  const layer = step.ensureLayer(request.layer);
  const root = model.objects[0];
  // Reading a file or template completes its structure, the root dictionary included.
  if (root?.type !== 'DICTIONARY' || !root.handle) {
    throw new Error(`document ${doc.id} has no root dictionary: its structure was not completed on read`);
  }
  // The image dictionary as it was (null when this step makes it) and as it is before its new entry.
  let dictBefore: RawRecord | null = rootEntry(model, IMAGE_DICT) ?? null;
  let dict: RawRecord;
  if (dictBefore) dict = dictBefore;
  else {
    const [handle] = step.handles(1) as [string];
    const entries = dictionaryEntries(root).filter(([key]) => key !== IMAGE_DICT);
    entries.push([IMAGE_DICT, handle]);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    step.push({
      kind: 'object',
      key: root.handle,
      before: root,
      after: { ...root, tags: withDictionaryEntries(root, entries) },
    });
    dict = dictionaryRecord(handle, root.handle, []);
    dictBefore = null;
  }
  const dictHandle = dict.handle as string;
  const entries = dictionaryEntries(dict);
  const { name, existing } = definitionFor(model.objects, entries, request, info);
  const [imageHandle, reactor] = step.handles(2) as [string, string];
  let imagedef: string;
  if (existing) {
    imagedef = existing.handle as string;
    step.push({
      kind: 'object',
      key: imagedef,
      before: existing,
      after: { ...existing, tags: withReactor(existing, reactor) },
    });
  } else {
    [imagedef] = step.handles(1) as [string];
    step.push({
      kind: 'object',
      key: dictHandle,
      before: dictBefore,
      after: { ...dict, tags: withDictionaryEntries(dict, [...entries, [name, imagedef]]) },
    });
    step.push({
      kind: 'object',
      key: imagedef,
      before: null,
      after: imageDefRecord(imagedef, dictHandle, reactor, request.path, [info.width, info.height]),
    });
  }
  const turn = rotation([0, 0], request.rotation);
  const image: ImageEntity = {
    type: 'Image',
    handle: imageHandle,
    space: MODEL_SPACE,
    layer,
    color: 256,
    linetype: 'BYLAYER',
    lineweight: -1,
    position: request.insert,
    u_vector: applyVector(turn, [pixelSize, 0, 0]),
    v_vector: applyVector(turn, [0, pixelSize, 0]),
    size: [info.width, info.height],
    image_def: imagedef,
    extra: imageExtra(reactor, [info.width, info.height]),
  };
  step.push({ kind: 'entity', key: imageHandle, before: null, after: image, index: model.order.length });
  step.push({
    kind: 'object',
    key: reactor,
    before: null,
    after: imageDefReactorRecord(reactor, imageHandle),
  });
  return { changes: step.build(), image, imagedef, name, created: !existing };
}

/**
 * `embed_image`: an IMAGE entity in model space showing a PNG or JPEG file, and the IMAGEDEF that
 * names the file (the drawing refers to the file; it does not copy its pixels). One undo step.
 */
async function embedImage(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const request = embedRequest(ctx);
  const info = await readRasterInfo(request.path);
  const pixelSize = 'width' in request.size ? request.size.width / info.width : request.size.scale;
  const { changes, image, imagedef, name, created } = embedChanges(doc, request, info, pixelSize);
  const result = {
    handle: image.handle,
    imagedef,
    imagedef_created: created,
    name,
    pixels: [info.width, info.height],
    size: [info.width * pixelSize, info.height * pixelSize],
    path: request.path,
    format: info.format,
    layer: image.layer,
    // As the reference editor names them: chronicle's IMAGE is path-linked (its RasterImage mode).
    kind: 'RasterImage',
    linked: true,
    width: info.width * pixelSize,
    height: info.height * pixelSize,
  };
  return { events: [stepEvent('ImageEmbedded', doc, 'embed_image', changes, result)], result };
}

export const imageOps = {
  embed_image: { kind: 'mutation', document: 'required', run: embedImage, files: everyRequest },
} satisfies OpGroup;
