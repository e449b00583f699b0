/**
 * The bytes a LevelDB directory holds, as anyone reading its files could recover them — for tests that
 * must show a secret is in none of them (a deleted run's output and key: docs/security.md#deleted-runs-crypto-shredding).
 *
 * Searching the raw bytes is not enough, either way: LevelDB compresses each block of its tables
 * (`.ldb`, `.sst`) with Snappy, which writes a repeated run of 4 or more bytes as a reference to the
 * earlier one, so a value whose text partly repeats another's is not in the file as it was written; and
 * its write-ahead logs (`.log`, MANIFEST) cut records into 32 KiB blocks, each fragment after its own
 * 7-byte header. A present value could then hide from a raw search (a search that finds nothing would
 * prove nothing), and a value that is there could be missed (a check that it is would fail at random).
 * So a table is read as LevelDB reads it (footer, index block, each data block uncompressed, each entry's
 * key and value), a log as its records put back together; the raw bytes are searched too.
 *
 * The format: https://github.com/google/leveldb/blob/main/doc/table_format.md and log_format.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { uncompress } from 'snappyjs';

/** A table's footer: two block handles padded to 40 bytes, then the magic number (fixed64, little-endian). */
const FOOTER_LENGTH = 48;
const TABLE_MAGIC = Buffer.from([0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb]);
/** A block's trailer: its compression type (1 byte) and a CRC (4 bytes). */
const BLOCK_TRAILER = 5;
const NO_COMPRESSION = 0;
const SNAPPY = 1;
/** Log files are read in blocks of 32 KiB; a record header is checksum (4), length (2), type (1). */
const LOG_BLOCK = 32_768;
const LOG_HEADER = 7;
const LOG_FULL = 1;
const LOG_FIRST = 2;
const LOG_MIDDLE = 3;
const LOG_LAST = 4;

/** A little-endian base-128 varint at `at`: its value and the offset after it. */
function varint(bytes: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (let i = at; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, i + 1];
    shift += 7;
  }
  throw new Error(`truncated varint at ${at}`);
}

interface BlockHandle {
  offset: number;
  size: number;
}

function blockHandle(bytes: Buffer, at: number): [BlockHandle, number] {
  const [offset, next] = varint(bytes, at);
  const [size, end] = varint(bytes, next);
  return [{ offset, size }, end];
}

/** A block's contents, uncompressed. */
function readBlock(file: Buffer, handle: BlockHandle): Buffer {
  const end = handle.offset + handle.size;
  if (end + BLOCK_TRAILER > file.length)
    throw new Error(`block ${handle.offset}+${handle.size} past the end`);
  const stored = file.subarray(handle.offset, end);
  const type = file[end];
  if (type === NO_COMPRESSION) return stored;
  if (type === SNAPPY) return Buffer.from(uncompress(new Uint8Array(stored)));
  throw new Error(`block at ${handle.offset}: unknown compression type ${type}`);
}

/** The entries of a block (keys stored as a suffix after a prefix shared with the key before). */
function blockEntries(block: Buffer): Array<{ key: Buffer; value: Buffer }> {
  const restarts = block.readUInt32LE(block.length - 4);
  const limit = block.length - 4 - 4 * restarts;
  const entries: Array<{ key: Buffer; value: Buffer }> = [];
  let previous = Buffer.alloc(0);
  let at = 0;
  while (at < limit) {
    const [shared, a] = varint(block, at);
    const [unshared, b] = varint(block, a);
    const [valueLength, c] = varint(block, b);
    const key = Buffer.concat([previous.subarray(0, shared), block.subarray(c, c + unshared)]);
    const value = block.subarray(c + unshared, c + unshared + valueLength);
    entries.push({ key, value });
    previous = key;
    at = c + unshared + valueLength;
  }
  return entries;
}

/** Every key and value of a table file (`.ldb`, `.sst`), each data block uncompressed. */
export function tableContents(file: Buffer): Buffer[] {
  if (file.length < FOOTER_LENGTH) throw new Error('too short for a table');
  const footer = file.subarray(file.length - FOOTER_LENGTH);
  if (!footer.subarray(40).equals(TABLE_MAGIC)) throw new Error('no table magic number');
  const [, afterMeta] = blockHandle(footer, 0);
  const [indexHandle] = blockHandle(footer, afterMeta);
  const out: Buffer[] = [];
  for (const { value } of blockEntries(readBlock(file, indexHandle))) {
    const [dataHandle] = blockHandle(value, 0);
    for (const entry of blockEntries(readBlock(file, dataHandle))) out.push(entry.key, entry.value);
  }
  return out;
}

/** The records of a log file (`.log`, MANIFEST), each put back together from its fragments. */
export function logRecords(file: Buffer): Buffer[] {
  const records: Buffer[] = [];
  let fragments: Buffer[] = [];
  for (let block = 0; block < file.length; block += LOG_BLOCK) {
    const end = Math.min(block + LOG_BLOCK, file.length);
    let at = block;
    // Fewer than 7 bytes left in a block are padding.
    while (at + LOG_HEADER <= end) {
      const length = file.readUInt16LE(at + 4);
      const type = file[at + 6];
      const data = file.subarray(at + LOG_HEADER, at + LOG_HEADER + length);
      at += LOG_HEADER + length;
      if (type === LOG_FULL) records.push(data);
      else if (type === LOG_FIRST) fragments = [data];
      else if (type === LOG_MIDDLE) fragments.push(data);
      else if (type === LOG_LAST) {
        records.push(Buffer.concat([...fragments, data]));
        fragments = [];
      }
      // Type 0 is space the writer preallocated: the rest of the block is empty.
      else break;
    }
  }
  // A record whose last fragment was never written (a crash) is still bytes on disk.
  if (fragments.length > 0) records.push(Buffer.concat(fragments));
  return records;
}

/**
 * What a file holds, to search: its raw bytes, and in a LevelDB directory, for a table its keys and
 * values uncompressed, for a log its records whole. A table or log that cannot be read throws (a
 * search over it would prove nothing).
 */
export function levelFileContents(path: string): Buffer[] {
  const bytes = readFileSync(path);
  // Only in a LevelDB directory (it has a CURRENT file): a run's `<runId>.log` is plain text.
  if (!existsSync(join(dirname(path), 'CURRENT'))) return [bytes];
  const name = basename(path);
  if (/\.(ldb|sst)$/.test(name)) return [bytes, ...tableContents(bytes)];
  if (/\.log$/.test(name) || /^MANIFEST-\d+$/.test(name)) return [bytes, ...logRecords(bytes)];
  return [bytes];
}
