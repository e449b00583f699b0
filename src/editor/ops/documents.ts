import { randomUUID } from 'node:crypto';
import { open as openFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { DocumentState } from '../../../projections/editor-session.js';
import { titleOf } from '../../../projections/editor-session.js';
import { type Change, editorEvent, type NewEditorEvent } from '../../../streams/editor.js';
import { MAX_DXF_BYTES } from '../capabilities.js';
import { dictSet } from '../dict.js';
import { DxfError, readDxf, templateDxf, writeDxf } from '../dxf/index.js';
import { type LoadedDxf, loadDxfFile } from '../dxf/load.js';
import { EditorError, fail } from '../errors.js';
import type { DxfDocumentModel, Entity } from '../model.js';
import { type WrittenFile, writeOutputFile } from '../output-file.js';
import { stepEvent } from './steps.js';
import { docOf, type OpContext, type OpOutcome, type OpTable } from './types.js';

/** Reads a DXF file with every failure as a clear code; nothing is opened when it throws. */
async function readDxfFile(path: string): Promise<LoadedDxf> {
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
  try {
    return await loadDxfFile(buffer);
  } catch (error) {
    if (!(error instanceof DxfError)) throw error;
    return fail(error.code, `${path}: ${error.message}`);
  }
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

/**
 * Writes `model` as DXF to `path` (whole or not at all, see writeOutputFile), in the drawing's encoding;
 * `save_failed` when it cannot. Its size and hash.
 */
export function writeDxfFile(path: string, model: DxfDocumentModel): Promise<WrittenFile> {
  const bytes = Buffer.from(writeDxf(model), model.version >= 'AC1021' ? 'utf8' : 'latin1');
  return writeOutputFile(path, bytes, 'save_failed');
}

/** The model as a new drawing: a new $FINGERPRINTGUID (a new file identity). */
export function withNewIdentity(model: DxfDocumentModel): DxfDocumentModel {
  return {
    ...model,
    header: { ...model.header, $FINGERPRINTGUID: [{ code: 2, value: `{${randomUUID().toUpperCase()}}` }] },
  };
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
      editorEvent('EntitiesLoaded', { document_id: id, batch: index, ...batch }),
    ),
  ];
}

export function pathArgument(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    return fail('invalid_path', `path must be a non-empty string, got ${JSON.stringify(value ?? null)}`);
  return resolve(value);
}

async function openOp(ctx: OpContext): Promise<OpOutcome> {
  const path = pathArgument(ctx.request.path);
  const read = await readDxfFile(path);
  const id = ctx.session.next_document_id;
  return {
    events: openedEvents(id, titleOf(path), path, read),
    result: { document_id: id, path, title: titleOf(path) },
    document_id: id,
  };
}

async function newOp(ctx: OpContext): Promise<OpOutcome> {
  const template = ctx.request.template;
  const id = ctx.session.next_document_id;
  const title = `Drawing${id}.dxf`;
  let model: DxfDocumentModel;
  if (template === undefined || template === null || template === 'metric' || template === 'imperial') {
    model = readDxf(templateDxf(template === 'imperial' ? 'imperial' : 'metric'));
  } else if (typeof template === 'string' && template.trim() !== '') {
    model = wholeModel(await readDxfFile(resolve(template)));
  } else {
    return fail(
      'invalid_template',
      `template must be "metric", "imperial" or a DXF path, got ${JSON.stringify(template)}`,
    );
  }
  // A new drawing is a new file identity, also when made from a template.
  model = withNewIdentity(model);
  const event = editorEvent('DocumentCreated', {
    document_id: id,
    revision: 0,
    title,
    path: null,
    template: typeof template === 'string' ? template : null,
    model,
  });
  return { events: [event], result: { document_id: id, title }, document_id: id };
}

function closeOp(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const discard = ctx.request.discard === true;
  if (doc.revision !== doc.saved_revision && !discard) {
    fail('document_dirty', `document ${doc.id} has unsaved changes; save it or close with discard: true`);
  }
  const remaining = ctx.session.tabs.filter((id) => id !== doc.id);
  const nextActive = ctx.session.active === doc.id ? (remaining.at(-1) ?? null) : ctx.session.active;
  return {
    events: [editorEvent('DocumentClosed', { document_id: doc.id, discarded: discard })],
    result: { closed: doc.id, discarded: discard && doc.revision !== doc.saved_revision },
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

/** Writes the file first (through a temporary file, renamed into place), then records that it was saved. */
async function saveOp(ctx: OpContext): Promise<OpOutcome> {
  const doc = docOf(ctx);
  const path = ctx.request.path === undefined ? doc.path : pathArgument(ctx.request.path);
  if (!path) return fail('path_required', `document ${doc.id} has never been saved: give a path`);
  const { bytes, sha256 } = await writeDxfFile(path, doc.model);
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
    result: { path, bytes },
  };
}

/** The drawing's $FINGERPRINTGUID; a drawing read without one gets one, recorded as a step. */
function fileIdentity(ctx: OpContext): OpOutcome {
  const doc: DocumentState = docOf(ctx);
  // DXF writes the GUID in braces; the answer is the 36-character identifier inside them.
  const current = doc.model.header.$FINGERPRINTGUID?.[0]?.value.replace(/[{}]/g, '');
  if (current) return { events: [], result: { identity: current } };
  const identity = randomUUID().toUpperCase();
  const change: Change = {
    kind: 'header',
    key: '$FINGERPRINTGUID',
    before: null,
    after: [{ code: 2, value: `{${identity}}` }],
  };
  return {
    events: [stepEvent('FileIdentityAssigned', doc, 'file_identity', [change], { identity })],
    result: { identity },
  };
}

export const documentOps: OpTable = {
  new: { kind: 'mutation', document: 'none', run: newOp },
  open: { kind: 'mutation', document: 'none', run: openOp },
  close: { kind: 'mutation', document: 'open', run: closeOp },
  activate: { kind: 'mutation', document: 'open', run: activateOp },
  save: { kind: 'mutation', document: 'active', run: saveOp },
  file_identity: { kind: 'mutation', document: 'required', run: fileIdentity },
};
