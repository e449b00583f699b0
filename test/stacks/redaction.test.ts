import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutMarker, LineSplitter } from '../../src/stacks/compose/line-splitter.js';
import type { Redactor } from '../../src/stacks/contracts.js';
import { createRedactor, naiveRedact } from '../../src/stacks/output/redaction.js';

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

  it('cut(): redacts the whole line, then shows it up to the cut; a value crossing the cut is masked whole', () => {
    const r = createRedactor(['supersecret', 'pin1']);
    const line = `${'x'.repeat(10)}supersecret tail`;
    // The cut falls inside the secret (after "supe"): nothing of it shows.
    expect(r.cut(line, 14, ' [cut]')).toBe(`${'x'.repeat(10)}*** [cut]`);
    expect(r.cut(line, 10, ' [cut]')).toBe(`${'x'.repeat(10)} [cut]`);
    expect(r.cut(line, 21, ' [cut]')).toBe(`${'x'.repeat(10)}*** [cut]`);
    expect(r.cut(line, 23, ' [cut]')).toBe(`${'x'.repeat(10)}*** t [cut]`);
    // A short value withholds when it overlaps the shown part, also across the cut; past it, it is not shown.
    expect(r.cut('abc pin1 def', 6, '|')).toBeNull();
    expect(r.cut('abc pin1 def', 4, '|')).toBe('abc |');
    expect(r.cut('abc pin1 def', 5, '|')).toBeNull();
    // The marker is scanned too: a value it would complete (or hold) withholds the line.
    expect(createRedactor(['ab|', 'cdefgh']).cut('xxab yy', 4, '|')).toBeNull();
    expect(createRedactor(['cut', 'cdefgh']).cut('xxab yy', 4, ' [cut]')).toBeNull();
    expect(createRedactor([]).cut('abcdef', 3, '|')).toBe('abc|');
    expect(createRedactor(['abc']).longestBytes).toBe(5);
    expect(createRedactor(['€€', 'x']).longestBytes).toBe(8);
    expect(createRedactor([]).longestBytes).toBe(0);
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

  it('the skip filter (every value 5 characters or more) answers as the automaton alone does', () => {
    // A one-character value that never occurs turns the filter off and changes nothing else: the oracle.
    const longValue = fc.array(alphabet, { minLength: 5, maxLength: 14 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        fc.array(longValue, { minLength: 1, maxLength: 8 }),
        fc.array(fc.oneof(text, longValue), { maxLength: 6 }),
        (values, parts) => {
          const line = parts.join('');
          const out = createRedactor(values).line(line);
          expect(out).toBe(createRedactor([...values, 'ÿ']).line(line));
          if (out !== null) for (const v of values) expect(out.includes(v)).toBe(false);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('a line cut by the splitter is redacted as if whole, then cut: a value straddling the cut shows no prefix', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom('a', 'b', 'c', 'é', '😀'), { minLength: 6, maxLength: 20 })
          .map((a) => a.join('')),
        fc.nat(100),
        fc.nat(40),
        (secret, offset, limitDelta) => {
          // The cut at `limit` bytes falls inside the secret, which starts `before` bytes into the line.
          const bytes = Buffer.byteLength(secret);
          const before = offset % 30;
          const limit = before + 1 + (limitDelta % (bytes - 1));
          const line = `${'x'.repeat(before)}${secret}${'y'.repeat(offset)}`;
          const shown = pipeline([secret], line, limit);
          // The cut steps back to a character boundary: when that is the secret's start, none of it shows.
          const masked = keepOf(line, limit) > before ? '***' : '';
          expect(shown).toBe(`${'x'.repeat(before)}${masked}${cutMarker(limit)}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('splitter and redactor together agree with a brute-force oracle on the whole line (cut or not)', () => {
    const cutAlphabet = fc.constantFrom('a', 'b', 'c', '*', '=', ' ', 'é', '😀');
    const cutValue = fc.array(cutAlphabet, { minLength: 0, maxLength: 12 }).map((a) => a.join(''));
    const cutText = fc.array(cutAlphabet, { maxLength: 60 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        fc.array(cutValue, { maxLength: 6 }),
        fc.array(fc.oneof(cutText, cutValue), { maxLength: 6 }),
        fc.integer({ min: 1, max: 80 }),
        (values, parts, limit) => {
          const line = parts.join('');
          const marker = '⟂';
          const shown = pipeline(values, line, limit, marker);
          const keep = keepOf(line, limit);
          expect(shown).toBe(oracle(values, line, keep, keep < line.length ? marker : ''));
        },
      ),
      { numRuns: 5000 },
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

/**
 * One line through the LineSplitter (limit `limit` bytes, overlap the redactor's longest value) and the
 * redactor, as the service does: a cut line with `Redactor.cut`, another with `Redactor.line`.
 */
function pipeline(values: readonly string[], line: string, limit: number, marker?: string): string | null {
  const redactor: Redactor = createRedactor(values);
  const splitter = new LineSplitter(limit, redactor.longestBytes);
  const lines = [...splitter.push(Buffer.from(`${line}\n`)), ...splitter.end()];
  expect(lines).toHaveLength(1);
  const [split] = lines;
  if (split === undefined) throw new Error('no line');
  if (split.cut === undefined) return redactor.line(split.text);
  return redactor.cut(split.text, split.cut.keep, marker ?? split.cut.marker);
}

/** Code units of the longest prefix of `line` of at most `limit` UTF-8 bytes, ending on a character. */
function keepOf(line: string, limit: number): number {
  if (Buffer.byteLength(line) <= limit) return line.length;
  let bytes = 0;
  let units = 0;
  for (const ch of line) {
    bytes += Buffer.byteLength(ch);
    if (bytes > limit) break;
    units += ch.length;
  }
  return units;
}

/**
 * The rules by brute force on the whole line: every occurrence of every value; long ones joined into
 * spans (overlapping or touching), each shown as `***`; the line shown up to `keep`, a span reaching
 * over it masked whole; a short occurrence starting before `keep` outside every span withholds; what is
 * shown is withheld when it holds a value.
 */
function oracle(values: readonly string[], line: string, keep: number, suffix: string): string | null {
  const distinct = [...new Set(values.filter((v) => v.length > 0))];
  const occurrences: Array<{ start: number; end: number; long: boolean }> = [];
  for (const v of distinct)
    for (let i = line.indexOf(v); i !== -1; i = line.indexOf(v, i + 1))
      occurrences.push({ start: i, end: i + v.length, long: v.length > 5 });
  const spans: Array<{ start: number; end: number }> = [];
  for (const o of occurrences.filter((o) => o.long).sort((a, b) => a.start - b.start)) {
    const last = spans.at(-1);
    if (last && o.start <= last.end) last.end = Math.max(last.end, o.end);
    else spans.push({ start: o.start, end: o.end });
  }
  for (const o of occurrences)
    if (!o.long && o.start < keep && !spans.some((s) => s.start <= o.start && o.end <= s.end)) return null;
  let out = '';
  let at = 0;
  for (const span of spans) {
    if (span.start >= keep) break;
    out += `${line.slice(at, span.start)}***`;
    at = span.end;
  }
  if (at < keep) out += line.slice(at, keep);
  out += suffix;
  return distinct.some((v) => out.includes(v)) ? null : out;
}
