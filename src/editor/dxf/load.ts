import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { withKnownJson } from '../../store/validate.js';
import { dictGet } from '../dict.js';
import type { DxfDocumentModel, Entity } from '../model.js';
import { binaryDxfToText, isBinaryDxf } from './binary.js';
import { DxfError, type DxfErrorCode } from './errors.js';
import { readDxf } from './read.js';

/** Entities per batch (one EntitiesLoaded event each): well under the store's 4 MiB event limit. */
export const LOAD_BATCH = 2_000;

/** Files from this size are parsed in a worker thread, so a large open does not stall the server. */
export const OFF_THREAD_BYTES = 1024 * 1024;

/** A batch of a document's entities, drawing order first; `order` = those of them in drawing order. */
interface EntityBatch {
  entities: Entity[];
  order: string[];
}

/** A parsed DXF file: the model without its entities, and the entities in batches. */
export interface LoadedDxf {
  model: DxfDocumentModel;
  batches: EntityBatch[];
  bytes: number;
  sha256: string;
  /** What the reader repaired or left out to read the file (recover mode), one sentence each. */
  recovered: string[];
  /** How the file was written: ASCII or binary DXF. */
  format: 'ascii' | 'binary';
}

export interface LoadOptions {
  /** False: a file with faults (no EOF, data after it, ...) is refused instead of repaired. Default true. */
  recover?: boolean;
}

/**
 * DXF before AC1021 (R2007) is in the drawing's code page; latin1 keeps every byte as one character.
 * Binary DXF is turned into the same text.
 */
function decodeDxf(buffer: Uint8Array): string {
  if (isBinaryDxf(buffer)) return binaryDxfToText(buffer);
  const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const head = bytes.subarray(0, 4096).toString('latin1');
  const version = /\$ACADVER\s*\r?\n\s*1\s*\r?\n\s*(AC\d{4})/.exec(head)?.[1] ?? 'AC1009';
  return bytes.toString(version >= 'AC1021' ? 'utf8' : 'latin1');
}

/** Splits a model's entities into load batches: the drawing order first, then the rest (block contents). */
export function entityBatches(model: DxfDocumentModel): EntityBatch[] {
  const { entities, order } = model;
  const inOrder = new Set(order);
  const all: Entity[] = [
    ...order.map((h) => dictGet(entities, h) as Entity),
    ...Object.values(entities).filter((e) => !inOrder.has(e.handle)),
  ];
  const batches: EntityBatch[] = [];
  for (let i = 0; i < all.length; i += LOAD_BATCH) {
    const slice = all.slice(i, i + LOAD_BATCH);
    batches.push({ entities: slice, order: slice.filter((e) => inOrder.has(e.handle)).map((e) => e.handle) });
  }
  return batches;
}

/** Parses a DXF file's bytes on this thread. Throws DxfError for a file the reader refuses. */
export function loadDxf(buffer: Uint8Array, options: LoadOptions = {}): LoadedDxf {
  const recovered: string[] = [];
  const parsed = readDxf(decodeDxf(buffer), { recover: options.recover !== false, recovered });
  const batches = entityBatches(parsed);
  return {
    model: { ...parsed, entities: {}, order: [] },
    batches,
    bytes: buffer.byteLength,
    sha256: createHash('sha256').update(buffer).digest('hex'),
    recovered,
    format: isBinaryDxf(buffer) ? 'binary' : 'ascii',
  };
}

/**
 * The JSON text of batches that came from the worker as text (see WorkerMessage): a batch parsed from it
 * on this thread is handed to the session's log as it is, neither copied nor serialized again.
 */
const batchJson = new WeakMap<EntityBatch, string>();

/**
 * The data of a batch's EntitiesLoaded event; its JSON text known (withKnownJson) when the batch came
 * from the worker, so the append writes the worker's text instead of serializing 2,000 entities again.
 */
export function entitiesLoadedData(
  documentId: number,
  index: number,
  batch: EntityBatch,
): { document_id: number; batch: number; entities: Entity[]; order: string[] } {
  const data = { document_id: documentId, batch: index, ...batch };
  const json = batchJson.get(batch);
  // The keys in the order of `data`; the batch's own text after them, its opening brace dropped.
  return json === undefined
    ? data
    : withKnownJson(data, `{"document_id":${documentId},"batch":${index},${json.slice(1)}`);
}

/**
 * What the parse worker posts: the head, then each batch, then the end (or a failure instead). A batch
 * is its JSON text: a string crosses threads as one copy of its bytes, where a structured clone of
 * 2,000 entities is rebuilt object by object (and was then serialized again for the log).
 */
export type WorkerMessage =
  | {
      kind: 'head';
      model: DxfDocumentModel;
      bytes: number;
      sha256: string;
      recovered: string[];
      format: LoadedDxf['format'];
    }
  | { kind: 'batch'; json: string }
  | { kind: 'done' }
  | { kind: 'failed'; code: DxfErrorCode | null; message: string };

/**
 * The worker's script. Tests run this module from its TypeScript source, which a worker cannot load;
 * `npm test` builds first, so the compiled worker is taken from dist/ then.
 */
function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const beside = here.replace(/load\.(ts|js)$/, 'load-worker.js');
  if (existsSync(beside)) return beside;
  return beside.replace(/([\\/])src([\\/]editor[\\/]dxf[\\/])/, '$1dist$1src$2');
}

/**
 * Parses in a worker thread. The main thread only receives the result, one batch per message, so it
 * stays free to answer other requests between them (a 300,000-entity file parses for over a second).
 */
export function loadDxfOffThread(buffer: Uint8Array, options: LoadOptions = {}): Promise<LoadedDxf> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerScript());
    let loaded: LoadedDxf | undefined;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      void worker.terminate();
    };
    worker.on('message', (message: WorkerMessage) => {
      switch (message.kind) {
        case 'head':
          loaded = {
            model: message.model,
            batches: [],
            bytes: message.bytes,
            sha256: message.sha256,
            recovered: message.recovered,
            format: message.format,
          };
          askForNext();
          return;
        case 'batch': {
          // Parsed here, a batch per turn of the loop: the one copy of the entities this thread keeps.
          const batch = JSON.parse(message.json) as EntityBatch;
          batchJson.set(batch, message.json);
          loaded?.batches.push(batch);
          askForNext();
          return;
        }
        case 'done':
          settle(() => (loaded ? resolve(loaded) : reject(new Error('DXF worker ended without a result'))));
          return;
        case 'failed':
          settle(() =>
            reject(message.code ? new DxfError(message.code, message.message) : new Error(message.message)),
          );
      }
    });
    // Asked after a turn of the loop, so other work runs between two batches.
    const askForNext = () => setImmediate(() => worker.postMessage('next'));
    // Out of heap (a file of many large entities): the worker dies alone, and the open answers why.
    worker.on('error', (error) =>
      settle(() =>
        reject(
          (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new DxfError(
                'dxf_too_large',
                `the file needs more memory to read than the editor has (${buffer.byteLength.toLocaleString('en-US')} bytes; ${error.message})`,
              )
            : error,
        ),
      ),
    );
    worker.on('exit', (code) => settle(() => reject(new Error(`DXF worker exited with code ${code}`))));
    const bytes = new Uint8Array(buffer.byteLength);
    bytes.set(buffer);
    worker.postMessage({ bytes, recover: options.recover !== false }, [bytes.buffer]);
  });
}

/** Parses on this thread when the file is small (a worker costs more than it saves), else in a worker. */
export const loadDxfFile = (buffer: Uint8Array, options: LoadOptions = {}): Promise<LoadedDxf> =>
  buffer.byteLength < OFF_THREAD_BYTES
    ? Promise.resolve().then(() => loadDxf(buffer, options))
    : loadDxfOffThread(buffer, options);
