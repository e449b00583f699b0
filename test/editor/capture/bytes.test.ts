/** The capture's byte writer: whole numbers and text as UTF-8, as String() and TextEncoder write them. */
import { describe, expect, it } from 'vitest';
import { Bytes } from '../../../src/editor/capture/bytes.js';

const decoded = (b: Bytes) => new TextDecoder().decode(b.bytes());

describe('Bytes', () => {
  it('writes whole numbers as String() does, rounding others and never a minus zero', () => {
    const values = [0, 7, 9, 10, 99, 100, 12345, -1, -10, -987654, 2 ** 40, -(2 ** 52), 1e21];
    const b = new Bytes(4);
    for (const v of values) {
      b.int(v);
      b.char(32);
    }
    b.int(-0);
    b.char(32);
    b.int(2.5);
    b.char(32);
    b.int(-0.2);
    expect(decoded(b)).toBe(`${values.map(String).join(' ')} 0 3 0`);
  });

  it('writes text of any characters as UTF-8, short and long, and appends another writer', () => {
    const b = new Bytes(2);
    b.text('M10');
    b.text('Ø 5°');
    b.text('a longer text than sixteen characters: ± 漢字');
    const other = new Bytes();
    other.text('<end/>');
    b.append(other);
    expect(decoded(b)).toBe('M10Ø 5°a longer text than sixteen characters: ± 漢字<end/>');
    expect(b.length).toBe(b.bytes().length);
  });
});
