import { randomUUID } from 'node:crypto';
import { open as openFile, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import type { DocumentState } from '../../../projections/editor-session.js';
import { titleOf } from '../../../projections/editor-session.js';
import { type Change, editorEvent, type NewEditorEvent } from '../../../streams/editor.js';
import { MAX_DXF_BYTES } from '../capabilities.js';
import { dictGet, dictSet } from '../dict.js';
import { textToBinaryDxf } from '../dxf/binary.js';
import { isLayoutBlockName } from '../dxf/entity-types.js';
import { DxfError, parseGuid, readDxf, templateDxf, writeDxf } from '../dxf/index.js';
import { entitiesLoadedData, type LoadedDxf, type LoadOptions, loadDxfFile } from '../dxf/load.js';
import { EditorError, fail } from '../errors.js';
import type { DxfDocumentModel, Entity } from '../model.js';
import { refuseExisting, type WrittenFile, writeOutputFile } from '../output-file.js';
import { listedCount } from '../query/run.js';
import { stepEvent } from './steps.js';
import { docOf, everyRequest, type OpContext, type OpGroup, type OpOutcome } from './types.js';

/** Reads a DXF file with every failure as a clear code; nothing is opened when it throws. */
async function readDxfFile(path: string, options: LoadOptions = {}): Promise<LoadedDxf> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) fail('file_unreadable', `${path} is not a file`);
    size = info.size;
  } catch (error) {
    if (error instanceof EditorError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') fail('file_not_found', `no file at ${path}`);
    return fail('file_unreadable', `cannot read ${path}: ${(error as Error).message}`);
  }
  if (size > MAX_DXF_BYTES)
    fail('file_too_large', `${path} is ${size} bytes, over the limit of ${MAX_DXF_BYTES} bytes`);
  let buffer: Buffer;
  try {
    const handle = await openFile(path, 'r');
    try {
      buffer = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    return fail('file_unreadable', `cannot read ${path}: ${(error as Error).message}`);
  }
  const dwg = dwgVersion(buffer);
  if (dwg)
    fail(
      'unsupported_format',
      `${path} is a DWG file (${dwg}); chronicle reads and writes DXF only: save it as DXF and open that`,
    );
  try {
    return await loadDxfFile(buffer, options);
  } catch (error) {
    if (!(error instanceof DxfError)) throw error;
    return fail(error.code, `${path}: ${error.message}`);
  }
}

/**
 * The version of a DWG file (its first bytes: `AC10xx`, e.g. `AC1032`), whatever its name says; undefined
 * for anything else. No DWG library has a licence compatible with chronicle's (LibreDWG and libdxfrw are
 * GPL, ODA's is proprietary), so DWG is refused rather than read.
 */
function dwgVersion(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 6)).toString('latin1');
  return /^AC10\d\d$/.test(head) ? head : undefined;
}

/** `unsupported_format` for a path that names a DWG drawing or template: chronicle writes DXF only. */
function refuseDwgPath(path: string): void {
  const extension = extname(path).toLowerCase();
  if (extension === '.dwg' || extension === '.dwt')
    fail(
      'unsupported_format',
      `cannot write ${path}: chronicle writes DXF only (no DWG library has a compatible licence); give a .dxf path`,
    );
}

/** The whole model of a loaded file, its entities back in place. */
function wholeModel(loaded: LoadedDxf): DxfDocumentModel {
  const entities: Record<string, Entity> = {};
  const order: string[] = [];
  for (const batch of loaded.batches) {
    for (const entity of batch.entities) dictSet(entities, entity.handle, entity);
    order.push(...batch.order);
  }
  return { ...loaded.model, entities, order };
}

/** The whole drawing of a DXF file (`new` and `wblock` templates); the codes of readDxfFile when it cannot. */
export async function readDrawing(path: string): Promise<DxfDocumentModel> {
  return wholeModel(await readDxfFile(resolve(path)));
}

/**
 * Writes `model` as DXF to `path` (whole or not at all, see writeOutputFile), in the drawing's encoding;
 * `save_failed` when it cannot. Its size and hash.
 */
export function writeDxfFile(
  path: string,
  model: DxfDocumentModel,
  format: DxfFormat = 'ascii',
): Promise<WrittenFile> {
  refuseDwgPath(path);
  const text = writeDxf(model);
  const bytes =
    format === 'binary'
      ? textToBinaryDxf(text, model.version)
      : Buffer.from(text, model.version >= 'AC1021' ? 'utf8' : 'latin1');
  return writeOutputFile(path, bytes, 'save_failed');
}

type DxfFormat = LoadedDxf['format'];

/** `format` of a save: `ascii` (default) or `binary` DXF; `invalid_format` otherwise. */
function formatArgument(value: unknown): DxfFormat {
  if (value === undefined || value === 'ascii' || value === 'binary') return value ?? 'ascii';
  return fail('invalid_format', `format must be "ascii" or "binary", got ${JSON.stringify(value)}`);
}

/** The model as a new drawing: a new $FINGERPRINTGUID (a new file identity). */
export function withNewIdentity(model: DxfDocumentModel): DxfDocumentModel {
  return {
    ...model,
    header: { ...model.header, $FINGERPRINTGUID: [{ code: 2, value: `{${randomUUID().toUpperCase()}}` }] },
  };
}

/**
 * The model as a new drawing in the session: without the template's $FINGERPRINTGUID and without one of
 * its own yet — the first `file_identity` mints it (`created: true`), as the reference editor does.
 */
function withoutIdentity(model: DxfDocumentModel): DxfDocumentModel {
  const { $FINGERPRINTGUID: _template, ...header } = model.header;
  return { ...model, header };
}

/** A document's events: the model without entities, then its entities in batches (drawing order first). */
function openedEvents(id: number, title: string, path: string, loaded: LoadedDxf): NewEditorEvent[] {
  return [
    editorEvent('DocumentOpened', {
      document_id: id,
      revision: 0,
      title,
      path,
      bytes: loaded.bytes,
      sha256: loaded.sha256,
      model: loaded.model,
      entity_batches: loaded.batches.length,
    }),
    ...loaded.batches.map((batch, index) =>
      editorEvent('EntitiesLoaded', entitiesLoadedData(id, index, batch)),
    ),
  ];
}

export function pathArgument(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    return fail('invalid_path', `path must be a non-empty string, got ${JSON.stringify(value ?? null)}`);
  return resolve(value);
}

/**
 * What `open` read, as the reference's "entity summary": the entities of the layouts in all and by type
 * (a Raw one by its DXF type), and how many layers and blocks (layout blocks left out) the file holds.
 */
function openedSummary(read: LoadedDxf) {
  const byType: Record<string, number> = {};
  let entities = 0;
  for (const batch of read.batches) {
    const listed = new Set(batch.order);
    for (const e of batch.entities) {
      if (!listed.has(e.handle)) continue;
      const type = e.type === 'Raw' ? e.dxf_type : e.type;
      dictSet(byType, type, (dictGet(byType, type) ?? 0) + 1);
      entities += 1;
    }
  }
  const blocks = Object.values(read.model.blocks).filter((b) => !isLayoutBlockName(b.name)).length;
  return { entities, by_type: byType, layers: Object.keys(read.model.layers).length, blocks };
}

/** `open`: a DXF file as a new active document. */
async function openOp(ctx: OpContext): Promise<OpOutcome> {
  const path = pathArgument(ctx.request.path);
  const recover = ctx.request.recover;
  if (recover !== undefined && typeof recover !== 'boolean')
    fail('invalid_request', `recover must be true or false, got ${JSON.stringify(recover)}`);
  const read = await readDxfFile(path, { recover: recover !== false });
  const id = ctx.session.next_document_id;
  return {
    events: openedEvents(id, titleOf(path), path, read),
    result: {
      document_id: id,
      path,
      title: titleOf(path),
      ...openedSummary(read),
      format: read.format,
      recovered: read.recovered,
    },
    document_id: id,
  };
}

/** Whether `new` reads its template from a file (not a built-in one): what newOp reads as a path. */
const templateFile = (template: unknown): template is string =>
  typeof template === 'string' && template !== 'metric' && template !== 'imperial' && template.trim() !== '';

/** A new untitled drawing from the built-in metric (default) or imperial template, no identity yet. */
function blankModel(template: unknown): DxfDocumentModel {
  return withoutIdentity(readDxf(templateDxf(template === 'imperial' ? 'imperial' : 'metric')));
}

/** The event of a new untitled document `id` holding `model`. */
function createdEvent(id: number, model: DxfDocumentModel, template: string | null): NewEditorEvent {
  return editorEvent('DocumentCreated', {
    document_id: id,
    revision: 0,
    title: `Drawing${id}.dxf`,
    path: null,
    template,
    model,
  });
}

/**
 * `new`: an untitled drawing in a tab of its own, blank (`template` absent, "metric" or "imperial") or
 * with the tables, blocks, layouts and entities of a DXF `template` (the document keeps no path to it);
 * `total` counts the entities it brought in.
 */
async function newOp(ctx: OpContext): Promise<OpOutcome> {
  const template = ctx.request.template;
  const id = ctx.session.next_document_id;
  const title = `Drawing${id}.dxf`;
  let model: DxfDocumentModel;
  if (template === undefined || template === null || template === 'metric' || template === 'imperial') {
    model = blankModel(template);
  } else if (templateFile(template)) {
    // A new drawing is a new file identity, also when made from a template: not the template's.
    model = withoutIdentity(await readDrawing(template));
  } else {
    return fail(
      'invalid_template',
      `template must be "metric", "imperial" or a DXF path, got ${JSON.stringify(template)}`,
    );
  }
  const event = createdEvent(id, model, typeof template === 'string' ? template : null);
  return {
    events: [event],
    result: {
      document_id: id,
      title,
      total: listedCount(model),
      ...(typeof template === 'string' ? { template } : {}),
    },
    document_id: id,
  };
}

/**
 * `close`: refused with `document_dirty` while the document has unsaved changes, unless `discard`.
 * Closing the last document leaves a fresh blank drawing open, as the reference editor does.
 */
function closeOp(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const discard = ctx.request.discard === true;
  if (doc.revision !== doc.saved_revision && !discard) {
    fail('document_dirty', `document ${doc.id} has unsaved changes; save it or close with discard: true`);
  }
  const remaining = ctx.session.tabs.filter((id) => id !== doc.id);
  const events: NewEditorEvent[] = [
    editorEvent('DocumentClosed', { document_id: doc.id, discarded: discard }),
  ];
  let nextActive = ctx.session.active === doc.id ? (remaining.at(-1) ?? null) : ctx.session.active;
  let opened: number | null = null;
  if (remaining.length === 0) {
    opened = ctx.session.next_document_id;
    events.push(createdEvent(opened, blankModel(undefined), null));
    nextActive = opened;
  }
  return {
    events,
    result: {
      closed: true,
      closed_document_id: doc.id,
      discarded: discard && doc.revision !== doc.saved_revision,
      documents_before: ctx.session.tabs.length,
      documents_after: remaining.length + (opened === null ? 0 : 1),
      opened_document_id: opened,
    },
    document_id: nextActive,
  };
}

function activateOp(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  return {
    events: [editorEvent('DocumentActivated', { document_id: doc.id })],
    result: { document_id: doc.id },
  };
}

/**
 * Writes the file first (through a temporary file, renamed into place), then records that it was saved.
 * An existing file other than the document's own (the one it was opened from or last saved to) is
 * replaced only with `overwrite: true` (`file_exists` otherwise).
 */
async function saveOp(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const path = ctx.request.path === undefined ? doc.path : pathArgument(ctx.request.path);
  if (!path) return fail('path_required', `document ${doc.id} has never been saved: give a path`);
  refuseDwgPath(path);
  const format = formatArgument(ctx.request.format);
  if (path !== doc.path) await refuseExisting(path, ctx.request.overwrite);
  const { bytes, sha256 } = await writeDxfFile(path, doc.model, format);
  return {
    events: [
      editorEvent('DocumentSaved', {
        document_id: doc.id,
        revision: doc.revision,
        path,
        bytes,
        sha256,
      }),
    ],
    result: { saved: path, path, bytes, format },
  };
}

/**
 * The drawing's $FINGERPRINTGUID. A drawing without one (new, or a file written without one) gets one on
 * the first call, and `renew: true` mints a new one, either recorded as a step (the drawing is changed:
 * the GUID is saved with it). `created` says whether this call made it.
 */
function fileIdentity(ctx: OpContext): OpOutcome {
  const doc: DocumentState = docOf(ctx);
  // DXF writes the GUID in braces; the answer is the 36-character identifier inside them.
  const before = doc.model.header.$FINGERPRINTGUID ?? null;
  // A nil GUID (all zeros, as some writers leave it) is none.
  const written = before?.[0]?.value;
  const current = parseGuid(written) === undefined ? undefined : written?.trim().replace(/[{}]/g, '');
  if (current && ctx.request.renew !== true)
    return { events: [], result: { identity: current, created: false } };
  const identity = randomUUID().toUpperCase();
  const change: Change = {
    kind: 'header',
    key: '$FINGERPRINTGUID',
    before,
    after: [{ code: 2, value: `{${identity}}` }],
  };
  const result = { identity, created: true };
  return { events: [stepEvent('FileIdentityAssigned', doc, 'file_identity', [change], result)], result };
}

export const documentOps = {
  new: { kind: 'mutation', document: 'none', run: newOp, files: (r) => templateFile(r.template) },
  open: { kind: 'mutation', document: 'none', run: openOp, files: everyRequest },
  close: { kind: 'mutation', document: 'open', run: closeOp },
  activate: { kind: 'mutation', document: 'open', run: activateOp },
  save: { kind: 'mutation', document: 'active', run: saveOp, files: everyRequest },
  file_identity: { kind: 'mutation', document: 'required', run: fileIdentity },
} satisfies OpGroup;
