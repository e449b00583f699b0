/**
 * src/editor/dict.ts against a Map as the model: any sequence of sets and deletes with plain names and
 * Object.prototype member names leaves the same entries, also after the copies the model goes through
 * (JSON, structuredClone, a spread), and never touches the object's prototype.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Dict,
  dictDelete,
  dictGet,
  dictHas,
  dictPut,
  dictSet,
  dictWith,
} from '../../src/editor/dict.js';
import { fuzzNameFrom, PROTOTYPE_NAMES } from './fuzz-names.js';

const entries = (dict: Dict<number>) => Object.entries(dict).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const sorted = (map: Map<string, number>) =>
  [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) as Array<[string, number]>;

describe('dict', () => {
  it('finds no Object.prototype member in an empty dictionary, made however the model makes one', () => {
    const made: Array<Dict<number>> = [{}, JSON.parse('{}'), structuredClone({}), { ...{} }];
    for (const dict of made) {
      for (const name of PROTOTYPE_NAMES) {
        expect(dictHas(dict, name), name).toBe(false);
        expect(dictGet(dict, name), name).toBeUndefined();
      }
    }
    expect(dictHas(undefined, 'constructor')).toBe(false);
    expect(dictGet(undefined, 'constructor')).toBeUndefined();
  });

  it('sets __proto__ as an entry, not as the prototype', () => {
    const dict: Dict<number> = {};
    dictSet(dict, '__proto__', 1);
    expect(Object.getPrototypeOf(dict)).toBe(Object.prototype);
    expect(Object.keys(dict)).toEqual(['__proto__']);
    expect(dictGet(dict, '__proto__')).toBe(1);
    expect(JSON.stringify(dict)).toBe('{"__proto__":1}');
    dictDelete(dict, '__proto__');
    expect(Object.keys(dict)).toEqual([]);
    expect(Object.getPrototypeOf(dict)).toBe(Object.prototype);
  });

  it('agrees with a Map through random sets and deletes, and through the copies the model goes through', () => {
    const name = fuzzNameFrom('a', 'B', '0', '$X');
    const op = fc.oneof(
      fc.tuple(fc.constant('set' as const), name, fc.integer()),
      fc.tuple(fc.constant('delete' as const), name, fc.integer()),
      fc.tuple(fc.constant('put' as const), name, fc.option(fc.integer(), { nil: null })),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let dict: Dict<number> = {};
        const truth = new Map<string, number>();
        for (const [kind, key, value] of ops) {
          if (kind === 'set') dictSet(dict, key, value);
          else if (kind === 'delete') dictDelete(dict, key);
          else dictPut(dict, key, value);
          if (kind === 'delete' || value === null) truth.delete(key);
          else truth.set(key, value);
          // The copies evolve and the store make: each keeps every entry as an entry.
          dict = [JSON.parse(JSON.stringify(dict)), structuredClone(dict), { ...dict }][
            Math.abs(value ?? 0) % 3
          ] as Dict<number>;
        }
        expect(Object.getPrototypeOf(dict)).toBe(Object.prototype);
        expect(entries(dict)).toEqual(sorted(truth));
        for (const key of [...PROTOTYPE_NAMES, 'a', 'B']) {
          expect(dictHas(dict, key)).toBe(truth.has(key));
          expect(dictGet(dict, key)).toBe(truth.get(key));
        }
      }),
    );
  });

  it('dictWith copies: the original keeps its entries', () => {
    const original: Dict<number> = { a: 1 };
    const added = dictWith(original, '__proto__', 2);
    const removed = dictWith(added, 'a', null);
    expect(entries(original)).toEqual([['a', 1]]);
    expect(entries(added)).toEqual([
      ['__proto__', 2],
      ['a', 1],
    ]);
    expect(entries(removed)).toEqual([['__proto__', 2]]);
    expect(entries(dictWith<number>(undefined, 'constructor', 3))).toEqual([['constructor', 3]]);
  });
});
