/**
 * The LevelDB file reader of the deleted-run tests: it finds a value in a compressed table where a raw
 * search does not, and a log record cut by a block boundary; it refuses a table it cannot read.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from './helpers.js';
import { levelFileContents, logRecords, tableContents } from './level-files.js';

const dirs = tempDirs('chronicle-level-files-');
afterAll(() => dirs.removeAll());

const NEEDLE = 'needle-7f3a9c1e5b2d4086-needle';
const holds = (parts: readonly Buffer[], needle: string) => parts.some((p) => p.includes(needle));

/** The files of `dir` whose name matches `pattern`. */
const filesOf = (dir: string, pattern: RegExp) =>
  readdirSync(dir)
    .filter((name) => pattern.test(name))
    .map((name) => join(dir, name));

describe('levelFileContents', () => {
  it('finds a value in a Snappy-compressed table whose text partly repeats an earlier value', async () => {
    const dir = join(await dirs.make(), 'db');
    const db = new Level<string, string>(dir);
    await db.open();
    const filler = 'compressible '.repeat(200);
    // The first 20 characters of the needle come first: Snappy writes them in `b` as a back-reference.
    await db.put('a', `${filler} ${NEEDLE.slice(0, 20)} ${filler}`);
    await db.put('b', `${filler} ${NEEDLE} ${filler}`);
    // Writes the memtable out as a table (the store compacts the same way after deleting a stream).
    await (db as unknown as { compactRange(a: string, b: string): Promise<void> }).compactRange('a', 'z');
    await db.close();
    const tables = filesOf(dir, /\.(ldb|sst)$/);
    expect(tables.length).toBeGreaterThan(0);
    // The reason for the reader: the needle is not in any file as written...
    expect(tables.some((file) => readFileSync(file).includes(NEEDLE))).toBe(false);
    // ...but it is in the table as LevelDB reads it.
    expect(tables.some((file) => holds(levelFileContents(file), NEEDLE))).toBe(true);
    expect(tables.some((file) => holds(levelFileContents(file), `${NEEDLE}x`))).toBe(false);
  });

  it('finds a value still in the write-ahead log', async () => {
    const dir = join(await dirs.make(), 'db');
    const db = new Level<string, string>(dir);
    await db.put('k', `value ${NEEDLE}`);
    await db.close();
    const logs = filesOf(dir, /\.log$/);
    expect(logs.some((file) => holds(levelFileContents(file), NEEDLE))).toBe(true);
  });

  it('puts a log record cut by a 32 KiB block boundary back together', () => {
    const record = Buffer.from(`${'x'.repeat(32_768 - 7 - 10)}${NEEDLE}${'y'.repeat(100)}`);
    const fragment = (type: number, data: Buffer) => {
      const header = Buffer.alloc(7);
      header.writeUInt16LE(data.length, 4);
      header[6] = type;
      return Buffer.concat([header, data]);
    };
    const firstLength = 32_768 - 7;
    const log = Buffer.concat([
      fragment(2, record.subarray(0, firstLength)),
      fragment(4, record.subarray(firstLength)),
    ]);
    expect(log.includes(NEEDLE)).toBe(false);
    expect(logRecords(log)).toEqual([record]);
  });

  it('throws on a table it cannot read rather than find nothing in it', () => {
    expect(() => tableContents(Buffer.from('not a table, and no magic number at its end at all'))).toThrow(
      /magic/,
    );
  });

  it('gives only the raw bytes of a file outside a LevelDB directory', async () => {
    const dir = await dirs.make();
    const path = join(dir, '7.log');
    writeFileSync(path, `a run log ${NEEDLE}\n`);
    expect(levelFileContents(path)).toEqual([readFileSync(path)]);
  });
});
