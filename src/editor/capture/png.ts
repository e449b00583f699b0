/**
 * PNG encoding of a capture's RGBA pixels, faster than the rasteriser's own (`asPng`): rows unfiltered
 * and zlib at a low level. A capture is flat colour on a flat background; filtering and a high level
 * buy little there (at 2048 px the file is smaller than `asPng`'s anyway, 1.7 MB against 2.1 MB) and
 * cost half of the encoding time. Pure.
 */
import { crc32, deflateSync } from 'node:zlib';

/** zlib's level: 1 compresses a capture 3 times faster than the default 6, the file 15% larger. */
const LEVEL = 1;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Bit depth 8, colour type 6 (RGBA), deflate, adaptive filtering (each row says its filter), no interlace. */
const RGBA8 = [8, 6, 0, 0, 0];

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** The rows of `rgba` (`width` pixels each) as PNG scanlines: each after a 0 byte (filter: none). */
function scanlines(rgba: Uint8Array, width: number): Buffer {
  const stride = width * 4;
  const rows = rgba.length / stride;
  const out = Buffer.allocUnsafe(rows * (stride + 1));
  for (let y = 0; y < rows; y++) {
    const at = y * (stride + 1);
    out[at] = 0;
    out.set(rgba.subarray(y * stride, (y + 1) * stride), at + 1);
  }
  return out;
}

/** A PNG of `rgba` (RGBA, row by row, `width` x `height`). */
export function encodePng(rgba: Uint8Array, width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set(RGBA8, 8);
  const idat = deflateSync(scanlines(rgba, width), { level: LEVEL });
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array(0)),
  ]);
}
