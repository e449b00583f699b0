/**
 * The raster files a plot's images show, read at the edge (the scene and the writers stay pure): PNG and
 * JPEG only, as both PDF and SVG viewers take them; anything else, missing or too large is left out and
 * the image is drawn as its frame.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { PageMark, PagePart } from './marks.js';

/** Larger files are not embedded: a plot is a document to share, not an archive. */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

interface PlotImage {
  bytes: Buffer;
  mime: 'image/png' | 'image/jpeg';
}

/** Image files by the name their IMAGEDEF gives. */
export type PlotImages = ReadonlyMap<string, PlotImage>;

function imageFiles(parts: readonly PagePart[], out: Set<string>): void {
  for (const part of parts) {
    if (part.kind === 'image' && part.file) out.add(part.file);
    else if (part.kind === 'clip') imageFiles(part.parts, out);
  }
}

function mimeOf(bytes: Buffer): PlotImage['mime'] | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return undefined;
}

/**
 * Reads the images `marks` show. A relative IMAGEDEF path is the drawing's folder's (as CAD programs
 * resolve it), else the working directory's when the drawing was never saved.
 */
export async function readPlotImages(
  marks: readonly PageMark[],
  drawingPath: string | null,
): Promise<PlotImages> {
  const files = new Set<string>();
  for (const mark of marks) imageFiles(mark.parts, files);
  const images = new Map<string, PlotImage>();
  for (const file of files) {
    const path = isAbsolute(file) || !drawingPath ? resolve(file) : resolve(dirname(drawingPath), file);
    try {
      const info = await stat(path);
      if (!info.isFile() || info.size > MAX_IMAGE_BYTES) continue;
      const bytes = await readFile(path);
      const mime = mimeOf(bytes);
      if (mime) images.set(file, { bytes, mime });
    } catch {
      // A missing or unreadable image file plots as its frame, as CAD programs show an unresolved image.
    }
  }
  return images;
}
