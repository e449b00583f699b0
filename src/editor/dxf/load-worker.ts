/**
 * Worker thread of `loadDxfOffThread`: receives a DXF file's bytes, parses them, and posts the model
 * head, then each entity batch when the main thread asks for the next one. Without that pacing the
 * main thread would take every queued message in one turn of its loop (Node drains a port's queue at
 * once): 150 batches of a 300,000-entity file, deserialized back to back, stall it for over half a second.
 */
import { parentPort } from 'node:worker_threads';
import { DxfError } from './errors.js';
import { loadDxf, type WorkerMessage } from './load.js';

const port = parentPort;
if (!port) throw new Error('load-worker runs as a worker thread');

port.once('message', (bytes: Uint8Array) => {
  const post = (message: WorkerMessage) => port.postMessage(message);
  try {
    const loaded = loadDxf(bytes);
    post({ kind: 'head', model: loaded.model, bytes: loaded.bytes, sha256: loaded.sha256 });
    let next = 0;
    // Each 'next' from the main thread asks for one more batch, then the end.
    port.on('message', () => {
      const batch = loaded.batches[next++];
      post(batch ? { kind: 'batch', batch } : { kind: 'done' });
    });
  } catch (error) {
    post({
      kind: 'failed',
      code: error instanceof DxfError ? error.code : null,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
