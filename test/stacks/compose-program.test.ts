import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ComposeNotFoundError,
  ComposeResolver,
  describeCompose,
  parseComposeVersion,
  resolveExecutable,
} from '../../src/stacks/compose/program.js';

describe('parseComposeVersion', () => {
  it('v2 (plugin and standalone), with or without the v', () => {
    expect(parseComposeVersion('Docker Compose version v2.29.7\n')).toEqual({
      generation: 'v2',
      version: '2.29.7',
    });
    expect(parseComposeVersion('Docker Compose version 2.20.2+ds1-0+deb12u1')).toEqual({
      generation: 'v2',
      version: '2.20.2+ds1-0+deb12u1',
    });
    expect(parseComposeVersion('Docker Compose version v2.30.0-desktop.1')?.generation).toBe('v2');
  });

  it("v1 (Debian 12's docker-compose 1.29.2, as it prints it)", () => {
    const output = [
      'docker-compose version 1.29.2, build unknown',
      'docker-py version: 5.0.3',
      'CPython version: 3.11.2',
      'OpenSSL version: OpenSSL 3.0.19 27 Jan 2026',
    ].join('\n');
    expect(parseComposeVersion(output)).toEqual({ generation: 'v1', version: '1.29.2' });
  });

  it('anything else names no compose', () => {
    expect(parseComposeVersion("docker: 'compose' is not a docker command.")).toBeUndefined();
    expect(parseComposeVersion('')).toBeUndefined();
    expect(parseComposeVersion('podman version 4.3.1')).toBeUndefined();
  });
});

/** A folder of shell scripts standing for `docker` and `docker-compose`, used as the whole PATH. */
async function shims(scripts: Record<string, string>): Promise<string> {
  const dir = join(tmpdir(), `chronicle-compose-shims-${process.pid}-${Math.random().toString(36).slice(2)}`);
  await mkdir(dir, { recursive: true });
  for (const [name, body] of Object.entries(scripts)) {
    await writeFile(join(dir, name), `#!/bin/sh\n${body}\n`);
    await chmod(join(dir, name), 0o755);
  }
  return dir;
}

const V2_DOCKER = `[ "$1 $2" = "compose version" ] && { echo "Docker Compose version v2.29.7"; exit 0; }; exit 1`;
const NO_PLUGIN_DOCKER = `echo "docker: 'compose' is not a docker command." >&2; exit 1`;
const V1_COMPOSE = `[ "$1" = version ] && { echo "docker-compose version 1.29.2, build unknown"; exit 0; }; exit 1`;

describe('ComposeResolver', () => {
  it('not configured: `docker compose` when it answers', async () => {
    const path = await shims({ docker: V2_DOCKER, 'docker-compose': V1_COMPOSE });
    const program = await new ComposeResolver(null, { PATH: path }).resolve();
    expect(program).toEqual({
      command: ['docker', 'compose'],
      // Spawned by the absolute path found on the PATH it started with.
      argv: [join(path, 'docker'), 'compose'],
      generation: 'v2',
      version: '2.29.7',
      detected: true,
    });
    expect(describeCompose(program)).toBe('stacks compose: docker compose 2.29.7 (v2, detected)');
  });

  it('not configured: `docker-compose` when `docker compose` does not answer (or docker is missing)', async () => {
    const cases: Array<Record<string, string>> = [
      { docker: NO_PLUGIN_DOCKER, 'docker-compose': V1_COMPOSE },
      { 'docker-compose': V1_COMPOSE },
    ];
    for (const scripts of cases) {
      const path = await shims(scripts);
      const program = await new ComposeResolver(null, { PATH: path }).resolve();
      expect(program).toEqual({
        command: ['docker-compose'],
        argv: [join(path, 'docker-compose')],
        generation: 'v1',
        version: '1.29.2',
        detected: true,
      });
      expect(describeCompose(program)).toBe('stacks compose: docker-compose 1.29.2 (v1, detected)');
    }
  });

  it('not configured and neither there: an error naming both tries', async () => {
    const path = await shims({ docker: NO_PLUGIN_DOCKER });
    const failed = new ComposeResolver(null, { PATH: path }).resolve();
    await expect(failed).rejects.toBeInstanceOf(ComposeNotFoundError);
    await expect(failed).rejects.toThrow(
      /`docker compose version` failed \(docker: 'compose' is not a docker command\.\) and `docker-compose version` failed \(docker-compose: not found\); install Docker Compose or set compose\.command/,
    );
  });

  it('configured: that command is asked, never the others; a v1 name may be a v2 program', async () => {
    const path = await shims({ 'docker-compose': `echo "Docker Compose version v2.24.0"` });
    const program = await new ComposeResolver(['docker-compose'], { PATH: path }).resolve();
    expect(program).toMatchObject({ generation: 'v2', version: '2.24.0', detected: false });
    expect(describeCompose(program)).toBe('stacks compose: docker-compose 2.24.0 (v2, compose.command)');
  });

  it('configured but not answering: v2 arguments meanwhile, and it is asked again at the next resolve', async () => {
    const dir = await shims({});
    const resolver = new ComposeResolver(['my-compose'], { PATH: dir });
    const first = await resolver.resolve();
    expect(first).toMatchObject({ command: ['my-compose'], generation: 'v2', version: null });
    expect(describeCompose(first)).toMatch(
      /^stacks compose: my-compose \(compose\.command; `my-compose version` failed: my-compose: not found; arguments are built for v2 until it answers\)$/,
    );
    await writeFile(join(dir, 'my-compose'), '#!/bin/sh\necho "docker-compose version 1.29.2, build x"\n');
    await chmod(join(dir, 'my-compose'), 0o755);
    expect(await resolver.resolve()).toMatchObject({ generation: 'v1', version: '1.29.2' });
  });

  it('a relative PATH entry is never searched, and the program found at start stays the one spawned', async () => {
    const real = await shims({ 'docker-compose': V1_COMPOSE });
    const env: NodeJS.ProcessEnv = { PATH: `.:${real}` };
    const resolver = new ComposeResolver(['docker-compose'], env);
    expect((await resolver.resolve()).argv).toEqual([join(real, 'docker-compose')]);
    // Whatever PATH says later, the program resolved at start is kept.
    env.PATH = await shims({ 'docker-compose': V1_COMPOSE });
    expect((await resolver.resolve()).argv).toEqual([join(real, 'docker-compose')]);
  });

  it('a configured path is made absolute against the working folder', async () => {
    const dir = await shims({ 'my-compose': V1_COMPOSE });
    expect(await resolveExecutable(join(dir, 'my-compose'), {})).toBe(join(dir, 'my-compose'));
    expect(await resolveExecutable(join(dir, 'missing'), {})).toBeUndefined();
    expect(await resolveExecutable('sh', { PATH: 'relative/bin:/bin' })).toBe('/bin/sh');
  });
});
