import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/editor/dxf/tags.js';
import { formatReal } from '../../../src/editor/dxf/values.js';

describe('tokenize', () => {
  it('reads reals in place exactly as Number() does', () => {
    const values: string[] = [
      '0',
      '-0.0',
      '1.0',
      '0.1',
      '123.456',
      ' 7.25 ',
      '1e+20',
      '-1.5e-05',
      '999999999999999',
      '.5',
    ];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 5000; i++) {
      const x = (random() - 0.5) * 10 ** Math.floor(random() * 12 - 4);
      values.push(String(x), formatReal(x), x.toFixed(Math.floor(random() * 10)));
    }
    const t = tokenize(`${values.map((v) => ` 10\n${v}`).join('\n')}\n`);
    expect(t.count).toBe(values.length);
    values.forEach((v, i) => {
      expect(Object.is(t.real(i), Number(v))).toBe(true);
    });
  });

  it('reads integers and keeps values as the file has them', () => {
    const t = tokenize(' 70\n  -12\n  1\n  padded text  \r\n  5\n1F\r\n');
    expect(t.int(0)).toBe(-12);
    expect(t.value(1)).toBe('  padded text  ');
    expect(t.is(2, '1F')).toBe(true);
  });
});
