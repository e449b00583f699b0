/**
 * Tiny valid raster files made at test time, so image tests need no binary fixtures: a PNG (RGB,
 * one colour) and a baseline JPEG (greyscale, every block flat mid-grey). Both decode with standard
 * decoders (pngcheck and djpeg accept them).
 */
import { crc32, deflateSync } from 'node:zlib';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `width` x `height` PNG, 8-bit RGB, every pixel the same colour. */
export function pngBytes(
  width: number,
  height: number,
  rgb: [number, number, number] = [200, 30, 30],
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  // compression, filter and interlace methods: 0
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(pixels)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const segment = (marker: number, body: number[]) => [
  0xff,
  marker,
  (body.length + 2) >> 8,
  (body.length + 2) & 0xff,
  ...body,
];

/**
 * A `width` x `height` baseline JPEG, one greyscale component. Every 8x8 block has DC difference 0 and
 * no AC coefficient, so each block is two one-bit Huffman codes (DC category 0, then end of block):
 * flat mid-grey.
 */
export function jpegBytes(width: number, height: number): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const bits = '00'.repeat(blocks);
  const padded = bits + '1'.repeat((8 - (bits.length % 8)) % 8);
  const scan: number[] = [];
  for (let i = 0; i < padded.length; i += 8) {
    const byte = Number.parseInt(padded.slice(i, i + 8), 2);
    scan.push(byte);
    if (byte === 0xff) scan.push(0x00); // byte stuffing
  }
  const oneCodeTable = (tableClass: number) => [
    (tableClass << 4) | 0,
    1, // one code of length 1
    ...Array(15).fill(0),
    0x00, // its symbol: DC category 0 / AC end of block
  ];
  return Buffer.from([
    0xff,
    0xd8, // start of image
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]), // JFIF 1.1
    ...segment(0xdb, [0x00, ...Array(64).fill(1)]), // quantisation table 0: all ones
    ...segment(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]),
    ...segment(0xc4, oneCodeTable(0)),
    ...segment(0xc4, oneCodeTable(1)),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]), // scan: component 1, tables 0/0, full spectrum
    ...scan,
    0xff,
    0xd9, // end of image
  ]);
}
