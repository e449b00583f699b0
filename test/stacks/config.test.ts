import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminTokenNotice,
  ConfigError,
  findEnvironment,
  loadStacksConfig,
  resolveStacksConfig,
} from '../../src/stacks/config/stacks-config.js';
import { PROTOTYPE_NAMES, withPrototypeNames } from '../fuzz-names.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacks-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const writeConfig = async (name: string, content: string) => {
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
};

/** The ConfigError's message for this config value. */
const problem = (raw: unknown): string => {
  try {
    resolveStacksConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
};

const CONTRACT_EXAMPLE = {
  environments: [{ id: 1, name: 'edge', dockerHost: 'tcp://10.0.0.5:2375' }],
  users: [
    { name: 'admin', token: 't-admin', admin: true },
    {
      name: 'viewer',
      token: 't-view',
      grants: [{ resource: 'stacks', actions: ['view'], environments: [null, 1] }],
      environmentAccess: [1],
    },
  ],
  compose: { command: ['docker', 'compose'] },
  secretProviders: { vault: { command: ['./print-secrets.sh'] } },
  deployLogs: { budgetBytes: 2147483648, remeasureBytes: 1048576 },
  jobs: { timeoutSeconds: 3600, retentionHours: 24 },
};

describe('loadStacksConfig', () => {
  it('reads the example of CONTRACT.md as written', async () => {
    const file = await writeConfig('contract.json', JSON.stringify(CONTRACT_EXAMPLE));
    const { config, generatedAdminToken } = await loadStacksConfig(file);
    expect(generatedAdminToken).toBeUndefined();
    expect(config.environments).toEqual([{ id: 1, name: 'edge', dockerHost: 'tcp://10.0.0.5:2375' }]);
    expect(config.users).toEqual([
      { name: 'admin', token: 't-admin', admin: true, grants: [], environmentAccess: [] },
      {
        name: 'viewer',
        token: 't-view',
        admin: false,
        grants: [{ resource: 'stacks', actions: ['view'], environments: [null, 1] }],
        environmentAccess: [1],
      },
    ]);
    // A relative provider program is the config file's neighbour.
    expect(config.secretProviders).toEqual(
      new Map([['vault', { command: [join(dirname(file), 'print-secrets.sh')] }]]),
    );
    expect(config.compose.command).toEqual(['docker', 'compose']);
    expect(config.deployLogs).toEqual({ budgetBytes: 2147483648, remeasureBytes: 1048576 });
    expect(config.jobs).toEqual({ timeoutSeconds: 3600, retentionHours: 24, maxConcurrent: 4 });
    expect(findEnvironment(config, 1)?.name).toBe('edge');
    expect(findEnvironment(config, 2)).toBeUndefined();
  });

  it('a provider program given by a relative path is found beside the config file; a bare name stays a PATH name', async () => {
    const providers = {
      dotted: { command: ['./print-secrets.sh', '--env', 'prod'] },
      nested: { command: ['bin/vault'] },
      bare: { command: ['vault', './not-a-program'] },
      absolute: { command: ['/usr/local/bin/vault'], environments: [null] },
    };
    const file = await writeConfig('relative.json', JSON.stringify({ secretProviders: providers }));
    const { config } = await loadStacksConfig(file);
    const folder = dirname(file);
    expect(config.secretProviders).toEqual(
      new Map([
        ['dotted', { command: [join(folder, 'print-secrets.sh'), '--env', 'prod'] }],
        ['nested', { command: [join(folder, 'bin', 'vault')] }],
        ['bare', { command: ['vault', './not-a-program'] }],
        ['absolute', { command: ['/usr/local/bin/vault'], environments: [null] }],
      ]),
    );
  });

  it('without a file: the defaults and one admin with a fresh random token', async () => {
    const a = await loadStacksConfig(undefined);
    const b = await loadStacksConfig(undefined);
    expect(a.config.environments).toEqual([]);
    // Not configured: found at start by trying `docker compose`, then `docker-compose`.
    expect(a.config.compose.command).toBeNull();
    expect(a.config.secretProviders).toEqual(new Map());
    expect(a.config.deployLogs).toEqual({ budgetBytes: 2 * 1024 ** 3, remeasureBytes: 1024 ** 2 });
    expect(a.config.jobs).toEqual({ timeoutSeconds: 3600, retentionHours: 24, maxConcurrent: 4 });
    expect(a.generatedAdminToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.config.users).toEqual([
      { name: 'admin', token: a.generatedAdminToken, admin: true, grants: [], environmentAccess: '*' },
    ]);
    expect(b.generatedAdminToken).not.toBe(a.generatedAdminToken);
    expect(adminTokenNotice('abc')).toBe('stacks admin token: abc');
  });

  it('a file without users also gets a generated admin; its other keys are kept', async () => {
    const file = await writeConfig(
      'nousers.json',
      JSON.stringify({ compose: { command: ['podman-compose'] } }),
    );
    const { config, generatedAdminToken } = await loadStacksConfig(file);
    expect(generatedAdminToken).toBeDefined();
    expect(config.users).toHaveLength(1);
    expect(config.users[0]?.admin).toBe(true);
    expect(config.compose.command).toEqual(['podman-compose']);
  });

  it('an empty object means all defaults; partial sections keep the other defaults', () => {
    const { config } = resolveStacksConfig({
      users: [{ name: 'u', token: 'x' }],
      deployLogs: { budgetBytes: 1000 },
      jobs: { retentionHours: 0 },
    });
    expect(config.deployLogs).toEqual({ budgetBytes: 1000, remeasureBytes: 1024 ** 2 });
    expect(config.jobs).toEqual({ timeoutSeconds: 3600, retentionHours: 0, maxConcurrent: 4 });
    expect(config.users[0]).toEqual({
      name: 'u',
      token: 'x',
      admin: false,
      grants: [],
      environmentAccess: [],
    });
  });

  it('a missing file, a folder and a non-JSON file are ConfigErrors naming the file', async () => {
    const missing = join(dir, 'nope.json');
    await expect(loadStacksConfig(missing)).rejects.toThrow(
      new ConfigError(`cannot read the stacks config file ${missing}: no such file`, missing),
    );
    await expect(loadStacksConfig(dir)).rejects.toThrow(/it is a folder/);
    const bad = await writeConfig('bad.json', '{ "users": [ }');
    const error = await loadStacksConfig(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/bad\.json is not JSON/);
    expect((error as ConfigError).file).toBe(bad);
  });

  it('a shape error from a file names the file and the key', async () => {
    const file = await writeConfig('shape.json', JSON.stringify({ users: [{ name: 'a', token: '' }] }));
    await expect(loadStacksConfig(file)).rejects.toThrow(
      `invalid stacks config (${file}):\nconfig users[0].token must be a non-empty string`,
    );
  });
});

describe('resolveStacksConfig validation', () => {
  const user = (extra: Record<string, unknown> = {}) => ({ name: 'u', token: 'tok', ...extra });

  it.each<[string, unknown, string]>([
    ['top level not an object', [], 'config must be a JSON object'],
    ['top level null', null, 'config must be a JSON object'],
    ['unknown top-level key', { user: [] }, 'config has unknown key "user"'],
    ['users not a list', { users: {} }, 'config users must be a list of users'],
    ['user not an object', { users: ['x'] }, 'config users[0] must be an object'],
    ['user unknown key', { users: [user({ tokn: 'x' })] }, 'config users[0] has unknown key "tokn"'],
    [
      'empty token',
      { users: [user(), user({ name: 'v', token: '' })] },
      'config users[1].token must be a non-empty string',
    ],
    [
      'token not a string',
      { users: [user({ token: 5 })] },
      'config users[0].token must be a non-empty string',
    ],
    [
      'token with a space',
      { users: [user({ token: 'a b' })] },
      'config users[0].token must be printable ASCII',
    ],
    ['missing name', { users: [{ token: 't' }] }, 'config users[0].name must be a non-empty string'],
    ['admin not boolean', { users: [user({ admin: 'yes' })] }, 'config users[0].admin must be true or false'],
    [
      'grants not a list',
      { users: [user({ grants: {} })] },
      'config users[0].grants must be a list of grants',
    ],
    [
      'grant environments a string',
      { users: [user({ grants: [{ resource: 'stacks', actions: ['view'], environments: 'all' }] })] },
      'config users[0].grants[0].environments must be "*" or a list of environment ids (null = local)',
    ],
    [
      'grant environments with a float',
      { users: [user({ grants: [{ resource: 'stacks', actions: ['view'], environments: [1.5] }] })] },
      'config users[0].grants[0].environments must be "*" or a list',
    ],
    [
      'unknown stacks action',
      { users: [user({ grants: [{ resource: 'stacks', actions: ['view', 'veiw'] }] })] },
      'config users[0].grants[0].actions[1] must be "view" or "edit"',
    ],
    [
      'grant without resource',
      { users: [user({ grants: [{ actions: ['view'] }] })] },
      'config users[0].grants[0].resource must be a non-empty string',
    ],
    [
      'environmentAccess with null',
      { users: [user({ environmentAccess: [null] })] },
      'config users[0].environmentAccess must be "*" or a list of environment ids',
    ],
    [
      'environment id a string',
      { environments: [{ id: '1', name: 'e' }] },
      'config environments[0].id must be an integer',
    ],
    [
      'environment id a float',
      { environments: [{ id: 1.5, name: 'e' }] },
      'config environments[0].id must be an integer',
    ],
    [
      'environment without name',
      { environments: [{ id: 1 }] },
      'config environments[0].name must be a non-empty string',
    ],
    [
      'security with an unknown key',
      { environments: [{ id: 1, name: 'e', security: { privilege: true } }] },
      'config environments[0].security has unknown key "privilege"',
    ],
    [
      'security composePaths of another word',
      { environments: [{ id: 1, name: 'e', security: { composePaths: 'anywhere' } }] },
      'config environments[0].security.composePaths must be "stack" or "unrestricted"',
    ],
    [
      'security bindMounts with a relative folder',
      { localEnvironmentSecurity: { bindMounts: ['srv'] } },
      'config localEnvironmentSecurity.bindMounts[0] must be an absolute folder path',
    ],
    [
      'security bindMounts true',
      { localEnvironmentSecurity: { bindMounts: true } },
      'config localEnvironmentSecurity.bindMounts must be false or a list of absolute folder paths',
    ],
    [
      'compose command empty',
      { compose: { command: [] } },
      'config compose.command must be a non-empty list of strings',
    ],
    [
      'compose command a string',
      { compose: { command: 'docker compose' } },
      'config compose.command must be a non-empty list',
    ],
    [
      'compose command empty item',
      { compose: { command: ['docker', ''] } },
      'config compose.command[1] must be a non-empty string',
    ],
    [
      'provider without command',
      { secretProviders: { 'my vault': {} } },
      'config secretProviders["my vault"].command must be a non-empty list of strings',
    ],
    [
      'providers a list',
      { secretProviders: [] },
      'config secretProviders must be an object of provider name',
    ],
    [
      'provider environments a number',
      { secretProviders: { vault: { command: ['v'], environments: 1 } } },
      'config secretProviders.vault.environments must be "*" or a list of environment ids (null = local)',
    ],
    [
      'provider environment not configured',
      {
        environments: [{ id: 1, name: 'edge' }],
        secretProviders: { 'my vault': { command: ['v'], environments: [1, 7] } },
      },
      'config secretProviders["my vault"].environments[1] is 7, which is not a configured environment',
    ],
    [
      'budget zero',
      { deployLogs: { budgetBytes: 0 } },
      'config deployLogs.budgetBytes must be a positive integer (bytes)',
    ],
    [
      'budget a float',
      { deployLogs: { budgetBytes: 1.5 } },
      'config deployLogs.budgetBytes must be a positive integer',
    ],
    [
      'remeasure a string',
      { deployLogs: { remeasureBytes: '1' } },
      'config deployLogs.remeasureBytes must be a positive integer',
    ],
    [
      'timeout zero',
      { jobs: { timeoutSeconds: 0 } },
      'config jobs.timeoutSeconds must be a positive number of seconds',
    ],
    [
      'retention negative',
      { jobs: { retentionHours: -1 } },
      'config jobs.retentionHours must be a number of hours, 0 or more',
    ],
    [
      'max concurrent zero',
      { jobs: { maxConcurrent: 0 } },
      'config jobs.maxConcurrent must be a whole number of compose jobs, 1 or more',
    ],
    [
      'max concurrent a fraction',
      { jobs: { maxConcurrent: 1.5 } },
      'config jobs.maxConcurrent must be a whole number of compose jobs, 1 or more',
    ],
    [
      'max concurrent a string',
      { jobs: { maxConcurrent: '4' } },
      'config jobs.maxConcurrent must be a whole number of compose jobs, 1 or more',
    ],
    [
      'max concurrent too many',
      { jobs: { maxConcurrent: 1001 } },
      'config jobs.maxConcurrent must be at most 1000 compose jobs',
    ],
    [
      'duplicate tokens',
      {
        users: [user({ name: 'a', token: 'same' }), user({ name: 'b' }), user({ name: 'c', token: 'same' })],
      },
      'config users[2].token duplicates users[0].token',
    ],
    [
      'duplicate user names',
      { users: [user(), user({ token: 'other' })] },
      'config users[1].name duplicates users[0].name',
    ],
    [
      'duplicate environment ids',
      {
        environments: [
          { id: 1, name: 'a' },
          { id: 1, name: 'b' },
        ],
      },
      'config environments[1].id duplicates environments[0].id',
    ],
    [
      'duplicate environment names',
      {
        environments: [
          { id: 1, name: 'a' },
          { id: 2, name: 'a' },
        ],
      },
      'config environments[1].name duplicates environments[0].name',
    ],
    [
      'grant naming an unknown environment',
      { users: [user({ grants: [{ resource: 'stacks', actions: ['view'], environments: [null, 3] }] })] },
      'config users[0].grants[0].environments[1] is 3, which is not a configured environment',
    ],
    [
      'access to an unknown environment',
      { environments: [{ id: 1, name: 'a' }], users: [user({ environmentAccess: [1, 2] })] },
      'config users[0].environmentAccess[1] is 2, which is not a configured environment',
    ],
  ])('%s', (_, raw, message) => {
    expect(problem(raw)).toContain(message);
  });

  it('lists every problem, one per line, and never prints a token', () => {
    const message = problem({
      users: [
        { name: 'a', token: 'secret-token-1' },
        { name: 'b', token: 'secret-token-1', admin: 1 },
      ],
    });
    expect(message.split('\n').slice(1)).toEqual(['config users[1].admin must be true or false']);
    const duplicates = problem({
      users: [
        { name: 'a', token: 'secret-token-1' },
        { name: 'b', token: 'secret-token-1' },
      ],
    });
    expect(duplicates).not.toContain('secret-token-1');
    const two = problem({ users: [{ name: '', token: '' }] });
    expect(two.split('\n').slice(1)).toEqual([
      'config users[0].name must be a non-empty string',
      'config users[0].token must be a non-empty string',
    ]);
  });

  it('security settings: given ones kept, the others default; absent: none (the defaults apply)', () => {
    const { config } = resolveStacksConfig({
      environments: [
        { id: 1, name: 'a', security: { composePaths: 'unrestricted', bindMounts: ['/srv'], capAdd: true } },
        { id: 2, name: 'b' },
      ],
      localEnvironmentSecurity: { privileged: true },
    });
    expect(config.environments[0]?.security).toEqual({
      composePaths: 'unrestricted',
      bindMounts: ['/srv'],
      privileged: false,
      hostNamespaces: false,
      devices: false,
      capAdd: true,
      sysctls: false,
    });
    expect(config.environments[1]?.security).toBeUndefined();
    expect(config.localSecurity).toMatchObject({
      composePaths: 'stack',
      bindMounts: false,
      privileged: true,
    });
  });

  it('accepts "*" grants, absent grant environments, other resources and a zero environment id', () => {
    const { config } = resolveStacksConfig({
      environments: [{ id: 0, name: 'zero' }],
      users: [
        {
          name: 'u',
          token: 't',
          grants: [
            { resource: 'stacks', actions: ['view', 'edit'], environments: '*' },
            { resource: 'stacks', actions: ['edit'] },
            { resource: 'schedules', actions: ['run'] },
          ],
          environmentAccess: '*',
        },
      ],
    });
    expect(config.users[0]?.grants).toEqual([
      { resource: 'stacks', actions: ['view', 'edit'], environments: '*' },
      { resource: 'stacks', actions: ['edit'] },
      { resource: 'schedules', actions: ['run'] },
    ]);
    expect(config.users[0]?.environmentAccess).toBe('*');
  });

  it('provider names are keys like any other; only __proto__, which JSON cannot carry safely, is refused', () => {
    // From JSON text, as a config file is read: `__proto__` is then an own key of the parsed object.
    const config = (providers: Record<string, string[]>) =>
      JSON.parse(
        `{"secretProviders": {${Object.entries(providers)
          .map(([name, command]) => `${JSON.stringify(name)}: {"command": ${JSON.stringify(command)}}`)
          .join(', ')}}}`,
      ) as unknown;
    fc.assert(
      fc.property(
        fc.uniqueArray(withPrototypeNames(fc.string({ minLength: 1, maxLength: 12 })), { maxLength: 6 }),
        (names) => {
          const providers = Object.fromEntries(names.map((name, i) => [name, [`./provider-${i}`]]));
          const raw = config(providers);
          if (names.includes('__proto__')) {
            expect(problem(raw)).toContain('config secretProviders["__proto__"] cannot name a provider');
            return;
          }
          const resolved = resolveStacksConfig(raw).config.secretProviders;
          // As sorted sets: an object puts integer-like keys first, whatever their order in the text.
          expect([...resolved.keys()].sort()).toEqual([...names].sort());
          for (const [name, command] of Object.entries(providers))
            expect(resolved.get(name)).toEqual({ command });
          for (const name of PROTOTYPE_NAMES)
            if (!names.includes(name)) expect(resolved.get(name), name).toBeUndefined();
        },
      ),
    );
  });

  it('top-level and nested keys named after prototype properties are unknown keys', () => {
    for (const name of PROTOTYPE_NAMES) {
      expect(problem(JSON.parse(`{${JSON.stringify(name)}: {}}`))).toContain(
        `config has unknown key ${JSON.stringify(name)}`,
      );
      expect(problem(JSON.parse(`{"jobs": {${JSON.stringify(name)}: 1}}`))).toContain(
        `config jobs has unknown key ${JSON.stringify(name)}`,
      );
    }
  });
});

describe('grants reaching the local environment through the global check', () => {
  const environments = [{ id: 1, name: 'edge' }];
  const users = [
    { name: 'admin', token: 't-a', admin: true },
    {
      name: 'edge-editor',
      token: 't-e',
      grants: [{ resource: 'stacks', actions: ['view', 'edit'], environments: [1] }],
    },
    {
      name: 'local-viewer',
      token: 't-l',
      grants: [{ resource: 'stacks', actions: ['view'], environments: [null] }],
    },
    {
      name: 'everywhere',
      token: 't-s',
      grants: [{ resource: 'stacks', actions: ['view'], environments: '*' }],
    },
    { name: 'global', token: 't-g', grants: [{ resource: 'stacks', actions: ['view'] }] },
    { name: 'other', token: 't-o', grants: [{ resource: 'schedules', actions: ['view'] }] },
  ];

  it('warns of each user and action that reaches it only through the rule, naming the grants', () => {
    expect(resolveStacksConfig({ environments, users }).warnings).toEqual([
      'config users[1] (edge-editor) may view the local environment\'s stacks only through the rule that the local environment uses the global check: grants[0] (environments [1]); list null in a grant\'s environments to mean it, or set "localEnvironment": "explicit"',
      'config users[1] (edge-editor) may edit the local environment\'s stacks only through the rule that the local environment uses the global check: grants[0] (environments [1]); list null in a grant\'s environments to mean it, or set "localEnvironment": "explicit"',
      'config users[4] (global) may view the local environment\'s stacks only through the rule that the local environment uses the global check: grants[0] (no environments); list null in a grant\'s environments to mean it, or set "localEnvironment": "explicit"',
    ]);
  });

  it('says nothing under "localEnvironment": "explicit", nor for a config without such grants', () => {
    expect(resolveStacksConfig({ environments, users, localEnvironment: 'explicit' }).warnings).toEqual([]);
    expect(resolveStacksConfig({}).warnings).toEqual([]);
  });

  it('refuses another value', () => {
    expect(problem({ localEnvironment: 'strict' })).toContain(
      'config localEnvironment must be "global" (the default) or "explicit"',
    );
  });
});
