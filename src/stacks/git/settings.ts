/**
 * A git stack's settings: what a caller may send (checked here, 400 naming the first problem) and the
 * stack's `git.json`, which holds them as given, credentials and webhook secret included (mode 0600;
 * never answered, never in an event).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import cron from 'node-cron';
import type { StackRef, StackVariable } from '../contracts.js';
import { StacksError } from '../errors.js';
import { stackDir, stackExists, validateVariables } from '../stack/store.js';
import { checkBranchName, composePathProblem, normaliseComposePath, repositoryProblem } from './command.js';

export const GIT_FILE = 'git.json';
const MAX_SECRET_LENGTH = 1024;

/** `git.json`: the settings as given, credentials and secret included. */
export interface GitSettings {
  version: 1;
  repository: string;
  branch: string;
  composePath: string;
  /** Override files compose gets after `composePath`, in order (paths in the repository). */
  files: string[];
  webhookSecret: string | null;
  autoDeployCron: string | null;
}

/** A new git stack: its settings and the variables of its `.env`. */
export interface NewGitStack extends Omit<GitSettings, 'version'> {
  variables: StackVariable[];
}

/** A settings change: absent fields stay as they are. */
export type GitStackChanges = Partial<NewGitStack>;

// ------------------------------------------------------------------------------------------------
// Input
// ------------------------------------------------------------------------------------------------

function checkRepository(value: unknown): string {
  if (typeof value !== 'string') throw new StacksError('invalid_git_settings', 'repository must be a string');
  const problem = repositoryProblem(value);
  // The problem names no part of the URL, so no credential is echoed back.
  if (problem) throw new StacksError('invalid_git_settings', problem);
  return value;
}

async function checkBranch(value: unknown): Promise<string> {
  if (typeof value !== 'string') throw new StacksError('invalid_git_settings', 'branch must be a string');
  if (!(await checkBranchName(value)))
    throw new StacksError(
      'invalid_git_settings',
      `branch ${JSON.stringify(value.slice(0, 100))} is not a valid branch name`,
    );
  return value;
}

function checkComposePath(value: unknown): string {
  if (typeof value !== 'string')
    throw new StacksError('invalid_git_settings', 'composePath must be a string');
  const problem = composePathProblem(value);
  if (problem) throw new StacksError('invalid_git_settings', problem);
  return normaliseComposePath(value);
}

/** Override files a git stack may name. */
const MAX_OVERRIDE_FILES = 16;

/** The override files, each a path like `composePath`, normalised; none twice, none the base. */
export function checkFiles(value: unknown, composePath: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_OVERRIDE_FILES)
    throw new StacksError(
      'invalid_git_settings',
      `files must be a list of at most ${MAX_OVERRIDE_FILES} paths of compose files`,
    );
  const files = value.map((path, i) => {
    if (typeof path !== 'string')
      throw new StacksError('invalid_git_settings', `files[${i}] must be a string`);
    const problem = composePathProblem(path);
    if (problem)
      throw new StacksError('invalid_git_settings', `files[${i}]: ${problem.replace(/^composePath /, '')}`);
    return normaliseComposePath(path);
  });
  for (const [i, path] of files.entries()) {
    if (path === composePath)
      throw new StacksError(
        'invalid_git_settings',
        `files[${i}] is composePath itself (files are the overrides after it)`,
      );
    if (files.indexOf(path) !== i)
      throw new StacksError('invalid_git_settings', `files[${i}]: ${path} is given twice`);
  }
  return files;
}

function checkSecret(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value.length > MAX_SECRET_LENGTH || value.includes('\0'))
    throw new StacksError(
      'invalid_git_settings',
      `webhookSecret must be a non-empty string of at most ${MAX_SECRET_LENGTH} characters, or null`,
    );
  return value;
}

/** The cron expression, or a 400 naming what node-cron found wrong with it. */
function checkCron(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string')
    throw new StacksError('invalid_cron', 'autoDeployCron must be a cron expression or null');
  const expression = value.trim();
  if (!cron.validate(expression)) {
    const errors = cron.validateDetailed(expression).errors;
    const why = errors
      .map((e) => (e.field === 'expression' ? e.message : `${e.field}: ${e.message}`))
      .join('; ');
    throw new StacksError(
      'invalid_cron',
      `autoDeployCron ${JSON.stringify(value)} is not a valid cron expression${why ? `: ${why}` : ''}`,
    );
  }
  return expression;
}

/** The fields a create and an update both take; a create also names the stack. */
const SETTING_FIELDS = [
  'repository',
  'branch',
  'composePath',
  'files',
  'webhookSecret',
  'autoDeployCron',
  'variables',
];
const CREATE_FIELDS = new Set(['name', ...SETTING_FIELDS, 'deploy']);
const UPDATE_FIELDS = new Set([...SETTING_FIELDS, 'redeploy']);

function unknownFields(body: Record<string, unknown>, allowed: ReadonlySet<string>): void {
  const unknown = Object.keys(body).filter((k) => !allowed.has(k));
  if (unknown.length > 0)
    throw new StacksError(
      'invalid_git_settings',
      `Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}`,
    );
}

/** The body of `POST /api/git-stacks`, checked (400 naming the first problem). */
export async function parseNewGitStack(body: Record<string, unknown>): Promise<NewGitStack> {
  unknownFields(body, CREATE_FIELDS);
  const repository = checkRepository(body.repository);
  const branch = await checkBranch(body.branch ?? 'main');
  const composePath = checkComposePath(body.composePath ?? 'compose.yaml');
  return {
    repository,
    branch,
    composePath,
    files: checkFiles(body.files, composePath),
    webhookSecret: checkSecret(body.webhookSecret),
    autoDeployCron: checkCron(body.autoDeployCron),
    variables: validateVariables(body.variables ?? []),
  };
}

/** The body of `PUT /api/git-stacks/{name}` without `redeploy`, checked. */
export async function parseGitStackChanges(body: Record<string, unknown>): Promise<GitStackChanges> {
  unknownFields(body, UPDATE_FIELDS);
  const changes: GitStackChanges = {};
  if (body.repository !== undefined) changes.repository = checkRepository(body.repository);
  if (body.branch !== undefined) changes.branch = await checkBranch(body.branch);
  if (body.composePath !== undefined) changes.composePath = checkComposePath(body.composePath);
  // Checked against the base once the change is applied (git-stacks.ts): one may move the other.
  if (body.files !== undefined) changes.files = checkFiles(body.files, '');
  if (body.webhookSecret !== undefined) changes.webhookSecret = checkSecret(body.webhookSecret);
  if (body.autoDeployCron !== undefined) changes.autoDeployCron = checkCron(body.autoDeployCron);
  if (body.variables !== undefined) changes.variables = validateVariables(body.variables);
  return changes;
}

// ------------------------------------------------------------------------------------------------
// git.json
// ------------------------------------------------------------------------------------------------

export const settingsText = (settings: GitSettings) => `${JSON.stringify(settings, null, 2)}\n`;

function parseSettings(text: string, file: string): GitSettings {
  let raw: Partial<GitSettings>;
  try {
    raw = JSON.parse(text) as Partial<GitSettings>;
  } catch (error) {
    throw new StacksError('data_damaged', `${file} is not valid JSON`, { cause: error });
  }
  if (
    typeof raw.repository !== 'string' ||
    typeof raw.branch !== 'string' ||
    typeof raw.composePath !== 'string'
  )
    throw new StacksError('data_damaged', `${file} lacks repository, branch or composePath`);
  return {
    version: 1,
    repository: raw.repository,
    branch: raw.branch,
    composePath: raw.composePath,
    files: Array.isArray(raw.files) ? raw.files.filter((f): f is string => typeof f === 'string') : [],
    webhookSecret: typeof raw.webhookSecret === 'string' ? raw.webhookSecret : null,
    autoDeployCron: typeof raw.autoDeployCron === 'string' ? raw.autoDeployCron : null,
  };
}

/** The stack's git settings, or undefined when it is no git stack (or no stack). */
export async function readGitSettings(dataDir: string, ref: StackRef): Promise<GitSettings | undefined> {
  const file = join(stackDir(dataDir, ref), GIT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
  // A folder whose stack was deleted meanwhile has no compose file: no stack, whatever git.json says.
  if (!(await stackExists(dataDir, ref))) return undefined;
  return parseSettings(text, file);
}
