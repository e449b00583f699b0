import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLogQuery, queryLog } from '../../src/stacks/history/log-query.js';

const fileWith = async (text: string) => {
  const file = join(await mkdtemp(join(tmpdir(), 'log-query-')), '1.log');
  await writeFile(file, text);
  return file;
};

describe('parseLogQuery', () => {
  it('is undefined without range or search, defaults the rest, and refuses bad values', () => {
    expect(parseLogQuery({})).toBeUndefined();
    expect(parseLogQuery({ download: 'true' })).toBeUndefined();
    expect(parseLogQuery({ q: 'ÄBC' })).toEqual({ fromLine: 1, limit: 1000, q: 'äbc' });
    expect(parseLogQuery({ fromLine: '5', limit: '2' })).toEqual({ fromLine: 5, limit: 2 });
    for (const bad of [
      { fromLine: '0' },
      { fromLine: '-1' },
      { limit: '10001' },
      { limit: '1.5' },
      { q: '' },
    ])
      expect(() => parseLogQuery(bad)).toThrow();
  });
});

describe('queryLog', () => {
  it('pages a range and counts every line, with or without a final newline', async () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');
    for (const file of [await fileWith(`${text}\n`), await fileWith(text)]) {
      const page = await queryLog(file, { fromLine: 4, limit: 3 });
      expect(page?.lines).toEqual([
        { line: 4, text: 'line 4' },
        { line: 5, text: 'line 5' },
        { line: 6, text: 'line 6' },
      ]);
      expect(page?.nextLine).toBe(7);
      expect(page?.totalLines).toBe(10);
      const last = await queryLog(file, { fromLine: 9, limit: 5 });
      expect(last?.lines.map((l) => l.line)).toEqual([9, 10]);
      expect(last?.nextLine).toBeNull();
    }
  });

  it('searches case-insensitively across chunk ends, multi-byte characters intact', async () => {
    // Lines of ~100 bytes: the 1 MiB chunks end inside lines, some inside a multi-byte character.
    const lines = Array.from(
      { length: 30_000 },
      (_, i) => `${i % 1000 === 7 ? 'Ünïcode MATCH' : 'ünïcode other'} ${'é'.repeat(40)} ${i}`,
    );
    const file = await fileWith(`${lines.join('\n')}\n`);
    const page = await queryLog(file, { fromLine: 1, limit: 20, q: 'ünïcode match' });
    expect(page?.matches).toBe(30);
    expect(page?.lines).toHaveLength(20);
    expect(page?.lines[0]).toEqual({ line: 8, text: lines[7] });
    expect(page?.nextLine).toBe(20_008);
    expect(page?.totalLines).toBe(30_000);
    const range = await queryLog(file, { fromLine: 29_999, limit: 5 });
    expect(range?.lines.map((l) => l.text)).toEqual([lines[29_998], lines[29_999]]);
  });

  it('is undefined when there is no log', async () => {
    expect(
      await queryLog(join(tmpdir(), 'no-such-dir-19', '1.log'), { fromLine: 1, limit: 1 }),
    ).toBeUndefined();
  });
});
