import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkedJson } from '../../src/store/chunked-json.js';

const joined = (value: unknown, size?: number) => [...chunkedJson(value, size)].join('');

describe('chunkedJson', () => {
  it('joins to exactly what JSON.stringify writes, at any piece size', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 64 }), (value, size) => {
        expect(joined(value, size)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('writes wide containers entry by entry, in pieces of about the size asked', () => {
    const entities: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) entities[`H${i}`] = { handle: `H${i}`, at: [i, -i, 0.5], note: 'ü\n"' };
    const state = { documents: { 1: { entities, order: Object.keys(entities) } }, operations: [] };
    const pieces = [...chunkedJson(state, 10_000)];
    expect(pieces.join('')).toBe(JSON.stringify(state));
    expect(pieces.length).toBeGreaterThan(20);
    // A piece ends after the entry that took it past the size: never far past it.
    for (const piece of pieces) expect(piece.length).toBeLessThan(10_200);
  });

  it('skips and nulls what JSON.stringify skips and nulls, keeps own __proto__ keys, calls toJSON', () => {
    const value: Record<string, unknown> = {
      gone: undefined,
      fn: () => 1,
      list: [undefined, () => 1, Symbol('s'), 1],
      when: new Date(0),
      nested: { deeper: { gone: undefined, kept: [1, [2, { x: null }]] } },
    };
    Object.defineProperty(value, '__proto__', {
      value: { a: 1 },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expect(joined(value, 1)).toBe(JSON.stringify(value));
    expect(Object.hasOwn(JSON.parse(joined(value, 1)), '__proto__')).toBe(true);
    expect(joined('text')).toBe('"text"');
    expect(joined(null)).toBe('null');
  });
});
