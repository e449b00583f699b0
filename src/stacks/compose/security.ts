/**
 * The security settings of an environment (config `environments[].security`, the local environment's
 * `localEnvironmentSecurity`) held against a compose file, before compose runs it
 * (docs/security.md#what-an-edit-grant-can-reach). Compose runs on the server, as the server's user, and the engine it drives is root on its
 * host: without these checks a compose file could build from another stack's folder (and print its
 * `.env`), read any file of the server through `env_file` or `dockerfile`, or mount `/`.
 *
 * - Paths (`composePaths: "stack"`, the default): every path a compose file names
 *   (compose/references.ts) is resolved as the system will resolve it — relative to its project folder,
 *   after compose's substitution, each symbolic link followed to its target — and must stay inside the
 *   stack's root: its folder, or for a git stack its checked-out tree. `"unrestricted"` lets paths
 *   leave it, but never into chronicle's data folder (other stacks, the event log, the keys) nor to a
 *   folder above it. Files a compose file brings in (`include`, `extends`) are checked the same way.
 * - Bind mounts: a source inside the stack's root is the stack's own (but never the stack's folder
 *   itself, which holds chronicle's files: a container could rewrite them); elsewhere the source is
 *   refused unless `bindMounts` lists a folder holding it — and never when it is chronicle's data
 *   folder, inside it or above it.
 * - `privileged`, `hostNamespaces`, `devices`, `capAdd`, `sysctls`: false refuses what each names.
 *
 * The checks apply to non-admin users' compose files (the caller decides who is checked). A failure is
 * a 400 naming the key and the path as written, never a file's content.
 */
import { lstat, readFile, readlink, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { parseDocument } from 'yaml';
import type { ComposePlace, ComposeSecurity } from '../contracts.js';
import { StacksError } from '../errors.js';
import { parseEnvFile } from './env-file.js';
import { UncheckableValue } from './interpolation.js';
import {
  type ComposeReferences,
  composeReferences,
  type PathReference,
  type SecuritySetting,
} from './references.js';
import { MAX_COMPOSE_ALIASES } from './yaml.js';

export type { ComposeSecurity };

export const DEFAULT_COMPOSE_SECURITY: ComposeSecurity = {
  composePaths: 'stack',
  bindMounts: false,
  privileged: false,
  hostNamespaces: false,
  devices: false,
  capAdd: false,
  sysctls: false,
};

interface SecurityCheck {
  /** Where compose runs: the root paths must stay in, the project folder, the compose file. */
  place: ComposePlace;
  /** The stack's own folder under the data folder (chronicle's files: never a bind source). */
  stackDir: string;
  dataDir: string;
  /** The environment compose gets (substitution reads it). */
  env: Readonly<Record<string, string>>;
  security: ComposeSecurity;
  /** `environment 1`, `the local environment`: for messages. */
  where: string;
}

/** Files read at most per check (include and extends chains), and their size. */
const MAX_FILES = 64;
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Symbolic links followed in one path before it counts as a loop. */
const MAX_LINKS = 40;

const isWithin = (path: string, folder: string) =>
  path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/**
 * The real path `path` names from `from` (a real folder), as the system resolves it: component by
 * component, `..` taken after each link is followed (not lexically first), a link's target read and
 * resolved in turn. A part that does not exist ends the walk there; the rest is joined as written.
 */
export async function realPathOf(from: string, path: string): Promise<string> {
  let current = isAbsolute(path) ? sep : from;
  const pending = path.split('/').reverse();
  let links = 0;
  let missing = false;
  while (pending.length > 0) {
    const part = pending.pop() as string;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    if (missing) {
      current = next;
      continue;
    }
    let link: string | undefined;
    try {
      const info = await lstat(next);
      if (info.isSymbolicLink()) link = await readlink(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      missing = true;
      current = next;
      continue;
    }
    if (link === undefined) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new UncheckableValue(`${path} holds a loop of symbolic links`);
    if (isAbsolute(link)) current = sep;
    pending.push(...link.split('/').reverse());
  }
  return current;
}

/** A value with `~` for the home folder (compose expands `~` and `~/`; `~user` is refused). */
function expandHome(value: string): string {
  if (value === '~' || value.startsWith('~/')) return join(homedir(), value.slice(1));
  if (value.startsWith('~')) throw new UncheckableValue(`${value}: only ~ and ~/ name a home folder here`);
  return value;
}

/** An env file's values as compose reads them, or nothing (also when it is missing or unreadable). */
async function dotEnvFile(file: string): Promise<Record<string, string>> {
  try {
    return Object.fromEntries(parseEnvFile(await readFile(file, 'utf8')));
  } catch {
    return {};
  }
}

/** The `.env` of a project folder. */
const dotEnv = (projectDir: string) => dotEnvFile(join(projectDir, '.env'));

/** The values of env files (each already checked as a path of its own), later ones winning. */
async function envFilesOf(from: string, files: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of files) {
    const path = await realPathOf(from, expandHome(file));
    Object.assign(out, await dotEnvFile(path));
  }
  return out;
}

/** The environments a file's values may be substituted from: compose's own over `.env`, and the other way. */
const environmentsOf = (env: Readonly<Record<string, string>>, files: Record<string, string>) =>
  Object.keys(files).length === 0
    ? [env]
    : [
        { ...files, ...env },
        { ...env, ...files },
      ];

interface Folders {
  root: string;
  stackDir: string;
  dataDir: string;
}

/** Names chronicle keeps in a stack's folder: its files, and hidden ones (the git tree, pinned files). */
const CHRONICLE_FILES = new Set(['compose.yaml', '.env', 'stack.json', 'git.json']);
const isChronicleFile = (path: string) => {
  const name = path.slice(path.lastIndexOf(sep) + 1);
  return CHRONICLE_FILES.has(name) || name.startsWith('.');
};

/** What is wrong with one resolved path, or undefined. */
function pathProblem(
  real: string,
  use: PathReference['use'],
  folders: Folders,
  check: SecurityCheck,
): string | undefined {
  const inRoot = isWithin(real, folders.root);
  if (use === 'bind') {
    if (inRoot) {
      // The stack's folder holds chronicle's files (its compose file, `.env`, `stack.json`...): a
      // container that could write them would choose what the next deploy runs.
      if (
        isWithin(folders.stackDir, real) ||
        (dirname(real) === folders.root && folders.root === folders.stackDir && isChronicleFile(real))
      )
        return "is chronicle's own file or folder of the stack: mount a folder inside the stack's folder instead";
      return undefined;
    }
    if (isWithin(real, folders.dataDir)) return "is inside chronicle's data folder (security.bindMounts)";
    if (isWithin(folders.dataDir, real)) return "holds chronicle's data folder (security.bindMounts)";
    const allowed = check.security.bindMounts;
    if (allowed === false)
      return "is outside the stack's folder: bind mounts are not allowed there (security.bindMounts)";
    if (!allowed.some((folder) => isWithin(real, folder)))
      return `is under none of the folders bind mounts may come from (security.bindMounts: ${allowed.join(', ')})`;
    return undefined;
  }
  if (inRoot) return undefined;
  if (check.security.composePaths === 'stack') return "leaves the stack's folder (security.composePaths)";
  if (isWithin(real, folders.dataDir) || isWithin(folders.dataDir, real))
    return "reaches chronicle's data folder (security.composePaths is unrestricted, but never there)";
  return undefined;
}

/** Every violation of `check.security` in the compose text (and the files it brings in). */
export async function securityViolations(text: string, check: SecurityCheck): Promise<string[]> {
  const real = async (p: string) => realpath(p).catch(() => p);
  const folders: Folders = {
    root: await real(check.place.root),
    stackDir: await real(check.stackDir),
    dataDir: await real(check.dataDir),
  };
  const bindRoots =
    check.security.bindMounts === false ? false : await Promise.all(check.security.bindMounts.map(real));
  const security: ComposeSecurity = { ...check.security, bindMounts: bindRoots };
  const checking: SecurityCheck = { ...check, security };
  const problems: string[] = [];
  const seen = new Set<string>();
  const projectDir = await realPathOf(folders.root, check.place.cwd);
  // The compose file and the project's `.env` are read by compose as well.
  const queue: Array<{
    text?: string;
    file: string;
    key: string;
    projectDir: string;
    service?: string;
    envFiles: Record<string, string>;
  }> = [
    { text, file: check.place.file, key: 'the compose file', projectDir, envFiles: await dotEnv(projectDir) },
  ];
  const fixed: Array<{ key: string; path: string; use: PathReference['use'] }> = [
    { key: 'the compose file', path: check.place.file, use: 'file' },
    { key: "the project's .env", path: join(check.place.cwd, '.env'), use: 'file' },
    ...check.place.overrides.map((path, i) => ({
      key: `override file ${i + 1}`,
      path,
      use: 'file' as const,
    })),
  ];
  // Override files are read with the compose file, their relative paths from its folder.
  for (const [i, file] of check.place.overrides.entries())
    queue.push({ file, key: `override file ${i + 1}`, projectDir, envFiles: queue[0]?.envFiles ?? {} });
  for (const f of fixed) {
    const resolved = await realPathOf(sep, f.path);
    const problem = pathProblem(resolved, f.use, folders, checking);
    if (problem) problems.push(`${f.key} ${problem}`);
  }
  let files = 0;
  for (let item = queue.shift(); item; item = queue.shift()) {
    if (++files > MAX_FILES) {
      problems.push(`more than ${MAX_FILES} compose files are brought in by include and extends`);
      break;
    }
    let body = item.text;
    if (body === undefined) {
      try {
        const raw = await readFile(item.file);
        if (raw.length > MAX_FILE_BYTES) {
          problems.push(`${item.key}: the file is larger than ${MAX_FILE_BYTES} bytes`);
          continue;
        }
        body = raw.toString('utf8');
      } catch {
        // Missing or unreadable: compose refuses it itself; nothing in it can be used.
        continue;
      }
    }
    const doc = parseDocument(body, { merge: true });
    let model: unknown;
    try {
      model = doc.errors.length > 0 ? undefined : doc.toJS({ maxAliasCount: MAX_COMPOSE_ALIASES });
    } catch {
      model = undefined;
    }
    if (model === null || typeof model !== 'object' || Array.isArray(model)) continue;
    const refs: ComposeReferences = composeReferences(model as Record<string, unknown>, {
      envs: environmentsOf(check.env, item.envFiles),
      projectDir: item.projectDir,
      ...(item.service !== undefined ? { service: item.service } : {}),
    });
    const inside = item.key === 'the compose file' ? '' : ` (in ${item.key})`;
    for (const part of refs.uncheckable) problems.push(`${part}${inside}: cannot be checked`);
    for (const finding of refs.settings)
      if (!security[finding.setting])
        problems.push(
          `${finding.key}: ${finding.value}${inside} ${SETTING_WORDS[finding.setting]} (security.${finding.setting})`,
        );
    if (security.composePaths === 'stack')
      for (const key of refs.agents)
        problems.push(
          `${key}${inside}: forwarding the server's SSH agent is not allowed (security.composePaths)`,
        );
    const contexts = new Map<string, string[]>();
    for (const ref of refs.paths) {
      const reals: string[] = [];
      for (const value of ref.values) {
        let resolved: string;
        try {
          const base =
            typeof ref.base === 'string'
              ? [ref.base]
              : (contexts.get(ref.base.contextOf) ?? [item.projectDir]);
          for (const from of base) {
            resolved = await realPathOf(from, expandHome(value));
            reals.push(resolved);
          }
        } catch (error) {
          if (error instanceof UncheckableValue) {
            problems.push(`${ref.key}${inside}: ${error.message}`);
            continue;
          }
          throw error;
        }
      }
      contexts.set(ref.key, reals);
      const problem = reals
        .map((r) => pathProblem(r, ref.use, folders, checking))
        .find((p) => p !== undefined);
      if (problem) {
        problems.push(`${ref.key}${inside}: ${ref.written} ${problem}`);
        continue;
      }
      if (ref.use !== 'compose') continue;
      for (const file of reals) {
        if (seen.has(file)) continue;
        seen.add(file);
        const dirs = ref.brings?.projectDirectory
          ? await Promise.all(ref.brings.projectDirectory.map((d) => realPathOf(item.projectDir, d)))
          : [dirname(file)];
        for (const dir of dirs) {
          // An included project's values are substituted from its own `.env`, or the env_file it names.
          let envFiles = item.envFiles;
          if (ref.brings?.service === undefined) {
            const named = ref.brings?.envFiles;
            envFiles = {
              ...item.envFiles,
              ...(named ? await envFilesOf(item.projectDir, named) : await dotEnv(dir)),
            };
          }
          queue.push({
            file,
            key: ref.key,
            // An extended service's relative paths are relative to the file it is in.
            projectDir: ref.brings?.service === undefined ? dir : dirname(file),
            envFiles,
            ...(ref.brings?.service !== undefined ? { service: ref.brings.service } : {}),
          });
        }
      }
    }
  }
  return problems;
}

const SETTING_WORDS: Record<SecuritySetting, string> = {
  privileged: 'gives the container the host: privileged containers are not allowed',
  hostNamespaces: "shares the host's namespaces: not allowed",
  devices: "gives the container the host's devices: not allowed",
  capAdd: 'adds kernel capabilities: not allowed',
  sysctls: 'sets kernel parameters: not allowed',
};

/** Shown of the violations in one 400: the first few, and how many more. */
const SHOWN = 5;

/** A 400 naming every violation (the first few), or undefined when the compose file keeps the settings. */
export async function securityRefusal(text: string, check: SecurityCheck): Promise<StacksError | undefined> {
  const problems = await securityViolations(text, check);
  if (problems.length === 0) return undefined;
  const more = problems.length > SHOWN ? `; and ${problems.length - SHOWN} more` : '';
  return new StacksError(
    'security_refused',
    `The compose file breaks the security settings of ${check.where}: ${problems.slice(0, SHOWN).join('; ')}${more}`,
  );
}
