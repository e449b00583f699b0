import { describe, expect, it } from 'vitest';
import { StacksError } from '../../src/stacks/errors.js';
import { envFolder, isStackName, parseEnvParam, parseRunId, parseStackName } from '../../src/stacks/names.js';

const status400 = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StacksError);
    expect((error as StacksError).status).toBe(400);
    return (error as StacksError).message;
  }
  throw new Error('expected a 400');
};

describe('parseStackName', () => {
  it.each(['a', '0', 'web', 'my-app_2', 'a'.repeat(63), '9lives'])('accepts %j', (name) => {
    expect(parseStackName(name)).toBe(name);
    expect(isStackName(name)).toBe(true);
  });

  it.each([
    '',
    'a'.repeat(64),
    'Web',
    '-web',
    '_web',
    '.',
    '..',
    '../etc',
    'a/b',
    'a\\b',
    'a b',
    'a.b',
    ' web',
    'web\n',
    'wéb',
  ])('refuses %j with a 400', (name) => {
    expect(status400(() => parseStackName(name))).toMatch(/Invalid stack name/);
    expect(isStackName(name)).toBe(false);
  });

  it('refuses non-strings and says what it got', () => {
    expect(status400(() => parseStackName(42))).toMatch(/a number/);
    expect(status400(() => parseStackName(null))).toMatch(/a null/);
    expect(status400(() => parseStackName(undefined))).toMatch(/a undefined/);
  });
});

describe('parseEnvParam', () => {
  it('omitted or the literal null is the local environment', () => {
    expect(parseEnvParam(undefined)).toBeNull();
    expect(parseEnvParam('null')).toBeNull();
  });

  it.each([
    ['0', 0],
    ['1', 1],
    ['42', 42],
    ['-3', -3],
    ['9007199254740991', 9007199254740991],
  ])('%j is environment %d', (text, id) => {
    expect(parseEnvParam(text)).toBe(id);
  });

  it.each([
    '',
    ' ',
    ' 1',
    '1 ',
    '+1',
    '-0',
    '--1',
    '01',
    '1.0',
    '1.5',
    '1e3',
    '0x1',
    'NaN',
    'Infinity',
    'NULL',
    'Null',
    'undefined',
    'abc',
    '1a',
    '9007199254740992',
  ])('refuses %j with a 400', (text) => {
    expect(status400(() => parseEnvParam(text))).toMatch(/Invalid env/);
  });
});

describe('parseRunId', () => {
  it.each([
    ['1', 1],
    ['12345', 12345],
  ])('%j is run %d', (text, id) => {
    expect(parseRunId(text)).toBe(id);
  });

  it.each(['0', '-1', '+1', '01', '1.0', '1e2', '', ' 1', 'abc', '9007199254740992'])(
    'refuses %j with a 400',
    (text) => {
      expect(status400(() => parseRunId(text))).toMatch(/Invalid run id/);
    },
  );
});

describe('envFolder', () => {
  it('names the local environment "local" and others by id', () => {
    expect(envFolder(null)).toBe('local');
    expect(envFolder(7)).toBe('7');
  });
});
