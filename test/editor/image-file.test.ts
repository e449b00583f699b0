/** Reading a raster file's format and pixel size: PNG and JPEG taken, anything else named in the refusal. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EditorError } from '../../src/editor/errors.js';
import { rasterInfo, readRasterInfo } from '../../src/editor/image-file.js';
import { jpegBytes, pngBytes } from './raster-files.js';

const refusal = (run: () => unknown): { code: string; message: string } => {
  try {
    run();
  } catch (error) {
    if (error instanceof EditorError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
};

/** A JPEG with `count` APP15 segments of 65,533 bytes between its start and its frame header. */
function jpegWithPadding(width: number, height: number, count: number): Buffer {
  const jpeg = jpegBytes(width, height);
  const pad = Buffer.alloc(65_535 + 2);
  pad[0] = 0xff;
  pad[1] = 0xef;
  pad.writeUInt16BE(65_535, 2);
  return Buffer.concat([jpeg.subarray(0, 2), ...Array(count).fill(pad), jpeg.subarray(2)]);
}

describe('rasterInfo', () => {
  it('reads the format and pixel size of a PNG and a JPEG', () => {
    expect(rasterInfo(pngBytes(3, 700), '/a.png')).toEqual({ format: 'png', width: 3, height: 700 });
    expect(rasterInfo(jpegBytes(1000, 9), '/a.jpg')).toEqual({ format: 'jpeg', width: 1000, height: 9 });
  });

  it('refuses other bytes with invalid_image, saying what they are', () => {
    const cases: Array<[Uint8Array, RegExp]> = [
      [Buffer.alloc(0), /^\/x is an empty file/],
      [
        Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'),
        /^\/x is an image of type GIF, not PNG or JPEG$/,
      ],
      [Buffer.from('<svg width="3" height="4"></svg>'), /^\/x is an image of type SVG, not PNG or JPEG$/],
      [Buffer.from('hello, world'), /^\/x is not a PNG or JPEG image \(it is text\)$/],
      [
        Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9]),
        /^\/x is not a PNG or JPEG image \(no image signature at its start\)$/,
      ],
      // A PNG signature without its IHDR chunk, and a JPEG without a frame header.
      [pngBytes(2, 2).subarray(0, 12), /^\/x is not a readable PNG or JPEG image: /],
      [Buffer.from([0xff, 0xd8, 0xff, 0xd9]), /^\/x is not a readable PNG or JPEG image: /],
    ];
    for (const [bytes, message] of cases) {
      const { code, message: text } = refusal(() => rasterInfo(bytes, '/x'));
      expect(code).toBe('invalid_image');
      expect(text).toMatch(message);
    }
  });
});

describe('readRasterInfo', () => {
  it('reads a JPEG whose frame header lies past the first 512 KiB', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chronicle-image-'));
    try {
      const path = join(dir, 'padded.jpg');
      const bytes = jpegWithPadding(33, 17, 9);
      expect(bytes.length).toBeGreaterThan(512 * 1024);
      await writeFile(path, bytes);
      expect(await readRasterInfo(path)).toEqual({ format: 'jpeg', width: 33, height: 17 });
      await expect(readRasterInfo(join(dir, 'none.png'))).rejects.toMatchObject({ code: 'file_not_found' });
      await expect(readRasterInfo(dir)).rejects.toMatchObject({ code: 'file_unreadable' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
