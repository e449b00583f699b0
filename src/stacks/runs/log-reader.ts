import { type FileHandle, open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { unlessMissing } from '../missing-files.js';

/**
 * Reading run logs without holding them: the text from a byte offset as a stream (the plain log read),
 * and a follower that reads the file from an offset as it grows (`log?follow=true`). Both read the file
 * itself in pieces of READ_BYTES, so a reader costs the same whether the log has a hundred lines or
 * tens of millions, and a slow client leaves its backlog on disk, not in memory. Offsets are byte
 * offsets into the file, at the start of a line: what a reader gets back to resume from.
 */

/** Bytes read at a time: more than the longest line a log holds (64 KiB and the cut marker). */
const READ_BYTES = 128 * 1024;

const LF = 0x0a;

/** An offset that is not where a line of the log starts. */
export class LogOffsetError extends Error {
  constructor(offset: number) {
    super(`offset ${offset} is not the start of a line of this log`);
    this.name = 'LogOffsetError';
  }
}

const openLog = (path: string): Promise<FileHandle | undefined> => unlessMissing(open(path, 'r'), undefined);

/** Throws LogOffsetError unless `offset` is 0, past `size`, or right after a line break of the file. */
async function checkLineStart(handle: FileHandle, offset: number, size: number): Promise<void> {
  if (offset === 0 || offset > size) return;
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, offset - 1);
  if (byte[0] !== LF) throw new LogOffsetError(offset);
}

/** Throws LogOffsetError when the log has a byte at `offset - 1` and it is not a line break. */
export async function checkLogOffset(path: string, offset: number): Promise<void> {
  if (offset === 0) return;
  const handle = await openLog(path);
  if (handle === undefined) return;
  try {
    await checkLineStart(handle, offset, (await handle.stat()).size);
  } finally {
    await handle.close();
  }
}

/**
 * The log's text from `offset` (a line start; LogOffsetError otherwise) as a stream read from the file,
 * with its length and the file's size; undefined when there is no log.
 */
export async function openLogText(
  path: string,
  offset: number,
): Promise<{ stream: Readable; bytes: number; size: number } | undefined> {
  const handle = await openLog(path);
  if (handle === undefined) return undefined;
  try {
    const { size } = await handle.stat();
    await checkLineStart(handle, offset, size);
    const start = Math.min(offset, size);
    // The stream closes the handle; an empty one is an empty stream.
    const stream =
      start < size ? handle.createReadStream({ start, end: size - 1 }) : Readable.from([] as Buffer[]);
    if (start >= size) await handle.close();
    return { stream, bytes: size - start, size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** What a follower reads: the file, how much of it is whole, and whether it will grow. */
export interface LogSource {
  readonly path: string;
  /**
   * Bytes of the file a follower may read now (whole lines written so far); undefined when only the
   * file itself can tell (a log another process writes: read to its end, up to its last line break).
   */
  available(): number | undefined;
  /** True once the log will not grow any more (its run ended and its writer closed the file). */
  complete(): boolean;
  /** Resolves when more may be available or the log became complete (may resolve early). */
  changed(): Promise<void>;
}

/**
 * Whole lines of a log as read: `bytes` (each line with its line break; a complete log's last line may
 * have none) found at offset `at` of the file. The bytes are the reader's own buffer: valid until the
 * next read is asked for.
 */
interface LogBytes {
  bytes: Buffer;
  at: number;
}

/** Lines of a log, each with the offset right after it (where a reader resumes). */
interface LogLines {
  lines: string[];
  ends: number[];
}

/**
 * The log's whole lines from `offset` on, a read at a time, until the log is complete and read to its
 * end. Reads only when the consumer asks for the next batch (an async generator: back-pressure for
 * free). Throws LogOffsetError when `offset` is not a line start.
 *
 * `stop` ends a wait for more lines, never the reads of a complete log: a follower stopped as the run
 * ends still gets the rest (a consumer that has gone simply stops asking). Returns true when the log
 * was complete and read to its end, false when `stop` ended a wait.
 */
export async function* followLog(
  source: LogSource,
  offset: number,
  stop: Promise<void>,
): AsyncGenerator<LogBytes, boolean> {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  let handle: FileHandle | undefined;
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  let at = offset;
  let checked = false;
  try {
    for (;;) {
      // Whether it was complete is taken before the size: the size read after it is then the final one.
      const complete = source.complete();
      handle ??= await openLog(source.path);
      let size = 0;
      if (handle !== undefined) size = source.available() ?? (await handle.stat()).size;
      if (handle !== undefined && !checked) {
        await checkLineStart(handle, at, size);
        checked = true;
      }
      if (handle !== undefined && at < size) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(READ_BYTES, size - at), at);
        const last = buffer.lastIndexOf(LF, bytesRead - 1);
        // Whole lines only; the last one without its line break once the log is complete; and a read
        // without any line break (not a log this service wrote) as it is, cut.
        const end =
          last !== -1
            ? last + 1
            : (complete && at + bytesRead >= size) || bytesRead === READ_BYTES
              ? bytesRead
              : 0;
        if (end > 0) {
          const batch = { bytes: buffer.subarray(0, end), at };
          at += end;
          yield batch;
          continue;
        }
        // A line still being written by another process: wait for its end.
      }
      if (complete) return true;
      // Stopped: no wait for more, but a log that became complete meanwhile is read to its end.
      if (stopped) {
        if (!source.complete()) return false;
        continue;
      }
      await Promise.race([source.changed(), stop]);
    }
  } finally {
    await handle?.close();
  }
}

/** The lines of a batch, each with the offset right after it. */
export function linesOf({ bytes, at }: LogBytes): LogLines {
  const lines: string[] = [];
  const ends: number[] = [];
  for (let start = 0; start < bytes.length; ) {
    const lf = bytes.indexOf(LF, start);
    const end = lf === -1 ? bytes.length : lf;
    lines.push(bytes.toString('utf8', start, end));
    ends.push(at + (lf === -1 ? end : end + 1));
    start = end + 1;
  }
  return { lines, ends };
}
