import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, naiveRedact } from '../../src/stacks/redaction.js';

describe('createRedactor', () => {
  it('replaces values over 5 characters with ***', () => {
    const r = createRedactor(['hunter22', 'p4ssw0rd!']);
    expect(r.line('login hunter22 then p4ssw0rd! and hunter22')).toBe('login *** then *** and ***');
    expect(r.line('nothing here')).toBe('nothing here');
    expect(r.line('')).toBe('');
  });

  it('withholds a line holding a value of 5 characters or fewer', () => {
    const r = createRedactor(['abcde', 'longsecret']);
    expect(r.line('x abcde y')).toBeNull();
    expect(r.line('abcd')).toBe('abcd');
    expect(r.line('longsecret')).toBe('***');
  });

  it('ignores empty values and duplicates; no values = identity', () => {
    expect(createRedactor(['', '']).line('abc')).toBe('abc');
    expect(createRedactor([]).line('abc')).toBe('abc');
    expect(createRedactor(['secret1', 'secret1', '']).line('secret1secret1')).toBe('***');
  });

  it('the longest value wins and overlapping long values are redacted whole', () => {
    const r = createRedactor(['abcdef', 'abcdefghij', 'ghijklmno']);
    expect(r.line('[abcdefghij]')).toBe('[***]');
    expect(r.line('[abcdefghijklmno]')).toBe('[***]');
    expect(r.line('[abcdefXghijklmno]')).toBe('[***X***]');
  });

  it('a short value inside a redacted part does not withhold; outside or straddling it does', () => {
    const r = createRedactor(['ab', 'xxabxxyy']);
    expect(r.line('key=xxabxxyy')).toBe('key=***');
    expect(r.line('key=xxabxxyy ab')).toBeNull();
    const s = createRedactor(['k=x', 'xsecret']);
    expect(s.line('k=xsecret')).toBeNull();
  });

  it('withholds a line where replacing would create a value', () => {
    const r = createRedactor(['a***b', 'SECRET']);
    expect(r.line('aSECRETb')).toBeNull();
    expect(createRedactor(['*', 'SECRET']).line('x SECRET')).toBeNull();
  });

  it('works on non-ASCII values and lines', () => {
    const r = createRedactor(['pässwörd€', 'ü']);
    expect(r.line('pw=pässwörd€ ok')).toBe('pw=*** ok');
    expect(r.line('grün')).toBeNull();
    // Matching is by UTF-16 code unit, not grapheme: a combining mark after a value does not hide it.
    expect(createRedactor(['secret1']).line('x secret1\u0301 y')).toBe('x ***\u0301 y');
  });

  it('a multi-line value is redacted line by line', () => {
    const pem = '-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----\n';
    const r = createRedactor([pem]);
    expect(r.line('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC')).toBe('***');
    expect(r.text(`key:\n${pem}`)).toBe('key:\n***\n***\n***\n');
  });

  it('text() redacts each line and leaves out withheld ones', () => {
    const r = createRedactor(['topsecret', 'pin1']);
    expect(r.text('failed: topsecret\r\npin is pin1\nend')).toBe('failed: ***\nend');
    expect(r.text('pin1')).toBe('');
  });

  it('with() adds values that arrive later, leaving the original unchanged', () => {
    const r = createRedactor(['firstsecret']);
    const r2 = r.with(['providervalue', 'abc']);
    expect(r2.line('firstsecret providervalue')).toBe('*** ***');
    expect(r2.line('abc')).toBeNull();
    expect(r.line('providervalue abc')).toBe('providervalue abc');
    expect(r.with([])).toBe(r);
  });

  it('handles many values (sparse fallback size is not needed, dense table is used)', () => {
    const values = Array.from({ length: 100 }, (_, i) => `secret-${i}-${'x'.repeat(i % 30)}`);
    const r = createRedactor(values);
    for (const v of values) expect(r.line(`v=${v};`)).not.toContain(v);
  });

  it('uses the sparse automaton for huge alphabets and stays correct', () => {
    // 3000 values of distinct CJK characters: states x classes exceeds the dense limit.
    const values = Array.from({ length: 3000 }, (_, i) =>
      Array.from({ length: 8 }, (_, k) => String.fromCharCode(0x4e00 + ((i * 8 + k) % 20000))).join(''),
    );
    const r = createRedactor(values);
    expect(r.line(`a ${values[1234]} b ${values[7]}`)).toBe('a *** b ***');
  });
});

describe('redaction property', () => {
  // A small alphabet makes overlaps, repeats and values inside values frequent.
  const alphabet = fc.constantFrom('a', 'b', 'c', '*', '=', ' ', 'é');
  const value = fc.array(alphabet, { minLength: 0, maxLength: 12 }).map((a) => a.join(''));
  const text = fc.array(alphabet, { maxLength: 60 }).map((a) => a.join(''));

  it('no value over 5 characters appears in an output line; a line holding a short value is null', () => {
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 8 }),
        fc.array(fc.oneof(text, value), { maxLength: 5 }),
        (values, parts) => {
          const line = parts.join('');
          const out = createRedactor(values).line(line);
          if (out === null) return;
          for (const v of values) {
            if (v.length > 0) expect(out.includes(v)).toBe(false);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('agrees with the naive replaceAll loop when values do not overlap each other', () => {
    const word = fc
      .array(fc.constantFrom('q', 'r', 's', 't'), { minLength: 1, maxLength: 10 })
      .map((a) => `<${a.join('')}>`);
    fc.assert(
      fc.property(
        fc.uniqueArray(word, { maxLength: 6 }),
        fc.array(fc.oneof(word, fc.constantFrom('a', ' ', 'b')), { maxLength: 10 }),
        (values, parts) => {
          // Delimited values cannot overlap or contain one another unless equal.
          const line = parts.join('');
          expect(createRedactor(values).line(line)).toBe(naiveRedact(values, line));
        },
      ),
    );
  });
});
