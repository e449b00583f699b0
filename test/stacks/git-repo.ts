/**
 * Real git repositories for the git-stack tests: a bare repository with a work clone that commits and
 * pushes, and a smart-HTTP server over `git http-backend` (the CGI program git ships) that demands Basic
 * credentials, so a URL with `user:password@` is fetched for real.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** An environment for test git commands: a fixed identity, no user or system config. */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

export async function git(args: readonly string[], cwd: string): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: GIT_ENV });
  return stdout.trim();
}

/** A file's text, a symbolic link's text, or null for a file to remove. */
export type RepoFile = string | { link: string } | null;

export interface TestRepo {
  /** The bare repository (what a stack fetches from). */
  bare: string;
  /** The work clone that commits. */
  work: string;
  /**
   * Writes (or, with null, removes) files — `{ link }` makes a symbolic link with that text — commits
   * them on `branch` and pushes; returns the commit.
   */
  commit(files: Record<string, RepoFile>, branch?: string): Promise<string>;
}

/** A bare repository at `<root>/<name>.git` with a first commit of `files` on `main`. */
export async function makeRepo(
  root: string,
  files: Record<string, RepoFile>,
  name = 'repo',
): Promise<TestRepo & { first: string }> {
  const bare = join(root, `${name}.git`);
  const work = join(root, `${name}-work`);
  await git(['init', '--quiet', '--bare', '--initial-branch=main', bare], root);
  await git(['init', '--quiet', '--initial-branch=main', work], root);
  let count = 0;
  const commit = async (changes: Record<string, RepoFile>, branch = 'main') => {
    const current = await git(['rev-parse', '--abbrev-ref', 'HEAD'], work).catch(() => 'main');
    if (current !== branch) {
      const exists = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], work).then(
        () => true,
        () => false,
      );
      await git(exists ? ['checkout', '--quiet', branch] : ['checkout', '--quiet', '-b', branch], work);
    }
    for (const [path, content] of Object.entries(changes)) {
      const file = join(work, path);
      await rm(file, { force: true });
      if (content === null) continue;
      await mkdir(dirname(file), { recursive: true });
      if (typeof content === 'string') await writeFile(file, content);
      else await symlink(content.link, file);
    }
    await git(['add', '--all'], work);
    await git(['commit', '--quiet', '--allow-empty', '-m', `change ${++count}`], work);
    await git(['push', '--quiet', bare, `HEAD:refs/heads/${branch}`], work);
    return git(['rev-parse', 'HEAD'], work);
  };
  const first = await commit(files);
  return { bare, work, commit, first };
}

export interface GitHttpServer {
  port: number;
  /** The Authorization header and path of every request, in order. */
  requests: Array<{ path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

export interface GitHttpOptions {
  /**
   * Asked before each authorised request is served: the server waits until it settles (a remote that
   * answers slowly), then serves, or answers with the status it resolves to (a remote that fails).
   */
  hold?: () => Promise<number | undefined>;
}

/**
 * Serves the bare repositories under `root` over git's smart HTTP protocol at
 * `http://127.0.0.1:<port>/<name>.git`, answering 401 unless the request carries Basic `user:password`.
 */
export function serveGitHttp(
  root: string,
  user: string,
  password: string,
  options: GitHttpOptions = {},
): Promise<GitHttpServer> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const requests: GitHttpServer['requests'] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requests.push({ path: url.pathname, authorization: request.headers.authorization });
    if (request.headers.authorization !== expected) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
      response.end();
      return;
    }
    const held = options.hold?.() ?? Promise.resolve(undefined);
    void Promise.all([held, readBody(request)]).then(([failWith, body]) => {
      if (failWith !== undefined) {
        response.writeHead(failWith);
        response.end();
        return;
      }
      const cgi = spawn('git', ['http-backend'], {
        env: {
          ...GIT_ENV,
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: '1',
          REQUEST_METHOD: request.method ?? 'GET',
          PATH_INFO: url.pathname,
          QUERY_STRING: url.search.replace(/^\?/, ''),
          CONTENT_TYPE: request.headers['content-type'] ?? '',
          CONTENT_LENGTH: String(body.length),
          HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
          GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
          REMOTE_ADDR: '127.0.0.1',
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const out: Buffer[] = [];
      cgi.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      cgi.on('close', () => {
        const all = Buffer.concat(out);
        const end = all.indexOf('\r\n\r\n');
        const headText = all.subarray(0, end < 0 ? 0 : end).toString('latin1');
        let status = 200;
        const headers: Record<string, string> = {};
        for (const line of headText.split('\r\n')) {
          const colon = line.indexOf(':');
          if (colon < 0) continue;
          const name = line.slice(0, colon).trim();
          const value = line.slice(colon + 1).trim();
          if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
          else headers[name] = value;
        }
        response.writeHead(status, headers);
        response.end(all.subarray(end < 0 ? 0 : end + 4));
      });
      cgi.stdin.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        port,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
