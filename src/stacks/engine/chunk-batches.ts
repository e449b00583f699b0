/**
 * A readable stream's chunks, taken in batches: everything that arrived since the last batch was taken.
 * The Engine API sends a log as one HTTP chunk per line (dockerd writes each line's frame on its own),
 * so a 100,000-line log is 100,000 chunks; read one at a time through the stream's async iterator,
 * each costs a turn of its own, which cost more than splitting and redacting the lines. Bounded: past
 * `maxBytes` held, the stream is paused until the batch is taken (the engine then waits on its socket).
 */
import type { Readable } from 'node:stream';

const MAX_BATCH_BYTES = 1024 * 1024;

export async function* chunkBatches(stream: Readable, maxBytes = MAX_BATCH_BYTES): AsyncGenerator<Buffer[]> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const rouse = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    held.push(bytes);
    heldBytes += bytes.length;
    if (heldBytes >= maxBytes) stream.pause();
    rouse();
  };
  const onEnd = () => {
    ended = true;
    rouse();
  };
  const onError = (error: unknown) => {
    failure = error;
    ended = true;
    rouse();
  };
  stream.on('data', onData);
  stream.once('end', onEnd);
  stream.once('close', onEnd);
  stream.once('error', onError);
  try {
    for (;;) {
      if (held.length > 0) {
        const batch = held;
        held = [];
        heldBytes = 0;
        if (stream.isPaused() && !ended) stream.resume();
        yield batch;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('close', onEnd);
    stream.off('error', onError);
    // Left before the end (the reader stopped): the engine's answer is not read any further.
    if (!ended) stream.destroy();
  }
}
