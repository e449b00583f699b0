import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSecrets, SecretProviderError } from '../../src/stacks/secrets/secret-providers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacks-providers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
/** A provider command: node running this script. */
async function provider(source: string): Promise<{ command: string[] }> {
  const file = join(dir, `provider-${n++}.mjs`);
  await writeFile(file, source);
  return { command: [process.execPath, file] };
}

const opts = (extra: Partial<Parameters<typeof resolveSecrets>[1]> = {}) => ({
  cwd: dir,
  timeoutMs: 5000,
  env: { PATH: process.env.PATH ?? '' },
  name: 'vault',
  ...extra,
});

async function failure(promise: Promise<unknown>): Promise<SecretProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecretProviderError);
  return error as SecretProviderError;
}

describe('resolveSecrets', () => {
  it('returns the JSON object the command prints', async () => {
    const p = await provider(
      `process.stdout.write(JSON.stringify({ DB_PASSWORD: 's3cr3t-value', API: 'a "b"\\nc', EMPTY: '' }));`,
    );
    expect(await resolveSecrets(p, opts())).toEqual({
      DB_PASSWORD: 's3cr3t-value',
      API: 'a "b"\nc',
      EMPTY: '',
    });
  });

  it('keeps keys named after Object.prototype properties, __proto__ included', async () => {
    const p = await provider(
      `process.stdout.write('{"__proto__": "proto-secret-1", "constructor": "ctor-secret-2", "toString": "ts-3"}');`,
    );
    const secrets = await resolveSecrets(p, opts());
    expect(Object.entries(secrets)).toEqual([
      ['__proto__', 'proto-secret-1'],
      ['constructor', 'ctor-secret-2'],
      ['toString', 'ts-3'],
    ]);
    expect(Object.values(secrets)).toContain('proto-secret-1');
  });

  it('passes arguments verbatim (no shell), the working folder and the environment', async () => {
    const p = await provider(
      `process.stdout.write(JSON.stringify({ ARGS: JSON.stringify(process.argv.slice(2)), CWD: process.cwd(), MINE: process.env.MINE ?? 'unset' }));`,
    );
    const args = ['$(touch pwned)', '; echo hi', '*', "a'b"];
    const secrets = await resolveSecrets(
      { command: [...p.command, ...args] },
      opts({ env: { MINE: 'x y' } }),
    );
    expect(JSON.parse(secrets.ARGS ?? '')).toEqual(args);
    expect(secrets.CWD).toBe(dir);
    expect(secrets.MINE).toBe('x y');
    await expect(readFile(join(dir, 'pwned'))).rejects.toThrow();
  });

  it('a non-zero exit is an error naming the code and the last stderr line, never stdout', async () => {
    const p = await provider(
      `process.stdout.write('{"LEAK":"topsecret-123"}'); console.error('warming up'); console.error('vault sealed'); process.exit(3);`,
    );
    const error = await failure(resolveSecrets(p, opts()));
    expect(error.failure).toBe('exit');
    expect(error.message).toBe('secret provider "vault" exited with code 3: vault sealed');
    expect(error.message).not.toContain('topsecret');
  });

  it('a command that cannot be started is a spawn error', async () => {
    const error = await failure(resolveSecrets({ command: [join(dir, 'does-not-exist')] }, opts()));
    expect(error.failure).toBe('spawn');
    expect(error.message).toMatch(/could not be started .*ENOENT/);
    const empty = await failure(resolveSecrets({ command: [] }, opts()));
    expect(empty.message).toBe('secret provider "vault" has no command');
  });

  it('a time-out kills the provider and whatever it started', async () => {
    const marker = join(dir, 'grandchild-alive');
    const grandchild = join(dir, 'grandchild.mjs');
    await writeFile(
      grandchild,
      `import { writeFileSync } from 'node:fs'; setTimeout(() => writeFileSync(${JSON.stringify(marker)}, 'x'), 1500);`,
    );
    const p = await provider(`
      import { spawn } from 'node:child_process';
      spawn(process.execPath, [${JSON.stringify(grandchild)}], { stdio: 'inherit' });
      process.stdout.write('{"A":');
      setTimeout(() => {}, 60000);
    `);
    const error = await failure(resolveSecrets(p, opts({ timeoutMs: 300 })));
    expect(error.failure).toBe('timeout');
    expect(error.message).toBe('secret provider "vault" timed out after 300 ms');
    await new Promise((r) => setTimeout(r, 1800));
    await expect(readFile(marker)).rejects.toThrow();
  });

  it.each([
    [
      'not JSON',
      `process.stdout.write('DB_PASSWORD=hunter2-secret');`,
      'did not print a JSON object on standard output',
    ],
    ['nothing at all', ``, 'did not print a JSON object'],
    ['a list', `process.stdout.write('["hunter2-secret"]');`, 'printed JSON that is not an object (a list)'],
    ['null', `process.stdout.write('null');`, 'printed JSON that is not an object (null)'],
    [
      'a number value',
      `process.stdout.write('{"PIN": 1234, "X": "hunter2-secret"}');`,
      'printed a value that is not a string (for PIN: number)',
    ],
    [
      'a nested object',
      `process.stdout.write('{"DB": {"pw": "hunter2-secret"}}');`,
      'printed a value that is not a string (for DB: object)',
    ],
    [
      'a bad key',
      `process.stdout.write('{"hunter2-secret": "x"}');`,
      'printed a key that is not a variable name',
    ],
    [
      'a NUL',
      `process.stdout.write(JSON.stringify({ A: 'hunter2\\u0000secret' }));`,
      'printed a value with a NUL character (for A)',
    ],
  ])('output that is %s is an output error without its content', async (_, source, message) => {
    const error = await failure(resolveSecrets(await provider(source), opts()));
    expect(error.failure).toBe('output');
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses more output than the limit', async () => {
    const p = await provider(`process.stdout.write('{"A":"' + 'x'.repeat(10000) + '"}');`);
    const error = await failure(resolveSecrets(p, opts({ maxOutputBytes: 1000 })));
    expect(error.failure).toBe('output');
    expect(error.message).toBe('secret provider "vault" printed more than 1000 bytes');
  });

  it('a provider killed by a signal says so', async () => {
    const p = await provider(`process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 5000);`);
    const error = await failure(resolveSecrets(p, opts()));
    expect(error.message).toBe('secret provider "vault" was killed by SIGTERM');
  });
});
