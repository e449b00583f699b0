/**
 * Stacks themselves (docs/stacks.md): create, read, list,
 * variables, delete; names and compose text validated; files where docs/operations.md#where-the-data-lives puts them; no path
 * leaves the stacks folder.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  arrayOf,
  composeText,
  createStack,
  createStackDone,
  describeStacks,
  objectOf,
  serveStacks,
  stackDir,
  waitJob,
} from './helpers.js';

const stacks = serveStacks();

const createBody = (name: string, compose = composeText({ lines: ['c'] })) => ({
  name,
  compose,
  variables: [],
  secretProvider: null,
  pull: false,
  build: false,
  forceRecreate: false,
});

describeStacks('stacks', () => {
  describe('create, get, list, variables', () => {
    /** The engine's view of a stack of environment 1 or 2 (a dockerHost no engine answers on here). */
    const unreachable = (env: 1 | 2) => ({
      state: 'unknown',
      stateReason: expect.stringMatching(
        new RegExp(
          `^The Docker engine \\(tcp://10\\.0\\.0\\.${env + 4}:2375\\) (did not answer within 2 s|cannot be reached: )`,
        ),
      ),
      containers: null,
    });

    it('a created stack reads back; secret values are never sent back', async () => {
      const compose = composeText({ lines: ['hello'] }, ['web', 'db']);
      await createStackDone(stacks.admin, 'shop', 1, {
        compose,
        variables: [
          { name: 'PUBLIC_URL', value: 'https://shop.example', secret: false },
          { name: 'DB_PASSWORD', value: 'correct-horse-battery', secret: true },
        ],
      });
      const reply = await stacks.admin.get('/api/stacks/shop?env=1');
      expect(reply.status).toBe(200);
      expect(reply.value).toEqual({
        name: 'shop',
        environmentId: 1,
        compose,
        composeHash: createHash('sha256').update(compose).digest('hex'),
        secretProvider: null,
        variables: [
          { name: 'PUBLIC_URL', secret: false, value: 'https://shop.example' },
          { name: 'DB_PASSWORD', secret: true, value: null },
        ],
        ...unreachable(1),
        job: null,
      });
      expect(reply.text).not.toContain('correct-horse-battery');
    });

    it('the stack’s files are where CONTRACT.md puts them; stack.json holds no value', async () => {
      const dir = stackDir(stacks.server.dataDir, 1, 'shop');
      const compose = await readFile(join(dir, 'compose.yaml'), 'utf8');
      expect(compose).toBe(composeText({ lines: ['hello'] }, ['web', 'db']));
      expect(existsSync(join(dir, '.env'))).toBe(true);
      const meta = await readFile(join(dir, 'stack.json'), 'utf8');
      expect(meta).toContain('PUBLIC_URL');
      expect(meta).toContain('DB_PASSWORD');
      expect(meta).not.toContain('correct-horse-battery');
      expect(meta).not.toContain('https://shop.example');
    });

    it('the list holds the stacks of that environment only, with variable names and flags', async () => {
      await createStackDone(stacks.admin, 'shop', 2, { compose: composeText({}) });
      await createStackDone(stacks.admin, 'blog', 1, { compose: composeText({}) });
      const one = arrayOf(await stacks.admin.get('/api/stacks?env=1')).sort((a, b) =>
        String(a.name).localeCompare(String(b.name)),
      );
      expect(one).toEqual([
        { name: 'blog', environmentId: 1, secretProvider: null, variables: [], ...unreachable(1) },
        {
          name: 'shop',
          environmentId: 1,
          secretProvider: null,
          variables: [
            { name: 'PUBLIC_URL', secret: false },
            { name: 'DB_PASSWORD', secret: true },
          ],
          ...unreachable(1),
        },
      ]);
      expect(arrayOf(await stacks.admin.get('/api/stacks?env=2'))).toEqual([
        { name: 'shop', environmentId: 2, secretProvider: null, variables: [], ...unreachable(2) },
      ]);
      const local = arrayOf(await stacks.admin.get('/api/stacks'));
      expect(local.map((s) => s.name)).not.toContain('shop');
      expect(await stacks.admin.get('/api/stacks?env=null')).toMatchObject({ status: 200 });
    });

    it('PUT variables answers the stack as GET does', async () => {
      const reply = await stacks.admin.put('/api/stacks/blog/variables?env=1', {
        variables: [
          { name: 'TOKEN', value: 'a-long-token-value', secret: true },
          { name: 'MODE', value: 'production', secret: false },
        ],
      });
      expect(reply.status).toBe(200);
      const expected = {
        name: 'blog',
        environmentId: 1,
        compose: composeText({}),
        composeHash: createHash('sha256').update(composeText({})).digest('hex'),
        secretProvider: null,
        variables: [
          { name: 'TOKEN', secret: true, value: null },
          { name: 'MODE', secret: false, value: 'production' },
        ],
        ...unreachable(1),
        job: null,
      };
      expect(reply.value).toEqual(expected);
      expect((await stacks.admin.get('/api/stacks/blog?env=1')).value).toEqual(expected);
    });

    it('a name taken in that environment is 409 Stack already exists', async () => {
      const reply = await stacks.admin.post('/api/stacks?env=1', createBody('shop'));
      expect([reply.status, reply.value]).toEqual([409, { error: 'Stack already exists' }]);
    });
  });

  describe('validation', () => {
    it('names outside ^[a-z0-9][a-z0-9_-]{0,62}$ are 400; the edges of the rule are accepted', async () => {
      for (const bad of [
        '',
        'Bad',
        '-x',
        '_x',
        'a b',
        'a.b',
        '.hidden',
        '..',
        '../x',
        'a/b',
        'é',
        'a'.repeat(64),
      ]) {
        const reply = await stacks.admin.post('/api/stacks?env=1', createBody(bad));
        expect(reply.status, JSON.stringify(bad)).toBe(400);
        expect(typeof objectOf(reply).error).toBe('string');
      }
      for (const good of ['a', '0-x_y', 'z'.repeat(63)]) {
        const ack = await createStack(stacks.admin, good, 2);
        await waitJob(stacks.admin, ack.jobId);
      }
      expect(readdirSync(join(stacks.server.dataDir, 'stacks', '2')).sort()).toEqual(
        ['0-x_y', 'a', 'shop', 'z'.repeat(63)].sort(),
      );
    });

    it('compose text that is not YAML, or not a mapping, is 400 and creates nothing', async () => {
      const cases = [
        'services:\n  web: [unclosed\n',
        'a: b: c\n',
        '- just\n- a list\n',
        'a plain string',
        '',
      ];
      for (const [i, compose] of cases.entries()) {
        const reply = await stacks.admin.post('/api/stacks?env=1', createBody(`invalid-${i}`, compose));
        expect(reply.status, JSON.stringify(compose)).toBe(400);
        expect(typeof objectOf(reply).error).toBe('string');
        expect(existsSync(stackDir(stacks.server.dataDir, 1, `invalid-${i}`))).toBe(false);
      }
      const put = await stacks.admin.put('/api/stacks/blog/compose?env=1', {
        content: 'a: b: c\n',
        restart: false,
      });
      expect(put.status).toBe(400);
      expect(await readFile(join(stackDir(stacks.server.dataDir, 1, 'blog'), 'compose.yaml'), 'utf8')).toBe(
        composeText({}),
      );
    });

    it('an unknown secret provider is 400', async () => {
      const reply = await stacks.admin.post('/api/stacks?env=1', {
        ...createBody('providerless'),
        secretProvider: 'nope',
      });
      expect(reply.status).toBe(400);
      expect(existsSync(stackDir(stacks.server.dataDir, 1, 'providerless'))).toBe(false);
    });

    it('an unknown stack is 404 Stack not found', async () => {
      for (const [method, path, body] of [
        ['GET', '/api/stacks/nowhere?env=1', undefined],
        ['DELETE', '/api/stacks/nowhere?env=1', undefined],
        ['PUT', '/api/stacks/nowhere/variables?env=1', { variables: [] }],
        ['PUT', '/api/stacks/nowhere/compose?env=1', { content: composeText({}), restart: false }],
        ['POST', '/api/stacks/nowhere/deploy?env=1', {}],
        ['POST', '/api/stacks/nowhere/stop?env=1', {}],
        ['GET', '/api/stacks/shop?env=null', undefined],
      ] as const) {
        const reply = await stacks.admin.call(method, path, body === undefined ? {} : { json: body });
        expect([reply.status, reply.value], `${method} ${path}`).toEqual([404, { error: 'Stack not found' }]);
      }
    });
  });

  describe('no path leaves the stacks folder', () => {
    it('`..` and encoded slashes in a name are refused, and nothing is written outside', async () => {
      const stacksRoot = join(stacks.server.dataDir, 'stacks');
      // Environment folders with their entries; a file beside them (the envHash key `.hash-key`) as itself.
      const tree = () =>
        readdirSync(stacksRoot, { withFileTypes: true })
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((env) => [
            env.name,
            env.isDirectory() ? readdirSync(join(stacksRoot, env.name)).sort() : 'file',
          ]);
      const before = tree();
      for (const path of [
        '/api/stacks/..?env=1',
        '/api/stacks/..%2F..%2Fevents?env=1',
        '/api/stacks/%2E%2E?env=1',
        '/api/stacks/a%2Fb?env=1',
        '/api/stacks/..%2Fshop?env=2',
        '/api/stacks/%2Fetc%2Fpasswd',
      ]) {
        for (const [method, body] of [
          ['GET', undefined],
          ['PUT', { variables: [] }],
          ['DELETE', undefined],
        ] as const) {
          const reply = await stacks.admin.call(
            method,
            path.replace('?', method === 'PUT' ? '/variables?' : '?'),
            body === undefined ? {} : { json: body },
          );
          expect([400, 404], `${method} ${path}: ${reply.status} ${reply.text}`).toContain(reply.status);
        }
      }
      const put = await stacks.admin.put('/api/stacks/..%2F..%2Fescape/compose?env=1', {
        content: composeText({}),
        restart: false,
      });
      expect([400, 404]).toContain(put.status);
      expect(tree()).toEqual(before);
      expect(existsSync(join(stacks.server.dataDir, 'events'))).toBe(true);
      expect(existsSync(join(stacks.server.dataDir, 'escape'))).toBe(false);
      expect(existsSync(join(stacks.server.dataDir, 'stacks', 'escape'))).toBe(false);
      // The stacks the escapes pointed at are untouched.
      expect((await stacks.admin.get('/api/stacks/shop?env=2')).status).toBe(200);
      expect((await stacks.admin.get('/api/stacks/shop?env=1')).status).toBe(200);
    });
  });

  describe('saves name the version they edit (If-Match)', () => {
    const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');
    const first = composeText({ lines: ['first'] });

    it('GET answers the compose hash; a save with it lands and answers the new one', async () => {
      await createStackDone(stacks.admin, 'versioned', 2, { compose: first });
      const read = objectOf(await stacks.admin.get('/api/stacks/versioned?env=2'));
      expect(read.composeHash).toBe(hashOf(first));
      const next = composeText({ lines: ['second'] });
      const saved = await stacks.admin.put(
        '/api/stacks/versioned/compose?env=2',
        { content: next },
        { headers: { 'If-Match': `"${read.composeHash}"` } },
      );
      expect([saved.status, saved.value]).toEqual([200, { saved: true, composeHash: hashOf(next) }]);
    });

    it('of two saves of one version, the second is 409 compose_changed and changes nothing', async () => {
      const base = objectOf(await stacks.admin.get('/api/stacks/versioned?env=2'));
      const mine = composeText({ lines: ['tab one'] });
      const theirs = composeText({ lines: ['tab two'] });
      const one = await stacks.admin.put(
        '/api/stacks/versioned/compose?env=2',
        { content: mine },
        { headers: { 'If-Match': `"${base.composeHash}"` } },
      );
      expect(one.status).toBe(200);
      // The bare hash is taken too.
      const two = await stacks.admin.put(
        '/api/stacks/versioned/compose?env=2',
        { content: theirs, restart: true },
        { headers: { 'If-Match': String(base.composeHash) } },
      );
      expect([two.status, two.value]).toEqual([
        409,
        { error: 'compose_changed', message: expect.stringContaining('changed'), composeHash: hashOf(mine) },
      ]);
      const now = objectOf(await stacks.admin.get('/api/stacks/versioned?env=2'));
      expect(now.compose).toBe(mine);
      expect(
        await readFile(join(stackDir(stacks.server.dataDir, 2, 'versioned'), 'compose.yaml'), 'utf8'),
      ).toBe(mine);
    });

    it('of saves sent at once with one version, exactly one lands', async () => {
      const base = objectOf(await stacks.admin.get('/api/stacks/versioned?env=2'));
      const texts = [1, 2, 3, 4].map((n) => composeText({ lines: [`racer ${n}`] }));
      const replies = await Promise.all(
        texts.map((content) =>
          stacks.admin.put(
            '/api/stacks/versioned/compose?env=2',
            { content },
            { headers: { 'If-Match': `"${base.composeHash}"` } },
          ),
        ),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
      const won = texts[replies.findIndex((r) => r.status === 200)];
      expect(objectOf(await stacks.admin.get('/api/stacks/versioned?env=2')).compose).toBe(won);
    });

    it('`*` or no If-Match saves over whatever is stored', async () => {
      const star = await stacks.admin.put(
        '/api/stacks/versioned/compose?env=2',
        { content: first },
        { headers: { 'If-Match': '*' } },
      );
      expect(star.status).toBe(200);
      const none = await stacks.admin.put('/api/stacks/versioned/compose?env=2', { content: first });
      expect(none.status).toBe(200);
    });
  });

  describe('delete', () => {
    it('removes the files, keeps the runs', async () => {
      const { runId } = await createStackDone(stacks.admin, 'doomed', null, {
        compose: composeText({ lines: ['d'] }),
      });
      const dir = stackDir(stacks.server.dataDir, null, 'doomed');
      expect(existsSync(dir)).toBe(true);
      const reply = await stacks.admin.del('/api/stacks/doomed');
      expect([reply.status, reply.value]).toEqual([200, { deleted: true }]);
      expect(existsSync(dir)).toBe(false);
      expect((await stacks.admin.get('/api/stacks/doomed')).status).toBe(404);
      expect(arrayOf(await stacks.admin.get('/api/stacks/doomed/deploys')).map((r) => r.id)).toEqual([runId]);
      const run = await stacks.admin.get(`/api/stacks/doomed/deploys/${runId}`);
      expect(objectOf(run)).toMatchObject({ id: runId, status: 'success' });
      // The name is free again.
      const again = await createStackDone(stacks.admin, 'doomed', null, {
        compose: composeText({ lines: ['d'] }),
      });
      expect(arrayOf(await stacks.admin.get('/api/stacks/doomed/deploys')).map((r) => r.id)).toEqual([
        again.runId,
        runId,
      ]);
    });
  });
});
