import { describe, expect, it } from 'vitest';
import { CommandError, ConsoleMask, commandOf } from '../../../src/stacks/engine/console.js';

describe('commandOf', () => {
  it('words as a shell splits them, quotes and backslashes, nothing expanded; empty is sh', () => {
    expect(commandOf('')).toEqual(['sh']);
    expect(commandOf('   ')).toEqual(['sh']);
    expect(commandOf('bash -l')).toEqual(['bash', '-l']);
    expect(commandOf(`sh -c 'echo "one word"; ls $HOME'`)).toEqual(['sh', '-c', 'echo "one word"; ls $HOME']);
    expect(commandOf('echo "a \\"b\\" \\x" c\\ d \'\'')).toEqual(['echo', 'a "b" \\x', 'c d', '']);
    expect(() => commandOf("sh -c 'open")).toThrow(CommandError);
    expect(() => commandOf('echo \\')).toThrow(/lone backslash/);
  });
});

describe('ConsoleMask', () => {
  const text = (mask: ConsoleMask, chunks: string[]) =>
    chunks.map((c) => mask.push(Buffer.from(c))).join('') + mask.flush();

  it('masks a long value, also when it comes cut in two; short values stay', () => {
    expect(text(new ConsoleMask(['s3cr3t-token', 'abc']), ['token=s3cr3t-token\r\n', 'abc\r\n'])).toBe(
      'token=***\r\nabc\r\n',
    );
    expect(text(new ConsoleMask(['s3cr3t-token']), ['token=s3cr', '3t-token and more'])).toBe(
      'token=*** and more',
    );
    // Nothing held without a value to look for.
    const plain = new ConsoleMask([]);
    expect(plain.push(Buffer.from('hi'))).toBe('hi');
    expect(plain.holding).toBe(false);
  });

  it('a UTF-8 character cut between chunks comes out whole', () => {
    const bytes = Buffer.from('é and s3cr3t-token');
    expect(
      text(new ConsoleMask(['s3cr3t-token']), [bytes.subarray(0, 1).toString('latin1')]).length,
    ).toBeGreaterThan(0);
    const mask = new ConsoleMask(['s3cr3t-token']);
    const out = mask.push(bytes.subarray(0, 1)) + mask.push(bytes.subarray(1)) + mask.flush();
    expect(out).toBe('é and ***');
  });
});
