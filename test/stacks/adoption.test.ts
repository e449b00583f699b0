/**
 * What adopting a compose project reads (src/stacks/stack/adoption.ts) and how an engine's containers group
 * into projects (src/stacks/engine/compose-projects.ts), without an engine: the files are real files in
 * a temporary folder; a file that needs compose's merge is covered by the real-engine test
 * (test/http/stacks/docker-adoption.test.ts).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComposeProgram } from '../../src/stacks/compose/program.js';
import { type EngineProject, projectsOf } from '../../src/stacks/engine/compose-projects.js';
import { adoptionSource } from '../../src/stacks/stack/adoption.js';

const container = (name: string, created: number, state: string, labels: Record<string, string>) =>
  ({ Id: name, Names: [`/${name}`], Created: created, State: state, Labels: labels }) as Docker.ContainerInfo;

describe('projectsOf', () => {
  it('groups containers by project; the newest container’s labels win; v1’s relative files made absolute', () => {
    const label = (project: string, service: string, files: string, dir = '/srv/shop') => ({
      'com.docker.compose.project': project,
      'com.docker.compose.service': service,
      'com.docker.compose.project.working_dir': dir,
      'com.docker.compose.project.config_files': files,
    });
    const projects = projectsOf([
      container('shop-db-1', 1, 'exited', label('shop', 'db', 'old.yaml')),
      container('shop-web-1', 2, 'running', label('shop', 'web', 'compose.yaml,compose.override.yaml')),
      container('blog_app_1', 3, 'running', label('blog', 'app', '/srv/blog/compose.yaml', '/srv/blog')),
      container('loose', 4, 'running', {}),
    ]);
    expect(projects).toEqual([
      {
        name: 'blog',
        workingDir: '/srv/blog',
        configFiles: ['/srv/blog/compose.yaml'],
        environmentFiles: [],
        services: ['app'],
        containers: [{ name: 'blog_app_1', service: 'app', state: 'running' }],
        running: 1,
      },
      {
        name: 'shop',
        workingDir: '/srv/shop',
        configFiles: ['/srv/shop/compose.yaml', '/srv/shop/compose.override.yaml'],
        environmentFiles: [],
        services: ['db', 'web'],
        containers: [
          { name: 'shop-db-1', service: 'db', state: 'exited' },
          { name: 'shop-web-1', service: 'web', state: 'running' },
        ],
        running: 1,
      },
    ]);
  });
});

describe('adoptionSource', () => {
  let root = '';
  const program: ComposeProgram = {
    command: ['docker', 'compose'],
    argv: ['/nonexistent/docker', 'compose'],
    generation: 'v2',
    version: '2.26.1',
    detected: false,
  };
  const project = (dir: string, files = ['compose.yaml']): EngineProject => ({
    name: 'shop',
    workingDir: dir,
    configFiles: files.map((f) => join(dir, f)),
    environmentFiles: [],
    services: ['web'],
    containers: [{ name: 'shop-web-1', service: 'web', state: 'running' }],
    running: 1,
  });
  const text = '# the shop\nservices:\n  web:\n    image: nginx\n    volumes: ["/srv/data:/data"]\n';

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'chronicle-adoption-'));
    await mkdir(join(root, 'shop'));
    await mkdir(join(root, 'data', 'stacks'), { recursive: true });
    await writeFile(join(root, 'shop', 'compose.yaml'), text);
    await writeFile(
      join(root, 'shop', '.env'),
      'DB_PASSWORD=hunter22\nexport TAG=1.2\nDOCKER_HOST=tcp://x\n',
    );
    await writeFile(join(root, 'data', 'stacks', 'compose.yaml'), text);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('copies a lone file that names no relative path as it is, and the .env as secret variables', async () => {
    const source = await adoptionSource(project(join(root, 'shop')), {
      program,
      dataDir: join(root, 'data'),
      environment: null,
    });
    expect(source.merged).toBe(false);
    expect(source.stack.compose).toBe(text);
    expect(source.stack.variables).toEqual([
      { name: 'DB_PASSWORD', value: 'hunter22', secret: true },
      { name: 'TAG', value: '1.2', secret: true },
    ]);
    expect(source.warnings).toEqual([expect.stringMatching(/^DOCKER_HOST in .*\.env was left out: /)]);
    expect(source.log).toContain('  shop-web-1 (web): running');
  });

  it('refuses files in chronicle’s data folder, missing files and names no stack may have (422)', async () => {
    const options = { program, dataDir: join(root, 'data'), environment: null };
    await expect(adoptionSource(project(join(root, 'data', 'stacks')), options)).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("is in chronicle's data folder"),
    });
    await expect(adoptionSource(project(join(root, 'shop'), ['gone.yaml']), options)).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('gone.yaml cannot be read'),
    });
    await expect(
      adoptionSource({ ...project(join(root, 'shop')), name: 'Shop!' }, options),
    ).rejects.toMatchObject({ status: 422, message: expect.stringContaining('is not a stack name') });
    await expect(
      adoptionSource({ ...project(join(root, 'shop')), configFiles: [] }, options),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('no working_dir or config_files'),
    });
  });
});
