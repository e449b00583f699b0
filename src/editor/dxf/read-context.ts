import { decodeUnicodeEscapes, formatHandle, handleValue, normalizeHandle } from './values.js';

/**
 * State shared by the section readers of one file: the version, text decoding, and handle bookkeeping.
 * Things without a handle (R12 files) or with a handle already taken get one after the whole file is
 * read, from above the highest handle seen and the file's $HANDSEED.
 */
export class ReadContext {
  readonly version: string;
  /** R12 and older: no subclass markers, no owners, maybe no handles. */
  readonly r12: boolean;
  readonly decode: (s: string) => string;
  private maxHandle = 0;
  private readonly seen = new Set<string>();
  private readonly pending: Array<(handle: string) => void> = [];
  /** What the reader repaired or left out, one sentence each, in file order (the `recovered` of an open). */
  readonly recovered: string[] = [];

  constructor(version: string) {
    this.version = version;
    this.r12 = version <= 'AC1009';
    this.decode = version < 'AC1021' ? decodeUnicodeEscapes : (s) => s;
  }

  /**
   * Registers a handle read from the file and returns it normalized. When it is missing or already used,
   * returns '' and calls `assign` with a fresh handle once the file is read.
   */
  claim(raw: string | undefined, assign: (handle: string) => void): string {
    if (raw !== undefined) {
      const handle = normalizeHandle(raw);
      const value = handleValue(handle);
      if (value > 0 && !this.seen.has(handle)) {
        this.seen.add(handle);
        if (value > this.maxHandle) this.maxHandle = value;
        return handle;
      }
    }
    this.pending.push(assign);
    return '';
  }

  note(what: string): void {
    this.recovered.push(what);
  }

  /** Hands out the pending handles; returns the next free handle value (the document's handseed). */
  finish(headerSeed: number): number {
    let next = Math.max(headerSeed, this.maxHandle + 1, 1);
    for (const assign of this.pending) assign(formatHandle(next++));
    this.pending.length = 0;
    return next;
  }
}
