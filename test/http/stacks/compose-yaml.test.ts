/**
 * Compose text that costs more to read than its size (docs/security.md#limits-and-their-defaults), through the real CLI: an alias
 * bomb ("billion laughs") and a very deep nesting answer 400 with a message that says so — on create,
 * on a compose save, and (422, as any compose file a repository cannot give) on a git stack's fetched
 * file — and nothing is created or changed. An ordinary file that uses one anchor in many places is
 * still taken.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import {
  composeText,
  describeStacks,
  expectStatus,
  objectOf,
  serveStacks,
  stackDir,
  waitJob,
} from './helpers.js';

/** Nine levels of nine aliases each: 9^9 "lol"s once expanded, from under 600 bytes of text. */
const ALIAS_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'
    .split('')
    .map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
  'services:',
  '  web:',
  '    image: nginx:alpine',
  '',
].join('\n');

const FLOW_DEEP = `services: {}\nx-deep: ${'['.repeat(2_000)}${']'.repeat(2_000)}\n`;
const BLOCK_DEEP = `services: {}\nx-deep:\n${Array.from({ length: 150 }, (_, i) => `${' '.repeat(i + 1)}k:`).join('\n')} 1\n`;

/** One anchor merged into 300 services: ordinary, and more alias uses than the yaml library's default. */
const MANY_MERGES = `x-defaults: &defaults\n  image: nginx:alpine\n  restart: always\nservices:\n${Array.from(
  { length: 300 },
  (_, i) => `  s${i}:\n    <<: *defaults\n`,
).join('')}`;

describeStacks('compose YAML bounds', () => {
  const stacks = serveStacks();

  beforeAll(async () => {
    const created = await stacks.admin.post('/api/stacks?env=1', { name: 'blog', compose: composeText({}) });
    expectStatus(created, 202, 'create blog');
    await waitJob(stacks.admin, objectOf(created).jobId as string);
  }, 60_000);

  it('an alias bomb is 400 naming the aliases, on create and on a compose save; nothing is written', async () => {
    const create = await stacks.admin.post('/api/stacks?env=1', { name: 'bomb', compose: ALIAS_BOMB });
    expectStatus(create, 400, 'create with an alias bomb');
    expect(String(objectOf(create).error)).toMatch(/Compose file uses its YAML aliases too often/);
    expect(existsSync(stackDir(stacks.server.dataDir, 1, 'bomb'))).toBe(false);

    const save = await stacks.admin.put('/api/stacks/blog/compose?env=1', {
      content: ALIAS_BOMB,
      restart: false,
    });
    expectStatus(save, 400, 'save an alias bomb');
    expect(String(objectOf(save).error)).toMatch(/aliases too often/);
    const redeploy = await stacks.admin.put('/api/stacks/blog/compose?env=1', {
      content: ALIAS_BOMB,
      restart: true,
    });
    expectStatus(redeploy, 400, 'save and redeploy an alias bomb');
    expect(await readFile(join(stackDir(stacks.server.dataDir, 1, 'blog'), 'compose.yaml'), 'utf8')).toBe(
      composeText({}),
    );
    // The server goes on answering.
    expectStatus(await stacks.admin.get('/api/stacks/blog?env=1'), 200, 'the stack is still there');
  });

  it('a nesting deeper than 100 levels (flow or block) is 400 saying so', async () => {
    for (const [what, compose] of [
      ['flow', FLOW_DEEP],
      ['block', BLOCK_DEEP],
    ] as const) {
      const reply = await stacks.admin.post('/api/stacks?env=1', { name: `deep-${what}`, compose });
      expectStatus(reply, 400, what);
      expect(String(objectOf(reply).error), what).toBe('Compose file is nested more than 100 levels deep');
      expect(existsSync(stackDir(stacks.server.dataDir, 1, `deep-${what}`))).toBe(false);
    }
  });

  it('one anchor merged into 300 services is an ordinary file: created', async () => {
    const reply = await stacks.admin.post('/api/stacks?env=1', { name: 'merges', compose: MANY_MERGES });
    expectStatus(reply, 202, 'many merges');
    await waitJob(stacks.admin, objectOf(reply).jobId as string);
    expect(await readFile(join(stackDir(stacks.server.dataDir, 1, 'merges'), 'compose.yaml'), 'utf8')).toBe(
      MANY_MERGES,
    );
  });

  it('a git stack whose repository holds an alias bomb: 422 naming the file and the aliases, nothing left', async () => {
    const root = await tempDir();
    const repo = await makeRepo(root, { 'compose.yaml': ALIAS_BOMB });
    const reply = await stacks.admin.post('/api/git-stacks?env=null', {
      name: 'git-bomb',
      repository: repo.bare,
      branch: 'main',
      composePath: 'compose.yaml',
      deploy: true,
    });
    expectStatus(reply, 422, 'git create with an alias bomb');
    expect(String(objectOf(reply).error)).toMatch(/^compose\.yaml at [0-9a-f]{12}: .*aliases too often/);
    expect(existsSync(stackDir(stacks.server.dataDir, null, 'git-bomb'))).toBe(false);
  });
});
