/**
 * SVG to PNG in a worker thread (raster-worker.ts, resvg): one worker for the process, started on the
 * first capture and kept, unreferenced while idle so it never holds the process open. Captures are
 * drawn one after another in it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { cancelledError } from '../slices.js';

/** Who a cancelled capture's answer names. */
const WHAT = 'the capture';

export interface RasterJob {
  id: number;
  /** The SVG document, UTF-8. */
  svg: Uint8Array;
  /** Load the system's fonts (the SVG has text elements). */
  fonts: boolean;
}

export type RasterReply =
  | {
      id: number;
      ok: true;
      png: Uint8Array;
      width: number;
      height: number;
      /** Where the worker's time went, in milliseconds. */
      ms: { parse: number; render: number; encode: number };
    }
  | { id: number; ok: false; error: string };

type Raster = Omit<Extract<RasterReply, { ok: true }>, 'id' | 'ok'>;

/**
 * The worker's script. Tests run this module from its TypeScript source, which a worker cannot load;
 * `npm test` builds first, so the compiled worker is taken from dist/ then (as the DXF loader does).
 */
function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const beside = here.replace(/raster\.(ts|js)$/, 'raster-worker.js');
  if (existsSync(beside)) return beside;
  return beside.replace(/([\\/])src([\\/]editor[\\/]capture[\\/])/, '$1dist$1src$2');
}

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (r: Raster) => void; reject: (e: Error) => void }>();

function failAll(error: Error): void {
  worker = undefined;
  for (const job of waiting.values()) job.reject(error);
  waiting.clear();
}

function started(): Worker {
  if (worker) return worker;
  const w = new Worker(workerScript());
  w.on('message', (reply: RasterReply) => {
    const job = waiting.get(reply.id);
    if (!job) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) w.unref();
    if (reply.ok) {
      const { id: _id, ok: _ok, ...raster } = reply;
      job.resolve(raster);
    } else job.reject(new Error(reply.error));
  });
  w.on('error', (error) => failAll(error));
  w.on('exit', (code) => {
    if (worker === w) failAll(new Error(`the rasteriser's worker exited with code ${code}`));
  });
  worker = w;
  return w;
}

/**
 * The PNG of `svg` (UTF-8), drawn by resvg off the event loop. Its buffer is handed to the worker, not
 * copied: `svg` is empty afterwards. Once `signal` is aborted it answers `cancelled` at once; the worker
 * is stopped when no other capture waits for it (resvg cannot be interrupted, and 100,000 readable
 * texts keep it busy for most of a minute), else the picture is dropped when it comes.
 */
export function rasterize(svg: Uint8Array, fonts: boolean, signal?: AbortSignal): Promise<Raster> {
  if (signal?.aborted) return Promise.reject(cancelledError(WHAT, signal));
  const w = started();
  const id = ++nextId;
  return new Promise<Raster>((resolve, reject) => {
    const onAbort = () => {
      if (!waiting.delete(id) || !signal) return;
      reject(cancelledError(WHAT, signal));
      if (waiting.size > 0 || worker !== w) return;
      // Forgotten before it ends, so its exit fails no capture; the next capture starts a new one.
      worker = undefined;
      void w.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    waiting.set(id, {
      resolve: (raster) => {
        done();
        resolve(raster);
      },
      reject: (error) => {
        done();
        reject(error);
      },
    });
    // Referenced while a capture waits for it, so a process with nothing else to do still gets its answer.
    w.ref();
    w.postMessage({ id, svg, fonts } satisfies RasterJob, [svg.buffer as ArrayBuffer]);
  });
}
