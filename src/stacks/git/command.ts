/**
 * The `git` command, run as a child process (never through a shell), for git stacks: checking a branch
 * name, asking a remote for a branch's commit, fetching that commit into a bare cache repository, and
 * reading one file of it, and checking a commit out into the tree compose runs in.
 *
 * Credentials: a repository URL may carry `user:password@` (or a token as `token@`). git never sees
 * them in its arguments (where `ps` would show them): it is given the URL without them, and an
 * `http.<origin>/.extraHeader` with the Basic authorization through `GIT_CONFIG_*` environment
 * variables, scoped to the repository's origin so a redirect elsewhere does not receive it. Everything
 * git prints passes the caller's redactor, which `credentialValues` feeds.
 *
 * Why the command and not a library: the maintained pure-JS client (isomorphic-git) speaks http(s)
 * only (no ssh, no local or file:// repositories), and git is on every machine that builds stacks.
 */
import { access, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type RunStop, runBounded } from '../bounded-run.js';

/** A repository as git is asked for it, and what must never be shown of it. */
interface GitRemote {
  /** What git is given: the URL (or path) without credentials. */
  url: string;
  /** `Authorization` header value for an http(s) URL that carried credentials. */
  authorization?: string;
  /** The origin (`https://host:port/`) the header is scoped to. */
  origin?: string;
}

/** A failure of a git step, with a message fit for a caller (already free of credentials). */
export class GitError extends Error {
  readonly kind:
    | 'unreachable'
    | 'branch_missing'
    | 'file_missing'
    | 'not_a_file'
    | 'timeout'
    | 'cancelled'
    | 'spawn'
    | 'commit_missing'
    | 'unsafe_link';
  constructor(kind: GitError['kind'], message: string) {
    super(message);
    this.name = 'GitError';
    this.kind = kind;
  }
}

/** Whether the text holds a control character (NUL to US, DEL): none may reach an argument or a line. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
/** `[user@]host:path`, git's scp-like ssh syntax (a colon before any slash, not `C:`-like). */
const SCP_LIKE = /^(?:[^@/:\s]+@)?[^@/:\s]{2,}:(?!\/\/)/;
/** Transports a git stack may use; `ext::` and friends run commands and are refused. */
const GIT_PROTOCOLS = ['http', 'https', 'ssh', 'git', 'file'] as const;

/**
 * The repository's problem, or undefined when it is acceptable: an http(s), ssh, git or file URL, an
 * scp-like `host:path`, or an absolute local path.
 */
export function repositoryProblem(repository: string): string | undefined {
  if (repository === '') return 'repository must not be empty';
  if (repository.length > 2048) return 'repository must be at most 2048 characters';
  if (hasControlCharacter(repository)) return 'repository must not contain control characters';
  if (repository.startsWith('-')) return 'repository must not start with "-"';
  const scheme = URL_SCHEME.exec(repository)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!(GIT_PROTOCOLS as readonly string[]).includes(scheme))
      return `repository uses the unsupported protocol ${scheme}: (use ${GIT_PROTOCOLS.join(', ')})`;
    let url: URL;
    try {
      url = new URL(repository);
    } catch {
      return 'repository is not a valid URL';
    }
    if (url.password !== '' && scheme !== 'http' && scheme !== 'https')
      return `repository: a password is only supported in http(s) URLs (use an ssh key for ${scheme}:)`;
    return undefined;
  }
  if (repository.includes('::')) return 'repository must be a URL, host:path or an absolute path';
  if (repository.startsWith('/') || SCP_LIKE.test(repository)) return undefined;
  return 'repository must be a URL (https://, ssh://, git://, file://), host:path or an absolute path';
}

const isHttp = (url: URL) => url.protocol === 'http:' || url.protocol === 'https:';

const parsedHttp = (repository: string): URL | undefined => {
  if (!/^https?:\/\//i.test(repository)) return undefined;
  try {
    const url = new URL(repository);
    return isHttp(url) ? url : undefined;
  } catch {
    return undefined;
  }
};

const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * The repository as it may be shown: an http(s) URL without its `user:password@`. Other forms carry no
 * credentials (an ssh user name is not a secret) and are returned as they are.
 */
export function stripCredentials(repository: string): string {
  const url = parsedHttp(repository);
  if (!url || (url.username === '' && url.password === '')) return repository;
  // Cut the userinfo out of the text rather than re-serialising the URL, which would normalise the rest.
  const scheme = /^https?:\/\//i.exec(repository)?.[0] ?? '';
  const rest = repository.slice(scheme.length);
  const at = rest.lastIndexOf('@', rest.search(/[/?#]|$/));
  return at < 0 ? repository : `${scheme}${rest.slice(at + 1)}`;
}

/**
 * Every spelling of the repository's credentials a redactor must hide: the password (or the token,
 * when the user name is the only part), as written and decoded, the whole `user:password`, and the
 * Basic header value git sends. A user name beside a password is not a secret and is not listed (a
 * short one would withhold every line holding it).
 */
export function credentialValues(repository: string): string[] {
  const url = parsedHttp(repository);
  if (!url || (url.username === '' && url.password === '')) return [];
  const values = new Set<string>();
  const secretPart = url.password !== '' ? url.password : url.username;
  values.add(secretPart);
  values.add(decode(secretPart));
  if (url.password !== '') {
    values.add(`${url.username}:${url.password}`);
    values.add(`${decode(url.username)}:${decode(url.password)}`);
  }
  const header = basicAuthorization(url);
  if (header) values.add(header.slice('Basic '.length));
  return [...values].filter((v) => v !== '');
}

function basicAuthorization(url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  const pair = `${decode(url.username)}:${decode(url.password)}`;
  return `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
}

/** How git is to reach a repository: the stripped URL, plus the header for credentials it carried. */
export function gitRemote(repository: string): GitRemote {
  const url = parsedHttp(repository);
  const authorization = url ? basicAuthorization(url) : undefined;
  if (!url || authorization === undefined) return { url: repository };
  return { url: stripCredentials(repository), authorization, origin: `${url.protocol}//${url.host}/` };
}

interface GitRunOptions {
  cwd?: string;
  timeoutMs: number;
  remote?: GitRemote;
  /** Bytes of standard output kept; more is an error (a compose file is small). */
  maxOutputBytes?: number;
  /** The index file of a checked-out tree (GIT_INDEX_FILE); the cache repository's own otherwise. */
  indexFile?: string;
  /** Aborted when the server stops: git (and what it started) is killed at once. */
  signal?: AbortSignal;
}

interface GitOutput {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

const STDERR_KEEP = 8 * 1024;
const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;

/** The environment git runs in: never prompting, C messages (they are matched), credentials as config. */
export function gitEnv(base: NodeJS.ProcessEnv, remote?: GitRemote): Record<string, string> {
  // Without a prototype, so a variable named `__proto__` is kept like any other.
  const env: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined) continue;
    // A caller's own config-by-environment would shift our GIT_CONFIG_* indices; askpass would prompt.
    if (/^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+|PARAMETERS)$/.test(key)) continue;
    if (key === 'GIT_ASKPASS' || key === 'SSH_ASKPASS') continue;
    env[key] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  env.LC_ALL = 'C';
  env.GIT_ALLOW_PROTOCOL = GIT_PROTOCOLS.join(':');
  env.GIT_SSH_COMMAND ??= 'ssh -o BatchMode=yes';
  if (remote?.authorization !== undefined && remote.origin !== undefined) {
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = `http.${remote.origin}.extraHeader`;
    env.GIT_CONFIG_VALUE_0 = `Authorization: ${remote.authorization}`;
  }
  return env;
}

/** Runs git to its end (its own process group: a time-out also ends the helpers it started). */
async function runGit(args: readonly string[], options: GitRunOptions): Promise<GitOutput> {
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const stopped = (stop: RunStop): GitError => {
    switch (stop.why) {
      case 'timeout':
        return new GitError('timeout', `git ${args[0]} timed out after ${options.timeoutMs} ms`);
      case 'cancelled':
        return new GitError('cancelled', `git ${args[0]} was stopped: the server is stopping`);
      case 'output':
        return new GitError('not_a_file', `git ${args[0]} printed more than ${maxOutput} bytes`);
      case 'spawn':
        return new GitError('spawn', `git could not be started: ${stop.error.code ?? stop.error.message}`);
    }
  };
  const { code, stdout, stderr } = await runBounded('git', args, {
    cwd: options.cwd,
    env: {
      ...gitEnv(process.env, options.remote),
      ...(options.indexFile === undefined ? {} : { GIT_INDEX_FILE: options.indexFile }),
    },
    timeoutMs: options.timeoutMs,
    maxOutputBytes: maxOutput,
    stderrKeep: STDERR_KEEP,
    signal: options.signal,
    stopped,
  });
  return { code, stdout, stderr };
}

/** git's own explanation: its `fatal:`/`error:` lines (else its last line), without the prefixes. */
export function gitReason(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const fatal = lines
    .filter((l) => /^(fatal|error):/.test(l))
    .map((l) => l.replace(/^(fatal|error):\s*/, ''));
  const chosen = fatal.length > 0 ? fatal : lines.slice(-1);
  return chosen.join('; ') || 'no message';
}

/**
 * Whether `git check-ref-format --branch` accepts the name and leaves it as it is (`@{-1}` and the like
 * would expand to another name).
 */
export async function checkBranchName(branch: string, timeoutMs = 10_000): Promise<boolean> {
  if (branch === '' || branch.startsWith('-') || hasControlCharacter(branch) || branch.length > 255)
    return false;
  // Outside any repository, so nothing in the server's working directory changes the answer.
  const out = await runGit(['check-ref-format', '--branch', branch], { timeoutMs, cwd: '/' });
  return out.code === 0 && out.stdout.toString('utf8').trim() === branch;
}

/** The path of a compose file inside a repository, normalised, or a message saying what is wrong. */
export function composePathProblem(path: string): string | undefined {
  if (path === '') return 'composePath must not be empty';
  if (path.length > 1024) return 'composePath must be at most 1024 characters';
  if (hasControlCharacter(path)) return 'composePath must not contain control characters';
  if (path.startsWith('/')) return 'composePath must be relative to the repository root';
  if (path.includes('\\')) return 'composePath must use / between folders';
  const parts = path.split('/');
  if (parts.includes('..')) return 'composePath must not contain ".."';
  if (parts.every((p) => p === '' || p === '.')) return 'composePath must name a file';
  if (path.endsWith('/')) return 'composePath must name a file, not a folder';
  return undefined;
}

/** `a//./b` → `a/b`: the path as git's tree lookup wants it (composePathProblem found nothing). */
export const normaliseComposePath = (path: string) =>
  path
    .split('/')
    .filter((p) => p !== '' && p !== '.')
    .join('/');

/** Where a fetch leaves the commit in the cache repository. */
const FETCHED_REF = 'refs/chronicle/fetched';

interface GitStepOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Hides credentials (and anything else) in the messages of errors. */
  redact: (text: string) => string;
}

const describeRemote = (remote: GitRemote) => remote.url;

/**
 * The commit a branch of the remote points at (`git ls-remote`), or a GitError: `branch_missing` when the
 * remote answers without that branch, `unreachable` otherwise.
 */
export async function remoteCommit(
  remote: GitRemote,
  branch: string,
  options: GitStepOptions,
): Promise<string> {
  const ref = `refs/heads/${branch}`;
  const out = await runGit(['ls-remote', '--', remote.url, ref], { ...options, remote, cwd: '/' });
  if (out.code !== 0)
    throw new GitError(
      'unreachable',
      options.redact(`Could not reach repository ${describeRemote(remote)}: ${gitReason(out.stderr)}`),
    );
  for (const line of out.stdout.toString('utf8').split('\n')) {
    const [sha, name] = line.split('\t');
    if (name === ref && sha !== undefined && /^[0-9a-f]{40,64}$/.test(sha)) return sha;
  }
  throw new GitError(
    'branch_missing',
    options.redact(`Branch ${branch} not found in ${describeRemote(remote)}`),
  );
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Makes the bare cache repository at `cacheDir` when it is missing (or is no repository). */
async function ensureCache(cacheDir: string, options: GitStepOptions): Promise<void> {
  if (await exists(join(cacheDir, 'HEAD'))) return;
  await rm(cacheDir, { recursive: true, force: true });
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const init = await runGit(['init', '--quiet', '--bare', cacheDir], { ...options, cwd: '/' });
  if (init.code !== 0) throw new Error(`git init of the cache ${cacheDir} failed: ${gitReason(init.stderr)}`);
}

/** `git fetch --depth 1` of one refspec into the cache (made when missing). */
async function shallowFetch(
  cacheDir: string,
  remote: GitRemote,
  refspec: string,
  options: GitStepOptions,
): Promise<GitOutput> {
  await ensureCache(cacheDir, options);
  return runGit(
    ['fetch', '--quiet', '--depth', '1', '--no-tags', '--no-write-fetch-head', '--', remote.url, refspec],
    { ...options, remote, cwd: cacheDir },
  );
}

/**
 * Fetches the branch's head (depth 1) into the bare cache repository at `cacheDir` (made when missing)
 * and returns its commit.
 */
export async function fetchBranch(
  cacheDir: string,
  remote: GitRemote,
  branch: string,
  options: GitStepOptions,
): Promise<string> {
  const fetched = await shallowFetch(cacheDir, remote, `+refs/heads/${branch}:${FETCHED_REF}`, options);
  if (fetched.code !== 0) {
    const reason = gitReason(fetched.stderr);
    if (/couldn't find remote ref/i.test(reason))
      throw new GitError(
        'branch_missing',
        options.redact(`Branch ${branch} not found in ${describeRemote(remote)}`),
      );
    throw new GitError(
      'unreachable',
      options.redact(`Could not fetch ${branch} from ${describeRemote(remote)}: ${reason}`),
    );
  }
  const head = await runGit(['rev-parse', '--verify', `${FETCHED_REF}^{commit}`], {
    ...options,
    cwd: cacheDir,
  });
  const sha = head.stdout.toString('utf8').trim();
  if (head.code !== 0 || !/^[0-9a-f]{40,64}$/.test(sha))
    throw new Error(`git rev-parse in the cache ${cacheDir} failed: ${gitReason(head.stderr)}`);
  return sha;
}

/** The text of `path` at `commit` in the cache repository; a GitError when it is missing or no file. */
export async function readFileAt(
  cacheDir: string,
  commit: string,
  path: string,
  options: GitStepOptions & { maxBytes: number },
): Promise<string> {
  const spec = `${commit}:${path}`;
  const type = await runGit(['cat-file', '-t', spec], { ...options, cwd: cacheDir });
  if (type.code !== 0)
    throw new GitError('file_missing', `Compose file ${path} not found in commit ${commit.slice(0, 12)}`);
  const kind = type.stdout.toString('utf8').trim();
  if (kind !== 'blob')
    throw new GitError(
      'not_a_file',
      `Compose path ${path} is a ${kind === 'tree' ? 'folder' : kind} in commit ${commit.slice(0, 12)}, not a file`,
    );
  const size = await runGit(['cat-file', '-s', spec], { ...options, cwd: cacheDir });
  if (Number(size.stdout.toString('utf8').trim()) > options.maxBytes)
    throw new GitError('not_a_file', `Compose file ${path} is larger than ${options.maxBytes} bytes`);
  const blob = await runGit(['cat-file', 'blob', spec], {
    ...options,
    cwd: cacheDir,
    maxOutputBytes: options.maxBytes,
  });
  if (blob.code !== 0) throw new Error(`git cat-file of ${path} failed: ${gitReason(blob.stderr)}`);
  return blob.stdout.toString('utf8');
}

/** Where a checked-out commit is kept in the cache, so a later redeploy of it finds its objects. */
const keptRef = (commit: string) => `refs/chronicle/commits/${commit}`;

/** The commit's symbolic links (git's mode 120000): path from the repository root → the link's text. */
async function symlinksAt(
  cacheDir: string,
  commit: string,
  options: GitStepOptions,
): Promise<Map<string, string>> {
  const listed = await runGit(['ls-tree', '-r', '-z', '--full-tree', commit], { ...options, cwd: cacheDir });
  if (listed.code !== 0)
    throw new Error(`git ls-tree of ${commit.slice(0, 12)} failed: ${gitReason(listed.stderr)}`);
  const links = new Map<string, string>();
  for (const entry of listed.stdout.toString('utf8').split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0 || !entry.startsWith('120000 ')) continue;
    const sha = entry.slice(0, tab).split(' ')[2] ?? '';
    const blob = await runGit(['cat-file', 'blob', sha], { ...options, cwd: cacheDir, maxOutputBytes: 4096 });
    links.set(entry.slice(tab + 1), blob.stdout.toString('utf8'));
  }
  return links;
}

/** Links followed in one path before it counts as a loop (Linux's own limit). */
const MAX_LINK_HOPS = 40;

/**
 * The first link (by path) that leads outside the repository when the file system follows it, or
 * undefined. Resolved on the commit's own listing, before anything is written: component by component,
 * a link replaced by its text (so `..` after it leaves the folder it points at, as the kernel does), an
 * absolute text, a `..` above the root or a loop leading out. Pure.
 */
export function escapingLink(links: ReadonlyMap<string, string>): string | undefined {
  const leadsOut = (path: string): boolean => {
    const at: string[] = [];
    const queue = path.split('/');
    let hops = 0;
    while (queue.length > 0) {
      const part = queue.shift() as string;
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (at.length === 0) return true;
        at.pop();
        continue;
      }
      at.push(part);
      const text = links.get(at.join('/'));
      if (text === undefined) continue;
      if (++hops > MAX_LINK_HOPS || text.startsWith('/')) return true;
      at.pop();
      queue.unshift(...text.split('/'));
    }
    return false;
  };
  return [...links.keys()].sort().find(leadsOut);
}

/** A GitError (`unsafe_link`) when a symbolic link of the commit leads outside the repository. */
export async function checkLinks(cacheDir: string, commit: string, options: GitStepOptions): Promise<void> {
  const escaping = escapingLink(await symlinksAt(cacheDir, commit, options));
  if (escaping !== undefined)
    throw new GitError(
      'unsafe_link',
      `${escaping} in commit ${commit.slice(0, 12)} is a symbolic link that leads outside the repository`,
    );
}

/**
 * Checks `commit` of the cache repository out into `tree` (made when missing), as `git reset --hard`
 * would: the files the commit tracks become its own, those the previous checkout tracked and it does
 * not are removed, and untracked files (what a bind mount wrote there) stay. `indexFile` is the tree's
 * index (kept beside it, so the next checkout knows what it tracked). A commit with a symbolic link that
 * leads outside the tree is refused before anything is written: compose reads the files a compose file
 * names through such links, and a container could be given any file of the host. The commit is kept by
 * a ref, so its objects outlive later fetches (a redeploy of it).
 */
export async function checkoutTree(
  cacheDir: string,
  tree: string,
  indexFile: string,
  commit: string,
  options: GitStepOptions,
): Promise<void> {
  const present = await runGit(['cat-file', '-e', `${commit}^{commit}`], { ...options, cwd: cacheDir });
  if (present.code !== 0)
    throw new GitError('commit_missing', `Commit ${commit.slice(0, 12)} is not in the repository cache`);
  await checkLinks(cacheDir, commit, options);
  await mkdir(tree, { recursive: true, mode: 0o700 });
  const out = await runGit(['--work-tree', tree, 'read-tree', '--reset', '-u', commit], {
    ...options,
    cwd: cacheDir,
    indexFile,
  });
  if (out.code !== 0)
    throw new Error(
      `git could not check out ${commit.slice(0, 12)}: ${options.redact(gitReason(out.stderr))}`,
    );
  const kept = await runGit(['update-ref', keptRef(commit), commit], { ...options, cwd: cacheDir });
  if (kept.code !== 0) throw new Error(`git update-ref in the cache failed: ${gitReason(kept.stderr)}`);
}

/**
 * Fetches one commit by its id (depth 1) into the cache: a redeploy of a commit the cache no longer
 * holds. Remotes that do not serve commits by id refuse it (a GitError).
 */
export async function fetchCommit(
  cacheDir: string,
  remote: GitRemote,
  commit: string,
  options: GitStepOptions,
): Promise<void> {
  const fetched = await shallowFetch(cacheDir, remote, `+${commit}:${keptRef(commit)}`, options);
  if (fetched.code !== 0)
    throw new GitError(
      'commit_missing',
      options.redact(
        `Commit ${commit.slice(0, 12)} is not in the repository cache and ${describeRemote(remote)} did not give it: ${gitReason(fetched.stderr)}`,
      ),
    );
}
