import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/http/query-string.js';
import { PROTOTYPE_NAMES, withPrototypeNames } from '../fuzz-names.js';

describe('parseQuery', () => {
  it('decodes names and values; the first of a repeated name wins', () => {
    expect({ ...parseQuery('a=1&b=x+y&a=2&c&d=%41%zz') }).toEqual({ a: '1', b: 'x y', c: '', d: 'A%zz' });
  });

  it('parameters named after Object.prototype properties are parameters like any other (property)', () => {
    const name = withPrototypeNames(fc.stringMatching(/^[a-z]{1,6}$/));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.stringMatching(/^[a-z0-9]{0,6}$/)), { maxLength: 8 }),
        (pairs) => {
          const query = parseQuery(pairs.map(([n, v]) => `${n}=${v}`).join('&'));
          const first = new Map<string, string>();
          for (const [n, v] of pairs) if (!first.has(n)) first.set(n, v);
          expect(new Map(Object.entries(query))).toEqual(first);
          for (const n of PROTOTYPE_NAMES) if (!first.has(n)) expect(query[n], n).toBeUndefined();
        },
      ),
    );
  });
});
