import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StackVariable } from '../../src/stacks/contracts.js';
import { StacksError } from '../../src/stacks/errors.js';
import {
  composeHash,
  createStack,
  deleteStack,
  envHash,
  getStack,
  HASH_KEY_FILE,
  listStacks,
  loadHashKey,
  removeLeftovers,
  type StackRecording,
  saveCompose,
  setVariables,
  stackDir,
  stackExists,
  stackView,
  validateCompose,
} from '../../src/stacks/stack/store.js';
import { openStore } from '../../src/store/open.js';
import type { EventData, EventStore, RecordedEvent } from '../../src/store/types.js';
import { stackStream } from '../../streams/stacks.js';

const COMPOSE = 'services:\n  web:\n    image: nginx\n';
const VARS: StackVariable[] = [
  { name: 'PORT', value: '8080', secret: false },
  { name: 'DB_PASSWORD', value: 'p@ss "word"\n#2 $X', secret: true },
];

let dataDir: string;
let events: EventStore;
let rec: StackRecording;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stacks-store-'));
  events = await openStore('memory:');
  rec = { events, userId: 'alice' };
});
afterEach(async () => {
  await events.close();
  await rm(dataDir, { recursive: true, force: true });
});

const local = (name: string) => ({ name, environmentId: null });
const inEnv = (name: string, environmentId: number) => ({ name, environmentId });

async function streamEvents(stream: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of events.readStream(stream)) out.push(e);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<StacksError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StacksError);
  return error as StacksError;
}

/** A store whose appends fail: the files must end as they were. */
const failingAppends = (store: EventStore): EventStore =>
  new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'append')
        return (_stream: string, _events: readonly EventData[]) => Promise.reject(new Error('disk full'));
      return Reflect.get(target, key, receiver);
    },
  });

describe('stack store', () => {
  it('creates a stack as three files in <data>/stacks/local/<name> and reads it back', async () => {
    const created = await createStack(
      dataDir,
      local('web'),
      { compose: COMPOSE, variables: VARS, secretProvider: 'vault' },
      rec,
    );
    const dir = join(dataDir, 'stacks', 'local', 'web');
    expect(stackDir(dataDir, local('web'))).toBe(dir);
    expect((await readdir(dir)).sort()).toEqual(['.env', 'compose.yaml', 'stack.json']);
    expect(await readFile(join(dir, 'compose.yaml'), 'utf8')).toBe(COMPOSE);
    expect(await readFile(join(dir, '.env'), 'utf8')).toBe(
      // A value with a `$` is single-quoted: both Compose generations read it the same (env-file.ts).
      'PORT="8080"\nDB_PASSWORD=\'p@ss "word"\n#2 $X\'\n',
    );
    expect(JSON.parse(await readFile(join(dir, 'stack.json'), 'utf8'))).toEqual({
      version: 1,
      variables: [
        { name: 'PORT', secret: false },
        { name: 'DB_PASSWORD', secret: true },
      ],
      secretProvider: 'vault',
    });
    const read = await getStack(dataDir, local('web'));
    expect(read).toEqual(created);
    expect(read).toEqual({
      name: 'web',
      environmentId: null,
      compose: COMPOSE,
      secretProvider: 'vault',
      variables: VARS,
    });
    expect(await stackExists(dataDir, local('web'))).toBe(true);
  });

  it('records StackCreated with hashes, names and flags but never a value', async () => {
    await createStack(
      dataDir,
      inEnv('api', 3),
      { compose: COMPOSE, variables: VARS, secretProvider: null },
      rec,
    );
    const [created, ...rest] = await streamEvents(stackStream(3, 'api'));
    expect(rest).toEqual([]);
    expect(created?.stream).toBe('stack-3-api');
    expect(created?.type).toBe('StackCreated');
    expect(created?.data).toEqual({
      stack: 'api',
      environment_id: 3,
      compose_hash: composeHash(COMPOSE),
      env_hash: envHash(await loadHashKey(dataDir), VARS),
      variables: [
        { name: 'PORT', secret: false },
        { name: 'DB_PASSWORD', secret: true },
      ],
      secret_provider: null,
      user_id: 'alice',
    });
    expect(created?.metadata.userId).toBe('alice');
    expect(JSON.stringify(created)).not.toContain('8080');
    expect(JSON.stringify(created)).not.toContain('p@ss');
    expect(await readdir(join(dataDir, 'stacks', '3'))).toEqual(['api']);
  });

  it('refuses a taken name with 409 and leaves the first stack as it was', async () => {
    await createStack(
      dataDir,
      local('web'),
      { compose: COMPOSE, variables: VARS, secretProvider: null },
      rec,
    );
    const error = await failure(
      createStack(
        dataDir,
        local('web'),
        { compose: 'services: {}\n', variables: [], secretProvider: null },
        rec,
      ),
    );
    expect([error.status, error.message]).toEqual([409, 'Stack already exists']);
    expect((await getStack(dataDir, local('web'))).compose).toBe(COMPOSE);
    expect(await streamEvents(stackStream(null, 'web'))).toHaveLength(1);
  });

  it('two concurrent creates of one name: one wins, one gets 409', async () => {
    const results = await Promise.allSettled(
      ['a: 1\n', 'b: 2\n'].map((compose) =>
        createStack(dataDir, local('race'), { compose, variables: [], secretProvider: null }, rec),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as StacksError).status).toBe(409);
    expect(await readdir(join(dataDir, 'stacks', 'local'))).toEqual(['race']);
  });

  it('the same name in two environments is two stacks', async () => {
    await createStack(dataDir, local('web'), { compose: 'a: 1\n', variables: [], secretProvider: null }, rec);
    await createStack(
      dataDir,
      inEnv('web', 1),
      { compose: 'b: 2\n', variables: [], secretProvider: null },
      rec,
    );
    expect((await getStack(dataDir, local('web'))).compose).toBe('a: 1\n');
    expect((await getStack(dataDir, inEnv('web', 1))).compose).toBe('b: 2\n');
  });

  it('lists the stacks of one environment by name, skipping folders that are not stacks', async () => {
    for (const name of ['zeta', 'alpha'])
      await createStack(
        dataDir,
        local(name),
        { compose: COMPOSE, variables: VARS, secretProvider: null },
        rec,
      );
    await createStack(
      dataDir,
      inEnv('other', 2),
      { compose: COMPOSE, variables: [], secretProvider: null },
      rec,
    );
    const envDir = join(dataDir, 'stacks', 'local');
    await mkdir(join(envDir, 'empty-folder'));
    await mkdir(join(envDir, 'Bad Name'));
    await writeFile(join(envDir, 'Bad Name', 'compose.yaml'), COMPOSE);
    await mkdir(join(envDir, '.new-leftover'));
    expect(await listStacks(dataDir, null)).toEqual([
      {
        name: 'alpha',
        environmentId: null,
        secretProvider: null,
        variables: [
          { name: 'PORT', secret: false },
          { name: 'DB_PASSWORD', secret: true },
        ],
      },
      {
        name: 'zeta',
        environmentId: null,
        secretProvider: null,
        variables: [
          { name: 'PORT', secret: false },
          { name: 'DB_PASSWORD', secret: true },
        ],
      },
    ]);
    expect((await listStacks(dataDir, 2)).map((s) => s.name)).toEqual(['other']);
    expect(await listStacks(dataDir, 9)).toEqual([]);
  });

  it('a hand-made folder with only compose.yaml is a stack; unknown variables read as secret', async () => {
    const dir = join(dataDir, 'stacks', 'local', 'handmade');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'compose.yaml'), COMPOSE);
    await writeFile(join(dir, '.env'), 'TOKEN=abc\n');
    expect(await getStack(dataDir, local('handmade'))).toEqual({
      name: 'handmade',
      environmentId: null,
      compose: COMPOSE,
      secretProvider: null,
      variables: [{ name: 'TOKEN', value: 'abc', secret: true }],
    });
  });

  it('saves compose text atomically and records its hash', async () => {
    await createStack(
      dataDir,
      local('web'),
      { compose: COMPOSE, variables: VARS, secretProvider: null },
      rec,
    );
    const next = 'services:\n  web:\n    image: nginx:2\n';
    const saved = await saveCompose(dataDir, local('web'), next, rec);
    expect(saved.compose).toBe(next);
    expect(saved.variables).toEqual(VARS);
    expect(await readFile(join(dataDir, 'stacks', 'local', 'web', 'compose.yaml'), 'utf8')).toBe(next);
    expect(await readdir(join(dataDir, 'stacks', 'local', 'web'))).toHaveLength(3);
    const [, savedEvent] = await streamEvents('stack-local-web');
    expect(savedEvent?.type).toBe('StackComposeSaved');
    expect(savedEvent?.data).toEqual({
      stack: 'web',
      environment_id: null,
      compose_hash: composeHash(next),
      user_id: 'alice',
    });
  });

  it('sets variables: values in .env, flags in stack.json, an event without values', async () => {
    await createStack(
      dataDir,
      local('web'),
      { compose: COMPOSE, variables: VARS, secretProvider: 'vault' },
      rec,
    );
    const next: StackVariable[] = [{ name: 'API_KEY', value: 'k-123456', secret: true }];
    const stack = await setVariables(dataDir, local('web'), next, { events });
    expect(stack.variables).toEqual(next);
    expect(stack.secretProvider).toBe('vault');
    expect(await getStack(dataDir, local('web'))).toMatchObject({ variables: next, secretProvider: 'vault' });
    const [, set] = await streamEvents('stack-local-web');
    expect(set?.type).toBe('StackVariablesSet');
    expect(set?.data).toEqual({
      stack: 'web',
      environment_id: null,
      env_hash: envHash(await loadHashKey(dataDir), next),
      variables: [{ name: 'API_KEY', secret: true }],
      user_id: null,
    });
    expect(JSON.stringify(set)).not.toContain('k-123456');
  });

  it('deletes the folder, records it, and the name can be created again', async () => {
    await createStack(
      dataDir,
      local('web'),
      { compose: COMPOSE, variables: VARS, secretProvider: null },
      rec,
    );
    await deleteStack(dataDir, local('web'), rec);
    expect(await readdir(join(dataDir, 'stacks', 'local'))).toEqual([]);
    expect(await stackExists(dataDir, local('web'))).toBe(false);
    expect((await failure(getStack(dataDir, local('web')))).status).toBe(404);
    await createStack(dataDir, local('web'), { compose: 'x: 1\n', variables: [], secretProvider: null }, rec);
    expect((await streamEvents('stack-local-web')).map((e) => e.type)).toEqual([
      'StackCreated',
      'StackDeleted',
      'StackCreated',
    ]);
  });

  it('a missing stack is a 404 Stack not found for every operation', async () => {
    // Each operation started only when awaited: one made up front could reject before it is awaited.
    for (const op of [
      () => getStack(dataDir, local('ghost')),
      () => saveCompose(dataDir, local('ghost'), COMPOSE, rec),
      () => setVariables(dataDir, local('ghost'), [], rec),
      () => deleteStack(dataDir, local('ghost'), rec),
    ]) {
      const error = await failure(op());
      expect([error.status, error.message]).toEqual([404, 'Stack not found']);
    }
    expect(await streamEvents('stack-local-ghost')).toEqual([]);
  });

  it.each(['../evil', '..', 'a/b', 'Web', '', '.hidden', 'x'.repeat(64)])(
    'name %j is a 400 and touches nothing',
    async (name) => {
      const error = await failure(
        createStack(dataDir, local(name), { compose: COMPOSE, variables: [], secretProvider: null }, rec),
      );
      expect(error.status).toBe(400);
      expect((await failure(getStack(dataDir, local(name)))).status).toBe(400);
      expect(await readdir(dataDir)).toEqual([]);
    },
  );

  it('a non-integer environment id is refused before any path is made', async () => {
    const error = await failure(getStack(dataDir, { name: 'web', environmentId: 1.5 }));
    expect(error.status).toBe(400);
  });

  it.each([
    [
      'bad indentation',
      'services:\n  web:\n image: x\n  other: 1\n',
      /not valid YAML: .*line \d+, column \d+/,
    ],
    ['an unclosed flow', 'services: [web\n', /not valid YAML: Flow sequence .* at line 2, column 1$/],
    ['duplicate keys', 'a: 1\na: 2\n', /not valid YAML: Map keys must be unique at line 2, column 1/],
    ['a list', '- web\n', /must be a YAML mapping .*it is a list/],
    ['a scalar', 'just text\n', /must be a YAML mapping .*it is a string/],
    ['empty', '', /must be a YAML mapping .*it is empty/],
    ['two documents', 'a: 1\n---\nb: 2\n', /not valid YAML: Source contains multiple documents/],
  ])('compose that is %s is a 400 naming the problem', async (_, compose, message) => {
    const error = await failure(
      createStack(dataDir, local('web'), { compose, variables: [], secretProvider: null }, rec),
    );
    expect(error.status).toBe(400);
    expect(error.message).toMatch(message);
    expect(await readdir(dataDir)).toEqual([]);
    expect(() => validateCompose(compose)).toThrow(StacksError);
  });

  it('a bad compose save is a 400 and keeps the old file', async () => {
    await createStack(dataDir, local('web'), { compose: COMPOSE, variables: [], secretProvider: null }, rec);
    expect((await failure(saveCompose(dataDir, local('web'), '- not a mapping\n', rec))).status).toBe(400);
    expect((await getStack(dataDir, local('web'))).compose).toBe(COMPOSE);
  });

  it.each<[string, unknown, RegExp]>([
    ['not a list', { name: 'A' }, /variables must be a list/],
    [
      'a bad name',
      [{ name: '1A', value: 'x', secret: false }],
      /variables\[0\]\.name must be a variable name/,
    ],
    ['a name with =', [{ name: 'A=B', value: 'x', secret: false }], /variables\[0\]\.name/],
    [
      'a duplicate',
      [
        { name: 'A', value: 'x' },
        { name: 'A', value: 'y' },
      ],
      /variables\[1\]\.name: A is given twice/,
    ],
    ['a number value', [{ name: 'A', value: 5 }], /variables\[0\]\.value \(A\) must be a string/],
    ['a NUL', [{ name: 'A', value: 'a\0b' }], /must not contain a NUL/],
    [
      'a string secret flag',
      [{ name: 'A', value: 'x', secret: 'yes' }],
      /variables\[0\]\.secret \(A\) must be true or false/,
    ],
  ])('variables with %s are a 400', async (_, variables, message) => {
    const error = await failure(
      createStack(
        dataDir,
        local('web'),
        { compose: COMPOSE, variables: variables as StackVariable[], secretProvider: null },
        rec,
      ),
    );
    expect(error.status).toBe(400);
    expect(error.message).toMatch(message);
  });

  it('when the event cannot be recorded, create leaves no folder', async () => {
    const broken = { events: failingAppends(events) };
    await expect(
      createStack(dataDir, local('web'), { compose: COMPOSE, variables: VARS, secretProvider: null }, broken),
    ).rejects.toThrow('disk full');
    expect(await readdir(join(dataDir, 'stacks', 'local'))).toEqual([]);
  });

  it('when the event cannot be recorded, compose, variables and delete are put back', async () => {
    await createStack(
      dataDir,
      local('web'),
      { compose: COMPOSE, variables: VARS, secretProvider: 'vault' },
      rec,
    );
    const dir = join(dataDir, 'stacks', 'local', 'web');
    const before = Object.fromEntries(
      await Promise.all(
        ['compose.yaml', '.env', 'stack.json'].map(async (f) => [f, await readFile(join(dir, f), 'utf8')]),
      ),
    );
    const broken = { events: failingAppends(events) };
    await expect(saveCompose(dataDir, local('web'), 'other: 1\n', broken)).rejects.toThrow('disk full');
    await expect(
      setVariables(dataDir, local('web'), [{ name: 'X', value: 'y', secret: false }], broken),
    ).rejects.toThrow('disk full');
    await expect(deleteStack(dataDir, local('web'), broken)).rejects.toThrow('disk full');
    for (const [file, text] of Object.entries(before))
      expect(await readFile(join(dir, file), 'utf8')).toBe(text);
    expect((await readdir(dir)).sort()).toEqual(['.env', 'compose.yaml', 'stack.json']);
    expect(await readdir(join(dataDir, 'stacks', 'local'))).toEqual(['web']);
    expect(await streamEvents('stack-local-web')).toHaveLength(1);
  });

  it('concurrent mutations of one stack are serialised: the last write wins in files and events', async () => {
    await createStack(dataDir, local('web'), { compose: COMPOSE, variables: [], secretProvider: null }, rec);
    const texts = Array.from({ length: 10 }, (_, i) => `n: ${i}\n`);
    await Promise.all(texts.map((t) => saveCompose(dataDir, local('web'), t, rec)));
    const saved = (await streamEvents('stack-local-web')).slice(1);
    expect(saved.map((e) => (e.data as { compose_hash: string }).compose_hash)).toEqual(
      texts.map(composeHash),
    );
    expect((await getStack(dataDir, local('web'))).compose).toBe('n: 9\n');
  });
});

describe('hashes', () => {
  it('envHash ignores order and flags, and changes with any value', () => {
    const key = Buffer.alloc(32, 7);
    const a = [
      { name: 'A', value: '1', secret: false },
      { name: 'B', value: '2', secret: true },
    ];
    expect(envHash(key, a)).toBe(envHash(key, [...a].reverse()));
    expect(envHash(key, a)).toBe(
      envHash(
        key,
        a.map((v) => ({ ...v, secret: !v.secret })),
      ),
    );
    expect(envHash(key, a)).not.toBe(
      envHash(key, [
        { name: 'A', value: '1 ' },
        { name: 'B', value: '2' },
      ]),
    );
    // No ambiguity between names and values.
    expect(envHash(key, [{ name: 'A', value: 'B=1' }])).not.toBe(envHash(key, [{ name: 'A=B', value: '1' }]));
    expect(envHash(key, [])).toMatch(/^[0-9a-f]{64}$/);
  });

  it('envHash is keyed: another key gives another hash, so a short value cannot be guessed from it', () => {
    const vars = [{ name: 'PIN', value: '1234' }];
    expect(envHash(Buffer.alloc(32, 1), vars)).not.toBe(envHash(Buffer.alloc(32, 2), vars));
  });

  it('the hash key is made once in <data>/stacks/.hash-key with mode 0600, and read back after', async () => {
    const key = await loadHashKey(dataDir);
    expect(key.length).toBe(32);
    const file = join(dataDir, 'stacks', HASH_KEY_FILE);
    expect(await readFile(file)).toEqual(key);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadHashKey(dataDir)).toEqual(key);
    // removeLeftovers walks the environment folders and leaves the key file alone.
    expect(await removeLeftovers(dataDir)).toBe(0);
    expect(await readFile(file)).toEqual(key);
  });

  it('composeHash is the sha256 hex of the text', () => {
    expect(composeHash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('views and repair', () => {
  it('stackView hides secret values and keeps the others', async () => {
    const stack = await createStack(
      dataDir,
      local('web'),
      { compose: COMPOSE, variables: VARS, secretProvider: null },
      rec,
    );
    expect(stackView(stack)).toEqual({
      name: 'web',
      environmentId: null,
      compose: COMPOSE,
      composeHash: composeHash(COMPOSE),
      secretProvider: null,
      variables: [
        { name: 'PORT', secret: false, value: '8080' },
        { name: 'DB_PASSWORD', secret: true, value: null },
      ],
    });
  });

  it('removeLeftovers removes only interrupted creates and deletes', async () => {
    await createStack(dataDir, local('web'), { compose: COMPOSE, variables: [], secretProvider: null }, rec);
    const envDir = join(dataDir, 'stacks', 'local');
    await mkdir(join(envDir, `.new-${randomUUID()}`));
    await mkdir(join(envDir, `.deleted-${randomUUID()}`, 'inner'), { recursive: true });
    await mkdir(join(envDir, '.keep-me'));
    expect(await removeLeftovers(dataDir)).toBe(2);
    expect((await readdir(envDir)).sort()).toEqual(['.keep-me', 'web']);
    expect(await removeLeftovers(join(dataDir, 'nothing-here'))).toBe(0);
  });

  it('a corrupt stack.json is a 500 naming the file; a plain file in place of a folder is no stack', async () => {
    await createStack(dataDir, local('web'), { compose: COMPOSE, variables: [], secretProvider: null }, rec);
    await writeFile(join(dataDir, 'stacks', 'local', 'web', 'stack.json'), '{ nope');
    const error = await failure(getStack(dataDir, local('web')));
    expect(error.status).toBe(500);
    expect(error.message).toMatch(/stack\.json .* is not valid JSON/);
    await writeFile(join(dataDir, 'stacks', 'local', 'file'), 'x');
    expect((await failure(getStack(dataDir, local('file')))).status).toBe(404);
  });
});
