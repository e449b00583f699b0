// biome-ignore-all lint/suspicious/noTemplateCurlyInString: compose text spells its `${VAR}` substitutions literally
/**
 * The security settings against compose files (src/stacks/compose/security.ts), on real folders: a
 * data folder with two environments' stacks, links made with symlink(2), each key of the Compose
 * Specification that names a host path or shares the host.
 */
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { interpolate, UncheckableValue } from '../../src/stacks/compose/interpolation.js';
import {
  type ComposeSecurity,
  DEFAULT_COMPOSE_SECURITY,
  realPathOf,
  securityViolations,
} from '../../src/stacks/compose/security.js';

let data: string;
let own: string;
let prod: string;
let outside: string;

beforeAll(async () => {
  const top = await mkdtemp(join(tmpdir(), 'chronicle-compose-security-'));
  data = join(top, 'data');
  own = join(data, 'stacks', '1', 'mine');
  prod = join(data, 'stacks', '2', 'prod');
  outside = join(top, 'srv');
  await mkdir(join(own, 'app'), { recursive: true });
  await mkdir(prod, { recursive: true });
  await mkdir(join(outside, 'shared'), { recursive: true });
  await writeFile(join(prod, '.env'), 'DB_PASSWORD="prod-secret"\n');
  await writeFile(join(own, '.env'), 'MINE="x"\n');
  await writeFile(join(own, 'app', 'Dockerfile'), 'FROM scratch\n');
  // Links a container with a mount of the folder could have made.
  await symlink(prod, join(own, 'app', 'ctx'));
  await symlink('../../../2/prod/.env', join(own, 'app', 'env-link'));
  await symlink('/', join(own, 'app', 'up'));
  await symlink(join(own, 'app'), join(own, 'inside-link'));
});

const violations = (
  text: string,
  options: { security?: Partial<ComposeSecurity>; env?: Record<string, string>; overrides?: string[] } = {},
) =>
  securityViolations(text, {
    place: { root: own, cwd: own, file: join(own, 'compose.yaml'), overrides: options.overrides ?? [] },
    stackDir: own,
    dataDir: data,
    env: options.env ?? {},
    security: { ...DEFAULT_COMPOSE_SECURITY, ...options.security },
    where: 'environment 1',
  });

const service = (body: string) => `services:\n  web:\n    image: x\n${body}`;

describe('paths stay in the stack folder', () => {
  it("a build context in another environment's stack (the attack that printed its .env)", async () => {
    expect(
      await violations(
        service('    build:\n      context: ../../2/prod\n      dockerfile_inline: "FROM x\\nCOPY .env /"\n'),
      ),
    ).toEqual(["services.web.build.context: ../../2/prod leaves the stack's folder (security.composePaths)"]);
    expect(await violations(service('    build: ../../..\n'))).toEqual([
      "services.web.build: ../../.. leaves the stack's folder (security.composePaths)",
    ]);
  });

  it('a path through a symbolic link is resolved to where it leads', async () => {
    expect(await violations(service('    build: ./app/ctx\n'))).toEqual([
      "services.web.build: ./app/ctx leaves the stack's folder (security.composePaths)",
    ]);
    expect(await violations(service('    env_file: app/env-link\n'))).toEqual([
      "services.web.env_file: app/env-link leaves the stack's folder (security.composePaths)",
    ]);
    // `..` after a link is taken from the link's target, not lexically: app/up/.. is `/`, not app/.
    expect(await violations(service('    build: app/up/..\n'))).toEqual([
      "services.web.build: app/up/.. leaves the stack's folder (security.composePaths)",
    ]);
    // A link that stays inside is fine.
    expect(await violations(service('    build: inside-link\n'))).toEqual([]);
  });

  it('a path given by a variable is checked as compose substitutes it', async () => {
    const text = service('    build:\n      context: ${CTX}\n');
    expect(await violations(text, { env: { CTX: '../../2/prod' } })).toEqual([
      "services.web.build.context: ${CTX} leaves the stack's folder (security.composePaths)",
    ]);
    expect(await violations(text, { env: { CTX: './app' } })).toEqual([]);
    expect(await violations(service('    env_file: ${NONE:-../../2/prod/.env}\n'))).toHaveLength(1);
    expect(await violations(service('    env_file: ${A:-${B}}\n'))).toEqual([
      'services.web: a substitution inside a substitution in "${A:-${B}}": cannot be checked',
    ]);
  });

  it('dockerfile is relative to its context; `.env` as a Dockerfile of another stack is refused', async () => {
    expect(
      await violations(service('    build:\n      context: app\n      dockerfile: Dockerfile\n')),
    ).toEqual([]);
    expect(
      await violations(service('    build:\n      context: .\n      dockerfile: ../../2/prod/.env\n')),
    ).toEqual([
      "services.web.build.dockerfile: ../../2/prod/.env leaves the stack's folder (security.composePaths)",
    ]);
    expect(await violations(service(`    build:\n      dockerfile: ${prod}/.env\n`))).toHaveLength(1);
  });

  it('every key that names a file: env_file (all forms), label_file, extends, secrets, configs, additional contexts, ssh keys', async () => {
    const text = `services:
  web:
    image: x
    env_file:
      - ./.env
      - path: /etc/shadow
        required: false
    label_file: [../x.labels]
    extends:
      file: /etc/compose.yaml
      service: base
    build:
      context: .
      additional_contexts:
        other: ../../2/prod
        image: docker-image://alpine
      ssh:
        - key=/root/.ssh/id_rsa
        - default
secrets:
  s:
    file: ../../2/prod/.env
configs:
  c:
    file: ./app/Dockerfile
`;
    expect(await violations(text)).toEqual([
      "services.web.build.ssh.default: forwarding the server's SSH agent is not allowed (security.composePaths)",
      "services.web.build.additional_contexts.other: ../../2/prod leaves the stack's folder (security.composePaths)",
      "services.web.build.ssh.key: /root/.ssh/id_rsa leaves the stack's folder (security.composePaths)",
      "services.web.env_file[1].path: /etc/shadow leaves the stack's folder (security.composePaths)",
      "services.web.label_file[0]: ../x.labels leaves the stack's folder (security.composePaths)",
      "services.web.extends.file: /etc/compose.yaml leaves the stack's folder (security.composePaths)",
      "secrets.s.file: ../../2/prod/.env leaves the stack's folder (security.composePaths)",
    ]);
  });

  it('a file brought in by include or extends is checked too, from its own folder', async () => {
    await writeFile(
      join(own, 'app', 'inner.yaml'),
      'services:\n  inner:\n    image: x\n    build: ../../../2/prod\n',
    );
    await writeFile(
      join(own, 'app', 'base.yaml'),
      'services:\n  base:\n    image: x\n    privileged: true\n  other:\n    image: x\n    build: /\n',
    );
    expect(await violations('include:\n  - app/inner.yaml\nservices: {}\n')).toEqual([
      "services.inner.build (in include[0]): ../../../2/prod leaves the stack's folder (security.composePaths)",
    ]);
    // extends brings one service, not the file's others.
    expect(
      await violations(service('    extends:\n      file: app/base.yaml\n      service: base\n')),
    ).toEqual([
      'services.base.privileged: true (in services.web.extends.file) gives the container the host: privileged containers are not allowed (security.privileged)',
    ]);
  });

  it('override files are read with it, their paths relative to the compose file', async () => {
    await writeFile(join(own, 'app', 'override.yaml'), 'services:\n  web:\n    build: ../../2/prod\n');
    expect(await violations('services: {}\n', { overrides: [join(own, 'app', 'override.yaml')] })).toEqual([
      "services.web.build (in override file 1): ../../2/prod leaves the stack's folder (security.composePaths)",
    ]);
    expect(await violations('services: {}\n', { overrides: [join(prod, '.env')] })).toEqual([
      "override file 1 leaves the stack's folder (security.composePaths)",
    ]);
  });

  it('remote build contexts name no host path', async () => {
    expect(await violations(service('    build: https://github.com/docker/compose.git#main\n'))).toEqual([]);
    expect(
      await violations(service('    build:\n      context: git@github.com:docker/compose.git\n')),
    ).toEqual([]);
  });

  it('unrestricted: paths may leave the stack, but never into the data folder nor above it', async () => {
    const security = { composePaths: 'unrestricted' as const };
    expect(await violations(service(`    build: ${outside}/shared\n`), { security })).toEqual([]);
    expect(await violations(service('    build: ../../2/prod\n'), { security })).toEqual([
      "services.web.build: ../../2/prod reaches chronicle's data folder (security.composePaths is unrestricted, but never there)",
    ]);
    expect(await violations(service('    build: /\n'), { security })).toHaveLength(1);
  });
});

describe('bind mounts', () => {
  const mount = (spec: string) => service(`    volumes:\n      - ${spec}\n`);

  it('a folder inside the stack is its own; the stack folder itself and its files are not', async () => {
    expect(await violations(mount('./app:/app'))).toEqual([]);
    expect(await violations(mount('named:/data'))).toEqual([]);
    expect(await violations(mount('/data'))).toEqual([]);
    expect(await violations(mount('.:/s'))).toEqual([
      "services.web.volumes[0]: .:/s is chronicle's own file or folder of the stack: mount a folder inside the stack's folder instead",
    ]);
    expect(await violations(mount('./.env:/e:ro'))).toHaveLength(1);
    expect(await violations(mount('./compose.yaml:/c'))).toHaveLength(1);
  });

  it('the data folder, inside it or above it: never, whatever bindMounts lists', async () => {
    const security = { bindMounts: ['/'] };
    expect(await violations(mount('/:/host'), { security })).toEqual([
      "services.web.volumes[0]: /:/host holds chronicle's data folder (security.bindMounts)",
    ]);
    expect(await violations(mount('../../2/prod:/p'), { security })).toEqual([
      "services.web.volumes[0]: ../../2/prod:/p is inside chronicle's data folder (security.bindMounts)",
    ]);
    expect(await violations(mount('./app/ctx:/p'), { security })).toHaveLength(1);
  });

  it('elsewhere: refused by default, allowed under a listed folder (long syntax and driver_opts too)', async () => {
    expect(await violations(mount(`${outside}/shared:/s`))).toEqual([
      `services.web.volumes[0]: ${outside}/shared:/s is outside the stack's folder: bind mounts are not allowed there (security.bindMounts)`,
    ]);
    expect(await violations(mount(`${outside}/shared:/s`), { security: { bindMounts: [outside] } })).toEqual(
      [],
    );
    expect(await violations(mount('/etc:/e'), { security: { bindMounts: [outside] } })).toEqual([
      `services.web.volumes[0]: /etc:/e is under none of the folders bind mounts may come from (security.bindMounts: ${outside})`,
    ]);
    expect(
      await violations(
        service(
          '    volumes:\n      - type: bind\n        source: /var/run/docker.sock\n        target: /s\n',
        ),
      ),
    ).toEqual([
      "services.web.volumes[0].source: /var/run/docker.sock is outside the stack's folder: bind mounts are not allowed there (security.bindMounts)",
    ]);
    expect(
      await violations(
        'services: {}\nvolumes:\n  v:\n    driver_opts:\n      type: none\n      o: bind\n      device: /etc\n',
      ),
    ).toEqual([
      "volumes.v.driver_opts.device: /etc is outside the stack's folder: bind mounts are not allowed there (security.bindMounts)",
    ]);
  });
});

describe('settings that share the host', () => {
  const cases: Array<[string, string, keyof ComposeSecurity]> = [
    ['    privileged: true\n', 'services.web.privileged: true', 'privileged'],
    [
      '    security_opt: ["seccomp=unconfined"]\n',
      'services.web.security_opt[0]: seccomp=unconfined',
      'privileged',
    ],
    ['    pid: host\n', 'services.web.pid: host', 'hostNamespaces'],
    ['    network_mode: host\n', 'services.web.network_mode: host', 'hostNamespaces'],
    ['    ipc: host\n', 'services.web.ipc: host', 'hostNamespaces'],
    ['    devices: ["/dev/sda:/dev/sda"]\n', 'services.web.devices: ["/dev/sda:/dev/sda"]', 'devices'],
    ['    cap_add: [SYS_ADMIN]\n', 'services.web.cap_add: ["SYS_ADMIN"]', 'capAdd'],
    [
      '    sysctls:\n      net.ipv4.ip_forward: 1\n',
      'services.web.sysctls: {"net.ipv4.ip_forward":1}',
      'sysctls',
    ],
  ];

  it('each is refused by default, naming the key and its setting, and allowed when its setting is true', async () => {
    for (const [body, shown, setting] of cases) {
      const found = await violations(service(body));
      expect(found, body).toHaveLength(1);
      expect(found[0], body).toMatch(
        new RegExp(`^${shown.replace(/[[\]{}().*+?^$|\\]/g, '\\$&')} .*\\(security\\.${setting}\\)$`),
      );
      expect(await violations(service(body), { security: { [setting]: true } }), body).toEqual([]);
    }
  });

  it('through a merge key of an extension field, a variable, the build, or a network of the host', async () => {
    const merged = 'x-base: &base\n  privileged: true\nservices:\n  web:\n    <<: *base\n    image: x\n';
    expect(await violations(merged)).toEqual([
      'services.web.privileged: true gives the container the host: privileged containers are not allowed (security.privileged)',
    ]);
    expect(await violations(service('    network_mode: ${MODE}\n'), { env: { MODE: 'host' } })).toHaveLength(
      1,
    );
    expect(await violations(service('    build:\n      context: .\n      network: host\n'))).toHaveLength(1);
    expect(await violations('services: {}\nnetworks:\n  h:\n    external: true\n    name: host\n')).toEqual([
      "networks.h: host shares the host's namespaces: not allowed (security.hostNamespaces)",
    ]);
    expect(await violations(service('    privileged: false\n    network_mode: bridge\n'))).toEqual([]);
  });
});

describe('the project files', () => {
  it('a project .env that is a link out of the stack is refused (compose reads it for substitution)', async () => {
    const tree = join(own, 'app');
    const inTree = () =>
      securityViolations('services: {}\n', {
        place: { root: tree, cwd: tree, file: join(tree, 'compose.yaml'), overrides: [] },
        stackDir: own,
        dataDir: data,
        env: {},
        security: DEFAULT_COMPOSE_SECURITY,
        where: 'environment 1',
      });
    expect(await inTree()).toEqual([]);
    await symlink('env-link', join(tree, '.env'));
    expect(await inTree()).toEqual(["the project's .env leaves the stack's folder (security.composePaths)"]);
  });
});

describe('realPathOf and interpolate', () => {
  it('follows links component by component, as the system does', async () => {
    expect(await realPathOf(own, 'app/ctx/.env')).toBe(join(prod, '.env'));
    expect(await realPathOf(own, 'app/up/..')).toBe('/');
    expect(await realPathOf(own, 'missing/../x')).toBe(join(own, 'x'));
  });

  it("compose's substitution forms", () => {
    const env = { A: 'a', E: '' };
    expect(interpolate('$A/${A}/$$A', env)).toBe('a/a/$A');
    expect(interpolate('${E:-d}|${E-d}|${U-d}|${A:+r}|${E:+r}|${E+r}|${U+r}', env)).toBe('d||d|r||r|');
    expect(interpolate('${U}${U?err}', env)).toBe('');
    expect(() => interpolate('${A', env)).toThrow(UncheckableValue);
    expect(() => interpolate('$1', env)).toThrow(UncheckableValue);
    expect(() => interpolate('${A:-${B}}', env)).toThrow(UncheckableValue);
  });
});
