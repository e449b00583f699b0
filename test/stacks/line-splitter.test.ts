import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cutMarker,
  LineSplitter,
  MAX_LINE_BYTES,
  type SplitLine,
  shownUncut,
} from '../../src/stacks/compose/line-splitter.js';

/** Feeds `bytes` cut at `cuts` (sorted offsets) and returns every line as split, including the final flush. */
function splitLines(
  bytes: Buffer,
  cuts: readonly number[] = [],
  max?: number,
  overlap?: number,
): SplitLine[] {
  const s = new LineSplitter(max, overlap);
  const out: SplitLine[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    out.push(...s.push(bytes.subarray(at, c)));
    at = c;
  }
  out.push(...s.end());
  return out;
}

/** The lines as shown without redaction. */
const split = (bytes: Buffer, cuts: readonly number[] = [], max?: number): string[] =>
  splitLines(bytes, cuts, max).map(shownUncut);

describe('LineSplitter', () => {
  it('splits on LF and CRLF and flushes a last line without newline', () => {
    expect(split(Buffer.from('a\nb\r\nc'))).toEqual(['a', 'b', 'c']);
    expect(split(Buffer.from('a\n\nb\n'))).toEqual(['a', '', 'b']);
    expect(split(Buffer.from(''))).toEqual([]);
  });

  it('keeps a lone CR inside the line (documented choice)', () => {
    expect(split(Buffer.from('x\ry\n'))).toEqual(['x\ry']);
    expect(split(Buffer.from('x\r'))).toEqual(['x\r']);
  });

  it('joins CR and LF split across chunks', () => {
    const b = Buffer.from('one\r\ntwo\r\n');
    expect(split(b, [4])).toEqual(['one', 'two']);
    expect(split(b, [3, 4, 5])).toEqual(['one', 'two']);
  });

  it('decodes a UTF-8 sequence split across chunks', () => {
    const b = Buffer.from('héllo €uro 😀\n');
    for (let i = 1; i < b.length; i++) expect(split(b, [i])).toEqual(['héllo €uro 😀']);
  });

  it('cuts a long line at the limit with a marker and drops the rest of it', () => {
    const long = 'x'.repeat(MAX_LINE_BYTES + 5000);
    const b = Buffer.from(`${long}\nnext\n`);
    const lines = split(b, [1000, 70000, 70001]);
    expect(lines).toEqual([`${'x'.repeat(MAX_LINE_BYTES)}${cutMarker(MAX_LINE_BYTES)}`, 'next']);
  });

  it('keeps a line of exactly the limit whole, also with CRLF split after the CR', () => {
    const exact = 'y'.repeat(MAX_LINE_BYTES);
    const b = Buffer.from(`${exact}\r\nz\n`);
    expect(split(b, [MAX_LINE_BYTES + 1])).toEqual([exact, 'z']);
    expect(split(Buffer.from(`${exact}y\n`))).toEqual([`${exact}${cutMarker(MAX_LINE_BYTES)}`]);
  });

  it('cuts on a UTF-8 boundary', () => {
    // 3-byte characters: 10 bytes allow 3 whole characters (9 bytes), never half of the fourth.
    expect(split(Buffer.from('€€€€€\n'), [], 10)).toEqual([`€€€${cutMarker(10)}`]);
    expect(split(Buffer.from('€€€€€'), [2, 7], 10)).toEqual([`€€€${cutMarker(10)}`]);
  });

  it('a cut line without newline at the end does not emit its rest', () => {
    expect(split(Buffer.from('abcdefghijkl'), [3], 4)).toEqual([`abcd${cutMarker(4)}`]);
  });

  it('a cut line runs past the cut by the overlap, and says where the cut is', () => {
    const lines = splitLines(Buffer.from('abcdefghijkl\nnext\n'), [3], 4, 5);
    expect(lines).toEqual([{ text: 'abcdefghi', cut: { keep: 4, marker: cutMarker(4) } }, { text: 'next' }]);
    // A line ending within the overlap is whole in its text.
    expect(splitLines(Buffer.from('abcdef\n'), [], 4, 5)).toEqual([
      { text: 'abcdef', cut: { keep: 4, marker: cutMarker(4) } },
    ]);
    // The cut and the end of the overlap fall on UTF-8 boundaries; `keep` counts UTF-16 code units.
    // 8 bytes keep € (3) and 😀 (4 bytes, 2 code units); 12 bytes reach one more €.
    expect(splitLines(Buffer.from('€😀€€€€€€\n'), [1, 5], 8, 4)).toEqual([
      { text: '€😀€', cut: { keep: 3, marker: cutMarker(8) } },
    ]);
    // 3 bytes keep only `a` (😀 would end at byte 5); 6 bytes reach 😀 and `b`.
    expect(splitLines(Buffer.from('a😀bcdefghijk\n'), [], 3, 3)).toEqual([
      { text: 'a😀b', cut: { keep: 1, marker: cutMarker(3) } },
    ]);
  });

  it('holds at most the limit plus the overlap of an endless line (memory stays bounded)', () => {
    const s = new LineSplitter(1024, 100);
    const chunk = Buffer.alloc(4096, 'x');
    const first = s.push(chunk);
    expect(first.map((l) => [l.text.length, l.cut?.keep])).toEqual([[1124, 1024]]);
    for (let i = 0; i < 1000; i++) expect(s.push(chunk)).toEqual([]);
    expect(s.push(Buffer.from('end\nnext\n')).map((l) => l.text)).toEqual(['next']);
  });

  it('any chunking gives the same lines as splitting the whole text (property)', () => {
    const text = fc.array(fc.constantFrom('a', 'é', '€', '😀', '\n', '\r\n', '\r', ' '), { maxLength: 80 });
    fc.assert(
      fc.property(text, fc.array(fc.nat(400), { maxLength: 6 }), (parts, rawCuts) => {
        const s = parts.join('');
        const bytes = Buffer.from(s);
        const cuts = [...new Set(rawCuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const expected = s
          .split('\n')
          .map((l, i, all) => (i < all.length - 1 && l.endsWith('\r') ? l.slice(0, -1) : l));
        if (expected.at(-1) === '') expected.pop();
        expect(split(bytes, cuts)).toEqual(expected);
      }),
    );
  });

  it('splits 200,000 lines pushed in 16 KiB chunks (speed: npm run bench -- deploys)', () => {
    const line = `${' Container web-1  Started'.padEnd(99, '.')}\n`;
    const big = Buffer.from(line.repeat(200_000));
    const s = new LineSplitter();
    let n = 0;
    for (let at = 0; at < big.length; at += 16384) n += s.push(big.subarray(at, at + 16384)).length;
    n += s.end().length;
    expect(n).toBe(200_000);
  });
});
