import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EnvFileError, formatEnvFile, parseEnvFile } from '../../src/stacks/compose/env-file.js';
import { withPrototypeNames } from '../fuzz-names.js';

// Variable names are chosen by callers: `constructor` and `__proto__` are names like any other.
const name = withPrototypeNames(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/));

describe('.env files', () => {
  it('round-trips any value: newlines, CR, #, both quotes, backslashes, $ and unicode', () => {
    const values = [
      '',
      'plain',
      'with space',
      'a#b',
      ' # not a comment',
      'line1\nline2',
      'crlf\r\n',
      `both ' and " quotes`,
      '\\n is not a newline',
      'ends with backslash\\',
      `\${HOME} $HOME $$`,
      'tab\there',
      'ünïcødé ✓ 🔑',
      '"',
      "'",
      '=',
    ];
    const vars = values.map((value, i) => ({ name: `V${i}`, value }));
    const parsed = parseEnvFile(formatEnvFile(vars));
    expect([...parsed.entries()]).toEqual(vars.map((v) => [v.name, v.value]));
  });

  it('round-trips random values (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ name, value: fc.string({ unit: 'binary' }) }), {
          selector: (v) => v.name,
        }),
        (vars) => {
          const parsed = parseEnvFile(formatEnvFile(vars));
          expect([...parsed.entries()]).toEqual(vars.map((v) => [v.name, v.value]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes each value in the form both Compose generations read the same', () => {
    // No `$`: double quotes, escapes both read alike.
    expect(formatEnvFile([{ name: 'A', value: 'a\\b "q" \'s #h\nnext' }])).toBe(
      'A="a\\\\b \\"q\\" \'s #h\\nnext"\n',
    );
    // A `$`: single quotes (neither interpolates there), `\'` for a quote; a lone backslash stays.
    expect(formatEnvFile([{ name: 'B', value: 'p$a\\ss"w\'o#rd $HOME' }])).toBe(
      "B='p$a\\ss\"w\\'o#rd $HOME'\n",
    );
    expect(formatEnvFile([{ name: 'C', value: 'x$Y\n"' }])).toBe("C='x$Y\n\"'\n");
    // A `$` and a backslash before a backslash: no common form; `\$` in double quotes (v2's reading).
    expect(formatEnvFile([{ name: 'D', value: 'a\\\\b$c' }])).toBe('D="a\\\\\\\\b\\$c"\n');
  });

  it('reads what people write by hand', () => {
    const text = [
      '# a comment',
      '',
      'export A=1',
      'B = two words # trailing comment',
      "C='single $quoted \\n'",
      'D="multi',
      'line"',
      'E=',
      'A=again',
      'F="x" # ok',
      'G=a#b',
    ].join('\r\n');
    expect(Object.fromEntries(parseEnvFile(text))).toEqual({
      A: 'again',
      B: 'two words',
      C: 'single $quoted \\n',
      D: 'multi\r\nline',
      E: '',
      F: 'x',
      G: 'a#b',
    });
  });

  it.each([
    ['not an assignment', 'A=1\nno equals here\n', '.env line 2: expected NAME=value'],
    ['unterminated quote', 'A=1\n\nB="open\n', '.env line 3: unterminated double quote'],
    ['text after the quote', 'A="x" y\n', '.env line 1: text after the closing quote'],
  ])('%s is an EnvFileError naming the line', (_, text, message) => {
    expect(() => parseEnvFile(text)).toThrow(EnvFileError);
    expect(() => parseEnvFile(text)).toThrow(message);
  });
});
