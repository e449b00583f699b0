import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  composeEnv,
  composeSteps,
  DEFAULT_DOCKER_HOST,
  fallbackStep,
  isNoContainerToStartLine,
  isUsageLine,
  isWaitFailureLine,
} from '../../src/stacks/compose/args.js';
import { isRefusedVariableName } from '../../src/stacks/compose/variable-names.js';
import { PROTOTYPE_NAMES, withPrototypeNames } from '../fuzz-names.js';

const v2 = {
  command: ['docker', 'compose'],
  generation: 'v2' as const,
  project: 'web',
  composeFile: '/data/stacks/local/web/compose.yaml',
};
const v1 = { ...v2, command: ['docker-compose'], generation: 'v1' as const };
const base = ['docker', 'compose', '--project-name', 'web', '--file', '/data/stacks/local/web/compose.yaml'];
const base1 = ['docker-compose', ...base.slice(2)];
const argvs = (steps: ReturnType<typeof composeSteps>) => steps.map((s) => s.argv);

describe('composeSteps', () => {
  it('up without options: one step, the same for both generations but the command', () => {
    expect(composeSteps(v2, 'up', { pull: false, build: false, forceRecreate: false })).toEqual([
      { subcommand: 'up', argv: [...base, 'up', '--detach', '--remove-orphans'] },
    ]);
    expect(argvs(composeSteps(v2, 'up'))).toEqual([[...base, 'up', '--detach', '--remove-orphans']]);
    expect(argvs(composeSteps(v1, 'up'))).toEqual([[...base1, 'up', '--detach', '--remove-orphans']]);
  });

  it('v2 up with every option, in the contract order', () => {
    expect(argvs(composeSteps(v2, 'up', { pull: true, build: true, forceRecreate: true }))).toEqual([
      [...base, 'up', '--detach', '--remove-orphans', '--pull', 'always', '--build', '--force-recreate'],
    ]);
    expect(
      argvs(composeSteps(v2, 'up', { pull: false, build: true, forceRecreate: false }))[0]?.slice(-1),
    ).toEqual(['--build']);
  });

  it('v2 up waits for its services for the time given; v1 has no --wait', () => {
    expect(argvs(composeSteps(v2, 'up', { pull: true, build: false, forceRecreate: false }, 3600))).toEqual([
      [...base, 'up', '--detach', '--remove-orphans', '--pull', 'always', '--wait', '--wait-timeout', '3600'],
    ]);
    expect(argvs(composeSteps(v1, 'up', undefined, 3600))).toEqual([
      [...base1, 'up', '--detach', '--remove-orphans'],
    ]);
    expect(argvs(composeSteps(v2, 'stop', undefined, 3600))).toEqual([[...base, 'stop']]);
  });

  it("v2's `up --wait` giving up on a container is told from compose's own failures", () => {
    for (const line of [
      'container web-app-1 exited (3)',
      'container web-web-1 is unhealthy',
      'application not healthy after 30s',
    ])
      expect(isWaitFailureLine(line), line).toBe(true);
    for (const line of [
      'Error response from daemon: pull access denied',
      'service "app" refers to undefined network',
      ' Container web-app-1  Exited',
    ])
      expect(isWaitFailureLine(line), line).toBe(false);
  });

  it('v1 pull is given the services with an image and no build; none: no pull step', () => {
    const all = { pull: true, build: false, forceRecreate: false };
    expect(argvs(composeSteps({ ...v1, pullable: ['web', 'db'] }, 'up', all))).toEqual([
      [...base1, 'pull', 'web', 'db'],
      [...base1, 'up', '--detach', '--remove-orphans'],
    ]);
    expect(argvs(composeSteps({ ...v1, pullable: [] }, 'up', all))).toEqual([
      [...base1, 'up', '--detach', '--remove-orphans'],
    ]);
  });

  it('v1 up with pull: `pull` first, then `up` without --pull (v1 has no such flag)', () => {
    expect(composeSteps(v1, 'up', { pull: true, build: true, forceRecreate: true })).toEqual([
      { subcommand: 'pull', argv: [...base1, 'pull'] },
      {
        subcommand: 'up',
        argv: [...base1, 'up', '--detach', '--remove-orphans', '--build', '--force-recreate'],
      },
    ]);
    for (const steps of [composeSteps(v1, 'up', { pull: true, build: false, forceRecreate: false })])
      expect(steps.flatMap((s) => s.argv)).not.toContain('always');
  });

  it('every v1 flag is one `docker-compose <cmd> --help` of 1.29.2 lists', () => {
    // The options of 1.29.2's help texts that chronicle uses (docker-compose --help, up --help).
    const known = new Set([
      '--project-name',
      '--file',
      '--detach',
      '--remove-orphans',
      '--build',
      '--force-recreate',
    ]);
    const all = { pull: true, build: true, forceRecreate: true };
    for (const op of ['up', 'stop', 'start', 'restart', 'down'] as const)
      for (const step of composeSteps(v1, op, all))
        for (const arg of step.argv.filter((a) => a.startsWith('-'))) expect(known.has(arg), arg).toBe(true);
  });

  it('other operations take no up flags, even with options', () => {
    for (const target of [v1, v2])
      for (const op of ['stop', 'start', 'restart', 'down'] as const) {
        // v2's down takes every profile's containers (one no longer active too).
        const profile = target === v2 && op === 'down' ? ['--profile', '*'] : [];
        expect(composeSteps(target, op, { pull: true, build: true, forceRecreate: true })).toEqual([
          { subcommand: op, argv: [...(target === v1 ? base1 : base), ...profile, op] },
        ]);
      }
  });

  it('a project whose file is broken: v2 by its name alone, in a folder without a compose file; v1 with the last good file', () => {
    const places = {
      emptyDir: '/data/stacks/.no-compose-file',
      lastGood: '/data/stacks/local/web/.compose.last-good.yaml',
    };
    expect(fallbackStep(v2, 'down', places)).toEqual({
      subcommand: 'down',
      argv: ['docker', 'compose', '--project-name', 'web', 'down'],
      cwd: places.emptyDir,
    });
    expect(fallbackStep(v1, 'stop', places)).toEqual({
      subcommand: 'stop',
      argv: ['docker-compose', '--project-name', 'web', '--file', places.lastGood, 'stop'],
    });
    expect(fallbackStep(v1, 'stop', { ...places, lastGood: undefined })).toBeUndefined();
  });

  it('a multi-word command (node + script) stays in front', () => {
    expect(
      composeSteps({ ...v2, command: ['/usr/bin/node', '/x/fake.mjs'] }, 'stop')[0]?.argv.slice(0, 3),
    ).toEqual(['/usr/bin/node', '/x/fake.mjs', '--project-name']);
  });

  it('an empty command is an error', () => {
    expect(() => composeSteps({ ...v2, command: [] }, 'up')).toThrow(/compose.command/);
  });
});

describe('isNoContainerToStartLine', () => {
  it("knows v2's and v1's start of a project without containers (after a down), nothing else", () => {
    expect(isNoContainerToStartLine('service "worker" has no container to start')).toBe(true);
    expect(isNoContainerToStartLine('No containers to start')).toBe(true);
    expect(isNoContainerToStartLine('ERROR: No containers to start')).toBe(true);
    expect(isNoContainerToStartLine('Starting web ... failed')).toBe(false);
    expect(isNoContainerToStartLine('echo No containers to start here')).toBe(false);
  });
});

describe('isUsageLine', () => {
  const fixture = (name: string) =>
    readFileSync(join(import.meta.dirname, '..', 'fixtures', 'compose-output', name), 'utf8').split('\n');

  it("v1's usage of `up` (an unknown flag, exit 0) is usage; its normal output is not", () => {
    expect(fixture('v1-up-unknown-flag.txt').some((l) => isUsageLine(l, 'up'))).toBe(true);
    for (const name of ['v1-up-create.txt', 'v1-up-build.txt', 'v1-pull-failed.txt', 'v2-up-create.txt'])
      expect(
        fixture(name).some((l) => isUsageLine(l, 'up') || isUsageLine(l, 'pull')),
        name,
      ).toBe(false);
  });

  it("v1's top-level usage, v1's and v2's usage of a subcommand", () => {
    expect(
      isUsageLine(
        '  docker-compose [-f <arg>...] [--profile <name>...] [options] [--] [COMMAND] [ARGS...]',
        'up',
      ),
    ).toBe(true);
    expect(isUsageLine('Usage: pull [options] [--] [SERVICE...]', 'pull')).toBe(true);
    expect(isUsageLine('Usage: down [options]', 'down')).toBe(true);
    expect(isUsageLine('Usage:  docker compose up [OPTIONS] [SERVICE...]', 'up')).toBe(true);
  });

  it("another program's usage (a build step printing one) is not compose's", () => {
    expect(isUsageLine('Usage: npm <command>', 'up')).toBe(false);
    expect(isUsageLine('Usage: up [options]', 'pull')).toBe(false);
    expect(isUsageLine('#7 0.312 Usage: up [options]', 'up')).toBe(false);
  });
});

describe('composeEnv', () => {
  const vars = [
    { name: 'A', value: 'from-var', secret: false },
    { name: 'S', value: 'var-secret', secret: true },
  ];

  it('layers process env, variables, provider secrets, then the environment DOCKER_HOST', () => {
    const env = composeEnv(
      { PATH: '/bin', A: 'from-process', GONE: undefined, DOCKER_HOST: 'unix:///process' },
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
    const name = withPrototypeNames(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/)).filter(
      (n) => !isRefusedVariableName(n),
    );
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
          expected.set('DOCKER_HOST', DEFAULT_DOCKER_HOST);
          expect(new Map(Object.entries(env))).toEqual(expected);
          for (const n of PROTOTYPE_NAMES) if (!expected.has(n)) expect(Object.hasOwn(env, n), n).toBe(false);
        },
      ),
    );
  });

  it("DOCKER_HOST is always set: the dockerHost, else the process's own, else the default socket", () => {
    expect(composeEnv({ DOCKER_HOST: 'unix:///p' }, [], {}, null).DOCKER_HOST).toBe('unix:///p');
    expect(composeEnv({ DOCKER_HOST: 'unix:///p' }, vars, {}, { id: 2, name: 'x' }).DOCKER_HOST).toBe(
      'unix:///p',
    );
    expect(composeEnv({}, vars, {}, null).DOCKER_HOST).toBe('unix:///var/run/docker.sock');
    expect(composeEnv({ DOCKER_HOST: '' }, vars, {}, { id: 2, name: 'x' }).DOCKER_HOST).toBe(
      'unix:///var/run/docker.sock',
    );
  });

  it('a variable or a provider key that steers the program is refused, naming it (never its value)', () => {
    const evil = [{ name: 'DOCKER_HOST', value: 'unix:///tmp/evil.sock', secret: false }];
    expect(() => composeEnv({}, evil, {}, null)).toThrow(
      /^The stack's \.env: the variable name DOCKER_HOST is refused \(/,
    );
    expect(() => composeEnv({}, [], { LD_PRELOAD: '/tmp/x.so' }, null)).toThrow(
      /^The secret provider: the variable name LD_PRELOAD is refused/,
    );
    expect(() => composeEnv({}, [], { LD_PRELOAD: '/tmp/x.so' }, null)).not.toThrow(/x\.so/);
  });
});

describe('isRefusedVariableName', () => {
  it('the names of the rule, in any case, and nothing that only looks alike', () => {
    for (const name of [
      'PATH',
      'path',
      'HOME',
      'LD_PRELOAD',
      'DOCKER_HOST',
      'docker_cert_path',
      'BUILDKIT_X',
    ])
      expect(isRefusedVariableName(name), name).toBe(true);
    for (const name of ['COMPOSE_FILE', 'COMPOSE_PROJECT_NAME', 'PYTHONPATH', 'PYTHONHOME'])
      expect(isRefusedVariableName(name), name).toBe(true);
    for (const name of [
      'COMPOSE_PROFILES',
      'compose_profiles',
      'DOCKER',
      'MYPATH',
      'LD',
      'HOME_URL',
      'APP_PATH',
    ])
      expect(isRefusedVariableName(name), name).toBe(false);
  });
});
