/**
 * src/editor/body-hash.ts: the body hash is recorded with every mutation and compared with a retry's,
 * also across versions (a resumed session's retries), so its text is pinned: against the map/sort/join
 * form it was first written in, for any value, and against hashes recorded before the rewrite.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyHash, canonicalText } from '../../src/editor/body-hash.js';
import { isObject } from '../../src/editor/request.js';
import { PROTOTYPE_NAMES } from './fuzz-names.js';

/** The first form, as recorded hashes were made: the specification the new one must match. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${reference(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const referenceHash = (request: Record<string, unknown>) => {
  const { request_id: _id, ...body } = request;
  return createHash('sha256').update(reference(body)).digest('hex');
};

const key = fc.oneof(
  fc.string(),
  fc.constantFrom('request_id', 'a', 'B', 'é', '\u{1F600}', '', ...PROTOTYPE_NAMES),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, undefined, true, false, 0, -0, 1.5, Number.NaN, Number.POSITIVE_INFINITY),
    fc.double(),
    fc.string(),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.sparseArray(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
}));

describe('body hash', () => {
  it('writes the same text as the first form for any value', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalText(v)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('hashes any request as the first form did, request_id left out at the top only', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 8 }), (request) => {
        expect(bodyHash(request)).toBe(referenceHash(request));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the hashes sessions recorded', () => {
    // Recorded by a session before the rewrite: a POST /entities body in its REST envelope.
    const request = {
      protocol: 1,
      op: 'entities_create',
      request_id: 'http-8831-3',
      document_id: 1,
      entities: [{ type: 'line', layer: '0', start: [0, 0], end: [10, 5] }],
    };
    expect(bodyHash(request)).toBe('d93ee5f3f613ea5017988fa3fe2160970fc612a49273b078d7c0ad630e9e855d');
    expect(bodyHash({ ...request, request_id: 'other' })).toBe(bodyHash(request));
    expect(bodyHash({ ...request, nested: { request_id: 1 } })).not.toBe(bodyHash(request));
    expect(canonicalText({ b: undefined, a: [undefined, 1] })).toBe('{"a":[null,1],"b":null}');
  });
});
