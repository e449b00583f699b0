import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeArgv, composeEnv } from '../../src/stacks/compose-args.js';
import { PROTOTYPE_NAMES, withPrototypeNames } from '../fuzz-names.js';

const target = {
  command: ['docker', 'compose'],
  project: 'web',
  composeFile: '/data/stacks/local/web/compose.yaml',
};
const base = ['docker', 'compose', '--project-name', 'web', '--file', '/data/stacks/local/web/compose.yaml'];

describe('composeArgv', () => {
  it('up without options', () => {
    expect(composeArgv(target, 'up', { pull: false, build: false, forceRecreate: false })).toEqual([
      ...base,
      'up',
      '--detach',
      '--remove-orphans',
    ]);
    expect(composeArgv(target, 'up')).toEqual([...base, 'up', '--detach', '--remove-orphans']);
  });

  it('up with every option, in the contract order', () => {
    expect(composeArgv(target, 'up', { pull: true, build: true, forceRecreate: true })).toEqual([
      ...base,
      'up',
      '--detach',
      '--remove-orphans',
      '--pull',
      'always',
      '--build',
      '--force-recreate',
    ]);
    expect(composeArgv(target, 'up', { pull: false, build: true, forceRecreate: false }).slice(-1)).toEqual([
      '--build',
    ]);
  });

  it('other operations take no up flags, even with options', () => {
    for (const op of ['stop', 'start', 'restart', 'down'] as const) {
      expect(composeArgv(target, op, { pull: true, build: true, forceRecreate: true })).toEqual([
        ...base,
        op,
      ]);
    }
  });

  it('a multi-word command (node + script) stays in front', () => {
    expect(composeArgv({ ...target, command: ['/usr/bin/node', '/x/fake.mjs'] }, 'stop').slice(0, 3)).toEqual(
      ['/usr/bin/node', '/x/fake.mjs', '--project-name'],
    );
  });

  it('an empty command is an error', () => {
    expect(() => composeArgv({ ...target, command: [] }, 'up')).toThrow(/compose.command/);
  });
});

describe('composeEnv', () => {
  const vars = [
    { name: 'A', value: 'from-var', secret: false },
    { name: 'DOCKER_HOST', value: 'tcp://var:2375', secret: false },
    { name: 'S', value: 'var-secret', secret: true },
  ];

  it('layers process env, variables, provider secrets, then the environment DOCKER_HOST', () => {
    const env = composeEnv(
      { PATH: '/bin', A: 'from-process', GONE: undefined },
      vars,
      { S: 'provider-secret', P: 'p' },
      { id: 1, name: 'prod', dockerHost: 'ssh://prod' },
    );
    expect(env).toEqual({
      PATH: '/bin',
      A: 'from-var',
      DOCKER_HOST: 'ssh://prod',
      S: 'provider-secret',
      P: 'p',
    });
    expect('GONE' in env).toBe(false);
  });

  it('keeps variables and provider keys named after Object.prototype properties (property)', () => {
    const name = withPrototypeNames(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/));
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { maxLength: 6 }),
        fc.uniqueArray(name, { maxLength: 4 }),
        (variableNames, providerKeys) => {
          const variables = variableNames.map((n) => ({ name: n, value: `var-${n}`, secret: false }));
          // Parsed JSON, as a provider's output is: `__proto__` is an own key there.
          const secrets = JSON.parse(
            `{${providerKeys.map((k) => `${JSON.stringify(k)}: ${JSON.stringify(`secret-${k}`)}`).join(',')}}`,
          ) as Record<string, string>;
          const env = composeEnv({ PATH: '/bin' }, variables, secrets, null);
          const expected = new Map<string, string>([['PATH', '/bin']]);
          for (const v of variables) expected.set(v.name, v.value);
          for (const k of providerKeys) expected.set(k, `secret-${k}`);
          expect(new Map(Object.entries(env))).toEqual(expected);
          for (const n of PROTOTYPE_NAMES) if (!expected.has(n)) expect(Object.hasOwn(env, n), n).toBe(false);
        },
      ),
    );
  });

  it('without a dockerHost the variables and process DOCKER_HOST stay', () => {
    expect(composeEnv({ DOCKER_HOST: 'unix:///p' }, [], {}, null).DOCKER_HOST).toBe('unix:///p');
    expect(composeEnv({ DOCKER_HOST: 'unix:///p' }, vars, {}, { id: 2, name: 'x' }).DOCKER_HOST).toBe(
      'tcp://var:2375',
    );
  });
});
