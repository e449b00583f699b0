/**
 * Files the editor writes (DXF on save and wblock, plots): written whole or not at all, and measured,
 * so the event that records the write can carry the size and hash of exactly what is on disk.
 */
import { createHash, randomUUID } from 'node:crypto';
import { rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { type EditorErrorCode, fail } from './errors.js';

export interface WrittenFile {
  bytes: number;
  sha256: string;
}

/**
 * Writes `bytes` to `path` through a temporary file in the same folder renamed into place, so a failed
 * write leaves the old file whole and a reader never sees half a file; the temporary file is removed when
 * anything fails. A write error answers `code` (save_failed, plot_failed) naming the path.
 */
export async function writeOutputFile(
  path: string,
  bytes: Uint8Array,
  code: EditorErrorCode,
): Promise<WrittenFile> {
  const temporary = resolve(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    return fail(code, `cannot write ${path}: ${(error as Error).message}`);
  }
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** `file_exists` when something is at `path` and the caller did not ask to replace it. */
export async function refuseExisting(path: string, overwrite: unknown): Promise<void> {
  if (overwrite === true) return;
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (exists) fail('file_exists', `${path} exists; pass overwrite: true to replace it`);
}
