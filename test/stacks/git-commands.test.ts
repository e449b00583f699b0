/**
 * src/stacks/git/command.ts against real git: branch names, ls-remote, a shallow fetch into a cache, reading a
 * file of the fetched commit, and credentials sent as a header (never in the URL git is given) to a
 * smart-HTTP server that demands them.
 */

import { existsSync } from 'node:fs';
import { readFile, readlink, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkBranchName,
  checkoutTree,
  credentialValues,
  escapingLink,
  fetchBranch,
  GitError,
  gitRemote,
  readFileAt,
  remoteCommit,
} from '../../src/stacks/git/command.js';
import { createRedactor } from '../../src/stacks/output/redaction.js';
import { tempDir } from '../cli/helpers.js';
import { type GitHttpServer, makeRepo, serveGitHttp, type TestRepo } from './git-repo.js';

const options = { timeoutMs: 30_000, redact: (text: string) => text };

let root: string;
let repo: TestRepo & { first: string };

beforeAll(async () => {
  root = await tempDir();
  repo = await makeRepo(root, { 'deploy/compose.yaml': 'services: {}\n', 'README.md': 'hello\n' });
});

async function failure(promise: Promise<unknown>): Promise<GitError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GitError) return error;
    throw error;
  }
  throw new Error('expected a GitError');
}

describe('checkBranchName', () => {
  it.each(['main', 'feature/x', 'release-1.2'])('accepts %s', async (name) => {
    expect(await checkBranchName(name)).toBe(true);
  });
  it.each(['a..b', '-x', '@{-1}', 'has space', 'end.lock', '', 'x\ny', 'a:b', '~x'])(
    'refuses %j',
    async (name) => {
      expect(await checkBranchName(name)).toBe(false);
    },
  );
});

describe('remoteCommit, fetchBranch and readFileAt', () => {
  it('gives the branch head, fetches it shallow and reads a file of it', async () => {
    const remote = gitRemote(repo.bare);
    expect(await remoteCommit(remote, 'main', options)).toBe(repo.first);
    const cache = join(root, 'cache-a');
    const commit = await fetchBranch(cache, remote, 'main', options);
    expect(commit).toBe(repo.first);
    expect(await readFileAt(cache, commit, 'deploy/compose.yaml', { ...options, maxBytes: 1024 })).toBe(
      'services: {}\n',
    );
    // A later commit is fetched into the same cache.
    const second = await repo.commit({ 'deploy/compose.yaml': 'services: {}\n# two\n' });
    expect(await fetchBranch(cache, remote, 'main', options)).toBe(second);
    expect(await readFileAt(cache, second, 'deploy/compose.yaml', { ...options, maxBytes: 1024 })).toContain(
      '# two',
    );
  });

  it('names a missing branch, a missing file, a folder and an unreachable repository', async () => {
    const remote = gitRemote(repo.bare);
    expect((await failure(remoteCommit(remote, 'nope', options))).kind).toBe('branch_missing');
    const cache = join(root, 'cache-b');
    const missingBranch = await failure(fetchBranch(cache, remote, 'nope', options));
    expect(missingBranch.kind).toBe('branch_missing');
    expect(missingBranch.message).toContain('Branch nope not found');
    const commit = await fetchBranch(cache, remote, 'main', options);
    const missingFile = await failure(readFileAt(cache, commit, 'nope.yaml', { ...options, maxBytes: 1024 }));
    expect(missingFile.kind).toBe('file_missing');
    expect(missingFile.message).toContain('nope.yaml not found');
    const folder = await failure(readFileAt(cache, commit, 'deploy', { ...options, maxBytes: 1024 }));
    expect(folder.kind).toBe('not_a_file');
    const tooLarge = await failure(readFileAt(cache, commit, 'README.md', { ...options, maxBytes: 2 }));
    expect(tooLarge.message).toContain('larger than 2 bytes');
    const unreachable = await failure(
      fetchBranch(join(root, 'cache-c'), gitRemote(join(root, 'none.git')), 'main', options),
    );
    expect(unreachable.kind).toBe('unreachable');
    expect(unreachable.message).toContain('none.git');
  });
});

describe('escapingLink', () => {
  const links = (entries: Record<string, string>) => new Map(Object.entries(entries));
  it('lets links that stay in the repository through, as the file system follows them', () => {
    expect(escapingLink(links({ 'deploy/.env': '../.env', 'a/b': 'c/d', 'c/d': '../x', x: '.' }))).toBe(
      undefined,
    );
    // A link to a folder, then `..` inside it: back in the folder above the target, still inside.
    expect(
      escapingLink(links({ 'deploy/conf': '../shared/conf', 'deploy/up': 'conf/../../README.md' })),
    ).toBe(undefined);
  });
  it('names the first link that leads out: absolute, above the root, through another link, a loop', () => {
    expect(escapingLink(links({ 'deploy/app.env': '/etc/shadow' }))).toBe('deploy/app.env');
    expect(escapingLink(links({ 'deploy/app.env': '../../secrets' }))).toBe('deploy/app.env');
    // `here` is the root itself, so `here/..` is above it: a lexical check would let it through.
    expect(escapingLink(links({ here: '.', 'deploy/out': '../here/..' }))).toBe('deploy/out');
    expect(escapingLink(links({ a: 'b', b: 'a' }))).toBe('a');
  });
});

describe('checkoutTree', () => {
  it('checks a commit out like reset --hard: tracked files follow it, untracked ones stay; an escaping link is refused before anything is written', async () => {
    const own = await makeRepo(
      root,
      {
        'deploy/compose.yaml': 'one\n',
        'deploy/old.txt': 'old\n',
        'deploy/.env': { link: '../root.env' },
        'root.env': 'A=1\n',
      },
      'tree-repo',
    );
    const cache = join(root, 'tree-cache');
    const tree = join(root, 'tree');
    const index = join(root, 'tree.index');
    const first = await fetchBranch(cache, gitRemote(own.bare), 'main', options);
    await checkoutTree(cache, tree, index, first, options);
    expect(await readFile(join(tree, 'deploy/compose.yaml'), 'utf8')).toBe('one\n');
    expect(await readlink(join(tree, 'deploy/.env'))).toBe('../root.env');
    await writeFile(join(tree, 'deploy/data.db'), 'written by a container\n');
    await writeFile(join(tree, 'deploy/compose.yaml'), 'edited\n');

    const second = await own.commit({ 'deploy/compose.yaml': 'two\n', 'deploy/old.txt': null });
    await fetchBranch(cache, gitRemote(own.bare), 'main', options);
    await checkoutTree(cache, tree, index, second, options);
    expect(await readFile(join(tree, 'deploy/compose.yaml'), 'utf8')).toBe('two\n');
    expect(existsSync(join(tree, 'deploy/old.txt'))).toBe(false);
    expect(await readFile(join(tree, 'deploy/data.db'), 'utf8')).toBe('written by a container\n');
    // The first commit is kept: checking it out again needs no fetch.
    await checkoutTree(cache, tree, index, first, options);
    expect(await readFile(join(tree, 'deploy/old.txt'), 'utf8')).toBe('old\n');

    const bad = await own.commit({
      'deploy/app.env': { link: '../../../etc/passwd' },
      'deploy/compose.yaml': 'three\n',
    });
    await fetchBranch(cache, gitRemote(own.bare), 'main', options);
    const refused = await failure(checkoutTree(cache, tree, index, bad, options));
    expect(refused.kind).toBe('unsafe_link');
    expect(refused.message).toBe(
      `deploy/app.env in commit ${bad.slice(0, 12)} is a symbolic link that leads outside the repository`,
    );
    expect(existsSync(join(tree, 'deploy/app.env'))).toBe(false);
    expect(await readFile(join(tree, 'deploy/compose.yaml'), 'utf8')).toBe('one\n');
    expect((await failure(checkoutTree(cache, tree, index, 'f'.repeat(40), options))).kind).toBe(
      'commit_missing',
    );
  });
});

describe('credentials over smart HTTP', () => {
  let server: GitHttpServer;
  beforeAll(async () => {
    server = await serveGitHttp(root, 'deployer', 'pa ss:w0rd/secret');
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends them as a Basic header, never in the request path, and fetches', async () => {
    const url = `http://deployer:${encodeURIComponent('pa ss:w0rd/secret')}@127.0.0.1:${server.port}/repo.git`;
    const remote = gitRemote(url);
    expect(remote.url).toBe(`http://127.0.0.1:${server.port}/repo.git`);
    const head = await remoteCommit(remote, 'main', options);
    const commit = await fetchBranch(join(root, 'cache-http'), remote, 'main', options);
    expect(commit).toBe(head);
    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) {
      expect(request.path).not.toContain('secret');
      expect(request.authorization).toBe(
        `Basic ${Buffer.from('deployer:pa ss:w0rd/secret').toString('base64')}`,
      );
    }
  });

  it('fails without them, and the message passes the redactor', async () => {
    const url = `http://deployer:wrong-password-x@127.0.0.1:${server.port}/repo.git`;
    const redactor = createRedactor(credentialValues(url));
    const error = await failure(
      remoteCommit(gitRemote(url), 'main', { ...options, redact: (text) => redactor.text(text) }),
    );
    expect(error.kind).toBe('unreachable');
    expect(error.message).not.toContain('wrong-password-x');
    expect(error.message).toContain(`127.0.0.1:${server.port}/repo.git`);
  });
});

describe('stopping', () => {
  it('kills a git command that waits on a remote that never answers when the signal aborts', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const controller = new AbortController();
    try {
      const pending = remoteCommit(gitRemote(`http://127.0.0.1:${port}/repo.git`), 'main', {
        ...options,
        timeoutMs: 600_000,
        signal: controller.signal,
      });
      // Aborted once git has connected, so it is git that is stopped, not a command never started.
      const deadline = Date.now() + 20_000;
      while (sockets.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(sockets.length).toBeGreaterThan(0);
      controller.abort();
      const error = await failure(pending);
      expect(error.kind).toBe('cancelled');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
