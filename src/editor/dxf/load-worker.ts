/**
 * Worker thread of `loadDxfOffThread`: receives a DXF file's bytes, parses them, and posts the model
 * head, then each entity batch, as its JSON text, when the main thread asks for the next one. Without that pacing the
 * main thread would take every queued message in one turn of its loop (Node drains a port's queue at
 * once): 150 batches of a 300,000-entity file, deserialized back to back, stall it for over half a second.
 */
import { parentPort } from 'node:worker_threads';
import { DxfError } from './errors.js';
import { loadDxf, type WorkerMessage } from './load.js';

const port = parentPort;
if (!port) throw new Error('load-worker runs as a worker thread');

port.once('message', ({ bytes, recover }: { bytes: Uint8Array; recover: boolean }) => {
  const post = (message: WorkerMessage) => port.postMessage(message);
  try {
    const loaded = loadDxf(bytes, { recover });
    const text = (index: number) => {
      const batch = loaded.batches[index];
      return batch && JSON.stringify(batch);
    };
    const { model, bytes: size, sha256, recovered, format } = loaded;
    post({ kind: 'head', model, bytes: size, sha256, recovered, format });
    let next = 0;
    let ready = text(next);
    // Each 'next' from the main thread asks for one more batch, then the end; the batch after it is
    // serialized while the main thread parses this one.
    port.on('message', () => {
      post(ready === undefined ? { kind: 'done' } : { kind: 'batch', json: ready });
      ready = text(++next);
    });
  } catch (error) {
    post({
      kind: 'failed',
      code: error instanceof DxfError ? error.code : null,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
