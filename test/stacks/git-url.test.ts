/**
 * Repository URLs (src/stacks/git/command.ts): what is accepted, how credentials are stripped for showing and
 * listed for the redactor, how git is given them (a scoped header in its environment, not its argv),
 * and compose paths.
 */
import { describe, expect, it } from 'vitest';
import {
  composePathProblem,
  credentialValues,
  gitEnv,
  gitReason,
  gitRemote,
  normaliseComposePath,
  repositoryProblem,
  stripCredentials,
} from '../../src/stacks/git/command.js';
import { createRedactor } from '../../src/stacks/output/redaction.js';

describe('stripCredentials', () => {
  it.each([
    ['https://user:s3cretToken@example.com/org/repo.git', 'https://example.com/org/repo.git'],
    ['https://ghp_tokenvalue123@github.com/org/repo.git', 'https://github.com/org/repo.git'],
    ['http://u:p%40ss@127.0.0.1:8080/r.git?x=1', 'http://127.0.0.1:8080/r.git?x=1'],
    ['HTTPS://a:b@Example.com/R.git', 'HTTPS://Example.com/R.git'],
    // A user name whose password holds an @ that was not encoded: everything up to the last @ goes.
    ['https://user:pa@ss@example.com/r.git', 'https://example.com/r.git'],
  ])('%s -> %s', (url, shown) => {
    expect(stripCredentials(url)).toBe(shown);
  });

  it.each([
    'https://example.com/org/repo.git',
    'ssh://git@example.com/org/repo.git',
    'git@github.com:org/repo.git',
    '/srv/git/repo.git',
    'file:///srv/git/repo.git',
  ])('leaves %s as it is', (url) => {
    expect(stripCredentials(url)).toBe(url);
  });
});

describe('credentialValues', () => {
  it('lists the password, user:password and the Basic value, written and decoded, not the user alone', () => {
    const values = credentialValues('https://deploy:p%40ss-w0rd@example.com/r.git');
    expect(values).toEqual(
      expect.arrayContaining([
        'p%40ss-w0rd',
        'p@ss-w0rd',
        'deploy:p%40ss-w0rd',
        'deploy:p@ss-w0rd',
        Buffer.from('deploy:p@ss-w0rd').toString('base64'),
      ]),
    );
    expect(values).not.toContain('deploy');
  });

  it('lists a token given as the user name', () => {
    expect(credentialValues('https://ghp_tokenvalue123@github.com/r.git')).toContain('ghp_tokenvalue123');
  });

  it('lists nothing for URLs without credentials', () => {
    expect(credentialValues('https://example.com/r.git')).toEqual([]);
    expect(credentialValues('git@github.com:org/repo.git')).toEqual([]);
  });

  it('makes a redactor hide every spelling in a git message', () => {
    const url = 'https://user:s3cretToken@127.0.0.1:1/repo.git';
    const redactor = createRedactor(credentialValues(url));
    const message = redactor.text(`fatal: unable to access '${url}/': Failed to connect`);
    expect(message).not.toContain('s3cretToken');
    expect(message).toContain('127.0.0.1:1/repo.git');
  });
});

describe('gitRemote and gitEnv', () => {
  it('gives git the URL without credentials and the header scoped to the origin', () => {
    const remote = gitRemote('https://user:s3cretToken@example.com:8443/r.git');
    expect(remote.url).toBe('https://example.com:8443/r.git');
    expect(remote.origin).toBe('https://example.com:8443/');
    expect(remote.authorization).toBe(`Basic ${Buffer.from('user:s3cretToken').toString('base64')}`);
    const env = gitEnv({ PATH: '/bin', GIT_CONFIG_COUNT: '3', GIT_ASKPASS: '/usr/bin/ask' }, remote);
    expect(env.GIT_CONFIG_COUNT).toBe('1');
    expect(env.GIT_CONFIG_KEY_0).toBe('http.https://example.com:8443/.extraHeader');
    expect(env.GIT_CONFIG_VALUE_0).toBe(`Authorization: ${remote.authorization}`);
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');
    expect(env.GIT_ASKPASS).toBeUndefined();
    expect(env.GIT_ALLOW_PROTOCOL).toBe('http:https:ssh:git:file');
  });

  it('keeps variables named after Object.prototype properties', () => {
    const base = JSON.parse('{"__proto__": "p", "constructor": "c", "PATH": "/bin"}') as NodeJS.ProcessEnv;
    const env = gitEnv(base);
    expect(Object.entries(env)).toEqual(
      expect.arrayContaining([
        ['__proto__', 'p'],
        ['constructor', 'c'],
      ]),
    );
  });

  it('adds no header without credentials', () => {
    const remote = gitRemote('/srv/git/r.git');
    expect(remote).toEqual({ url: '/srv/git/r.git' });
    expect(gitEnv({ GIT_CONFIG_COUNT: '2' }, remote).GIT_CONFIG_COUNT).toBeUndefined();
  });
});

describe('repositoryProblem', () => {
  it.each([
    'https://example.com/r.git',
    'http://user:pw@127.0.0.1:1/r.git',
    'ssh://git@example.com/r.git',
    'git://example.com/r.git',
    'file:///srv/r.git',
    'git@github.com:org/r.git',
    '/srv/git/r.git',
  ])('accepts %s', (url) => {
    expect(repositoryProblem(url)).toBeUndefined();
  });

  it.each([
    ['', 'empty'],
    ['-uhelp', '"-"'],
    ['ext::sh -c touch% /tmp/pwned', 'URL'],
    ['fd::3', 'URL'],
    ['ftp://example.com/r.git', 'unsupported protocol ftp'],
    ['relative/path', 'absolute path'],
    ['ssh://user:pw@example.com/r.git', 'only supported in http(s)'],
    ['https://exa mple.com/r.git', 'valid URL'],
    ['https://example.com/r.git\n', 'control'],
  ])('refuses %j (%s)', (url, why) => {
    expect(repositoryProblem(url)).toContain(why);
  });

  it('never echoes the URL, so a refused one cannot leak its credentials', () => {
    expect(repositoryProblem('ssh://user:s3cretToken@example.com/r.git')).not.toContain('s3cretToken');
  });
});

describe('compose paths', () => {
  it.each([
    ['compose.yaml', 'compose.yaml'],
    ['./deploy//compose.yaml', 'deploy/compose.yaml'],
    ['a/./b.yml', 'a/b.yml'],
  ])('accepts %s as %s', (path, normal) => {
    expect(composePathProblem(path)).toBeUndefined();
    expect(normaliseComposePath(path)).toBe(normal);
  });

  it.each([
    ['', 'empty'],
    ['/etc/passwd', 'relative'],
    ['../x.yaml', '..'],
    ['a/../../x.yaml', '..'],
    ['deploy/', 'folder'],
    ['.', 'name a file'],
    ['a\\b.yaml', '/'],
    ['a\0b', 'control'],
  ])('refuses %j (%s)', (path, why) => {
    expect(composePathProblem(path)).toContain(why);
  });
});

describe('gitReason', () => {
  it("keeps git's fatal and error lines without the prefix", () => {
    expect(gitReason("warning: x\nfatal: couldn't find remote ref refs/heads/nope\n")).toBe(
      "couldn't find remote ref refs/heads/nope",
    );
    expect(gitReason('something odd\n')).toBe('something odd');
    expect(gitReason('')).toBe('no message');
  });
});
