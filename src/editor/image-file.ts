import { open } from 'node:fs/promises';
import { imageSize } from 'image-size';
import { EditorError, fail } from './errors.js';

/** The raster formats an IMAGE can be embedded from. */
type RasterFormat = 'png' | 'jpeg';

export interface RasterInfo {
  format: RasterFormat;
  /** Pixels, as stored (a JPEG's EXIF orientation does not swap them: CAD draws the stored raster). */
  width: number;
  height: number;
}

/** What image-size calls the formats we take, and what it calls a few others, for the message. */
const FORMATS: Record<string, RasterFormat> = { png: 'png', jpg: 'jpeg' };

/**
 * A short account of what `bytes` are when they are no PNG or JPEG, for the error message: another
 * image format image-size knows, an empty file, text, or other bytes. Never the bytes themselves: the
 * message reaches whoever asked, and the path may name any file of the machine (a key, a password file).
 */
function whatItIs(bytes: Uint8Array, detected: string | undefined): string {
  if (detected) return `an image of type ${detected.toUpperCase()}, not PNG or JPEG`;
  const text = Buffer.from(bytes.subarray(0, 16)).toString('utf8');
  if (/^[\t\n\r\x20-\x7e\u00a0-\uffff]+$/.test(text) && !text.includes('\ufffd'))
    return 'not a PNG or JPEG image (it is text)';
  return 'not a PNG or JPEG image (no image signature at its start)';
}

/**
 * The format and pixel size of a PNG or JPEG from its leading bytes (the whole file, or enough of
 * it to reach the size: PNG's IHDR chunk, JPEG's start-of-frame segment). Pure; `invalid_image`
 * naming `path` when the bytes are no PNG or JPEG, or one whose header is broken.
 */
export function rasterInfo(bytes: Uint8Array, path: string): RasterInfo {
  if (bytes.length === 0) return fail('invalid_image', `${path} is an empty file, not a PNG or JPEG image`);
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch (error) {
    // image-size throws "unsupported file type" for what it does not know, and a TypeError naming the
    // damage (e.g. "Invalid PNG", "Corrupt JPG, exceeded buffer limits") for a broken header.
    const message = (error as Error).message;
    if (/^unsupported file type/.test(message)) {
      return fail('invalid_image', `${path} is ${whatItIs(bytes, undefined)}`);
    }
    return fail('invalid_image', `${path} is not a readable PNG or JPEG image: ${message}`);
  }
  const format = size.type === undefined ? undefined : FORMATS[size.type];
  if (!format) return fail('invalid_image', `${path} is ${whatItIs(bytes, size.type)}`);
  const { width, height } = size;
  if (!width || !height || !Number.isInteger(width) || !Number.isInteger(height)) {
    return fail(
      'invalid_image',
      `${path} is a ${format.toUpperCase()} image without a pixel size (width ${width}, height ${height})`,
    );
  }
  return { format, width, height };
}

/** image-size reads this much of a file first (its own fromFile does the same). */
const HEAD_BYTES = 512 * 1024;

/**
 * Reads the format and pixel size of the image file at `path` (absolute): `file_not_found` when there
 * is no file, `file_unreadable` when it cannot be read, `invalid_image` when it is no PNG or JPEG. Reads
 * the first 512 KiB; a JPEG whose frame header lies further on (a large EXIF block) is read whole.
 */
export async function readRasterInfo(path: string): Promise<RasterInfo> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return fail('file_not_found', `no file at ${path}`);
    return fail('file_unreadable', `cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return fail('file_unreadable', `${path} is not a file`);
    const head = Buffer.alloc(Math.min(info.size, HEAD_BYTES));
    await handle.read(head, 0, head.length, 0);
    try {
      return rasterInfo(head, path);
    } catch (error) {
      if (!(error instanceof EditorError) || info.size <= head.length) throw error;
      return rasterInfo(await handle.readFile(), path);
    }
  } catch (error) {
    if (error instanceof EditorError) throw error;
    return fail('file_unreadable', `cannot read ${path}: ${(error as Error).message}`);
  } finally {
    await handle.close();
  }
}
