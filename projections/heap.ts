import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's full collection, without `--expose-gc` on the command line: the flag is set for the moment it
 * takes to make a context that has `gc`, then cleared, so nothing else sees it. Read once.
 */
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

let collect: (() => void) | undefined;

/** Heap growth past which a dropped part is worth a collection of its own (see partReleaser). */
const RELEASE_AFTER_BYTES = 64 * 1024 * 1024;

/**
 * Lets the heap go of the parts a replay by stream has dropped. V8 sizes its next full collection from
 * the heap it found live at the last (up to four times it on a large machine), and a part of the editor's
 * read model is a whole drawing with its undo stack (some 130 MB for 100,000 entities): dropped parts
 * piled up, two or three drawings deep, before the collector ran (peak RSS 660 MB for four sessions
 * of 250,000 events). `release` collects when the heap has grown by `threshold` bytes since the last
 * collection it made, so a replay of small parts pays for no collection, and one of large parts pays
 * one short collection per part (what is live then is little: the part is gone).
 */
export function partReleaser(threshold = RELEASE_AFTER_BYTES): { release(): boolean } {
  let base = getHeapStatistics().used_heap_size;
  return {
    release() {
      if (getHeapStatistics().used_heap_size - base < threshold) return false;
      collect ??= fullCollection();
      collect();
      base = getHeapStatistics().used_heap_size;
      return true;
    },
  };
}
